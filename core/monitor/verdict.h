/* What a plan tested, and what it requires: whether its passes mean
 * anything. A test that worked on an IOMMU unit (test_uses_unit: it took
 * the unit over) or used a device as its DMA engine (test_uses_device) and
 * passed or failed has tested that unit, that device. A run whose tests
 * all skipped or did not apply, a plan that tested no unit (unless it says
 * `require nothing`), or one that left a `require` unmet is inconclusive,
 * never a pass: the closing lines, the summary record, the exit status of
 * `exit qemu` and the lab's lines say so, with the reason. */
#ifndef IOMMON_VERDICT_H
#define IOMMON_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "runner.h"

/* The plan's verdict, as `exit qemu` gives it (QEMU exits with 2v+1). */
enum plan_verdict { PLAN_PASS, PLAN_FAIL, PLAN_NOT_RUN, PLAN_INCONCLUSIVE };
/* "pass", "fail", "plan could not run", "inconclusive" */
const char *plan_verdict_words(enum plan_verdict v);
/* "pass", "fail", "error", "inconclusive": the records' and lab lines' word */
const char *plan_verdict_name(enum plan_verdict v);

/* The runner, around each test that starts: what it uses from here on is
 * its own; when it ends with `v`, it counts as tested when `v` is a pass,
 * a failure or a known failure. */
void tested_begin(void);
void tested_end(enum verdict v);

/* What the machine offered (iommu/machine.c, at discovery): `found`
 * units, `refused` of them refused at discovery, described by `tables`
 * ("DMAR" or "no DMAR, IVRS, IORT or RIMT"). */
void verdict_machine_units(size_t found, size_t refused, const char *tables);

/* The `require` command: "iommu" (a unit of the machine's, not a model,
 * was tested), "unit KIND|NAME" (one of that backend, vtd, amdvi, ..., or
 * that name, dmar0, model or not), "device BDF" (a test made that function
 * DMA), "nothing" (the plan tests no unit on purpose: the verdict is its
 * tests'), "clear" (none of them). False with `err` said when `argv` is
 * none of those. Requirements hold until cleared or a plan file or the
 * load options start (each says its own). */
bool require_add(int argc, char **argv, char *err, size_t cap);
void require_clear(void);
/* The requirements as one line ("iommu; unit vtd"), or "" for none: how
 * `require` and `describe verdict` say them. */
void require_text(char *out, size_t cap);

/* A plan begins (lab_plan_begin): its verdict counts what is tested from
 * here on, over the session's tally less `session` and its plan errors
 * less `plan_errors`. */
void verdict_plan_begin(struct tally session, unsigned plan_errors);
/* The open plan's verdict so far, as session_verdict (below) judges a
 * session; the lab's verdict line at the plan's end. */
enum plan_verdict plan_verdict_now(struct tally session, unsigned plan_errors, bool results_failed, char *why,
				   size_t cap);

/* Is a run with tally `t` inconclusive, judged against what its plan has
 * tested so far and what is required? NULL when it is not; else `why`,
 * filled: "nothing ran: ...", "no IOMMU unit was tested: ...", "require
 * unit vtd: ...". */
const char *verdict_inconclusive(struct tally t, char *why, size_t cap);

/* The session's verdict as `exit` gives it, over everything since boot:
 * PLAN_NOT_RUN with plan errors, results not saved whole or no test
 * selected at all; PLAN_FAIL when a test failed; PLAN_INCONCLUSIVE (`why`
 * filled) as verdict_inconclusive says; else PLAN_PASS. */
enum plan_verdict session_verdict(struct tally session, unsigned plan_errors, bool results_failed, char *why,
				  size_t cap);

/* A test's device, by its PCI address (runner.c, for test_uses_device). */
void tested_device(const char *bdf);

/* The open plan ends (lab_plan_end): its verdict, as plan_verdict_now
 * gives it, in a `verdict` record: {"kind":"verdict","plan":NAME,
 * "verdict":"pass|fail|error|inconclusive","why":...,"passed":N,
 * "failed":N,"skipped":N,"known":N,"not_applicable":N,"units":"dmar0
 * (vtd), ...","devices":N}, what the plan tested. A report's verdict is
 * the last one's (with any failed test a failure). */
enum plan_verdict verdict_plan_end(const char *plan, struct tally session, unsigned plan_errors, bool results_failed);

#endif
