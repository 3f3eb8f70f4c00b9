/* AMD-Vi interrupt remapping: the driver's tables and DTEs against the
 * register model's remapping walk (two readings of spec 2.2.5). What QEMU
 * 7.2 cannot show is shown here: its INVALIDATE_INTERRUPT_TABLE does
 * nothing and caches nothing, and its event log records nothing, so a
 * stale entry and the IO_PAGE_FAULT events of blocked interrupts are
 * proven on the model only. */
#include "unit.h"

#include "core/base/timing.h"
#include "iommu/amdvi/amdvi.h"
#include "iommu/amdvi/model.h"
#include "tests/host/platform_host.h"

static struct amdvi_model m;
static struct amdvi a;
static const struct pci_addr dev = { 0, 0x10, 1, 0 }; /* requester id 0x1008 */
#define DEVID 0x1008
#define OTHER 0x0200

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

/* A fresh model and driver, the unit taken and translating, the device
 * passed through, remapping on with `entries` entries. */
static void open_unit(unsigned entries)
{
	amdvim_init(&m);
	assert_null(amdvi_init(&a, &m.win, "amdvi-model", NULL, NULL, NULL));
	assert_null(a.io.ops->take(&a.io));
	assert_null(a.io.ops->attach(&a.io, dev, IOMMU_PASSTHROUGH));
	assert_null(a.io.ops->enable(&a.io, true));
	assert_null(a.io.ops->ir_enable(&a.io, true, entries));
}

static void close_unit(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.protocol_errors, 0);
	assert_null(a.io.ops->give_back(&a.io));
	char note[200];
	assert_true(a.io.ops->as_found(&a.io, note, sizeof(note)));
}

static void set(unsigned index, bool present, uint8_t vector, uint32_t dest)
{
	struct iommu_irte e = { .present = present, .vector = vector, .dest = dest, .source_id = DEVID };
	assert_null(a.io.ops->ir_set(&a.io, DEVID, index, &e));
}

/* The device sends what ir_msi says; true with where it arrived. */
static bool raise(uint16_t devid, unsigned index, uint8_t *vector, uint32_t *dest)
{
	struct msi_message msg;
	assert_null(a.io.ops->ir_msi(&a.io, devid, index, &msg));
	return amdvim_msi(&m, devid, msg.addr, msg.data, vector, dest);
}

/* The one fault the log holds now. */
static struct iommu_fault one_fault(void)
{
	struct iommu_fault f[4];
	bool ovf;
	size_t n = a.io.ops->faults(&a.io, f, 4, &ovf);
	assert_int_equal(n, 1);
	assert_false(ovf);
	return f[0];
}

/* An MSI whose data is the index arrives at the entry's vector and
 * destination, not at what the message itself says. */
static void a_remapped_msi_arrives_where_the_entry_says(void **state)
{
	(void)state;
	open_unit(32);
	set(5, true, 0x41, 3);
	uint8_t v;
	uint32_t d;
	assert_true(raise(DEVID, 5, &v, &d));
	assert_int_equal(v, 0x41);
	assert_int_equal(d, 3);
	assert_int_equal(m.interrupts_remapped, 1);
	/* a device not served keeps its interrupts unremapped (IV=0) */
	assert_true(amdvim_msi(&m, OTHER, 0xfee02000, 0x33, &v, &d));
	assert_int_equal(v, 0x33);
	assert_int_equal(d, 2);
	assert_int_equal(m.interrupts_remapped, 1);
	assert_false(a.io.ops->fault_pending(&a.io));
	close_unit();
}

/* Not present, past the table, reserved bits: each blocked and logged
 * with the device id and the kind the driver decodes. */
static void forbidden_interrupts_are_blocked_and_logged(void **state)
{
	(void)state;
	open_unit(16);
	uint8_t v;
	uint32_t d;
	set(2, false, 0, 0);
	assert_false(raise(DEVID, 2, &v, &d));
	struct iommu_fault f = one_fault();
	assert_int_equal(f.kind, IOMMU_FAULT_IR_NOT_PRESENT);
	assert_true(f.sid_known);
	assert_int_equal(f.sid, DEVID);

	assert_false(raise(DEVID, 16, &v, &d)); /* 2^4 entries: 16 is past them */
	f = one_fault();
	assert_int_equal(f.kind, IOMMU_FAULT_IR_INDEX);
	assert_int_equal(f.sid, DEVID);

	/* reserved bits 31:24 of the entry the driver wrote */
	set(3, true, 0x50, 1);
	a.irt[0].t[3] |= 0x01000000u;
	assert_false(raise(DEVID, 3, &v, &d));
	f = one_fault();
	assert_int_equal(f.kind, IOMMU_FAULT_IR_OTHER);
	assert_int_equal(f.sid, DEVID);
	assert_int_equal(m.interrupts_blocked, 3);
	close_unit();
}

/* A changed entry is used only after INVALIDATE_INTERRUPT_TABLE for the
 * device (the model caches entries; QEMU does not). */
static void a_changed_entry_is_stale_until_invalidated(void **state)
{
	(void)state;
	open_unit(8);
	assert_true(a.io.nir_kinds >= 1);
	assert_string_equal(a.io.ir_kinds[0].name, "cmd-interrupt-table");
	set(1, true, 0x60, 0);
	uint8_t v;
	uint32_t d;
	assert_true(raise(DEVID, 1, &v, &d));
	assert_int_equal(v, 0x60);
	set(1, true, 0x61, 2);
	assert_true(raise(DEVID, 1, &v, &d));
	assert_int_equal(v, 0x60); /* stale */
	unsigned before = m.irt_invalidations;
	assert_null(a.io.ops->ir_invalidate(&a.io, 0, DEVID, 1));
	assert_int_equal(m.irt_invalidations, before + 1);
	assert_true(raise(DEVID, 1, &v, &d));
	assert_int_equal(v, 0x61);
	assert_int_equal(d, 2);
	close_unit();
}

/* Off: the device's interrupts pass unremapped again and its DTE is what
 * take-over gave it; give-back leaves the registers as found. */
static void off_and_given_back_as_found(void **state)
{
	(void)state;
	open_unit(4);
	set(0, true, 0x70, 1);
	uint64_t q2_before_enable = 0; /* take-over's DTE: no pass bits without an IVHD */
	assert_int_equal(a.devtab[DEVID * 4 + 2] & 1, 1);
	assert_null(a.io.ops->ir_enable(&a.io, false, 0));
	assert_int_equal(a.devtab[DEVID * 4 + 2], q2_before_enable);
	assert_false(a.irt[0].used);
	uint8_t v;
	uint32_t d;
	assert_true(amdvim_msi(&m, DEVID, 0xfee01000, 0x22, &v, &d));
	assert_int_equal(v, 0x22);
	assert_int_equal(d, 1);
	/* the driver refuses entries while off */
	struct iommu_irte e = { .present = true, .vector = 1 };
	assert_non_null(a.io.ops->ir_set(&a.io, DEVID, 0, &e));
	assert_int_equal(a.io.err, IOMMU_ERR_STATE);
	assert_null(a.io.ops->ir_enable(&a.io, true, 4));
	set(0, true, 0x70, 1);
	close_unit();
	assert_false(a.irt[0].used);
}

/* What the 32-bit format cannot hold is refused with a code. */
static void refusals_carry_codes(void **state)
{
	(void)state;
	open_unit(4);
	struct iommu_irte e = { .present = true, .vector = 1, .dest = 0x100 };
	assert_non_null(a.io.ops->ir_set(&a.io, DEVID, 0, &e));
	assert_int_equal(a.io.err, IOMMU_ERR_UNSUPPORTED);
	e.dest = 1;
	assert_non_null(a.io.ops->ir_set(&a.io, DEVID, 4, &e));
	assert_int_equal(a.io.err, IOMMU_ERR_ARGUMENT);
	assert_non_null(a.io.ops->ir_enable(&a.io, true, 513));
	assert_int_equal(a.io.err, IOMMU_ERR_ARGUMENT);
	assert_null(a.io.ops->ir_compat);
	close_unit();
}

/* x2APIC destinations (amdvi.xt on) on a unit offering XTSup and GASup:
 * GAEn and XTEn set before the first table, 128-bit entries (vector in
 * the high quadword, the destination split 31:8 and 127:120), all 32 bits
 * delivered; blocked entries still logged; off clears both bits, and the
 * 32-bit format comes back. */
static void x2apic_destinations_with_xt(void **state)
{
	(void)state;
	amdvim_init(&m);
	m.xt = true;
	a.want_xt = true;
	assert_null(amdvi_init(&a, &m.win, "amdvi-model", NULL, NULL, NULL));
	assert_string_equal(a.io.ir_dest32, "amdvi.xt on");
	assert_null(a.io.ops->take(&a.io));
	assert_null(a.io.ops->attach(&a.io, dev, IOMMU_PASSTHROUGH));
	assert_null(a.io.ops->enable(&a.io, true));
	assert_null(a.io.ops->ir_enable(&a.io, true, 16));
	assert_int_equal(a.io.ir_dest_bits, 32);
	assert_int_equal(m.control & (1ull << 17 | 1ull << 50), 1ull << 17 | 1ull << 50);
	set(5, true, 0x42, 0x12345678);
	const uint64_t *q = (const uint64_t *)a.irt[0].t + 2 * 5;
	assert_int_equal(q[0], 1 | 0x345678ull << 8);
	assert_int_equal(q[1], 0x42 | 0x12ull << 56);
	uint8_t v;
	uint32_t d;
	assert_true(raise(DEVID, 5, &v, &d));
	assert_int_equal(v, 0x42);
	assert_int_equal(d, 0x12345678);
	set(5, false, 0, 0);
	assert_null(a.io.ops->ir_invalidate(&a.io, 0, DEVID, -1)); /* the model caches the entry */
	assert_false(raise(DEVID, 5, &v, &d));
	assert_int_equal(one_fault().kind, IOMMU_FAULT_IR_NOT_PRESENT);
	assert_null(a.io.ops->ir_enable(&a.io, false, 0));
	assert_int_equal(m.control & (1ull << 17 | 1ull << 50), 0);
	a.want_xt = false;
	assert_null(a.io.ops->ir_enable(&a.io, true, 16));
	assert_int_equal(a.io.ir_dest_bits, 8);
	set(5, true, 0x43, 7);
	assert_int_equal(a.irt[0].t[5], 1 | 7u << 8 | 0x43u << 16);
	assert_true(raise(DEVID, 5, &v, &d));
	assert_int_equal(v, 0x43);
	assert_int_equal(d, 7);
	close_unit();
	assert_int_equal(m.control & (1ull << 17 | 1ull << 50), 0);
}

/* amdvi.xt on where the unit offers no x2APIC interrupts: remapping is
 * refused by name before anything is written. */
static void xt_without_xtsup_refused(void **state)
{
	(void)state;
	amdvim_init(&m);
	a.want_xt = true;
	assert_null(amdvi_init(&a, &m.win, "amdvi-model", NULL, NULL, NULL));
	assert_null(a.io.ir_dest32);
	assert_null(a.io.ops->take(&a.io));
	assert_null(a.io.ops->attach(&a.io, dev, IOMMU_PASSTHROUGH));
	assert_null(a.io.ops->enable(&a.io, true));
	assert_non_null(a.io.ops->ir_enable(&a.io, true, 16));
	assert_int_equal(a.io.err, IOMMU_ERR_UNSUPPORTED);
	assert_false(a.ir_on);
	a.want_xt = false;
	close_unit();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_remapped_msi_arrives_where_the_entry_says),
		cmocka_unit_test(forbidden_interrupts_are_blocked_and_logged),
		cmocka_unit_test(a_changed_entry_is_stale_until_invalidated),
		cmocka_unit_test(off_and_given_back_as_found),
		cmocka_unit_test(refusals_carry_codes),
		cmocka_unit_test(x2apic_destinations_with_xt),
		cmocka_unit_test(xt_without_xtsup_refused),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
