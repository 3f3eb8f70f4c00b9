/* DMA aliases and the MMIO claims, on function lists built by hand: the
 * requester ids a function's DMA carries through PCIe ports, PCIe-to-PCI
 * bridges, conventional bridges and known quirks; the IVHD's alias entries
 * joined to them; who shares an alias; and a base inside an ECAM window,
 * a BAR or another unit's window refused by name. */
#include "unit.h"

#include "core/base/claims.h"
#include "core/monitor/early.h"
#include "core/tables/mcfg.h"
#include "iommu/iommu.h"
#include "iommu/units.h"
#include "pci/alias.h"

static struct pci_dev devs[8];
static struct pci_list list = { devs, 0, 0, 0, 0 };

static int add(uint8_t bus, uint8_t dev, uint8_t fn, int parent, int pcie_type, uint8_t sec)
{
	struct pci_dev *d = &devs[list.n];
	*d = (struct pci_dev){ .addr = { 0, bus, dev, fn },
			       .vendor = 0x1234,
			       .device = 0x11e8,
			       .parent = parent,
			       .pcie_type = (int8_t)pcie_type,
			       .iommu = -1,
			       .class = 0x00ff00 };
	if (sec) {
		d->header_type = 1, d->sec_bus = sec, d->sub_bus = sec, d->class = 0x060400;
	}
	return (int)list.n++;
}

/* root port 00:1c.0 -> pcie-pci-bridge 01:00.0 -> pci-bridge 02:01.0 -> 03:00.0 */
static int chain(void)
{
	list.n = 0;
	int rp = add(0, 0x1c, 0, -1, 4, 1);
	int ppb = add(1, 0, 0, rp, 7, 2);
	int pb = add(2, 1, 0, ppb, -1, 3);
	return add(3, 0, 0, pb, -1, 0);
}

static void behind_bridges(void **state)
{
	(void)state;
	int dut = chain();
	struct pci_aliases al;
	pci_dma_aliases(&list, (size_t)dut, &al);
	assert_int_equal(al.n, 3);
	assert_int_equal(al.a[0].rid, 0x0300);
	assert_int_equal(al.a[0].how, PCI_ALIAS_SELF);
	assert_int_equal(al.a[1].rid, 0x0208); /* the conventional bridge's own id */
	assert_int_equal(al.a[1].how, PCI_ALIAS_BRIDGE);
	assert_int_equal(al.a[2].rid, 0x0200); /* the PCIe-to-PCI bridge: secondary bus, devfn 0 */
	assert_int_equal(al.a[2].how, PCI_ALIAS_PCIE_TO_PCI);
	assert_false(al.cut);
	char s[400];
	pci_aliases_str(&list, &al, s, sizeof(s));
	assert_string_equal(s, "02:01.0 (bridge 0000:02:01.0 forwards it as its own), 02:00.0 (PCIe-to-PCI bridge "
			       "0000:01:00.0: its secondary bus, devfn 0)");
	/* a PCIe endpoint below the root port alone carries its own id */
	list.n = 0;
	int rp = add(0, 0x1c, 0, -1, 4, 1);
	int ep = add(1, 0, 0, rp, 0, 0);
	pci_dma_aliases(&list, (size_t)ep, &al);
	assert_int_equal(al.n, 1);
	pci_aliases_str(&list, &al, s, sizeof(s));
	assert_string_equal(s, "");
}

static void quirks(void **state)
{
	(void)state;
	list.n = 0;
	int m = add(0, 5, 0, -1, 0, 0);
	devs[m].vendor = 0x1b4b, devs[m].device = 0x9230; /* Marvell SATA: DMA as function 1 */
	struct pci_aliases al;
	pci_dma_aliases(&list, (size_t)m, &al);
	assert_int_equal(al.n, 2);
	assert_int_equal(al.a[1].rid, 0x0029);
	assert_int_equal(al.a[1].how, PCI_ALIAS_QUIRK);
	/* a bridge with no PCIe capability known to be a PCIe-to-PCI bridge */
	list.n = 0;
	int br = add(0, 0x1e, 0, -1, -1, 5);
	devs[br].vendor = 0x8086, devs[br].device = 0x244e;
	int d = add(5, 2, 0, br, -1, 0);
	pci_dma_aliases(&list, (size_t)d, &al);
	assert_int_equal(al.n, 2);
	assert_int_equal(al.a[1].rid, 0x0500);
	assert_int_equal(al.a[1].how, PCI_ALIAS_PCIE_TO_PCI);
}

static void alias_group(void **state)
{
	(void)state;
	int dut = chain();
	int other = add(3, 1, 0, 2, -1, 0); /* a second function behind the same bridges */
	struct iommu_units *u = calloc(1, sizeof(*u));
	assert_non_null(u);
	struct pci_aliases al;
	units_dma_aliases(u, &list, (size_t)dut, &al);
	size_t group[4];
	assert_int_equal(units_alias_group(u, &list, (size_t)dut, &al, group, 4), 1);
	assert_int_equal(group[0], (size_t)other);
	/* the bridges share the ids too, but they forward, they do not master */
	list.n--;
	assert_int_equal(units_alias_group(u, &list, (size_t)dut, &al, group, 4), 0);
	free(u);
}

static void iommu_rids(void **state)
{
	(void)state;
	struct iommu io = { .alias_rid = 0x0300, .nalias = 3, .alias = { 0x0208, 0x0200, 0x0208 } };
	uint16_t r[1 + IOMMU_MAX_ALIASES];
	assert_int_equal(iommu_dut_rids(&io, 0x0300, r), 3); /* each once */
	assert_int_equal(r[2], 0x0200);
	assert_int_equal(iommu_dut_rids(&io, 0x0400, r), 1); /* not this device's aliases */
	assert_true(iommu_rid_carries(&io, 0x0300, 0x0200));
	assert_false(iommu_rid_carries(&io, 0x0400, 0x0200));
	assert_false(iommu_rid_carries(&io, 0x0300, 0x0100));
}

static void claims(void **state)
{
	(void)state;
	claims_reset();
	claims_add(CLAIM_DEVICE, 0xb0000000, 0x10000000, "the ECAM window");
	claims_add(CLAIM_DEVICE, 0xfe000000, 0x4000, "BAR0 of 0000:00:02.0");
	claims_add(CLAIM_UNIT, 0xfed90000, 0x1000, "dmar0's register window");
	claims_add(CLAIM_DEVICE, 0xfffffffffffff000ull, 0x2000, "a wrapping BAR: never claimed");
	assert_string_equal(claims_owner(0xb0008000, 0x1000, false), "the ECAM window");
	assert_string_equal(claims_owner(0xfe003000, 0x2000, false), "BAR0 of 0000:00:02.0"); /* overlaps the end */
	assert_string_equal(claims_owner(0xfed90000, 0x1000, false), "dmar0's register window");
	assert_null(claims_owner(0xfed90000, 0x1000, true)); /* a unit's own window is no device's */
	assert_null(claims_owner(0xfed91000, 0x1000, false));
	assert_null(claims_owner(0xfe004000, 0x1000, false));
	assert_null(claims_owner(0xfffffffffffff800ull, 0x100, false));
	claims_reset();
	assert_null(claims_owner(0xb0008000, 0x1000, false));
}

/* A PCI UART's BAR holds the UART; anyone else's does not. */
static void claims_by_class(void **state)
{
	(void)state;
	claims_reset();
	claims_add_bar(0xc0000000, 0x1000, 0x070002, "BAR0 of 0000:00:04.0");
	claims_add_bar(0xc0100000, 0x100000, 0x00ff00, "BAR0 of 0000:00:05.0");
	assert_null(claims_other_owner(0xc0000000, 8, 0xff0000, 0x070000));
	assert_string_equal(claims_other_owner(0xc0000000, 8, 0, 0), "BAR0 of 0000:00:04.0");
	assert_string_equal(claims_other_owner(0xc0100000, 0x400, 0xff0000, 0x070000), "BAR0 of 0000:00:05.0");
	struct mcfg m = { .n = 2 };
	m.r[0] = (struct mcfg_region){ .base = 0xb0000000, .start_bus = 0, .end_bus = 0xff };
	m.r[1] = (struct mcfg_region){ .base = 0xe0000000, .segment = 1, .start_bus = 0x10, .end_bus = 0x1f };
	early_claim_ecam(&m);
	assert_string_equal(claims_owner(0xbff00000, 4, true), "the ECAM window of segment 0 buses 00-ff (MCFG)");
	assert_null(claims_owner(0xe0000000, 0x1000, true)); /* below segment 1's first bus */
	assert_string_equal(claims_owner(0xe1f00000, 4, true), "the ECAM window of segment 1 buses 10-1f (MCFG)");
	claims_reset();
}

static char dropped_why[256];
static unsigned drops;
static void dropped(const char *why)
{
	snprintf(dropped_why, sizeof(dropped_why), "%s", why);
	drops++;
}

/* Windows opened before the BARs were known: the audit after the
 * enumeration drops the one inside another device's BAR, once, named. */
static void early_windows_audited(void **state)
{
	(void)state;
	claims_reset();
	claims_early("hpet", 0xc0000000, 0x400, "ACPI HPET", 0, 0, dropped);
	claims_early("uart", 0xc0200000, 8, "ACPI SPCR", 0xff0000, 0x070000, dropped);
	claims_early("pmtimer", 0xfed00000, 4, "FADT", 0, 0, dropped);
	assert_int_equal(claims_early_audit(), 0); /* nothing claimed yet */
	claims_add_bar(0xc0000000, 0x100000, 0x00ff00, "BAR0 of 0000:00:02.0");
	claims_add_bar(0xc0200000, 0x1000, 0x070002, "BAR0 of 0000:00:03.0");
	assert_int_equal(claims_early_audit(), 1);
	assert_int_equal(drops, 1);
	assert_string_equal(
	    dropped_why, "hpet at 0xc0000000 (ACPI HPET) lies inside BAR0 of 0000:00:02.0: another device's registers");
	assert_int_equal(claims_early_audit(), 0); /* dropped once */
	claims_early_forget("uart");
	claims_add_bar(0xfed00000, 0x1000, 0x070002, "BAR1 of 0000:00:03.0"); /* a serial port's, not a timer's */
	assert_int_equal(claims_early_audit(), 1);
	assert_non_null(strstr(dropped_why, "pmtimer at 0xfed00000 (FADT) lies inside BAR1 of 0000:00:03.0"));
	claims_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(behind_bridges),
		cmocka_unit_test(quirks),
		cmocka_unit_test(alias_group),
		cmocka_unit_test(iommu_rids),
		cmocka_unit_test(claims),
		cmocka_unit_test(claims_by_class),
		cmocka_unit_test(early_windows_audited),
	};
	return cmocka_run_group_tests_name("alias", tests, NULL, NULL);
}
