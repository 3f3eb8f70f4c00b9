/* Text for a person at a serial console: the menu's tables fit its width
 * (80 columns, 132 with the monitor's `set wide on`), the last column of a
 * row wrapped at word boundaries under itself. Claim lines, lab lines and
 * records are not tables: each stays one line, which a log is grepped by. */
#ifndef IOMMON_WRAP_H
#define IOMMON_WRAP_H

#include <stdarg.h>

/* The console's width in columns: 80 unless the monitor's settings say
 * otherwise (core/monitor/settings.c sets it). */
extern unsigned console_cols;
static inline unsigned console_width(void)
{
	return console_cols;
}

/* The rest of a line whose first `col` columns are printed already:
 * `text` wrapped at spaces to console_width(), each further line
 * indented to `col`. Where fewer than TABLE_MIN_ROOM columns are left,
 * the text starts on the next line, indented TABLE_NARROW_INDENT. A word
 * longer than the room is cut where it must be, never dropped. Ends the
 * line. */
#define TABLE_MIN_ROOM 24
#define TABLE_NARROW_INDENT 6
void table_wrap(unsigned col, const char *text);
/* The same, of a format. */
void table_wrapf(unsigned col, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same where the line so far is `at` columns wide and the further
 * lines are indented `indent` (a lead wider than the column it hangs
 * from: "  vtd: not applicable (29 tests): ..."). */
void table_wrap_at(unsigned at, unsigned indent, const char *text);

/* The columns printf's "%-*s" of `s` takes: its length (the tables hold
 * ASCII names and the firmware's strings made safe). */
int table_cols(const char *s);

#endif
