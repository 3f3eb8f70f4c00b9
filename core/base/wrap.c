#include "wrap.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

unsigned console_cols = 80;

int table_cols(const char *s)
{
	return (int)strlen(s);
}

void table_wrap(unsigned col, const char *text)
{
	table_wrap_at(col, col, text);
}

void table_wrap_at(unsigned at, unsigned col, const char *text)
{
	unsigned width = console_width();
	if (col + TABLE_MIN_ROOM > width)
		col = TABLE_NARROW_INDENT;
	if (at + TABLE_MIN_ROOM > width) {
		printf("\n%*s", (int)col, "");
		at = col;
	}
	unsigned room = width - at;
	const char *p = text;
	while (*p == ' ')
		p++;
	bool first = true;
	while (*p) {
		size_t left = strlen(p), take = left;
		if (left > room) {
			/* the last space within the room, else a cut at the room */
			take = room;
			for (size_t i = room; i > 0; i--)
				if (p[i] == ' ') {
					take = i;
					break;
				}
		}
		if (!first)
			printf("%*s", (int)col, "");
		printf("%.*s\n", (int)take, p);
		if (first)
			room = width - col;
		first = false;
		p += take;
		while (*p == ' ')
			p++;
	}
	if (first)
		printf("\n");
}

void table_wrapf(unsigned col, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	table_wrap(col, text);
}
