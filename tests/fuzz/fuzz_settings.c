/* libFuzzer: every `set` check (the core's keys and those the layers above
 * register), and the two parsers every number and PCI address goes
 * through: parse_u64 and pci_parse_addr. The first byte picks the key or
 * the parser; the rest, up to a NUL, is the value.
 *
 * Claims: no crash or sanitizer report; a check answers with one line of
 * printable ASCII (given printable ASCII, as every line that reaches it
 * is); a number or PCI address that is accepted reads back as
 * exactly what was written (no sign, space, octal, wrap or trailing garbage
 * was silently read as something else). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/platform.h"
#include "core/monitor/monitor.h"
#include "core/monitor/settings.h"
#include "core/monitor/survive.h"
#include "iommu/machine.h"
#include "pci/pci.h"
#include "tests/catalogue/catalogue.h"
#include "tests/host/platform_host.h"

static size_t nkeys;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	platform = &host_platform;
	settings_init();
	survive_init();					  /* watchdog, crash: registered by monitor_main */
	monitor_settings(iommon_catalogue(), subsystems); /* every subsystem's and group's keys */
	while (setting_key(nkeys))
		nkeys++;
	return 0;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s >= 0x7f)
			return false;
	return true;
}

/* A message is one line; it may quote the value it refuses, so it is
 * printable when the value was (as every line that reaches a check is). */
static void one_line(const char *msg, const char *value)
{
	size_t n = strlen(msg);
	if (n == 0 || n > 400 || (printable(value) && !printable(msg)))
		abort();
}

/* The digits after an optional 0x, lowercase, without leading zeros. */
static void canonical(const char *s, char *out, size_t n)
{
	while (*s == '0' && s[1])
		s++;
	size_t k = 0;
	for (; *s && k + 1 < n; s++)
		out[k++] = (char)(*s >= 'A' && *s <= 'F' ? *s + 32 : *s);
	out[k] = '\0';
}

static void number(const char *v)
{
	unsigned long long x = 12345;
	const char *why = parse_u64_why(v, &x);
	if (why) {
		one_line(why, v);
		if (x != 12345)
			abort(); /* untouched on refusal */
		return;
	}
	char back[32], in[260];
	bool hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
	snprintf(back, sizeof(back), hex ? "%llx" : "%llu", x);
	canonical(hex ? v + 2 : v, in, sizeof(in)); /* hex may have leading zeros; decimal may not */
	if (strcmp(back, in) != 0 || (!hex && v[0] == '0' && v[1]))
		abort();
}

static void pci(const char *v)
{
	struct pci_addr a = { 1, 2, 3, 4 };
	const char *why = pci_parse_addr_why(v, &a);
	if (why) {
		one_line(why, v);
		if (a.seg != 1 || a.bus != 2 || a.dev != 3 || a.fn != 4)
			abort();
		return;
	}
	/* the fields as written, read independently */
	char f[4][8];
	int colons = 0;
	for (const char *p = v; *p; p++)
		colons += *p == ':';
	int got = colons == 2
		      ? sscanf(v, "%7[0-9a-fA-F]:%7[0-9a-fA-F]:%7[0-9a-fA-F].%7[0-9a-fA-F]", f[0], f[1], f[2], f[3])
		      : sscanf(v, "%7[0-9a-fA-F]:%7[0-9a-fA-F].%7[0-9a-fA-F]", f[1], f[2], f[3]);
	if (got != (colons == 2 ? 4 : 3))
		abort();
	if (colons != 2)
		strcpy(f[0], "0");
	unsigned want[4] = { a.seg, a.bus, a.dev, a.fn }, width[4] = { 4, 2, 2, 1 };
	for (int i = 0; i < 4; i++)
		if (strlen(f[i]) > width[i] || strtoul(f[i], NULL, 16) != want[i])
			abort();
	char back[32];
	pci_addr_str(a, back, sizeof(back));
	struct pci_addr b;
	if (!pci_parse_addr(back, &b) || a.seg != b.seg || a.bus != b.bus || a.dev != b.dev || a.fn != b.fn)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 256)
		return 0;
	char *v = malloc(size);
	memcpy(v, data + 1, size - 1);
	v[size - 1] = '\0';
	size_t pick = data[0] % (nkeys + 2);
	if (pick == nkeys) {
		number(v);
	} else if (pick == nkeys + 1) {
		pci(v);
	} else {
		const char *why = setting_check(setting_key(pick), v);
		if (why)
			one_line(why, v);
		else if (strlen(v) >= 48)
			abort(); /* longer than a setting holds */
	}
	free(v);
	return 0;
}
