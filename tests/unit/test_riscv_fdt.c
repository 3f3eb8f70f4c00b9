/* The RISC-V IOMMU's discovery from a device tree (iommu/riscv/discover.c
 * through fdt_platform_read), on trees built as QEMU's riscv64 virt lays
 * them out: a unit whose node's status rules it out is said once and never
 * made (issue 45: a second riscv,iommu node, disabled, where nothing
 * answers, became riscv1 and faulted when its capabilities were read); an
 * iommu-map entry that cannot be followed is named at discovery, and the
 * devices it would have given a unit say why they have none instead of
 * that no unit covers them. */
#include "unit.h"

#include <string.h>

#include "core/base/claims.h"
#include "core/base/platform.h"
#include "core/monitor/early.h"
#include "fdt_build.h"
#include "iommu/machine.h"
#include "iommu/riscv/rvi.h"
#include "iommu/session.h"
#include "iommu/units.h"
#include "tests/host/platform_host.h"

static struct platform dt_platform;
static const void *tree;

static const void *dt(void)
{
	return tree;
}

static int setup(void **state)
{
	(void)state;
	dt_platform = host_platform;
	dt_platform.device_tree = dt;
	platform = &dt_platform;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	units_free(&machine.units);
	memset(&machine, 0, sizeof(machine));
	tree = NULL;
	early_fdt_forget();
	claims_reset();
	platform = &host_platform;
	return 0;
}

static void adopt(void *arg)
{
	(void)arg;
	const struct iommu_backend *list[] = { &riscv_backend };
	units_adopt(&machine.units, list, NULL, 1, &machine.pci);
}

/* Discovery on `n` functions `d` under the tree just built: what it printed. */
static const char *discover(struct pci_dev *d, size_t n, size_t len)
{
	(void)len;
	units_free(&machine.units);
	memset(&machine, 0, sizeof(machine));
	machine.pci.d = d;
	machine.pci.n = n;
	tree = fdtb_blob;
	early_fdt_forget();
	claims_reset();
	return capture_stdout(adopt, NULL);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

static void second_iommu_disabled(void)
{
	fdtb_begin("iommu@9000000");
	fdtb_str("compatible", "riscv,iommu");
	FDTB_CELLS("reg", 0, 0x9000000u, 0, 0x1000);
	FDTB_CELLS("#iommu-cells", 1);
	FDTB_CELLS("phandle", 8);
	fdtb_str("status", "disabled");
	fdtb_end();
}

#define NVME(bus, dev, fn)                                                                                       \
	{                                                                                                        \
		.addr = { 0, bus, dev, fn }, .vendor = 0x1b36, .device = 0x0010, .class = 0x010802, .parent = -1 \
	}

/* The finding: the disabled node is no unit, said once; the devices the
 * map sends to it say so, the others are the usable unit's. */
static void disabled_unit_not_driven(void **state)
{
	(void)state;
	static const uint32_t map[] = { 0x0000, 7, 0x0000, 0x100, 0x0100, 8, 0x0100, 0x100 };
	size_t len = fdtb_virt(&(struct fdtb_virt){ .map = map, .nmap = 8, .soc = second_iommu_disabled });
	static struct pci_dev d[] = { NVME(0, 1, 0), NVME(1, 0, 0) };
	const char *out = discover(d, 2, len);
	assert_int_equal(machine.units.n, 1);
	assert_string_equal(machine.units.u[0].name, "riscv0");
	assert_int_equal(machine.units.u[0].base, 0x3010000);
	assert_string_equal(machine.units.u[0].refused, "");
	assert_int_equal(d[0].iommu, 0);
	assert_int_equal(d[1].iommu, -1);
	assert_null(units_why_missing(&machine.units, &d[0]));
	const char *because = "the device tree's iommu-map entry 1 is not used: phandle 0x8 leads to "
			      "/soc/iommu@9000000: status \"disabled\"";
	assert_string_equal(units_why_missing(&machine.units, &d[1]), because);
	const char *why = NULL;
	assert_null(iommu_for_device(d[1].addr, &why));
	assert_non_null(why);
	assert_true(strncmp(why, "no IOMMU unit covers the device under test: ", 44) == 0);
	assert_string_equal(why + 44, because);
	assert_int_equal(
	    count(out,
		  "  note: the device tree's RISC-V IOMMU /soc/iommu@9000000 is not driven: status \"disabled\"\n"),
	    1);
	assert_int_equal(count(out, "  warning: the device tree's iommu-map entry 1 (requester ids 0x0100+0x100) is "
				    "not used: phandle 0x8 leads to /soc/iommu@9000000: status \"disabled\""),
			 1);
	assert_null(strstr(out, "entry 0"));
}

static void smmu(void)
{
	fdtb_begin("smmu@c000000");
	fdtb_str("compatible", "arm,smmu-v3");
	FDTB_CELLS("reg", 0, 0xc000000u, 0, 0x20000);
	FDTB_CELLS("#iommu-cells", 1);
	FDTB_CELLS("phandle", 12);
	fdtb_end();
}

/* Each device behind an entry that cannot be followed says which and why;
 * one behind an IOMMU of another kind says that; one in no entry has no
 * unit and nothing to add (the binding: an id no entry holds is not
 * translated). */
static void each_device_says_why(void **state)
{
	(void)state;
	static const uint32_t map[] = {
		0x0000, 7,  0x0000, 0x100, /* 0: good */
		0x0400, 99, 0x0400, 0x100, /* 1: no node */
		0x0200, 7,  0x0200, 0,	   /* 2: length 0 */
		0x0300, 12, 0x0300, 0x100, /* 3: an SMMUv3 */
		0x0080, 7,  0x0080, 0x100, /* 4: over entry 0's */
	};
	size_t len = fdtb_virt(&(struct fdtb_virt){ .map = map, .nmap = 20, .soc = smmu });
	static struct pci_dev d[] = { NVME(0, 1, 0), NVME(4, 0, 0), NVME(3, 0, 0), NVME(1, 0, 0), NVME(5, 0, 0) };
	const char *out = discover(d, 5, len);
	assert_int_equal(machine.units.n, 1);
	assert_int_equal(d[0].iommu, 0);
	for (size_t i = 1; i < 5; i++)
		assert_int_equal(d[i].iommu, -1);
	assert_string_equal(units_why_missing(&machine.units, &d[1]),
			    "the device tree's iommu-map entry 1 is not used: phandle 0x63 leads to no node");
	assert_string_equal(units_why_missing(&machine.units, &d[2]),
			    "the device tree's iommu-map puts it behind /soc/smmu@c000000 (arm,smmu-v3), which iommon "
			    "does not find through a device tree");
	assert_string_equal(units_why_missing(&machine.units, &d[3]),
			    "the device tree's iommu-map entry 4 is not used: requester ids 0x0080-0x017f overlap "
			    "entry 0's (0x0000-0x00ff)");
	assert_null(units_why_missing(&machine.units, &d[4]));
	/* each defect named once at discovery, the good entries not at all */
	for (size_t k = 0; k < 5; k++) {
		char entry[48];
		snprintf(entry, sizeof(entry), "  warning: the device tree's iommu-map entry %zu ", k);
		assert_int_equal(count(out, entry), k == 1 || k == 2 || k == 4);
	}
}

/* A map that is not whole entries is not read: no device is given a unit
 * by guesswork, and each says why. */
static void map_not_read(void **state)
{
	(void)state;
	static const uint32_t five[] = { 0, 7, 0, 0x100, 0 };
	size_t len = fdtb_virt(&(struct fdtb_virt){ .map = five, .nmap = 5 });
	static struct pci_dev d[] = { NVME(0, 1, 0) };
	const char *out = discover(d, 1, len);
	assert_int_equal(machine.units.n, 1);
	assert_int_equal(d[0].iommu, -1);
	assert_non_null(strstr(units_why_missing(&machine.units, &d[0]),
			       "the device tree's iommu-map: iommu-map of 20 bytes is not whole entries"));
	assert_non_null(strstr(out, "  warning: the device tree's iommu-map: iommu-map of 20 bytes"));
}

/* Device ids other than the requester ids, by an offset or by the mask:
 * the device is the unit's, and the unit is refused naming it. */
static void offset_and_mask_refuse_the_unit(void **state)
{
	(void)state;
	static const uint32_t offset[] = { 0, 7, 0x100, 0x100 };
	size_t len = fdtb_virt(&(struct fdtb_virt){ .map = offset, .nmap = 4 });
	static struct pci_dev d[] = { NVME(0, 1, 0), NVME(0, 1, 1) };
	discover(d, 1, len);
	assert_int_equal(d[0].iommu, 0);
	assert_non_null(strstr(machine.units.u[0].refused, "gives 0000:00:01.0 (requester id 0x0008) device id 0x108: "
							   "an offset the driver does not apply"));
	len = fdtb_virt(&(struct fdtb_virt){ .mask = 0xfff8 });
	discover(d, 2, len);
	assert_int_equal(d[0].iommu, 0);
	assert_int_equal(d[1].iommu, 0);
	assert_non_null(strstr(machine.units.u[0].refused,
			       "gives 0000:00:01.1 (requester id 0x0009) device id 0x8 (iommu-map-mask 0xfff8)"));
	/* without a map a disabled unit is why its segment has none */
	len = fdtb_virt(&(struct fdtb_virt){ .iommu = "disabled", .map = offset, .nmap = 0 });
	discover(d, 1, len);
	assert_int_equal(machine.units.n, 0);
}

static void pci_unit_disabled(void)
{
	fdtb_begin("pci@40000000");
	fdtb_str("compatible", "pci-host-ecam-generic");
	FDTB_CELLS("#address-cells", 3);
	FDTB_CELLS("#size-cells", 2);
	FDTB_CELLS("reg", 0, 0x40000000u, 0, 0x1000000u);
	FDTB_CELLS("iommu-map", 0, 5, 0, 8, 9, 5, 9, 0xfff7);
	fdtb_begin("iommu@1,0");
	fdtb_str("compatible", "riscv,pci-iommu");
	FDTB_CELLS("reg", 0x800, 0, 0, 0, 0);
	FDTB_CELLS("#iommu-cells", 1);
	FDTB_CELLS("phandle", 5);
	fdtb_str("status", "disabled");
	fdtb_end();
	fdtb_end();
}

/* A RISC-V IOMMU PCI function whose node is disabled is not made a unit
 * although its ids are the backend's; the map's entries to it say so. */
static void disabled_pci_function(void **state)
{
	(void)state;
	size_t len =
	    fdtb_virt(&(struct fdtb_virt){ .ecam = "disabled", .iommu = "disabled", .soc = pci_unit_disabled });
	static struct pci_dev d[] = {
		{ .addr = { 0, 0, 1, 0 },
		  .vendor = 0x1b36,
		  .device = 0x0014,
		  .class = 0x080600,
		  .parent = -1,
		  .nbars = 1,
		  .bar = { { .index = 0, .mem64 = true, .base = 0x41000000, .size = 0x1000 } } },
		NVME(0, 2, 0),
	};
	const char *out = discover(d, 2, len);
	assert_int_equal(machine.units.n, 0);
	assert_non_null(strstr(out, "  note: 0000:00:01.0, a RISC-V IOMMU, is not driven: its device tree node "
				    "/soc/pci@40000000/iommu@1,0: status \"disabled\"\n"));
	assert_string_equal(units_why_missing(&machine.units, &d[1]),
			    "the device tree's iommu-map entry 1 is not used: phandle 0x5 leads to "
			    "/soc/pci@40000000/iommu@1,0: status \"disabled\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(disabled_unit_not_driven, setup, teardown),
		cmocka_unit_test_setup_teardown(each_device_says_why, setup, teardown),
		cmocka_unit_test_setup_teardown(map_not_read, setup, teardown),
		cmocka_unit_test_setup_teardown(offset_and_mask_refuse_the_unit, setup, teardown),
		cmocka_unit_test_setup_teardown(disabled_pci_function, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
