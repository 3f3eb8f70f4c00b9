/* Group `gic`: the GIC the MADT describes, driven by the monitor's own
 * driver (core/base/gic.c) with the CPU's interrupts masked, and given
 * back as found: its structures decoded and this CPU's redistributor
 * found, and an SGI to this CPU taken through it and timed, the round
 * trip every interrupt case on Arm (the SMMU's events) stands on. */
#include "gic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "core/tables/madt.h"

#define SGI_ID 8 /* one the UEFI firmware does not use (it runs one CPU) */
#define ROUNDS 50

static bool madt_read(struct madt *m)
{
	const struct acpi_header *h = monitor_acpi() ? acpi_find(monitor_acpi(), "APIC", 0) : NULL;
	memset(m, 0, sizeof(*m));
	return h && madt_parse((const uint8_t *)h, h->length, m) == 0;
}

const char *gic_setup(struct gic *g, enum skip_reason *reason)
{
	static char why[200];
	struct madt m;
	*reason = SKIP_UNSUPPORTED;
	if (!platform->gic_sysreg) {
		*reason = SKIP_PLATFORM;
		return "no GIC on this platform";
	}
	if (!madt_read(&m)) {
		madt_free(&m);
		return "the firmware gives no MADT the monitor can read";
	}
	struct gic_where at = { .gicd = m.gic.has_gicd ? m.gic.gicd_base : 0, .version = m.gic.version };
	for (size_t i = 0; i < m.gic.ngicr && i < GIC_MAX_RANGES; i++)
		at.gicr[at.ngicr].base = m.gic.gicr[i].base, at.gicr[at.ngicr++].length = m.gic.gicr[i].length;
	uint64_t mpidr = 0;
	const struct madt_gicc *c = platform->gic_sysreg(GIC_MPIDR, false, &mpidr) ? madt_gicc_of(&m, mpidr) : NULL;
	at.gicc_gicr = c ? c->gicr_base : 0;
	madt_free(&m);
	const char *e = gic_open(g, &at);
	if (e) {
		snprintf(why, sizeof(why), "%s", e);
		return why;
	}
	return NULL;
}

static bool gic_applies(const struct test_group *grp, enum skip_reason *reason, char *why, size_t cap)
{
	(void)grp;
	struct madt m;
	bool ok = madt_read(&m) && m.gic.has_gicd;
	madt_free(&m);
	if (!ok) {
		*reason = platform->gic_sysreg ? SKIP_UNSUPPORTED : SKIP_PLATFORM;
		snprintf(why, cap, "%s", platform->gic_sysreg ? "the MADT names no GIC distributor" : "no GIC on this platform");
	}
	return ok;
}

static void t_discover(struct test_ctx *t)
{
	struct madt m;
	report(t, madt_read(&m), "the MADT was read");
	printf("    MADT: GICD 0x%llx version %u; %zu GICR range%s; %zu GICC (%zu seen); %zu ITS\n",
	       (unsigned long long)m.gic.gicd_base, m.gic.version, m.gic.ngicr, m.gic.ngicr == 1 ? "" : "s",
	       m.gic.ngicc, m.gic.gicc_seen, m.gic.nits);
	for (size_t i = 0; i < m.diag.n; i++)
		printf("    MADT %s: %s\n", m.diag.msg[i].level == DIAG_ERROR ? "error" : "warning", m.diag.msg[i].text);
	report(t, m.diag.errors == 0, "the MADT's GIC structures decode without errors (%u)", m.diag.errors);
	madt_free(&m);
	struct gic g;
	enum skip_reason reason;
	const char *e = gic_setup(&g, &reason);
	if (e) {
		test_skip(t, reason, "%s", e);
		return;
	}
	report(t, true, "%s: %u INTIDs, %u priority bits, EOImode %u, %s", g.desc, g.nlines, g.pri_bits, g.eoimode,
	       g.ds ? "one security state (DS)" : "two security states");
	test_note(t, "%s", g.desc);
}

static void t_sgi(struct test_ctx *t)
{
	struct gic g;
	enum skip_reason reason;
	const char *e = gic_setup(&g, &reason);
	if (e) {
		test_skip(t, reason, "%s", e);
		return;
	}
	e = gic_claim(&g, SGI_ID, true);
	if (!e)
		e = gic_quiet(&g);
	report(t, !e, "SGI %u claimed (Group 1, the highest priority), ICC_PMR lowered to it%s%s", SGI_ID, e ? ": " : "",
	       e ? e : "");
	uint64_t seen[ROUNDS], acked[ROUNDS];
	size_t n = 0;
	for (size_t i = 0; !e && i < ROUNDS; i++) {
		uint64_t t0 = rdtsc(), ts, ta;
		if ((e = gic_sgi_self(&g, SGI_ID)) != NULL)
			break;
		if (!gic_wait(&g, SGI_ID, 10000, &ts, &ta))
			break;
		seen[n] = ts - t0, acked[n] = ta - t0;
		n++;
	}
	report(t, n == ROUNDS, "%zu of %d SGIs to this CPU were pending at its interface and acknowledged%s%s", n,
	       ROUNDS, e ? ": " : "", e ? e : "");
	report(t, g.others_acked == 0, "no other interrupt was acknowledged meanwhile (%u)", g.others_acked);
	const char *back = gic_release(&g);
	report(t, !back, "the SGI, ICC_PMR and ICC_IGRPEN1 as found%s%s", back ? ": " : "", back ? back : "");
	struct measure ms = { .path = "interrupt", .backend = "none", .unit = "cycles",
			      .note = "from the ICC_SGI1R write to ICC_HPPIR1 showing the SGI (polled, interrupts masked)" };
	ms.variant = "sgi-self-pending";
	if (n)
		test_measure(t, &ms, seen, n);
	ms.variant = "sgi-self-acknowledged";
	ms.note = "from the ICC_SGI1R write to ICC_IAR1 returning it";
	if (n)
		test_measure(t, &ms, acked, n);
	test_note(t, "%s: %zu SGI round trips, polled", g.desc, n);
}

static const struct test_case cases[] = {
	{ "gic.discover", "the MADT's GIC: distributor, redistributors, CPU interfaces, ITSs; this CPU's found", t_discover,
	  true },
	{ "gic.sgi", "an SGI to this CPU through the monitor's GIC driver: pending, acknowledged, ended, timed", t_sgi,
	  true },
};

static const struct test_doc docs[] = {
	{ t_discover,
	  "the MADT's GIC structures (GICD with its version, GICR ranges, GICC entries with their MPIDRs, ITSs) "
	  "decode without errors, and the redistributor whose GICR_TYPER affinity is this CPU's MPIDR is found",
	  "a structure that does not decode, or no redistributor for the CPU: an OS could not route this CPU's "
	  "interrupts (not applicable without a GIC; GICv2 is not driven)" },
	{ t_sgi,
	  "SGI 8 sent to this CPU through ICC_SGI1R 50 times: each seen pending at the CPU interface and "
	  "acknowledged, with the CPU's interrupts masked and ICC_PMR admitting only it; the SGI's configuration, "
	  "ICC_PMR and ICC_IGRPEN1 then read back as found; the round trip timed",
	  "an SGI that never arrives or another interrupt acknowledged: the GIC does not deliver to this CPU as "
	  "its tables say, and no fault interrupt can be timed here" },
	{ NULL },
};

const struct test_group gic_group = {
	.name = "gic",
	.summary = "the GIC: the MADT's structures, an SGI round trip through the monitor's driver",
	.cases = cases,
	.n = ARRAY_SIZE(cases),
	.applies = gic_applies,
	.docs = (const struct test_doc *const[]){ docs, NULL },
};
