/* Line-by-line reading of a text a replay folder holds (iommu.txt,
 * pci.txt): each line that is not blank or a '#' comment goes to `take`,
 * which returns NULL or what is wrong with it; a wrong line is named
 * (file:line) and left out, and the others are kept. */
#ifndef IOMMON_TEXTLINES_H
#define IOMMON_TEXTLINES_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define TEXTLINE_MAX 512 /* a longer line is refused whole */

static inline size_t text_lines(const char *text, size_t len, const char *file,
				const char *(*take)(char *line, void *ctx), void *ctx)
{
	size_t taken = 0;
	unsigned lineno = 0;
	for (size_t at = 0; at < len;) {
		size_t end = at;
		while (end < len && text[end] != '\n')
			end++;
		char line[TEXTLINE_MAX];
		bool cut = end - at >= sizeof(line);
		size_t n = cut ? sizeof(line) - 1 : end - at;
		memcpy(line, text + at, n);
		line[n] = '\0';
		lineno++;
		at = end + 1;
		if (n == 0 || line[0] == '#')
			continue;
		const char *why = cut ? "it is too long" : strlen(line) != n ? "it holds a NUL byte" : take(line, ctx);
		if (why)
			printf("warning: replay: %s:%u: %s; the line is left out\n", file, lineno, why);
		else
			taken++;
	}
	return taken;
}

#endif
