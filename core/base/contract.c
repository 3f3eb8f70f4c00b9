#include "contract.h"

volatile bool output_record_line;

static bool at_line_start = true;

void contract_write(const char *buf, size_t n, void (*sink)(const char *buf, size_t n))
{
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		if (at_line_start && buf[i] == '{' && !output_record_line) {
			sink(buf + start, i - start);
			sink(" ", 1);
			start = i;
		}
		at_line_start = buf[i] == '\n';
	}
	sink(buf + start, n - start);
}
