/* Apple's DART driver against the register-level model: the three layouts
 * and both entry formats, at 16 KiB and 4 KiB granules. */
#include "unit.h"

#include "core/base/timing.h"
#include "iommu/apple_dart/apple_dart.h"
#include "iommu/apple_dart/model.h"
#include "tests/host/platform_host.h"

static struct apple_dart_model m;
static struct apple_dart d;

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

static void open_dart(enum adm_layout l, unsigned shift)
{
	adm_init(&m, l, shift);
	assert_null(apple_dart_init(&d, &m.win, (enum apple_dart_layout)l, "dart", 1));
	assert_null(d.io.ops->take(&d.io));
	struct pci_addr dev = { 0 };
	assert_null(d.io.ops->attach(&d.io, dev, IOMMU_TRANSLATE));
}

/* An operation that must fail, with `code` in io->err. */
#define FAILS(call, code) assert_iommu_fails(&d.io, call, code)

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

static void every_layout_translates(void **state)
{
	(void)state;
	static const unsigned shifts[] = { 14, 12 };
	for (int l = ADM_T8103; l <= ADM_T8110; l++) {
		for (int k = 0; k < (l == ADM_T8103 ? 2 : 1); k++) { /* DART2 entries hold 16 KiB frames */
			unsigned ps = shifts[k];
			uint64_t pg = 1ull << ps;
			open_dart((enum adm_layout)l, ps);
			assert_int_equal(d.io.page_sizes, pg);
			assert_int_equal(d.io.addr_bits, ps + 2 * (ps - 3));
			uint64_t phys, iova = (1ull << d.io.addr_bits) - pg; /* the last page TTBR 0 reaches */
			assert_null(d.io.ops->map(&d.io, iova, 0x40000000, pg, IOMMU_RW, pg));
			assert_null(d.io.ops->map(&d.io, 3 * pg, 0x50000000, pg, IOMMU_R, pg));
			assert_true(adm_translate(&m, 1, iova + 0x123, true, &phys));
			assert_int_equal(phys, 0x40000123);
			assert_true(adm_translate(&m, 1, 3 * pg + 8, false, &phys));
			assert_int_equal(phys, 0x50000008);
			/* no-write: ERROR names the address and the direction */
			assert_false(adm_translate(&m, 1, 3 * pg + 8, true, &phys));
			struct iommu_fault f[2];
			bool ovf;
			assert_int_equal(d.io.ops->faults(&d.io, f, 2, &ovf), 1);
			assert_int_equal(f[0].kind, IOMMU_FAULT_WRITE_DENIED);
			assert_int_equal(f[0].addr, 3 * pg);
			assert_true(f[0].dir_known && !f[0].read);
			/* nothing mapped: a missing entry */
			assert_false(adm_translate(&m, 1, 9 * pg, false, &phys));
			assert_int_equal(d.io.ops->faults(&d.io, f, 2, &ovf), 1);
			assert_int_equal(f[0].kind, IOMMU_FAULT_NOT_PRESENT);
			assert_false(d.io.ops->fault_pending(&d.io));
			/* other streams are left alone */
			assert_int_equal(m.tcr[0], 0);
			assert_null(d.io.ops->give_back(&d.io));
			assert_int_equal(m.tcr[1], 0);
			assert_clean();
		}
	}
}

static void stale_until_invalidated(void **state)
{
	(void)state;
	for (int l = ADM_T8103; l <= ADM_T8110; l++) {
		open_dart((enum adm_layout)l, 14);
		for (size_t k = 0; k < d.io.nkinds; k++) {
			uint64_t phys, pg = 1ull << 14;
			assert_null(d.io.ops->map(&d.io, pg, 0xa0000, pg, IOMMU_RW, pg));
			assert_true(adm_translate(&m, 1, pg, false, &phys));
			assert_null(d.io.ops->unmap(&d.io, pg, pg));
			assert_null(d.io.ops->map(&d.io, pg, 0xb0000, pg, IOMMU_RW, pg));
			assert_true(adm_translate(&m, 1, pg, false, &phys));
			assert_int_equal(phys, 0xa0000);
			assert_null(d.io.ops->invalidate(&d.io, k, pg, pg));
			assert_true(adm_translate(&m, 1, pg, false, &phys));
			assert_int_equal(phys, 0xb0000);
			assert_null(d.io.ops->unmap(&d.io, pg, pg));
			assert_null(d.io.ops->invalidate(&d.io, k, pg, pg));
		}
		assert_null(d.io.ops->give_back(&d.io));
		assert_clean();
	}
}

static void refusals_and_deadlines(void **state)
{
	(void)state;
	adm_init(&m, ADM_T8110, 14);
	m.locked = true;
	assert_null(apple_dart_init(&d, &m.win, APPLE_T8110, "dart", 1));
	FAILS(d.io.ops->take(&d.io), IOMMU_ERR_FIRMWARE);
	m.locked = false;
	m.all_ones = true; /* the DART stops answering after it was found */
	FAILS(d.io.ops->take(&d.io), IOMMU_ERR_UNUSABLE);
	FAILS(apple_dart_init(&d, &m.win, APPLE_T8110, "dart", 1), IOMMU_ERR_UNUSABLE);
	for (int l = ADM_T8103; l <= ADM_T8110; l++) {
		open_dart((enum adm_layout)l, 14);
		m.busy_stuck = true;
		FAILS(d.io.ops->invalidate(&d.io, 0, 0, 0), IOMMU_ERR_TIMEOUT);
		FAILS(d.io.ops->invalidate(&d.io, 1, 0, 0), IOMMU_ERR_TIMEOUT);
		m.busy_stuck = false;
		assert_null(d.io.ops->give_back(&d.io));
	}
	/* bypass: the stream enabled, the DART and its prefetcher bypassed */
	for (int l = ADM_T8103; l <= ADM_T8110; l++) {
		open_dart((enum adm_layout)l, 14);
		struct pci_addr dev = { 0 };
		uint64_t phys;
		assert_null(d.io.ops->attach(&d.io, dev, IOMMU_PASSTHROUGH));
		assert_true(adm_translate(&m, 1, 0x123456, true, &phys));
		assert_int_equal(phys, 0x123456);
		assert_int_equal(m.tcr[1], l == ADM_T8110 ? 6u : (1u << 8 | 1u << 12));
		assert_null(d.io.ops->give_back(&d.io));
		assert_int_equal(m.tcr[1], 0);
		assert_int_equal(m.enabled, 0);
		assert_clean();
	}
	adm_init(&m, ADM_T8103, 13);
	FAILS(apple_dart_init(&d, &m.win, APPLE_T8103, "dart", 1), IOMMU_ERR_UNSUPPORTED);
	adm_init(&m, ADM_T8103, 14);
	FAILS(apple_dart_init(&d, &m.win, APPLE_T8103, "dart", 16), IOMMU_ERR_ARGUMENT);
	adm_init(&m, ADM_T6000, 12);
	FAILS(apple_dart_init(&d, &m.win, APPLE_T6000, "dart", 1), IOMMU_ERR_UNSUPPORTED);
}

/* as_found compares the stream's registers with the take-over's reading;
 * give-back leaves a note, and what it cannot put back (the DART locked
 * meanwhile) is IOMMU_ERR_RESTORE. */
static void as_found_and_restore(void **state)
{
	(void)state;
	char note[160];
	for (int l = ADM_T8103; l <= ADM_T8110; l++) {
		adm_init(&m, (enum adm_layout)l, 14);
		m.error_mask = 0x3;
		assert_null(apple_dart_init(&d, &m.win, (enum apple_dart_layout)l, "dart", 1));
		assert_false(d.io.ops->as_found(&d.io, note, sizeof(note))); /* nothing recorded yet */
		assert_null(d.io.ops->take(&d.io));
		assert_null(d.io.ops->attach(&d.io, (struct pci_addr){ 0 }, IOMMU_TRANSLATE));
		assert_false(d.io.ops->as_found(&d.io, note, sizeof(note)));
		assert_null(d.io.ops->give_back(&d.io));
		assert_true(d.io.restore_note[0] != '\0');
		assert_true(d.io.ops->as_found(&d.io, note, sizeof(note)));
		assert_int_equal(m.error_mask, 0x3); /* T8110: put back; T8020: no such register */
		assert_null(d.io.ops->take(&d.io));
		assert_null(d.io.ops->attach(&d.io, (struct pci_addr){ 0 }, IOMMU_TRANSLATE));
		m.locked = true;
		FAILS(d.io.ops->give_back(&d.io), IOMMU_ERR_RESTORE);
		assert_false(d.io.ops->as_found(&d.io, note, sizeof(note)));
		assert_clean();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_layout_translates),
		cmocka_unit_test(stale_until_invalidated),
		cmocka_unit_test(refusals_and_deadlines),
		cmocka_unit_test(as_found_and_restore),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
