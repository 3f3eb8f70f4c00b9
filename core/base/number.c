#include "number.h"

#include <stdio.h>

const char *parse_u64_why(const char *s, unsigned long long *out)
{
	if (!s || !*s)
		return "empty: a number is needed";
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *d = hex ? s + 2 : s;
	if (!*d)
		return "not a number: 0x with no hex digits after it";
	if (!hex && d[0] == '0' && d[1])
		return "a leading 0 (octal is not read): write the number in decimal, or in hex after 0x";
	unsigned long long v = 0;
	unsigned base = hex ? 16 : 10;
	for (; *d; d++) {
		unsigned digit;
		if (*d >= '0' && *d <= '9')
			digit = (unsigned)(*d - '0');
		else if (hex && *d >= 'a' && *d <= 'f')
			digit = (unsigned)(*d - 'a' + 10);
		else if (hex && *d >= 'A' && *d <= 'F')
			digit = (unsigned)(*d - 'A' + 10);
		else
			return hex ? "not a number: only hex digits may follow 0x (no sign, no spaces)"
				   : "not a number: only decimal digits, or 0x and hex digits (no sign, no spaces)";
		if (v > (~0ull - digit) / base)
			return "too large: more than 2^64-1";
		v = v * base + digit;
	}
	*out = v;
	return NULL;
}

bool parse_u64(const char *s, unsigned long long *out)
{
	return parse_u64_why(s, out) == NULL;
}

const char *parse_range(const char *s, unsigned long long min, unsigned long long max, const char *what,
			unsigned long long *out)
{
	static char msg[200];
	unsigned long long v;
	const char *why = parse_u64_why(s, &v);
	if (!why && (v < min || v > max))
		why = "out of range";
	if (why) {
		snprintf(msg, sizeof(msg), "must be %s from %llu to %llu (%s)", what, min, max, why);
		return msg;
	}
	*out = v;
	return NULL;
}
