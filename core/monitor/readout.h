/* What a person reads of the results at the console, in the console's
 * width (table.h): after a run, what needs them (failures, skips with
 * their reasons), a line per group, what did not apply; and `results`,
 * which leads with the session's counts and offers the rest by name
 * (every row, the figures, one group) instead of scrolling it past. */
#ifndef IOMMON_READOUT_H
#define IOMMON_READOUT_H

#include <stdbool.h>
#include <stddef.h>

/* After a run: its rows from `first_row`, and (offered) its measures from
 * `first_measure`. The closing count line comes after, from the runner. */
void readout_run(size_t first_row, size_t first_measure);

/* `results [all|measures|GROUP|TEST|PATTERN]`: false (with the error said)
 * when the word names nothing. */
bool readout_results(const char *what);

#endif
