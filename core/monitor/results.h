/* The session's records: kept in memory, appended (flushed per record) to
 * a results file on the boot volume once saving has started, and printed
 * on the console as one JSON object per line where `set records console`
 * asks for it or the file cannot have them (results_to_console). */
#ifndef IOMMON_RESULTS_H
#define IOMMON_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/json.h"

#define RECORD_MAX 2048 /* a result's whole detail and finding (DETAIL_MAX) */
/* A measure record, which carries its samples' histogram: at most
 * 2 * STATS_BINS entries, each count's digits and a comma. */
#define MEASURE_RECORD_MAX 16384

/* Starts a record of `kind` with the fields every record carries. */
void record_begin(struct json *j, char *buf, size_t cap, const char *kind);
/* Ends it and emits it; a record that did not fit is reported instead. */
void record_emit(struct json *j);

size_t results_count(void);
/* What keeping something through the firmware has cost so far: the
 * writes, each flushed to its medium, and the cycles spent in them. */
struct keep_cost {
	unsigned long writes;
	uint64_t cycles;
};
/* The results file's appends (a record each). */
struct keep_cost results_cost(void);
/* Results files go to iommon/results/<name>/ (a file name already: the
 * machine's serial number or product, core/tables/smbios.h), "" for the folder
 * itself. */
void results_folder(const char *name);
/* Start saving: create a new iommon/results/<run>.jsonl, write every record
 * so far, then keep appending. Returns NULL or what went wrong. */
const char *results_save(void);
/* Go on saving into an existing results file (a plan resumed after a
 * reset): this boot's records so far are appended, then every later one.
 * Returns NULL or what went wrong. */
const char *results_reopen(const char *path);
const char *results_path(void); /* "" when not saving */
/* NULL, or why the results file could not be created or a record could
 * not be written whole (the file then ends at the last whole record and
 * saving stops): the run's verdict is "plan could not run". */
const char *results_failure(void);
/* Why results go to the console only on this medium (platform
 * volume_readonly: a CD-ROM, a network boot), or NULL. Not a failure. */
const char *results_console_only(void);
/* A boot before a reset could not save its records whole (its breadcrumb
 * says so): this one counts as failed saving too, never as a clean file. */
void results_lost_before(void);
void results_close(void);
/* Are records printed on the console: `records console` (or its old
 * spelling `on`), or since results_to_console? */
bool records_on_console(void);
/* From now on every record goes to the console too, the kept ones first
 * when they were not shown: the medium keeps no results file (a CD, a
 * network boot), or the file could not be created. */
void results_to_console(void);
/* `set records console`: the kept records the console has not had are
 * printed now, so that its copy starts whole (the boot's own records come
 * before any plan could ask). */
void results_records_console(void);

#endif
