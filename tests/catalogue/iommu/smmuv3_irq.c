/* The smmuv3 group's interrupt case: the SMMU's wired event-queue and
 * global-error interrupts (the IORT's GSIVs) taken through the monitor's
 * GIC driver (core/base/gic.c) with the CPU's interrupts masked, and timed
 * from the DMA's doorbell (or the command that fails) to the interrupt
 * pending at this CPU's interface and acknowledged: the fault path VT-d's
 * and AMD-Vi's MSIs time on x86. On a register-level model, which sits
 * behind no GIC, the model's own interrupt signal is timed instead. */
#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/dmabuf.h"
#include "core/base/timing.h"
#include "iommu/smmuv3/model.h"
#include "smmuv3_cases.h"
#include "tests/catalogue/catalogue.h"
#include "tests/catalogue/gic.h"

#define ROUNDS 20
#define WAIT_US 100000 /* an interrupt later than 100 ms is not coming */

struct fault_kick {
	struct env *v;
	uint64_t iova;
	struct dma_result r;
};

static void fault_dma(void *ctx)
{
	struct fault_kick *k = ctx;
	bench_dma(k->v, DMA_TO_DEVICE, k->iova, k->v->len, &k->r);
}

struct gerror_kick {
	struct smmuv3 *s;
	bool reported;
	const char *e;
};

static void bad_command(void *ctx)
{
	struct gerror_kick *k = ctx;
	k->e = smmuv3_illegal_command_probe(k->s, &k->reported);
}

/* The model's signal: when it fired, for the model's rounds. */
struct model_irq {
	uint64_t at[3];
	unsigned count[3];
};

static void on_model_irq(void *ctx, enum smmuv3m_irq which)
{
	struct model_irq *mi = ctx;
	if (!mi->count[which]++)
		mi->at[which] = rdtsc();
}

static void on_model(struct test_ctx *t, struct env *v, struct smmuv3 *s, struct smmuv3_model *m)
{
	struct model_irq mi = { 0 };
	void (*old)(void *, enum smmuv3m_irq) = m->irq;
	void *old_ctx = m->irq_ctx;
	m->irq = on_model_irq, m->irq_ctx = &mi;
	const char *e = smmuv3_irq_enable(s, true);
	report(t, !e, "IRQ_CTRL: EVENTQ_IRQEN and GERROR_IRQEN on, IRQ_CTRLACK followed%s%s", e ? ": " : "",
	       e ? e : "");
	uint64_t lat[ROUNDS];
	size_t n = 0;
	for (size_t i = 0; !e && i < ROUNDS; i++) {
		struct fault_kick k = { v, bench_window(v, v->pg, 1), { 0 } };
		smmuv3_drain_events(v);
		mi.count[SMMUV3M_IRQ_EVENTQ] = 0;
		fault_dma(&k);
		if (mi.count[SMMUV3M_IRQ_EVENTQ] && k.r.t_submit)
			lat[n++] = mi.at[SMMUV3M_IRQ_EVENTQ] - k.r.t_submit;
	}
	report(t, n == ROUNDS, "%zu of %d faulting reads raised the model's event-queue interrupt", n, ROUNDS);
	struct gerror_kick g = { s, false, NULL };
	bad_command(&g);
	report(t, mi.count[SMMUV3M_IRQ_GERROR] >= 1, "an illegal command raised its global-error interrupt (%u)",
	       mi.count[SMMUV3M_IRQ_GERROR]);
	e = smmuv3_irq_enable(s, false);
	report(t, !e, "IRQ_CTRL off again%s%s", e ? ": " : "", e ? e : "");
	m->irq = old, m->irq_ctx = old_ctx;
	char variant[64];
	snprintf(variant, sizeof(variant), "%s-read-np-interrupt", v->label);
	struct measure ms = { .path = "fault",
			      .backend = "smmuv3",
			      .unit = "cycles",
			      .model = true,
			      .variant = variant,
			      .note =
				  "from the doorbell to the model raising its wired event-queue interrupt (no GIC)" };
	if (n)
		test_measure(t, &ms, lat, n);
	test_note(t, "%s: the model's wired interrupts: event queue %zu of %d, global error %u", v->label, n, ROUNDS,
		  mi.count[SMMUV3M_IRQ_GERROR]);
}

void case_smmuv3_fault_interrupt(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	struct smmuv3 *s = smmuv3_of(v.io);
	struct smmuv3_model *m = model_smmuv3();
	if (v.io->model && m) {
		on_model(t, &v, s, m);
		bench_teardown(&v);
		return;
	}
	struct gic g;
	enum skip_reason reason;
	const char *e = gic_setup(&g, &reason);
	if (e) {
		bench_teardown(&v);
		test_skip(t, reason, "%s", e);
		return;
	}
	if (!bench_needs(&v, s->gsiv_event >= 32, SKIP_UNSUPPORTED,
			 "the IORT gives %s no wired event-queue interrupt (GSIV %u)%s", v.io->name, s->gsiv_event,
			 (s->idr0 & (1u << 13))
			     ? ": it signals by MSI (IDR0.MSI), through an ITS the monitor does not drive"
			     : "")) {
		gic_release(&g);
		return;
	}
	/* SMMUv3 wired interrupts are edge-triggered pulses (as the IORT's
	 * users register them) */
	e = gic_claim(&g, s->gsiv_event, true);
	if (!e && s->gsiv_gerr >= 32 && s->gsiv_gerr != s->gsiv_event)
		e = gic_claim(&g, s->gsiv_gerr, true);
	if (!e)
		e = gic_quiet(&g);
	if (!e)
		e = smmuv3_irq_enable(s, true);
	report(t, !e, "%s: INTID %u (event queue) and %u (global error) claimed, edge, to this CPU; IRQ_CTRL on%s%s",
	       g.desc, s->gsiv_event, s->gsiv_gerr, e ? ": " : "", e ? e : "");
	uint64_t pend[ROUNDS], ack[ROUNDS], gerr[ROUNDS];
	size_t n = 0, ng = 0;
	for (size_t i = 0; !e && i < ROUNDS; i++) {
		struct fault_kick k = { &v, bench_window(&v, v.pg, 1), { 0 } };
		smmuv3_drain_events(&v);
		uint64_t tm[3];
		bool got = gic_wait(&g, s->gsiv_event, WAIT_US, fault_dma, &k, tm);
		if (!got)
			break;
		uint64_t from = k.r.t_submit ? k.r.t_submit : tm[0];
		pend[n] = tm[1] > from ? tm[1] - from : 0, ack[n] = tm[2] > from ? tm[2] - from : 0;
		n++;
	}
	smmuv3_drain_events(&v);
	report(t, n == ROUNDS, "%zu of %d faulting reads were followed by INTID %u at this CPU's interface", n, ROUNDS,
	       s->gsiv_event);
	for (size_t i = 0; !e && s->gsiv_gerr >= 32 && i < 5; i++) {
		struct gerror_kick k = { s, false, NULL };
		uint64_t tm[3];
		if (!gic_wait(&g, s->gsiv_gerr, WAIT_US, bad_command, &k, tm) || !k.reported)
			break;
		gerr[ng++] = tm[1] - tm[0];
	}
	if (s->gsiv_gerr >= 32)
		report(t, ng == 5, "%zu of 5 illegal commands were followed by INTID %u (GERROR.CMDQ_ERR)", ng,
		       s->gsiv_gerr);
	report(t, g.others_acked == 0, "no other interrupt was acknowledged meanwhile (%u)", g.others_acked);
	const char *off = smmuv3_irq_enable(s, false), *back = gic_release(&g);
	report(t, !off && !back, "IRQ_CTRL off, the GIC's interrupts and ICC_PMR as found%s%s", off || back ? ": " : "",
	       off    ? off
	       : back ? back
		      : "");
	char variant[64];
	snprintf(variant, sizeof(variant), "%s-read-np-interrupt", v.label);
	struct measure ms = { .path = "fault",
			      .backend = "smmuv3",
			      .unit = "cycles",
			      .variant = variant,
			      .note =
				  "from the doorbell to the SMMU's event interrupt acknowledged at this CPU's GIC "
				  "interface, looked for once the DMA completed (an upper bound; interrupts masked)" };
	if (n)
		test_measure(t, &ms, ack, n);
	snprintf(variant, sizeof(variant), "%s-read-np-interrupt-pending", v.label);
	ms.note = "from the doorbell to the event interrupt seen pending at this CPU's interface (ICC_HPPIR1), looked "
		  "for once the DMA completed (an upper bound)";
	if (n)
		test_measure(t, &ms, pend, n);
	ms.variant = "gerror-interrupt-pending";
	ms.note = "from the illegal command's submission to the global-error interrupt seen pending (ICC_HPPIR1), "
		  "looked for once the driver had skipped the command and acknowledged the error (an upper bound)";
	if (ng)
		test_measure(t, &ms, gerr, ng);
	test_note(t, "%s: event interrupt %zu of %d, global error %zu of 5, through %s", v.label, n, ROUNDS, ng,
		  g.desc);
	bench_teardown(&v);
}
