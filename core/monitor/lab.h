/* The lines a lab's console parser matches (README: "Running iommon in a
 * lab"): a begin and an end banner around each plan, and one line per
 * result and per measure that one regular expression reads. Printed
 * whatever `set records` says: a lab that turns the JSON off keeps them. */
#ifndef IOMMON_LAB_H
#define IOMMON_LAB_H

#include <stdbool.h>
#include <stdint.h>

/* `<iommon-plan-begin plan=NAME>`, unless a plan is open already (a `run`
 * inside a script belongs to the script's plan). True when this call
 * opened the plan: its caller then ends it. */
bool lab_plan_begin(const char *plan);
/* The plan's own verdict, its `verdict` record (verdict.h) and
 * `<iommon-result test_case_id=verdict result=V>` (pass, fail, error: the
 * plan could not run, or inconclusive), then `<iommon-plan-end
 * plan=NAME>`, for the open plan; nothing when none is. */
void lab_plan_end(void);
/* `<iommon-result test_case_id=TEST result=VERDICT>` */
void lab_result(const char *test, const char *verdict);
/* `<iommon-result test_case_id=TEST/PATH/BACKEND/VARIANT result=RESULT
 * measurement=P50 units=UNIT>`: the median, in ns when counted in cycles
 * (as the record's p50_ns), else in its own unit; RESULT is pass, or fail
 * for a series cut short (the record's `cut`). */
void lab_measure(const char *test, const char *path, const char *backend, const char *variant, const char *unit,
		 uint64_t p50, const char *result);

#endif
