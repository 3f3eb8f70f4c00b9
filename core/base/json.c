#include "json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void put(struct json *j, const char *s, size_t n)
{
	if (j->overflow || n >= j->cap - j->len) {
		j->overflow = true;
		return;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void puts_(struct json *j, const char *s)
{
	put(j, s, strlen(s));
}

static void put_string(struct json *j, const char *s)
{
	put(j, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];
		switch (*p) {
		case '"':
			put(j, "\\\"", 2);
			break;
		case '\\':
			put(j, "\\\\", 2);
			break;
		case '\n':
			put(j, "\\n", 2);
			break;
		case '\r':
			put(j, "\\r", 2);
			break;
		case '\t':
			put(j, "\\t", 2);
			break;
		default:
			/* Bytes 0x80 and up come from firmware strings (vendor,
			 * device names) in no known encoding: each becomes the code
			 * point of the same value (as Latin-1 would read it), so
			 * every record is ASCII and valid UTF-8 whatever the
			 * firmware put there. */
			if (*p < 0x20 || *p >= 0x7f) {
				snprintf(esc, sizeof(esc), "\\u%04x", *p);
				puts_(j, esc);
			} else {
				put(j, (const char *)p, 1);
			}
		}
	}
	put(j, "\"", 1);
}

static void key(struct json *j, const char *k)
{
	if (j->need_comma)
		put(j, ",", 1);
	j->need_comma = true;
	put_string(j, k);
	put(j, ":", 1);
}

void json_begin(struct json *j, char *buf, size_t cap)
{
	*j = (struct json){ .buf = buf, .cap = cap };
	if (cap == 0) {
		j->overflow = true;
		return;
	}
	buf[0] = '\0';
	put(j, "{", 1);
}

void json_str(struct json *j, const char *k, const char *val)
{
	key(j, k);
	if (val)
		put_string(j, val);
	else
		puts_(j, "null");
}

void json_u64(struct json *j, const char *k, uint64_t val)
{
	char tmp[24];
	key(j, k);
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)val);
	puts_(j, tmp);
}

void json_i64(struct json *j, const char *k, int64_t val)
{
	char tmp[24];
	key(j, k);
	snprintf(tmp, sizeof(tmp), "%lld", (long long)val);
	puts_(j, tmp);
}

void json_hex(struct json *j, const char *k, uint64_t val)
{
	char tmp[24];
	snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)val);
	json_str(j, k, tmp);
}

void json_double(struct json *j, const char *k, double val, int decimals)
{
	char tmp[48];
	key(j, k);
	if (!isfinite(val)) { /* JSON has no NaN or infinity */
		puts_(j, "null");
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.*f", decimals, val);
	puts_(j, tmp);
}

void json_bool(struct json *j, const char *k, bool val)
{
	key(j, k);
	puts_(j, val ? "true" : "false");
}

void json_strs(struct json *j, const char *k, const char *const *vals, size_t n)
{
	key(j, k);
	put(j, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			put(j, ",", 1);
		put_string(j, vals[i]);
	}
	put(j, "]", 1);
}

void json_i64s(struct json *j, const char *k, const int64_t *vals, size_t n)
{
	char tmp[24];
	key(j, k);
	put(j, "[", 1);
	for (size_t i = 0; i < n; i++) {
		snprintf(tmp, sizeof(tmp), i ? ",%lld" : "%lld", (long long)vals[i]);
		puts_(j, tmp);
	}
	put(j, "]", 1);
}

const char *json_end(struct json *j)
{
	put(j, "}", 1);
	return j->overflow ? NULL : j->buf;
}
