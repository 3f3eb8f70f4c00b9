/* A device under test that is hot-unplugged mid-run ends its cases
 * truthfully. The monitor runs on the host as on a machine: an NVMe model
 * (nvme_model.h) at 01:00.0 behind a VT-d register model (dmar0), both
 * found where the PCI list and the unit say their registers are
 * (platform->mmio_model), the NVMe's DMA translated by the unit's model.
 * The device is removed at chosen moments (before a case, mid series,
 * between a case's map and its check) and then at every access to it in
 * turn, across dma.latency, vtd.takeover, vtd.translate_4k and `pci`.
 * Whatever the moment: no case it vanished under (or before) passes, its
 * result names the removal, no lab line after it says pass, no `ok` after
 * it speaks of the device, and `pci` marks the function. */
#include "host_monitor.h"

#include "core/base/macros.h"
#include "iommu/machine.h"
#include "iommu/session.h"
#include "iommu/vtd/model.h"
#include "iommu/vtd/vtd.h"
#include "pci/dut.h"

#include "nvme_model.h"

#define VTD_BASE 0xfed90000ull
#define NVME_BAR 0xfeb00000ull
#define NVME_SID 0x0100 /* 01:00.0 */
#define MARK "== the device is removed here ==\n"

static struct vtd_model vm;
static struct platform fake;

/* the registers a table or a BAR names, answered by the models */
static bool mmio(uint64_t base, uint64_t size, struct regwin *w)
{
	(void)size;
	if (base == VTD_BASE)
		*w = vm.win;
	else if (base == NVME_BAR)
		*w = bar;
	else
		return false;
	return true;
}

/* Every page below 2 GiB, as a machine's firmware gives them: the
 * device's queues and buffers within the unit's 39-bit IOVAs, which the
 * bench maps at their physical addresses. */
static void *low_pages(size_t pages, uint64_t limit)
{
	return host_platform.alloc_pages(pages, limit ? limit : 1ull << 31);
}

static bool through_unit(uint64_t addr, bool write, uint64_t *phys)
{
	return vtdm_translate(&vm, NVME_SID, addr, write, phys);
}

/* ---- the moment of the removal ------------------------------------------- */

static int phase = -1;	    /* the plan's line running */
static int removed_in = -1; /* the line during which the device went; -1: it is still there */

static void removed_now(void)
{
	removed_in = phase;
	printf(MARK); /* into the captured console, where it happened */
}

/* A fresh machine: the NVMe healthy as the firmware left it, the unit off,
 * nothing of the last run open. The unit is named anew each time (dmar0,
 * dmar1 in turn): a proof of translation holds for one unit and device,
 * so every run makes its own, and the removal meets that DMA too. */
static void fresh_machine(void *arg)
{
	(void)arg;
	static unsigned runs;
	dut_close();
	iommu_give_back_held();
	healthy(1);
	cfg[0] = 0x36, cfg[1] = 0x1b, cfg[2] = 0x10, cfg[3] = 0x00; /* 1b36:0010 */
	m.dma = through_unit;
	m.on_remove = removed_now;
	vtdm_init(&vm, VTDM_QEMU_CAP, VTDM_QEMU_ECAP);
	dev.nbars = 1;
	dev.bar[0] = (struct pci_bar){ .index = 0, .mem64 = true, .base = NVME_BAR, .size = 0x4000 };
	dev.parent = -1;
	dev.iommu = 0;
	dev.pcie_type = -1;
	machine.cfg = pcfg;
	machine.pci = (struct pci_list){ .d = &dev, .n = 1 };
	memset(&machine.units, 0, sizeof(machine.units));
	machine.units.n = 1;
	machine.units.u[0] =
	    (struct iommu_unit){ .backend = &vtd_backend, .base = VTD_BASE, .size = vm.win.size, .include_all = true };
	snprintf(machine.units.u[0].name, sizeof(machine.units.u[0].name), "dmar%u", runs++ % 2);
	snprintf(machine.units.u[0].source, sizeof(machine.units.u[0].source), "DMAR DRHD (test)");
	machine.discovered = true;
	dut_bind(&machine.cfg, &machine.pci);
	phase = -1;
	removed_in = -1;
}

static int setup(void **state)
{
	(void)state;
	host_monitor_init();
	monitor_settings(iommon_catalogue(), subsystems);
	fake = host_platform;
	fake.hardware = true;
	fake.mmio_model = mmio;
	fake.alloc_pages = low_pages;
	fake.device_claim = NULL;
	fake.device_release = NULL;
	platform = &fake;
	setting_set("records", "on");
	setting_set("dma.samples", "3");
	capture_stdout(fresh_machine, NULL);
	return 0;
}

/* ---- what a line printed, judged --------------------------------------- */

/* What follows the mark in `out` (all of it when the device went before
 * the line ran; "" when it had not gone by its end). */
static const char *after_removal(const char *out, int line)
{
	if (removed_in < 0 || removed_in > line)
		return "";
	const char *at = strstr(out, MARK);
	return removed_in < line || !at ? out : at;
}

/* What nobody may say of a device that is gone: an `ok` line with one of
 * these, or the proof's line that its DMA was translated. */
static const char *const device_claims[] = { "to the device", "from the device", "the device sees the change" };

/* No claim of the device's is ok after it went. The one DMA in flight
 * when it went during the line (`in_flight`) may have finished before (a
 * completion the controller posted, then the removal at the driver's next
 * access), so the first claim after the mark may be ok; none after it. */
static void no_claim_of_the_device(const char *after, bool in_flight, const char *context)
{
	for (const char *l = after; *l;) {
		size_t n = strcspn(l, "\n");
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		l += n + (l[n] == '\n');
		const char *said = line + strspn(line, " ");
		bool ok = strncmp(said, "ok: ", 4) == 0, failed = strncmp(said, "FAIL: ", 6) == 0;
		bool claim = strstr(said, "'s DMA translated (") != NULL;
		for (size_t i = 0; (ok || failed) && i < ARRAY_SIZE(device_claims); i++)
			claim |= strstr(said, device_claims[i]) != NULL;
		if (!claim)
			continue;
		ok = !failed;
		if (ok && !in_flight)
			fail_msg("%s: after the removal, a claim of the device's: '%s'\n%s", context, line, after);
		in_flight = false;
	}
}

/* The invariants for `test`, run as line `line` and printing `out`. */
static void judge(const char *test, int line, const char *out, const char *context)
{
	const char *rec = host_monitor_result(out, test);
	const char *after = after_removal(out, line);
	if (removed_in < 0 || removed_in > line) {
		/* it ran before the removal: the harness must show a working case */
		if (!strstr(rec, "\"verdict\":\"pass\""))
			fail_msg("%s: %s ran before the removal and did not pass: %s\n%s", context, test, rec, out);
		return;
	}
	if (strstr(rec, "\"verdict\":\"pass\""))
		fail_msg("%s: %s passed with the device removed: %s\n%s", context, test, rec, out);
	if (!strstr(rec, "removed"))
		fail_msg("%s: %s's result does not name the removal: %s\n%s", context, test, rec, out);
	if (strstr(after, "result=pass"))
		fail_msg("%s: a lab line after the removal says pass:\n%s", context, after);
	no_claim_of_the_device(after, removed_in == line, context);
}

/* The `pci` line of 01:00.0 marks it as gone exactly when it is. */
static void judge_pci(int line, const char *out, const char *context)
{
	const char *l = strstr(out, "0000:01:00.0");
	if (!l)
		fail_msg("%s: pci lists no 0000:01:00.0 at all:\n%s", context, out);
	char row[256];
	snprintf(row, sizeof(row), "%.*s", (int)strcspn(l, "\n"), l);
	bool marked = strstr(row, "removed") != NULL;
	if (removed_in >= 0 && removed_in < line && !marked)
		fail_msg("%s: pci lists the removed function as if it answered:\n%s", context, out);
	if (removed_in < 0 && marked)
		fail_msg("%s: pci marks a function that answers:\n%s", context, out);
}

/* `pci` (and `pci BDF`), as the machine subsystem offers it. */
static void pci_command(void *arg)
{
	char *argv[2] = { "pci", arg };
	for (size_t i = 0; i < MACHINE_NCOMMANDS; i++)
		if (strcmp(machine_commands[i].name, "pci") == 0)
			machine_commands[i].fn(arg ? 2 : 1, argv);
}

static const char *run_line(const char *line)
{
	if (strncmp(line, "pci", 3) == 0)
		return capture_stdout(pci_command, line[3] ? (void *)(line + 4) : NULL);
	return host_monitor_line(line);
}

/* ---- the plan ------------------------------------------------------------ */

static const struct {
	const char *line, *test; /* test: the result the line makes (NULL: a command) */
} plan[] = {
	{ "run dma.latency", "dma.latency" },
	{ "run vtd.takeover", "vtd.takeover" },
	{ "run vtd.translate_4k", "vtd.translate_4k" },
	{ "pci", NULL },
};

static char outs[ARRAY_SIZE(plan)][65536];

/* The plan from a fresh machine, the device removed at its `at`-th access
 * (0: never); what each line printed in outs[]. */
static void run_plan(unsigned at)
{
	capture_stdout(fresh_machine, NULL);
	m.remove_at = at;
	for (size_t i = 0; i < ARRAY_SIZE(plan); i++) {
		phase = (int)i;
		snprintf(outs[i], sizeof(outs[i]), "%s", run_line(plan[i].line));
	}
	phase = -1;
}

static void judge_plan(const char *context)
{
	for (size_t i = 0; i < ARRAY_SIZE(plan); i++) {
		if (plan[i].test)
			judge(plan[i].test, (int)i, outs[i], context);
		else
			judge_pci((int)i, outs[i], context);
	}
}

/* ---- the moments people name ------------------------------------------- */

/* Nothing removed: every case passes and `pci` lists the function plainly
 * (what the judges above hold a removal against). */
static void healthy_run_passes(void **state)
{
	(void)state;
	run_plan(0);
	assert_int_equal(removed_in, -1);
	judge_plan("no removal");
	assert_non_null(strstr(outs[2], "ok: with one byte of the buffer changed, the device sees the change"));
}

/* Removed between two cases, after a take-over proved the device's DMA
 * translated (a proof held for the boot): the next take-over has no
 * device, and says so instead of passing on the proof it made before. */
static void removed_before_takeover(void **state)
{
	(void)state;
	capture_stdout(fresh_machine, NULL);
	phase = 0;
	judge("dma.latency", 0, host_monitor_line("run dma.latency"), "before vtd.takeover");
	phase = 1;
	judge("vtd.takeover", 1, host_monitor_line("run vtd.takeover"), "before vtd.takeover");
	phase = 2;
	m.removed = true;
	removed_in = 2;
	const char *out = host_monitor_line("run vtd.takeover");
	judge("vtd.takeover", 2, out, "before vtd.takeover");
	const char *rec = host_monitor_result(out, "vtd.takeover");
	if (!strstr(rec, "\"reason\":\"no-device\""))
		fail_msg("a take-over with its device removed is not a skip for no device: %s\n%s", rec, out);
}

/* Removed mid series: the series' lab line is no pass, its record says
 * why it was cut. */
static void cut_series_is_no_pass(void **state)
{
	(void)state;
	capture_stdout(fresh_machine, NULL);
	setting_set("dma.samples", "50");
	/* the engine opened and its first series under way: an I/O command is
	 * two doorbell writes */
	phase = 0;
	m.remove_at = 0;
	const char *out = host_monitor_line("run dma.latency"); /* healthy: how many accesses a run takes */
	unsigned one_run = m.accesses;
	judge("dma.latency", 0, out, "mid series (healthy)");
	m.remove_at = one_run + 40; /* the engine is open: 20 DMAs into the first series */
	out = host_monitor_line("run dma.latency");
	setting_set("dma.samples", "3");
	assert_int_equal(removed_in, 0);
	judge("dma.latency", 0, out, "mid series");
	const char *lab = strstr(out, "<iommon-result test_case_id=dma.latency/dma/none/nvme-from-device-4096 ");
	if (!lab || strncmp(strstr(lab, "result="), "result=fail", 11) != 0)
		fail_msg("the cut series' lab line is not a fail:\n%s", out);
	if (!strstr(out, "\"variant\":\"nvme-from-device-4096\"") ||
	    !strstr(out, "\"cut\":\"nvme 0000:01:00.0 removed"))
		fail_msg("the cut series' record does not say the removal cut it:\n%s", out);
}

/* Removed after vtd.translate_4k mapped its buffers, as its first DMA
 * starts: no byte moved, and the engine's error is no miscompare. */
static void removed_between_map_and_check(void **state)
{
	(void)state;
	run_plan(0);	    /* the unit's proof made once, the engine open */
	m.remove_at_io = 1; /* the case's first DMA, once its buffers are mapped */
	phase = 2;
	const char *out = host_monitor_line("run vtd.translate_4k");
	assert_int_equal(removed_in, 2);
	judge("vtd.translate_4k", 2, out, "between map and check");
	if (strstr(out, "ok: with one byte"))
		fail_msg("a removed device's error counted as a miscompare:\n%s", out);
}

/* `pci` re-reads each function: one that no longer answers is marked. */
static void pci_marks_the_removed(void **state)
{
	(void)state;
	capture_stdout(fresh_machine, NULL);
	m.removed = true;
	removed_in = 0;
	const char *out = run_line("pci");
	judge_pci(1, out, "pci after removal");
	if (!strstr(out, "1 functions (1 no longer answers"))
		fail_msg("pci's count does not say one no longer answers:\n%s", out);
	out = run_line("pci 01:00.0");
	if (!strstr(out, "no longer answers") || strstr(out, "command 0xffff"))
		fail_msg("pci 01:00.0 reads a removed function's registers as if it answered:\n%s", out);
}

/* ---- every moment ------------------------------------------------------- */

/* The device removed at each access to it in turn, over the whole plan:
 * the judges above, every time. */
static void removed_at_every_access(void **state)
{
	(void)state;
	run_plan(0);
	unsigned total = m.accesses;
	assert_true(total > 50); /* the plan touched the device: the sweep means something */
	unsigned removals = 0;
	for (unsigned k = 1; k <= total; k++) {
		run_plan(k);
		char context[48];
		snprintf(context, sizeof(context), "removed at access %u of %u", k, total);
		if (removed_in < 0)
			fail_msg("%s: the run made fewer accesses than the healthy one", context);
		removals++;
		judge_plan(context);
	}
	assert_int_equal(removals, total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_run_passes),	 cmocka_unit_test(removed_before_takeover),
		cmocka_unit_test(cut_series_is_no_pass), cmocka_unit_test(removed_between_map_and_check),
		cmocka_unit_test(pci_marks_the_removed), cmocka_unit_test(removed_at_every_access),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
