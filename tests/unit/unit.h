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
