/* The Calgary / CalIOC2 driver against the register-level model, and the
 * EBDA's Rio Grande table. */
#include "unit.h"

#include "core/base/timing.h"
#include "iommu/calgary/calgary.h"
#include "iommu/calgary/model.h"
#include "tests/host/platform_host.h"

static struct calgary_model m;
static struct calgary c;

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

static void open_chip(bool ioc2)
{
	calm_init(&m, ioc2);
	assert_null(calgary_init(&c, &m.win, ioc2, ioc2 ? "calioc2" : "calgary", 3));
	assert_null(c.io.ops->take(&c.io));
	struct pci_addr dev = { 0, 0x11, 1, 0 }; /* on PHB 0's buses (0x10-0x13) */
	assert_null(c.io.ops->attach(&c.io, dev, IOMMU_TRANSLATE));
	assert_int_equal(c.cur, 0);
}

/* An operation that must fail, with `code` in io->err. */
#define FAILS(call, code) assert_iommu_fails(&c.io, call, code)

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.protocol_errors, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

static void tces_translate_big_endian(void **state)
{
	(void)state;
	for (int ioc2 = 0; ioc2 <= 1; ioc2++) {
		open_chip(ioc2);
		assert_int_equal(c.phb[1].start_bus, 0x20);
		assert_int_equal(c.phb[1].end_bus, 0x23);
		assert_int_equal(c.io.addr_bits, 28);
		assert_true(m.phb[0].config & 0x20000000u);
		uint64_t phys;
		assert_null(c.io.ops->map(&c.io, 0x200000, 0x12345000, 4096, IOMMU_RW, 4096));
		assert_true(calm_translate(&m, 0, 0x200abc, true, &phys));
		assert_int_equal(phys, 0x12345abc);
		/* in memory the TCE is big-endian: RPN, then write and read bits last */
		const uint8_t *raw = (const uint8_t *)&c.phb[0].table[0x200];
		assert_int_equal(raw[7], 0x03);
		assert_int_equal(raw[6], 0x50);
		/* read-only: a write faults, CSR names it, the driver clears it */
		assert_null(c.io.ops->map(&c.io, 0x201000, 0x22222000, 4096, IOMMU_R, 4096));
		assert_false(calm_translate(&m, 0, 0x201000, true, &phys));
		assert_true(c.io.ops->fault_pending(&c.io));
		struct iommu_fault f[2];
		bool ovf;
		assert_int_equal(c.io.ops->faults(&c.io, f, 2, &ovf), 1);
		assert_int_equal(f[0].reason, CALM_CSR_FAULT);
		assert_false(f[0].addr_known);
		assert_int_equal(m.phb[0].csr, 0);
		/* an empty TCE and an IOVA past the table fault too */
		assert_false(calm_translate(&m, 0, 0x300000, false, &phys));
		assert_false(calm_translate(&m, 0, 1ull << 28, false, &phys));
		assert_null(c.io.ops->give_back(&c.io));
		assert_false(m.phb[0].config & 0x20000000u);
		assert_clean();
	}
}

static void stale_until_the_flush(void **state)
{
	(void)state;
	for (int ioc2 = 0; ioc2 <= 1; ioc2++) {
		open_chip(ioc2);
		uint64_t phys;
		assert_null(c.io.ops->map(&c.io, 0x400000, 0xa000, 4096, IOMMU_RW, 4096));
		assert_true(calm_translate(&m, 0, 0x400000, false, &phys));
		assert_null(c.io.ops->unmap(&c.io, 0x400000, 4096));
		assert_null(c.io.ops->map(&c.io, 0x400000, 0xb000, 4096, IOMMU_RW, 4096));
		assert_true(calm_translate(&m, 0, 0x400000, false, &phys));
		assert_int_equal(phys, 0xa000); /* the TCE cache kept the old one */
		unsigned blasts = m.phb[0].blasts;
		assert_null(c.io.ops->invalidate(&c.io, 0, 0, 0));
		assert_int_equal(m.phb[0].blasts, blasts + 1);
		assert_true(calm_translate(&m, 0, 0x400000, false, &phys));
		assert_int_equal(phys, 0xb000);
		assert_null(c.io.ops->give_back(&c.io));
		assert_clean(); /* the flush ran in the quiet state: AER 0, or HardStop */
	}
}

static void reserved_iovas_refused(void **state)
{
	(void)state;
	open_chip(false);
	FAILS(c.io.ops->map(&c.io, 0, 0xa000, 4096, IOMMU_RW, 4096), IOMMU_ERR_ARGUMENT);
	FAILS(c.io.ops->map(&c.io, 0x1f000, 0xa000, 4096, IOMMU_RW, 4096), IOMMU_ERR_ARGUMENT);
	FAILS(c.io.ops->map(&c.io, 0xa0000, 0xa000, 4096, IOMMU_RW, 4096), IOMMU_ERR_ARGUMENT);
	assert_null(c.io.ops->map(&c.io, 0x40000, 0xa000, 4096, IOMMU_RW, 4096)); /* below 640 KiB: usable */
	FAILS(c.io.ops->map(&c.io, 1ull << 28, 0xa000, 4096, IOMMU_RW, 4096), IOMMU_ERR_ARGUMENT);
	FAILS(c.io.ops->map(&c.io, 0x40000, 0xa000, 8192, IOMMU_RW, 8192), IOMMU_ERR_UNSUPPORTED);
	/* the peripheral window: from its base to (limit | 0xFFFFF) + 1 */
	m.phb[0].mem1_lo = 0x08000000u, m.phb[0].mem1_size = 0x080fffffu;
	FAILS(c.io.ops->map(&c.io, 0x080ff000, 0xa000, 4096, IOMMU_RW, 4096), IOMMU_ERR_ARGUMENT);
	assert_null(c.io.ops->map(&c.io, 0x08100000, 0xa000, 4096, IOMMU_RW, 4096));
	uint64_t phys;
	assert_true(calm_translate(&m, 0, 0x08000010, true, &phys)); /* the model passes it untranslated */
	assert_int_equal(phys, 0x08000010);
	m.phb[0].mem1_size = 0x07000000u; /* a limit below the base: no window */
	assert_null(c.io.ops->map(&c.io, 0x08000000, 0xa000, 4096, IOMMU_RW, 4096));
	assert_null(c.io.ops->give_back(&c.io));
	open_chip(true); /* CalIOC2 keeps the whole first MiB */
	FAILS(c.io.ops->map(&c.io, 0x40000, 0xa000, 4096, IOMMU_RW, 4096), IOMMU_ERR_ARGUMENT);
	assert_null(c.io.ops->give_back(&c.io));
	assert_clean();
}

static void flush_faults_named(void **state)
{
	(void)state;
	open_chip(false);
	m.split_stuck = true;
	unsigned reads = m.splitq_reads;
	FAILS(c.io.ops->invalidate(&c.io, 0, 0, 0), IOMMU_ERR_TIMEOUT);
	assert_int_equal(m.splitq_reads - reads, CALGARY_SPLITQ_READS);
	assert_int_equal(m.phb[0].blasts, 2); /* flushed anyway, as Linux did (the first at attach's enable) */
	m.split_stuck = false;
	assert_null(c.io.ops->invalidate(&c.io, 0, 0, 0));
	assert_null(c.io.ops->give_back(&c.io));
	open_chip(true);
	m.softstop_faults = 3;
	assert_null(c.io.ops->invalidate(&c.io, 0, 0, 0));
	assert_int_equal(c.softstop_retries, 3);
	m.softstop_faults = ~0u;
	unsigned blasts = m.phb[0].blasts;
	FAILS(c.io.ops->invalidate(&c.io, 0, 0, 0), IOMMU_ERR_ABANDONED);
	assert_int_equal(m.phb[0].blasts, blasts); /* abandoned: TAR never rewritten */
	m.softstop_faults = 0;
	assert_null(c.io.ops->invalidate(&c.io, 0, 0, 0));
	assert_null(c.io.ops->give_back(&c.io));
	assert_clean();
}

static void fence_and_give_back(void **state)
{
	(void)state;
	calm_init(&m, false);
	m.phb[0].tar = 0x18000; /* something the firmware left */
	assert_null(calgary_init(&c, &m.win, false, "calgary", 3));
	assert_null(c.io.ops->take(&c.io));
	struct pci_addr dev = { 0, 0x10, 2, 0 };
	assert_null(c.io.ops->attach(&c.io, dev, IOMMU_TRANSLATE));
	c.fence = true;
	uint64_t phys;
	assert_false(calm_translate(&m, 0, 0x500000, false, &phys));
	struct iommu_fault f[2];
	bool ovf;
	assert_int_equal(c.io.ops->faults(&c.io, f, 2, &ovf), 1);
	assert_true(m.phb[0].config & 0x1c000000u); /* fenced: nothing gets through */
	assert_null(c.io.ops->map(&c.io, 0x500000, 0xa000, 4096, IOMMU_RW, 4096));
	assert_false(calm_translate(&m, 0, 0x500000, false, &phys));
	assert_null(c.io.ops->give_back(&c.io));
	assert_int_equal(m.phb[0].tar, 0x18000);
	assert_int_equal(m.phb[0].config, 0);
	/* a PHB already translating is not taken over; all ones is named */
	m.phb[2].config = 0x20000000u;
	FAILS(c.io.ops->take(&c.io), IOMMU_ERR_FIRMWARE);
	calm_init(&m, false);
	assert_null(calgary_init(&c, &m.win, false, "calgary", 3));
	m.all_ones = true; /* the chip stops answering after it was found */
	FAILS(c.io.ops->take(&c.io), IOMMU_ERR_UNUSABLE);
	FAILS(calgary_init(&c, &m.win, false, "calgary", 3), IOMMU_ERR_UNUSABLE);
}

/* as_found compares the registers with the take-over's reading; give-back
 * leaves a note, and a register it cannot put back is IOMMU_ERR_RESTORE. */
static void as_found_and_restore(void **state)
{
	(void)state;
	char note[200];
	calm_init(&m, true);
	m.phb[1].tar = 0x28002; /* what the firmware left */
	m.phb[1].savior = 0x5;
	assert_null(calgary_init(&c, &m.win, true, "calioc2", 3));
	assert_false(c.io.ops->as_found(&c.io, note, sizeof(note))); /* nothing recorded yet */
	assert_null(c.io.ops->take(&c.io));
	assert_true(c.io.ops->as_found(&c.io, note, sizeof(note)));
	struct pci_addr dev = { 0, 0x21, 0, 0 }; /* PHB 1 */
	assert_null(c.io.ops->attach(&c.io, dev, IOMMU_TRANSLATE));
	assert_false(c.io.ops->as_found(&c.io, note, sizeof(note)));
	assert_null(c.io.ops->give_back(&c.io));
	assert_true(c.io.restore_note[0] != '\0');
	assert_true(c.io.ops->as_found(&c.io, note, sizeof(note)));
	assert_int_equal(m.phb[1].tar, 0x28002);
	assert_int_equal(m.phb[1].savior, 0x5);
	/* a PHB's configuration changed under the monitor: not as found */
	assert_null(c.io.ops->take(&c.io));
	assert_null(c.io.ops->attach(&c.io, dev, IOMMU_TRANSLATE));
	m.phb[3].config |= 0x00100000u; /* MCSR_ENABLE on a PHB never used */
	FAILS(c.io.ops->give_back(&c.io), IOMMU_ERR_RESTORE);
	assert_false(c.io.ops->as_found(&c.io, note, sizeof(note)));
	assert_clean();
}

/* EBDA fixtures: blocks from 0x180, the Rio Grande table (id 0x4752). */
static size_t block(uint8_t *e, size_t at, size_t next, unsigned id)
{
	e[at] = (uint8_t)next, e[at + 1] = (uint8_t)(next >> 8);
	e[at + 2] = (uint8_t)id, e[at + 3] = (uint8_t)(id >> 8);
	return at + 4;
}

static void rio(uint8_t *r, uint8_t node, uint32_t bbar, uint8_t type)
{
	r[0] = node;
	r[1] = (uint8_t)bbar, r[2] = (uint8_t)(bbar >> 8), r[3] = (uint8_t)(bbar >> 16), r[4] = (uint8_t)(bbar >> 24);
	r[5] = type;
}

static void ebda_rio_table(void **state)
{
	(void)state;
	uint8_t e[1024] = { 0 };
	uint32_t bbar[4];
	const char *why;
	/* version 3: one scalability record (12 bytes), three rio records (15) */
	block(e, 0x180, 0x200, 0x1234);
	size_t t = block(e, 0x200, 0, 0x4752);
	e[t] = 3, e[t + 1] = 1, e[t + 2] = 3;
	uint8_t *r = e + t + 3 + 12;
	rio(r, 0, 0xfe000000u, 4);
	rio(r + 15, 1, 0xfe100000u, 2); /* not a Calgary */
	rio(r + 30, 2, 0xfe200000u, 5);
	assert_int_equal(calgary_rio_bbars(e, sizeof(e), bbar, 4, &why), 2);
	assert_null(why);
	assert_int_equal(bbar[0], 0xfe000000u);
	assert_int_equal(bbar[1], 0xfe200000u);
	/* version 2 record sizes: 11 and 13 */
	memset(e, 0, sizeof(e));
	t = block(e, 0x180, 0, 0x4752);
	e[t] = 2, e[t + 1] = 2, e[t + 2] = 1;
	rio(e + t + 3 + 22, 7, 0xfd000000u, 4);
	assert_int_equal(calgary_rio_bbars(e, sizeof(e), bbar, 4, &why), 1);
	assert_int_equal(bbar[0], 0xfd000000u);
	/* a chain that loops back: stopped, not followed forever */
	memset(e, 0, sizeof(e));
	block(e, 0x180, 0x200, 0x1111);
	block(e, 0x200, 0x180, 0x2222);
	assert_int_equal(calgary_rio_bbars(e, sizeof(e), bbar, 4, &why), 0);
	assert_non_null(strstr(why, "loop"));
	/* a table longer than the EBDA; a chain running off the end */
	memset(e, 0, sizeof(e));
	t = block(e, 0x180, 0, 0x4752);
	e[t] = 3, e[t + 1] = 0, e[t + 2] = 200;
	assert_int_equal(calgary_rio_bbars(e, sizeof(e), bbar, 4, &why), 0);
	assert_non_null(strstr(why, "longer than the EBDA"));
	memset(e, 0, sizeof(e));
	block(e, 0x180, 0x3fe, 0x1111);
	assert_int_equal(calgary_rio_bbars(e, sizeof(e), bbar, 4, &why), 0);
	assert_non_null(strstr(why, "chain ends"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tces_translate_big_endian), cmocka_unit_test(stale_until_the_flush),
		cmocka_unit_test(reserved_iovas_refused),    cmocka_unit_test(flush_faults_named),
		cmocka_unit_test(fence_and_give_back),	     cmocka_unit_test(ebda_rio_table),
		cmocka_unit_test(as_found_and_restore),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
