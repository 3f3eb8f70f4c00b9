/* The breadcrumb's text: what an unattended plan leaves before each test
 * in a note that outlives a reset (core/monitor/survive.c keeps it; boot/ stores
 * it as the UEFI variable IommonBreadcrumb). Kept apart so that the parser
 * of this untrusted input is fuzzed on its own. */
#ifndef IOMMON_CRUMB_H
#define IOMMON_CRUMB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runner.h"

#define WATCHDOG_MAX_S 86400 /* the longest budget `set watchdog` takes */

/* The breadcrumb, as the note (UEFI variable IommonBreadcrumb) holds it:
 * "iommon-breadcrumb 1" then key=value lines. */
enum crumb_phase {
	CRUMB_TEST,   /* `test` was running */
	CRUMB_RAN,    /* run command `run` had ended */
	CRUMB_RESUME, /* a resume had begun: no test had started since */
	CRUMB_EARLY,  /* the plan crashed the monitor before its first test */
};

struct crumb {
	char source[48]; /* the plan: "iommon.cfg", "iommon-<product>.cfg" or "options" */
	uint64_t plan;	 /* FNV-1a 64 of the plan's text */
	unsigned run;	 /* the plan's run command, 1 = the first (0: none yet) */
	enum crumb_phase phase;
	char test[48];	       /* CRUMB_TEST: the test */
	char results[96];      /* the results file, "" when none was written */
	bool results_lost;     /* saving had failed: records are missing (verdict 2) */
	struct tally this_run; /* what run `run` had counted before the test */
	struct tally session;  /* what the whole plan had counted before it */
	unsigned budget;       /* watchdog seconds the test had, 0: none */
	unsigned resumes;      /* resumes of this plan so far */
	char crash[200];       /* what the crash path saw, "" for a plain reset */
};

#define CRUMB_MAX 1024

/* Text for the note; -1 when it does not fit in cap. */
int crumb_format(const struct crumb *c, char *buf, size_t cap);
/* NULL, or what is wrong with the text (the first bad line). */
const char *crumb_parse(const char *text, struct crumb *c);
uint64_t plan_hash(const char *name, const char *text);
/* The same, a piece at a time: a file is hashed without holding it whole. */
uint64_t plan_hash_start(const char *name);
uint64_t plan_hash_update(uint64_t h, const void *buf, size_t n);
const char *crumb_phase_name(enum crumb_phase p);

#endif
