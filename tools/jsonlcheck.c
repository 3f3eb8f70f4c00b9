/* jsonlcheck FILE...: the results file's contract, checked from the host.
 * Every line is one complete JSON object (RFC 8259) with a string "kind",
 * ends with a newline (a record cut short by a full volume has none), and
 * is valid UTF-8. Prints "FAIL file:line: why" for the first bad line of
 * each file, or one summary line; exits 0 only when every file passed. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

struct in {
	const unsigned char *p, *end;
	const char *why;
	bool has_kind; /* the top-level object has "kind" holding a string */
};

static bool fail(struct in *s, const char *why)
{
	if (!s->why)
		s->why = why;
	return false;
}

static void skip_ws(struct in *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
		s->p++;
}

/* One UTF-8 sequence (RFC 3629): no overlong forms, no surrogates, at
 * most U+10FFFF. */
static bool utf8(struct in *s)
{
	unsigned c = *s->p, n, min;
	unsigned long cp;
	if (c < 0x80) {
		s->p++;
		return true;
	}
	if ((c & 0xe0) == 0xc0)
		n = 1, cp = c & 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		n = 2, cp = c & 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		n = 3, cp = c & 0x07, min = 0x10000;
	else
		return fail(s, "invalid UTF-8 (a byte that starts no sequence)");
	if ((size_t)(s->end - s->p) <= n)
		return fail(s, "invalid UTF-8 (a sequence cut short)");
	for (unsigned i = 1; i <= n; i++) {
		if ((s->p[i] & 0xc0) != 0x80)
			return fail(s, "invalid UTF-8 (a sequence cut short)");
		cp = cp << 6 | (s->p[i] & 0x3f);
	}
	if (cp < min)
		return fail(s, "invalid UTF-8 (an overlong form)");
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return fail(s, "invalid UTF-8 (a surrogate or beyond U+10FFFF)");
	s->p += n + 1;
	return true;
}

static bool hex4(struct in *s)
{
	for (int i = 0; i < 4; i++, s->p++)
		if (s->p >= s->end || !strchr("0123456789abcdefABCDEF", *s->p) || !*s->p)
			return fail(s, "a \\u escape without four hex digits");
	return true;
}

/* A string; *text (when asked) gets up to cap-1 of its ASCII bytes. */
static bool string(struct in *s, char *text, size_t cap)
{
	size_t k = 0;
	if (s->p >= s->end || *s->p != '"')
		return fail(s, "expected a string");
	s->p++;
	for (;;) {
		if (s->p >= s->end)
			return fail(s, "a string that never ends");
		unsigned char c = *s->p;
		if (c == '"') {
			s->p++;
			break;
		}
		if (c < 0x20)
			return fail(s, "a control character inside a string");
		if (c == '\\') {
			s->p++;
			if (s->p >= s->end)
				return fail(s, "a string that never ends");
			if (*s->p == 'u') {
				s->p++;
				if (!hex4(s))
					return false;
				continue;
			}
			if (!strchr("\"\\/bfnrt", *s->p) || !*s->p)
				return fail(s, "an unknown escape in a string");
			c = *s->p;
			s->p++;
		} else if (!utf8(s)) {
			return false;
		} else if (c >= 0x80) {
			continue;
		}
		if (text && k + 1 < cap)
			text[k++] = (char)c;
	}
	if (text)
		text[k] = '\0';
	return true;
}

static bool digits(struct in *s)
{
	const unsigned char *start = s->p;
	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > start;
}

static bool number(struct in *s)
{
	if (*s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (!digits(s))
		return fail(s, "a malformed number");
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (!digits(s))
			return fail(s, "a malformed number");
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (!digits(s))
			return fail(s, "a malformed number");
	}
	return true;
}

static bool literal(struct in *s, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
		return fail(s, "an unexpected character where a value should be");
	s->p += n;
	return true;
}

static bool value(struct in *s, int depth);

/* The character c next: taken, and true. */
static bool eat(struct in *s, char c)
{
	if (s->p >= s->end || *s->p != c)
		return false;
	s->p++;
	return true;
}

static bool object(struct in *s, int depth)
{
	s->p++; /* '{' */
	skip_ws(s);
	if (eat(s, '}'))
		return true;
	for (;;) {
		char key[16];
		skip_ws(s);
		if (!string(s, key, sizeof(key)))
			return false;
		skip_ws(s);
		if (!eat(s, ':'))
			return fail(s, "a key without ':'");
		skip_ws(s);
		if (depth == 1 && strcmp(key, "kind") == 0 && s->p < s->end && *s->p == '"')
			s->has_kind = true;
		if (!value(s, depth))
			return false;
		skip_ws(s);
		if (eat(s, ','))
			continue;
		if (eat(s, '}'))
			return true;
		return fail(s, s->p >= s->end ? "an object that never closes (a record cut short?)"
					      : "expected ',' or '}' in an object");
	}
}

static bool array(struct in *s, int depth)
{
	s->p++; /* '[' */
	skip_ws(s);
	if (eat(s, ']'))
		return true;
	for (;;) {
		skip_ws(s);
		if (!value(s, depth))
			return false;
		skip_ws(s);
		if (eat(s, ','))
			continue;
		if (eat(s, ']'))
			return true;
		return fail(s, "expected ',' or ']' in an array");
	}
}

static bool value(struct in *s, int depth)
{
	if (depth >= MAX_DEPTH)
		return fail(s, "nested too deep");
	if (s->p >= s->end)
		return fail(s, "a value is missing (a record cut short?)");
	switch (*s->p) {
	case '{':
		return object(s, depth + 1);
	case '[':
		return array(s, depth + 1);
	case '"':
		return string(s, NULL, 0);
	case 't':
		return literal(s, "true");
	case 'f':
		return literal(s, "false");
	case 'n':
		return literal(s, "null");
	default:
		if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
			return number(s);
		return fail(s, "an unexpected character where a value should be");
	}
}

/* NULL when the line (without its newline) is one record, else why not. */
static const char *check_line(const unsigned char *line, size_t len)
{
	struct in s = { line, line + len, NULL, false };
	if (len == 0)
		return "an empty line";
	if (*line != '{')
		return "the line does not start with '{'";
	if (!value(&s, 0))
		return s.why;
	skip_ws(&s);
	if (s.p != s.end)
		return "something after the object on the same line";
	if (!s.has_kind)
		return "no \"kind\" string";
	return NULL;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap) {
			unsigned char *b = realloc(buf, cap *= 2);
			if (!b)
				free(buf);
			buf = b;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: jsonlcheck FILE...\n");
		return 2;
	}
	unsigned bad = 0;
	size_t records = 0;
	for (int i = 1; i < argc; i++) {
		size_t len;
		unsigned char *buf = slurp(argv[i], &len);
		if (!buf) {
			printf("FAIL %s: cannot read it\n", argv[i]);
			bad++;
			continue;
		}
		size_t lineno = 0;
		for (size_t at = 0; at < len;) {
			lineno++;
			unsigned char *nl = memchr(buf + at, '\n', len - at);
			size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
			const char *why = memchr(buf + at, '\0', n) ? "a NUL byte" : check_line(buf + at, n);
			if (!why && !nl)
				why = "the last line has no newline (a record cut short?)";
			if (why) {
				printf("FAIL %s:%zu: %s\n", argv[i], lineno, why);
				bad++;
				break;
			}
			records++;
			at += n + 1;
		}
		free(buf);
	}
	if (bad)
		return 1;
	printf("jsonlcheck: %d file%s, %zu records, each line one whole JSON object in valid UTF-8\n", argc - 1,
	       argc == 2 ? "" : "s", records);
	return 0;
}
