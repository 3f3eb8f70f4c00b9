/* Group `protection`: the DMA protection the firmware left, audited before
 * anything changes it. Firmware that protects memory before the OS boots
 * (EDK II's IntelVTdDxe and the BIOSes built on it, PMRs, an SMMU left
 * enabled) says so in its tables (the DMAR's DMA_CTRL_PLATFORM_OPT_IN,
 * which Windows' Kernel DMA Protection and fwupd trust); these cases check
 * the promise by DMA. The unit behind the device under test is read, never
 * written; the device DMAs only into a buffer of the monitor's, which no
 * firmware protocol was ever given; the firmware's IOMMU protocol, where
 * it has one, is used as its drivers use it. Then the unit is taken over
 * and given back, and the boot medium read through the firmware's driver
 * before and after: its DMA must work as it did. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/dmabuf.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/monitor/runner.h"
#include "iommu/backend.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "iommu/session.h"
#include "pci/dma.h"
#include "pci/dut.h"
#include "tests/catalogue/bench.h"
#include "tests/catalogue/catalogue.h"

struct audit {
	struct dma_engine *e;
	struct iommu *io;
	struct iommu_fw_state fw;
	char bdf[16];
};

/* The first unit a backend drives, opened without a device: what the
 * promise is checked against when there is no DMA engine. */
static struct iommu *first_unit(const char **why)
{
	for (size_t i = 0; i < machine.units.n; i++) {
		const struct iommu_unit *u = &machine.units.u[i];
		if (u->backend && u->backend->open && !u->refused[0])
			return u->backend->open(u, &machine.units, &machine.pci, why);
	}
	*why = "no unit the monitor drives";
	return NULL;
}

/* The device under test and the unit behind it, as found: the attached
 * model's, or the machine's (any unit a case held is given back first).
 * Without a DMA engine, only a case that needs none (`engine` false) goes
 * on, with the machine's first unit. */
static bool audit_setup(struct test_ctx *t, struct audit *a, bool engine)
{
	memset(a, 0, sizeof(*a));
	const char *why = "no engine";
	a->io = model_unit(&a->e);
	if (a->io) {
		t->model = true;
	} else if (!platform->hardware) {
		test_skip(t, platform->replay ? SKIP_REPLAY : SKIP_PLATFORM,
			  platform->replay ? "replay: no live hardware" : "no IOMMU on this platform");
		return false;
	} else if (machine.units.n == 0) {
		test_skip(t, SKIP_NO_UNIT, "no IOMMU on this machine: nothing protects DMA, nothing to audit");
		return false;
	} else {
		if ((why = iommu_give_back_held()) != NULL) {
			report(t, false, "the unit a case held could not be given back: %s", why);
			return false;
		}
		/* the unit in front of the device under test before the device:
		 * one that cannot be read (refused, none, no backend) is the
		 * reason, and the device is not brought up behind it */
		struct pci_addr at;
		struct dma_engine *open = dut_current();
		if (open)
			at = open->addr;
		if ((open || dut_candidate(&at)) && !bench_unit_in_front(t, NULL, at, &a->io))
			return false;
		a->e = dut_engine(&why);
		if (!a->e && engine) {
			/* a unit left protecting keeps an engine's own queues
			 * (NVMe's) out of its reach too: say so */
			const char *no;
			struct iommu *io = first_unit(&no);
			struct iommu_fw_state fw;
			if (iommu_fw_protects(io, &fw))
				test_skip(t, SKIP_NO_DEVICE,
					  "%s protects memory as found, an engine's own queues too: no DMA engine: %s",
					  io->name, why);
			else
				test_skip(t, SKIP_NO_DEVICE, "no DMA engine: %s", why);
			return false;
		}
		if (a->e && !bench_unit_in_front(t, NULL, a->e->addr, &a->io))
			return false;
		if (!a->e && !(a->io = first_unit(&why))) {
			test_skip(t, SKIP_NO_UNIT, "%s", why);
			return false;
		}
	}
	if (a->e)
		pci_addr_str(a->e->addr, a->bdf, sizeof(a->bdf));
	if (!a->io->ops->firmware_left) {
		test_skip(t, SKIP_NOT_IMPLEMENTED, "%s: iommon cannot yet read what the firmware left on a %s unit",
			  a->io->name, a->io->backend);
		return false;
	}
	if (a->io->taken) {
		report(t, false, "%s is taken over: what the firmware left cannot be read", a->io->name);
		return false;
	}
	a->io->ops->firmware_left(a->io, &a->fw);
	printf("    %s as the firmware left it: %s\n", a->io->name, a->fw.state);
	if (a->fw.promise[0])
		printf("    promised: %s\n", a->fw.promise);
	return true;
}

static bool protecting(const struct audit *a)
{
	return a->fw.translating || a->fw.blocking;
}

/* A unit left off under no promise: nothing to audit, the same words for
 * every case (one line where the results fold them). */
static bool nothing_to_audit(struct test_ctx *t, const struct audit *a)
{
	if (protecting(a) || a->fw.promised)
		return false;
	test_skip(t, SKIP_UNSUPPORTED, "%s was left off; no DMA protection promised", a->io->name);
	return true;
}

/* The promise against the unit: a unit left off under a promise is the
 * failure the flag's readers never see. */
static void t_promise(struct test_ctx *t)
{
	struct audit a;
	if (!audit_setup(t, &a, false) || nothing_to_audit(t, &a))
		return;
	if (!a.fw.promised) {
		test_skip(t, SKIP_UNSUPPORTED, "%s: the firmware's tables promise no DMA protection for it",
			  a.io->name);
		return;
	}
	report(t, protecting(&a), "%s promises DMA protection and %s %s", a.fw.promise, a.io->name,
	       protecting(&a) ? "was left protecting (translating or blocking)" : "was left off: the promise is false");
}

/* Bytes of `b` that differ from `was`. */
static size_t changed(const struct dmabuf *b, const uint8_t *was)
{
	size_t n = 0;
	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] != was[i];
	return n;
}

/* A DMA from the device at `iova` into `b` (filled first); how many bytes
 * changed. *err, when the DMA failed, is the engine's words, kept until
 * the next call. */
static bool dma_into(struct audit *a, struct dmabuf *b, uint64_t iova, uint32_t seed, size_t *n, const char **err)
{
	static uint8_t was[4096];
	static struct dma_result r; /* *err points into it after we return */
	dmabuf_pattern(b, seed);
	memcpy(was, b->data, b->len);
	a->e->transfer(a->e, DMA_FROM_DEVICE, iova, b->len, &r);
	*err = r.status == DMA_OK ? NULL : r.error;
	*n = changed(b, was);
	return dmabuf_guards_damaged(b) == 0;
}

static bool audit_buffer(struct test_ctx *t, struct audit *a, struct dmabuf *b)
{
	size_t len = a->e->caps.max_len < 4096 ? a->e->caps.max_len : 4096;
	if (a->e->caps.len_unit > 1)
		len -= len % a->e->caps.len_unit;
	char why[112];
	if (dma_unreachable(a->e, len, why, sizeof(why))) {
		test_skip(t, SKIP_UNSUPPORTED, "%s: %s", a->bdf, why);
		return false;
	}
	if (!dmabuf_alloc(b, len, 0, dma_reach(a->e))) {
		report(t, false, "no memory for a %zu-byte buffer", len);
		return false;
	}
	return true;
}

/* The audit of a DMA: the device and its unit, the unit left protecting
 * (else not applicable: "UNIT is off: `off`"). */
static bool audit_protecting(struct test_ctx *t, struct audit *a, const char *off)
{
	if (!audit_setup(t, a, true) || nothing_to_audit(t, a))
		return false;
	if (!protecting(a)) {
		test_skip(t, SKIP_UNSUPPORTED, "%s is off: %s", a->io->name, off);
		return false;
	}
	return true;
}

/* The promise kept: a DMA into a page of ours, which no firmware protocol
 * was given, changes nothing. */
static void t_blocked(struct test_ctx *t)
{
	struct audit a;
	if (!audit_protecting(t, &a, "the firmware left no DMA protection on it"))
		return;
	struct dmabuf b;
	if (!audit_buffer(t, &a, &b))
		return;
	bool fault_before = a.io->ops->fault_pending && a.io->ops->fault_pending(a.io);
	size_t n = 0;
	const char *err;
	bool guards = dma_into(&a, &b, b.phys, 0x5a17, &n, &err);
	bool fault = a.io->ops->fault_pending && a.io->ops->fault_pending(a.io);
	report(t, guards, "the guard bytes around the buffer are untouched");
	if (n == 0)
		report(t, true, "protected: %s's DMA to 0x%llx (a page of iommon's) changed none of its %zu bytes%s",
		       a.bdf, (unsigned long long)b.phys, b.len,
		       fault && !fault_before ? "; the unit recorded a fault"
		       : fault_before ? "; a fault was pending before it (not cleared: the unit is the firmware's)"
				      : "; no fault recorded (the unit may record none for this block)");
	else
		report(t, false,
		       "not protected: %s's DMA to 0x%llx (a page of iommon's) changed %zu of its %zu bytes%s%s", a.bdf,
		       (unsigned long long)b.phys, n, b.len, err ? "; the engine said: " : "", err ? err : "");
	test_note(t, "%s: %s", a.io->name, n ? "not protected" : "protected");
	dmabuf_free(&b);
}

/* A buffer mapped through the firmware's own IOMMU protocol, as its drivers
 * map theirs, is reachable: the protection lets through what it should. */
static void t_protocol(struct test_ctx *t)
{
	struct audit a;
	if (!audit_protecting(t, &a, "nothing to map through"))
		return;
	if (t->model || !platform->fw_iommu || !platform->fw_dma_map) {
		test_skip(t, SKIP_PLATFORM, "no firmware on this platform to map through");
		return;
	}
	if (!platform->fw_iommu()) {
		test_skip(t, SKIP_UNSUPPORTED, "the firmware installed no IOMMU protocol (EDKII_IOMMU_PROTOCOL)");
		return;
	}
	struct dmabuf b;
	if (!audit_buffer(t, &a, &b))
		return;
	uint64_t dev_addr = 0;
	void *token = NULL;
	const char *e = platform->fw_dma_map(a.e->addr.seg, a.e->addr.bus, a.e->addr.dev, a.e->addr.fn, b.phys, b.len,
					     &dev_addr, &token);
	if (e) {
		report(t, false, "mapping 0x%llx through %s's PCI I/O protocol: %s", (unsigned long long)b.phys, a.bdf,
		       e);
		dmabuf_free(&b);
		return;
	}
	size_t n = 0;
	const char *err;
	bool guards = dma_into(&a, &b, dev_addr, 0x77e1, &n, &err);
	platform->fw_dma_unmap(token);
	report(t, guards, "the guard bytes around the buffer are untouched");
	report(t, n > 0, "mapped through the firmware's IOMMU protocol (device address 0x%llx), %s's DMA %s%s%s",
	       (unsigned long long)dev_addr, a.bdf,
	       n ? "arrived" : "was blocked: its drivers' own mappings would be too", err ? "; the engine said: " : "",
	       err ? err : "");
	dmabuf_free(&b);
}

/* Taken over and given back, the firmware's own DMA works as before: the
 * boot medium read through the firmware's driver before and after. */
static void t_give_back(struct test_ctx *t)
{
	struct audit a;
	if (!audit_setup(t, &a, false) || nothing_to_audit(t, &a))
		return;
	/* the medium's part only where there is one; the unit's everywhere */
	enum { LEN = 65536 };
	uint8_t *before = malloc(LEN), *after = malloc(LEN);
	const char *e = !before || !after		   ? "no memory"
			: t->model || !platform->boot_read ? "no boot medium the firmware reads on this platform"
							   : platform->boot_read(0, before, LEN);
	bool medium = e == NULL;
	if (e)
		printf("    the boot medium is not read: %s\n", e);
	test_uses_unit(a.io->backend, a.io->name, a.io->model); /* what the audit's take-over tests */
	e = a.io->ops->take(a.io);
	report(t, !e, "%s taken over%s%s", a.io->name, e ? ": " : "", e ? e : "");
	if (!e) {
		e = a.io->ops->give_back(a.io);
		report(t, !e, "%s given back: %s%s%s", a.io->name, a.io->restore_note, e ? "; " : "", e ? e : "");
	}
	struct iommu_fw_state now = { 0 };
	a.io->ops->firmware_left(a.io, &now);
	report(t,
	       now.translating == a.fw.translating && now.blocking == a.fw.blocking && now.queue == a.fw.queue &&
		   now.intremap == a.fw.intremap,
	       "%s protects as the firmware left it: %s", a.io->name, now.state);
	if (medium) {
		memset(after, 0xa5, LEN);
		e = platform->boot_read(0, after, LEN);
		report(t, !e && memcmp(before, after, LEN) == 0,
		       "the boot medium read through the firmware's driver after give-back: %u bytes as before%s%s",
		       LEN, e ? ": " : "", e ? e : "");
	}
	free(before), free(after);
}

static const struct test_doc docs[] = {
	{ t_promise,
	  "the firmware's tables (the DMAR's DMA_CTRL_PLATFORM_OPT_IN) promise DMA protection and the unit "
	  "behind the device under test was left protecting (translating, or blocking with PMRs)",
	  "the promise is false: the unit was left off, and an OS that trusts the flag trusts nothing" },
	{ t_blocked,
	  "with the unit as the firmware left it (nothing written to it), the device's DMA into a page of "
	  "iommon's that no firmware protocol was given changes no byte: `protected`",
	  "`not protected`, with the number of bytes that changed: the firmware's tables or regions let the "
	  "device reach memory it was never given" },
	{ t_protocol,
	  "a buffer mapped through the firmware's IOMMU protocol (the device's PCI I/O Map, as firmware drivers "
	  "map theirs) is reachable by the device",
	  "the protocol's mapping does not reach the unit: the firmware's own drivers' DMA would fail" },
	{ t_give_back,
	  "the unit taken over and given back protects as the firmware left it, and the boot medium reads "
	  "through the firmware's driver the same bytes after as before",
	  "give-back left the firmware's DMA broken, or its protection changed" },
	{ NULL },
};

static const struct test_case cases[] = {
	{ "protection.promise", "the tables' DMA-protection promise against the unit as found", t_promise, true },
	{ "protection.blocked", "a DMA into a page of iommon's, the unit as found: blocked (protected)", t_blocked,
	  true },
	{ "protection.protocol", "a buffer mapped through the firmware's IOMMU protocol: reachable", t_protocol, true },
	{ "protection.give_back", "taken and given back: protection as found, the boot medium reads the same",
	  t_give_back, true },
};

const struct test_group protection_group = {
	.name = "protection",
	.summary = "the firmware's DMA protection, audited by DMA before anything changes it",
	.cases = cases,
	.n = ARRAY_SIZE(cases),
	.docs = (const struct test_doc *const[]){ docs, NULL },
};
