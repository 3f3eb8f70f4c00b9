/* The RISC-V IOMMU's discovery from a device tree (iommu/riscv/discover.c
 * through fdt_platform_read), on trees built as QEMU's riscv64 virt lays
 * them out: a unit whose node's status rules it out is said once and never
 * made (issue 45: a second riscv,iommu node, disabled, where nothing
 * answers, became riscv1 and faulted when its capabilities were read). */
#include "unit.h"

#include <string.h>

#include "core/base/claims.h"
#include "core/base/platform.h"
#include "core/monitor/early.h"
#include "fdt_build.h"
#include "iommu/machine.h"
#include "iommu/riscv/rvi.h"
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
 * map sends to the usable unit are its. */
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
	assert_int_equal(
	    count(out,
		  "  note: the device tree's RISC-V IOMMU /soc/iommu@9000000 is not driven: status \"disabled\"\n"),
	    1);
	assert_null(strstr(out, "0x9000000 is not driven: status \"disabled\"\n  note"));
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
 * although its ids are the backend's. */
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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(disabled_unit_not_driven, setup, teardown),
		cmocka_unit_test_setup_teardown(disabled_pci_function, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
