#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "monitor.h"
#include "platform.h"
#include "timing.h"

struct setting {
	const char *key;
	const char *def;
	const char *help;
	const char *(*check)(const char *v);
	const char *(*apply)(const char *v);
	char value[48];
};

bool parse_u64(const char *s, unsigned long long *out)
{
	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static const char *one_of(const char *v, const char *const *allowed)
{
	static char msg[96];
	for (const char *const *a = allowed; *a; a++)
		if (strcmp(v, *a) == 0)
			return NULL;
	size_t len = (size_t)snprintf(msg, sizeof(msg), "must be one of:");
	for (const char *const *a = allowed; *a && len < sizeof(msg); a++)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, " %s", *a);
	return msg;
}

static const char *check_countdown(const char *v)
{
	unsigned long long n;
	return parse_u64(v, &n) && n <= 3600 ? NULL : "must be a number of seconds from 0 to 3600";
}

static const char *check_on_off(const char *v)
{
	static const char *const a[] = { "on", "off", NULL };
	return one_of(v, a);
}

static const char *check_console(const char *v)
{
	static const char *const a[] = { "auto", "efi", "uart", "both", NULL };
	return one_of(v, a);
}

static const char *apply_console(const char *v)
{
	return platform->console_route(v, NULL);
}

/* "spcr", "io:PORT[,BAUD]", "mmio:ADDR[,BAUD]" (byte registers) or
 * "mmio32:ADDR[,BAUD]" (32-bit registers 4 bytes apart, as many server
 * UARTs are wired) */
static const char *check_uart(const char *v)
{
	if (strcmp(v, "spcr") == 0)
		return NULL;
	const char *rest;
	unsigned long long addr, baud = 115200, limit;
	if (strncmp(v, "io:", 3) == 0) {
		rest = v + 3;
		limit = 0xfff8;
	} else if (strncmp(v, "mmio:", 5) == 0 || strncmp(v, "mmio32:", 7) == 0) {
		rest = strchr(v, ':') + 1;
		limit = ~0ull;
	} else {
		return "must be spcr, io:PORT[,BAUD], mmio:ADDRESS[,BAUD] or mmio32:ADDRESS[,BAUD]";
	}
	char addr_s[24];
	const char *comma = strchr(rest, ',');
	size_t alen = comma ? (size_t)(comma - rest) : strlen(rest);
	if (alen == 0 || alen >= sizeof(addr_s))
		return "the UART address is missing or too long";
	memcpy(addr_s, rest, alen);
	addr_s[alen] = '\0';
	if (!parse_u64(addr_s, &addr) || addr == 0 || addr > limit)
		return "the UART address is not a valid number for its space";
	if (comma && (!parse_u64(comma + 1, &baud) || baud < 1200 || baud > 115200 || 115200 % baud))
		return "the baud rate must divide 115200 and be 1200 or more (e.g. 115200, 57600, 9600)";
	return NULL;
}

static const char *apply_uart(const char *v)
{
	return platform->console_route(NULL, v);
}

static const char *check_timer_source(const char *v)
{
	static const char *const a[] = { "auto", "pmtimer", "hpet", "stall", NULL };
	return one_of(v, a);
}

static const char *apply_timer_source(const char *v)
{
	timing_init(monitor_acpi(), v);
	printf("counter recalibrated: %.3f MHz against %s\n", (double)timing.tsc_hz / 1e6, timing.source);
	if (strcmp(v, "auto") != 0 && strcmp(v, timing.source) != 0)
		printf("note: %s was not usable (%s)\n", v, timing.note);
	return NULL;
}

static const char *check_samples(const char *v)
{
	unsigned long long n;
	return parse_u64(v, &n) && n >= 10 && n <= 1000000 ? NULL : "must be a count from 10 to 1000000";
}

#define MAX_SETTINGS 32

static struct setting table[MAX_SETTINGS] = {
	{ "countdown", "10", "seconds before an unattended config runs (any key: menu)", check_countdown, NULL },
	{ "console", "auto", "where output goes: auto, efi, uart, both", check_console, apply_console },
	{ "uart", "spcr", "direct UART: spcr, io:PORT, mmio:ADDR or mmio32:ADDR (,BAUD)", check_uart, apply_uart },
	{ "records", "on", "print JSON records on the console (the results file always has them)", check_on_off, NULL },
	{ "timer.source", "auto", "calibration reference: auto, pmtimer, hpet, stall", check_timer_source,
	  apply_timer_source },
	{ "timer.samples", "1000", "samples for timer.overhead", check_samples, NULL },
};

static size_t nsettings; /* counted by settings_init */
#define NSETTINGS nsettings

static struct setting *find(const char *key)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		if (strcmp(table[i].key, key) == 0)
			return &table[i];
	return NULL;
}

void setting_add(const char *key, const char *def, const char *help, const char *(*check)(const char *v),
		 const char *(*apply)(const char *v))
{
	struct setting *s = find(key);
	if (!s) {
		if (nsettings == MAX_SETTINGS)
			return;
		s = &table[nsettings++];
	}
	*s = (struct setting){ .key = key, .def = def, .help = help, .check = check, .apply = apply };
	snprintf(s->value, sizeof(s->value), "%s", def);
}

void settings_init(void)
{
	for (nsettings = 0; nsettings < MAX_SETTINGS && table[nsettings].key; nsettings++)
		;
	for (size_t i = 0; i < NSETTINGS; i++)
		snprintf(table[i].value, sizeof(table[i].value), "%s", table[i].def);
}

const char *setting_set(const char *key, const char *value)
{
	static char msg[160];
	struct setting *s = find(key);
	if (!s) {
		snprintf(msg, sizeof(msg), "unknown setting '%s' (try 'show')", key);
		return msg;
	}
	if (strlen(value) >= sizeof(s->value)) {
		snprintf(msg, sizeof(msg), "value for %s is too long", key);
		return msg;
	}
	const char *why = s->check ? s->check(value) : NULL;
	if (!why && s->apply)
		why = s->apply(value);
	if (why) {
		snprintf(msg, sizeof(msg), "%s '%s': %s", key, value, why);
		return msg;
	}
	snprintf(s->value, sizeof(s->value), "%s", value);
	return NULL;
}

const char *setting_get(const char *key)
{
	struct setting *s = find(key);
	return s ? s->value : NULL;
}

long setting_long(const char *key)
{
	const char *v = setting_get(key);
	return v ? strtol(v, NULL, 0) : 0;
}

bool setting_bool(const char *key)
{
	const char *v = setting_get(key);
	return v && strcmp(v, "on") == 0;
}

bool settings_show(const char *key)
{
	bool found = false;
	for (size_t i = 0; i < NSETTINGS; i++) {
		if (key && strcmp(key, table[i].key) != 0)
			continue;
		printf("  %-14s %-16s %s\n", table[i].key, table[i].value, table[i].help);
		found = true;
	}
	return found;
}
