/* The GICv3/v4 (see gic.h). Offsets and fields from IHI 0069 (chapter 12).
 * An SPI's state lives in the distributor; an SGI's or PPI's in this CPU's
 * redistributor's SGI frame, at the same offsets. */
#include "gic.h"

#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"

/* GICD (12.9) and the SGI frame's (12.10) registers of the same layout */
#define GICD_CTLR 0x0000
#define GICD_TYPER 0x0004
#define GICx_IGROUPR 0x0080
#define GICx_ISENABLER 0x0100
#define GICx_ICENABLER 0x0180
#define GICx_ISPENDR 0x0200
#define GICx_ICPENDR 0x0280
#define GICx_IPRIORITYR 0x0400
#define GICx_ICFGR 0x0c00
#define GICx_IGRPMODR 0x0d00
#define GICD_IROUTER 0x6000
#define GICx_PIDR2 0xffe8
#define CTLR_RWP (1u << 31)
#define CTLR_ARE (1u << 4) /* ARE_NS, or ARE where DS */
#define CTLR_DS (1u << 6)
/* GICR RD_base (12.11) */
#define GICR_CTLR 0x0000
#define GICR_TYPER 0x0008
#define GICR_WAKER 0x0014
#define GICR_CTLR_RWP (1u << 3)
#define GICR_TYPER_VLPIS (1ull << 1)
#define GICR_TYPER_LAST (1ull << 4)
#define WAKER_PROCESSOR_SLEEP (1u << 1)
#define WAKER_CHILDREN_ASLEEP (1u << 2)
#define SGI_BASE 0x10000
#define GICR_FRAME 0x20000 /* RD_base and SGI_base; GICv4 with VLPIS adds two more */
#define GICD_SPAN 0x10000

/* GICv2 (IHI 0048): the distributor in 4 KiB, banked per CPU below
 * INTID 32, routes by ITARGETSR, SGIs by GICD_SGIR; the CPU interface
 * memory-mapped (GICC) */
#define GICD_ITARGETSR 0x0800
#define GICD_SGIR 0x0f00
#define GICD_V2_PIDR2 0x0fe8
#define GICD_V2_SPAN 0x1000
#define GICC_CTLR 0x0000
#define GICC_PMR 0x0004
#define GICC_IAR 0x000c
#define GICC_EOIR 0x0010
#define GICC_HPPIR 0x0018
#define GICC_DIR 0x1000
#define GICC_SPAN 0x2000
#define GICC_CTLR_EOIMODE (1u << 9) /* EOImodeNS (EOImode without Security Extensions) */
#define SGIR_SELF (2u << 24)	    /* TargetListFilter: the requesting CPU */

#define PRIORITY_OURS 0x00 /* the highest */

static uint64_t aff_of(uint64_t mpidr)
{
	return ((mpidr >> 32) & 0xff) << 24 | (mpidr & 0xffffff); /* GICR_TYPER's Affinity_Value */
}

static bool sysreg(enum platform_gic_reg r, bool write, uint64_t *v)
{
	return platform->gic_sysreg && platform->gic_sysreg(r, write, v);
}

/* The CPU interface: GICv3's system registers, or GICv2's GICC window
 * (the same registers at its offsets; ICC_IGRPEN1 has no GICv2 twin the
 * monitor touches). */
static bool cpuif(struct gic *g, enum platform_gic_reg r, bool write, uint64_t *v)
{
	if (!g->v2)
		return sysreg(r, write, v);
	uint64_t off;
	switch (r) {
	case GIC_ICC_PMR:
		off = GICC_PMR;
		break;
	case GIC_ICC_IAR1:
		off = GICC_IAR;
		break;
	case GIC_ICC_HPPIR1:
		off = GICC_HPPIR;
		break;
	case GIC_ICC_EOIR1:
		off = GICC_EOIR;
		break;
	case GIC_ICC_DIR:
		off = GICC_DIR;
		break;
	case GIC_ICC_CTLR:
		off = GICC_CTLR;
		break;
	default:
		return false;
	}
	if (write)
		regwin_write32(&g->c, off, (uint32_t)*v);
	else
		*v = regwin_read32(&g->c, off);
	return true;
}

/* An INTID's frame: the redistributor's SGI frame below 32 (GICv2: the
 * distributor banks them), the distributor above. */
static struct regwin *frame(struct gic *g, uint32_t intid, uint64_t *base)
{
	bool redist = intid < 32 && !g->v2;
	*base = redist ? SGI_BASE : 0;
	return redist ? &g->r : &g->d;
}

static bool bit_of(struct gic *g, uint64_t reg, uint32_t intid)
{
	uint64_t base;
	struct regwin *w = frame(g, intid, &base);
	return (regwin_read32(w, base + reg + 4 * (intid / 32)) >> (intid % 32)) & 1;
}

static void set_bit_in(struct gic *g, uint64_t reg, uint32_t intid, bool on)
{
	uint64_t base;
	struct regwin *w = frame(g, intid, &base);
	uint64_t off = base + reg + 4 * (intid / 32);
	uint32_t v = regwin_read32(w, off), m = 1u << (intid % 32);
	regwin_write32(w, off, on ? v | m : v & ~m);
}

/* A write-1 register (ISENABLER and friends): only this INTID's bit. */
static void one_bit(struct gic *g, uint64_t reg, uint32_t intid)
{
	uint64_t base;
	struct regwin *w = frame(g, intid, &base);
	regwin_write32(w, base + reg + 4 * (intid / 32), 1u << (intid % 32));
}

/* The distributor's or redistributor's RWP, until the enable change took. */
static const char *rwp(struct gic *g, uint32_t intid)
{
	if (g->v2)
		return NULL; /* GICv2 has no RWP: an enable change takes at once */
	struct regwin *w = intid < 32 ? &g->r : &g->d;
	uint64_t off = intid < 32 ? GICR_CTLR : GICD_CTLR;
	uint32_t bit = intid < 32 ? GICR_CTLR_RWP : CTLR_RWP;
	struct deadline dl = deadline_after_us(GIC_DEADLINE_MS * 1000);
	while (regwin_read32(w, off) & bit)
		if (deadline_passed(&dl))
			return intid < 32 ? "gic: GICR_CTLR.RWP did not clear within " STRINGIFY(GIC_DEADLINE_MS) " ms"
					  : "gic: GICD_CTLR.RWP did not clear within " STRINGIFY(GIC_DEADLINE_MS) " ms";
	return NULL;
}

/* This CPU's redistributor among the ranges (or its GICC entry's). */
static bool find_redistributor(struct gic *g, const struct gic_where *m, uint64_t *at)
{
	uint64_t want = aff_of(g->mpidr);
	for (size_t i = 0; i < m->ngicr; i++) {
		uint64_t base = m->gicr[i].base, end = base + m->gicr[i].length;
		for (uint64_t f = base; f + GICR_FRAME <= end;) {
			struct regwin w;
			if (regwin_open_mmio(&w, "gicr", f, GICR_FRAME, false, "the MADT's GICR range"))
				return false;
			uint64_t typer = regwin_read64(&w, GICR_TYPER);
			if (typer == ~0ull)
				return false;
			if ((typer >> 32) == want) {
				*at = f;
				return true;
			}
			if (typer & GICR_TYPER_LAST)
				break;
			f += (typer & GICR_TYPER_VLPIS) ? 2 * GICR_FRAME : GICR_FRAME;
		}
	}
	if (m->gicc_gicr) {
		*at = m->gicc_gicr;
		return true;
	}
	return false;
}

static const char *open_v2(struct gic *g, const struct gic_where *m);

const char *gic_open(struct gic *g, const struct gic_where *m)
{
	static char why[160];
	memset(g, 0, sizeof(*g));
	if (!m->gicd)
		return "the MADT names no GIC distributor";
	if (m->version == 2)
		return open_v2(g, m);
	if (m->version == 1)
		return "the MADT names a GICv1: not driven by the monitor";
	uint64_t v;
	if (!platform->gic_sysreg || !sysreg(GIC_MPIDR, false, &g->mpidr) || !sysreg(GIC_ICC_CTLR, false, &v))
		return "no GICv3 system-register interface on this CPU (ID_AA64PFR0_EL1.GIC, ICC_SRE_EL1.SRE)";
	const char *e = regwin_open_mmio(&g->d, "gicd", m->gicd, GICD_SPAN, false, "the MADT's GICD");
	if (e)
		return e;
	uint64_t rd;
	if (!find_redistributor(g, m, &rd)) {
		snprintf(why, sizeof(why), "no redistributor in the MADT's ranges answers to MPIDR 0x%llx",
			 (unsigned long long)g->mpidr);
		return why;
	}
	if ((e = regwin_open_mmio(&g->r, "gicr", rd, GICR_FRAME, false, "the MADT's GICR")) != NULL)
		return e;
	return gic_attach(g, &g->d, &g->r, m->gicd, rd);
}

const char *gic_attach_v2(struct gic *g, const struct regwin *d, const struct regwin *c, uint64_t gicd, uint64_t gicc)
{
	static char why[160];
	uint64_t v;
	g->v2 = true;
	g->d = *d, g->c = *c;
	g->version = (regwin_read32(&g->d, GICD_V2_PIDR2) >> 4) & 0xf;
	if (g->version && g->version != 2) {
		snprintf(why, sizeof(why), "GICD_PIDR2 0x%x: architecture revision %u where the MADT says GICv2",
			 regwin_read32(&g->d, GICD_V2_PIDR2), g->version);
		return why;
	}
	g->version = 2;
	if (!(regwin_read32(&g->d, GICD_CTLR) & 1) || !(regwin_read32(&g->c, GICC_CTLR) & 1))
		return "GICv2: the firmware left the distributor or this CPU's interface disabled (GICD_CTLR, "
		       "GICC_CTLR)";
	g->nlines = 32 * ((regwin_read32(&g->d, GICD_TYPER) & 0x1f) + 1);
	/* this CPU's bit: ITARGETSR0-7 read back the reader's own (IHI 0048
	 * 4.3.12); with one CPU interface (GICD_TYPER.CPUNumber 0) every
	 * ITARGETSR is RAZ/WI and every interrupt goes to it */
	g->cpu_mask = regwin_read8(&g->d, GICD_ITARGETSR);
	if (!g->cpu_mask && ((regwin_read32(&g->d, GICD_TYPER) >> 5) & 7) == 0)
		g->cpu_mask = 1;
	if (!g->cpu_mask)
		return "GICv2: GICD_ITARGETSR0 names no CPU interface for this CPU";
	g->pri_bits = 4; /* at least 16 levels (4.8.1) */
	cpuif(g, GIC_ICC_CTLR, false, &v);
	g->eoimode = v & GICC_CTLR_EOIMODE;
	sysreg(GIC_MPIDR, false, &g->mpidr);
	snprintf(g->desc, sizeof(g->desc), "GICv2 at 0x%llx, CPU interface 0x%llx (target mask 0x%x)",
		 (unsigned long long)gicd, (unsigned long long)gicc, g->cpu_mask);
	return NULL;
}

/* GICv2: the distributor and this CPU's interface from the MADT (its GICC
 * entry's base). */
static const char *open_v2(struct gic *g, const struct gic_where *m)
{
	if (!m->gicc_base)
		return "GICv2: the MADT's GICC entry for this CPU gives no CPU interface base";
	const char *e = regwin_open_mmio(&g->d, "gicd", m->gicd, GICD_V2_SPAN, false, "the MADT's GICD");
	if (!e)
		e = regwin_open_mmio(&g->c, "gicc", m->gicc_base, GICC_SPAN, false, "the MADT's GICC");
	return e ? e : gic_attach_v2(g, &g->d, &g->c, m->gicd, m->gicc_base);
}

const char *gic_attach(struct gic *g, const struct regwin *d, const struct regwin *r, uint64_t gicd, uint64_t rd)
{
	static char why[160];
	uint64_t v;
	g->d = *d, g->r = *r;
	if (!sysreg(GIC_MPIDR, false, &g->mpidr) || !sysreg(GIC_ICC_CTLR, false, &v))
		return "no GICv3 system-register interface on this CPU (ID_AA64PFR0_EL1.GIC, ICC_SRE_EL1.SRE)";
	g->pri_bits = (unsigned)((v >> 8) & 7) + 1;
	g->eoimode = (v >> 1) & 1;
	g->version = (regwin_read32(&g->d, GICx_PIDR2) >> 4) & 0xf;
	if (g->version < 3 || g->version > 4) {
		snprintf(why, sizeof(why), "GICD_PIDR2 0x%x: architecture revision %u, not GICv3 or GICv4",
			 regwin_read32(&g->d, GICx_PIDR2), g->version);
		return why;
	}
	uint32_t ctlr = regwin_read32(&g->d, GICD_CTLR);
	g->ds = ctlr & CTLR_DS;
	if (!(ctlr & CTLR_ARE))
		return "GICD_CTLR: affinity routing is off (the GICv2 compatible mode)";
	g->nlines = 32 * ((regwin_read32(&g->d, GICD_TYPER) & 0x1f) + 1);
	if ((regwin_read64(&g->r, GICR_TYPER) >> 32) != aff_of(g->mpidr)) {
		snprintf(why, sizeof(why), "the redistributor at 0x%llx answers to affinity 0x%llx, not this CPU's",
			 (unsigned long long)rd, (unsigned long long)(regwin_read64(&g->r, GICR_TYPER) >> 32));
		return why;
	}
	uint32_t waker = regwin_read32(&g->r, GICR_WAKER);
	if (waker & WAKER_CHILDREN_ASLEEP) {
		/* 12.11.40: with ProcessorSleep set the redistributor signals
		 * nothing to the CPU interface. Where the GIC has one security
		 * state, the monitor may wake it (and puts it to sleep again at
		 * gic_release); else only the Secure side can */
		if (!g->ds)
			return "this CPU's redistributor is asleep (GICR_WAKER.ChildrenAsleep) and only the Secure "
			       "world "
			       "may wake it";
		regwin_write32(&g->r, GICR_WAKER, waker & ~WAKER_PROCESSOR_SLEEP);
		g->woke = true;
		struct deadline dl = deadline_after_us(GIC_DEADLINE_MS * 1000);
		while (regwin_read32(&g->r, GICR_WAKER) & WAKER_CHILDREN_ASLEEP)
			if (deadline_passed(&dl)) {
				regwin_write32(&g->r, GICR_WAKER, waker);
				return "this CPU's redistributor did not wake (GICR_WAKER.ChildrenAsleep stayed set "
				       "for " STRINGIFY(GIC_DEADLINE_MS) " ms)";
			}
	}
	snprintf(g->desc, sizeof(g->desc), "GICv%u at 0x%llx, redistributor 0x%llx (MPIDR 0x%llx)%s", g->version,
		 (unsigned long long)gicd, (unsigned long long)rd, (unsigned long long)g->mpidr,
		 g->woke ? ", woken" : "");
	return NULL;
}

const char *gic_claim(struct gic *g, uint32_t intid, bool edge)
{
	if (intid >= g->nlines || intid >= 1020)
		return "gic: an INTID the distributor does not have";
	if (g->nlines_claimed == GIC_MAX_LINES)
		return "gic: too many interrupts claimed";
	if (intid < 16 && !edge)
		return "gic: an SGI is edge-triggered";
	uint64_t base;
	struct regwin *w = frame(g, intid, &base);
	struct gic_line *l = &g->line[g->nlines_claimed];
	*l = (struct gic_line){
		.intid = intid,
		.group1 = !g->v2 && bit_of(g, GICx_IGROUPR, intid),
		.grpmod = !g->v2 && bit_of(g, GICx_IGRPMODR, intid),
		.enabled = bit_of(g, GICx_ISENABLER, intid),
		.pending = bit_of(g, GICx_ISPENDR, intid),
		.edge = (regwin_read32(w, base + GICx_ICFGR + 4 * (intid / 16)) >> (2 * (intid % 16) + 1)) & 1,
		.priority = regwin_read8(w, base + GICx_IPRIORITYR + intid),
		.route = intid < 32 ? 0
			 : g->v2    ? regwin_read8(&g->d, GICD_ITARGETSR + intid)
				    : regwin_read64(&g->d, GICD_IROUTER + 8 * intid)
	};
	g->nlines_claimed++;
	/* disabled while it changes (12.9.17: RWP tells when that took) */
	one_bit(g, GICx_ICENABLER, intid);
	const char *e = rwp(g, intid);
	if (e)
		return e;
	if (!g->v2) { /* GICv2: the group the firmware's interface signals, untouched */
		set_bit_in(g, GICx_IGROUPR, intid, true);
		if (!g->ds)
			set_bit_in(g, GICx_IGRPMODR, intid, false); /* Non-secure Group 1 */
	}
	regwin_write8(w, base + GICx_IPRIORITYR + intid, PRIORITY_OURS);
	if (intid >= 16) { /* SGIs are always edge */
		uint64_t off = base + GICx_ICFGR + 4 * (intid / 16);
		uint32_t cfg = regwin_read32(w, off), bit = 2u << (2 * (intid % 16));
		regwin_write32(w, off, edge ? cfg | bit : cfg & ~bit);
	}
	if (intid >= 32 && g->v2) /* to this CPU's interface */
		regwin_write8(&g->d, GICD_ITARGETSR + intid, g->cpu_mask);
	else if (intid >= 32) /* to this CPU by affinity, IRM 0 */
		regwin_write64(&g->d, GICD_IROUTER + 8 * intid, (g->mpidr & 0xff00000000ull) | (g->mpidr & 0xffffff));
	one_bit(g, GICx_ICPENDR, intid); /* nothing old counts */
	one_bit(g, GICx_ISENABLER, intid);
	return rwp(g, intid);
}

const char *gic_quiet(struct gic *g)
{
	uint64_t v;
	if (!cpuif(g, GIC_ICC_PMR, false, &g->pmr_found))
		return "gic: the CPU interface's registers cannot be read";
	g->igrpen1_found = 1; /* GICv2: the interface was found enabled (gic_attach_v2) */
	if (!g->v2 && !sysreg(GIC_ICC_IGRPEN1, false, &g->igrpen1_found))
		return "gic: ICC_IGRPEN1_EL1 cannot be read";
	/* only priorities above the next step after ours pass: with
	 * pri_bits implemented, a step is 2^(8 - pri_bits); a Non-secure
	 * write with two security states sees one bit fewer (12.1.8: its
	 * value is shifted right and the top bit set), so two steps there */
	/* GICv2: 16 levels at least, and a Non-secure view's shifted write
	 * still above ours */
	v = g->v2 ? 0x10 : (g->ds ? 1ull : 2ull) << (8 - g->pri_bits);
	g->pmr_set = cpuif(g, GIC_ICC_PMR, true, &v);
	if (!(g->igrpen1_found & 1)) {
		v = 1;
		g->igrpen1_set = sysreg(GIC_ICC_IGRPEN1, true, &v);
	}
	return g->pmr_set ? NULL : "gic: ICC_PMR_EL1 could not be written";
}

static void end(struct gic *g, uint64_t iar)
{
	cpuif(g, GIC_ICC_EOIR1, true, &iar);
	if (g->eoimode)
		cpuif(g, GIC_ICC_DIR, true, &iar);
}

/* An IAR or HPPIR value's INTID: 24 bits on GICv3, 10 on GICv2 (whose
 * bits 12:10 name an SGI's source CPU). */
static uint32_t id_of(const struct gic *g, uint64_t v)
{
	return (uint32_t)(v & (g->v2 ? 0x3ff : 0xffffff));
}

bool gic_wait(struct gic *g, uint32_t intid, uint32_t us, void (*kick)(void *ctx), void *ctx, uint64_t t[3])
{
	/* masked before the kick: else the firmware's handler takes it */
	uint64_t flags = platform->irq_save();
	bool got = false;
	t[1] = t[2] = 0;
	t[0] = rdtsc();
	if (kick)
		kick(ctx);
	struct deadline dl = deadline_after_us(us);
	for (;;) {
		uint64_t hp = GIC_SPURIOUS;
		cpuif(g, GIC_ICC_HPPIR1, false, &hp);
		if (id_of(g, hp) == intid) {
			if (!t[1])
				t[1] = rdtsc();
			uint64_t iar = GIC_SPURIOUS;
			cpuif(g, GIC_ICC_IAR1, false, &iar);
			uint32_t id = id_of(g, iar);
			if (id == intid) {
				t[2] = rdtsc();
				end(g, iar);
				got = true;
				break;
			}
			if (id < 1020) { /* another won the race: ended, and counted */
				end(g, iar);
				g->others_acked++;
			}
		}
		if (deadline_passed(&dl))
			break;
		cpu_relax();
	}
	platform->irq_restore(flags);
	return got;
}

const char *gic_sgi_self(struct gic *g, uint32_t intid)
{
	if (intid > 15)
		return "gic: not an SGI";
	if (g->v2) {
		regwin_write32(&g->d, GICD_SGIR, SGIR_SELF | intid);
		return NULL;
	}
	uint64_t m = g->mpidr, aff0 = m & 0xff;
	/* Aff3 55:48, RS 47:44 (Aff0 / 16), Aff2 39:32, INTID 27:24, Aff1 23:16, target list bit Aff0 % 16 */
	uint64_t v = ((m >> 32) & 0xff) << 48 | (aff0 >> 4) << 44 | ((m >> 16) & 0xff) << 32 | (uint64_t)intid << 24 |
		     ((m >> 8) & 0xff) << 16 | 1ull << (aff0 & 15);
	return sysreg(GIC_ICC_SGI1R, true, &v) ? NULL : "gic: ICC_SGI1R_EL1 could not be written";
}

bool gic_pending(struct gic *g, uint32_t intid)
{
	return bit_of(g, GICx_ISPENDR, intid);
}

const char *gic_release(struct gic *g)
{
	static char why[160];
	const char *err = NULL;
	while (g->nlines_claimed) {
		const struct gic_line *l = &g->line[--g->nlines_claimed];
		uint32_t id = l->intid;
		uint64_t base;
		struct regwin *w = frame(g, id, &base);
		one_bit(g, GICx_ICENABLER, id);
		const char *e = rwp(g, id);
		if (e)
			err = e;
		if (!g->v2) {
			set_bit_in(g, GICx_IGROUPR, id, l->group1);
			set_bit_in(g, GICx_IGRPMODR, id, l->grpmod);
		}
		regwin_write8(w, base + GICx_IPRIORITYR + id, l->priority);
		if (id >= 16) {
			uint64_t off = base + GICx_ICFGR + 4 * (id / 16);
			uint32_t cfg = regwin_read32(w, off), bit = 2u << (2 * (id % 16));
			regwin_write32(w, off, l->edge ? cfg | bit : cfg & ~bit);
		}
		if (id >= 32 && g->v2)
			regwin_write8(&g->d, GICD_ITARGETSR + id, (uint8_t)l->route);
		else if (id >= 32)
			regwin_write64(&g->d, GICD_IROUTER + 8 * id, l->route);
		one_bit(g, l->pending ? GICx_ISPENDR : GICx_ICPENDR, id);
		if (l->enabled)
			one_bit(g, GICx_ISENABLER, id);
		if ((e = rwp(g, id)) != NULL)
			err = e;
		uint64_t route = id < 32 ? 0
				 : g->v2 ? regwin_read8(&g->d, GICD_ITARGETSR + id)
					 : regwin_read64(&g->d, GICD_IROUTER + 8 * id);
		bool same = (g->v2 || bit_of(g, GICx_IGROUPR, id) == l->group1) &&
			    bit_of(g, GICx_ISENABLER, id) == l->enabled &&
			    regwin_read8(w, base + GICx_IPRIORITYR + id) == l->priority && route == l->route;
		if (!same && !err) {
			snprintf(why, sizeof(why), "gic: INTID %u does not read back as found", id);
			err = why;
		}
	}
	if (g->pmr_set) {
		cpuif(g, GIC_ICC_PMR, true, &g->pmr_found);
		g->pmr_set = false;
	}
	if (g->igrpen1_set) {
		sysreg(GIC_ICC_IGRPEN1, true, &g->igrpen1_found);
		g->igrpen1_set = false;
	}
	if (g->woke) { /* asleep again, as found */
		regwin_write32(&g->r, GICR_WAKER, regwin_read32(&g->r, GICR_WAKER) | WAKER_PROCESSOR_SLEEP);
		g->woke = false;
	}
	return err;
}
