#include "readall.h"

#include <stdlib.h>
#include <string.h>

bool read_all_piece(void *ctx, const void *buf, size_t n)
{
	struct read_all *r = ctx;
	if (r->len + n + 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		while (cap < r->len + n + 1) {
			if (cap > (size_t)-1 / 2) {
				r->out_of_memory = true;
				return false;
			}
			cap *= 2;
		}
		char *b = realloc(r->buf, cap);
		if (!b) {
			r->out_of_memory = true;
			return false;
		}
		r->buf = b;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, buf, n);
	r->len += n;
	r->buf[r->len] = '\0';
	return true;
}

char *read_all_finish(struct read_all *r, const char *why, size_t *len)
{
	if (why || r->out_of_memory) {
		free(r->buf);
		return NULL;
	}
	if (!r->buf && !read_all_piece(r, "", 0)) /* an empty file is an empty string */
		return NULL;
	*len = r->len;
	return r->buf;
}
