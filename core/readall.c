#include "readall.h"

#include <stdlib.h>

char *read_all(size_t (*read)(void *ctx, void *buf, size_t n), void *ctx, size_t limit, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	while (buf && n < limit) {
		size_t got = read(ctx, buf + n, cap - n);
		if (got == 0)
			break;
		n += got;
		if (n == cap) {
			char *b = realloc(buf, cap * 2 + 1);
			if (!b) {
				free(buf);
				return NULL;
			}
			buf = b;
			cap *= 2;
		}
	}
	if (!buf)
		return NULL;
	buf[n] = '\0';
	*len = n;
	return buf;
}
