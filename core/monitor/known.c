#include "known.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/platform.h"
#include "core/base/readall.h"
#include "runner.h"

static struct {
	struct entry {
		const struct test_case *tc;
		char reason[KNOWN_REASON_MAX + 1];
	} * e;
	size_t n;
} known;

void known_clear(void)
{
	free(known.e);
	known.e = NULL;
	known.n = 0;
}

size_t known_count(void)
{
	return known.n;
}

const char *known_reason(const char *test)
{
	for (size_t i = 0; i < known.n; i++)
		if (strcmp(known.e[i].tc->name, test) == 0)
			return known.e[i].reason;
	return NULL;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* One line, without its end: NULL when taken or empty, else why not. */
static const char *take_line(const char *p, size_t len, char *bad_name, size_t cap)
{
	while (len && blank(*p))
		p++, len--;
	while (len && blank(p[len - 1]))
		len--;
	if (len == 0 || *p == '#')
		return NULL;
	if (len > KNOWN_LINE_MAX)
		return "longer than 200 characters";
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)p[i] < 0x20 && p[i] != '\t')
			return "a control character";
		else if ((unsigned char)p[i] > 0x7e)
			return "a character outside printable ASCII";
	size_t nl = 0;
	while (nl < len && !blank(p[nl]))
		nl++;
	snprintf(bad_name, cap, "%.*s", (int)nl, p);
	const char *reason = p + nl;
	size_t rlen = len - nl;
	while (rlen && blank(*reason))
		reason++, rlen--;
	if (rlen == 0)
		return "no reason after the test's name";
	const struct test_case *tc = runner_find(bad_name);
	if (!tc)
		return "names no test (try 'list'; groups are not taken, only tests)";
	if (known_reason(bad_name))
		return "the test is listed already (the first line counts)";
	if (known.n == KNOWN_MAX)
		return "more entries than the 256 kept";
	if (known.n % 32 == 0) {
		struct entry *e = realloc(known.e, (known.n + 32) * sizeof(*e));
		if (!e)
			return "out of memory";
		known.e = e;
	}
	struct entry *e = &known.e[known.n++];
	e->tc = tc;
	snprintf(e->reason, sizeof(e->reason), "%.*s", (int)rlen, reason);
	return NULL;
}

size_t known_parse(const char *text, size_t len, const char *name)
{
	known_clear();
	unsigned lineno = 0;
	for (size_t at = 0; at < len;) {
		size_t end = at;
		while (end < len && text[end] != '\n')
			end++;
		size_t l = end - at;
		if (l && text[at + l - 1] == '\r')
			l--;
		lineno++;
		char test[KNOWN_LINE_MAX + 1] = "";
		const char *why = take_line(text + at, l, test, sizeof(test));
		if (why)
			printf("warning: %s:%u: %s%s%s: line ignored\n", name, lineno, test[0] ? test : "",
			       test[0] ? ": " : "", why);
		at = end + 1;
	}
	return known.n;
}

void known_load(void)
{
	known_clear();
	if (!platform->file_stream)
		return;
	struct read_all r = { 0 };
	bool absent = false;
	size_t len = 0;
	const char *why = platform->file_stream(KNOWN_FILE, read_all_piece, &r, &absent);
	char *text = read_all_finish(&r, why, &len);
	if (absent)
		return;
	if (!text) {
		printf("warning: %s could not be read (%s): no failure is taken as known\n", KNOWN_FILE,
		       why ? why : "out of memory");
		return;
	}
	size_t n = known_parse(text, len, KNOWN_FILE);
	free(text);
	printf("known failures: %zu test%s listed in %s\n", n, n == 1 ? "" : "s", KNOWN_FILE);
}
