/* Skip reason codes (core/monitor/report.h SKIP_REASONS): the set is closed and
 * named, every skip and not-applicable record carries its code as its
 * last field, the not-applicable ones are counted apart, and the
 * code is the one its cause calls for, on the host monitor and the
 * register-level models: the platform (no ACPI on the host), a setting
 * (timer.source stall), a backend that only runs on a model, a case that
 * needs the machine, a unit that lacks the feature, run --skip, and an
 * operator's stop; and a unit refused (by its backend when opened, or its
 * register window at discovery), which is the reason every case that
 * needs it skips, by the unit's name, the device behind it never brought
 * up. (The emulator, no-device and no-unit codes are proven on QEMU by the
 * boot tests; tests/report/check.py checks every boot test's skips.) */
#include "host_monitor.h"

#include "core/base/claims.h"
#include "core/base/macros.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "iommu/riscv/rvi.h"
#include "iommu/session.h"
#include "iommu/vtd/vtd.h"
#include "pci/dut.h"
#include "table_bytes.h"

static int setup(void **state)
{
	(void)state;
	host_monitor_init();
	setting_set("records", "on");
	return 0;
}

/* The record's last field is `code`. */
static void reason_last(const char *rec, const char *code)
{
	char want[64];
	snprintf(want, sizeof(want), ",\"reason\":\"%s\"}", code);
	size_t n = strlen(rec), w = strlen(want);
	assert_true(n > w);
	assert_string_equal(rec + n - w, want);
}

/* `test` skipped with `code`: the record's last field, the console's skip
 * line (when the test itself skipped) and the table's row say it. */
static void skipped_for(const char *out, const char *test, const char *code)
{
	const char *rec = host_monitor_result(out, test);
	char want[64];
	assert_non_null(strstr(rec, "\"verdict\":\"skip\""));
	reason_last(rec, code);
	snprintf(want, sizeof(want), " skip    [%s] ", code);
	assert_non_null(strstr(out, want));
}

/* `test` not applicable for `code`: the record says "na" with the code
 * last, the table leaves it out of its rows and lists it under "not
 * applicable here", and no lab line names it. */
static void na_for(const char *out, const char *test, const char *code)
{
	const char *rec = host_monitor_result(out, test);
	char want[96];
	assert_non_null(strstr(rec, "\"verdict\":\"na\""));
	reason_last(rec, code);
	const char *apart = strstr(out, "\n  not applicable here:\n");
	assert_non_null(apart);
	snprintf(want, sizeof(want), "\n  %s ", test);
	const char *row = strstr(out, want);
	assert_true(row == NULL || row > apart); /* a row of the table only below it (another run's) */
	snprintf(want, sizeof(want), "test_case_id=%s ", test);
	assert_null(strstr(out, want));
}

static void names_closed(void **state)
{
	(void)state;
	const char *want[] = { "no-device",    "no-unit",      "unsupported", "emulator",	 "platform",
			       "model-only",   "machine-only", "refused",     "not-implemented", "setting",
			       "inconclusive", "excluded",     "stopped",     "replay" };
	assert_int_equal(SKIP_REASON_COUNT - 1, ARRAY_SIZE(want));
	for (int r = 1; r < SKIP_REASON_COUNT; r++)
		assert_string_equal(skip_reason_name((enum skip_reason)r), want[r - 1]);
	/* no reason given, or one outside the set: the name the checks refuse */
	assert_string_equal(skip_reason_name(SKIP_UNCLASSIFIED), "unclassified");
	assert_string_equal(skip_reason_name(SKIP_REASON_COUNT), "unclassified");
}

static void host_platform_and_setting(void **state)
{
	(void)state;
	const char *out = host_monitor_line("run acpi.dmar dma.integrity");
	na_for(out, "acpi.dmar", "platform");
	na_for(out, "dma.integrity", "platform");
	assert_non_null(strstr(out, "    not applicable (platform): no ACPI on this platform (host)\n"));
	/* counted apart from the skips, on the closing line and in the summary */
	assert_non_null(strstr(out, "\n0 passed, 0 failed, 0 skipped, 2 not applicable\n"));
	assert_non_null(strstr(out, "\"skipped\":0,"));
	assert_non_null(strstr(out, ",\"not_applicable\":2,"));
	host_monitor_line("set timer.source stall");
	out = host_monitor_line("run timer.calibration timer.stall");
	skipped_for(out, "timer.calibration", "setting");
	skipped_for(out, "timer.stall", "setting");
	host_monitor_line("set timer.source auto");
	/* a test that passes carries no reason */
	out = host_monitor_line("run timer.counter");
	assert_null(strstr(host_monitor_result(out, "timer.counter"), "\"reason\""));
}

/* Groups side by side that found no unit of their kind share one line in
 * the results; a case not applicable for another reason keeps its own. */
static void no_unit_groups_fold(void **state)
{
	(void)state;
	host_monitor_line("run amdvi.translate_4k smmuv3.translate_4k dma.integrity");
	const char *out = host_monitor_line("results");
	if (!strstr(out, "\n    - amdvi (1), smmuv3 (1): no unit of their kind on this machine\n") ||
	    !strstr(out, "\n    - dma.integrity: no DMA engine"))
		fail_msg("%s", out + (strlen(out) > 900 ? strlen(out) - 900 : 0));
}

/* A backend group with neither its unit nor its model does not apply: one
 * line for the group, not one per case, and none of its cases runs. */
static void models(void **state)
{
	(void)state;
	const char *out = host_monitor_line("run dart.translate_4k dart.stale_tlb timer.counter");
	na_for(out, "dart.translate_4k", "model-only");
	na_for(out, "dart.stale_tlb", "model-only");
	/* one line for the group, wrapped at 80 columns; the record has it whole */
	assert_non_null(strstr(out, "\n  dart: not applicable (2 tests): iommon drives DART (Apple U3/U4) on its\n"));
	assert_non_null(
	    strstr(host_monitor_result(out, "dart.stale_tlb"),
		   "\"detail\":\"iommon drives DART (Apple U3/U4) on its register-level model only, and none is "
		   "attached ('model dart-u3' or 'model dart-u4')\""));
	assert_null(strstr(out, "  dart.translate_4k: "));		       /* not run */
	assert_non_null(strstr(out, "\n    - dart (2 tests): iommon drives")); /* folded in the table */
	assert_non_null(strstr(out, "\n1 passed, 0 failed, 0 skipped, 2 not applicable\n"));
	out = host_monitor_line("run vtd.translate_4k");
	na_for(out, "vtd.translate_4k", "no-unit");
	assert_non_null(strstr(out, "no Intel VT-d unit: no IOMMU on this platform ('model vtd"));
	assert_null(model_attach("dart-u3", "none"));
	out = host_monitor_line("run dart.write_read_only");
	na_for(out, "dart.write_read_only", "unsupported"); /* DART entries have no permission bits */
	assert_null(model_attach("vtd", "none"));
	out = host_monitor_line("run vtd.ir_ioapic");
	na_for(out, "vtd.ir_ioapic", "machine-only");
	model_detach();
}

static void excluded(void **state)
{
	(void)state;
	const char *out = host_monitor_line("run timer --skip timer.stall");
	skipped_for(out, "timer.stall", "excluded");
	assert_non_null(
	    strstr(host_monitor_result(out, "timer.stall"), "\"detail\":\"not run: excluded by run --skip\""));
}

/* Ctrl-C waiting at the console: the run stops before its first test.
 * Run first: the host console stops reading stdin once it has ended. */
static void stopped(void **state)
{
	(void)state;
	int p[2], saved = dup(0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "\x03", 1), 1);
	dup2(p[0], 0);
	const char *out = host_monitor_line("run timer.counter timer.overhead");
	dup2(saved, 0);
	close(saved), close(p[0]), close(p[1]);
	skipped_for(out, "timer.counter", "stopped");
	skipped_for(out, "timer.overhead", "stopped");
	assert_non_null(strstr(out, "\n0 passed, 0 failed, 2 skipped\n"));
}

/* A RISC-V IOMMU that offers the G stage alone (the model's riscv-g, as
 * QEMU's riscv-iommu-pci with s-stage=off) is driven in it: the G-stage
 * cases and those of either stage pass, in the G stage; the S-stage ones
 * are not applicable, naming the unit and the stage it lacks. */
static void g_stage_only_unit(void **state)
{
	(void)state;
	assert_null(model_attach("riscv-g", "none"));
	const char *out =
	    host_monitor_line("run riscv.takeover riscv.g.translate_4k riscv.translate_4k riscv.stale_context");
	assert_non_null(strstr(host_monitor_result(out, "riscv.takeover"), "\"verdict\":\"pass\""));
	assert_non_null(strstr(host_monitor_result(out, "riscv.takeover"), "Sv39x4 G stage"));
	assert_non_null(strstr(host_monitor_result(out, "riscv.g.translate_4k"), "\"verdict\":\"pass\""));
	na_for(out, "riscv.translate_4k", "unsupported");
	na_for(out, "riscv.stale_context", "unsupported");
	assert_non_null(
	    strstr(host_monitor_result(out, "riscv.translate_4k"), "riscv-model offers no S stage (capabilities 0x"));
	model_detach();
}

/* ---- a refused unit is the reason ----------------------------------------- */

/* The machine as a live one: an NVMe at 00:03.0 behind a unit that the
 * monitor refuses. A DMA engine brought up asks the platform for the
 * device first (device_claim): counted, and refused, so that nothing
 * more of a device that is not there is touched. */
static struct platform live;
static unsigned claimed;
static struct pci_dev devs[2];

static const char *claim_counted(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn)
{
	(void)seg, (void)bus, (void)dev, (void)fn;
	claimed++;
	return "nvme: held by the firmware's driver (this test's platform)";
}

static void live_machine(const struct units_table *tables, size_t n)
{
	live = host_platform;
	live.hardware = true;
	live.device_claim = claim_counted;
	platform = &live;
	claimed = 0;
	settings_init();
	monitor_settings(iommon_catalogue(), subsystems); /* `device`, whose auto picks the NVMe */
	setting_set("records", "on");
	memset(&machine, 0, sizeof(machine));
	machine.pci.d = devs;
	machine.pci.n = ARRAY_SIZE(devs);
	units_build(&machine.units, tables, n, &machine.pci);
	dut_bind(&machine.cfg, &machine.pci);
	machine.discovered = true;
}

static void dead_machine(void)
{
	iommu_give_back_held();
	dut_bind(NULL, NULL);
	units_free(&machine.units);
	memset(&machine, 0, sizeof(machine));
	claims_reset();
	platform = &host_platform;
	settings_init();
	setting_set("records", "on");
}

/* `test` skipped for the unit, named with its reason, the device behind
 * it never brought up. */
static void refused_for(const char *out, const char *test, const char *why)
{
	skipped_for(out, test, "refused");
	const char *rec = host_monitor_result(out, test);
	if (!strstr(rec, why))
		fail_msg("%s: %s", test, rec);
	assert_null(strstr(rec, "no DMA engine"));
}

/* A RISC-V IOMMU (a PCI function, 1b36:0014, its registers in BAR 0)
 * whose capabilities offer no stage the driver translates in, found in
 * reset (ddtp Off: it blocks every DMA): its backend refuses it when
 * opened, and every case that needs it, the G-stage ones too, skips
 * naming riscv0 and why; the NVMe behind it is never brought up (as it
 * was, it met the blocked unit and the skip blamed the NVMe). */
static void refused_riscv_unit_is_the_reason(void **state)
{
	(void)state;
	static uint64_t regs[512] __attribute__((aligned(4096)));
	regs[0] = 0x10 | 56ull << 32; /* capabilities: spec 1.0, PAS 56, no Sv39-57 nor their x4 forms */
	regs[2] = 0;		      /* ddtp: Off */
	devs[0] = (struct pci_dev){ .addr = { 0, 0, 1, 0 },
				    .vendor = 0x1b36,
				    .device = 0x0014,
				    .class = 0x080600,
				    .parent = -1,
				    .nbars = 1,
				    .bar = { { .index = 0, .mem64 = true, .base = (uintptr_t)regs, .size = 0x1000 } } };
	devs[1] = (struct pci_dev){ .addr = { 0, 0, 3, 0 },
				    .vendor = 0x1b36,
				    .device = 0x0010,
				    .class = 0x010802,
				    .parent = -1,
				    .nbars = 1,
				    .bar = { { .index = 0, .mem64 = true, .base = 0xfe000000, .size = 0x4000 } } };
	claims_reset();
	live_machine(&(struct units_table){ &riscv_backend, NULL, 0 }, 1);
	assert_int_equal(machine.units.n, 1);
	assert_int_equal(devs[1].iommu, 0);
	const char *out = host_monitor_line("run riscv.translate_4k riscv.g.translate_4k riscv.takeover price.quick");
	const char *why = "riscv0 refused: riscv: no stage this driver translates in: no Sv39/48/57 (S) nor "
			  "Sv39x4/48x4/57x4 (G) (capabilities 0x3800000010)";
	refused_for(out, "riscv.translate_4k", why);
	refused_for(out, "riscv.g.translate_4k", why);
	refused_for(out, "riscv.takeover", why);
	refused_for(out, "price.quick", why);
	assert_int_equal(claimed, 0);
	/* the dma group DMAs with the unit as the firmware left it, so it
	 * tries the device; that it did not come up is said after the unit */
	out = host_monitor_line("run dma.integrity");
	skipped_for(out, "dma.integrity", "refused");
	assert_non_null(
	    strstr(host_monitor_result(out, "dma.integrity"), "\"detail\":\"riscv0 refused: riscv: no stage"));
	/* (this machine's NVMe has registers but no configuration space: it
	 * reads as removed, which the device's own words then say) */
	assert_non_null(strstr(out, "; the device behind it did not come up: 0000:00:03.0 removed"));
	dead_machine();
}

/* The same rule for another family and another refusal: a VT-d unit
 * (INCLUDE_PCI_ALL) whose registers the DMAR puts in the ECAM window is
 * refused at discovery; its cases and the audit of the protection it was
 * left giving skip naming dmar0 and where its registers lie, and the NVMe
 * is never brought up behind it. */
static void refused_vtd_unit_is_the_reason(void **state)
{
	(void)state;
	memset(t, 0, sizeof(t));
	memcpy(t, "DMAR", 4);
	tl = 36;
	put8(38), put8(0), put(&(uint8_t[10]){ 0 }, 10);
	put16(0), put16(16), put8(1), put8(0), put16(0), put64(0xb0008000); /* DRHD: INCLUDE_PCI_ALL */
	seal();
	devs[0] = (struct pci_dev){
		.addr = { 0, 0, 1, 0 }, .vendor = 0x8086, .device = 0x29c0, .class = 0x060000, .parent = -1
	};
	devs[1] = (struct pci_dev){ .addr = { 0, 0, 3, 0 },
				    .vendor = 0x1b36,
				    .device = 0x0010,
				    .class = 0x010802,
				    .parent = -1,
				    .nbars = 1,
				    .bar = { { .index = 0, .mem64 = true, .base = 0xfe000000, .size = 0x4000 } } };
	claims_reset();
	claims_add(CLAIM_DEVICE, 0xb0000000, 0x10000000, "the ECAM window of segment 0 buses 00-ff (MCFG)");
	live_machine(&(struct units_table){ &vtd_backend, t, tl }, 1);
	assert_int_equal(machine.units.n, 1);
	assert_int_equal(devs[1].iommu, 0);
	const char *out = host_monitor_line("run vtd.translate_4k vtd.takeover protection.blocked");
	const char *why = "dmar0 refused: DMAR DRHD at 0x30 gives dmar0 registers at 0xb0008000 (+0x1000): refused, "
			  "they lie in the ECAM window of segment 0 buses 00-ff (MCFG)";
	refused_for(out, "vtd.translate_4k", why);
	refused_for(out, "vtd.takeover", why);
	refused_for(out, "protection.blocked", why);
	assert_int_equal(claimed, 0);
	dead_machine();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stopped),
		cmocka_unit_test(names_closed),
		cmocka_unit_test(host_platform_and_setting),
		cmocka_unit_test(models),
		cmocka_unit_test(no_unit_groups_fold),
		cmocka_unit_test(excluded),
		cmocka_unit_test(g_stage_only_unit),
		cmocka_unit_test(refused_riscv_unit_is_the_reason),
		cmocka_unit_test(refused_vtd_unit_is_the_reason),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
