/* Reading a whole file of unknown size into one NUL-terminated buffer,
 * for both platforms' file_read. */
#ifndef IOMMON_READALL_H
#define IOMMON_READALL_H

#include <stddef.h>

/* `read` fills up to n bytes and returns how many (0 at the end or on an
 * error). Stops at `limit` bytes. NULL when out of memory. */
char *read_all(size_t (*read)(void *ctx, void *buf, size_t n), void *ctx, size_t limit, size_t *len);

#endif
