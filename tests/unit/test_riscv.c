/* The RISC-V IOMMU driver against the register-level model (two readings
 * of the spec, neither including the other's header): take-over from the
 * reset state (Off) and from Bare with the bystanders kept as found, the
 * device under test translated at every leaf size, faults decoded, each
 * invalidation kind against a stale IOTLB, aliases, translation off and
 * on through the transitions 5.4 allows, and every fault the model can
 * inject named, the MSI page table, with the unit given back as found
 * each time. */
#include "unit.h"

#include <string.h>

#include "core/base/claims.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "iommu/riscv/model.h"
#include "iommu/riscv/rvi.h"
#include "iommu/units.h"
#include "rimt_build.h"
#include "tests/host/platform_host.h"

static struct rvi_model m;
static struct rvi r;
static const struct pci_addr dev = { 0, 0x10, 1, 0 }; /* requester id 0x1008 */
#define DID 0x1008
#define BYSTANDER 0x0010
#define IOVA 0x40000000ull
#define DDTP 0x010
#define CQCSR 0x048

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

static void model_at(unsigned ddtp_mode)
{
	rvim_init(&m);
	m.ddtp = ddtp_mode; /* as the firmware left it */
	assert_null(rvi_init(&r, &m.win, "riscv-model", 0x2000));
}

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.protocol_errors, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

static void open_unit(unsigned ddtp_mode)
{
	model_at(ddtp_mode);
	assert_null(r.io.ops->take(&r.io));
	assert_null(r.io.ops->attach(&r.io, dev, IOMMU_TRANSLATE));
}

static void close_unit(void)
{
	assert_null(r.io.ops->give_back(&r.io));
	char note[200];
	assert_true(r.io.ops->as_found(&r.io, note, sizeof(note)));
	assert_clean();
}

static bool dma(uint32_t did, uint64_t iova, bool write, uint64_t *phys)
{
	*phys = 0;
	return rvim_translate(&m, did, iova, write, phys);
}

static uint64_t through(uint32_t did, uint64_t iova)
{
	uint64_t phys;
	assert_true(dma(did, iova, false, &phys));
	return phys;
}

static size_t kind(const char *name)
{
	for (size_t k = 0; k < r.io.nkinds; k++)
		if (strcmp(r.io.kinds[k].name, name) == 0)
			return k;
	fail_msg("no invalidation kind %s", name);
	return 0;
}

/* ---- take-over and give-back ---------------------------------------------- */

/* From the reset state: the directory in the mode 16-bit ids need with
 * 64-byte contexts (3LVL), both queues on; a bystander stays blocked as
 * it was (no valid context); give-back puts ddtp Off, the queues off and
 * the bases back. */
static void takes_from_off_keeps_bystanders_blocked(void **state)
{
	(void)state;
	open_unit(0);
	assert_int_equal(m.ddtp & 0xf, 4);
	assert_true(m.cqcsr & (1u << 16));
	assert_true(m.fqcsr & (1u << 16));
	uint64_t phys;
	assert_false(dma(BYSTANDER, 0x1000, false, &phys));
	struct iommu_fault f[4];
	bool ovf;
	assert_int_equal(r.io.ops->faults(&r.io, f, 4, &ovf), 1);
	assert_int_equal(f[0].reason, 258); /* DDT entry not valid: blocked, as under Off */
	assert_int_equal(f[0].sid, BYSTANDER);
	close_unit();
	assert_int_equal(m.ddtp & 0xf, 0);
	assert_int_equal(m.cqcsr & 1, 0);
	assert_int_equal(m.cqb, 0);
	assert_false(dma(DID, IOVA, false, &phys)); /* the device under test blocked again */
}

/* From Bare: every bystander passes through as before, and again after
 * give-back; the device under test translates leaves of 4 KiB, 2 MiB and
 * 1 GiB where the driver's walk says, and nowhere else. */
static void takes_from_bare_translates_every_leaf(void **state)
{
	(void)state;
	open_unit(1);
	assert_int_equal(through(BYSTANDER, 0x12345000), 0x12345000);
	const uint64_t sizes[] = { 1ull << 12, 1ull << 21, 1ull << 30 };
	for (size_t i = 0; i < 3; i++) {
		uint64_t iova = IOVA * (i + 1), phys = 0x80000000ull * (i + 3);
		assert_true(r.io.page_sizes & sizes[i]);
		assert_null(r.io.ops->map(&r.io, iova, phys, sizes[i], IOMMU_RW, sizes[i]));
		assert_int_equal(through(DID, iova + sizes[i] - 8), phys + sizes[i] - 8);
		uint64_t walked, page;
		unsigned perm;
		assert_true(r.io.ops->iova_to_phys(&r.io, iova + 8, &walked, &perm, &page));
		assert_int_equal(walked, phys + 8);
		assert_int_equal(page, sizes[i]);
		assert_null(r.io.ops->unmap(&r.io, iova, sizes[i]));
	}
	close_unit();
	assert_int_equal(m.ddtp & 0xf, 1);
	assert_int_equal(through(BYSTANDER, 0x12345000), 0x12345000);
}

/* A write to a read-only page and a read of one not mapped: refused, and
 * read back as WRITE_DENIED and NOT_PRESENT (the unit's write page fault
 * is both; the driver's table tells them apart) with the device id, the
 * page and the direction. */
static void faults_decoded(void **state)
{
	(void)state;
	open_unit(1);
	assert_null(r.io.ops->map(&r.io, IOVA, 0x7000000, 4096, IOMMU_R, 4096));
	uint64_t phys;
	assert_false(dma(DID, IOVA + 0x10, true, &phys));
	assert_false(dma(DID, IOVA + 0x2000, false, &phys));
	assert_false(dma(DID, IOVA + 0x3000, true, &phys));
	assert_true(r.io.ops->fault_pending(&r.io));
	struct iommu_fault f[4];
	bool ovf;
	assert_int_equal(r.io.ops->faults(&r.io, f, 4, &ovf), 3);
	assert_false(ovf);
	assert_int_equal(f[0].kind, IOMMU_FAULT_WRITE_DENIED);
	assert_int_equal(f[0].sid, DID);
	assert_int_equal(f[0].addr, IOVA);
	assert_false(f[0].read);
	assert_true(f[0].sid_known && f[0].addr_known && f[0].dir_known);
	assert_int_equal(f[1].kind, IOMMU_FAULT_NOT_PRESENT);
	assert_true(f[1].read);
	assert_int_equal(f[1].addr, IOVA + 0x2000);
	assert_int_equal(f[2].kind, IOMMU_FAULT_NOT_PRESENT); /* a write where nothing is mapped */
	assert_non_null(strstr(f[0].why, "write/AMO page fault"));
	assert_false(r.io.ops->fault_pending(&r.io));
	close_unit();
}

/* The leaf rewritten in place: the model's IOTLB serves the old page
 * until an invalidation covers it; each kind does, and the page kind
 * with a range covers a 2 MiB leaf with one command. */
static void each_kind_ends_a_stale_entry(void **state)
{
	(void)state;
	static const char *const kinds[] = { "iotinval-page", "iotinval-pscid", "iotinval-all" };
	for (size_t k = 0; k < 3; k++) {
		open_unit(1);
		uint64_t page = k == 0 ? 1ull << 21 : 4096;
		assert_null(r.io.ops->map(&r.io, IOVA, 0x10000000, page, IOMMU_RW, page));
		assert_int_equal(through(DID, IOVA + 4), 0x10000004);
		assert_null(rvi_leaf_repoint(&r, IOVA, 0x20000000));
		assert_int_equal(through(DID, IOVA + 4), 0x10000004); /* stale */
		unsigned before = m.vma_invalidations;
		assert_null(r.io.ops->invalidate(&r.io, kind(kinds[k]), IOVA, page));
		assert_int_equal(m.vma_invalidations - before, 1);
		assert_int_equal(through(DID, IOVA + 4), 0x20000004);
		close_unit();
	}
}

/* An alias id carries the same context; a new device under test sends
 * the old one back among the bystanders at once (its cached context
 * dropped), and pass-through passes. */
static void aliases_and_a_second_device(void **state)
{
	(void)state;
	model_at(1);
	r.io.alias[0] = 0x0800, r.io.nalias = 1, r.io.alias_rid = DID; /* a bridge's id */
	assert_null(r.io.ops->take(&r.io));
	assert_null(r.io.ops->attach(&r.io, dev, IOMMU_TRANSLATE));
	assert_null(r.io.ops->map(&r.io, IOVA, 0x5000000, 4096, IOMMU_RW, 4096));
	assert_int_equal(through(DID, IOVA), 0x5000000);
	assert_int_equal(through(0x0800, IOVA), 0x5000000);
	const struct pci_addr other = { 0, 0x11, 0, 0 };
	assert_null(r.io.ops->attach(&r.io, other, IOMMU_PASSTHROUGH));
	assert_int_equal(through(DID, IOVA), IOVA); /* back to pass-through, as found */
	assert_int_equal(through(0x0800, IOVA), IOVA);
	assert_int_equal(through(0x1100, 0x3000), 0x3000);
	close_unit();
}

/* Translation off and on: Off then Bare, and Bare back to the directory
 * (5.4's only transitions), the model counting none UNSPECIFIED. */
static void off_and_on(void **state)
{
	(void)state;
	open_unit(0);
	assert_null(r.io.ops->map(&r.io, IOVA, 0x5000000, 4096, IOMMU_RW, 4096));
	assert_null(r.io.ops->enable(&r.io, false));
	assert_int_equal(m.ddtp & 0xf, 1);
	assert_int_equal(through(DID, IOVA), IOVA);
	assert_null(r.io.ops->enable(&r.io, true));
	assert_int_equal(m.ddtp & 0xf, 4);
	assert_int_equal(through(DID, IOVA), 0x5000000);
	close_unit();
}

/* ---- what the firmware left, and the faults -------------------------------- */

/* A unit left translating, or with a queue on, is refused and left exactly
 * as it was (no register written); firmware_left says what it does. */
static void refuses_what_it_cannot_give_back(void **state)
{
	(void)state;
	model_at(3);
	struct iommu_fw_state st;
	r.io.ops->firmware_left(&r.io, &st);
	assert_true(st.translating);
	assert_false(r.io.ops->take(&r.io) == NULL);
	assert_int_equal(r.io.err, IOMMU_ERR_FIRMWARE);
	assert_int_equal(m.ddtp, 3);
	model_at(1);
	m.cqcsr = 1u | 1u << 16;
	assert_false(r.io.ops->take(&r.io) == NULL);
	assert_int_equal(r.io.err, IOMMU_ERR_FIRMWARE);
	assert_int_equal(m.cqb, 0);
	model_at(0);
	r.io.ops->firmware_left(&r.io, &st);
	assert_true(st.blocking);
	assert_false(st.translating);
	assert_non_null(strstr(st.state, "every DMA blocked"));
}

/* An IOFENCE.C that never completes: take-over fails named (a time-out)
 * and gives back what it did; a ddtp that stays busy the same; all-ones
 * registers are refused at once. */
static void injected_faults_named(void **state)
{
	(void)state;
	model_at(1);
	m.fence_stuck = true;
	assert_false(r.io.ops->take(&r.io) == NULL);
	assert_int_equal(r.io.err, IOMMU_ERR_TIMEOUT);
	assert_false(r.io.taken);
	assert_int_equal(m.ddtp & 0xf, 1);
	assert_int_equal(m.cqcsr & 1, 0);
	model_at(0);
	m.ddtp_busy = true;
	const char *e = r.io.ops->take(&r.io);
	assert_non_null(e);
	assert_int_equal(r.io.err, IOMMU_ERR_TIMEOUT);
	assert_non_null(strstr(e, "ddtp.busy"));
	rvim_init(&m);
	m.all_ones = true;
	assert_non_null(rvi_init(&r, &m.win, "riscv-model", 0x100));
	assert_int_equal(r.io.err, IOMMU_ERR_UNUSABLE);
}

/* An illegal command stops the queue: reported, the queue restarted, and
 * the next submission works. A full fault queue is reported as an
 * overflow, and records flow again after it. */
static void illegal_command_and_overflow(void **state)
{
	(void)state;
	open_unit(1);
	const struct rvi_cmd bad = { 0x7f, 0 };
	assert_non_null(rvi_submit(&r, &bad, 1));
	assert_int_equal(r.io.err, IOMMU_ERR_HARDWARE);
	assert_int_equal(r.cmd_errors, 1);
	assert_null(rvi_fence(&r));
	m.protocol_errors = 0; /* the restart moved cqb under no queue: nothing else */
	uint64_t phys;
	for (unsigned i = 0; i < 130; i++)
		assert_false(dma(DID, IOVA + 0x1000 * i, false, &phys));
	struct iommu_fault f[130];
	bool ovf;
	assert_int_equal(r.io.ops->faults(&r.io, f, 130, &ovf), 127);
	assert_true(ovf);
	assert_false(dma(DID, IOVA, false, &phys));
	assert_int_equal(r.io.ops->faults(&r.io, f, 130, &ovf), 1);
	assert_false(ovf);
	close_unit();
}

/* Mode g: the device's context has iohgatp (Sv39x4 under GSCID 1) and
 * no S stage; its leaves are G-stage leaves, a rewritten one is stale
 * until IOTINVAL.GVMA (a .VMA kind does not cover it), and the modes are
 * refused where they cannot be had. */
static void g_stage_mode(void **state)
{
	(void)state;
	model_at(1);
	assert_non_null(r.io.ops->mode(&r.io, "x"));
	assert_int_equal(r.io.err, IOMMU_ERR_ARGUMENT);
	assert_null(r.io.ops->mode(&r.io, "g"));
	assert_string_equal(r.io.variant, "sv39x4");
	assert_int_equal(r.io.addr_bits, 41);
	assert_null(r.io.ops->take(&r.io));
	assert_non_null(r.io.ops->mode(&r.io, "s"));
	assert_int_equal(r.io.err, IOMMU_ERR_STATE);
	assert_null(r.io.ops->attach(&r.io, dev, IOMMU_TRANSLATE));
	const uint64_t iova = 1ull << 40; /* beyond any S stage's lower half of Sv39 */
	assert_null(r.io.ops->map(&r.io, iova, 0x10000000, 1ull << 21, IOMMU_RW, 1ull << 21));
	assert_int_equal(through(DID, iova + 0x1234), 0x10001234);
	assert_null(rvi_leaf_repoint(&r, iova, 0x20000000));
	assert_int_equal(through(DID, iova + 0x1234), 0x10001234); /* stale */
	unsigned before = m.gvma_invalidations;
	assert_null(r.io.ops->invalidate(&r.io, kind("iotinval-gvma-page"), iova, 1ull << 21));
	assert_int_equal(m.gvma_invalidations - before, 1);
	assert_int_equal(through(DID, iova + 0x1234), 0x20001234);
	uint64_t phys;
	assert_false(dma(DID, iova + (4ull << 20), false, &phys));
	struct iommu_fault f[4];
	bool ovf;
	assert_int_equal(r.io.ops->faults(&r.io, f, 4, &ovf), 1);
	assert_int_equal(f[0].reason, 21);
	assert_int_equal(f[0].kind, IOMMU_FAULT_NOT_PRESENT);
	close_unit();
	assert_null(r.io.ops->mode(&r.io, NULL)); /* the default again: the S stage */
	assert_null(r.io.variant);
}

/* A unit that offers the G stage alone (QEMU's s-stage=off) is driven in
 * it: its one mode is g, the default; a case asking for the S stage is
 * told, by the unit's name, that it has none; taken over, the device
 * under test translates through iohgatp (the model refuses an S-stage
 * context on such a unit as misconfigured). One that offers the S stage
 * alone keeps it and names the G stage it lacks; one with neither (or
 * only the 32-bit modes) is refused, saying so. */
static void one_stage_units(void **state)
{
	(void)state;
	rvim_init(&m);
	rvim_offer_stages(&m, false, true);
	assert_null(rvi_init(&r, &m.win, "riscv-model", 0x2000));
	assert_int_equal(r.io.nmodes, 1);
	assert_string_equal(r.io.modes[0], "g");
	assert_string_equal(r.io.mode, "g");
	assert_string_equal(r.io.variant, "sv39x4");
	assert_null(r.io.ops->mode(&r.io, NULL));
	assert_string_equal(r.io.mode, "g");
	const char *why = r.io.ops->mode(&r.io, "s");
	assert_non_null(why);
	assert_int_equal(r.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_non_null(strstr(why, "riscv-model offers no S stage"));
	assert_null(r.io.ops->mode(&r.io, NULL));
	assert_null(r.io.ops->take(&r.io));
	assert_null(r.io.ops->attach(&r.io, dev, IOMMU_TRANSLATE));
	const uint64_t iova = 1ull << 40; /* beyond any S stage's lower half of Sv39 */
	assert_null(r.io.ops->map(&r.io, iova, 0x10000000, 4096, IOMMU_RW, 4096));
	assert_int_equal(through(DID, iova + 0x234), 0x10000234);
	struct iommu_fault f[2];
	bool ovf;
	assert_int_equal(r.io.ops->faults(&r.io, f, 2, &ovf), 0);
	close_unit();

	rvim_init(&m);
	rvim_offer_stages(&m, true, false);
	assert_null(rvi_init(&r, &m.win, "riscv-model", 0x2000));
	assert_int_equal(r.io.nmodes, 1);
	assert_string_equal(r.io.modes[0], "s");
	assert_null(r.io.variant);
	assert_non_null(strstr(r.io.ops->mode(&r.io, "g"), "riscv-model offers no G stage"));
	assert_int_equal(r.io.err, IOMMU_ERR_UNSUPPORTED);

	rvim_init(&m);
	rvim_offer_stages(&m, false, false);
	why = rvi_init(&r, &m.win, "riscv-model", 0x2000);
	assert_non_null(why);
	assert_int_equal(r.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_non_null(strstr(why, "no stage this driver translates in"));
	assert_null(strstr(why, "32-bit"));
	m.caps |= 1ull << 8 | 1ull << 16; /* Sv32 and Sv32x4 */
	why = rvi_init(&r, &m.win, "riscv-model", 0x2000);
	assert_non_null(why);
	assert_non_null(strstr(why, "only the 32-bit Sv32 or Sv32x4"));
}

/* MSI address translation: refused in the S stage (msiptp needs the G
 * stage); in the G stage a write to interrupt file 5 (mask bits 0, 1, 7)
 * lands in the page its entry names, offset kept; a file not valid is
 * recorded as 262; an address outside the pattern goes through the G
 * stage (23, nothing mapped); msiptp Off again leaves file 5's address to
 * the G stage too; a second device under test drops the table. */
static void msi_page_table(void **state)
{
	(void)state;
	const uint64_t base = 1ull << 39, target = 0x30000000;
	open_unit(1);
	assert_non_null(rvi_msi_on(&r, base, 0x83));
	assert_int_equal(r.io.err, IOMMU_ERR_UNSUPPORTED);
	close_unit();
	model_at(1);
	assert_null(r.io.ops->mode(&r.io, "g"));
	assert_null(r.io.ops->take(&r.io));
	assert_null(r.io.ops->attach(&r.io, dev, IOMMU_TRANSLATE));
	assert_non_null(rvi_msi_on(&r, base | 0x1000, 0x83)); /* a mask bit set in the base */
	assert_int_equal(r.io.err, IOMMU_ERR_ARGUMENT);
	assert_null(rvi_msi_on(&r, base, 0x83));
	assert_non_null(rvi_msi_on(&r, base, 0x83));
	assert_int_equal(r.io.err, IOMMU_ERR_STATE);
	assert_int_equal(rvi_msi_addr(&r, 5), base + 0x81000);
	assert_int_equal(rvi_msi_addr(&r, 2), base + 0x2000);
	assert_non_null(rvi_msi_file(&r, 8, target));
	assert_null(rvi_msi_file(&r, 5, target));
	assert_int_equal(through(DID, base + 0x81004), target + 4); /* a read too: an MSI PTE is R and W */
	uint64_t phys;
	assert_true(dma(DID, base + 0x81004, true, &phys));
	assert_int_equal(phys, target + 4);
	struct iommu_fault f[4];
	bool ovf;
	assert_false(dma(DID, base + 0x2000, true, &phys));
	assert_int_equal(r.io.ops->faults(&r.io, f, 4, &ovf), 1);
	assert_int_equal(f[0].reason, 262);
	assert_int_equal(f[0].kind, IOMMU_FAULT_IR_NOT_PRESENT);
	assert_int_equal(f[0].sid, DID);
	assert_false(dma(DID, base + 0x4000, true, &phys)); /* bit 2: not an interrupt file */
	assert_int_equal(r.io.ops->faults(&r.io, f, 4, &ovf), 1);
	assert_int_equal(f[0].reason, 23);
	assert_null(rvi_msi_file(&r, 5, 0));
	assert_false(dma(DID, base + 0x81000, true, &phys));
	assert_int_equal(r.io.ops->faults(&r.io, f, 4, &ovf), 1);
	assert_int_equal(f[0].reason, 262);
	assert_null(rvi_msi_file(&r, 5, target));
	assert_null(rvi_msi_off(&r));
	assert_null(r.msi_pt);
	assert_false(dma(DID, base + 0x81000, true, &phys));
	assert_int_equal(r.io.ops->faults(&r.io, f, 4, &ovf), 1);
	assert_int_equal(f[0].reason, 23);
	assert_null(rvi_msi_on(&r, base, 0x83));
	assert_null(r.io.ops->attach(&r.io, (struct pci_addr){ 0, 0x10, 2, 0 }, IOMMU_TRANSLATE));
	assert_null(r.msi_pt);
	close_unit();
	assert_null(r.io.ops->mode(&r.io, NULL));
}

/* ---- discovery ---------------------------------------------------------- */

/* Without a device tree: the listed PCI function (1b36:0014) is a unit at
 * its BAR 0, its own BAR not taken for another device's, covering every
 * other function of its segment; a function of the same class with other
 * ids (AMD's IOMMU) is not a unit; a BAR without an address is refused by
 * name; registers inside another device's BAR are refused. */
static void discovery_from_pci(void **state)
{
	(void)state;
	static struct pci_dev d[4] = {
		{ .addr = { 0, 0, 0, 0 }, .vendor = 0x1b36, .device = 0x0008, .class = 0x060000, .iommu = -1 },
		{ .addr = { 0, 0, 1, 0 },
		  .vendor = 0x1b36,
		  .device = 0x0014,
		  .class = 0x080600,
		  .iommu = -1,
		  .nbars = 1,
		  .bar = { { .index = 0, .mem64 = true, .base = 0x40000000, .size = 0x1000 } } },
		{ .addr = { 0, 0, 2, 0 }, .vendor = 0x1b36, .device = 0x0010, .class = 0x010802, .iommu = -1 },
		{ .addr = { 0, 0, 3, 0 }, .vendor = 0x1022, .device = 0x1481, .class = 0x080600, .iommu = -1 },
	};
	struct pci_list list = { d, 4 };
	claims_reset();
	claims_add_bar(0x40000000, 0x1000, 0x080600, "BAR0 of 0000:00:01.0");
	struct iommu_units u;
	units_build(&u, &(struct units_table){ &riscv_backend, NULL, 0 }, 1, &list);
	assert_int_equal(u.n, 1);
	assert_string_equal(u.u[0].name, "riscv0");
	assert_int_equal(u.u[0].base, 0x40000000);
	assert_null(strstr(u.u[0].refused, "lie in"));
	assert_int_equal(d[0].iommu, 0);
	assert_int_equal(d[1].iommu, -1); /* the IOMMU itself */
	assert_int_equal(d[2].iommu, 0);
	assert_int_equal(u.u[0].ndevices, 3);
	units_free(&u);
	/* the same registers inside another device's BAR */
	for (size_t i = 0; i < 4; i++)
		d[i].iommu = -1;
	claims_reset();
	claims_add_bar(0x40000000, 0x10000, 0x010802, "BAR0 of 0000:00:02.0");
	units_build(&u, &(struct units_table){ &riscv_backend, NULL, 0 }, 1, &list);
	assert_non_null(strstr(u.u[0].refused, "BAR0 of 0000:00:02.0"));
	units_free(&u);
	/* a BAR the firmware gave no address */
	for (size_t i = 0; i < 4; i++)
		d[i].iommu = -1;
	claims_reset();
	d[1].bar[0].base = 0;
	units_build(&u, &(struct units_table){ &riscv_backend, NULL, 0 }, 1, &list);
	assert_non_null(strstr(u.u[0].refused, "was not given an address"));
	units_free(&u);
	d[1].bar[0].base = 0x40000000;
	claims_reset();
}

/* With a RIMT: its PCIe IOMMU node names a function whose ids the
 * backend does not list (a vendor's own unit), its root complex's
 * mappings cover every other function, the AMD-classed one too; a
 * platform node is a unit at its base; a mapping that offsets device ids
 * refuses the unit by name. */
static void discovery_from_rimt(void **state)
{
	(void)state;
	static struct pci_dev d[3] = {
		{ .addr = { 0, 0, 0, 0 }, .vendor = 0x1b36, .device = 0x0008, .class = 0x060000, .iommu = -1 },
		{ .addr = { 0, 0, 1, 0 },
		  .vendor = 0x1e0f,
		  .device = 0x7001,
		  .class = 0x080600,
		  .iommu = -1,
		  .nbars = 1,
		  .bar = { { .index = 0, .mem64 = true, .base = 0x40000000, .size = 0x1000 } } },
		{ .addr = { 0, 0, 3, 0 }, .vendor = 0x1022, .device = 0x1481, .class = 0x080600, .iommu = -1 },
	};
	struct pci_list list = { d, 3 };
	claims_reset();
	header(3);
	uint32_t pcie = iommu(0, true, 0, 0x0008, 0);
	uint32_t plat = iommu(1, false, 0x3010000, 0, 0);
	rc(2, 0, 2), map(0, 8, 0, pcie), map(9, 0xfff7, 9, pcie);
	seal();
	struct iommu_units u;
	units_build(&u, &(struct units_table){ &riscv_backend, t, tl }, 1, &list);
	assert_non_null(units_state(&u, &riscv_backend));
	assert_int_equal(u.n, 2);
	assert_int_equal(u.u[0].base, 0x40000000);
	assert_int_equal(u.u[1].base, 0x3010000);
	assert_non_null(strstr(u.u[1].source, "RIMT IOMMU node at 0x58"));
	assert_int_equal(d[0].iommu, 0);
	assert_int_equal(d[1].iommu, -1);
	assert_int_equal(d[2].iommu, 0);
	assert_string_equal(u.u[0].refused, "");
	units_free(&u);
	/* 00:03.0's ids offset by 0x100 */
	for (size_t i = 0; i < 3; i++)
		d[i].iommu = -1;
	set32(plat + 40 + 20 + 20 + 8, 0x109), fix_checksum(t, tl);
	units_build(&u, &(struct units_table){ &riscv_backend, t, tl }, 1, &list);
	assert_non_null(strstr(u.u[0].refused, "device id 0x118"));
	assert_int_equal(d[2].iommu, -1);
	units_free(&u);
	for (size_t i = 0; i < 3; i++)
		d[i].iommu = -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(takes_from_off_keeps_bystanders_blocked),
		cmocka_unit_test(takes_from_bare_translates_every_leaf),
		cmocka_unit_test(faults_decoded),
		cmocka_unit_test(each_kind_ends_a_stale_entry),
		cmocka_unit_test(aliases_and_a_second_device),
		cmocka_unit_test(off_and_on),
		cmocka_unit_test(refuses_what_it_cannot_give_back),
		cmocka_unit_test(injected_faults_named),
		cmocka_unit_test(illegal_command_and_overflow),
		cmocka_unit_test(g_stage_mode),
		cmocka_unit_test(one_stage_units),
		cmocka_unit_test(msi_page_table),
		cmocka_unit_test(discovery_from_pci),
		cmocka_unit_test(discovery_from_rimt),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
