#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "core/base/wrap.h"
#include "core/serial/uart.h"
#include "core/tables/acpi.h"
#include "monitor.h"
#include "results.h"

struct setting {
	const char *key;
	const char *def;
	const char *help;
	const char *(*check)(const char *v);
	const char *(*apply)(const char *v);
	char value[48];
};

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
	return parse_range(v, 0, 3600, "a number of seconds", &n);
}

const char *setting_check_on_off(const char *v)
{
	static const char *const a[] = { "on", "off", NULL };
	return one_of(v, a);
}

/* `on` and `off` are the older spellings of console and file. */
static const char *check_records(const char *v)
{
	static const char *const a[] = { "file", "console", "on", "off", NULL };
	return one_of(v, a);
}

static const char *apply_records(const char *v)
{
	if (strcmp(v, "console") == 0 || strcmp(v, "on") == 0)
		results_records_console();
	return NULL;
}

static const char *apply_wide(const char *v)
{
	console_cols = strcmp(v, "on") == 0 ? 132 : 80;
	return NULL;
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

/* "spcr", or a UART's place (uart_place_from_setting: io:, mmio:, mmio32:,
 * pl011:). Only the form is checked here: a port within the I/O space, an
 * address that can be physical (non-zero, below 2^52, the architectural
 * limit of MAXPHYADDR, so canonical too) and aligned to its register width;
 * whether RAM is there is for the console's window. */
static const char *check_uart(const char *v)
{
	return strcmp(v, "spcr") == 0 ? NULL : uart_place_from_setting(v, UART_PORT_IO, NULL);
}

static const char *apply_uart(const char *v)
{
	return console_set_uart(v);
}

static const char *check_timer_source(const char *v)
{
	static const char *const a[] = { "auto", "cntfrq", "timebase", "pmtimer", "hpet", "stall", NULL };
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
	return parse_range(v, 10, 1000000, "a count", &n);
}

#define MAX_SETTINGS 32

static struct setting table[MAX_SETTINGS] = {
	{ "countdown", "10", "seconds before an unattended config runs (any key: menu)", check_countdown, NULL },
	{ "console", "auto", "where output goes: auto, efi, uart, both", check_console, apply_console },
	{ "uart", "spcr", "direct UART: spcr, io:PORT, mmio:ADDR, mmio32:ADDR (,BAUD), pl011:ADDR(,BAUD,UARTCLK)",
	  check_uart, apply_uart },
	{ "records", "file", "JSON records: file (the results file only), console (also on the console)", check_records,
	  apply_records },
	{ "wide", "off", "the menu's tables 132 columns wide (on) or 80 (off)", setting_check_on_off, apply_wide },
	{ "timer.source", "auto", "calibration reference: auto, cntfrq, timebase, pmtimer, hpet, stall",
	  check_timer_source, apply_timer_source },
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
	/* the core's own keys: counted once, before setting_add writes after
	 * them, so that a second init forgets the keys added since */
	static size_t core = (size_t)-1;
	if (core == (size_t)-1)
		for (core = 0; core < MAX_SETTINGS && table[core].key; core++)
			;
	nsettings = core;
	for (size_t i = 0; i < NSETTINGS; i++)
		snprintf(table[i].value, sizeof(table[i].value), "%s", table[i].def);
	console_cols = 80; /* `wide` as its default says */
}

const char *setting_set(const char *key, const char *value)
{
	static char msg[240];
	const char *why = setting_check(key, value);
	if (why)
		return why;
	struct setting *s = find(key);
	why = s->apply ? s->apply(value) : NULL;
	if (why) {
		snprintf(msg, sizeof(msg), "%s '%s': %s", key, value, why);
		return msg;
	}
	snprintf(s->value, sizeof(s->value), "%s", value);
	return NULL;
}

const char *setting_check(const char *key, const char *value)
{
	static char msg[240];
	struct setting *s = find(key);
	if (!s) {
		snprintf(msg, sizeof(msg), "unknown setting '%s' (try 'show')", key);
		return msg;
	}
	if (strlen(value) >= sizeof(s->value)) {
		snprintf(msg, sizeof(msg), "value for %s is too long (%zu characters at most)", key,
			 sizeof(s->value) - 1);
		return msg;
	}
	const char *why = s->check ? s->check(value) : NULL;
	if (why) {
		snprintf(msg, sizeof(msg), "%s '%s': %s", key, value, why);
		return msg;
	}
	return NULL;
}

const char *setting_key(size_t i)
{
	return i < NSETTINGS ? table[i].key : NULL;
}

const char *setting_get(const char *key)
{
	struct setting *s = find(key);
	return s ? s->value : NULL;
}

long setting_long(const char *key)
{
	unsigned long long n = 0;
	const char *v = setting_get(key);
	return v && parse_u64(v, &n) ? (long)n : 0; /* the check let only numbers in */
}

bool setting_bool(const char *key)
{
	const char *v = setting_get(key);
	return v && strcmp(v, "on") == 0;
}

bool settings_show(const char *key)
{
	/* the columns as wide as their widest entry, the value's at most 16:
	 * a longer value has the row to itself, its help under it */
	int wk = 0, wv = 0;
	for (size_t i = 0; i < NSETTINGS; i++) {
		int k = table_cols(table[i].key), v = table_cols(table[i].value);
		wk = k > wk ? k : wk;
		wv = v > wv && v <= 16 ? v : wv;
	}
	bool found = false;
	for (size_t i = 0; i < NSETTINGS; i++) {
		if (key && strcmp(key, table[i].key) != 0)
			continue;
		const struct setting *s = &table[i];
		if (table_cols(s->value) > wv)
			printf("  %-*s %s\n%*s", wk, s->key, s->value, wk + wv + 4, "");
		else
			printf("  %-*s %-*s ", wk, s->key, wv, s->value);
		table_wrap((unsigned)(wk + wv + 4), s->help);
		found = true;
	}
	return found;
}
