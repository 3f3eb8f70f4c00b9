/* The breadcrumb's text: written by the monitor, read back after a reset
 * from a firmware variable anyone could have set, so parsed strictly. */
#include "crumb.h"
#include "core/base/macros.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CRUMB_HEADER "iommon-breadcrumb 1\n"
#define TALLY_MAX 1000000u
#define RUN_MAX 100000u

static const char *const phase_names[] = { "test", "ran", "resume", "early" };

const char *crumb_phase_name(enum crumb_phase p)
{
	return p <= CRUMB_EARLY ? phase_names[p] : "?";
}

/* FNV-1a 64 over the plan's source name, a NUL, then its bytes. */
uint64_t plan_hash_start(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	h = plan_hash_update(h, name, strlen(name));
	return (h ^ 0) * 0x100000001b3ull;
}

uint64_t plan_hash_update(uint64_t h, const void *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const unsigned char *)buf)[i]) * 0x100000001b3ull;
	return h;
}

uint64_t plan_hash(const char *name, const char *text)
{
	return plan_hash_update(plan_hash_start(name), text, strlen(text));
}

static int put_tally(char *buf, size_t cap, const char *key, struct tally t)
{
	return snprintf(buf, cap, "%s=%u,%u,%u,%u,%u,%u,%u\n", key, t.passed, t.failed, t.skipped, t.crashed, t.known,
			t.known_fixed, t.na);
}

int crumb_format(const struct crumb *c, char *buf, size_t cap)
{
	size_t n = 0;
	int k;
#define PUT(...)                                             \
	do {                                                 \
		k = snprintf(buf + n, cap - n, __VA_ARGS__); \
		if (k < 0 || (size_t)k >= cap - n)           \
			return -1;                           \
		n += (size_t)k;                              \
	} while (0)
	PUT("%s", CRUMB_HEADER);
	PUT("source=%s\nplan=%016llx\nrun=%u\nphase=%s\n", c->source, (unsigned long long)c->plan, c->run,
	    phase_names[c->phase]);
	if (c->phase == CRUMB_TEST)
		PUT("test=%s\n", c->test);
	PUT("results=%s\n", c->results);
	if (c->results_lost)
		PUT("results_lost=1\n");
	k = put_tally(buf + n, cap - n, "tally", c->this_run);
	if (k < 0 || (size_t)k >= cap - n)
		return -1;
	n += (size_t)k;
	k = put_tally(buf + n, cap - n, "session", c->session);
	if (k < 0 || (size_t)k >= cap - n)
		return -1;
	n += (size_t)k;
	PUT("budget=%u\nresumes=%u\n", c->budget, c->resumes);
	if (c->crash[0])
		PUT("crash=%s\n", c->crash);
#undef PUT
	return (int)n;
}

/* Decimal digits only, no sign, space or leading zero. */
static bool number(const char *v, unsigned max, unsigned *out)
{
	unsigned long long n = 0;
	if (!*v || (v[0] == '0' && v[1]) || strlen(v) > 10)
		return false;
	for (const char *s = v; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		n = n * 10 + (unsigned)(*s - '0');
	}
	if (n > max)
		return false;
	*out = (unsigned)n;
	return true;
}

/* passed,failed,skipped,crashed[,known,known_passed[,not_applicable]]:
 * known and known_passed were added with iommon-known.txt, the last with
 * the not-applicable verdict; a breadcrumb from before has four or six. */
static bool tally_value(const char *v, struct tally *t)
{
	char part[7][12];
	unsigned *out[7] = { &t->passed, &t->failed, &t->skipped, &t->crashed, &t->known, &t->known_fixed, &t->na };
	size_t parts = 0; /* commas */
	for (const char *c = v; *c; c++)
		parts += *c == ',';
	if (parts != 3 && parts != 5 && parts != 6)
		return false;
	for (size_t i = 0; i <= parts; i++) {
		size_t len = strcspn(v, ",");
		if (len == 0 || len >= sizeof(part[i]) || (i < parts) != (v[len] == ','))
			return false;
		memcpy(part[i], v, len);
		part[i][len] = '\0';
		if (!number(part[i], TALLY_MAX, out[i]))
			return false;
		v += len + (i < parts);
	}
	return t->crashed <= t->failed && t->known_fixed <= t->passed;
}

static bool chars_in(const char *v, const char *allowed)
{
	return v[strspn(v, allowed)] == '\0';
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
#define RESULTS_DIR "iommon/results/"

/* A results file the monitor could have made: never a path elsewhere.
 * It may sit in one folder named for the machine (core/tables/smbios.h). */
static bool results_value(const char *v)
{
	size_t len = strlen(v), dir = strlen(RESULTS_DIR);
	if (len == 0)
		return true;
	if (len <= dir + 6 || len >= 96 || strncmp(v, RESULTS_DIR, dir) != 0 || strcmp(v + len - 6, ".jsonl") != 0)
		return false;
	const char *name = v + dir, *slash = strchr(name, '/');
	if (slash) {
		if (slash == name || *name == '.' || strchr(slash + 1, '/'))
			return false;
		char folder[48];
		if ((size_t)(slash - name) >= sizeof(folder))
			return false;
		memcpy(folder, name, (size_t)(slash - name));
		folder[slash - name] = '\0';
		if (!chars_in(folder, NAME_CHARS))
			return false;
		name = slash + 1;
	}
	return chars_in(name, NAME_CHARS) && *name != '.';
}

enum crumb_key {
	K_SOURCE,
	K_PLAN,
	K_RUN,
	K_PHASE,
	K_TEST,
	K_RESULTS,
	K_TALLY,
	K_SESSION,
	K_BUDGET,
	K_RESUMES,
	K_CRASH,
	K_RESULTS_LOST
};
static const char *const key_names[] = { "source", "plan",    "run",	"phase",   "test",  "results",
					 "tally",  "session", "budget", "resumes", "crash", "results_lost" };
#define NKEYS (ARRAY_SIZE(key_names))

static bool key_value(enum crumb_key k, const char *v, struct crumb *c)
{
	switch (k) {
	case K_SOURCE:
		return *v && strlen(v) < sizeof(c->source) && chars_in(v, NAME_CHARS) &&
		       snprintf(c->source, sizeof(c->source), "%s", v) > 0;
	case K_PLAN: {
		if (strlen(v) != 16 || !chars_in(v, "0123456789abcdef"))
			return false;
		c->plan = strtoull(v, NULL, 16);
		return true;
	}
	case K_RUN: /* 0: the plan had not reached a run command (phase early) */
		return number(v, RUN_MAX, &c->run);
	case K_PHASE:
		for (unsigned i = 0; i < ARRAY_SIZE(phase_names); i++)
			if (strcmp(v, phase_names[i]) == 0) {
				c->phase = (enum crumb_phase)i;
				return true;
			}
		return false;
	case K_TEST:
		return *v && strlen(v) < sizeof(c->test) && chars_in(v, "abcdefghijklmnopqrstuvwxyz0123456789_.") &&
		       strchr(v, '.') && snprintf(c->test, sizeof(c->test), "%s", v) > 0;
	case K_RESULTS:
		return results_value(v) && snprintf(c->results, sizeof(c->results), "%s", v) >= 0;
	case K_TALLY:
		return tally_value(v, &c->this_run);
	case K_SESSION:
		return tally_value(v, &c->session);
	case K_BUDGET:
		return number(v, WATCHDOG_MAX_S, &c->budget);
	case K_RESUMES:
		return number(v, RUN_MAX, &c->resumes);
	case K_CRASH:
		return strlen(v) < sizeof(c->crash) && snprintf(c->crash, sizeof(c->crash), "%s", v) >= 0;
	case K_RESULTS_LOST: /* written only when true */
		return strcmp(v, "1") == 0 && (c->results_lost = true);
	}
	return false;
}

const char *crumb_parse(const char *text, struct crumb *c)
{
	static char why[120];
	memset(c, 0, sizeof(*c));
	if (strncmp(text, CRUMB_HEADER, strlen(CRUMB_HEADER)) != 0)
		return "it does not begin with the line 'iommon-breadcrumb 1'";
	unsigned seen = 0, lineno = 1;
	for (const char *p = text + strlen(CRUMB_HEADER); *p;) {
		lineno++;
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[256];
		if (!nl) {
			snprintf(why, sizeof(why), "line %u has no end (cut short?)", lineno);
			return why;
		}
		if (len >= sizeof(line)) {
			snprintf(why, sizeof(why), "line %u is longer than %zu characters", lineno, sizeof(line) - 1);
			return why;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl + 1;
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e) {
				snprintf(why, sizeof(why), "line %u holds a byte that is not printable ASCII", lineno);
				return why;
			}
		char *eq = strchr(line, '=');
		if (!eq) {
			snprintf(why, sizeof(why), "line %u is not key=value", lineno);
			return why;
		}
		*eq = '\0';
		unsigned k = 0;
		while (k < NKEYS && strcmp(line, key_names[k]) != 0)
			k++;
		if (k == NKEYS) {
			snprintf(why, sizeof(why), "line %u: unknown key '%.40s'", lineno, line);
			return why;
		}
		if (seen & (1u << k)) {
			snprintf(why, sizeof(why), "line %u: '%s' a second time", lineno, key_names[k]);
			return why;
		}
		if (!key_value((enum crumb_key)k, eq + 1, c)) {
			snprintf(why, sizeof(why), "line %u: '%s' has a bad value '%.40s'", lineno, key_names[k],
				 eq + 1);
			return why;
		}
		seen |= 1u << k;
	}
	unsigned need = (1u << NKEYS) - 1;
	need &= ~(1u << K_TEST | 1u << K_CRASH | 1u << K_RESULTS_LOST);
	if (c->phase == CRUMB_TEST)
		need |= 1u << K_TEST;
	for (unsigned k = 0; k < NKEYS; k++)
		if ((need & (1u << k)) && !(seen & (1u << k))) {
			snprintf(why, sizeof(why), "'%s' is missing", key_names[k]);
			return why;
		}
	if (c->phase != CRUMB_TEST && (seen & (1u << K_TEST)))
		return "'test' given for a phase other than test";
	if (c->run == 0 && c->phase != CRUMB_EARLY)
		return "'run' is 0 but the plan had begun its runs";
	const struct tally *r = &c->this_run, *p = &c->session;
	if (r->passed > p->passed || r->failed > p->failed || r->skipped > p->skipped || r->crashed > p->crashed ||
	    r->known > p->known || r->known_fixed > p->known_fixed || r->na > p->na)
		return "the run's counts ('tally') exceed the plan's ('session')";
	return NULL;
}
