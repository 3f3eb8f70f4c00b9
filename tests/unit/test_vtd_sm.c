/* The VT-d driver in scalable mode against the model (model_sm.c): each
 * translation type taken over, translating at every leaf size and given
 * back as found; first-stage A and D bits set by the walk; a 5-level
 * first-stage walk; every invalidation kind of each mode ending a stale
 * entry, with the model strict about which descriptor covers which stage;
 * the PASID entry stale until its PASID-cache invalidation; the
 * scalable-mode fault reasons; and a unit without scalable mode refusing
 * it by name. */
#include "unit.h"

#include "core/base/macros.h"
#include "core/base/timing.h"
#include "iommu/vtd/caps.h"
#include "iommu/vtd/model.h"
#include "iommu/vtd/vtd.h"
#include "pci/dma.h"
#include "tests/host/platform_host.h"

static struct vtd_model m;
static struct vtd v;
static const uint16_t sid = 0x0100;

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

static void open_mode(const char *mode, unsigned fs_levels)
{
	vtdm_init(&m, VTDM_SM_CAP, VTDM_SM_ECAP);
	memset(&v, 0, sizeof(v));
	v.want_fs_levels = fs_levels;
	assert_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
	assert_null(v.io.ops->mode(&v.io, mode));
	assert_null(v.io.ops->take(&v.io));
	assert_null(v.io.ops->attach(&v.io, (struct pci_addr){ 0, 1, 0, 0 }, IOMMU_TRANSLATE));
}

static void close_clean(void)
{
	assert_null(v.io.ops->give_back(&v.io));
	assert_int_equal(m.gsts & (1u << 31), 0);
	assert_int_equal(m.rtaddr, 0); /* the firmware's (none) again, TTM legacy */
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.oneshot_writes, 0);
	assert_int_equal(m.reg_while_queued, 0);
	assert_int_equal(m.narrow_in_sm, 0);
	assert_int_equal(m.forbidden, 0);
}

static const char *const modes[] = { "scalable-second-stage", "scalable-first-stage", "scalable-nested" };

static void every_mode_translates_every_leaf(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(modes); k++) {
		open_mode(modes[k], 4);
		assert_true(v.scalable);
		assert_string_equal(v.io.variant, modes[k]);
		assert_int_equal(m.root & (3ull << 10), 1ull << 10); /* RTADDR.TTM 01 latched */
		assert_true(m.iqa & (1ull << 11));		     /* 256-bit descriptors */
		assert_int_equal(v.io.page_sizes, (1ull << 12) | (1ull << 21) | (1ull << 30));
		for (uint64_t page = 1ull << 12, n = 1; page <= 1ull << 30; page <<= 9, n++) {
			uint64_t iova = n << 32, phys; /* a fresh 1 GiB-aligned range for each size */
			const char *e = v.io.ops->map(&v.io, iova, 0x80000000ull, page, IOMMU_RW, page);
			if (e)
				fail_msg("%s, %llx: %s", modes[k], (unsigned long long)page, e);
			if (!vtdm_translate(&m, sid, iova + page / 2, true, &phys)) {
				struct iommu_fault f[2];
				v.io.ops->faults(&v.io, f, 2, &(bool){ false });
				fail_msg("%s, %llx: %s", modes[k], (unsigned long long)page, f[0].why);
			}
			assert_int_equal(phys, 0x80000000ull + page / 2);
			assert_null(v.io.ops->unmap(&v.io, iova, page));
			assert_null(v.io.ops->invalidate(&v.io, v.io.nkinds - 1, 0, 0));
			assert_false(vtdm_translate(&m, sid, iova, false, &phys));
		}
		/* the bystanders keep their way (pass-through: ECAP.PT) */
		uint64_t phys;
		assert_true(vtdm_translate(&m, 0x0200, 0x123000, true, &phys));
		assert_int_equal(phys, 0x123000);
		v.io.ops->faults(&v.io, (struct iommu_fault[4]){ 0 }, 4, &(bool){ false });
		close_clean();
	}
}

/* The leaf's entry and the ones above it, as the driver's tables hold them. */
static void fs_entries(uint64_t iova, uint64_t *e[5], unsigned levels)
{
	uint64_t *t = v.dut.top;
	for (unsigned l = levels; l >= 1; l--) {
		e[l - 1] = &t[(iova >> (12 + 9 * (l - 1))) & 511];
		t = (uint64_t *)(uintptr_t)(*e[l - 1] & VTD_FS_ADDR);
	}
}

static void first_stage_accessed_and_dirty(void **state)
{
	(void)state;
	for (unsigned levels = 4; levels <= 5; levels++) {
		open_mode("scalable-first-stage", levels);
		assert_int_equal(v.fscfg.levels, levels);
		assert_int_equal(v.io.addr_bits, levels == 5 ? 56 : 47);
		uint64_t iova = levels == 5 ? 0x00ab000000000000ull : 0x0000700000000000ull, phys;
		assert_null(v.io.ops->map(&v.io, iova, 0x5000, 4096, IOMMU_RW, 4096));
		uint64_t *e[5];
		fs_entries(iova, e, levels);
		for (unsigned l = 0; l < levels; l++)
			assert_int_equal(*e[l] & (VTD_FS_A | VTD_FS_D), 0);
		assert_true(vtdm_translate(&m, sid, iova, false, &phys));
		for (unsigned l = 0; l < levels; l++)
			assert_true(*e[l] & VTD_FS_A);
		assert_int_equal(*e[0] & VTD_FS_D, 0); /* read: not dirty */
		assert_null(v.io.ops->invalidate(&v.io, 1, iova, 4096));
		assert_true(vtdm_translate(&m, sid, iova, true, &phys));
		assert_true(*e[0] & VTD_FS_D);
		assert_int_equal(phys, 0x5000);
		/* not canonical: beyond the walk's lower half */
		assert_false(vtdm_translate(&m, sid, 1ull << (levels == 5 ? 56 : 47), false, &phys));
		struct iommu_fault f[2];
		bool ovf;
		assert_int_equal(v.io.ops->faults(&v.io, f, 2, &ovf), 1);
		assert_int_equal(f[0].reason, 0x80);
		close_clean();
	}
}

/* Every kind each mode offers ends the stale entry (the model drops
 * first-stage entries only for the PASID-based IOTLB's descriptors). */
static void stale_until_each_kind(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(modes); k++) {
		open_mode(modes[k], 4);
		assert_int_equal(v.io.nkinds, 3); /* queued page, domain, global: no register kinds */
		for (size_t kind = 0; kind < v.io.nkinds; kind++) {
			uint64_t iova = 0x7ffff7000ull, phys;
			assert_null(v.io.ops->map(&v.io, iova, 0xa000, 4096, IOMMU_RW, 4096));
			if (!vtdm_translate(&m, sid, iova, true, &phys)) {
				struct iommu_fault f[2];
				v.io.ops->faults(&v.io, f, 2, &(bool){ false });
				fail_msg("%s kind %zu: %s", modes[k], kind, f[0].why);
			}
			assert_null(v.io.ops->unmap(&v.io, iova, 4096));
			assert_null(v.io.ops->map(&v.io, iova, 0xb000, 4096, IOMMU_RW, 4096));
			assert_true(vtdm_translate(&m, sid, iova, true, &phys));
			assert_int_equal(phys, 0xa000);
			assert_null(v.io.ops->invalidate(&v.io, kind, iova, 4096));
			assert_true(vtdm_translate(&m, sid, iova, true, &phys));
			assert_int_equal(phys, 0xb000);
			assert_null(v.io.ops->unmap(&v.io, iova, 4096));
			assert_null(v.io.ops->invalidate(&v.io, 2, 0, 0));
		}
		if (k > 0)
			assert_true(m.piotlb_invalidations > 0);
		close_clean();
	}
}

static void pasid_entry_stale_until_pasid_cache(void **state)
{
	(void)state;
	static const enum vtd_pc_g g[] = { VTD_PC_GLOBAL, VTD_PC_DOMAIN, VTD_PC_PASID };
	for (size_t k = 0; k < ARRAY_SIZE(g); k++) {
		open_mode("scalable-first-stage", 4);
		uint64_t iova = 0x200000, phys;
		assert_null(v.io.ops->map(&v.io, iova, 0xa000, 4096, IOMMU_RW, 4096));
		assert_true(vtdm_translate(&m, sid, iova, true, &phys));
		assert_int_equal(phys, 0xa000);
		assert_null(vtd_pasid_swap(&v, iova, 0xb000, NULL, 0));
		assert_true(vtdm_translate(&m, sid, iova, true, &phys));
		assert_int_equal(phys, 0xa000); /* the cached PASID entry: the old domain's tables */
		unsigned pcs = m.pc_invalidations;
		assert_null(vtd_pasid_invalidate(&v, g[k]));
		assert_true(m.pc_invalidations > pcs);
		assert_true(vtdm_translate(&m, sid, iova, true, &phys));
		assert_int_equal(phys, 0xb000);
		close_clean();
	}
}

static void scalable_fault_reasons(void **state)
{
	(void)state;
	struct {
		const char *mode;
		unsigned not_present, read_only;
	} want[] = { { "scalable-first-stage", 0x71, 0x85 }, { "scalable-second-stage", 0x86, 0x85 } };
	for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
		open_mode(want[k].mode, 4);
		uint64_t phys;
		assert_null(v.io.ops->map(&v.io, 0x300000, 0xc000, 4096, IOMMU_R, 4096));
		assert_false(vtdm_translate(&m, sid, 0x300000, true, &phys));
		assert_false(vtdm_translate(&m, sid, 0x400000, false, &phys));
		struct iommu_fault f[4];
		bool ovf;
		assert_int_equal(v.io.ops->faults(&v.io, f, 4, &ovf), 2);
		assert_int_equal(f[0].reason, want[k].read_only);
		assert_int_equal(f[0].kind, IOMMU_FAULT_WRITE_DENIED);
		assert_int_equal(f[1].reason, want[k].not_present);
		assert_int_equal(f[1].kind, IOMMU_FAULT_NOT_PRESENT);
		assert_int_equal(f[1].sid, sid);
		assert_false(f[1].pasid_present); /* requests without a PASID */
		assert_non_null(strstr(f[1].why, "SM: "));
		/* a first-stage page is never write-only */
		if (k == 0) {
			assert_non_null(v.io.ops->map(&v.io, 0x500000, 0xd000, 4096, IOMMU_W, 4096));
			assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
		}
		close_clean();
	}
	assert_string_equal(vtd_fault_reason(0x59), "SM: PASID table entry not present");
}

/* QEMU 7.2's unit offers legacy mode only: scalable mode refused by name,
 * and the legacy kinds (registers too) kept. */
static void legacy_unit_refuses_scalable(void **state)
{
	(void)state;
	vtdm_init(&m, VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	memset(&v, 0, sizeof(v));
	assert_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
	assert_int_equal(v.io.nmodes, 1);
	assert_non_null(v.io.ops->mode(&v.io, "scalable-first-stage"));
	assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_non_null(v.io.ops->mode(&v.io, "no-such-mode"));
	assert_int_equal(v.io.err, IOMMU_ERR_ARGUMENT);
	assert_null(v.io.ops->mode(&v.io, NULL));
	assert_int_equal(v.io.nkinds, 6);
	assert_null(v.io.variant);
	/* the scalable model offers all four */
	vtdm_init(&m, VTDM_SM_CAP, VTDM_SM_ECAP);
	memset(&v, 0, sizeof(v));
	assert_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
	assert_int_equal(v.io.nmodes, 4);
	assert_true(v.rps);
	assert_int_not_equal(v.rid_pasid, 0); /* RID_PASID other than 0 where ECAP.RPS */
	assert_int_equal(v.pdts, 7);	      /* 20-bit PASIDs: a directory of 2^14 entries */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_mode_translates_every_leaf),
		cmocka_unit_test(first_stage_accessed_and_dirty),
		cmocka_unit_test(stale_until_each_kind),
		cmocka_unit_test(pasid_entry_stale_until_pasid_cache),
		cmocka_unit_test(scalable_fault_reasons),
		cmocka_unit_test(legacy_unit_refuses_scalable),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
