/* Shared by the host unit tests: cmocka, and capture of what the code
 * under test printed. */
#ifndef IOMMON_UNIT_H
#define IOMMON_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* xorshift64 (13, 7, 17): the tests' draws, from a seed of their own, so a
 * run is the same every time. */
static inline uint64_t unit_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* qsort's comparison of uint64_t. */
static inline int unit_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The widest line of `text`, in columns (its lines are ASCII). */
static inline size_t unit_widest_line(const char *text)
{
	size_t w = 0;
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		w = n > w ? n : w;
		l += n + (l[n] == '\n');
	}
	return w;
}

/* Runs `fn` with stdout redirected; returns what it printed (static). */
static inline const char *capture_stdout(void (*fn)(void *), void *arg)
{
	static char out[65536];
	fflush(stdout);
	FILE *tmp = tmpfile();
	int saved = dup(1);
	dup2(fileno(tmp), 1);
	fn(arg);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(tmp);
	size_t n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return out;
}

/* An iommu operation that must fail, leaving `code` in io->err (the
 * tests check the code, never the words). */
#define assert_iommu_fails(io, call, code)         \
	do {                                       \
		(io)->err = 0;                     \
		assert_non_null(call);             \
		assert_int_equal((io)->err, code); \
	} while (0)

#endif
