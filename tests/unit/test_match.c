/* Names as a person types them (core/base/match.h): shell patterns and the
 * edit distance behind "did you mean". */
#include "unit.h"

#include "core/base/match.h"

static void patterns(void **state)
{
	(void)state;
	assert_true(match_glob("vtd.translate*", "vtd.translate_4k"));
	assert_true(match_glob("vtd.translate*", "vtd.translate"));
	assert_false(match_glob("vtd.translate*", "amdvi.translate_4k"));
	assert_true(match_glob("*.latency", "smmuv3.latency"));
	assert_false(match_glob("*.latency", "smmuv3.latency_cold"));
	assert_true(match_glob("*lat*", "dma.latency"));
	assert_true(match_glob("vtd.translate_?k", "vtd.translate_4k"));
	assert_false(match_glob("vtd.translate_?k", "vtd.translate_64k"));
	assert_true(match_glob("vtd.translate_[24]*", "vtd.translate_2m"));
	assert_false(match_glob("vtd.translate_[24]*", "vtd.translate_1g"));
	assert_true(match_glob("vtd.translate_[0-9]g", "vtd.translate_1g"));
	assert_true(match_glob("vtd.translate_[!4]*", "vtd.translate_1g"));
	assert_false(match_glob("vtd.translate_[!4]*", "vtd.translate_4k"));
	assert_true(match_glob("a[b", "a[b")); /* no ']': a plain '[' */
	assert_true(match_glob("*", ""));
	assert_false(match_glob("?", ""));
	assert_true(match_glob("**a*b**", "xxaybzz"));
	assert_false(match_glob("a*b*c", "aXbXd"));
	assert_true(match_is_pattern("vtd.*"));
	assert_true(match_is_pattern("vtd.[ab]"));
	assert_false(match_is_pattern("vtd.translate_4k"));
}

static void distances(void **state)
{
	(void)state;
	assert_int_equal(match_distance("vtd.translat_4k", "vtd.translate_4k"), 1);
	assert_int_equal(match_distance("vdt", "vtd"), 2);
	assert_int_equal(match_distance("", "abc"), 3);
	assert_int_equal(match_distance("kitten", "sitting"), 3);
	assert_int_equal(match_distance("same", "same"), 0);
	char longer[100];
	memset(longer, 'a', sizeof(longer) - 1);
	longer[99] = '\0';
	assert_int_equal(match_distance(longer, "a"), 99); /* past MATCH_NAME_MAX: the longer length */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(patterns),
		cmocka_unit_test(distances),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
