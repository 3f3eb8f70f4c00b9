/* The AMD-Vi model alone (amdvi_model_unit.h drives it): translation at
 * every level count and leaf size, permissions, stale IOTLB and DTE-cache
 * entries until the precise invalidation, and interrupt remapping. Each
 * claim is one the model could get wrong. */
#include "unit.h"

#include "amdvi_model_unit.h"

/* ---- translation ---------------------------------------------------------- */

static void walks_every_level_count_and_leaf(void **state)
{
	(void)state;
	for (unsigned levels = 1; levels <= 6; levels++) {
		unit(ON);
		uint64_t *root = translated(DEV, levels, 7);
		/* the highest 4 KiB page the root covers, and the larger leaves below it */
		uint64_t top = levels == 6 ? 0xfffffffffffff000ull : (1ull << (12 + 9 * levels)) - 0x1000;
		map(root, levels, 1, top, 0x7654000, IR | IW);
		map(root, levels, 1, 0, 0x3000, IR | IW);
		assert_int_equal(through(DEV, top + 0x123), 0x7654123);
		assert_int_equal(through(DEV, 0x10), 0x3010);
		if (levels >= 2) {
			map(root, levels, 2, 0x200000, 0x40000000, IR | IW);
			assert_int_equal(through(DEV, 0x2abcde), 0x400abcde);
		}
		if (levels >= 3) {
			map(root, levels, 3, 0x80000000, 0x140000000, IR | IW);
			assert_int_equal(through(DEV, 0x9234567c), 0x15234567c);
		}
		if (levels < 6) { /* above what the root covers: a fault, not a wrap to 0 */
			uint64_t phys;
			assert_false(dma(DEV, 1ull << (12 + 9 * levels), false, &phys));
			assert_int_equal(event_at(0)[1] >> 28, AMDVIM_EV_IO_PAGE_FAULT);
		}
		assert_clean();
	}
}

static void skips_levels_and_checks_skipped_bits(void **state)
{
	(void)state;
	unit(ON);
	uint64_t *root = translated(DEV, 4, 1), *l2 = page(), *l1 = page();
	root[0] = pa(l2) | NL(2) | PR | IR | IW; /* level 3 skipped */
	l2[1] = pa(l1) | NL(1) | PR | IR | IW;
	l1[3] = 0x5555000 | PR | IR | IW;
	assert_int_equal(through(DEV, 0x203008), 0x5555008);
	uint64_t phys;
	/* the same entries reached with a level-3 index that is not zero */
	assert_false(dma(DEV, (1ull << 30) | 0x203008, false, &phys));
	const uint32_t *e = event_at(0);
	assert_int_equal(e[1] >> 28, AMDVIM_EV_IO_PAGE_FAULT);
	assert_int_equal(e[1] & AMDVIM_EVF_PR, 0);
	/* a next level that is not lower than its own: an invalid encoding */
	root[1] = pa(l2) | NL(5) | PR | IR | IW;
	assert_false(dma(DEV, 1ull << 39, false, &phys));
	assert_true(event_at(1)[1] & AMDVIM_EVF_RZ);
}

static void encoded_page_size(void **state)
{
	(void)state;
	unit(ON);
	uint64_t *root = translated(DEV, 3, 1), *l2 = page();
	root[0] = pa(l2) | NL(2) | PR | IR | IW;
	/* 8 MiB (2.2.3): bits 21:12 ones, bit 22 zero; each 2 MiB slot holds the entry */
	for (unsigned i = 4; i < 8; i++)
		l2[i] = 0x80000000ull | 0x3ff000 | NL(7) | PR | IR | IW;
	assert_int_equal(through(DEV, 0x800000), 0x80000000);
	assert_int_equal(through(DEV, 0xfedcba), 0x807edcba);
	/* one invalidation anywhere in the 8 MiB drops the whole leaf */
	for (unsigned i = 4; i < 8; i++)
		l2[i] = 0x90000000ull | 0x3ff000 | NL(7) | PR | IR | IW;
	assert_int_equal(through(DEV, 0x800000), 0x80000000);
	inval_pages(1, 0xa00000, false);
	assert_int_equal(through(DEV, 0x800000), 0x90000000);
	/* a size no larger than the entry's own span is refused */
	l2[9] = 0x12344000ull | NL(7) | PR | IR | IW; /* bit 12 zero: 8 KiB at level 2 */
	uint64_t phys;
	assert_false(dma(DEV, 9ull << 21, false, &phys));
	assert_true(event_at(0)[1] & AMDVIM_EVF_RZ);
}

static void permissions_from_dte_pde_and_pte(void **state)
{
	(void)state;
	unit(ON);
	uint64_t *root = translated(DEV, 3, 0x42), phys;
	map(root, 3, 1, 0x1000, 0x11000, IR);
	assert_true(dma(DEV, 0x1000, false, &phys));
	assert_false(dma(DEV, 0x1008, true, &phys));
	const uint32_t *e = event_at(0);
	assert_int_equal(e[0], DEV);
	assert_int_equal(e[1] >> 28, AMDVIM_EV_IO_PAGE_FAULT);
	assert_int_equal(e[1] & 0xffff, 0x42);
	assert_int_equal(e[1] & (AMDVIM_EVF_PR | AMDVIM_EVF_PE | AMDVIM_EVF_RW),
			 AMDVIM_EVF_PR | AMDVIM_EVF_PE | AMDVIM_EVF_RW);
	assert_int_equal(event_addr(e), 0x1008);
	/* a PDE without IW forbids writes below it */
	map(root, 3, 1, 0x40000000, 0x22000, IR | IW);
	root[1] &= ~IW;
	assert_false(dma(DEV, 0x40000000, true, &phys));
	assert_true(dma(DEV, 0x40000000, false, &phys));
	/* the DTE's IW too */
	unit(ON);
	root = translated(DEV, 3, 1);
	devtab[4 * DEV] &= ~IW;
	map(root, 3, 1, 0x1000, 0x11000, IR | IW);
	assert_false(dma(DEV, 0x1000, true, &phys));
	/* not present: PR clear, the read flag clear; a leaf with an address
	 * and permissions but PR=0 is not present either */
	assert_false(dma(DEV, 0x5000, false, &phys));
	e = event_at(1);
	assert_int_equal(e[1] & (AMDVIM_EVF_PR | AMDVIM_EVF_RW), 0);
	assert_int_equal(event_addr(e), 0x5000);
	*map(root, 3, 1, 0x6000, 0x66000, IR | IW) &= ~PR;
	assert_false(dma(DEV, 0x6000, false, &phys));
	assert_int_equal(event_addr(event_at(2)), 0x6000);
}

static void dte_states(void **state)
{
	(void)state;
	uint64_t phys;
	unit(ON);
	assert_int_equal(through(OTHER, 0x1234), 0x1234); /* V=0: untranslated */
	dte(0x300, DTE_V | IR, 0);			  /* TV=0: untranslated within IR/IW */
	assert_true(dma(0x300, 0x5000, false, &phys));
	assert_false(dma(0x300, 0x5000, true, &phys));
	dte(0x301, DTE_V | DTE_TV | MODE(0) | IW, 0); /* Mode 0 likewise */
	assert_true(dma(0x301, 0x5000, true, &phys));
	assert_false(dma(0x301, 0x5000, false, &phys));
	dte(0x302, DTE_V | DTE_TV | MODE(7) | IR | IW, 0);
	assert_false(dma(0x302, 0x5000, false, &phys));
	assert_int_equal(event_at(2)[1] >> 28, AMDVIM_EV_ILLEGAL_DEV_TABLE_ENTRY);
	dte(0x303, DTE_V | DTE_TV | MODE(0) | IR | IW | (1ull << 55), 0); /* GV without GTSup */
	assert_false(dma(0x303, 0x5000, false, &phys));
	assert_int_equal(event_at(3)[0], 0x303);
	assert_true(event_at(3)[1] & AMDVIM_EVF_RZ);
	dte(0x304, DTE_V | DTE_TV | MODE(0), 1ull << 34); /* SA: the fault is not logged */
	assert_false(dma(0x304, 0x5000, false, &phys));
	assert_int_equal(rd(EVT_TAIL), 4 * 16);
	/* IommuEn off: nothing is translated */
	wr(CONTROL, 0);
	assert_true(dma(0x302, 0x5000, true, &phys));
	assert_clean();
}

/* What the unit cannot read: a device past the table's size, a table at
 * an address nothing answers. */
static void short_tables_and_master_aborts(void **state)
{
	(void)state;
	unit(ON);
	dte(DEV, DTE_V | DTE_TV | MODE(3) | IR | IW, 1); /* page table root 0 */
	uint64_t phys;
	assert_false(dma(DEV, 0x1000, false, &phys));
	assert_int_equal(event_at(0)[1] >> 28, AMDVIM_EV_PAGE_TAB_HARDWARE_ERROR);
	wr(CONTROL, 0);
	wr(DEV_TAB, pa(devtab)); /* one page: 128 entries */
	wr(CONTROL, ON);
	command(0, 8u << 28, 0, 0); /* the DTE cache still holds DEV's entry */
	assert_int_equal(through(0x7f, 0x1000), 0x1000);
	assert_false(dma(DEV, 0x1000, false, &phys));
	assert_int_equal(event_at(1)[0], DEV);
	assert_int_equal(event_at(1)[1] >> 28, AMDVIM_EV_ILLEGAL_DEV_TABLE_ENTRY);
	assert_clean();
	wr(CONTROL, 0);
	wr(DEV_TAB, 0x1ff);
	wr(CONTROL, ON); /* enabled with no device table: counted, and nothing read */
	assert_int_equal(m.protocol_errors, 1);
	assert_false(dma(0x7e, 0x1000, false, &phys));
	assert_int_equal(event_at(2)[1] >> 28, AMDVIM_EV_DEV_TAB_HARDWARE_ERROR);
}

static void exclusion_range(void **state)
{
	(void)state;
	unit(ON);
	translated(DEV, 3, 1);								/* nothing mapped */
	dte(0x300, DTE_V | DTE_TV | MODE(3) | pa(page()) | IR | IW, 2ull | 1ull << 39); /* EX */
	wr(EXCL_BASE, 0x100000 | 1);							/* ExEn */
	wr(EXCL_LIMIT, 0x1fffff); /* the low 12 bits read as ones: writing them is no fault */
	uint64_t phys;
	assert_false(dma(DEV, 0x100000, false, &phys));
	assert_int_equal(through(0x300, 0x1fffff), 0x1fffff);
	assert_false(dma(0x300, 0x200000, false, &phys));
	wr(EXCL_BASE, 0x100000 | 3); /* Allow: every device */
	assert_int_equal(through(DEV, 0x100000), 0x100000);
	assert_clean();
}

/* ---- caches and their invalidations ----------------------------------------- */

static void iotlb_stale_until_the_precise_invalidation(void **state)
{
	(void)state;
	unit(ON);
	uint64_t *root = translated(DEV, 4, 5);
	uint64_t *a = map(root, 4, 1, 0x10000, 0xa000, IR | IW);
	map(root, 4, 1, 0x11000, 0xb000, IR | IW);
	assert_int_equal(through(DEV, 0x10000), 0xa000);
	*a = 0xc000 | PR | IR | IW;
	assert_int_equal(through(DEV, 0x10000), 0xa000); /* cached */
	inval_pages(6, 0x10000, false);			 /* another domain */
	inval_pages(5, 0x11000, false);			 /* another page */
	inval_pages(5, 0x12000, true);			 /* 8 KiB at 0x12000 */
	inval_dte(DEV);					 /* the IOTLB is not the DTE cache */
	assert_int_equal(through(DEV, 0x10000), 0xa000);
	assert_int_equal(m.page_invalidations, 3);
	inval_pages(5, 0x10000, false);
	assert_int_equal(through(DEV, 0x10000), 0xc000);
	/* a range with S: 0x13000, bits 13:12 ones and 14 zero, is 32 KiB at 0x10000 */
	*a = 0xd000 | PR | IR | IW;
	assert_int_equal(through(DEV, 0x10000), 0xc000);
	inval_pages(5, 0x13000, true);
	assert_int_equal(through(DEV, 0x10000), 0xd000);
	/* 0x11000 with S is 16 KiB at 0x10000: 0x13000 goes, 0x14000 stays */
	uint64_t *c = map(root, 4, 1, 0x13000, 0x13000, IR | IW), *d = map(root, 4, 1, 0x14000, 0x14000, IR | IW);
	assert_int_equal(through(DEV, 0x13000) + through(DEV, 0x14000), 0x27000);
	*c = 0x33000 | PR | IR | IW;
	*d = 0x44000 | PR | IR | IW;
	inval_pages(5, 0x11000, true);
	assert_int_equal(through(DEV, 0x13000), 0x33000);
	assert_int_equal(through(DEV, 0x14000), 0x14000);
	/* every page of the domain: S with 7FFF_FFFF_FFFF_F000h */
	*a = 0xe000 | PR | IR | IW;
	inval_pages(5, 0x7ffffffffffff000ull, true);
	assert_int_equal(through(DEV, 0x10000), 0xe000);
	/* INVALIDATE_IOMMU_ALL drops everything */
	*a = 0xf000 | PR | IR | IW;
	command(0, 8u << 28, 0, 0);
	assert_int_equal(through(DEV, 0x10000), 0xf000);
	assert_int_equal(rd(CMD_HEAD), rd(CMD_TAIL));
	assert_clean();
}

static void dte_cached_until_invalidate_devtab_entry(void **state)
{
	(void)state;
	unit(ON);
	uint64_t *root = translated(DEV, 3, 1), *root2 = page();
	map(root, 3, 1, 0x1000, 0x11000, IR | IW);
	map(root2, 3, 1, 0x1000, 0x22000, IR | IW);
	assert_int_equal(through(DEV, 0x1000), 0x11000);
	dte(DEV, DTE_V | DTE_TV | MODE(3) | pa(root2) | IR | IW, 2); /* another domain, another table */
	assert_int_equal(through(DEV, 0x1000), 0x11000);
	inval_dte(DEV + 1);
	inval_pages(1, 0x1000, false); /* the old domain's page: the DTE still names it */
	map(root, 3, 1, 0x1000, 0x11000, IR | IW);
	assert_int_equal(through(DEV, 0x1000), 0x11000);
	inval_dte(DEV);
	assert_int_equal(through(DEV, 0x1000), 0x22000);
	assert_int_equal(m.dte_invalidations, 2);
	/* a DTE turned invalid stays in use until invalidated as well */
	dte(DEV, 0, 0);
	assert_int_equal(through(DEV, 0x1000), 0x22000);
	inval_dte(DEV);
	assert_int_equal(through(DEV, 0x1000), 0x1000);
	assert_clean();
}

/* ---- interrupt remapping (2.2.5) ------------------------------------------ */

/* DTE quadword 2 and the 32-bit IRTE, the test's own reading */
#define IV 1ull
#define INT_TAB_LEN(n) ((uint64_t)(n) << 1)
#define IG (1ull << 5)
#define INT_CTL(c) ((uint64_t)(c) << 60)
#define REMAP_EN 1u
#define SUP_IOPF 2u
#define IRTE(vector, dest) (REMAP_EN | (uint32_t)(dest) << 8 | (uint32_t)(vector) << 16)
#define MSI 0xfee00000ull

static _Alignas(128) uint32_t irt[64];

static void remapped(uint16_t devid, unsigned log2n, uint64_t extra)
{
	dte(devid, DTE_V | IR | IW, 1);
	devtab[4 * devid + 2] = IV | INT_TAB_LEN(log2n) | pa(irt) | INT_CTL(2) | extra;
}

static bool msi(uint16_t devid, uint64_t addr, uint32_t data, uint8_t *v, uint32_t *d)
{
	*v = 0, *d = 0;
	return amdvim_msi(&m, devid, addr, data, v, d);
}

/* One I=1 IO_PAGE_FAULT logged for `devid` with exactly `flags`. */
static void assert_interrupt_fault(unsigned i, uint16_t devid, uint32_t flags)
{
	const uint32_t *e = event_at(i);
	assert_int_equal(e[0] & 0xffff, devid);
	assert_int_equal(e[1] >> 28, 2);
	assert_int_equal(e[1] & 0x0fff0000u, (1u << 19) | flags);
	assert_int_equal(event_addr(e), MSI);
}

static void interrupts_remapped_blocked_and_logged(void **state)
{
	(void)state;
	memset(irt, 0, sizeof(irt));
	unit(ON);
	uint8_t v;
	uint32_t d;
	remapped(DEV, 4, 0); /* 16 entries */
	irt[3] = IRTE(0x45, 7);
	assert_true(msi(DEV, MSI | 2 << 12, 3, &v, &d));
	assert_int_equal(v, 0x45);
	assert_int_equal(d, 7);
	/* not an interrupt: outside the APIC window */
	assert_false(msi(DEV, 0xfed00000, 3, &v, &d));
	/* RemapEn=0, past IntTabLen, reserved bits: blocked, logged */
	assert_false(msi(DEV, MSI, 4, &v, &d));
	assert_interrupt_fault(0, DEV, 0);
	assert_false(msi(DEV, MSI, 16, &v, &d));
	assert_interrupt_fault(1, DEV, 1u << 20);
	irt[5] = IRTE(0x46, 1) | 0x80u; /* GuestMode without GA */
	assert_false(msi(DEV, MSI, 5, &v, &d));
	assert_interrupt_fault(2, DEV, 1u << 20 | 1u << 23);
	irt[6] = IRTE(0x46, 1) | 2u << 2; /* IntType 010b */
	assert_false(msi(DEV, MSI, 6, &v, &d));
	assert_interrupt_fault(3, DEV, 1u << 20 | 1u << 23);
	/* SupIOPF and IG keep them out of the log, still blocked */
	irt[7] = SUP_IOPF;
	assert_false(msi(DEV, MSI, 7, &v, &d));
	remapped(OTHER, 4, IG);
	assert_false(msi(OTHER, MSI, 20, &v, &d));
	assert_int_equal(m.events, 4);
	assert_int_equal(m.interrupts_blocked, 6);
	/* IntCtl 01b passes, 00b aborts silently, 11b is an illegal DTE; IV=0
	 * and IommuEn=0 pass as sent */
	remapped(OTHER + 1, 4, 0);
	devtab[4 * (OTHER + 1) + 2] ^= INT_CTL(3);
	assert_true(msi(OTHER + 1, MSI | 1 << 12, 0x31, &v, &d));
	assert_int_equal(v, 0x31);
	assert_int_equal(d, 1);
	remapped(OTHER + 2, 4, 0);
	devtab[4 * (OTHER + 2) + 2] &= ~INT_CTL(3);
	assert_false(msi(OTHER + 2, MSI, 3, &v, &d));
	remapped(OTHER + 3, 4, INT_CTL(1));
	assert_false(msi(OTHER + 3, MSI, 3, &v, &d));
	assert_int_equal(event_at(4)[1] >> 28, 1);
	remapped(OTHER + 4, 12, 0); /* IntTabLen 12: reserved */
	assert_false(msi(OTHER + 4, MSI, 3, &v, &d));
	assert_int_equal(event_at(5)[1] >> 28, 1);
	dte(OTHER + 5, DTE_V | IR | IW, 1);
	assert_true(msi(OTHER + 5, MSI, 0x3a, &v, &d));
	assert_int_equal(v, 0x3a);
	wr(CONTROL, ON & ~IOMMU_EN);
	assert_true(msi(DEV, MSI, 4, &v, &d));
	assert_int_equal(v, 4);
	assert_clean();
}

static void inval_interrupt_table(uint16_t devid)
{
	command(devid, 5u << 28, 0, 0);
}

/* An entry once used stays in use until INVALIDATE_INTERRUPT_TABLE for its
 * device (another device's does nothing) or INVALIDATE_IOMMU_ALL. */
static void irte_cached_until_invalidate_interrupt_table(void **state)
{
	(void)state;
	memset(irt, 0, sizeof(irt));
	unit(ON);
	uint8_t v;
	uint32_t d;
	remapped(DEV, 3, 0);
	irt[2] = IRTE(0x50, 1);
	assert_true(msi(DEV, MSI, 2, &v, &d));
	irt[2] = IRTE(0x51, 2);
	assert_true(msi(DEV, MSI, 2, &v, &d));
	assert_int_equal(v, 0x50);
	inval_interrupt_table(DEV + 1);
	assert_true(msi(DEV, MSI, 2, &v, &d));
	assert_int_equal(v, 0x50);
	inval_interrupt_table(DEV);
	assert_true(msi(DEV, MSI, 2, &v, &d));
	assert_int_equal(v, 0x51);
	assert_int_equal(d, 2);
	/* a present entry turned off is still used until invalidated */
	irt[2] = 0;
	assert_true(msi(DEV, MSI, 2, &v, &d));
	command(0, 8u << 28, 0, 0); /* INVALIDATE_IOMMU_ALL */
	assert_false(msi(DEV, MSI, 2, &v, &d));
	assert_int_equal(m.irt_invalidations, 2);
	assert_true(m.irte_hits >= 3);
	assert_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walks_every_level_count_and_leaf),
		cmocka_unit_test(skips_levels_and_checks_skipped_bits),
		cmocka_unit_test(encoded_page_size),
		cmocka_unit_test(permissions_from_dte_pde_and_pte),
		cmocka_unit_test(dte_states),
		cmocka_unit_test(short_tables_and_master_aborts),
		cmocka_unit_test(exclusion_range),
		cmocka_unit_test(iotlb_stale_until_the_precise_invalidation),
		cmocka_unit_test(dte_cached_until_invalidate_devtab_entry),
		cmocka_unit_test(interrupts_remapped_blocked_and_logged),
		cmocka_unit_test(irte_cached_until_invalidate_interrupt_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
