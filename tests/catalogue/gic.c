/* The GIC the MADT describes, driven by the monitor's own driver
 * (core/base/gic.c) with the CPU's interrupts masked, and given back as
 * found: its structures decoded and this CPU's redistributor found, and an
 * SGI to this CPU taken through it and timed, the round trip the SMMU's
 * interrupt case stands on. The cases run in the smmuv3 group (smmuv3.gic_*),
 * beside the case they serve. */
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
#include "core/tables/acpi.h"
#include "core/tables/madt.h"
#include "iommu/models/models.h"

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
	/* a GICv2 machine may leave the MPIDRs out: one CPU interface is this one */
	if (!c && m.gic.ngicc == 1)
		c = &m.gic.gicc[0];
	at.gicc_gicr = c ? c->gicr_base : 0;
	at.gicc_base = c ? c->gicc_base : 0;
	madt_free(&m);
	const char *e = gic_open(g, &at);
	if (e) {
		snprintf(why, sizeof(why), "%s", e);
		return why;
	}
	return NULL;
}

/* With a model attached, the group is the model's: the GIC is the machine's. */
static bool machine_only(struct test_ctx *t)
{
	struct dma_engine *e;
	if (!model_unit(&e))
		return false;
	t->model = true;
	test_skip(t, SKIP_MACHINE_ONLY, "the GIC is the machine's: a register-level model is attached");
	return true;
}

/* The GIC opened for this CPU, or the case skipped with why not. */
static bool opened(struct test_ctx *t, struct gic *g)
{
	enum skip_reason reason;
	const char *e = gic_setup(g, &reason);
	if (e)
		test_skip(t, reason, "%s", e);
	return !e;
}

void case_gic_discover(struct test_ctx *t)
{
	if (machine_only(t))
		return;
	struct madt m;
	report(t, madt_read(&m), "the MADT was read");
	printf("    MADT: GICD 0x%llx version %u; %zu GICR range%s; %zu GICC (%zu seen); %zu ITS\n",
	       (unsigned long long)m.gic.gicd_base, m.gic.version, m.gic.ngicr, m.gic.ngicr == 1 ? "" : "s",
	       m.gic.ngicc, m.gic.gicc_seen, m.gic.nits);
	for (size_t i = 0; i < m.diag.n; i++)
		printf("    MADT %s: %s\n", m.diag.msg[i].level == DIAG_ERROR ? "error" : "warning",
		       m.diag.msg[i].text);
	report(t, m.diag.errors == 0, "the MADT's GIC structures decode without errors (%u)", m.diag.errors);
	madt_free(&m);
	struct gic g;
	if (!opened(t, &g))
		return;
	printf("    %s: %u INTIDs, %s%u priority bits, EOImode %u%s\n", g.desc, g.nlines, g.v2 ? "at least " : "",
	       g.pri_bits, g.eoimode,
	       g.v2   ? ""
	       : g.ds ? ", one security state (DS)"
		      : ", two security states");
	const char *back = gic_release(&g);
	report(t, !back, "the GIC as found%s%s", back ? ": " : "", back ? back : "");
	test_note(t, "%s", g.desc);
}

struct kick {
	struct gic *g;
	const char *err;
};

static void send_sgi(void *ctx)
{
	struct kick *k = ctx;
	k->err = gic_sgi_self(k->g, SGI_ID);
}

void case_gic_sgi(struct test_ctx *t)
{
	if (machine_only(t))
		return;
	struct gic g;
	if (!opened(t, &g))
		return;
	const char *e = gic_claim(&g, SGI_ID, true);
	if (!e)
		e = gic_quiet(&g);
	report(t, !e, "SGI %u claimed (the highest priority), the priority mask (ICC_PMR, GICC_PMR) lowered to it%s%s",
	       SGI_ID, e ? ": " : "", e ? e : "");
	uint64_t seen[ROUNDS], acked[ROUNDS];
	size_t n = 0;
	struct kick k = { &g, NULL };
	for (size_t i = 0; !e && i < ROUNDS; i++) {
		uint64_t tm[3];
		bool got = gic_wait(&g, SGI_ID, 10000, send_sgi, &k, tm);
		if ((e = k.err) != NULL || !got)
			break;
		seen[n] = tm[1] - tm[0], acked[n] = tm[2] - tm[0];
		n++;
	}
	report(t, n == ROUNDS, "%zu of %d SGIs to this CPU were pending at its interface and acknowledged%s%s", n,
	       ROUNDS, e ? ": " : "", e ? e : "");
	report(t, g.others_acked == 0, "no other interrupt was acknowledged meanwhile (%u)", g.others_acked);
	const char *back = gic_release(&g);
	report(t, !back, "the SGI, the priority mask and the group enable as found%s%s", back ? ": " : "",
	       back ? back : "");
	struct measure ms = {
		.path = "interrupt",
		.backend = "none",
		.unit = "cycles",
		.note = "from the ICC_SGI1R write to ICC_HPPIR1 showing the SGI (polled, interrupts masked)"
	};
	ms.variant = "sgi-self-pending";
	if (n)
		test_measure(t, &ms, seen, n);
	ms.variant = "sgi-self-acknowledged";
	ms.note = "from the ICC_SGI1R write to ICC_IAR1 returning it";
	if (n)
		test_measure(t, &ms, acked, n);
	test_note(t, "%s: %zu SGI round trips, polled", g.desc, n);
}

const struct test_doc gic_docs[] = {
	{ case_gic_discover,
	  "the MADT's GIC structures (GICD with its version, GICR ranges, GICC entries with their MPIDRs, ITSs) "
	  "decode without errors, and the redistributor whose GICR_TYPER affinity is this CPU's MPIDR is found",
	  "a structure that does not decode, or no redistributor for the CPU: an OS could not route this CPU's "
	  "interrupts (not applicable without a GIC, or with a GICv1)" },
	{ case_gic_sgi,
	  "SGI 8 sent to this CPU 50 times (ICC_SGI1R; GICv2: GICD_SGIR): each seen pending at the CPU interface "
	  "and acknowledged, with the CPU's interrupts masked and the priority mask admitting only it; the SGI's "
	  "configuration, the priority mask and the group enable then read back as found; the round trip timed",
	  "an SGI that never arrives or another interrupt acknowledged: the GIC does not deliver to this CPU as "
	  "its tables say, and no fault interrupt can be timed here" },
	{ NULL },
};
