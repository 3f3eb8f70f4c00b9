/* The SMMUv3 driver against the register-level SMMUv3 model (two readings
 * of IHI 0070, neither including the other's header): take-over and
 * give-back as found, the refusals (an enabled unit, registers reading all
 * ones, an ACK that never comes), both stream table formats, each granule
 * with its blocks, permissions and the event records they give, every
 * invalidation kind against the model's caches (stale until the right
 * command, and no longer), the configuration cache until CFGI_CD, a
 * CMD_SYNC that never completes, an illegal command, an event queue that
 * overflows; stage 2 on a unit that offers it (S2AP, faults by IPA, the
 * stage-2 invalidations by VMID that TLBI_NH_* do not replace, a unit with
 * stage 2 alone). The model's counters of forbidden accesses stay zero
 * throughout. */
#include "unit.h"

#include "core/base/macros.h"
#include "core/base/timing.h"
#include "iommu/smmuv3/driver.h"
#include "iommu/smmuv3/model.h"
#include "iommu/smmuv3/smmuv3.h"
#include "tests/host/platform_host.h"

static struct smmuv3_model m;
static struct smmuv3 s;
static const struct pci_addr dev = { 0, 0x10, 1, 0 }; /* stream id 0x1008 (its BDF) */
#define SID 0x1008
#define IOVA 0x40000000ull
#define PA 0x7000000ull

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.protocol_errors, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

/* A fresh model of `kind` and a driver asking for `strtab` and `granule`
 * bits (0: auto), taken over, the device attached translating. */
static void open_stage(const char *kind, enum smmuv3_strtab_choice strtab, unsigned granule,
		       enum smmuv3_stage_choice stage)
{
	assert_true(smmuv3m_init(&m, kind));
	memset(&s, 0, sizeof(s));
	s.want_strtab = strtab;
	s.want_granule_bits = granule;
	s.want_stage = stage;
	assert_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_null(s.io.ops->take(&s.io));
	assert_null(s.io.ops->attach(&s.io, dev, IOMMU_TRANSLATE));
}

static void open_as(const char *kind, enum smmuv3_strtab_choice strtab, unsigned granule)
{
	open_stage(kind, strtab, granule, SMMUV3_STAGE_AUTO);
}

static void open_unit(void)
{
	open_as("smmuv3", SMMUV3_STRTAB_AUTO, 0);
}

static void close_unit(void)
{
	assert_null(s.io.ops->give_back(&s.io));
	char note[200];
	assert_true(s.io.ops->as_found(&s.io, note, sizeof(note)));
	assert_clean();
}

static size_t kind(const char *name)
{
	for (size_t k = 0; k < s.io.nkinds; k++)
		if (strcmp(s.io.kinds[k].name, name) == 0)
			return k;
	fail_msg("no invalidation kind %s", name);
	return 0;
}

static uint64_t dma(uint64_t iova, bool write)
{
	uint64_t pa = 0;
	if (!smmuv3m_translate(&m, SID, iova, write, &pa))
		return 0;
	return pa;
}

static size_t drain(struct iommu_fault *f, size_t max, bool *ovf)
{
	return s.io.ops->faults(&s.io, f, max, ovf);
}

/* A unit of `kind` as a firmware might leave it: queues configured,
 * interrupts on, SMMUEN off. */
static void firmware_left(const char *kind)
{
	assert_true(smmuv3m_init(&m, kind));
	m.cr1 = 0xd75; /* write-back, inner shareable */
	m.cr2 = 0x2;
	m.irq_ctrl = m.irq_ctrlack = 0x5;
	m.strtab_base = 0x80000000ull;
	m.strtab_base_cfg = 0x8;
	m.cmdq_base = 0x80010000ull | 4;
	m.eventq_base = 0x80020000ull | 4;
}

/* Given back: every register as firmware_left had it. */
static void given_back_as_left(void)
{
	assert_null(s.io.ops->give_back(&s.io));
	assert_int_equal(m.cr0, 0);
	assert_int_equal(m.cr1, 0xd75);
	assert_int_equal(m.cr2, 0x2);
	assert_int_equal(m.irq_ctrl, 0x5);
	assert_int_equal(m.irq_ctrlack, 0x5);
	assert_int_equal(m.strtab_base, 0x80000000ull);
	assert_int_equal(m.strtab_base_cfg, 0x8);
	assert_int_equal(m.cmdq_base, 0x80010000ull | 4);
	assert_int_equal(m.eventq_base, 0x80020000ull | 4);
	char note[200];
	assert_true(s.io.ops->as_found(&s.io, note, sizeof(note)));
	assert_clean();
}

/* What the firmware left (queues configured, interrupts on, SMMUEN off)
 * is what give-back leaves; the translation in between is the driver's. */
static void take_over_and_give_back_as_found(void **state)
{
	(void)state;
	firmware_left("smmuv3");
	memset(&s, 0, sizeof(s));
	assert_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_null(s.io.ops->take(&s.io));
	assert_int_equal(m.cr0ack & 0xd, 0xd); /* SMMUEN, CMDQEN, EVENTQEN */
	assert_int_equal(m.irq_ctrlack, 0);    /* polled, not interrupting */
	assert_int_equal(m.strtab_base & ~(0x3ull << 62) & ~0x3full, (uint64_t)(uintptr_t)s.strtab);
	assert_true(m.cfgi_all >= 1 && m.tlbi_nsnh_all >= 1); /* the caches forgotten before translating */
	given_back_as_left();
}

/* SMMUEN set by the firmware: refused, nothing written. */
static void an_enabled_unit_is_refused(void **state)
{
	(void)state;
	assert_true(smmuv3m_init(&m, "smmuv3"));
	m.cr0 = m.cr0ack = 1;
	memset(&s, 0, sizeof(s));
	assert_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_non_null(s.io.ops->take(&s.io));
	assert_int_equal(s.io.err, IOMMU_ERR_FIRMWARE);
	assert_false(s.io.taken);
	assert_int_equal(m.cr0, 1);
	assert_int_equal(m.strtab_base, 0);
	assert_clean();
}

static void registers_reading_all_ones_are_refused(void **state)
{
	(void)state;
	assert_true(smmuv3m_init(&m, "smmuv3"));
	m.all_ones = true;
	memset(&s, 0, sizeof(s));
	assert_non_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_int_equal(s.io.err, IOMMU_ERR_UNUSABLE);
}

/* CR0ACK never follows: the take-over stops at its deadline, named. */
static void an_ack_that_never_comes_times_out(void **state)
{
	(void)state;
	assert_true(smmuv3m_init(&m, "smmuv3"));
	m.cr0ack_stuck = true;
	memset(&s, 0, sizeof(s));
	assert_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_non_null(s.io.ops->take(&s.io));
	assert_int_equal(s.io.err, IOMMU_ERR_TIMEOUT);
	assert_false(s.io.taken);
}

/* The DMA lands where the driver's own walk says, with its permission. */
static void assert_walk_agrees(uint64_t iova)
{
	uint64_t walked, page;
	unsigned perm;
	assert_true(s.io.ops->iova_to_phys(&s.io, iova, &walked, &perm, &page));
	assert_int_equal(dma(iova, false), walked);
	assert_int_equal(dma(iova, true) != 0, (perm & IOMMU_W) != 0);
}

static void both_stream_table_formats_translate(void **state)
{
	(void)state;
	static const enum smmuv3_strtab_choice fmt[2] = { SMMUV3_STRTAB_LINEAR, SMMUV3_STRTAB_2LEVEL };
	for (int i = 0; i < 2; i++) {
		open_as("smmuv3", fmt[i], 0);
		assert_int_equal((m.strtab_base_cfg >> 16) & 3, i); /* FMT */
		assert_null(s.io.ops->map(&s.io, IOVA, PA, 4096, IOMMU_RW, 4096));
		assert_walk_agrees(IOVA + 0x10);
		/* another stream is not the device's: it bypasses only when named */
		uint64_t pa;
		assert_false(smmuv3m_translate(&m, SID + 1, IOVA, false, &pa));
		struct iommu_fault f[4];
		bool ovf;
		drain(f, 4, &ovf);
		close_unit();
	}
	/* the small unit offers linear only: 2-level is refused, named */
	assert_true(smmuv3m_init(&m, "smmuv3-linear"));
	memset(&s, 0, sizeof(s));
	s.want_strtab = SMMUV3_STRTAB_2LEVEL;
	assert_non_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_int_equal(s.io.err, IOMMU_ERR_UNSUPPORTED);
}

/* A take-over after another program's take-over and give-back on the same
 * unit, without a reset between (a firmware that used the SMMU, a batch of
 * monitors in one boot, a kexec), in the other stream-table format: each
 * driver starts from nothing of the last one's, and the unit reads the
 * table as STRTAB_BASE_CFG.FMT says now (6.3.24), not as it was before. On
 * QEMU 7.2 and 10.0 it does not (tests/catalogue/iommu/smmuv3.c, README): this is the
 * claim silicon is held to. */
static void a_take_over_after_another_in_the_other_format(void **state)
{
	(void)state;
	static const enum smmuv3_strtab_choice order[2][2] = {
		{ SMMUV3_STRTAB_2LEVEL, SMMUV3_STRTAB_LINEAR },
		{ SMMUV3_STRTAB_LINEAR, SMMUV3_STRTAB_2LEVEL },
	};
	for (int o = 0; o < 2; o++) {
		assert_true(smmuv3m_init(&m, "smmuv3"));
		for (int i = 0; i < 2; i++) {
			memset(&s, 0, sizeof(s)); /* the next program: nothing of the last one's */
			s.want_strtab = order[o][i];
			assert_null(smmuv3_init(&s, &m.win, "smmu-model"));
			assert_null(s.io.ops->take(&s.io));
			assert_int_equal((m.strtab_base_cfg >> 16) & 3, order[o][i] == SMMUV3_STRTAB_2LEVEL);
			assert_null(s.io.ops->attach(&s.io, dev, IOMMU_TRANSLATE));
			assert_null(s.io.ops->map(&s.io, IOVA, PA + (uint64_t)i * 4096, 4096, IOMMU_RW, 4096));
			assert_int_equal(dma(IOVA + 0x10, true), PA + (uint64_t)i * 4096 + 0x10);
			struct iommu_fault f[4];
			bool ovf;
			assert_int_equal(drain(f, 4, &ovf), 0);
			close_unit();
			assert_int_equal(m.strtab_base_cfg, 0); /* as the model's reset left it */
		}
	}
}

/* A stream the IORT names bypasses; the device under test translates. */
static void bystanders_bypass(void **state)
{
	(void)state;
	assert_true(smmuv3m_init(&m, "smmuv3"));
	memset(&s, 0, sizeof(s));
	assert_null(smmuv3_init(&s, &m.win, "smmu-model"));
	smmuv3_add_stream(&s, (struct pci_addr){ 0, 0, 2, 0 }, 0x10);
	smmuv3_add_stream(&s, dev, SID);
	assert_null(s.io.ops->take(&s.io));
	uint64_t pa;
	assert_true(smmuv3m_translate(&m, 0x10, 0x12345678, true, &pa));
	assert_int_equal(pa, 0x12345678);
	assert_null(s.io.ops->attach(&s.io, dev, IOMMU_TRANSLATE));
	assert_false(smmuv3m_translate(&m, SID, 0x12345678, false, &pa));
	assert_true(smmuv3m_translate(&m, 0x10, 0x12345678, true, &pa));
	struct iommu_fault f[4];
	bool ovf;
	drain(f, 4, &ovf);
	close_unit();
}

/* An RMR range of the device's stream stays reachable, identity-mapped,
 * when the device translates; another stream's range is not mapped. */
static void rmr_ranges_stay_identity_mapped(void **state)
{
	(void)state;
	assert_true(smmuv3m_init(&m, "smmuv3"));
	memset(&s, 0, sizeof(s));
	assert_null(smmuv3_init(&s, &m.win, "smmu-model"));
	smmuv3_add_rmr(&s, SID, 0x10000000, 0x10030000);
	smmuv3_add_rmr(&s, SID + 8, 0x20000000, 0x20010000);
	assert_null(s.io.ops->take(&s.io));
	assert_null(s.io.ops->attach(&s.io, dev, IOMMU_TRANSLATE));
	assert_int_equal(dma(0x10000000, true), 0x10000000);
	assert_int_equal(dma(0x1002fff8, false), 0x1002fff8);
	assert_int_equal(dma(0x10030000, false), 0);
	assert_int_equal(dma(0x20000000, false), 0);
	struct iommu_fault f[4];
	bool ovf;
	drain(f, 4, &ovf);
	close_unit();
}

static void each_granule_with_its_blocks(void **state)
{
	(void)state;
	static const struct {
		const char *kind;
		unsigned bits;
		uint64_t page, block;
	} g[] = { { "smmuv3", 12, 1ull << 12, 1ull << 21 },
		  { "smmuv3", 12, 1ull << 12, 1ull << 30 },
		  { "smmuv3", 14, 1ull << 14, 1ull << 25 },
		  { "smmuv3", 16, 1ull << 16, 1ull << 29 },
		  { "smmuv3-64k", 0, 1ull << 16, 1ull << 29 } };
	for (size_t i = 0; i < ARRAY_SIZE(g); i++) {
		open_as(g[i].kind, SMMUV3_STRTAB_AUTO, g[i].bits);
		assert_true(s.io.page_sizes & g[i].page);
		assert_true(s.io.page_sizes & g[i].block);
		assert_null(s.io.ops->map(&s.io, IOVA, PA, g[i].page, IOMMU_RW, g[i].page));
		assert_null(s.io.ops->map(&s.io, 4 * g[i].block, 8 * g[i].block, g[i].block, IOMMU_R, g[i].block));
		assert_walk_agrees(IOVA + 8);
		assert_walk_agrees(4 * g[i].block + g[i].block / 2 + 24);
		uint64_t walked, page;
		unsigned perm;
		assert_true(s.io.ops->iova_to_phys(&s.io, 4 * g[i].block + 5, &walked, &perm, &page));
		assert_int_equal(page, g[i].block);
		struct iommu_fault f[4];
		bool ovf;
		drain(f, 4, &ovf); /* the write to the read-only block */
		close_unit();
	}
	/* a granule IDR5 does not offer is refused, named */
	assert_true(smmuv3m_init(&m, "smmuv3-64k"));
	memset(&s, 0, sizeof(s));
	s.want_granule_bits = 12;
	assert_non_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_int_equal(s.io.err, IOMMU_ERR_UNSUPPORTED);
}

/* A write to a read-only page and a read of nothing mapped are refused,
 * each an event the driver decodes and consumes; write-only is mapped
 * read-write (AP[2:1] cannot say it), and the walk says so. */
static void permissions_and_their_events(void **state)
{
	(void)state;
	open_unit();
	assert_null(s.io.ops->map(&s.io, IOVA, PA, 4096, IOMMU_R, 4096));
	assert_null(s.io.ops->map(&s.io, IOVA + 4096, PA, 4096, IOMMU_W, 4096));
	assert_walk_agrees(IOVA + 4096); /* read-write: AP[2:1] cannot say write-only */
	assert_int_equal(dma(IOVA + 0x40, false), PA + 0x40);
	assert_int_equal(dma(IOVA + 0x40, true), 0);
	assert_int_equal(dma(IOVA + 16 * 4096, false), 0);
	assert_true(s.io.ops->fault_pending(&s.io));
	struct iommu_fault f[4];
	bool ovf = true;
	assert_int_equal(drain(f, 4, &ovf), 2);
	assert_false(ovf);
	assert_int_equal(f[0].kind, IOMMU_FAULT_WRITE_DENIED);
	assert_int_equal(f[0].reason, EVT_F_PERMISSION);
	assert_true(f[0].sid_known && f[0].addr_known && f[0].dir_known);
	assert_int_equal(f[0].sid, SID);
	assert_int_equal(f[0].addr, IOVA);
	assert_false(f[0].read);
	assert_int_equal(f[1].kind, IOMMU_FAULT_NOT_PRESENT);
	assert_int_equal(f[1].reason, EVT_F_TRANSLATION);
	assert_int_equal(f[1].addr, IOVA + 16 * 4096);
	assert_true(f[1].read);
	assert_false(s.io.ops->fault_pending(&s.io)); /* consumed */
	assert_null(s.io.ops->unmap(&s.io, IOVA, 4096));
	assert_int_equal(dma(IOVA, false), PA); /* the TLB still holds it */
	assert_null(s.io.ops->invalidate(&s.io, kind("tlbi-va"), IOVA, 4096));
	assert_int_equal(dma(IOVA, false), 0);
	drain(f, 4, &ovf);
	close_unit();
}

/* IOVA -> A, used (cached); repointed to B: stale until an invalidation
 * that covers it, and a neighbour's TLBI_NH_VA or a CFGI_STE does not. */
static void repoint(void)
{
	assert_null(s.io.ops->map(&s.io, IOVA, PA, 4096, IOMMU_RW, 4096));
	assert_int_equal(dma(IOVA, true), PA);
	assert_null(s.io.ops->unmap(&s.io, IOVA, 4096));
	assert_null(s.io.ops->map(&s.io, IOVA, PA + 0x100000, 4096, IOMMU_RW, 4096));
	assert_int_equal(dma(IOVA, true), PA); /* stale */
}

static void each_invalidation_kind_is_needed_and_enough(void **state)
{
	(void)state;
	static const char *const kinds[] = { "tlbi-va", "tlbi-va-range", "tlbi-asid", "tlbi-all" };
	for (size_t i = 0; i < 4; i++) {
		open_unit();
		repoint();
		assert_null(s.io.ops->invalidate(&s.io, kind("tlbi-va"), IOVA + 4096, 4096));
		assert_null(smmuv3_cfgi_ste(&s, SID));
		assert_int_equal(dma(IOVA, true), PA); /* still stale */
		assert_null(s.io.ops->invalidate(&s.io, kind(kinds[i]), IOVA, 4096));
		assert_int_equal(dma(IOVA, true), PA + 0x100000);
		assert_null(s.io.ops->unmap(&s.io, IOVA, 4096));
		assert_null(s.io.ops->invalidate(&s.io, kind(kinds[i]), IOVA, 4096));
		close_unit();
	}
	/* a range of 37 pages in the range form: every page dropped */
	open_unit();
	assert_null(s.io.ops->map(&s.io, IOVA, PA, 37 * 4096, IOMMU_RW, 4096));
	for (unsigned p = 0; p < 37; p++)
		assert_int_equal(dma(IOVA + p * 4096, false), PA + p * 4096);
	assert_null(s.io.ops->unmap(&s.io, IOVA, 37 * 4096));
	unsigned before = m.tlbi_nh_va_range;
	assert_null(s.io.ops->invalidate(&s.io, kind("tlbi-va-range"), IOVA, 37 * 4096));
	assert_true(m.tlbi_nh_va_range > before && m.tlbi_nh_va_range - before <= 3);
	for (unsigned p = 0; p < 37; p++)
		assert_int_equal(dma(IOVA + p * 4096, false), 0);
	struct iommu_fault f[64];
	bool ovf;
	drain(f, 64, &ovf);
	close_unit();
	/* without RIL there is no range kind */
	open_as("smmuv3-linear", SMMUV3_STRTAB_AUTO, 0);
	for (size_t k = 0; k < s.io.nkinds; k++)
		assert_string_not_equal(s.io.kinds[k].name, "tlbi-va-range");
	close_unit();
}

/* CD.TTB0 switched to a copy of the tables: the cached CD keeps the old
 * tables through TLBI_NH_ASID, until CFGI_CD. */
static void a_changed_cd_is_stale_until_cfgi_cd(void **state)
{
	(void)state;
	open_unit();
	assert_null(s.io.ops->map(&s.io, IOVA, PA, 4096, IOMMU_RW, 4096));
	assert_int_equal(dma(IOVA, false), PA);
	assert_null(smmuv3_ttb_fork(&s, IOVA, PA + 0x200000));
	assert_null(smmuv3_tlbi_asid(&s));
	assert_int_equal(dma(IOVA, false), PA); /* the old tables, through the cached CD */
	assert_null(smmuv3_cfgi_cd(&s, SID));
	assert_null(smmuv3_tlbi_asid(&s));
	assert_int_equal(dma(IOVA, false), PA + 0x200000);
	assert_null(smmuv3_ttb_unfork(&s));
	assert_int_equal(dma(IOVA, false), PA);
	close_unit();
}

static void a_sync_that_never_completes_times_out(void **state)
{
	(void)state;
	open_unit();
	m.sync_stuck = true;
	assert_non_null(smmuv3_sync(&s));
	assert_int_equal(s.io.err, IOMMU_ERR_TIMEOUT);
	m.sync_stuck = false;
	assert_null(smmuv3_sync(&s)); /* the queue runs again */
	close_unit();
}

static void an_illegal_command_is_skipped_and_reported(void **state)
{
	(void)state;
	open_unit();
	bool reported = false;
	assert_null(smmuv3_illegal_command_probe(&s, &reported));
	assert_true(reported);
	assert_int_equal(s.last_cerror, CERROR_ILL);
	assert_true(m.command_errors >= 1);
	/* the injected kind: the next command fetched is refused */
	m.illegal_next = true;
	assert_non_null(smmuv3_cfgi_all(&s));
	assert_int_equal(s.io.err, IOMMU_ERR_HARDWARE);
	repoint();
	assert_null(s.io.ops->invalidate(&s.io, kind("tlbi-va"), IOVA, 4096));
	assert_int_equal(dma(IOVA, true), PA + 0x100000);
	close_unit();
}

static void an_event_overflow_is_reported(void **state)
{
	(void)state;
	open_unit();
	m.eventq_full = true;
	assert_int_equal(dma(IOVA, false), 0);
	struct iommu_fault f[4];
	bool ovf = false;
	drain(f, 4, &ovf);
	assert_true(ovf);
	assert_int_equal(s.events_lost, 1);
	m.eventq_full = false;
	assert_int_equal(dma(IOVA, false), 0);
	assert_int_equal(drain(f, 4, &ovf), 1);
	assert_false(ovf); /* acknowledged: not reported twice */
	close_unit();
}

/* More events than the queue holds: the driver consumes them all, in
 * order, across the wrap. */
static void the_event_queue_wraps(void **state)
{
	(void)state;
	open_unit();
	struct iommu_fault f[8];
	bool ovf;
	for (unsigned i = 0; i < 3 * 128 + 5; i++) {
		assert_int_equal(dma(IOVA + (uint64_t)i * 4096, false), 0);
		assert_int_equal(drain(f, 8, &ovf), 1);
		assert_int_equal(f[0].addr, IOVA + (uint64_t)i * 4096);
		assert_false(ovf);
	}
	close_unit();
}

/* ---- stage 2 ----------------------------------------------------------------- */

/* The device's STE at stage 2 on a unit with both stages, at each granule:
 * pages and blocks through S2TTB, S2AP's read and write apart (write-only
 * exists at stage 2), and the faults decoded with the IPA. */
static void stage2_translates_with_s2ap(void **state)
{
	(void)state;
	static const unsigned granules[] = { 12, 14, 16 };
	for (size_t i = 0; i < 3; i++) {
		unsigned g = granules[i];
		uint64_t block = 1ull << (2 * g - 3);
		open_stage("smmuv3-s2", SMMUV3_STRTAB_AUTO, g, SMMUV3_STAGE_2);
		assert_int_equal(s.stage, 2);
		assert_int_equal(s.io.addr_bits, 44); /* the IPA: IDR5.OAS */
		const uint64_t *ste = smmuv3_ste(&s, SID);
		assert_int_equal((ste[0] >> 1) & 7, 6);
		assert_null(s.io.ops->map(&s.io, IOVA, PA, 1ull << g, IOMMU_RW, 1ull << g));
		assert_null(s.io.ops->map(&s.io, IOVA + block, 8 * block, block, IOMMU_R, block));
		assert_null(s.io.ops->map(&s.io, IOVA + 2 * block, PA, 1ull << g, IOMMU_W, 1ull << g));
		assert_int_equal(dma(IOVA + 8, true), PA + 8);
		assert_int_equal(dma(IOVA + block + (block >> 1), false), 8 * block + (block >> 1));
		assert_int_equal(dma(IOVA + 2 * block, true), PA);
		uint64_t phys, page;
		unsigned perm;
		assert_true(s.io.ops->iova_to_phys(&s.io, IOVA + 2 * block, &phys, &perm, &page));
		assert_int_equal(perm, IOMMU_W);
		assert_int_equal(dma(IOVA + block, true), 0);	   /* read-only */
		assert_int_equal(dma(IOVA + 2 * block, false), 0); /* write-only */
		assert_int_equal(dma(IOVA + 4 * block, false), 0); /* nothing there */
		for (unsigned r = 0; r < 3; r++)		   /* a stage-2 fault's page comes from its IPA field */
			s.evtq[4 * r + 2] = 0xdead000;
		struct iommu_fault f[8];
		bool ovf;
		assert_int_equal(drain(f, 8, &ovf), 3);
		assert_int_equal(f[0].kind, IOMMU_FAULT_WRITE_DENIED);
		assert_int_equal(f[0].addr, IOVA + block);
		assert_int_equal(f[1].reason, EVT_F_PERMISSION);
		assert_true(f[1].read);
		assert_int_equal(f[1].addr, IOVA + 2 * block);
		assert_int_equal(f[2].kind, IOMMU_FAULT_NOT_PRESENT);
		assert_int_equal(f[2].addr, IOVA + 4 * block);
		close_unit();
	}
}

/* Stage-2 leaves cached by VMID: stale through every TLBI_NH_* (they do
 * not cover stage 2), until each stage-2 kind; the stage-2 kinds replace
 * stage 1's. */
static void stage2_stale_until_tlbi_s2(void **state)
{
	(void)state;
	static const char *const kinds[] = { "tlbi-s2-ipa", "tlbi-s2-ipa-range", "tlbi-s12-vmall", "tlbi-all" };
	for (size_t i = 0; i < 4; i++) {
		open_stage("smmuv3-s2", SMMUV3_STRTAB_AUTO, 0, SMMUV3_STAGE_2);
		assert_int_equal(s.io.nkinds, 4);
		for (size_t k = 0; k < s.io.nkinds; k++)
			assert_string_equal(s.io.kinds[k].name, kinds[k]);
		repoint();
		const uint64_t nh[3][2] = { { 0x12 | 1ull << 48, IOVA | 1 }, { 0x11 | 1ull << 48, 0 }, { 0x10, 0 } };
		assert_null(smmuv3_submit(&s, nh, 3)); /* TLBI_NH_VA, TLBI_NH_ASID, TLBI_NH_ALL */
		assert_null(s.io.ops->invalidate(&s.io, kind("tlbi-s2-ipa"), IOVA + 4096, 4096));
		assert_int_equal(dma(IOVA, true), PA); /* still stale */
		assert_null(s.io.ops->invalidate(&s.io, kind(kinds[i]), IOVA, 4096));
		assert_int_equal(dma(IOVA, true), PA + 0x100000);
		close_unit();
	}
	assert_int_equal(m.command_errors, 0);
	/* STE.S2TTB moved to a copy: the cached STE keeps the old tables
	 * through TLBI_S12_VMALL, until CFGI_STE */
	open_stage("smmuv3-s2", SMMUV3_STRTAB_AUTO, 0, SMMUV3_STAGE_2);
	assert_null(s.io.ops->map(&s.io, IOVA, PA, 4096, IOMMU_RW, 4096));
	assert_int_equal(dma(IOVA, false), PA);
	assert_null(smmuv3_ttb_fork(&s, IOVA, PA + 0x200000));
	assert_null(smmuv3_tlbi_domain(&s));
	assert_int_equal(dma(IOVA, false), PA);
	assert_null(smmuv3_cfgi_ttb(&s));
	assert_null(smmuv3_tlbi_domain(&s));
	assert_int_equal(dma(IOVA, false), PA + 0x200000);
	assert_null(smmuv3_ttb_unfork(&s));
	assert_int_equal(dma(IOVA, false), PA);
	assert_true(m.tlbi_s12_vmall > 0 && m.cfgi_ste > 0);
	close_unit();
}

/* A unit with stage 2 alone works in auto, and gives back what the
 * firmware left; a stage the unit lacks is refused by code. */
static void a_stage2_only_unit_works_in_auto(void **state)
{
	(void)state;
	firmware_left("smmuv3-s2only");
	memset(&s, 0, sizeof(s));
	assert_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_int_equal(s.stage, 2);
	assert_null(s.io.ops->take(&s.io));
	assert_null(s.io.ops->attach(&s.io, dev, IOMMU_TRANSLATE));
	assert_null(s.io.ops->map(&s.io, IOVA, PA, 4096, IOMMU_RW, 4096));
	assert_int_equal(dma(IOVA + 4, true), PA + 4);
	assert_null(s.io.ops->attach(&s.io, dev, IOMMU_PASSTHROUGH));
	assert_int_equal(dma(IOVA + 4, true), IOVA + 4);
	given_back_as_left();
	memset(&s, 0, sizeof(s));
	s.want_stage = SMMUV3_STAGE_1;
	assert_non_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_int_equal(s.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_true(smmuv3m_init(&m, "smmuv3"));
	memset(&s, 0, sizeof(s));
	s.want_stage = SMMUV3_STAGE_2;
	assert_non_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_int_equal(s.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_true(smmuv3m_init(&m, "smmuv3-s2")); /* auto: stage 1 where there is one */
	memset(&s, 0, sizeof(s));
	assert_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_int_equal(s.stage, 1);
}

/* Nested (Config 0b111): stage 1's kinds within the VMID, a stage-2
 * identity under it (the CD and tables at IPAs), a fault at stage 2
 * decoded with its stage and IPA; the mode changes between takes only. */
static void nested_translates_and_faults_at_each_stage(void **state)
{
	(void)state;
	static const char *const kinds[] = { "tlbi-va", "tlbi-va-range", "tlbi-asid", "tlbi-s12-vmall", "tlbi-all" };
	open_stage("smmuv3-s2", SMMUV3_STRTAB_AUTO, 0, SMMUV3_STAGE_NESTED);
	assert_true(s.nested && s.stage == 1);
	assert_string_equal(s.io.mode, "nested");
	assert_int_equal(s.io.nkinds, 5);
	for (size_t k = 0; k < 5; k++)
		assert_string_equal(s.io.kinds[k].name, kinds[k]);
	const uint64_t *ste = smmuv3_ste(&s, SID);
	assert_int_equal((ste[0] >> 1) & 7, 7);
	assert_int_equal(ste[2] & 0xffff, s.vmid);
	assert_non_null(s.io.ops->mode(&s.io, "stage-2")); /* taken: not now */
	assert_int_equal(s.io.err, IOMMU_ERR_STATE);
	repoint(); /* stale through stage 1, until TLBI_NH_VA of the ASID within the VMID */
	assert_null(s.io.ops->invalidate(&s.io, kind("tlbi-va"), IOVA, 4096));
	assert_int_equal(dma(IOVA, true), PA + 0x100000);
	uint64_t ipa = 0, other = IOVA + 0x10000;
	assert_null(smmuv3_s2_hole(&s, true, &ipa));
	assert_null(s.io.ops->map(&s.io, other, ipa, 4096, IOMMU_RW, 4096));
	assert_int_equal(dma(other, true), 0);
	struct iommu_fault f[4];
	bool ovf;
	assert_int_equal(s.io.ops->faults(&s.io, f, 4, &ovf), 1);
	assert_int_equal(f[0].stage, 2);
	assert_int_equal(f[0].ipa, ipa);
	assert_int_equal(f[0].addr, other);
	assert_int_equal(f[0].reason, EVT_F_TRANSLATION);
	assert_null(smmuv3_s2_hole(&s, false, &ipa));
	assert_null(s.io.ops->unmap(&s.io, other, 4096));
	assert_int_equal(m.command_errors, 0);
	close_unit();
	assert_null(s.io.ops->mode(&s.io, "stage-2"));
	assert_int_equal(s.stage, 2);
	assert_null(s.io.ops->mode(&s.io, NULL)); /* the settings' choice again */
	assert_true(s.nested);
	assert_true(smmuv3m_init(&m, "smmuv3"));
	memset(&s, 0, sizeof(s));
	s.want_stage = SMMUV3_STAGE_NESTED; /* no stage 2 to nest under */
	assert_non_null(smmuv3_init(&s, &m.win, "smmu-model"));
	assert_int_equal(s.io.err, IOMMU_ERR_UNSUPPORTED);
}

/* The wired interrupts on while asked (a fault raises the event queue's,
 * an illegal command the global error's) and off again; GBPA.ABORT blocks
 * DMA while SMMUEN is clear, and both come back as found. */
static unsigned irqs[3];
static void count_irq(void *ctx, enum smmuv3m_irq which)
{
	(void)ctx;
	irqs[which]++;
}

static void interrupts_and_gbpa(void **state)
{
	(void)state;
	open_unit();
	memset(irqs, 0, sizeof(irqs));
	m.irq = count_irq;
	assert_int_equal(dma(IOVA, false), 0); /* polled: no interrupt */
	assert_int_equal(irqs[SMMUV3M_IRQ_EVENTQ], 0);
	assert_null(smmuv3_irq_enable(&s, true));
	assert_int_equal(dma(IOVA, false), 0);
	assert_int_equal(irqs[SMMUV3M_IRQ_EVENTQ], 1);
	bool reported;
	assert_null(smmuv3_illegal_command_probe(&s, &reported));
	assert_true(reported && irqs[SMMUV3M_IRQ_GERROR] == 1);
	assert_null(smmuv3_irq_enable(&s, false));
	assert_null(s.io.ops->enable(&s.io, false));
	assert_null(smmuv3_gbpa_set(&s, s.found.gbpa | GBPA_ABORT));
	assert_int_equal(dma(PA, true), 0);
	assert_null(smmuv3_gbpa_set(&s, s.found.gbpa & ~GBPA_ABORT));
	assert_int_equal(dma(PA, true), PA);
	assert_null(s.io.ops->enable(&s.io, true));
	m.irq = NULL;
	close_unit(); /* IRQ_CTRL and GBPA as found, read back */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(take_over_and_give_back_as_found),
		cmocka_unit_test(a_take_over_after_another_in_the_other_format),
		cmocka_unit_test(an_enabled_unit_is_refused),
		cmocka_unit_test(registers_reading_all_ones_are_refused),
		cmocka_unit_test(an_ack_that_never_comes_times_out),
		cmocka_unit_test(both_stream_table_formats_translate),
		cmocka_unit_test(bystanders_bypass),
		cmocka_unit_test(rmr_ranges_stay_identity_mapped),
		cmocka_unit_test(each_granule_with_its_blocks),
		cmocka_unit_test(permissions_and_their_events),
		cmocka_unit_test(each_invalidation_kind_is_needed_and_enough),
		cmocka_unit_test(a_changed_cd_is_stale_until_cfgi_cd),
		cmocka_unit_test(a_sync_that_never_completes_times_out),
		cmocka_unit_test(an_illegal_command_is_skipped_and_reported),
		cmocka_unit_test(an_event_overflow_is_reported),
		cmocka_unit_test(the_event_queue_wraps),
		cmocka_unit_test(stage2_translates_with_s2ap),
		cmocka_unit_test(stage2_stale_until_tlbi_s2),
		cmocka_unit_test(a_stage2_only_unit_works_in_auto),
		cmocka_unit_test(nested_translates_and_faults_at_each_stage),
		cmocka_unit_test(interrupts_and_gbpa),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
