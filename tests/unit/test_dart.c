/* The PowerPC DART driver (U3 and U4) against the register-level model. */
#include "unit.h"

#include "core/base/timing.h"
#include "iommu/dart/dart.h"
#include "iommu/dart/model.h"
#include "tests/host/platform_host.h"

static struct dart_model m;
static struct dart d;

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

static void open_dart(bool u4, bool dummy)
{
	dartm_init(&m, u4);
	assert_null(dart_init(&d, &m.win, u4, u4 ? "dart-u4" : "dart-u3", 0, dummy));
	assert_null(d.io.ops->take(&d.io));
}

/* An operation that must fail, with `code` in io->err. */
#define FAILS(call, code) assert_iommu_fails(&d.io, call, code)

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

static void table_programmed_and_translating(void **state)
{
	(void)state;
	for (int u4 = 0; u4 <= 1; u4++) {
		open_dart(u4, false);
		uint64_t base = (uint64_t)(uintptr_t)d.table;
		if (u4) {
			assert_int_equal(m.base, base >> 12);
			assert_int_equal(m.size, 512);
			assert_true(m.cntl & 0x80000000u);
		} else {
			assert_int_equal(m.cntl & 0xfffff000u, base);
			assert_int_equal(m.cntl & 0x1ffu, 511); /* not 512 & 0x1FF = 0: that reading is unverified */
			assert_true(m.cntl & 0x200u);
		}
		assert_int_equal(d.io.addr_bits, 31);
		uint64_t phys;
		assert_null(d.io.ops->map(&d.io, 0x10000, 0x12345000, 4096, IOMMU_R, 4096));
		assert_true(dartm_translate(&m, 0x10010, true, &phys)); /* valid means read and write */
		assert_int_equal(phys, 0x12345010);
		const uint8_t *raw = (const uint8_t *)&d.table[0x10]; /* big-endian: VALID first */
		assert_int_equal(raw[0], 0x80);
		assert_int_equal(raw[3], 0x45);
		/* an invalid entry: refused, EXCP set, read and cleared */
		assert_false(dartm_translate(&m, 0x20000, false, &phys));
		assert_true(d.io.ops->fault_pending(&d.io));
		struct iommu_fault f[2];
		bool ovf;
		assert_int_equal(d.io.ops->faults(&d.io, f, 2, &ovf), 1);
		assert_int_equal(f[0].reason, 0x80000020u);
		assert_false(d.io.ops->fault_pending(&d.io));
		/* the last entry is kept free; 36-bit physical reach */
		FAILS(d.io.ops->map(&d.io, (d.pages * 1024 - 1) * 4096ull, 0, 4096, IOMMU_RW, 4096),
		      IOMMU_ERR_ARGUMENT);
		FAILS(d.io.ops->map(&d.io, ~0xfffull, 0, 4096, IOMMU_RW, 4096), IOMMU_ERR_ARGUMENT);
		assert_null(d.io.ops->map(&d.io, (d.pages * 1024 - 2) * 4096ull, 0, 4096, IOMMU_RW, 4096));
		FAILS(d.io.ops->map(&d.io, 0x30000, 1ull << 36, 4096, IOMMU_RW, 4096), IOMMU_ERR_ARGUMENT);
		FAILS(d.io.ops->attach(&d.io, (struct pci_addr){ 0 }, IOMMU_PASSTHROUGH), IOMMU_ERR_UNSUPPORTED);
		assert_null(d.io.ops->give_back(&d.io));
		assert_int_equal(m.cntl, 0);
		assert_clean();
	}
}

static void stale_until_invalidated(void **state)
{
	(void)state;
	for (int u4 = 0; u4 <= 1; u4++) {
		open_dart(u4, false);
		assert_int_equal(d.io.nkinds, u4 ? 2u : 1u);
		for (size_t k = 0; k < d.io.nkinds; k++) {
			uint64_t phys;
			assert_null(d.io.ops->map(&d.io, 0x50000, 0xa000, 4096, IOMMU_RW, 4096));
			assert_true(dartm_translate(&m, 0x50000, false, &phys));
			assert_null(d.io.ops->unmap(&d.io, 0x50000, 4096));
			assert_null(d.io.ops->map(&d.io, 0x50000, 0xb000, 4096, IOMMU_RW, 4096));
			assert_true(dartm_translate(&m, 0x50000, false, &phys));
			assert_int_equal(phys, 0xa000);
			unsigned flushes = m.flushes, ione = m.ione;
			assert_null(d.io.ops->invalidate(&d.io, k, 0x50000, 4096));
			assert_true(m.flushes + m.ione > flushes + ione);
			assert_true(dartm_translate(&m, 0x50000, false, &phys));
			assert_int_equal(phys, 0xb000);
			assert_null(d.io.ops->unmap(&d.io, 0x50000, 4096));
			assert_null(d.io.ops->invalidate(&d.io, k, 0x50000, 4096));
		}
		assert_null(d.io.ops->give_back(&d.io));
		assert_clean();
	}
}

static void dummy_page_absorbs(void **state)
{
	(void)state;
	open_dart(true, true);
	uint64_t phys;
	assert_true(dartm_translate(&m, 0x60000, true, &phys)); /* nothing mapped, yet it "works" */
	assert_int_equal(phys, (uint64_t)(uintptr_t)d.dummy);
	assert_false(d.io.ops->fault_pending(&d.io));
	assert_string_equal(d.io.variant, "dart-u4-dummy");
	assert_null(d.io.ops->give_back(&d.io));
	assert_clean();
}

static void flush_escalation(void **state)
{
	(void)state;
	open_dart(false, false);
	m.deaf_sets = 1;
	assert_null(d.io.ops->invalidate(&d.io, 0, 0, 0));
	assert_int_equal(d.flush_retries, 1);
	m.flush_stuck = true;
	FAILS(d.io.ops->invalidate(&d.io, 0, 0, 0), IOMMU_ERR_TIMEOUT);
	assert_int_equal(d.flush_retries, 1 + DART_FLUSH_ATTEMPTS);
	m.flush_stuck = false;
	assert_null(d.io.ops->invalidate(&d.io, 0, 0, 0));
	assert_null(d.io.ops->give_back(&d.io));
	/* U4's invalidate-one escalates the same way */
	open_dart(true, false);
	m.flush_stuck = true; /* the model holds IONE too while stuck */
	FAILS(d.io.ops->invalidate(&d.io, 1, 0x1000, 4096), IOMMU_ERR_TIMEOUT);
	m.flush_stuck = false;
	assert_null(d.io.ops->give_back(&d.io));
	/* stuck at the take-over: the DART is given back and the code kept */
	dartm_init(&m, true);
	assert_null(dart_init(&d, &m.win, true, "dart-u4", 0, false));
	m.flush_stuck = true;
	FAILS(d.io.ops->take(&d.io), IOMMU_ERR_TIMEOUT);
	assert_false(d.io.taken);
	assert_clean();
}

static void refusals_and_give_back(void **state)
{
	(void)state;
	dartm_init(&m, true);
	m.base = 0x1234, m.size = 8;
	assert_null(dart_init(&d, &m.win, true, "dart-u4", 512, false));
	assert_null(d.io.ops->take(&d.io));
	assert_null(d.io.ops->give_back(&d.io));
	assert_int_equal(m.base, 0x1234);
	assert_int_equal(m.size, 8);
	m.cntl = 0x80000000u; /* left translating */
	FAILS(d.io.ops->take(&d.io), IOMMU_ERR_FIRMWARE);
	dartm_init(&m, false);
	assert_null(dart_init(&d, &m.win, false, "dart-u3", 512, false));
	m.all_ones = true; /* the DART stops answering after it was found */
	FAILS(d.io.ops->take(&d.io), IOMMU_ERR_UNUSABLE);
	FAILS(dart_init(&d, &m.win, false, "dart-u3", 512, false), IOMMU_ERR_UNUSABLE);
	dartm_init(&m, false);
	FAILS(dart_init(&d, &m.win, false, "dart-u3", 1024, false), IOMMU_ERR_ARGUMENT);
}

/* Under the dummy-page scheme an unmapped IOVA reaches the dummy page,
 * valid: iova_to_phys says nothing is mapped there, and walks a mapped
 * IOVA where the model's DMA goes (test_models checks the invalid-entry
 * scheme on every kind). */
static void walk_under_the_dummy_scheme(void **state)
{
	(void)state;
	open_dart(true, true);
	assert_null(d.io.ops->map(&d.io, 0x11000, 0x23456000, 4096, IOMMU_R, 4096));
	assert_null(d.io.ops->invalidate(&d.io, 0, 0, 0));
	uint64_t phys = 0, page = 0, dma;
	unsigned perm = 0;
	assert_true(dartm_translate(&m, 0x12000, true, &dma)); /* absorbed */
	assert_int_equal(dma, (uint64_t)(uintptr_t)d.dummy);
	assert_false(d.io.ops->iova_to_phys(&d.io, 0x12000, &phys, &perm, &page));
	assert_true(d.io.ops->iova_to_phys(&d.io, 0x11ff8, &phys, &perm, &page));
	assert_true(dartm_translate(&m, 0x11ff8, true, &dma));
	assert_int_equal(phys, dma);
	assert_int_equal(perm, IOMMU_RW); /* no permission bits: valid is read and write */
	assert_int_equal(page, 4096);
	assert_null(d.io.ops->give_back(&d.io));
	assert_clean();
}

/* as_found compares CNTL, BASE and SIZE with the take-over's reading;
 * give-back leaves a note, and what it cannot put back is
 * IOMMU_ERR_RESTORE. */
static void as_found_and_restore(void **state)
{
	(void)state;
	char note[160];
	dartm_init(&m, true);
	m.base = 0x1234, m.size = 8;
	assert_null(dart_init(&d, &m.win, true, "dart-u4", 0, false));
	assert_false(d.io.ops->as_found(&d.io, note, sizeof(note))); /* nothing recorded yet */
	assert_null(d.io.ops->take(&d.io));
	assert_false(d.io.ops->as_found(&d.io, note, sizeof(note))); /* ours now */
	assert_null(d.io.ops->give_back(&d.io));
	assert_true(d.io.restore_note[0] != '\0');
	assert_true(d.io.ops->as_found(&d.io, note, sizeof(note)));
	assert_clean();
	/* a SIZE wider than its field cannot be written back */
	m.size = 0x2000;
	assert_null(d.io.ops->take(&d.io));
	FAILS(d.io.ops->give_back(&d.io), IOMMU_ERR_RESTORE);
	assert_false(d.io.ops->as_found(&d.io, note, sizeof(note)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_programmed_and_translating),
		cmocka_unit_test(stale_until_invalidated),
		cmocka_unit_test(dummy_page_absorbs),
		cmocka_unit_test(flush_escalation),
		cmocka_unit_test(refusals_and_give_back),
		cmocka_unit_test(walk_under_the_dummy_scheme),
		cmocka_unit_test(as_found_and_restore),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
