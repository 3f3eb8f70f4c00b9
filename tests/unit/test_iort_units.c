/* SMMUv3 units in the inventory: an IORT taken over by units_adopt_iort
 * names smmu0, covers the devices whose requester ids lead to it (not those
 * going to the ITS only, nor another segment's), and `iommu` decodes its
 * ID registers (QEMU 7.2's values, shared/specs/qemu-iommus.md section 3)
 * from a register page in memory. */
#include "unit.h"

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
	struct iort iort;
	assert_int_equal(iort_parse(t, tl, &iort), 0);
	assert_int_equal(iort.diag.errors, 0);
	struct iommu_units u;
	units_adopt(&u, NULL, NULL, &list);
	units_adopt_iort(&u, &iort, &list);
	assert_true(u.have_iort);
	assert_int_equal(u.n, 1);
	const struct iommu_unit *s = &u.u[0];
	assert_string_equal(s->name, "smmu0");
	assert_int_equal(s->type, IOMMU_SMMUV3);
	assert_string_equal(iommu_type_name(s->type), "smmuv3");
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
	assert_int_equal(r.idr[0], 0x0d40101a);
	assert_int_equal(r.idr[5], 0x74);
	assert_int_equal(r.aidr, 1);
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
	assert_false(u.have_iort);
	free(list.d);
	free(regs);
	host_set_phys_bits(0);
}

/* A device a DMAR unit covers keeps it; the IORT only fills the rest. */
static void earlier_units_kept(void **state)
{
	(void)state;
	build(0x09050000);
	devices();
	list.d[0].iommu = 0; /* as if units_adopt had given it unit 0 */
	struct iort iort;
	iort_parse(t, tl, &iort);
	struct iommu_units u;
	memset(&u, 0, sizeof(u));
	u.n = 1;
	u.u[0].ndevices = 1;
	units_adopt_iort(&u, &iort, &list);
	assert_int_equal(u.n, 2);
	assert_string_equal(u.u[1].name, "smmu0");
	assert_int_equal(list.d[0].iommu, 0);
	assert_int_equal(list.d[1].iommu, 1);
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
