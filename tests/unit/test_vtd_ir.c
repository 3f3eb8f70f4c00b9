/* VT-d interrupt remapping, the driver against the register-level model:
 * enable through the queue and give-back as found, a remapped MSI
 * delivered where the entry says, blocked interrupts recorded with their
 * reason, source and index, entries stale until their IEC invalidation,
 * and the order the spec asks for (IRTA latched, IEC, CFI, then IRE). */
#include "unit.h"

#include "core/base/memmap.h"
#include "core/base/timing.h"
#include "iommu/vtd/model.h"
#include "iommu/vtd/vtd.h"
#include "tests/host/platform_host.h"

#define ECAP_IR (1ull << 3)
#define ECAP_QI (1ull << 1)
#define ECAP_EIM (1ull << 4)
#define DUT 0x0318   /* the device under test's requester id */
#define OTHER 0x0320 /* another function, another device */

static struct vtd_model m;
static struct vtd v;

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

static void open_unit(uint64_t ecap)
{
	vtdm_init(&m, VTDM_QEMU_CAP, ecap);
	memset(&v, 0, sizeof(v));
	assert_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
	assert_null(v.io.ops->take(&v.io));
}

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.oneshot_writes, 0);
	assert_int_equal(m.reg_while_queued, 0);
	assert_int_equal(m.ire_unready, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

static size_t kind(const char *name)
{
	for (size_t k = 0; k < v.io.nir_kinds; k++)
		if (strcmp(v.io.ir_kinds[k].name, name) == 0)
			return k;
	fail_msg("no kind %s", name);
	return 0;
}

static void set(unsigned index, uint8_t vector, uint32_t dest, uint16_t sid, bool check)
{
	struct iommu_irte e = { .present = true, .vector = vector, .dest = dest, .source_id = sid, .sid_check = check };
	assert_null(v.io.ops->ir_set(&v.io, DUT, index, &e));
}

/* The device sends what ir_msi gave for `index`: true and where it went. */
static bool raise(uint16_t sid, unsigned index, uint8_t *vector, uint32_t *dest)
{
	struct msi_message msg;
	assert_null(v.io.ops->ir_msi(&v.io, DUT, index, &msg));
	return vtdm_msi(&m, sid, msg.addr, msg.data, vector, dest);
}

/* One fault recorded: its kind, reason, source and index. */
static void assert_one_fault(enum iommu_fault_kind k, unsigned reason, uint16_t sid, uint64_t index)
{
	struct iommu_fault f[4];
	bool ovf;
	assert_true(v.io.ops->fault_pending(&v.io));
	assert_int_equal(v.io.ops->faults(&v.io, f, 4, &ovf), 1);
	assert_false(ovf);
	assert_int_equal(f[0].kind, k);
	assert_int_equal(f[0].reason, reason);
	assert_int_equal(f[0].sid, sid);
	assert_int_equal(f[0].addr, index);
	assert_false(v.io.ops->fault_pending(&v.io));
}

static void enables_and_gives_back_as_found(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_ECAP);
	/* the firmware's own pointer, never latched, recorded at take-over */
	assert_null(v.io.ops->give_back(&v.io));
	m.irta = 0x7700000full;
	v.found_valid = false;
	assert_null(v.io.ops->take(&v.io));
	assert_int_equal(v.io.nir_kinds, 2);
	assert_null(v.io.ops->ir_enable(&v.io, true, 100));
	/* 128 entries: S = 6, the table latched, then IEC, CFI and IRE */
	assert_int_equal(m.irt, (uint64_t)(uintptr_t)v.irt | 6);
	assert_int_equal(v.irt_size, 128);
	assert_true(m.gsts & VTD_GSTS_IRES);
	assert_true(m.gsts & VTD_GSTS_CFIS);
	assert_true(m.gsts & VTD_GSTS_QIES);
	assert_int_equal(m.iec_global, 1);
	/* right after enabling, nothing is pending (kvm-unit-tests' check) */
	assert_false(v.io.ops->fault_pending(&v.io));
	/* the firmware's compatibility-format interrupts still arrive */
	uint8_t vec;
	uint32_t dest;
	assert_true(vtdm_msi(&m, 0x00f8, 0xfee01000, 0x31, &vec, &dest));
	assert_int_equal(vec, 0x31);
	assert_int_equal(dest, 1);
	/* the queue stays on while remapping needs it */
	assert_non_null(v.io.ops->invalidate(&v.io, 0, 0, 4096));
	assert_int_equal(v.io.err, IOMMU_ERR_STATE);
	assert_null(v.io.ops->give_back(&v.io));
	assert_false(m.gsts & (VTD_GSTS_IRES | VTD_GSTS_CFIS | VTD_GSTS_QIES));
	assert_int_equal(m.irta, 0x7700000full);
	char note[200];
	assert_true(v.io.ops->as_found(&v.io, note, sizeof(note)));
	assert_non_null(strstr(v.io.restore_note, "as found"));
	assert_clean();
}

static void remapped_msi_goes_where_the_entry_says(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_ECAP);
	assert_null(v.io.ops->ir_enable(&v.io, true, 16));
	set(5, 0x42, 3, DUT, true);
	struct msi_message msg;
	assert_null(v.io.ops->ir_msi(&v.io, DUT, 5, &msg));
	/* remappable format: handle 5 in 19:5, bit 4 set, SHV clear */
	assert_int_equal(msg.addr, 0xfee00000u | 5u << 5 | 1u << 4);
	assert_int_equal(msg.data, 0);
	uint8_t vec;
	uint32_t dest;
	assert_true(vtdm_msi(&m, DUT, msg.addr, msg.data, &vec, &dest));
	assert_int_equal(vec, 0x42);
	assert_int_equal(dest, 3);
	/* a handle with bit 15 set travels in address bit 2 */
	assert_null(v.io.ops->ir_msi(&v.io, DUT, 0x8001, &msg));
	assert_int_equal(msg.addr, 0xfee00000u | 1u << 5 | 1u << 4 | 1u << 2);
	/* a destination beyond xAPIC's 8 bits is refused by name */
	struct iommu_irte big = { .present = true, .vector = 0x40, .dest = 256 };
	assert_non_null(v.io.ops->ir_set(&v.io, DUT, 1, &big));
	assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_false(v.io.ops->fault_pending(&v.io));
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

static void blocked_interrupts_recorded(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_ECAP);
	assert_null(v.io.ops->ir_enable(&v.io, true, 16));
	uint8_t vec;
	uint32_t dest;
	/* not present: every entry starts so */
	assert_false(raise(DUT, 7, &vec, &dest));
	assert_one_fault(IOMMU_FAULT_IR_NOT_PRESENT, 0x22, DUT, 7);
	/* an index past the 16-entry table */
	assert_false(raise(DUT, 16, &vec, &dest));
	assert_one_fault(IOMMU_FAULT_IR_INDEX, 0x21, DUT, 16);
	/* the source check: the entry admits DUT only */
	set(3, 0x50, 0, DUT, true);
	assert_false(raise(OTHER, 3, &vec, &dest));
	assert_one_fault(IOMMU_FAULT_IR_SOURCE, 0x26, OTHER, 3);
	assert_true(raise(DUT, 3, &vec, &dest));
	assert_int_equal(vec, 0x50);
	/* without the check anyone may use it */
	set(4, 0x51, 0, DUT, false);
	assert_true(raise(OTHER, 4, &vec, &dest));
	/* compatibility format blocked once CFI is off */
	assert_null(v.io.ops->ir_compat(&v.io, false));
	assert_false(m.gsts & VTD_GSTS_CFIS);
	assert_false(vtdm_msi(&m, DUT, 0xfee00000, 0x33, &vec, &dest));
	assert_one_fault(IOMMU_FAULT_IR_COMPAT, 0x25, DUT, 0);
	assert_null(v.io.ops->ir_compat(&v.io, true));
	assert_true(vtdm_msi(&m, DUT, 0xfee00000, 0x33, &vec, &dest));
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

/* The model's own checks on entries the driver never writes: reserved
 * bits (24h), FPD silencing a fault, the bus-range source check, and a
 * subhandle (SHV) added to the handle. */
static void model_checks_entry_fields(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_ECAP);
	assert_null(v.io.ops->ir_enable(&v.io, true, 16));
	uint8_t vec;
	uint32_t dest;
	v.irt[2 * 1] = 1 | 0x40ull << 16 | 1ull << 13; /* reserved bit 13 */
	assert_false(raise(DUT, 1, &vec, &dest));
	assert_one_fault(IOMMU_FAULT_IR_OTHER, 0x24, DUT, 1);
	v.irt[2 * 2] = 2; /* not present, FPD: blocked, nothing recorded */
	assert_false(raise(DUT, 2, &vec, &dest));
	assert_false(v.io.ops->fault_pending(&v.io));
	v.irt[2 * 3] = 1 | 0x41ull << 16;
	v.irt[2 * 3 + 1] = 2ull << 18 | 0x0203; /* SVT 10: buses 2 to 3 */
	assert_true(raise(0x0318, 3, &vec, &dest));
	assert_false(raise(0x0418, 3, &vec, &dest));
	assert_one_fault(IOMMU_FAULT_IR_SOURCE, 0x26, 0x0418, 3);
	/* SHV: handle 2 + subhandle 1 = entry 3 */
	assert_true(vtdm_msi(&m, 0x0318, 0xfee00000u | 2u << 5 | 1u << 4 | 1u << 3, 1, &vec, &dest));
	assert_int_equal(vec, 0x41);
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

static void changed_entry_stale_until_iec(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_ECAP);
	assert_null(v.io.ops->ir_enable(&v.io, true, 16));
	uint8_t vec;
	uint32_t dest;
	set(2, 0x60, 1, DUT, true);
	set(9, 0x61, 1, DUT, true);
	assert_true(raise(DUT, 2, &vec, &dest)); /* both now cached */
	assert_true(raise(DUT, 9, &vec, &dest));
	set(2, 0x70, 2, DUT, true);
	set(9, 0x71, 2, DUT, true);
	assert_true(raise(DUT, 2, &vec, &dest));
	assert_int_equal(vec, 0x60); /* the cached entry, until invalidated */
	/* by index: entry 2 only */
	assert_null(v.io.ops->ir_invalidate(&v.io, kind("iec-index"), DUT, 2));
	assert_true(raise(DUT, 2, &vec, &dest));
	assert_int_equal(vec, 0x70);
	assert_int_equal(dest, 2);
	assert_true(raise(DUT, 9, &vec, &dest));
	assert_int_equal(vec, 0x61);
	/* globally: everything */
	assert_null(v.io.ops->ir_invalidate(&v.io, kind("iec-global"), DUT, -1));
	assert_true(raise(DUT, 9, &vec, &dest));
	assert_int_equal(vec, 0x71);
	/* iec-index needs an index */
	assert_non_null(v.io.ops->ir_invalidate(&v.io, kind("iec-index"), DUT, -1));
	assert_int_equal(v.io.err, IOMMU_ERR_ARGUMENT);
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

static void refused_without_ir_or_queue(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_ECAP & ~ECAP_IR);
	assert_int_equal(v.io.nir_kinds, 0);
	assert_non_null(v.io.ops->ir_enable(&v.io, true, 16));
	assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_null(v.io.ops->give_back(&v.io));
	open_unit(VTDM_QEMU_ECAP & ~ECAP_QI);
	assert_int_equal(v.io.nir_kinds, 0);
	assert_non_null(v.io.ops->ir_enable(&v.io, true, 16));
	assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_false(m.gsts & VTD_GSTS_IRES);
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

/* QEMU 7.2 ignores GCMD.CFI: remapping still comes on, compatibility
 * interrupts pass, and blocking them is refused by name. */
static void unit_without_cfi_switch(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_ECAP);
	m.ignore_cfi = true;
	assert_null(v.io.ops->ir_enable(&v.io, true, 16));
	assert_true(m.gsts & VTD_GSTS_IRES);
	assert_false(m.gsts & VTD_GSTS_CFIS);
	uint8_t vec;
	uint32_t dest;
	assert_true(vtdm_msi(&m, 0x00f8, 0xfee00000, 0x31, &vec, &dest));
	assert_non_null(v.io.ops->ir_compat(&v.io, false));
	assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_null(v.io.ops->give_back(&v.io));
	char note[200];
	assert_true(v.io.ops->as_found(&v.io, note, sizeof(note)));
	assert_clean();
}

/* The firmware left its queue (idle) and interrupt remapping on: the unit
 * is refused (a stopped queue restarts from IQH 0 and would run the
 * firmware's descriptors again), and nothing of the firmware's is touched:
 * its remapped interrupts keep arriving through its own table. The same
 * with the queue alone. */
/* The firmware's idle queue and its interrupt remapping, left on: the
 * take-over keeps both running (the queue is added to, never stopped),
 * the firmware's entries keep delivering, remapping of iommon's own is
 * refused by name, and give-back leaves the queue at the tail it had. */
static void firmware_remapping_kept(void **state)
{
	(void)state;
	static uint64_t fw_irt[2 * 256] __attribute__((aligned(4096)));
	static uint64_t fw_queue[512] __attribute__((aligned(4096)));
	fw_irt[2 * 9] = 1 | 0x77ull << 16 | 2ull << 40;				  /* present, vector 0x77, APIC 2 */
	memmap_firmware_standin((uint64_t)(uintptr_t)fw_queue, sizeof(fw_queue)); /* the firmware's memory */
	for (int with_ir = 1; with_ir >= 0; with_ir--) {
		vtdm_init(&m, VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
		memset(&v, 0, sizeof(v));
		assert_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
		m.iqa = (uint64_t)(uintptr_t)fw_queue;
		m.iqh = m.iqt = 0x30; /* idle */
		m.gsts = VTD_GCMD_QIE;
		if (with_ir) {
			m.irta = m.irt = (uint64_t)(uintptr_t)fw_irt | 7;
			m.gsts |= VTD_GCMD_IRE | VTD_GCMD_SIRTP | VTD_GCMD_CFI;
		}
		uint32_t gsts = m.gsts;
		assert_null(v.io.ops->take(&v.io));
		assert_true(m.gsts & VTD_GCMD_QIE);
		assert_int_equal(m.iqa, (uint64_t)(uintptr_t)fw_queue);
		assert_true(m.waits > 0); /* the take-over's invalidations went through it */
		if (with_ir) {
			assert_non_null(v.io.ops->ir_enable(&v.io, true, 16));
			assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
			uint8_t vec;
			uint32_t dest;
			assert_true(vtdm_msi(&m, 0x00f8, 0xfee00000u | 9u << 5 | 1u << 4, 0, &vec, &dest));
			assert_int_equal(vec, 0x77);
			assert_int_equal(dest, 2);
		}
		assert_null(v.io.ops->give_back(&v.io));
		assert_int_equal(m.gsts & ~VTD_GCMD_SRTP, gsts & ~VTD_GCMD_SRTP);
		assert_int_equal(m.iqa, (uint64_t)(uintptr_t)fw_queue);
		assert_int_equal(m.iqt, 0x30); /* brought round to the firmware's tail */
		assert_int_equal(m.iqh, 0x30);
		if (with_ir)
			assert_int_equal(m.irta, (uint64_t)(uintptr_t)fw_irt | 7);
		assert_int_equal(fw_irt[2 * 9], 1 | 0x77ull << 16 | 2ull << 40);
		char note[200];
		assert_true(vtd_as_found(&v, note, sizeof(note)));
		assert_clean();
	}
}

static void ire_that_never_sets_times_out(void **state)
{
	(void)state;
	open_unit(VTDM_QEMU_ECAP);
	m.stuck_gsts = VTD_GSTS_IRES;
	assert_non_null(v.io.ops->ir_enable(&v.io, true, 16));
	assert_int_equal(v.io.err, IOMMU_ERR_TIMEOUT);
	assert_null(v.irt); /* IRE never came on: the table is not kept */
	m.stuck_gsts = 0;
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

/* The firmware left the local APIC in x2APIC mode and the unit has
 * ECAP.EIM: IRTA.EIME set, 32-bit destinations in IRTE bits 63:32, and
 * compatibility-format interrupts blocked whatever CFI says (5.1.4). In
 * xAPIC mode the same unit keeps EIME clear. */
static void x2apic_destinations_with_eim(void **state)
{
	(void)state;
	host_set_apic_id_bits(32);
	open_unit(VTDM_QEMU_ECAP | ECAP_EIM);
	assert_null(v.io.ops->ir_enable(&v.io, true, 16));
	assert_int_equal(m.irt, (uint64_t)(uintptr_t)v.irt | VTD_IRTA_EIME | 3);
	set(5, 0x42, 0x12345, DUT, true);
	assert_int_equal(v.irt[2 * 5] >> 32, 0x12345);
	uint8_t vec;
	uint32_t dest;
	assert_true(raise(DUT, 5, &vec, &dest));
	assert_int_equal(vec, 0x42);
	assert_int_equal(dest, 0x12345);
	assert_true(m.gsts & VTD_GSTS_CFIS);
	assert_false(vtdm_msi(&m, 0x00f8, 0xfee01000, 0x31, &vec, &dest));
	assert_one_fault(IOMMU_FAULT_IR_COMPAT, 0x25, 0x00f8, 0);
	assert_null(v.io.ops->give_back(&v.io));
	assert_false(m.irta & VTD_IRTA_EIME);
	/* xAPIC mode: EIME clear, the id in 47:40, wider ones refused */
	host_set_apic_id_bits(8);
	open_unit(VTDM_QEMU_ECAP | ECAP_EIM);
	assert_null(v.io.ops->ir_enable(&v.io, true, 16));
	assert_int_equal(m.irt, (uint64_t)(uintptr_t)v.irt | 3);
	set(5, 0x42, 0x12, DUT, true);
	assert_int_equal(v.irt[2 * 5] >> 32, 0x1200);
	assert_true(raise(DUT, 5, &vec, &dest));
	assert_int_equal(dest, 0x12);
	struct iommu_irte big = { .present = true, .vector = 0x40, .dest = 0x100 };
	assert_non_null(v.io.ops->ir_set(&v.io, DUT, 1, &big));
	assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

/* x2APIC mode on a unit without ECAP.EIM: refused by name before any
 * register is written, rather than remapping to 8-bit destinations. */
static void x2apic_without_eim_refused(void **state)
{
	(void)state;
	host_set_apic_id_bits(32);
	open_unit(VTDM_QEMU_ECAP);
	assert_non_null(v.io.ops->ir_enable(&v.io, true, 16));
	assert_int_equal(v.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_null(v.irt);
	assert_false(m.gsts & (VTD_GSTS_IRES | VTD_GSTS_IRTPS));
	assert_null(v.io.ops->give_back(&v.io));
	assert_clean();
}

static int xapic_again(void **state)
{
	(void)state;
	host_set_apic_id_bits(8);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(enables_and_gives_back_as_found),
		cmocka_unit_test(remapped_msi_goes_where_the_entry_says),
		cmocka_unit_test(blocked_interrupts_recorded),
		cmocka_unit_test(model_checks_entry_fields),
		cmocka_unit_test(changed_entry_stale_until_iec),
		cmocka_unit_test(refused_without_ir_or_queue),
		cmocka_unit_test(unit_without_cfi_switch),
		cmocka_unit_test(firmware_remapping_kept),
		cmocka_unit_test(ire_that_never_sets_times_out),
		cmocka_unit_test_teardown(x2apic_destinations_with_eim, xapic_again),
		cmocka_unit_test_teardown(x2apic_without_eim_refused, xapic_again),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
