/* Numbers as a person writes them, everywhere the monitor reads one
 * (settings, command arguments, a UART's place): the whole string is
 * decimal digits, or 0x (or 0X) and hex digits; no sign, no spaces, no
 * leading 0 on a decimal number (it is not read as octal: write 8 or 0x8),
 * at most 2^64-1. */
#ifndef IOMMON_NUMBER_H
#define IOMMON_NUMBER_H

#include <stdbool.h>

/* NULL, or what was wrong; *out is written only on success. */
const char *parse_u64_why(const char *s, unsigned long long *out);
bool parse_u64(const char *s, unsigned long long *out);
/* A number from min to max: NULL, or "must be <what> from <min> to <max>
 * (why not)" (one static buffer: use it before the next call). */
const char *parse_range(const char *s, unsigned long long min, unsigned long long max, const char *what,
			unsigned long long *out);

/* A PCI address as a person writes it: "SSSS:BB:DD.F" or "BB:DD.F"
 * (segment 0), hex fields within their widths (segment 16 bits, bus 8,
 * device 5, function 3), nothing before or after. NULL, or what was wrong
 * (one static buffer); the fields are written only on success. */
const char *parse_bdf_why(const char *s, unsigned *seg, unsigned *bus, unsigned *dev, unsigned *fn);

#endif
