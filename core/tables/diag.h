/* Diagnostics from parsing firmware tables: what was wrong, in one line
 * each, kept so that the checks can report them and the parse goes on. */
#ifndef IOMMON_DIAG_H
#define IOMMON_DIAG_H

#include <stddef.h>

#define DIAG_MAX 16

enum diag_level { DIAG_WARNING, DIAG_ERROR };

struct diag {
	unsigned warnings, errors; /* all of them, also past DIAG_MAX */
	size_t n;
	struct {
		enum diag_level level;
		char text[120];
	} msg[DIAG_MAX];
};

void diag_add(struct diag *d, enum diag_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
