#include "match.h"

#include <string.h>

bool match_is_pattern(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

/* A bracket expression at p (just after '['): does it hold c? *end is
 * set after its ']'; false with *end NULL when it has no ']'. */
static bool in_class(const char *p, char c, const char **end)
{
	bool neg = *p == '!' || *p == '^', hit = false;
	if (neg)
		p++;
	const char *start = p;
	for (; *p && (*p != ']' || p == start); p++) {
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hit |= c >= p[0] && c <= p[2];
			p += 2;
		} else {
			hit |= c == *p;
		}
	}
	*end = *p == ']' ? p + 1 : NULL;
	return hit != neg;
}

bool match_glob(const char *p, const char *s)
{
	/* iterative, with one backtrack point: the last '*' */
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*p == '*') {
			star = ++p;
			resume = s;
			continue;
		}
		if (*p == '[') {
			const char *end;
			bool hit = in_class(p + 1, *s, &end);
			if (end && hit) {
				p = end, s++;
				continue;
			}
			if (!end && *s == '[') { /* no ']': a plain '[' */
				p++, s++;
				continue;
			}
		} else if (*p && (*p == '?' || *p == *s)) {
			p++, s++;
			continue;
		}
		if (!star)
			return false;
		p = star, s = ++resume;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

unsigned match_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > MATCH_NAME_MAX || lb > MATCH_NAME_MAX)
		return (unsigned)(la > lb ? la : lb);
	unsigned row[MATCH_NAME_MAX + 1];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}
