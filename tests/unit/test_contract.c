/* The output contract (DESIGN.md): only record lines start with '{', on
 * the host console as on the machine's: contract_write itself, and stdout
 * of the host platform, which passes through it. */
#include "unit.h"

#include "core/base/contract.h"
#include "core/base/json.h"
#include "core/monitor/results.h"
#include "core/monitor/settings.h"
#include "tests/host/platform_host.h"

static char seen[512];
static size_t nseen;

static void keep(const char *buf, size_t n)
{
	memcpy(seen + nseen, buf, n);
	nseen += n;
	seen[nseen] = '\0';
}

static void filter(void **state)
{
	(void)state;
	nseen = 0;
	contract_write("{a}\nx{b}\n{c", 11, keep);
	/* a line goes on across calls: this '{' opens no line */
	contract_write("{d}\n", 4, keep);
	assert_string_equal(seen, " {a}\nx{b}\n {c{d}\n");
	nseen = 0;
	output_record_line = true;
	contract_write("{\"kind\":\"info\"}\n", 16, keep);
	output_record_line = false;
	assert_string_equal(seen, "{\"kind\":\"info\"}\n");
}

static void host_prints(void *arg)
{
	(void)arg;
	printf("{ a human line that looks like a record }\n");
	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "contract");
	record_emit(&j);
	printf("done\n");
}

/* What the host monitor prints keeps the contract: a human line starting
 * with '{' is moved off the column a parser looks at, a record is not. */
static void host_console(void **state)
{
	(void)state;
	platform = &host_platform;
	settings_init();
	setting_set("records", "console");
	host_console_open();
	const char *out = capture_stdout(host_prints, NULL);
	assert_true(strncmp(out, " { a human line", 15) == 0);
	const char *rec = strstr(out, "\n{\"");
	assert_non_null(rec);
	assert_non_null(strstr(rec, "\"what\":\"contract\"}\ndone\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(filter),
		cmocka_unit_test(host_console),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
