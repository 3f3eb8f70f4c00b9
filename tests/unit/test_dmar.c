/* The DMAR and MCFG parsers on tables built byte by byte, and the range
 * helper they check with: valid tables decode exactly; truncated ones,
 * lying lengths, zero-length and unknown structures give diagnostics and
 * never a read past the buffer (run under ASan by the fuzzers; here the
 * claims are about what is decoded and said). */
#include "unit.h"

#include "acpi_build.h"
#include "core/base/macros.h"
#include "core/tables/dmar.h"
#include "core/tables/mcfg.h"
#include "core/tables/range.h"

/* DMAR: HAW 39 bits, DRHD (INCLUDE_PCI_ALL, one IOAPIC scope), DRHD with
 * an endpoint behind a bridge (two hops), RMRR with one scope, ANDD. */
static void build_dmar(void)
{
	header("DMAR", 12);
	t[36] = 38;
	t[37] = 0x01;
	put16(0), put16(16 + 8), put8(1), put8(0), put16(0), put64(0xfed91000);
	put8(3), put8(8), put16(0), put8(2), put8(0xff), put8(0), put8(0);
	put16(0), put16(16 + 10), put8(0), put8(0), put16(0), put64(0xfed90000);
	put8(1), put8(10), put16(0), put8(0), put8(0), put8(0x1c), put8(0), put8(0), put8(0);
	put16(1), put16(24 + 8), put16(0), put16(0), put64(0x7c000000), put64(0x7c7fffff);
	put8(1), put8(8), put16(0), put8(0), put8(0), put8(0x14), put8(0);
	put16(4), put16(8 + 6), put8(0), put8(0), put8(0), put8(1), put("\\_SB.I", 6);
	seal();
}

static void dmar_valid(void **state)
{
	(void)state;
	build_dmar();
	struct dmar d;
	assert_int_equal(dmar_parse(t, tl, &d), 0);
	assert_int_equal(d.diag.errors + d.diag.warnings, 0);
	assert_int_equal(d.host_addr_width + 1, 39);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.s[0].type, DMAR_DRHD);
	assert_true(d.s[0].flags & DMAR_DRHD_INCLUDE_PCI_ALL);
	assert_int_equal(d.s[0].base, 0xfed91000);
	assert_int_equal(d.s[0].nscopes, 1);
	assert_int_equal(d.scopes[d.s[0].first_scope].type, DMAR_SCOPE_IOAPIC);
	assert_int_equal(d.scopes[d.s[0].first_scope].start_bus, 0xff);
	const struct dmar_scope *ep = &d.scopes[d.s[1].first_scope];
	assert_int_equal(ep->npath, 2);
	assert_int_equal(ep->path[0].dev, 0x1c);
	assert_int_equal(ep->path[1].dev, 0);
	assert_int_equal(d.s[2].type, DMAR_RMRR);
	assert_int_equal(d.s[2].limit, 0x7c7fffff);
	assert_int_equal(d.s[3].type, DMAR_ANDD);
	assert_string_equal(d.s[3].name, "\\_SB.I");
	dmar_free(&d);
}

/* The table cut at every length, its length field saying so, in a buffer
 * of exactly that size: whole structures parse clean, a cut inside one is
 * an error, nothing is read past the end. */
static void dmar_truncated_everywhere(void **state)
{
	(void)state;
	build_dmar();
	size_t full = tl;
	struct dmar whole;
	dmar_parse(t, full, &whole);
	for (size_t cut = 0; cut < full; cut++) {
		uint8_t *copy = cut_copy(t, cut);
		struct dmar d;
		int rc = dmar_parse(copy, cut, &d);
		bool boundary = cut == 48;
		for (size_t i = 0; i < whole.n; i++)
			boundary |= cut == whole.s[i].offset + whole.s[i].length;
		if (cut < 48)
			assert_int_equal(rc, -1);
		else if (boundary)
			assert_int_equal(d.diag.errors, 0);
		else
			assert_true(d.diag.errors > 0);
		dmar_free(&d);
		free(copy);
	}
	dmar_free(&whole);
}

static void dmar_zero_length_structure(void **state)
{
	(void)state;
	build_dmar();
	t[48 + 2] = 0; /* the first DRHD claims length 0: a walk that would never advance */
	t[48 + 3] = 0;
	seal();
	struct dmar d;
	dmar_parse(t, tl, &d);
	assert_int_equal(d.n, 0);
	assert_true(d.diag.errors > 0);
	assert_non_null(strstr(d.diag.msg[0].text, "length 0"));
	dmar_free(&d);
}

static void dmar_bad_scopes(void **state)
{
	(void)state;
	build_dmar();
	t[48 + 16 + 1] = 0; /* IOAPIC scope with length 0 */
	seal();
	struct dmar d;
	dmar_parse(t, tl, &d);
	assert_true(d.diag.errors > 0);
	assert_int_equal(d.s[0].nscopes, 0);
	assert_int_equal(d.n, 4); /* the next structures are still read */
	dmar_free(&d);

	build_dmar();
	t[48 + 16 + 1] = 200; /* a scope longer than its structure */
	seal();
	dmar_parse(t, tl, &d);
	assert_true(d.diag.errors > 0);
	assert_int_equal(d.s[0].nscopes, 0);
	dmar_free(&d);
}

static void dmar_unknown_type_skipped(void **state)
{
	(void)state;
	build_dmar();
	t[48] = 9; /* an unknown type, but a good length: skipped with a warning */
	seal();
	struct dmar d;
	dmar_parse(t, tl, &d);
	assert_int_equal(d.diag.errors, 0);
	assert_int_equal(d.diag.warnings, 1);
	assert_int_equal(d.n, 3);
	dmar_free(&d);
}

static void dmar_length_field_lies(void **state)
{
	(void)state;
	build_dmar();
	uint32_t huge = 0x10000;
	memcpy(t + 4, &huge, 4);
	struct dmar d;
	dmar_parse(t, tl, &d); /* only tl bytes are there */
	assert_true(d.diag.errors > 0);
	assert_int_equal(d.n, 4);
	dmar_free(&d);
}

static void mcfg_entries(void **state)
{
	(void)state;
	header("MCFG", 8);
	put64(0xb0000000), put16(0), put8(0), put8(0xff), put32(0);
	put64(0x12345), put16(1), put8(0), put8(0xff), put32(0);	    /* misaligned base */
	put64(0xc0000000), put16(2), put8(0x80), put8(0x10), put32(0);	    /* end before start */
	put64(0xfffffffff0000000), put16(3), put8(0), put8(0xff), put32(0); /* ECAM to the last byte */
	put64(0xffffffffe0000000), put16(4), put8(0), put8(0xff), put32(0); /* just below: kept */
	seal();
	struct mcfg m;
	mcfg_parse(t, tl, &m);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.r[0].base, 0xb0000000);
	assert_int_equal(m.r[1].segment, 4);
	assert_int_equal(m.diag.errors, 3);
	assert_non_null(diag_with(&m.diag, "entry at 0x4c", "bus range ends below its base"));
	assert_non_null(diag_with(&m.diag, "entry at 0x5c", "ECAM window reaches the top"));
	mcfg_parse(t, 40, &m);
	assert_int_equal(m.n, 0);
	assert_int_equal(m.diag.errors, 1);
}

/* The checked-range helper on its own: every fault named, and the edges. */
static void range_checks(void **state)
{
	(void)state;
	struct range r = { 1, 2 };
	assert_int_equal(range_from_length(0x1000, 0, &r), RANGE_EMPTY);
	assert_int_equal(range_from_length(0xfffffffffffff000, 0x2000, &r), RANGE_WRAPS);
	assert_int_equal(range_from_length(2, UINT64_MAX, &r), RANGE_WRAPS);
	assert_int_equal(range_from_length(0, UINT64_MAX, &r), RANGE_TOP); /* 2^64 - 1 bytes: not all */
	assert_int_equal(range_from_limit(0, UINT64_MAX, &r), RANGE_WHOLE);
	assert_int_equal(range_from_limit(0x2000, 0x1fff, &r), RANGE_BACKWARDS);
	assert_int_equal(range_from_limit(0x1000, UINT64_MAX, &r), RANGE_TOP);
	assert_int_equal(range_from_limit(0x1000, RANGE_TOP_PAGE, &r), RANGE_TOP);
	assert_int_equal(r.first, 1); /* untouched on refusal */
	assert_int_equal(range_from_limit(0x1000, RANGE_TOP_PAGE - 1, &r), RANGE_OK);
	assert_int_equal(r.last, RANGE_TOP_PAGE - 1);
	assert_int_equal(range_from_length(0x7c000000, 0x800000, &r), RANGE_OK);
	assert_int_equal(r.first, 0x7c000000);
	assert_int_equal(r.last, 0x7c7fffff);
	assert_int_equal(range_from_limit(5, 5, &r), RANGE_OK); /* one byte */
	for (enum range_fault f = RANGE_EMPTY; f <= RANGE_TOP; f++)
		assert_true(strlen(range_fault_text(f)) > 0);
}

static void drhd(uint8_t flags, uint16_t segment, uint64_t base)
{
	put16(DMAR_DRHD), put16(16), put8(flags), put8(0), put16(segment), put64(base);
}
static void rmrr(uint64_t base, uint64_t limit)
{
	put16(DMAR_RMRR), put16(24), put16(0), put16(0), put64(base), put64(limit);
}

/* An RMRR whose end a consumer cannot compute is an error naming it, marked
 * refused (vtd_rmrr_map must not map it); the walk goes on. */
static void dmar_rmrr_ranges(void **state)
{
	(void)state;
	static const struct {
		uint64_t base, limit;
		bool refused;
	} cases[] = {
		{ 0x7c000000, 0x7c7fffff, false },	  { 0, UINT64_MAX, true }, /* the whole address space */
		{ 0x7c000000, UINT64_MAX, true },				   /* limit + 1 is 0 */
		{ 0x7c000000, 0xfffffffffffff7ff, true },			   /* its last page rounds up to 0 */
		{ 0x7c800000, 0x7c000000, true },				   /* backwards */
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		header("DMAR", 12);
		drhd(DMAR_DRHD_INCLUDE_PCI_ALL, 0, 0xfed90000);
		rmrr(cases[i].base, cases[i].limit);
		drhd(0, 1, 0xfed91000); /* read after it */
		seal();
		struct dmar d;
		dmar_parse(t, tl, &d);
		assert_int_equal(d.n, 3);
		assert_int_equal(d.s[1].refused, cases[i].refused);
		assert_int_equal(d.diag.errors, cases[i].refused);
		assert_int_equal(d.diag.warnings, 0);
		if (cases[i].refused)
			assert_non_null(diag_with(&d.diag, "RMRR at 0x40", "not mapped"));
		dmar_free(&d);
	}
}

/* One register base twice is an error naming both DRHDs; two
 * INCLUDE_PCI_ALL units in one segment a warning naming both; in two
 * segments, nothing. */
static void dmar_duplicate_units(void **state)
{
	(void)state;
	struct dmar d;
	header("DMAR", 12);
	drhd(0, 0, 0xfed90000);
	drhd(0, 0, 0xfed91000);
	drhd(DMAR_DRHD_INCLUDE_PCI_ALL, 0, 0xfed90000);
	seal();
	dmar_parse(t, tl, &d);
	assert_int_equal(d.diag.errors, 1);
	assert_int_equal(d.diag.warnings, 0);
	assert_non_null(diag_with(&d.diag, "DRHDs at 0x30 and 0x50", "0xfed90000"));
	dmar_free(&d);

	header("DMAR", 12);
	drhd(DMAR_DRHD_INCLUDE_PCI_ALL, 0, 0xfed90000);
	drhd(DMAR_DRHD_INCLUDE_PCI_ALL, 1, 0xfed91000);
	drhd(DMAR_DRHD_INCLUDE_PCI_ALL, 0, 0xfed92000);
	seal();
	dmar_parse(t, tl, &d);
	assert_int_equal(d.diag.errors, 0);
	assert_int_equal(d.diag.warnings, 1);
	assert_non_null(diag_with(&d.diag, "DRHDs at 0x30 and 0x50", "INCLUDE_PCI_ALL in segment 0"));
	dmar_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dmar_valid),
		cmocka_unit_test(dmar_truncated_everywhere),
		cmocka_unit_test(dmar_zero_length_structure),
		cmocka_unit_test(dmar_bad_scopes),
		cmocka_unit_test(dmar_unknown_type_skipped),
		cmocka_unit_test(dmar_length_field_lies),
		cmocka_unit_test(mcfg_entries),
		cmocka_unit_test(range_checks),
		cmocka_unit_test(dmar_rmrr_ranges),
		cmocka_unit_test(dmar_duplicate_units),
	};
	return cmocka_run_group_tests_name("dmar", tests, NULL, NULL);
}
