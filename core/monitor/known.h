/* Known failures: iommon-known.txt on the boot volume lists tests whose
 * failure a lab has accepted for now, each with its reason:
 *
 *     # comment lines start with '#'
 *     vtd.stale_iotlb   firmware 1.2 leaves the IOTLB on (ticket 123)
 *
 * A listed test that fails is recorded as `known` (not failed) with its
 * reason; one that passes is recorded as passed and said so, since the list
 * may be out of date (kvm-unit-tests' XPASS). A bad line (no reason, a
 * name that is no test, a repeated name, a character outside printable
 * ASCII, too long) gets a warning with its place and is ignored. */
#ifndef IOMMON_KNOWN_H
#define IOMMON_KNOWN_H

#include <stddef.h>

#define KNOWN_FILE "iommon-known.txt"
#define KNOWN_MAX 256	     /* entries kept; more are refused, each said */
#define KNOWN_LINE_MAX 200   /* characters on a line */
#define KNOWN_REASON_MAX 120 /* characters of a reason kept */

/* Replaces the list with the lines of `text` (`name` for the messages);
 * returns how many entries were taken. Names are checked against the
 * runner's catalogue (runner_init first). */
size_t known_parse(const char *text, size_t len, const char *name);
/* Reads KNOWN_FILE from the boot volume, when there is one, and says how
 * many entries it gave. */
void known_load(void);
void known_clear(void);
size_t known_count(void);
/* The reason `test` is listed for, or NULL when it is not. */
const char *known_reason(const char *test);

#endif
