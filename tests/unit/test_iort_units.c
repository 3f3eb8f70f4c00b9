/* SMMUv3 units in the inventory: an IORT the SMMUv3 backend's discovery
 * finds names smmu0, covers the devices whose requester ids lead to it (not those
 * going to the ITS only, nor another segment's), and `iommu` decodes its
 * ID registers (QEMU 7.2's values, shared/specs/qemu-iommus.md section 3)
 * from a register page in memory. */
#include "unit.h"

#include "iommu/smmuv3/smmuv3.h"
#include "iommu/units.h"
#include "iort_build.h"
#include "tests/host/platform_host.h"

/* ITS at 0x30, SMMUv3 at 0x48 at `base`, root complex (segment 0) at 0xa0:
 * buses 0-0x7f to the SMMU, the rest to the ITS. */
static void build(uint64_t base)
{
	header(3, 3);
	its(0);
	smmuv3(1, base, 106, 1);
	map(0, 0xffff, 0, QEMU_ITS, 0);
	rc(2, 0, 2);
	map(0, 0x7fff, 0, QEMU_SMMU, 0);
	map(0x8000, 0x7fff, 0x8000, QEMU_ITS, 0);
	seal();
}

static struct pci_list list;

static void devices(void)
{
	static const struct pci_addr at[] = { { 0, 0, 1, 0 }, { 0, 0, 2, 0 }, { 0, 0x80, 0, 0 }, { 1, 0, 1, 0 } };
	list.n = 4;
	list.d = calloc(list.n, sizeof(*list.d));
	for (size_t i = 0; i < list.n; i++)
		list.d[i].addr = at[i], list.d[i].iommu = -1, list.d[i].parent = -1;
}

static void *regs;

static void describe(void *arg)
{
	units_describe(arg);
}

static void smmuv3_unit(void **state)
{
	(void)state;
	platform = &host_platform;
	host_set_phys_bits(52); /* the host's heap addresses are past a default 36 */
	regs = aligned_alloc(0x10000, 0x20000);
	memset(regs, 0, 0x20000);
	uint32_t idr[6] = { 0x0d40101a, 0x02730010, 0, 0x1404, 0, 0x74 };
	memcpy(regs, idr, sizeof(idr));
	memcpy((uint8_t *)regs + 0x1c, &(uint32_t){ 1 }, 4);
	build((uintptr_t)regs);
	devices();
	struct iommu_units u;
	units_build(&u, &(struct units_table){ &smmuv3_backend, t, tl }, 1, &list);
	assert_non_null(smmuv3_units_iort(&u));
	assert_int_equal(smmuv3_units_iort(&u)->diag.errors, 0);
	assert_int_equal(u.n, 1);
	const struct iommu_unit *s = &u.u[0];
	assert_string_equal(s->name, "smmu0");
	assert_ptr_equal(s->backend, &smmuv3_backend);
	assert_string_equal(s->backend->name, "smmuv3");
	assert_int_equal(s->base, (uintptr_t)regs);
	assert_int_equal(s->size, 0x20000);
	assert_int_equal(s->segment, 0);
	assert_string_equal(s->source, "IORT SMMUv3 node at 0x48");
	assert_string_equal(s->refused, "");
	assert_int_equal(list.d[0].iommu, 0);
	assert_int_equal(list.d[1].iommu, 0);
	assert_int_equal(list.d[2].iommu, -1); /* bus 0x80: to the ITS only */
	assert_int_equal(list.d[3].iommu, -1); /* segment 1: no root complex */
	assert_int_equal(s->ndevices, 2);

	struct unit_regs r;
	assert_true(units_read_regs(s, &r));
	assert_int_equal(r.r[0], 0x0d40101a); /* IDR0..5, then AIDR */
	assert_int_equal(r.r[5], 0x74);
	assert_int_equal(r.r[6], 1);
	const char *out = capture_stdout(describe, (void *)s);
	assert_non_null(strstr(out, "IDR0 0x0d40101a: S1P TTF=2 COHACC HTTU=0 ASID16 STALL_MODEL=1 ST_LEVEL=1"));
	assert_null(strstr(out, "S2P"));
	assert_non_null(strstr(out, "SIDSIZE=16 SSIDSIZE=0"));
	assert_non_null(strstr(out, "EVTQS=19 CMDQS=19"));
	assert_non_null(strstr(out, "HAD RIL BBML=2"));
	assert_non_null(strstr(out, "OAS=4 GRAN4K GRAN16K GRAN64K (44-bit output addresses)"));
	assert_non_null(strstr(out, "SMMUv3.1"));

	memset(regs, 0xff, 0x20); /* nothing answers */
	assert_false(units_read_regs(s, &r));
	units_free(&u);
	assert_null(smmuv3_units_iort(&u));
	free(list.d);
	free(regs);
	host_set_phys_bits(0);
}

/* A backend earlier in the list (here one of the test's own, as VT-d is
 * in the registry) claims first: a device it covers keeps its unit, and
 * the IORT only fills the rest. */
static const struct iommu_backend earlier_backend;

static void earlier_find(struct iommu_units *u, const struct iommu_backend *self, void *state,
			 const struct pci_list *pci)
{
	(void)state, (void)pci;
	assert_ptr_equal(self, &earlier_backend);
	struct iommu_unit unit = {
		.name = "earlier0", .backend = &earlier_backend, .base = 0x0a000000, .size = 0x1000
	};
	snprintf(unit.source, sizeof(unit.source), "the test");
	assert_int_equal(units_add(u, &unit, NULL), 0);
}

static void earlier_claim(struct iommu_units *u, const struct iommu_backend *self, void *state, struct pci_list *pci)
{
	(void)state, (void)self;
	units_cover(u, pci, 0, 0);
}

static const struct iommu_discovery earlier_discovery = { .find = earlier_find, .claim = earlier_claim };
static const struct iommu_backend earlier_backend = { .name = "earlier", .discovery = &earlier_discovery };

static void earlier_units_kept(void **state)
{
	(void)state;
	build(0x09050000);
	devices();
	struct iommu_units u;
	const struct units_table tables[] = { { &earlier_backend, NULL, 0 }, { &smmuv3_backend, t, tl } };
	units_build(&u, tables, 2, &list);
	assert_int_equal(u.n, 2);
	assert_string_equal(u.u[1].name, "smmu0");
	assert_int_equal(list.d[0].iommu, 0);
	assert_int_equal(list.d[1].iommu, 1);
	assert_int_equal(u.u[0].ndevices, 1);
	assert_int_equal(u.u[1].ndevices, 1);
	units_free(&u);
	free(list.d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(smmuv3_unit),
		cmocka_unit_test(earlier_units_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
