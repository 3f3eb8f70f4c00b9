/* A file streamed by the platform's file_stream, collected into one
 * NUL-terminated buffer: both platforms' file_read. */
#ifndef IOMMON_READALL_H
#define IOMMON_READALL_H

#include <stdbool.h>
#include <stddef.h>

struct read_all {
	char *buf;
	size_t len, cap;
	bool out_of_memory;
};

/* file_stream's piece callback: appends, growing the buffer. */
bool read_all_piece(void *ctx, const void *buf, size_t n);
/* The buffer (NUL-terminated) and its length; NULL, freeing what was
 * collected, when `why` (the stream's result) or memory says it is not whole. */
char *read_all_finish(struct read_all *r, const char *why, size_t *len);

#endif
