/* libFuzzer: the breadcrumb parser on arbitrary bytes (a firmware variable
 * anyone could have written). What it accepts must survive a round trip:
 * formatted again and parsed, the same breadcrumb. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/monitor/crumb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= CRUMB_MAX)
		return 0; /* the platform refuses a longer note before parsing */
	char text[CRUMB_MAX], again[CRUMB_MAX];
	memcpy(text, data, size);
	text[size] = '\0';
	struct crumb a, b;
	if (crumb_parse(text, &a) != NULL)
		return 0;
	if (crumb_format(&a, again, sizeof(again)) < 0)
		__builtin_trap(); /* accepted but cannot be written back */
	if (crumb_parse(again, &b) != NULL || memcmp(&a, &b, sizeof(a)) != 0)
		__builtin_trap(); /* not the same breadcrumb after a round trip */
	return 0;
}
