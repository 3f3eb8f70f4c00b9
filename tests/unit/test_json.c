#include "unit.h"

#include <math.h>

#include "core/base/json.h"

static void fields(void **state)
{
	(void)state;
	char buf[256];
	struct json j;
	json_begin(&j, buf, sizeof(buf));
	json_str(&j, "kind", "result");
	json_u64(&j, "n", 18446744073709551615ull);
	json_i64(&j, "d", -5);
	json_hex(&j, "base", 0xfed90000);
	json_double(&j, "mean", 2.5, 2);
	json_bool(&j, "model", false);
	json_str(&j, "none", NULL);
	assert_string_equal(json_end(&j), "{\"kind\":\"result\",\"n\":18446744073709551615,\"d\":-5,"
					  "\"base\":\"0xfed90000\",\"mean\":2.50,\"model\":false,\"none\":null}");
}

static void escaping(void **state)
{
	(void)state;
	char buf[256];
	struct json j;
	json_begin(&j, buf, sizeof(buf));
	json_str(&j, "s", "a\"b\\c\nd\te\x01");
	assert_string_equal(json_end(&j), "{\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001\"}");
}

/* A firmware string with bytes of 0x80 and up (an SMBIOS vendor in
 * Latin-1, a truncated UTF-8 sequence, 0xff padding) still makes an ASCII
 * record: each such byte is escaped, never copied. */
static void high_bytes_escaped(void **state)
{
	(void)state;
	char buf[256];
	struct json j;
	json_begin(&j, buf, sizeof(buf));
	json_str(&j, "firmware", "Soci\xe9t\xe9 \xc3 \xff\x80");
	const char *line = json_end(&j);
	assert_string_equal(line, "{\"firmware\":\"Soci\\u00e9t\\u00e9 \\u00c3 \\u00ff\\u0080\"}");
	for (const unsigned char *p = (const unsigned char *)line; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
}

static void not_finite(void **state)
{
	(void)state;
	char buf[64];
	struct json j;
	json_begin(&j, buf, sizeof(buf));
	json_double(&j, "x", NAN, 1);
	json_double(&j, "y", INFINITY, 1);
	assert_string_equal(json_end(&j), "{\"x\":null,\"y\":null}");
}

static void array(void **state)
{
	(void)state;
	char buf[64];
	struct json j;
	const char *v[] = { "0000:00:02.0", "0000:01:00.0" };
	json_begin(&j, buf, sizeof(buf));
	json_strs(&j, "devices", v, 2);
	assert_string_equal(json_end(&j), "{\"devices\":[\"0000:00:02.0\",\"0000:01:00.0\"]}");
}

/* A record that does not fit is refused whole, never cut into bad JSON. */
static void overflow(void **state)
{
	(void)state;
	char buf[16];
	struct json j;
	json_begin(&j, buf, sizeof(buf));
	json_str(&j, "kind", "measure-with-a-long-name");
	assert_null(json_end(&j));
	assert_true(j.overflow);
	/* exactly fitting: {"a":1} is 7 bytes + NUL */
	char b8[8];
	json_begin(&j, b8, sizeof(b8));
	json_u64(&j, "a", 1);
	assert_string_equal(json_end(&j), "{\"a\":1}");
	char b7[7];
	json_begin(&j, b7, sizeof(b7));
	json_u64(&j, "a", 1);
	assert_null(json_end(&j));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fields),     cmocka_unit_test(escaping), cmocka_unit_test(high_bytes_escaped),
		cmocka_unit_test(not_finite), cmocka_unit_test(array),	  cmocka_unit_test(overflow),
	};
	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
