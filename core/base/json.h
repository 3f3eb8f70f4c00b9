/* A JSON object writer for one record = one line. Writes into a caller's
 * buffer; a record that does not fit is marked, never cut silently. */
#ifndef IOMMON_JSON_H
#define IOMMON_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json {
	char *buf;
	size_t cap, len;
	bool overflow;
	bool need_comma;
};

void json_begin(struct json *j, char *buf, size_t cap);
void json_str(struct json *j, const char *key, const char *val); /* val NULL -> null */
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_hex(struct json *j, const char *key, uint64_t val); /* "0x..." string */
void json_double(struct json *j, const char *key, double val, int decimals);
void json_bool(struct json *j, const char *key, bool val);
/* An array of strings. */
void json_strs(struct json *j, const char *key, const char *const *vals, size_t n);
/* An array of integers. */
void json_i64s(struct json *j, const char *key, const int64_t *vals, size_t n);
/* Closes the object; returns the text, or NULL if it did not fit. */
const char *json_end(struct json *j);

#endif
