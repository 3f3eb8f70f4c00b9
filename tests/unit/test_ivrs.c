/* The IVRS parser on tables built byte by byte: valid ones decode
 * exactly; truncated ones, lying lengths, zero-length and unknown blocks
 * and entries give diagnostics and never a read past the buffer (run
 * under ASan by the fuzzers; here the claims are about what is decoded
 * and said). */
#include "unit.h"

#include "acpi_build.h"
#include "core/base/macros.h"
#include "core/tables/ivrs.h"
#include "core/tables/range.h"

/* IVRS: IVHD 10h with select, range, alias and special entries; an IVHD
 * 11h for the same unit; an IVMD 21h. */
static void build_ivrs(void)
{
	header("IVRS", 12);
	uint32_t ivinfo = 0x00203040;
	memcpy(t + 36, &ivinfo, 4);
	size_t h = tl;
	put8(0x10), put8(0xb0), put16(0), put16(0x0002), put16(0x40), put64(0xfeb80000), put16(0), put16(0), put32(0);
	put8(IVHD_SELECT), put16(0x0010), put8(0);
	put8(IVHD_RANGE_START), put16(0x0100), put8(0);
	put8(IVHD_RANGE_END), put16(0x01ff), put8(0);
	put8(IVHD_ALIAS_SELECT), put16(0x0300), put8(0), put8(0), put16(0x0208), put8(0);
	put8(IVHD_SPECIAL), put16(0), put8(0xd7), put8(0x21), put16(0x00a0), put8(IVHD_SPECIAL_IOAPIC);
	uint16_t l = (uint16_t)(tl - h);
	memcpy(t + h + 2, &l, 2);
	h = tl;
	put8(0x11), put8(0xb0), put16(0), put16(0x0002), put16(0x40), put64(0xfeb80000), put16(0), put16(0), put32(0),
	    put64(0x1234), put64(0);
	put8(IVHD_ALL), put16(0), put8(0);
	l = (uint16_t)(tl - h);
	memcpy(t + h + 2, &l, 2);
	put8(0x21), put8(0x07), put16(32), put16(0x0010), put16(0), put64(0), put64(0x7b000000), put64(0x10000);
	seal();
}

static void ivrs_valid(void **state)
{
	(void)state;
	build_ivrs();
	struct ivrs v;
	assert_int_equal(ivrs_parse(t, tl, &v), 0);
	assert_int_equal(v.diag.errors + v.diag.warnings, 0);
	assert_int_equal(v.n, 3);
	const struct ivrs_block *h10 = &v.b[0];
	assert_int_equal(h10->nentries, 5);
	assert_true(ivrs_covers(&v, h10, 0x0010));
	assert_false(ivrs_covers(&v, h10, 0x0011));
	assert_true(ivrs_covers(&v, h10, 0x0100));
	assert_true(ivrs_covers(&v, h10, 0x01ff));
	assert_false(ivrs_covers(&v, h10, 0x0200));
	assert_true(ivrs_covers(&v, h10, 0x0300)); /* alias select */
	assert_int_equal(v.e[h10->first_entry + 3].source, 0x0208);
	assert_int_equal(v.e[h10->first_entry + 4].variety, IVHD_SPECIAL_IOAPIC);
	assert_true(ivrs_covers(&v, &v.b[1], 0xbeef)); /* select-all */
	assert_false(ivrs_preferred(&v, 0));	       /* the 11h block supersedes it */
	assert_true(ivrs_preferred(&v, 1));
	assert_int_equal(v.b[1].efr, 0x1234);
	assert_int_equal(v.b[2].start, 0x7b000000);
	assert_int_equal(v.b[2].size, 0x10000);
	ivrs_free(&v);
}

static void ivrs_truncated_everywhere(void **state)
{
	(void)state;
	build_ivrs();
	size_t full = tl;
	struct ivrs whole;
	ivrs_parse(t, full, &whole);
	for (size_t cut = 0; cut < full; cut++) {
		uint8_t *copy = cut_copy(t, cut);
		struct ivrs v;
		ivrs_parse(copy, cut, &v);
		bool boundary = cut == 48;
		for (size_t i = 0; i < whole.n; i++)
			boundary |= cut == whole.b[i].offset + whole.b[i].length;
		if (cut >= 48 && boundary)
			assert_int_equal(v.diag.errors, 0);
		else
			assert_true(v.diag.errors > 0);
		ivrs_free(&v);
		free(copy);
	}
	ivrs_free(&whole);
}

static void ivrs_unknown_entry_and_zero_block(void **state)
{
	(void)state;
	build_ivrs();
	t[48 + 24] = 0x85; /* entry type of no known length: the rest of the block cannot be read */
	seal();
	struct ivrs v;
	ivrs_parse(t, tl, &v);
	assert_int_equal(v.diag.errors, 1);
	assert_int_equal(v.diag.warnings, 0);
	assert_int_equal(v.b[0].nentries, 0);
	assert_int_equal(v.n, 3); /* the next blocks are still read */
	ivrs_free(&v);

	build_ivrs();
	t[48 + 2] = 0; /* a block of length 0 */
	t[48 + 3] = 0;
	seal();
	ivrs_parse(t, tl, &v);
	assert_int_equal(v.n, 0);
	assert_true(v.diag.errors > 0);
	ivrs_free(&v);
}

static void ivrs_acpi_hid_entry(void **state)
{
	(void)state;
	header("IVRS", 12);
	size_t h = tl;
	put8(0x40), put8(0), put16(0), put16(2), put16(0x40), put64(0xfeb80000), put16(0), put16(0), put32(0), put64(0),
	    put64(0);
	put8(IVHD_ACPI_HID), put16(0x00a5), put8(0), put("AMDI0020", 8), put("\0\0\0\0\0\0\0\0", 8), put8(2), put8(4),
	    put("\\_SB", 4);
	put8(IVHD_SELECT), put16(0x0008), put8(0);
	uint16_t l = (uint16_t)(tl - h);
	memcpy(t + h + 2, &l, 2);
	seal();
	struct ivrs v;
	ivrs_parse(t, tl, &v);
	assert_int_equal(v.diag.errors + v.diag.warnings, 0);
	assert_int_equal(v.b[0].nentries, 2);
	assert_string_equal(v.e[0].hid, "AMDI0020");
	assert_string_equal(v.e[0].uid, "\\_SB");
	assert_int_equal(v.e[1].devid, 0x0008); /* found after the variable-length entry */
	ivrs_free(&v);
}

/* Alias and extended ranges open a range like a plain start. */
static void ivrs_range_forms(void **state)
{
	(void)state;
	header("IVRS", 12);
	size_t h = tl;
	put8(0x10), put8(0), put16(0), put16(2), put16(0x40), put64(0xfeb80000), put16(0), put16(0), put32(0);
	put8(IVHD_ALIAS_RANGE), put16(0x0100), put8(0), put8(0), put16(0x00f8), put8(0);
	put8(IVHD_RANGE_END), put16(0x0107), put8(0);
	put8(IVHD_EXT_RANGE), put16(0x0200), put8(0), put32(0x80000000);
	put8(IVHD_RANGE_END), put16(0x0203), put8(0);
	uint16_t l = (uint16_t)(tl - h);
	memcpy(t + h + 2, &l, 2);
	seal();
	struct ivrs v;
	ivrs_parse(t, tl, &v);
	assert_int_equal(v.diag.errors + v.diag.warnings, 0);
	const struct ivrs_block *b = &v.b[0];
	assert_false(ivrs_covers(&v, b, 0x0000));
	assert_false(ivrs_covers(&v, b, 0x0050));
	assert_true(ivrs_covers(&v, b, 0x0104));
	assert_false(ivrs_covers(&v, b, 0x0108));
	assert_true(ivrs_covers(&v, b, 0x0203));
	assert_false(ivrs_covers(&v, b, 0x0204));
	assert_int_equal(v.e[b->first_entry].source, 0x00f8);
	assert_int_equal(v.e[b->first_entry + 2].ext, 0x80000000);
	ivrs_free(&v);
}

/* Builders for the checks below: an IVRS header (revision 2, sound
 * IVinfo), IVHD blocks closed by ivhd_end, IVMDs. */
static size_t ivhd(uint8_t type, uint16_t devid, uint64_t base)
{
	size_t h = tl;
	put8(type), put8(0), put16(0), put16(devid), put16(0x40), put64(base), put16(0), put16(0), put32(0);
	if (type != 0x10)
		put64(0), put64(0);
	return h;
}
static void ivhd_end(size_t h)
{
	uint16_t l = (uint16_t)(tl - h);
	memcpy(t + h + 2, &l, 2);
}
static void ivmd(uint8_t type, uint8_t flags, uint16_t devid, uint16_t aux, uint64_t start, uint64_t size)
{
	put8(type), put8(flags), put16(32), put16(devid), put16(aux), put64(0), put64(start), put64(size);
}
static void entry4(uint8_t type, uint16_t devid)
{
	put8(type), put16(devid), put8(0);
}

/* Parses t and checks how many errors and warnings it gave. */
static void expect(unsigned errors, unsigned warnings)
{
	seal();
	struct ivrs v;
	ivrs_parse(t, tl, &v);
	for (size_t i = 0; (v.diag.errors != errors || v.diag.warnings != warnings) && i < v.diag.n; i++)
		print_message("    %s\n", v.diag.msg[i].text);
	assert_int_equal(v.diag.errors, errors);
	assert_int_equal(v.diag.warnings, warnings);
	ivrs_free(&v);
}

/* Entry lengths by type: reserved 4- and 8-byte types are skipped by their
 * length (the next entry is still found), a type from 80h other than F0h
 * has none, and an ACPI device's UID must fit its block. */
static void ivrs_entry_lengths(void **state)
{
	(void)state;
	header("IVRS", 12);
	size_t h = ivhd(0x10, 2, 0xfeb80000);
	entry4(0x05, 0x1234);
	put8(0x45), put16(0), put8(0), put32(0);
	entry4(IVHD_SELECT, 0x0008);
	ivhd_end(h);
	seal();
	struct ivrs v;
	ivrs_parse(t, tl, &v);
	assert_int_equal(v.diag.errors, 0);
	assert_int_equal(v.diag.warnings, 2);
	assert_int_equal(v.b[0].nentries, 3);
	assert_int_equal(v.e[2].devid, 0x0008);
	assert_int_equal(v.e[2].offset, 48 + 24 + 4 + 8);
	ivrs_free(&v);

	for (unsigned type = 0x80; type <= 0xff; type++) {
		if (type == IVHD_ACPI_HID)
			continue;
		header("IVRS", 12);
		h = ivhd(0x10, 2, 0xfeb80000);
		entry4((uint8_t)type, 0), entry4(IVHD_SELECT, 0x0008);
		ivhd_end(h);
		expect(1, 0);
	}

	header("IVRS", 12);
	h = ivhd(0x40, 2, 0xfeb80000);
	put8(IVHD_ACPI_HID), put16(0x00a5), put8(0), put("AMDI0020", 8), put64(0), put8(IVHD_UID_STRING), put8(9),
	    put("\\_SB", 4); /* says 9 bytes of UID, the block has 4 */
	ivhd_end(h);
	expect(1, 0);
}

/* An IVHD whose length cuts its last entry; header sizes by type. */
static void ivrs_block_lengths(void **state)
{
	(void)state;
	header("IVRS", 12);
	size_t h = ivhd(0x11, 2, 0xfeb80000);
	put8(IVHD_EXT_SELECT), put16(0x10), put8(0), put32(0);
	tl -= 2; /* the block ends 2 bytes into the 8-byte entry */
	ivhd_end(h);
	expect(1, 0);

	header("IVRS", 12);
	h = ivhd(0x40, 2, 0xfeb80000);
	tl -= 12; /* 40h needs 40 bytes */
	ivhd_end(h);
	expect(1, 0);

	header("IVRS", 12);
	h = ivhd(0x10, 2, 0xfeb80000); /* 10h needs 24: this one is complete */
	ivhd_end(h);
	expect(0, 0);
}

/* Each broken pairing is one error; ivrs_covers stays on the safe side. */
static void ivrs_range_pairs(void **state)
{
	(void)state;
	static const struct {
		uint8_t a, b, c;
		uint16_t da, db, dc;
	} cases[] = {
		{ IVHD_RANGE_START, IVHD_SELECT, IVHD_SELECT, 0x10, 0x40, 0x41 },	/* start, no end */
		{ IVHD_RANGE_START, IVHD_RANGE_END, IVHD_SELECT, 0x20, 0x10, 0x41 },	/* end before start */
		{ IVHD_RANGE_START, IVHD_EXT_RANGE, IVHD_RANGE_END, 0x10, 0x18, 0x20 }, /* nested */
		{ IVHD_SELECT, IVHD_RANGE_END, IVHD_SELECT, 0x10, 0x20, 0x41 },		/* end, no start */
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		header("IVRS", 12);
		size_t h = ivhd(0x10, 2, 0xfeb80000);
		put8(cases[i].a), put16(cases[i].da), put8(0);
		if (cases[i].b == IVHD_EXT_RANGE)
			put8(cases[i].b), put16(cases[i].db), put8(0), put32(0);
		else
			entry4(cases[i].b, cases[i].db);
		entry4(cases[i].c, cases[i].dc);
		ivhd_end(h);
		expect(1, 0);
	}
	/* a sound alias range, and one after another closed range */
	header("IVRS", 12);
	size_t h = ivhd(0x10, 2, 0xfeb80000);
	put8(IVHD_ALIAS_RANGE), put16(0x0100), put8(0), put8(0), put16(0x00f8), put8(0);
	entry4(IVHD_RANGE_END, 0x0107);
	entry4(IVHD_RANGE_START, 0x0200), entry4(IVHD_RANGE_END, 0x0200);
	ivhd_end(h);
	expect(0, 0);
}

/* Special entries Linux refuses (an error: its whole initialisation
 * fails) and ACPI device entries it ignores or doubts (warnings). */
static void ivrs_special_and_acpi_devices(void **state)
{
	(void)state;
	header("IVRS", 12);
	size_t h = ivhd(0x40, 2, 0xfeb80000);
	put8(IVHD_SPECIAL), put16(0), put8(0), put8(1), put16(0x00a0), put8(3);
	ivhd_end(h);
	expect(1, 0);

	static const struct {
		uint8_t block, uid_format, uid_length;
		const char *hid;
		unsigned warnings;
	} cases[] = {
		{ 0x40, IVHD_UID_STRING, 4, "AMDI0020", 0 },
		{ 0x11, IVHD_UID_STRING, 4, "AMDI0020", 1 },
		{ 0x40, IVHD_UID_STRING, 4, "\0\0\0\0\0\0\0", 1 },
		{ 0x40, IVHD_UID_NONE, 4, "AMDI0020", 1 },
		{ 0x40, 5, 4, "AMDI0020", 1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		header("IVRS", 12);
		h = ivhd(cases[i].block, 2, 0xfeb80000);
		put8(IVHD_ACPI_HID), put16(0x00a5), put8(0), put(cases[i].hid, 8), put64(0), put8(cases[i].uid_format),
		    put8(cases[i].uid_length), put("\\_SB", 4);
		ivhd_end(h);
		expect(0, cases[i].warnings);
	}
}

/* The same IOMMU twice at one type, one IOMMU at two bases, two IOMMUs at
 * one base: errors. 10h and 11h for one unit: sound. */
static void ivrs_duplicate_units(void **state)
{
	(void)state;
	static const struct {
		uint8_t type2;
		uint16_t devid2;
		uint64_t base2;
		unsigned errors;
	} cases[] = {
		{ 0x10, 2, 0xfeb80000, 1 }, { 0x11, 2, 0xfeb84000, 1 },	     { 0x10, 0x4002, 0xfeb80000, 1 },
		{ 0x11, 2, 0xfeb80000, 0 }, { 0x10, 0x4002, 0xfeb84000, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		header("IVRS", 12);
		ivhd_end(ivhd(0x10, 2, 0xfeb80000));
		ivhd_end(ivhd(cases[i].type2, cases[i].devid2, cases[i].base2));
		expect(cases[i].errors, 0);
	}
}

/* Linux uses one IVHD type, the last given for the first unit: a second
 * unit described only by 10h, when the first has 11h, goes unused. */
static void ivrs_unit_missing_linux_type(void **state)
{
	(void)state;
	header("IVRS", 12);
	ivhd_end(ivhd(0x10, 2, 0xfeb80000));
	ivhd_end(ivhd(0x10, 0x4002, 0xfeb90000));
	ivhd_end(ivhd(0x11, 2, 0xfeb80000));
	expect(0, 1);

	header("IVRS", 12);
	ivhd_end(ivhd(0x10, 2, 0xfeb80000));
	ivhd_end(ivhd(0x10, 0x4002, 0xfeb90000));
	ivhd_end(ivhd(0x11, 2, 0xfeb80000));
	ivhd_end(ivhd(0x11, 0x4002, 0xfeb90000));
	expect(0, 0);
}

static void ivrs_memory_definitions(void **state)
{
	(void)state;
	static const struct {
		uint8_t type, flags;
		uint16_t devid, aux;
		uint64_t start, size;
		unsigned errors, warnings;
	} cases[] = {
		{ 0x21, IVMD_UNITY | IVMD_IR | IVMD_IW, 0x10, 0, 0x7b000000, 0x10000, 0, 0 },
		{ 0x22, IVMD_EXCLUSION, 0x10, 0x20, 0x7b000000, 0x10000, 0, 0 },
		{ 0x21, 0x10 | IVMD_UNITY, 0x10, 0, 0x7b000000, 0x10000, 0, 1 },	/* reserved flag */
		{ 0x21, IVMD_IR | IVMD_IW, 0x10, 0, 0x7b000000, 0x10000, 0, 1 },	/* no effect */
		{ 0x21, IVMD_EXCLUSION | IVMD_IR, 0x10, 0, 0x7b000000, 0x10000, 0, 1 }, /* IR without unity */
		{ 0x21, IVMD_UNITY, 0x10, 0, 0xfffffffffffff000, 0x2000, 1, 0 },	/* wraps */
		{ 0x21, IVMD_UNITY, 0x10, 0, 0, UINT64_MAX, 1, 0 },			/* everything */
		{ 0x21, IVMD_UNITY, 0x10, 0, 0xffffffffffffe000, 0x2000, 1, 0 },	/* to the last byte */
		{ 0x21, IVMD_UNITY, 0x10, 0, 0xffffffffffffe000, 0x1000, 0, 0 },	/* just below */
		{ 0x21, IVMD_UNITY, 0x10, 0, 0x7b000000, 0, 0, 1 },			/* empty */
		{ 0x22, IVMD_UNITY, 0x20, 0x10, 0x7b000000, 0x10000, 1, 0 },		/* devices backwards */
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		header("IVRS", 12);
		ivmd(cases[i].type, cases[i].flags, cases[i].devid, cases[i].aux, cases[i].start, cases[i].size);
		expect(cases[i].errors, cases[i].warnings);
		/* what the parser refused is marked, for amdvi_unity_map */
		struct ivrs v;
		ivrs_parse(t, tl, &v);
		assert_int_equal(v.n, 1);
		bool range_bad =
		    cases[i].size == 0 || (unsigned __int128)cases[i].start + cases[i].size > RANGE_TOP_PAGE;
		assert_int_equal(v.b[0].refused, range_bad);
		ivrs_free(&v);
	}
	header("IVRS", 12);
	ivmd(0x20, IVMD_UNITY, 0, 0, 0x7b000000, 0x1000);
	t[48 + 2] = 40; /* longer than the spec's 32 (the walk follows it) */
	tl += 8;
	expect(0, 1);
}

/* The header and the per-IOMMU fields FWTS and Linux look at. */
static void ivrs_header_fields(void **state)
{
	(void)state;
	static const struct {
		uint8_t revision;
		uint32_t ivinfo;
		uint8_t reserved;
		unsigned warnings;
	} cases[] = {
		{ 2, 0x00203040, 0, 0 }, { 3, 0x00203040, 0, 1 }, { 2, 0x01203040, 0, 1 }, { 2, 0x00203044, 0, 1 },
		{ 2, 0x00200040, 0, 1 }, { 2, 0x00233040, 0, 1 }, { 2, 0x00203020, 0, 1 }, { 2, 0x00203040, 1, 1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		header("IVRS", 12);
		t[8] = cases[i].revision;
		memcpy(t + 36, &cases[i].ivinfo, 4);
		t[44] = cases[i].reserved;
		ivhd_end(ivhd(0x10, 2, 0xfeb80000));
		expect(0, cases[i].warnings);
	}
	header("IVRS", 12);
	t[8] = 1; /* 40h needs revision 2 */
	ivhd_end(ivhd(0x40, 2, 0xfeb80000));
	expect(0, 1);

	header("IVRS", 12);
	size_t h = ivhd(0x11, 2, 0xfeb80000);
	memcpy(t + h + 24, &(uint64_t){ 3ull << 10 }, 8); /* EFR HATS 11b */
	ivhd_end(h);
	expect(0, 1);

	header("IVRS", 12);
	h = ivhd(0x10, 2, 0xfeb80000);
	t[h + 18] = 0x20; /* IOMMU info bit 5: reserved */
	t[h + 6] = 0x41;  /* capability offset: not dword aligned */
	ivhd_end(h);
	expect(0, 2);
}

/* The header's own lies: a wrong signature and a length past the buffer
 * are errors; a block type the parser does not know is skipped by its
 * length with a warning (six real tables carry a 51h block). */
static void ivrs_header_lies(void **state)
{
	(void)state;
	header("IVRS", 12);
	t[3] = 'X';
	ivhd_end(ivhd(0x10, 2, 0xfeb80000));
	expect(1, 0);

	header("IVRS", 12);
	ivhd_end(ivhd(0x10, 2, 0xfeb80000));
	seal();
	memcpy(t + 4, &(uint32_t){ (uint32_t)tl + 16 }, 4);
	struct ivrs v;
	ivrs_parse(t, tl, &v);
	assert_int_equal(v.diag.errors, 1);
	assert_int_equal(v.n, 1);
	ivrs_free(&v);

	header("IVRS", 12);
	ivhd_end(ivhd(0x10, 2, 0xfeb80000));
	put8(0x51), put8(0), put16(8), put32(0);
	ivmd(0x21, IVMD_UNITY, 0x10, 0, 0x7b000000, 0x1000);
	seal();
	ivrs_parse(t, tl, &v);
	assert_int_equal(v.diag.errors, 0);
	assert_int_equal(v.diag.warnings, 1);
	assert_int_equal(v.n, 2); /* the IVMD after it is still read */
	ivrs_free(&v);
}

/* Within one IVHD: a select repeated, ranges repeated or overlapping are
 * warnings naming both entries; the same ids in two IVHDs, or ranges that
 * only touch, are not. */
static void ivrs_repeated_entries(void **state)
{
	(void)state;
	struct ivrs v;
	header("IVRS", 12);
	size_t h = ivhd(0x10, 2, 0xfeb80000); /* entries from 0x48 */
	entry4(IVHD_SELECT, 0x10), entry4(IVHD_SELECT, 0x18), entry4(IVHD_SELECT, 0x10);
	ivhd_end(h);
	h = ivhd(0x10, 0x4002, 0xfeb90000);
	entry4(IVHD_SELECT, 0x10);
	ivhd_end(h);
	expect(0, 1);
	ivrs_parse(t, tl, &v);
	assert_non_null(diag_with(&v.diag, "select of 00:02.0 at 0x50", "the one at 0x48"));
	ivrs_free(&v);

	header("IVRS", 12);
	h = ivhd(0x10, 2, 0xfeb80000);
	entry4(IVHD_RANGE_START, 0x08), entry4(IVHD_RANGE_END, 0x0ff);	/* 0x48 */
	entry4(IVHD_RANGE_START, 0x100), entry4(IVHD_RANGE_END, 0x1ff); /* 0x50: touches it, fine */
	entry4(IVHD_RANGE_START, 0x80), entry4(IVHD_RANGE_END, 0x87);	/* 0x58: inside the first */
	entry4(IVHD_RANGE_START, 0x100), entry4(IVHD_RANGE_END, 0x1ff); /* 0x60: the second again */
	ivhd_end(h);
	expect(0, 2);
	ivrs_parse(t, tl, &v);
	assert_non_null(diag_with(&v.diag, "range 00:10.0-00:10.7 at 0x58 overlaps 00:01.0-00:1f.7 at 0x48",
				  "the one at 0x58 wins"));
	assert_non_null(diag_with(&v.diag, "range 01:00.0-01:1f.7 at 0x60 repeats the one at 0x50", NULL));
	ivrs_free(&v);

	header("IVRS", 12);
	h = ivhd(0x10, 2, 0xfeb80000);
	put8(IVHD_ALIAS_RANGE), put16(0x100), put8(0), put8(0), put16(0xa0), put8(0); /* 0x48 */
	entry4(IVHD_RANGE_END, 0x1ff);
	entry4(IVHD_RANGE_START, 0x000), entry4(IVHD_RANGE_END, 0xfffe); /* 0x54 */
	ivhd_end(h);
	expect(0, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ivrs_valid),
		cmocka_unit_test(ivrs_truncated_everywhere),
		cmocka_unit_test(ivrs_unknown_entry_and_zero_block),
		cmocka_unit_test(ivrs_acpi_hid_entry),
		cmocka_unit_test(ivrs_range_forms),
		cmocka_unit_test(ivrs_entry_lengths),
		cmocka_unit_test(ivrs_block_lengths),
		cmocka_unit_test(ivrs_range_pairs),
		cmocka_unit_test(ivrs_special_and_acpi_devices),
		cmocka_unit_test(ivrs_duplicate_units),
		cmocka_unit_test(ivrs_unit_missing_linux_type),
		cmocka_unit_test(ivrs_memory_definitions),
		cmocka_unit_test(ivrs_header_fields),
		cmocka_unit_test(ivrs_header_lies),
		cmocka_unit_test(ivrs_repeated_entries),
	};
	return cmocka_run_group_tests_name("ivrs", tests, NULL, NULL);
}
