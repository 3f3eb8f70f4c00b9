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

/* One hex field of 1 to `digits` digits ending at `stop`, at most `max`. */
static const char *hex_field(const char **s, char stop, unsigned digits, unsigned max, const char *name, unsigned *out,
			     char *why, size_t n)
{
	const char *p = *s;
	unsigned v = 0, k = 0;
	for (; *p && *p != stop; p++, k++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			d = (unsigned)((*p | 0x20) - 'a' + 10);
		else {
			snprintf(why, n, "the %s holds '%c': only hex digits", name, *p);
			return why;
		}
		if (k == digits) {
			snprintf(why, n, "the %s has more than %u hex digits", name, digits);
			return why;
		}
		v = v * 16 + d;
	}
	if (k == 0) {
		snprintf(why, n, "the %s is missing", name);
		return why;
	}
	if (v > max) {
		snprintf(why, n, "the %s 0x%x is beyond 0x%x", name, v, max);
		return why;
	}
	if (*p != stop) {
		snprintf(why, n, "'%c' expected after the %s", stop ? stop : ' ', name);
		return why;
	}
	*out = v;
	*s = *p ? p + 1 : p;
	return NULL;
}

const char *parse_bdf_why(const char *s, unsigned *segment, unsigned *bus_out, unsigned *dev_out, unsigned *fn_out)
{
	static char why[96];
	unsigned seg = 0, bus, dev, fn, colons = 0;
	for (const char *p = s; *p; p++)
		colons += *p == ':';
	if (colons < 1 || colons > 2)
		return "not a PCI address: SSSS:BB:DD.F or BB:DD.F";
	const char *p = s;
	if ((colons == 2 && hex_field(&p, ':', 4, 0xffff, "segment", &seg, why, sizeof(why))) ||
	    hex_field(&p, ':', 2, 0xff, "bus", &bus, why, sizeof(why)) ||
	    hex_field(&p, '.', 2, 31, "device", &dev, why, sizeof(why)) ||
	    hex_field(&p, '\0', 1, 7, "function", &fn, why, sizeof(why)))
		return why;
	*segment = seg, *bus_out = bus, *dev_out = dev, *fn_out = fn;
	return NULL;
}
