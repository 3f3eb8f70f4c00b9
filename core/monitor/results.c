#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/contract.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "settings.h"

static struct {
	char **lines;
	size_t n, cap;
	struct platform_file *file;
	char path[128];
	char folder[33]; /* under iommon/results/: the machine's name, or "" */
	size_t saved;	 /* records in the file, each a whole line */
	/* why saving failed (the file could not be created, or a record could
	 * not be written whole), "" while it has not: the verdict becomes
	 * "plan could not run" */
	char failed[420];
	/* the records go to the console too: the file cannot have them (a CD
	 * or a network boot, a file that failed), whatever `records` says */
	bool console;
	size_t shown; /* the kept records (lines) the console has had, from the first */
	struct keep_cost cost;
} res;

struct keep_cost results_cost(void)
{
	return res.cost;
}

void record_begin(struct json *j, char *buf, size_t cap, const char *kind)
{
	json_begin(j, buf, cap);
	json_str(j, "kind", kind);
}

static void append_file(const char *line)
{
	if (!res.file)
		return;
	size_t len = strlen(line);
	char *tmp = malloc(len + 1);
	const char *why = "out of memory";
	bool ok = tmp != NULL;
	if (ok) {
		memcpy(tmp, line, len);
		tmp[len] = '\n';
		uint64_t t0 = cycles_begin();
		ok = platform->file_append(res.file, tmp, len + 1, &why);
		res.cost.cycles += cycles_end() - t0;
		res.cost.writes++;
		free(tmp);
	}
	if (!ok) {
		snprintf(res.failed, sizeof(res.failed), "writing %s failed: %s", res.path, why);
		printf("error: results file: %s; it holds the %zu records before this one, the rest go to the "
		       "console only; the verdict is 'plan could not run'\n",
		       res.failed, res.saved);
		platform->file_close(res.file);
		res.file = NULL;
		res.path[0] = '\0';
		res.console = true; /* from the one that failed on: record_emit, dump_from */
		return;
	}
	res.saved++;
}

bool records_on_console(void)
{
	const char *v = setting_get("records");
	return res.console || (v && (strcmp(v, "console") == 0 || strcmp(v, "on") == 0));
}

/* One record on the console, as the output contract has it: a line of
 * its own that the console's guard lets through (core/base/contract.h). */
static void print_record(const char *line)
{
	fflush(stdout);
	output_record_line = true;
	printf("%s\n", line);
	fflush(stdout);
	output_record_line = false;
}

/* Every kept record not yet on the console, in order. */
static void catch_up(void)
{
	for (; res.shown < res.n; res.shown++)
		print_record(res.lines[res.shown]);
}

/* The kept records into the file from the first; where the file fails on
 * one, that one and the rest go to the console (the file has those before
 * it). */
static void dump_from(void)
{
	for (size_t i = 0; i < res.n && res.file; i++) {
		append_file(res.lines[i]);
		if (!res.file) {
			res.shown = res.shown > i ? res.shown : i;
			catch_up();
		}
	}
}

/* Kept in memory for a later file (results_save) and the console's
 * catching up; false when memory ran out (the record is still printed and
 * saved). */
static bool store(const char *line)
{
	if (res.n == res.cap) {
		size_t cap = res.cap ? res.cap * 2 : 64;
		char **l = realloc(res.lines, cap * sizeof(*l));
		if (!l)
			return false;
		res.lines = l;
		res.cap = cap;
	}
	res.lines[res.n] = strdup(line);
	if (!res.lines[res.n])
		return false;
	res.n++;
	return true;
}

void record_emit(struct json *j)
{
	const char *line = json_end(j);
	if (!line) {
		printf("error: a record of %zu bytes did not fit in %zu; it was dropped\n", j->len, j->cap);
		return;
	}
	bool kept = store(line), shown = records_on_console();
	if (shown && kept)
		catch_up();
	else if (shown)
		print_record(line);
	append_file(line);
	if (!shown && records_on_console()) { /* the file failed on this one */
		if (kept && res.shown < res.n - 1)
			res.shown = res.n - 1;
		if (kept)
			catch_up();
		else
			print_record(line);
	}
}

void results_to_console(void)
{
	res.console = true;
	catch_up(); /* the console's copy starts whole */
}

void results_records_console(void)
{
	catch_up();
}

size_t results_count(void)
{
	return res.n;
}

const char *results_path(void)
{
	return res.path;
}

void results_folder(const char *name)
{
	snprintf(res.folder, sizeof(res.folder), "%s", name);
}

const char *results_save(void)
{
	static char why[400];
	if (res.file)
		return NULL;
	if (res.failed[0]) /* once failed, never a second file with the same records */
		return res.failed;
	struct wallclock wc;
	char stem[32];
	if (platform->wallclock(&wc))
		snprintf(stem, sizeof(stem), "%04u%02u%02u-%02u%02u%02u", wc.year, wc.month, wc.day, wc.hour, wc.minute,
			 wc.second);
	else
		snprintf(stem, sizeof(stem), "run");
	/* Never overwrite: a clock that repeats (or none) gets a suffix. */
	const char *err = "no name was free";
	for (unsigned i = 0; i < 1000 && !res.file; i++) {
		if (i == 0)
			snprintf(res.path, sizeof(res.path), "iommon/results/%s%s%s.jsonl", res.folder,
				 res.folder[0] ? "/" : "", stem);
		else
			snprintf(res.path, sizeof(res.path), "iommon/results/%s%s%s-%u.jsonl", res.folder,
				 res.folder[0] ? "/" : "", stem, i);
		res.file = platform->file_create(res.path, &err);
		if (!res.file && strcmp(err, "exists") != 0)
			break;
	}
	if (!res.file) {
		res.path[0] = '\0';
		snprintf(why, sizeof(why), "cannot create a results file on %s: %s", platform->volume_describe(), err);
		snprintf(res.failed, sizeof(res.failed), "%s", why);
		return why;
	}
	res.saved = 0;
	dump_from();
	return res.file ? NULL : res.failed;
}

const char *results_console_only(void)
{
	return platform->volume_readonly ? platform->volume_readonly() : NULL;
}

const char *results_failure(void)
{
	return res.failed[0] ? res.failed : NULL;
}

void results_lost_before(void)
{
	if (!res.failed[0])
		snprintf(res.failed, sizeof(res.failed),
			 "the boot before the reset could not save its records whole (its breadcrumb says so)");
}

const char *results_reopen(const char *path)
{
	static char why[200];
	if (res.file)
		return "a results file is open already";
	const char *err = "this platform cannot reopen a file";
	res.file = platform->file_reopen ? platform->file_reopen(path, &err) : NULL;
	if (!res.file) {
		snprintf(why, sizeof(why), "cannot reopen it on %s: %s", platform->volume_describe(), err);
		return why;
	}
	snprintf(res.path, sizeof(res.path), "%s", path);
	dump_from();
	return res.file ? NULL : "writing the results file failed";
}

void results_close(void)
{
	if (res.file)
		platform->file_close(res.file);
	res.file = NULL;
	res.path[0] = '\0';
}
