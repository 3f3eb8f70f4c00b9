/* The redirection entries ir_ioapic_rte makes, sent as an I/O APIC sends
 * them (82093AA 3.2.4; QEMU's ioapic_entry_parse: entry bits 63:48 become
 * address bits 19:4, bit 11 address bit 2, the vector, delivery mode and
 * trigger mode the data) with the I/O APIC's requester id, into each
 * unit's register model: the interrupt arrives where the remapping entry
 * says, and only through that entry. */
#include "unit.h"

#include "core/base/ioapic.h"
#include "core/base/timing.h"
#include "iommu/amdvi/amdvi.h"
#include "iommu/amdvi/model.h"
#include "iommu/vtd/model.h"
#include "iommu/vtd/vtd.h"
#include "tests/host/platform_host.h"

#define VTD_IOAPIC_SID 0xff00	  /* QEMU q35's DMAR scope: bus 0xff, device 0 function 0 */
#define AMDVI_IOAPIC_DEVID 0x00a0 /* QEMU's IVHD special entry: 00:14.0 */

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

/* The message the I/O APIC sends for `rte` */
static void ioapic_message(uint64_t rte, uint64_t *addr, uint32_t *data)
{
	*addr = 0xfee00000u | ((rte >> 48) & 0xffff) << 4 | ((rte >> 11) & 1) << 2;
	*data = (uint32_t)(rte & 0xff) | (uint32_t)((rte >> 8) & 7) << 8 | (uint32_t)((rte >> 15) & 1) << 15;
}

static void vtd_entries(void **state)
{
	(void)state;
	static struct vtd_model m;
	static struct vtd v;
	vtdm_init(&m, VTDM_QEMU_CAP, (1ull << 3) | (1ull << 1)); /* ECAP.IR, ECAP.QI */
	assert_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
	assert_null(v.io.ops->take(&v.io));
	assert_null(v.io.ops->ir_enable(&v.io, true, 65536));
	struct iommu_irte e = {
		.present = true, .vector = 0x51, .dest = 2, .source_id = VTD_IOAPIC_SID, .sid_check = true
	};
	/* a handle with bit 15 set: it travels in entry bit 11 */
	unsigned handles[2] = { 0x1d2, 0x8003 };
	for (size_t i = 0; i < 2; i++) {
		uint64_t rte, addr;
		uint32_t data, dest;
		uint8_t vector;
		assert_null(v.io.ops->ir_set(&v.io, VTD_IOAPIC_SID, handles[i], &e));
		assert_null(v.io.ops->ir_invalidate(&v.io, 0, VTD_IOAPIC_SID, -1));
		assert_null(v.io.ops->ir_ioapic_rte(&v.io, handles[i], 0x51, &rte));
		assert_true(rte & IOAPIC_RTE_MASKED);
		assert_int_equal(rte & 0xff, 0x51); /* the IRTE's vector repeated */
		assert_false(rte & IOAPIC_RTE_LEVEL);
		ioapic_message(rte, &addr, &data);
		assert_true(vtdm_msi(&m, VTD_IOAPIC_SID, addr, data, &vector, &dest));
		assert_int_equal(vector, 0x51);
		assert_int_equal(dest, 2);
		/* the same entry refuses another requester */
		assert_false(vtdm_msi(&m, VTD_IOAPIC_SID + 1, addr, data, &vector, &dest));
	}
	assert_non_null(v.io.ops->ir_ioapic_rte(&v.io, 0x10000, 0, &(uint64_t){ 0 }));
	assert_int_equal(v.io.err, IOMMU_ERR_ARGUMENT);
	assert_null(v.io.ops->give_back(&v.io));
}

static void amdvi_entries(void **state)
{
	(void)state;
	static struct amdvi_model m;
	static struct amdvi a;
	amdvim_init(&m);
	assert_null(amdvi_init(&a, &m.win, "amdvi-model", NULL, NULL, NULL));
	assert_null(a.io.ops->take(&a.io));
	assert_null(a.io.ops->enable(&a.io, true));
	assert_null(a.io.ops->ir_enable(&a.io, true, 256));
	struct iommu_irte e = { .present = true, .vector = 0x61, .dest = 1, .source_id = AMDVI_IOAPIC_DEVID };
	assert_null(a.io.ops->ir_set(&a.io, AMDVI_IOAPIC_DEVID, 0xd2, &e));
	uint64_t rte, addr;
	uint32_t data, dest;
	uint8_t vector;
	assert_null(a.io.ops->ir_ioapic_rte(&a.io, 0xd2, 0x61, &rte));
	assert_int_equal(rte & 0xff, 0xd2); /* the vector field is the index */
	assert_true(rte & IOAPIC_RTE_MASKED);
	ioapic_message(rte, &addr, &data);
	assert_true(amdvim_msi(&m, AMDVI_IOAPIC_DEVID, addr, data, &vector, &dest));
	assert_int_equal(vector, 0x61);
	assert_int_equal(dest, 1);
	/* the entry is the I/O APIC's table's: not present for it, blocked */
	e.present = false;
	assert_null(a.io.ops->ir_set(&a.io, AMDVI_IOAPIC_DEVID, 0xd2, &e));
	assert_null(a.io.ops->ir_invalidate(&a.io, 0, AMDVI_IOAPIC_DEVID, -1));
	assert_false(amdvim_msi(&m, AMDVI_IOAPIC_DEVID, addr, data, &vector, &dest));
	assert_non_null(a.io.ops->ir_ioapic_rte(&a.io, 0x100, 0, &rte));
	assert_int_equal(a.io.err, IOMMU_ERR_ARGUMENT);
	assert_null(a.io.ops->give_back(&a.io));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(vtd_entries, setup),
		cmocka_unit_test_setup(amdvi_entries, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
