/* The VT-d driver against the register-level model: take-over and give
 * back, translation at every leaf size, faults decoded, stale entries
 * until each kind of invalidation, the queue error, refusals, and named
 * errors when the hardware never answers. The model also fails the driver
 * for wrong access widths, stray one-shot GCMD bits, or register-based
 * invalidation while the queue is on. */
#include "unit.h"

#include "core/base/macros.h"
#include "core/base/memmap.h"
#include "core/base/timing.h"
#include "core/monitor/settings.h"
#include "iommu/vtd/caps.h"
#include "iommu/vtd/model.h"
#include "iommu/vtd/vtd.h"
#include "tests/host/platform_host.h"

#define ECAP_PT (1ull << 6)
#define CAP_CM (1ull << 7)
#define SAGAW_48 (4ull << 8)

static struct vtd_model m;
static struct vtd v;

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull; /* deadlines near their real length on any host */
	return 0;
}

static void open_unit(uint64_t cap, uint64_t ecap)
{
	vtdm_init(&m, cap, ecap);
	memset(&v, 0, sizeof(v));
	assert_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
}

/* The driver kept every rule the model checks. */
static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.oneshot_writes, 0);
	assert_int_equal(m.reg_while_queued, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

static void take_and_attach(uint16_t sid)
{
	assert_null(v.io.ops->take(&v.io));
	struct pci_addr a = { .bus = (uint8_t)(sid >> 8), .dev = (uint8_t)((sid >> 3) & 31), .fn = (uint8_t)(sid & 7) };
	assert_null(v.io.ops->attach(&v.io, a, IOMMU_TRANSLATE));
}

static void translates_every_leaf_size(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	assert_int_equal(v.levels, 3);
	assert_int_equal(v.io.page_sizes, (1ull << 12) | (1ull << 21) | (1ull << 30));
	take_and_attach(0x0100);
	assert_true(m.gsts & VTD_GCMD_TE);
	assert_int_equal(m.root, (uint64_t)(uintptr_t)v.root);
	uint64_t phys;
	/* a bystander passes through */
	assert_true(vtdm_translate(&m, 0x0008, 0x12345678, true, &phys));
	assert_int_equal(phys, 0x12345678);
	/* the device under test sees only what is mapped */
	assert_null(v.io.ops->map(&v.io, 0x7ffffff000ull, 0x3e091000, 4096, IOMMU_RW, 4096));
	assert_non_null(strstr(v.io.ops->map(&v.io, 0x7fffe00000ull, 0x40000000, 2u << 20, IOMMU_R, 2u << 20),
			       "smaller pages already map"));
	assert_null(v.io.ops->map(&v.io, 0x7fffc00000ull, 0x40000000, 2u << 20, IOMMU_R, 2u << 20));
	assert_null(v.io.ops->map(&v.io, 0x7f80000000ull, 0x80000000, 1u << 30, IOMMU_W, 1u << 30));
	assert_true(vtdm_translate(&m, 0x0100, 0x7ffffff123ull, true, &phys));
	assert_int_equal(phys, 0x3e091123);
	assert_true(vtdm_translate(&m, 0x0100, 0x7fffc01234ull, false, &phys));
	assert_int_equal(phys, 0x40001234);
	assert_true(vtdm_translate(&m, 0x0100, 0x7f80345678ull, true, &phys));
	assert_int_equal(phys, 0x80345678);
	/* the software walk agrees, with the leaf level */
	uint64_t wp;
	unsigned perm, level;
	assert_true(vtd_walk(&v, &v.dut, 0x7fffc01234ull, &wp, &perm, &level));
	assert_int_equal(wp, 0x40001234);
	assert_int_equal(level, 2);
	assert_int_equal(perm, IOMMU_R);
	/* overlapping leaves and bad sizes are refused by name */
	assert_non_null(strstr(v.io.ops->map(&v.io, 0x7fffc00000ull, 0, 4096, IOMMU_RW, 4096), "larger page"));
	assert_non_null(strstr(v.io.ops->map(&v.io, 0x1000, 0, 8192, IOMMU_RW, 8192), "no leaves of that size"));
	assert_non_null(strstr(v.io.ops->map(&v.io, 1ull << 39, 0, 4096, IOMMU_RW, 4096), "MGAW"));
	assert_null(v.io.ops->give_back(&v.io));
	assert_false(m.gsts & VTD_GCMD_TE);
	assert_clean();
}

static void faults_decoded_and_cleared(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	take_and_attach(0x0318);
	assert_null(v.io.ops->map(&v.io, 0x5000, 0x9000, 4096, IOMMU_R, 4096));
	uint64_t phys;
	assert_false(vtdm_translate(&m, 0x0318, 0x5abc, true, &phys));	 /* write to read-only */
	assert_false(vtdm_translate(&m, 0x0318, 0x77000, false, &phys)); /* not present */
	assert_true(v.io.ops->fault_pending(&v.io));
	struct iommu_fault f[4];
	bool ovf;
	size_t n = v.io.ops->faults(&v.io, f, 4, &ovf);
	assert_int_equal(n, 2);
	assert_false(ovf);
	assert_int_equal(f[0].sid, 0x0318);
	assert_int_equal(f[0].reason, 5);
	assert_false(f[0].read);
	assert_int_equal(f[0].addr, 0x5000);
	assert_int_equal(f[1].reason, 6);
	assert_true(f[1].read);
	assert_int_equal(f[1].addr, 0x77000);
	assert_non_null(strstr(f[0].why, "write permission"));
	assert_false(v.io.ops->fault_pending(&v.io));
	/* more faults than records: overflow is reported and cleared */
	for (unsigned i = 0; i < VTDM_NFR + 2; i++)
		vtdm_translate(&m, 0x0318, 0x100000 + i * 4096ull, false, &phys);
	n = v.io.ops->faults(&v.io, f, 4, &ovf);
	assert_int_equal(n, VTDM_NFR);
	assert_true(ovf);
	assert_int_equal(m.fsts & 3u, 0);
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

/* Each kind: the stale entry is served until that invalidation runs. */
static void stale_until_each_invalidation(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	for (size_t k = 0; k < v.io.nkinds; k++) {
		take_and_attach(0x0100);
		uint64_t iova = 0x7ffff7000ull, phys;
		assert_null(v.io.ops->map(&v.io, iova, 0xa000, 4096, IOMMU_RW, 4096));
		assert_true(vtdm_translate(&m, 0x0100, iova, true, &phys));
		assert_null(v.io.ops->unmap(&v.io, iova, 4096));
		assert_null(v.io.ops->map(&v.io, iova, 0xb000, 4096, IOMMU_RW, 4096));
		assert_true(vtdm_translate(&m, 0x0100, iova, true, &phys));
		assert_int_equal(phys, 0xa000); /* stale */
		assert_null(v.io.ops->invalidate(&v.io, k, iova, 4096));
		assert_true(vtdm_translate(&m, 0x0100, iova, true, &phys));
		assert_int_equal(phys, 0xb000);
		if (strcmp(v.io.kinds[k].granularity, "page") == 0) {
			assert_int_equal(m.last_psi_addr, iova);
			assert_int_equal(m.last_psi_am, 0);
		}
		assert_null(v.io.ops->give_back(&v.io));
	}
	assert_true(m.waits > 0);
	assert_clean();
}

/* A range across an alignment boundary needs a mask that covers it all. */
static void page_invalidation_covers_the_range(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	take_and_attach(0x0100);
	uint64_t phys;
	for (uint64_t p = 7; p <= 9; p++) {
		assert_null(v.io.ops->map(&v.io, p << 12, 0xa000, 4096, IOMMU_RW, 4096));
		assert_true(vtdm_translate(&m, 0x0100, p << 12, false, &phys));
		assert_null(v.io.ops->unmap(&v.io, p << 12, 4096));
		assert_null(v.io.ops->map(&v.io, p << 12, 0xb000, 4096, IOMMU_RW, 4096));
	}
	assert_null(v.io.ops->invalidate(&v.io, 0, 7 << 12, 3 << 12));
	for (uint64_t p = 7; p <= 9; p++) {
		assert_true(vtdm_translate(&m, 0x0100, p << 12, false, &phys));
		assert_int_equal(phys, 0xb000);
	}
	assert_int_equal(m.last_psi_addr, 0);
	assert_int_equal(m.last_psi_am, 4);
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

/* A device moved to another domain keeps using the cached context entry,
 * and what it translates through it, until the context cache and the old
 * domain's IOTLB are invalidated: by register and through the queue. */
static void context_stale_until_invalidated(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	for (int queued = 0; queued <= 1; queued++) {
		take_and_attach(0x0100);
		uint64_t iova = 0x7ffff7000ull, phys;
		assert_null(v.io.ops->map(&v.io, iova, 0xa000, 4096, IOMMU_RW, 4096));
		assert_true(vtdm_translate(&m, 0x0100, iova, true, &phys));
		assert_null(vtd_context_swap(&v, iova, 0xb000, NULL, 0));
		assert_true(vtdm_translate(&m, 0x0100, iova, true, &phys));
		assert_int_equal(phys, 0xa000); /* the cached context still leads to the old tables */
		unsigned ctx_before = m.ctx_invalidations;
		assert_null(vtd_context_invalidate(&v, queued));
		assert_true(m.ctx_invalidations > ctx_before);
		assert_true(vtdm_translate(&m, 0x0100, iova, true, &phys));
		assert_int_equal(phys, 0xb000);
		assert_int_equal(!!(m.gsts & VTD_GCMD_QIE), queued);
		assert_null(v.io.ops->give_back(&v.io));
	}
	assert_clean();
}

/* What a live take-over cannot keep is refused before any write: the
 * firmware's scalable-mode tables (copying them entry by entry is what a
 * live take-over does), a running queue of 256-bit descriptors. */
static void refuses_what_it_cannot_keep(void **state)
{
	(void)state;
	static uint64_t root[512] __attribute__((aligned(4096)));
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	m.gsts = VTD_GCMD_TE | VTD_GCMD_SRTP;
	m.rtaddr = m.root = (uint64_t)(uintptr_t)root | 1ull << 10;
	unsigned writes = m.writes;
	const char *why = v.io.ops->take(&v.io);
	assert_non_null(why);
	assert_non_null(strstr(why, "scalable-mode tables"));
	assert_int_equal(v.io.err, IOMMU_ERR_FIRMWARE);
	assert_int_equal(m.writes, writes);
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	m.gsts = VTD_GCMD_QIE;
	m.iqa = (uint64_t)(uintptr_t)root | 1ull << 11;
	why = v.io.ops->take(&v.io);
	assert_non_null(why);
	assert_int_equal(v.io.err, IOMMU_ERR_FIRMWARE);
	assert_int_equal(m.writes, 0);
}

static void gives_back_what_the_firmware_left(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	m.gsts = VTD_GCMD_SRTP; /* a root pointer latched, translation off */
	m.rtaddr = m.root = 0xabc000;
	m.fedata = 0x55, m.feaddr = 0xfee01000;
	take_and_attach(0x0100);
	assert_true(m.fectl == 0 || v.vector < 0); /* unmasked only with a handler */
	assert_null(v.io.ops->give_back(&v.io));
	assert_int_equal(m.rtaddr, 0xabc000);
	assert_int_equal(m.root, 0xabc000);
	assert_int_equal(m.fedata, 0x55);
	assert_int_equal(m.feaddr, 0xfee01000);
	assert_int_equal(m.fectl, VTD_FECTL_IM);
	char note[200];
	assert_true(vtd_as_found(&v, note, sizeof(note)));
	/* a second take-over in the session compares against the firmware's
	 * state, not the last give-back's */
	assert_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
	assert_true(v.found_valid);
	m.fedata = 0x66; /* as if someone else changed it meanwhile */
	assert_false(vtd_as_found(&v, note, sizeof(note)));
	assert_non_null(strstr(note, "FEDATA 0x66 (was 0x55)"));
	assert_clean();
}

static void hardware_that_never_answers(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	m.stuck_gsts = VTD_GCMD_TE;
	const char *why = v.io.ops->take(&v.io);
	assert_non_null(why);
	assert_string_equal(why, "vtd: GSTS.TES not set within 100 ms of enabling translation");
	assert_false(v.io.taken); /* and everything put back */
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	m.ignore_ccmd = true;
	why = v.io.ops->take(&v.io);
	assert_non_null(why);
	assert_non_null(strstr(why, "CCMD.ICC still set 100 ms after an invalidation"));
	assert_false(v.io.taken);
	/* a queue that refuses everything: a named error, not a loop */
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	take_and_attach(0x0100);
	m.refuse_queue = true;
	why = v.io.ops->invalidate(&v.io, 5, 0, 0);
	assert_non_null(why);
	assert_non_null(strstr(why, "keeps reporting errors"));
	m.refuse_queue = false;
	v.io.ops->give_back(&v.io);
	vtdm_init(&m, VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	m.all_ones = true;
	memset(&v, 0, sizeof(v));
	assert_non_null(strstr(vtd_init(&v, &m.win, "model0", NULL, NULL, 0), "all ones"));
}

static void identity_domain_without_pass_through(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP & ~ECAP_PT);
	take_and_attach(0x0100);
	assert_false(v.bystanders_pt);
	uint64_t phys;
	assert_true(vtdm_translate(&m, 0x0008, 0x12345678, true, &phys));
	assert_int_equal(phys, 0x12345678);
	assert_true(vtdm_translate(&m, 0x0008, v.ident_top - 8, false, &phys));
	assert_false(vtdm_translate(&m, 0x0008, v.ident_top + 0x1000, false, &phys));
	struct pci_addr a = { .bus = 1 };
	assert_non_null(strstr(v.io.ops->attach(&v.io, a, IOMMU_PASSTHROUGH), "no pass-through"));
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

/* An RMRR naming the device under test is identity-mapped in its domain;
 * with identity bystanders every RMRR is in the identity domain too, even
 * above the top of RAM; one naming another device stays out of the
 * device's domain. */
static void rmrr_ranges_identity_mapped(void **state)
{
	(void)state;
	struct pci_dev devs[2] = { { .addr = { 0, 1, 0, 0 } }, { .addr = { 0, 2, 0, 0 } } };
	struct pci_list pci = { .d = devs, .n = 2 };
	struct dmar_scope sc[2] = { { .type = DMAR_SCOPE_ENDPOINT, .start_bus = 1, .npath = 1 },
				    { .type = DMAR_SCOPE_ENDPOINT, .start_bus = 2, .npath = 1 } };
	struct dmar_struct rm[2] = {
		{ .type = DMAR_RMRR, .base = 0x7e000000, .limit = 0x7e003fff, .first_scope = 0, .nscopes = 1 },
		{ .type = DMAR_RMRR,
		  .base = 0x1000000000ull,
		  .limit = 0x1000000fffull,
		  .first_scope = 1,
		  .nscopes = 1 },
	};
	struct dmar d = { .s = rm, .n = 2, .scopes = sc, .nscopes = 2 };
	vtdm_init(&m, VTDM_QEMU_CAP, VTDM_QEMU_ECAP & ~ECAP_PT);
	memset(&v, 0, sizeof(v));
	assert_null(vtd_init(&v, &m.win, "model0", &d, &pci, 0));
	take_and_attach(0x0100);
	uint64_t phys;
	/* the device under test (01:00.0): its RMRR, nothing else */
	assert_true(vtdm_translate(&m, 0x0100, 0x7e003ff0, true, &phys));
	assert_int_equal(phys, 0x7e003ff0);
	assert_false(vtdm_translate(&m, 0x0100, 0x7e004000, true, &phys));
	assert_false(vtdm_translate(&m, 0x0100, 0x1000000000ull, false, &phys));
	/* a bystander (02:00.0) reaches its RMRR above RAM through the identity domain */
	assert_true(vtdm_translate(&m, 0x0200, 0x1000000800ull, false, &phys));
	assert_int_equal(phys, 0x1000000800ull);
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

static void queue_error_recovered(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	take_and_attach(0x0100);
	unsigned seen = 0;
	assert_null(vtd_queue_error_probe(&v, &seen));
	assert_int_equal(seen, 1);
	assert_int_equal(m.queue_errors, 1);
	assert_false(m.fsts & VTD_FSTS_IQE);
	assert_null(v.io.ops->give_back(&v.io));
	assert_false(m.gsts & VTD_GCMD_QIE);
	assert_clean();
}

static void caching_mode_invalidates_new_entries(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP | CAP_CM, VTDM_QEMU_ECAP);
	take_and_attach(0x0100);
	unsigned before = m.iotlb_invalidations;
	assert_null(v.io.ops->map(&v.io, 0x7000, 0xa000, 4096, IOMMU_RW, 4096));
	assert_int_equal(m.iotlb_invalidations, before + 1);
	assert_int_equal(m.last_psi_addr, 0x7000);
	/* the model cached the device's entry as not present while it changed
	 * (under domain 0): only the caching-mode flush lets it translate */
	uint64_t phys;
	assert_true(vtdm_translate(&m, 0x0100, 0x7008, true, &phys));
	assert_int_equal(phys, 0xa008);
	assert_null(v.io.ops->give_back(&v.io));
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	take_and_attach(0x0100);
	before = m.iotlb_invalidations;
	assert_null(v.io.ops->map(&v.io, 0x7000, 0xa000, 4096, IOMMU_RW, 4096));
	assert_int_equal(m.iotlb_invalidations, before);
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

/* Translation off and on again: the root pointer is set again and the
 * caches invalidated before it is back (spec 10.4.4), so what changed
 * while it was off is what the device sees. */
static void reenabling_translation_starts_clean(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	take_and_attach(0x0100);
	uint64_t phys;
	assert_null(v.io.ops->map(&v.io, 0x9000, 0xa000, 4096, IOMMU_RW, 4096));
	assert_true(vtdm_translate(&m, 0x0100, 0x9000, false, &phys));
	assert_null(v.io.ops->enable(&v.io, false));
	assert_false(m.gsts & VTD_GCMD_TE);
	assert_null(v.io.ops->unmap(&v.io, 0x9000, 4096));
	assert_null(v.io.ops->map(&v.io, 0x9000, 0xb000, 4096, IOMMU_RW, 4096));
	assert_null(v.io.ops->enable(&v.io, true));
	assert_true(vtdm_translate(&m, 0x0100, 0x9000, false, &phys));
	assert_int_equal(phys, 0xb000);
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

static void walk_depth_from_sagaw(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP | SAGAW_48 | (47ull - 38) << 16, VTDM_QEMU_ECAP);
	assert_int_equal(v.levels, 4);
	assert_int_equal(v.io.addr_bits, 48);
	take_and_attach(0x0100);
	uint64_t phys;
	assert_null(v.io.ops->map(&v.io, 0xfffffffff000ull, 0x5000, 4096, IOMMU_RW, 4096));
	assert_true(vtdm_translate(&m, 0x0100, 0xfffffffff010ull, false, &phys));
	assert_int_equal(phys, 0x5010);
	assert_null(v.io.ops->give_back(&v.io));
	/* asked for a depth the unit lacks: named */
	vtdm_init(&m, (VTDM_QEMU_CAP & ~(0x1full << 8)) | SAGAW_48, VTDM_QEMU_ECAP);
	memset(&v, 0, sizeof(v));
	v.want_levels = 3;
	assert_non_null(strstr(vtd_init(&v, &m.win, "model0", NULL, NULL, 0), "3-level walk was asked for"));
	assert_clean();
}

/* The translation modes a unit offers, from CAP and ECAP (11.4.2-3), as the
 * `iommu` command and the info records name them. */
static void modes_from_cap_and_ecap(void **state)
{
	(void)state;
	const uint64_t SMTS = 1ull << 43, SLTS = 1ull << 46, FLTS = 1ull << 47, NEST = 1ull << 26, PASID = 1ull << 40,
		       PSS19 = 19ull << 35, RPS = 1ull << 49, FL1GP = 1ull << 56, FL5LP = 1ull << 60;
	struct vtd_caps c;
	const char *names[4];
	char words[200];
	vtd_caps_read(VTDM_QEMU_CAP, VTDM_QEMU_ECAP, &c);
	assert_int_equal(vtd_modes(&c, names), 1);
	assert_string_equal(names[0], "legacy");
	vtd_modes_words(&c, words, sizeof(words));
	assert_string_equal(words, "legacy; no scalable mode (ECAP.SMTS clear)");
	/* QEMU's x-scalable-mode=on: second stage, PASIDs of 20 bits, RID_PASID */
	vtd_caps_read(VTDM_QEMU_CAP, VTDM_QEMU_ECAP | SMTS | SLTS | PASID | PSS19 | RPS, &c);
	assert_int_equal(vtd_modes(&c, names), 2);
	assert_string_equal(names[1], "scalable-second-stage");
	vtd_modes_words(&c, words, sizeof(words));
	assert_string_equal(words, "legacy; scalable: second stage; PASIDs of 20 bits, RID_PASID");
	/* ... with x-flts=on, 5-level and 1 GiB first-stage leaves, and nested */
	vtd_caps_read(VTDM_QEMU_CAP | FL1GP | FL5LP, VTDM_QEMU_ECAP | SMTS | SLTS | FLTS | NEST | PASID | PSS19, &c);
	assert_int_equal(vtd_modes(&c, names), 4);
	assert_string_equal(names[2], "scalable-first-stage");
	assert_string_equal(names[3], "scalable-nested");
	vtd_modes_words(&c, words, sizeof(words));
	assert_string_equal(words, "legacy; scalable: second stage, first stage (4-level, 5-level, 1 GiB leaves), "
				   "nested; PASIDs of 20 bits");
	/* scalable mode with neither translation type, and no legacy walk */
	vtd_caps_read(VTDM_QEMU_CAP & ~(0x1full << 8), VTDM_QEMU_ECAP | SMTS, &c);
	assert_int_equal(vtd_modes(&c, names), 0);
	vtd_modes_words(&c, words, sizeof(words));
	assert_string_equal(words, "no legacy walk (CAP.SAGAW 0); scalable: no translation type (SLTS and FLTS "
				   "clear); no PASID support");
	/* a buffer too small is cut, never overrun */
	char small[12];
	vtd_caps_read(VTDM_QEMU_CAP | FL1GP | FL5LP, VTDM_QEMU_ECAP | SMTS | SLTS | FLTS | NEST | PASID | PSS19, &c);
	vtd_modes_words(&c, small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

/* Every failure names its kind in io->err: the catalogue tells them apart
 * by code, never by the words. */
static void errors_carry_their_code(void **state)
{
	(void)state;
	/* a handshake that never completes: TIMEOUT */
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	m.stuck_gsts = VTD_GCMD_TE;
	assert_non_null(v.io.ops->take(&v.io));
	assert_int_equal(v.io.err, IOMMU_ERR_TIMEOUT); /* not the give-back's code */
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	m.ignore_ccmd = true;
	assert_non_null(v.io.ops->take(&v.io));
	assert_int_equal(v.io.err, IOMMU_ERR_TIMEOUT);
	/* the firmware's translation with no root table to keep: FIRMWARE;
	 * its queue busy and never draining: TIMEOUT (live.c) */
	uint32_t left_on[] = { VTD_GCMD_TE, VTD_GCMD_QIE };
	enum iommu_err code[] = { IOMMU_ERR_FIRMWARE, IOMMU_ERR_TIMEOUT };
	static uint64_t fw_queue[512] __attribute__((aligned(4096)));
	memmap_firmware_standin((uint64_t)(uintptr_t)fw_queue, sizeof(fw_queue)); /* the firmware's memory */
	for (size_t i = 0; i < 2; i++) {
		open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
		m.gsts = left_on[i];
		m.iqa = (uint64_t)(uintptr_t)fw_queue;
		m.iqt = 0x10;
		assert_non_null(v.io.ops->take(&v.io));
		assert_int_equal(v.io.err, code[i]);
		assert_false(v.io.taken);
	}
	/* nothing taken yet: STATE */
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	assert_non_null(v.io.ops->map(&v.io, 0x1000, 0x1000, 4096, IOMMU_RW, 4096));
	assert_int_equal(v.io.err, IOMMU_ERR_STATE);
	assert_non_null(v.io.ops->invalidate(&v.io, 0, 0, 4096));
	assert_int_equal(v.io.err, IOMMU_ERR_STATE);
	/* arguments outside the domain: ARGUMENT; a leaf size not offered: UNSUPPORTED */
	take_and_attach(0x0100);
	assert_non_null(v.io.ops->map(&v.io, 0x1800, 0x2000, 4096, IOMMU_RW, 4096));
	assert_int_equal(v.io.err, IOMMU_ERR_ARGUMENT);
	assert_non_null(v.io.ops->map(&v.io, 1ull << 39, 0, 4096, IOMMU_RW, 4096));
	assert_int_equal(v.io.err, IOMMU_ERR_ARGUMENT);
	assert_non_null(v.io.ops->unmap(&v.io, 0x5000, 4096));
	assert_int_equal(v.io.err, IOMMU_ERR_ARGUMENT);
	assert_non_null(v.io.ops->map(&v.io, 0x10000, 0x10000, 1u << 16, IOMMU_RW, 1u << 16));
	assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_non_null(v.io.ops->invalidate(&v.io, v.io.nkinds, 0, 4096));
	assert_int_equal(v.io.err, IOMMU_ERR_ARGUMENT);
	/* a queue that refuses every descriptor, recovery included: ABANDONED */
	m.refuse_queue = true;
	assert_non_null(v.io.ops->invalidate(&v.io, v.io.nkinds - 1, 0, 0));
	assert_int_equal(v.io.err, IOMMU_ERR_ABANDONED);
	m.refuse_queue = false;
	v.io.ops->give_back(&v.io); /* the queue stopped at the error it kept raising */
	/* a unit without pass-through asked for it: UNSUPPORTED */
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP & ~ECAP_PT);
	take_and_attach(0x0100);
	struct pci_addr a = { .bus = 1 };
	assert_non_null(v.io.ops->attach(&v.io, a, IOMMU_PASSTHROUGH));
	assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_null(v.io.ops->give_back(&v.io));
	/* nothing answers: UNUSABLE */
	vtdm_init(&m, VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	m.all_ones = true;
	memset(&v, 0, sizeof(v));
	assert_non_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
	assert_int_equal(v.io.err, IOMMU_ERR_UNUSABLE);
	/* a walk the unit does not offer, asked for: UNSUPPORTED */
	vtdm_init(&m, (VTDM_QEMU_CAP & ~(0x1full << 8)) | SAGAW_48, VTDM_QEMU_ECAP);
	memset(&v, 0, sizeof(v));
	v.want_levels = 3;
	assert_non_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
	assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_clean();
}

/* Give-back that finds a register the unit changed behind the driver's
 * back: RESTORE, and the note and as_found say which. */
static void give_back_mismatch_is_restore(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	take_and_attach(0x0100);
	assert_null(v.io.ops->give_back(&v.io));
	assert_non_null(strstr(v.io.restore_note, "as found"));
	char note[200];
	assert_true(v.io.ops->as_found(&v.io, note, sizeof(note)));
	take_and_attach(0x0100);
	m.gsts |= VTD_GCMD_CFI; /* compatibility format interrupts, turned on by someone else */
	m.stuck_gsts = VTD_GCMD_CFI;
	assert_non_null(v.io.ops->give_back(&v.io));
	assert_int_equal(v.io.err, IOMMU_ERR_RESTORE);
	assert_non_null(strstr(v.io.restore_note, "GSTS"));
	assert_false(v.io.ops->as_found(&v.io, note, sizeof(note)));
	assert_non_null(strstr(note, "GSTS"));
	assert_clean();
}

/* The software walk (iova_to_phys) says what the model's DMA reaches, at
 * every leaf size, with the permission the model enforces. */
static void iova_to_phys_agrees_with_the_model(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_CAP | CAP_CM, VTDM_QEMU_ECAP);
	assert_true(v.io.map_flushes);
	take_and_attach(0x0100);
	struct {
		uint64_t iova, phys, page;
		unsigned perm;
	} maps[] = {
		{ 0x7ffff000ull, 0x3e091000, 4096, IOMMU_RW },
		{ 0x12345000ull, 0x5000, 4096, IOMMU_R },
		{ 0x40000000ull, 0x80000000, 1u << 21, IOMMU_W },
		{ 0x4000000000ull, 0xc0000000, 1u << 30, IOMMU_RW },
	};
	for (size_t i = 0; i < 4; i++)
		assert_null(v.io.ops->map(&v.io, maps[i].iova, maps[i].phys, maps[i].page, maps[i].perm, maps[i].page));
	uint64_t probes[] = { 0x7ffff000ull, 0x7ffffabcull,   0x12345008ull,   0x40000000ull,	0x401fffffull,
			      0x40200000ull, 0x4000000000ull, 0x403fffffffull, 0x4040000000ull, 0x1000 };
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
		uint64_t walked = 0, page = 0, rd = 0, wr = 0;
		unsigned perm = 0;
		bool mapped = v.io.ops->iova_to_phys(&v.io, probes[i], &walked, &perm, &page);
		bool can_read = vtdm_translate(&m, 0x0100, probes[i], false, &rd);
		bool can_write = vtdm_translate(&m, 0x0100, probes[i], true, &wr);
		assert_int_equal(can_read, mapped && (perm & IOMMU_R));
		assert_int_equal(can_write, mapped && (perm & IOMMU_W));
		if (can_read)
			assert_int_equal(rd, walked);
		if (can_write)
			assert_int_equal(wr, walked);
		for (size_t k = 0; mapped && k < 4; k++)
			if (probes[i] - maps[k].iova < maps[k].page)
				assert_int_equal(page, maps[k].page);
	}
	v.io.ops->faults(&v.io, (struct iommu_fault[8]){ 0 }, 8, &(bool){ false });
	/* unmapped: the walk and the model agree it leads nowhere */
	assert_null(v.io.ops->unmap(&v.io, 0x40000000ull, 1u << 21));
	assert_null(v.io.ops->invalidate(&v.io, 1, 0, 0));
	uint64_t phys, page;
	unsigned perm;
	assert_false(v.io.ops->iova_to_phys(&v.io, 0x40000000ull, &phys, &perm, &page));
	assert_false(vtdm_translate(&m, 0x0100, 0x40000000ull, true, &phys));
	assert_null(v.io.ops->give_back(&v.io));
	assert_false(v.io.ops->iova_to_phys(&v.io, 0x7ffff000ull, &phys, &perm, &page));
	assert_clean();
}

/* The backend descriptor: it registers its own settings, refuses values
 * they do not take, and opens a DMAR unit with them applied. The unit's
 * identity registers are a page of host memory (only VER/CAP/ECAP are read
 * on open; nothing is taken over). */
static void backend_opens_with_its_settings(void **state)
{
	(void)state;
	assert_string_equal(vtd_backend.name, "vtd");
	assert_string_equal(vtd_backend.discovery->table, "DMAR"); /* its units are the DMAR's */
	settings_init();
	vtd_backend.settings();
	assert_string_equal(setting_get("vtd.levels"), "auto");
	assert_non_null(setting_set("vtd.levels", "5"));
	assert_non_null(setting_set("vtd.bystanders", "some"));
	host_set_phys_bits(52);
	uint8_t *regs = platform->alloc_pages(1, 0);
	assert_non_null(regs);
	uint32_t ver = 0x10;
	uint64_t cap = VTDM_QEMU_CAP | SAGAW_48 | (47ull - 38) << 16, ecap = VTDM_QEMU_ECAP;
	memcpy(regs, &ver, 4), memcpy(regs + 8, &cap, 8), memcpy(regs + 16, &ecap, 8);
	struct iommu_units all = { .n = 1 };
	struct iommu_unit *u = &all.u[0];
	*u = (struct iommu_unit){ .name = "dmar0", .backend = &vtd_backend, .base = (uintptr_t)regs, .size = 4096 };
	snprintf(u->source, sizeof(u->source), "a test");
	const char *why = NULL;
	struct iommu *io = vtd_backend.open(u, &all, NULL, &why);
	assert_non_null(io);
	assert_null(why);
	assert_int_equal(container_of(io, struct vtd, io)->levels, 4); /* auto: the deepest SAGAW offers */
	assert_null(setting_set("vtd.levels", "3"));
	assert_null(setting_set("vtd.bystanders", "identity"));
	io = vtd_backend.open(u, &all, NULL, &why);
	assert_non_null(io);
	assert_int_equal(container_of(io, struct vtd, io)->levels, 3);
	assert_int_equal(container_of(io, struct vtd, io)->want_bystanders, VTD_BYSTANDERS_IDENTITY);
	assert_int_equal(io->addr_bits, 39);
	/* registers that do not answer: no unit, and why */
	memset(regs, 0xff, 4096);
	assert_null(vtd_backend.open(u, &all, NULL, &why));
	assert_non_null(why);
	assert_int_equal(io->err, IOMMU_ERR_UNUSABLE);
	platform->free_pages(regs, 1);
	host_set_phys_bits(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(translates_every_leaf_size),
		cmocka_unit_test(faults_decoded_and_cleared),
		cmocka_unit_test(stale_until_each_invalidation),
		cmocka_unit_test(page_invalidation_covers_the_range),
		cmocka_unit_test(context_stale_until_invalidated),
		cmocka_unit_test(refuses_what_it_cannot_keep),
		cmocka_unit_test(gives_back_what_the_firmware_left),
		cmocka_unit_test(hardware_that_never_answers),
		cmocka_unit_test(identity_domain_without_pass_through),
		cmocka_unit_test(rmrr_ranges_identity_mapped),
		cmocka_unit_test(queue_error_recovered),
		cmocka_unit_test(caching_mode_invalidates_new_entries),
		cmocka_unit_test(reenabling_translation_starts_clean),
		cmocka_unit_test(walk_depth_from_sagaw),
		cmocka_unit_test(modes_from_cap_and_ecap),
		cmocka_unit_test(errors_carry_their_code),
		cmocka_unit_test(give_back_mismatch_is_restore),
		cmocka_unit_test(iova_to_phys_agrees_with_the_model),
		cmocka_unit_test(backend_opens_with_its_settings),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
