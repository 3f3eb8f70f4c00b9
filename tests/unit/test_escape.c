/* A device whose DMA the unit does not translate (an alias left in
 * pass-through, a unit that keys the device by another requester id, as
 * QEMU 7.2's amd-iommu does behind a bridge) must be caught before any
 * case DMAs through it, and its DMA must land only in memory of ours.
 * Every model kind with the implied "escape" fault: the engine bypasses
 * the unit, and writes only inside live buffers of ours (counting every
 * write that would have landed elsewhere). Where the landing buffer fits
 * the unit's IO space, the bench names the escape and nothing strays;
 * where it cannot (an IO space below any memory the host gives), the case
 * fails on its data and the model counts the stray. */
#include "host_monitor.h"

#include "core/base/dmabuf.h"
#include "core/base/macros.h"
#include "iommu/backend.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "tests/catalogue/bench.h"

static int setup(void **state)
{
	(void)state;
	host_monitor_init();
	setting_set("records", "on");
	return 0;
}

static void caught_before_any_case(void **state)
{
	(void)state;
	size_t named = 0;
	for (size_t i = 0; model_kind_at(i); i++) {
		const char *kind = model_kind_at(i);
		const struct iommu_backend *b = iommu_backend_for_model(kind);
		assert_non_null(b);
		char line[96], test[48];
		assert_null(model_attach(kind, "escape"));
		struct dma_engine *e;
		assert_non_null(model_unit(&e));
		const struct model_engine *engine = container_of(e, const struct model_engine, e);
		/* the backend's translation at its smallest page */
		const char *out = NULL;
		for (const char *const *leaf = (const char *const[]){ "4k", "16k", NULL }; *leaf; leaf++) {
			snprintf(test, sizeof(test), "%s.translate_%s", b->name, *leaf);
			snprintf(line, sizeof(line), "run %s", test);
			out = host_monitor_line(line);
			if (!strstr(out, "no test or group named"))
				break;
		}
		const char *rec = host_monitor_result(out, test);
		/* not this kind's: another of the family's; or a case the kind's
		 * unit cannot have (riscv-g: the S stage), the family's escape
		 * caught on its other kind */
		if (strstr(rec, "\"verdict\":\"skip\"") || strstr(rec, "\"verdict\":\"na\""))
			continue;
		if (!strstr(rec, "\"verdict\":\"fail\""))
			fail_msg("%s: %s passed with its DMA bypassing the unit: %s", kind, test, rec);
		if (strstr(out, "FAIL: DMA ESCAPED translation: 0000:")) {
			named++;
			/* the proof's write landed in our buffer, and nothing DMAed after it */
			if (engine->strays)
				fail_msg("%s: the escape was named, yet a write strayed:\n%s", kind, out);
			if (strstr(out, "ok: from the device") || strstr(out, "ok: to the device"))
				fail_msg("%s: a case DMAed after the escape was named:\n%s", kind, out);
		} else {
			if (!strstr(out, "not proven translated by a landing buffer") || !engine->strays)
				fail_msg("%s: the escape was neither named nor counted:\n%s", kind, out);
		}
		model_detach();
	}
	/* VT-d, AMD-Vi and SMMUv3 at least: IO spaces the host's buffers fit */
	assert_true(named >= 3);
}

/* A unit that sees the device's DMA under a requester id none of those
 * its topology gives (QEMU 10.0.2's riscv-iommu-pci behind a bridge takes
 * the bus as 0): every id it carries was given the domain, so no case can
 * run through it. The proof names the id the unit recorded and the case
 * skips, refused; nothing DMAs after. */
static void seen_under_another_id(void **state)
{
	(void)state;
	assert_null(model_attach("riscv", "bus-zero"));
	struct dma_engine *e;
	assert_non_null(model_unit(&e));
	const struct model_engine *engine = container_of(e, const struct model_engine, e);
	const char *out = host_monitor_line("run riscv.translate_4k");
	const char *rec = host_monitor_result(out, "riscv.translate_4k");
	if (!strstr(rec, "\"verdict\":\"skip\"") || !strstr(rec, "\"reason\":\"refused\""))
		fail_msg("a device the unit sees under another id did not skip, refused: %s", rec);
	assert_non_null(
	    strstr(rec, "riscv-model recorded a fault from 00:01.0, none of its ids (10:01.0) nor another device's"));
	assert_null(strstr(out, "ok: from the device"));
	assert_int_equal(engine->strays, 0);
	model_detach();
}

static struct iommu_fault fake[2];
static size_t nfake;

static size_t fake_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	(void)io;
	size_t n = nfake < max ? nfake : max;
	memcpy(out, fake, n * sizeof(*out));
	nfake = 0;
	*overflow = false;
	return n;
}

/* Whose a fault is: one under another DMA-mastering function's id is that
 * function's, one under the device's own makes the failure the case's and
 * is handed back to be said with it (the records are consumed: a unit's
 * C_BAD_STE under the device's own id was once dropped unsaid); only an
 * id that is nobody's is named. */
static void foreign_only_when_nobody_owns_it(void **state)
{
	(void)state;
	struct pci_dev d[2] = {
		{ .addr = { 0, 1, 0, 0 }, .vendor = 0x1b36, .device = 0x0010, .class = 0x010802, .iommu = -1 },
		{ .addr = { 0, 0, 3, 0 }, .vendor = 0x1234, .device = 0x11e8, .class = 0x00ff00, .iommu = -1 },
	};
	struct pci_list saved = machine.pci;
	machine.pci.d = d;
	machine.pci.n = 2;
	const struct iommu_ops ops = { .faults = fake_faults };
	struct iommu io = { .ops = &ops, .name = "unit0" };
	char own[120] = "stale";
	fake[0] = (struct iommu_fault){ .sid = 0x0018, .sid_known = true }; /* the other device's */
	nfake = 1;
	assert_null(bench_foreign_id(&io, d[0].addr, "x", own, sizeof(own)));
	assert_string_equal(own, "");
	fake[0].sid = 0x0000; /* nobody's */
	nfake = 1;
	assert_string_equal(bench_foreign_id(&io, d[0].addr, "the write arrived in neither buffer", NULL, 0),
			    "unit0 recorded a fault from 00:00.0, none of its ids (01:00.0) nor another device's: the "
			    "write arrived in neither buffer");
	fake[1] = (struct iommu_fault){ .sid = 0x0100, .sid_known = true, .reason = 0x4, .why = "C_BAD_STE" };
	nfake = 2; /* and one of its own: the failure is the case's, said with it */
	assert_null(bench_foreign_id(&io, d[0].addr, "x", own, sizeof(own)));
	assert_string_equal(own, "unit0 recorded a fault (0x4) from 01:00.0: C_BAD_STE");
	nfake = 0;
	assert_null(bench_foreign_id(&io, d[0].addr, "x", own, sizeof(own)));
	assert_string_equal(own, "");
	machine.pci = saved;
}

/* What the engine asks before writing past its unit. */
static void owns_buffers_only(void **state)
{
	(void)state;
	struct dmabuf a, b;
	assert_true(dmabuf_alloc(&a, 100, 16, 0));
	assert_true(dmabuf_owns(a.phys, 100));
	assert_true(dmabuf_owns((uint64_t)(uintptr_t)a.region, a.pages * 4096)); /* guards are ours too */
	assert_false(dmabuf_owns((uint64_t)(uintptr_t)a.region, a.pages * 4096 + 1));
	assert_false(dmabuf_owns((uint64_t)(uintptr_t)a.region - 1, 2));
	assert_false(dmabuf_owns(a.phys, ~0ull)); /* a length that wraps */
	assert_true(dmabuf_alloc(&b, 100, 0, 0));
	uint64_t at = a.phys;
	dmabuf_free(&a);
	assert_false(dmabuf_owns(at, 1));
	assert_true(dmabuf_owns(b.phys, 100));
	dmabuf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(caught_before_any_case),
		cmocka_unit_test(seen_under_another_id),
		cmocka_unit_test(foreign_only_when_nobody_owns_it),
		cmocka_unit_test(owns_buffers_only),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
