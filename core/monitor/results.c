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
} res;

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
		ok = platform->file_append(res.file, tmp, len + 1, &why);
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
		return;
	}
	res.saved++;
}

static void store(const char *line)
{
	if (res.n == res.cap) {
		size_t cap = res.cap ? res.cap * 2 : 64;
		char **l = realloc(res.lines, cap * sizeof(*l));
		if (!l)
			return; /* out of memory: the record is still printed and saved */
		res.lines = l;
		res.cap = cap;
	}
	res.lines[res.n] = strdup(line);
	if (res.lines[res.n])
		res.n++;
}

void record_emit(struct json *j)
{
	const char *line = json_end(j);
	if (!line) {
		printf("error: a record of %zu bytes did not fit in %zu; it was dropped\n", j->len, j->cap);
		return;
	}
	store(line);
	if (setting_bool("records")) {
		fflush(stdout);
		output_record_line = true;
		printf("%s\n", line);
		fflush(stdout);
		output_record_line = false;
	}
	append_file(line);
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
	for (size_t i = 0; i < res.n && res.file; i++)
		append_file(res.lines[i]);
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
	for (size_t i = 0; i < res.n && res.file; i++)
		append_file(res.lines[i]);
	return res.file ? NULL : "writing the results file failed";
}

void results_close(void)
{
	if (res.file)
		platform->file_close(res.file);
	res.file = NULL;
	res.path[0] = '\0';
}
