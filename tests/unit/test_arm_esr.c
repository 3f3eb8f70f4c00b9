/* ESR_ELx decoded as the aarch64 exception handler words it: syndromes
 * built from the Arm ARM's encodings (EC 31:26, IL 25, ISS 24:0). */
#include "unit.h"

#include "core/base/arm_esr.h"

#define IL (1u << 25)
#define ESR(ec, iss) ((uint32_t)(ec) << 26 | IL | (iss))

static void data_aborts(void **state)
{
	(void)state;
	struct esr_decoded d;
	/* an MMIO read nothing answered: synchronous external abort */
	esr_decode(ESR(ESR_EC_DABT, 0x10), &d);
	assert_true(d.abort && d.data && !d.write && d.far_valid);
	assert_int_equal(d.fault, ESR_FAULT_EXTERNAL);
	assert_int_equal(d.level, -1);
	/* the same by a store */
	esr_decode(ESR(ESR_EC_DABT, 0x10 | ESR_ISS_WNR), &d);
	assert_true(d.write);
	/* translation fault at level 3, level 0, permission fault at level 2 */
	esr_decode(ESR(ESR_EC_DABT, 0x07), &d);
	assert_int_equal(d.fault, ESR_FAULT_TRANSLATION);
	assert_int_equal(d.level, 3);
	esr_decode(ESR(ESR_EC_DABT, 0x04), &d);
	assert_int_equal(d.level, 0);
	esr_decode(ESR(ESR_EC_DABT, 0x0e), &d);
	assert_int_equal(d.fault, ESR_FAULT_PERMISSION);
	assert_int_equal(d.level, 2);
	esr_decode(ESR(ESR_EC_DABT, 0x09), &d);
	assert_int_equal(d.fault, ESR_FAULT_ACCESS_FLAG);
	esr_decode(ESR(ESR_EC_DABT, 0x02), &d);
	assert_int_equal(d.fault, ESR_FAULT_ADDRESS_SIZE);
	assert_int_equal(d.level, 2);
	esr_decode(ESR(ESR_EC_DABT, 0x21), &d);
	assert_int_equal(d.fault, ESR_FAULT_ALIGNMENT);
	/* on the walk, level 1; FAR not valid; on a stage-1 table walk */
	esr_decode(ESR(ESR_EC_DABT_LOWER, 0x15 | ESR_ISS_FNV | ESR_ISS_S1PTW), &d);
	assert_int_equal(d.fault, ESR_FAULT_EXTERNAL_WALK);
	assert_int_equal(d.level, 1);
	assert_false(d.far_valid);
	assert_true(d.s1ptw);
	esr_decode(ESR(ESR_EC_DABT, 0x18), &d);
	assert_int_equal(d.fault, ESR_FAULT_ECC);
	esr_decode(ESR(ESR_EC_DABT, 0x1e), &d);
	assert_int_equal(d.fault, ESR_FAULT_ECC_WALK);
	assert_int_equal(d.level, 2);
	esr_decode(ESR(ESR_EC_DABT, 0x30), &d);
	assert_int_equal(d.fault, ESR_FAULT_TLB_CONFLICT);
	esr_decode(ESR(ESR_EC_DABT, 0x35), &d);
	assert_int_equal(d.fault, ESR_FAULT_OTHER);
	assert_int_equal(d.fsc, 0x35);
}

static void other_classes(void **state)
{
	(void)state;
	struct esr_decoded d;
	esr_decode(ESR(ESR_EC_IABT, 0x06), &d); /* instruction abort: translation fault, level 2 */
	assert_true(d.abort);
	assert_false(d.data);
	assert_false(d.write);
	assert_int_equal(d.fault, ESR_FAULT_TRANSLATION);
	assert_int_equal(d.level, 2);
	esr_decode(ESR(ESR_EC_UNKNOWN, 0), &d); /* an undefined instruction */
	assert_int_equal(d.ec, 0);
	assert_false(d.abort);
	assert_int_equal(d.fault, ESR_FAULT_NONE);
	esr_decode(ESR(ESR_EC_SERROR, 1u << 10 | 0x11), &d); /* unrecoverable */
	assert_true(d.aet_valid);
	assert_int_equal(d.aet, 1);
	esr_decode(ESR(ESR_EC_SERROR, ESR_ISS_IDS | 0x123), &d); /* the syndrome is the implementation's */
	assert_false(d.aet_valid);
	esr_decode(ESR(0x3c, 0x0), &d); /* BRK: not an abort, the ISS is the immediate */
	assert_false(d.abort);
	assert_false(d.far_valid);
}

static void words(void **state)
{
	(void)state;
	char out[200];
	size_t n = esr_describe(ESR(ESR_EC_DABT, 0x10), 0x10000000, out, sizeof(out));
	assert_int_equal(n, strlen(out));
	assert_non_null(strstr(out, "0x10000000")); /* FAR given */
	esr_describe(ESR(ESR_EC_DABT, 0x10 | ESR_ISS_FNV), 0x10000000, out, sizeof(out));
	assert_null(strstr(out, "0x10000000")); /* FAR not valid: not shown */
	/* cut short, never past the buffer */
	char small[12];
	memset(small, 'x', sizeof(small));
	n = esr_describe(ESR(ESR_EC_DABT, 0x07), 0x1234, small, 10);
	assert_true(n < 10);
	assert_int_equal(strlen(small), n);
	assert_int_equal(small[10], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(data_aborts),
		cmocka_unit_test(other_classes),
		cmocka_unit_test(words),
	};
	return cmocka_run_group_tests_name("arm_esr", tests, NULL, NULL);
}
