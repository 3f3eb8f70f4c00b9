/* Group `dma`: the device under test (`set device`) moves data through the
 * DMA engine interface, with the IOMMU as the firmware left it. Every
 * buffer is guarded: nothing may be written outside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "core/base/dmabuf.h"
#include "core/base/macros.h"
#include "core/base/timing.h"
#include "core/monitor/settings.h"
#include "iommu/machine.h"
#include "iommu/session.h"
#include "pci/dma.h"
#include "pci/dut.h"

/* Why a device that did not come up could not, when it is the unit in
 * front of it: one refused ("riscv0 refused: ..."), or one that protects
 * memory as the firmware left it (blocking every DMA, its driver's own
 * queues too). The skip says the unit; the device's own words follow on
 * the console. False: nothing of the unit's. */
static bool unit_in_the_way(struct test_ctx *t, const char *device)
{
	struct pci_addr a;
	if (!dut_candidate(&a) || iommu_give_back_held() != NULL)
		return false;
	const char *refused = iommu_refusal(a), *no;
	if (refused) {
		printf("    %s; the device behind it did not come up: %s\n", refused, device);
		test_skip(t, SKIP_REFUSED, "%s", refused);
		return true;
	}
	struct iommu *io = iommu_for_device(a, &no);
	struct iommu_fw_state fw;
	if (!iommu_fw_protects(io, &fw))
		return false;
	printf("    %s as the firmware left it: %s; the device behind it did not come up: %s\n", io->name, fw.state,
	       device);
	test_skip(
	    t, SKIP_UNSUPPORTED,
	    "%s protects memory from DMA as the firmware left it, the device's own queues too: it did not come up",
	    io->name);
	return true;
}

static struct dma_engine *engine(struct test_ctx *t)
{
	const char *why = "no engine";
	struct dma_engine *e = platform->hardware ? dut_engine(&why) : NULL;
	if (!e && platform->hardware && unit_in_the_way(t, why))
		return NULL;
	if (!e) {
		if (platform->replay)
			why = "replay: no live hardware";
		else if (!platform->hardware)
			why = "no devices on this platform";
		test_skip(t,
			  platform->replay     ? SKIP_REPLAY
			  : platform->hardware ? SKIP_NO_DEVICE
					       : SKIP_PLATFORM,
			  "no DMA engine: %s", why);
		return NULL;
	}
	char bdf[16];
	pci_addr_str(e->addr, bdf, sizeof(bdf));
	printf("    engine %s at %s: %s\n", e->kind, bdf, e->caps.how);
	/* every buffer here is one the device reaches itself: a device whose
	 * address bits end below the RAM (edu on Arm's virt machine) has none */
	char why_not[112];
	if (dma_unreachable(e, 4096, why_not, sizeof(why_not))) {
		test_skip(t, SKIP_UNSUPPORTED, "%s", why_not);
		return NULL;
	}
	/* a unit the firmware left protecting keeps iommon's buffers out of
	 * the device's reach, as it should: the protection group audits that,
	 * the backend groups DMA through the unit once it is taken over */
	const char *no;
	if (iommu_give_back_held() == NULL) {
		struct iommu *io = iommu_for_device(e->addr, &no);
		struct iommu_fw_state fw;
		if (iommu_fw_protects(io, &fw)) {
			test_skip(
			    t, SKIP_UNSUPPORTED,
			    "%s protects memory from DMA as the firmware left it: iommon's buffers are out of the "
			    "device's reach until the unit is taken over",
			    io->name);
			return NULL;
		}
	}
	return e;
}

static bool dma(struct test_ctx *t, struct dma_engine *e, enum dma_dir dir, struct dmabuf *b, struct dma_result *r)
{
	e->transfer(e, dir, b->phys, b->len, r);
	size_t damaged = dmabuf_guards_damaged(b);
	if (damaged)
		report(t, false, "%zu guard bytes around the %zu-byte buffer were written", damaged, b->len);
	if (r->status != DMA_OK)
		report(t, false, "%s of %zu bytes at 0x%llx: %s: %s",
		       dir == DMA_TO_DEVICE ? "to device" : "from device", b->len, (unsigned long long)b->phys,
		       dma_status_name(r->status), r->error);
	return r->status == DMA_OK && !damaged;
}

/* Sizes from 4 bytes to 1 MiB at several offsets, as the engine allows. */
static void t_integrity(struct test_ctx *t)
{
	struct dma_engine *e = engine(t);
	if (!e)
		return;
	static const size_t sizes[] = { 4, 64, 512, 4096, 8192, 65536, 1u << 20 };
	static const size_t offsets[] = { 0, 4, 512, 4032 };
	uint64_t limit = dma_reach(e);
	unsigned done = 0;
	for (size_t si = 0; si < ARRAY_SIZE(sizes) && !test_stopped(t); si++) {
		size_t len = sizes[si];
		if (len > e->caps.max_len || (e->caps.len_unit > 1 && len % e->caps.len_unit))
			continue;
		for (size_t oi = 0; oi < ARRAY_SIZE(offsets); oi++) {
			size_t off = offsets[oi];
			if (e->caps.align > 1 && off % e->caps.align)
				continue;
			struct dmabuf a, b;
			if (!dmabuf_alloc(&a, len, off, limit) || !dmabuf_alloc(&b, len, off, limit)) {
				report(t, false, "no memory for two %zu-byte buffers below 0x%llx", len,
				       (unsigned long long)limit);
				dmabuf_free(&a);
				return;
			}
			uint32_t seed = (uint32_t)(len * 31 + off);
			struct dma_result r;
			bool ok;
			if (e->caps.roundtrip) {
				/* patterns in, patterns out */
				dmabuf_pattern(&a, seed);
				memset(b.data, 0, len);
				ok = dma(t, e, DMA_TO_DEVICE, &a, &r) && dma(t, e, DMA_FROM_DEVICE, &b, &r);
				long bad = ok ? dmabuf_check_pattern(&b, seed) : -1;
				if (ok && bad >= 0)
					report(t, false, "%zu bytes at offset %zu came back different from byte %ld",
					       len, off, bad);
				ok = ok && bad < 0;
			} else {
				/* read the medium twice into two patterned buffers: both
				 * reads must overwrite every byte with the same data */
				dmabuf_pattern(&a, seed);
				for (size_t i = 0; i < len; i++) /* every byte differs from a's */
					b.data[i] = (uint8_t)~a.data[i];
				ok = dma(t, e, DMA_FROM_DEVICE, &a, &r) && dma(t, e, DMA_FROM_DEVICE, &b, &r);
				if (ok && memcmp(a.data, b.data, len) != 0) {
					report(t, false, "two reads of the same %zu bytes differ", len);
					ok = false;
				}
				if (ok && e->caps.reads_ram) {
					/* the device reads what the first read gave: Compare
					 * must match, and must not once a byte is changed */
					ok = dma(t, e, DMA_TO_DEVICE, &a, &r);
					a.data[len / 2] ^= 0x5a;
					e->transfer(e, DMA_TO_DEVICE, a.phys, len, &r);
					if (!r.miscompare) {
						report(
						    t, false,
						    "compare of a changed buffer gave '%s' (status 0x%03x: %s), not a "
						    "miscompare",
						    dma_status_name(r.status), r.device_status,
						    r.status == DMA_OK ? "it matched" : r.error);
						ok = false;
					}
					dmabuf_guards_damaged(&a);
				}
			}
			done += ok;
			dmabuf_free(&a);
			dmabuf_free(&b);
		}
	}
	if (t->skipped)
		return;
	report(t, done > 0, "%u size/offset combinations moved intact, every guard byte untouched", done);
	test_note(t, "%s: %u combinations up to %llu bytes%s", e->kind, done, (unsigned long long)e->caps.max_len,
		  e->caps.fixed_latency_us ? " (a model: fixed delay per DMA)" : "");
}

static void latency(struct test_ctx *t, struct dma_engine *e, enum dma_dir dir, size_t len, size_t n)
{
	uint64_t limit = dma_reach(e);
	struct dmabuf b;
	uint64_t *lat = malloc(n * sizeof(*lat)), *drv = malloc(n * sizeof(*drv));
	if (!lat || !drv || !dmabuf_alloc(&b, len, 0, limit)) {
		report(t, false, "no memory for %zu samples of %zu bytes", n, len);
		free(lat), free(drv);
		return;
	}
	struct dma_result r;
	if (dir == DMA_TO_DEVICE && !e->caps.roundtrip && e->transfer(e, DMA_FROM_DEVICE, b.phys, len, &r) != DMA_OK) {
		/* a compare needs the medium's own data in the buffer */
		report(t, false, "reading the data to compare against: %s", r.error);
		dmabuf_free(&b);
		free(lat), free(drv);
		return;
	}
	size_t ok = 0;
	char cut[160] = ""; /* why the series stopped short */
	uint64_t t0 = cycles_begin();
	for (size_t i = 0; i < n && !test_stopped(t); i++) {
		if (e->transfer(e, dir, b.phys, len, &r) != DMA_OK) {
			report(t, false, "DMA %zu of %zu: %s", i, n, r.error);
			snprintf(cut, sizeof(cut), "DMA %zu of %zu: %s", i, n, r.error);
			break;
		}
		lat[ok] = r.t_done - r.t_submit;
		drv[ok] = r.driver_cycles;
		ok++;
		timing_floor_sample();
		test_progress(t, ok, n, "DMAs");
	}
	uint64_t total = cycles_end() - t0;
	report(t, dmabuf_guards_damaged(&b) == 0, "guard bytes intact after %zu DMAs of %zu bytes", ok, len);
	dmabuf_free(&b);
	if (ok) {
		char variant[48], dvariant[48];
		const char *d = dir == DMA_TO_DEVICE ? "to-device" : "from-device";
		snprintf(variant, sizeof(variant), "%s-%s-%zu", e->kind, d, len);
		snprintf(dvariant, sizeof(dvariant), "%s-driver-%s-%zu", e->kind, d, len);
		double secs = cycles_to_ns(total) / 1e9;
		printf("    %s: %zu DMAs, %.1f DMAs/s, %.2f MB/s%s\n", variant, ok, ok / secs, ok * len / secs / 1e6,
		       e->caps.fixed_latency_us ? " (the model's fixed delay, not a measurement of hardware)" : "");
		char note[96];
		if (e->caps.fixed_latency_us)
			snprintf(note, sizeof(note),
				 "%s completes every DMA %u ms after it starts: a model's delay, not a latency",
				 e->kind, e->caps.fixed_latency_us / 1000);
		struct measure m = { .path = "dma",
				     .backend = "none",
				     .variant = variant,
				     .unit = "cycles",
				     .note = e->caps.fixed_latency_us ? note : NULL,
				     .cut = cut[0] ? cut : NULL };
		test_measure(t, &m, lat, ok);
		m.variant = dvariant;
		test_measure(t, &m, drv, ok);
	}
	free(lat);
	free(drv);
}

/* Latency per size and direction: from the doorbell to the completion
 * seen, and the monitor's own cycles per DMA around it. */
static void t_latency(struct test_ctx *t)
{
	struct dma_engine *e = engine(t);
	if (!e)
		return;
	/* edu takes 100 ms per DMA whatever the size: a few are enough */
	size_t n = e->caps.fixed_latency_us ? 3 : (size_t)setting_long("dma.samples");
	static const size_t sizes[] = { 4096, 65536 };
	size_t prev = 0;
	for (size_t i = 0; i < 2; i++) {
		size_t len = sizes[i] > e->caps.max_len ? e->caps.max_len : sizes[i];
		if (e->caps.len_unit > 1)
			len -= len % e->caps.len_unit;
		if (len == prev || len == 0)
			break;
		prev = len;
		latency(t, e, DMA_FROM_DEVICE, len, n);
		/* a device gone is not asked again: every series would fail alike */
		if (e->caps.reads_ram && !dut_gone())
			latency(t, e, DMA_TO_DEVICE, len, n);
		if (dut_gone())
			break;
	}
	if (e->caps.fixed_latency_us)
		test_note(t, "%s adds a fixed %u ms per DMA: correctness only, not latency", e->kind,
			  e->caps.fixed_latency_us / 1000);
	else
		test_note(t, "%s: %zu DMAs per size and direction", e->kind, n);
}

/* Absurd requests are refused by name before the device sees them; a
 * device that is never told to start times out by name; and the engine
 * still works afterwards. */
static void t_bad_input(struct test_ctx *t)
{
	struct dma_engine *e = engine(t);
	if (!e)
		return;
	uint64_t limit = dma_reach(e);
	struct dmabuf b;
	size_t len = e->caps.len_unit > 1 ? e->caps.len_unit : 64;
	if (!dmabuf_alloc(&b, len, 0, limit)) {
		report(t, false, "no memory");
		return;
	}
	struct dma_result r;
	e->transfer(e, DMA_FROM_DEVICE, b.phys, 0, &r);
	report(t, r.status == DMA_BAD_REQUEST, "length 0 refused: %s", r.error);
	e->transfer(e, DMA_FROM_DEVICE, b.phys, e->caps.max_len + e->caps.len_unit, &r);
	report(t, r.status == DMA_BAD_REQUEST, "length past the maximum refused: %s", r.error);
	e->transfer(e, DMA_FROM_DEVICE, b.phys, (uint64_t)1 << 62, &r);
	report(t, r.status == DMA_BAD_REQUEST, "absurd length refused: %s", r.error);
	if (e->caps.addr_bits < 64) {
		e->transfer(e, DMA_FROM_DEVICE, 1ull << e->caps.addr_bits, len, &r);
		report(t, r.status == DMA_BAD_REQUEST, "IOVA past the device's address bits refused: %s", r.error);
	}
	if (e->caps.align > 1) {
		e->transfer(e, DMA_FROM_DEVICE, b.phys + 1, len, &r);
		report(t, r.status == DMA_BAD_REQUEST, "misaligned IOVA refused: %s", r.error);
	}
	if (e->caps.len_unit > 1) {
		e->transfer(e, DMA_FROM_DEVICE, b.phys, len + 1, &r);
		report(t, r.status == DMA_BAD_REQUEST, "length not a whole block refused: %s", r.error);
	}
	report(t, dmabuf_guards_damaged(&b) == 0, "nothing was written by the refused requests");

	e->withhold_doorbell = true;
	uint64_t t0 = cycles_begin();
	e->transfer(e, DMA_FROM_DEVICE, b.phys, len, &r);
	uint64_t waited = cycles_end() - t0;
	e->withhold_doorbell = false;
	report(t, r.status == DMA_TIMEOUT, "a DMA the device was never told about times out: %s (after %.0f ms)",
	       r.error, cycles_to_ns(waited) / 1e6);
	e->transfer(e, DMA_FROM_DEVICE, b.phys, len, &r);
	report(t, r.status == DMA_OK, "the engine works again after the timeout (%s)", dma_status_name(r.status));
	dmabuf_free(&b);
	test_note(t, "%s: refusals and the timeout all named", e->kind);
}

static const char *check_samples(const char *v)
{
	unsigned long long n;
	return parse_range(v, 1, 100000, "a count", &n);
}

/* dma.samples: also the series length of the IOMMU groups' latency cases */
static void dma_settings(void)
{
	setting_add("dma.samples", "200", "DMAs per size and direction in dma.latency", check_samples, NULL);
}

static const struct test_doc docs[] = {
	{ t_integrity,
	  "the DMA engine (NVMe reads of a zero-filled or scratch namespace, or edu) moves data both ways "
	  "intact at sizes from 4 bytes to 1 MiB and several offsets, the guard bytes around each buffer "
	  "untouched, with the IOMMU as the firmware left it",
	  "wrong bytes or a touched guard: the engine or its driver is broken, and every IOMMU case built on it "
	  "would fail for reasons that are not the IOMMU's" },
	{ t_latency,
	  "per-DMA latency and the driver's own CPU cost, by size and direction, with the IOMMU as found: the "
	  "baseline the IOMMU cases' figures are read against",
	  "fails only when a DMA fails; the figures are never judged" },
	{ t_bad_input,
	  "absurd requests (zero or huge lengths, unaligned or out-of-reach addresses, a device never set up) "
	  "are refused with named errors before any DMA, and the engine works after",
	  "a request that reaches the device, or an error that names nothing: the driver would DMA where it "
	  "must not" },
	{ NULL },
};

static const struct test_case cases[] = {
	{ "dma.integrity", "data in and out intact at 4 B..1 MiB and several offsets, guards untouched", t_integrity,
	  true },
	{ "dma.latency", "per-DMA latency and driver cost by size and direction (IOMMU as found)", t_latency, true },
	{ "dma.bad_input", "absurd lengths, addresses, alignment, a device never told: named errors", t_bad_input,
	  true },
};

const struct test_group dma_group = {
	.name = "dma",
	.summary = "DMA engines (edu, NVMe) through one interface",
	.cases = cases,
	.n = ARRAY_SIZE(cases),
	.settings = dma_settings,
	.docs = (const struct test_doc *const[]){ docs, NULL },
};
