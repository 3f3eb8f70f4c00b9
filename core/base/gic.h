/* The Arm GICv3/v4 (IHI 0069), as much as the monitor drives to take an
 * interrupt of its own without the firmware's handlers: the distributor
 * (an SPI's group, priority, trigger, route and enable), this CPU's
 * redistributor (an SGI's or PPI's), and the CPU interface's system
 * registers (platform->gic_sysreg) polled with the CPU's interrupts
 * masked, so that no exception is taken and the firmware's vectors stay
 * its own. An interrupt is seen pending at the CPU interface (ICC_HPPIR1),
 * then acknowledged (ICC_IAR1) and ended (ICC_EOIR1, ICC_DIR under
 * EOImode); while the monitor waits, ICC_PMR admits only its own priority,
 * so the firmware's interrupts (its timer) stay pending for it. Every
 * register the monitor changes is recorded first and put back as found
 * (gic_release).
 *
 * A GICv2 (IHI 0048) is driven too: its distributor routes by ITARGETSR,
 * sends SGIs by GICD_SGIR, banks INTIDs below 32 itself, and its CPU
 * interface (GICC) is memory-mapped; the interrupt's group is left as the
 * firmware set it. A GICv3 without affinity routing or with its
 * system-register interface off is refused by name. The ITS is not driven
 * (no MSI is taken). */
#ifndef IOMMON_GIC_H
#define IOMMON_GIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/regwin.h"

#define GIC_DEADLINE_MS 10 /* any RWP wait */
#define GIC_MAX_LINES 4	   /* interrupts claimed at once */
#define GIC_SPURIOUS 1023
#define GIC_MAX_RANGES 16

/* Where the firmware says the GIC is (the MADT's GICD, GICR and this
 * CPU's GICC entries; the caller reads them). */
struct gic_where {
	uint64_t gicd;
	unsigned version; /* the MADT's: 0 "ask the hardware" */
	struct {
		uint64_t base, length;
	} gicr[GIC_MAX_RANGES];
	size_t ngicr;
	uint64_t gicc_gicr; /* this CPU's GICC entry's GICR base, or 0 */
	uint64_t gicc_base; /* and its GICv2 CPU interface base, or 0 */
};

/* An interrupt as the monitor found it, to put back. */
struct gic_line {
	uint32_t intid;
	bool group1, grpmod, enabled, pending, edge;
	uint8_t priority;
	uint64_t route;
};

struct gic {
	bool v2;	   /* a GICv2: no redistributor, a memory-mapped CPU interface */
	struct regwin d;   /* the distributor, 64 KiB (GICv2: 4 KiB) */
	struct regwin r;   /* this CPU's redistributor: RD_base and SGI_base, 128 KiB */
	struct regwin c;   /* GICv2: this CPU's interface (GICC), 8 KiB */
	uint8_t cpu_mask;  /* GICv2: this CPU's bit in ITARGETSR */
	unsigned version;  /* 2, 3 or 4 (GICD_PIDR2.ArchRev) */
	bool ds;	   /* GICD_CTLR.DS: one security state */
	uint64_t mpidr;	   /* this CPU's */
	uint32_t nlines;   /* INTIDs below this exist (GICD_TYPER.ITLinesNumber) */
	unsigned pri_bits; /* ICC_CTLR_EL1.PRIbits + 1 */
	bool eoimode;	   /* ICC_CTLR_EL1.EOImode: ICC_DIR deactivates */
	uint64_t pmr_found, igrpen1_found;
	bool pmr_set, igrpen1_set;
	bool woke; /* the redistributor was asleep (GICR_WAKER) and the monitor woke it */
	struct gic_line line[GIC_MAX_LINES];
	size_t nlines_claimed;
	unsigned others_acked; /* another interrupt acknowledged while waiting (ended, lost to its owner) */
	char desc[112];	       /* "GICv3 at 0x8000000, redistributor 0x80a0000 (MPIDR 0x80000000)" */
};

/* The GIC at `at`, for this CPU: NULL, or why it cannot be driven (no
 * GICD, GICv2, no system-register interface, affinity routing off, no
 * redistributor for this MPIDR, a redistributor asleep that only the
 * Secure side may wake). Nothing is written but the wake of a sleeping
 * redistributor where the GIC has one security state (undone by
 * gic_release). */
const char *gic_open(struct gic *g, const struct gic_where *at);
/* GICv2's: the distributor `d` at `gicd` and this CPU's interface `c` at
 * `gicc`, the firmware having enabled both. */
const char *gic_attach_v2(struct gic *g, const struct regwin *d, const struct regwin *c, uint64_t gicd, uint64_t gicc);
/* The rest of gic_open, on windows already open (a model's, in tests):
 * the distributor `d` at `gicd`, this CPU's redistributor `r` at `rd`.
 * `g` zeroed before. */
const char *gic_attach(struct gic *g, const struct regwin *d, const struct regwin *r, uint64_t gicd, uint64_t rd);
/* INTID `intid` (an SGI, PPI or SPI) made the monitor's: Group 1, the
 * highest priority, edge- or level-triggered, routed to this CPU, enabled;
 * what it was recorded. NULL or why not (an INTID the GIC lacks, too many
 * claimed, RWP never clearing). */
const char *gic_claim(struct gic *g, uint32_t intid, bool edge);
/* ICC_PMR lowered so that only the monitor's priority is signalled, and
 * Group 1 enabled if it was not: gic_release puts both back. */
const char *gic_quiet(struct gic *g);
/* With the CPU's interrupts masked, kick(ctx) (what raises the
 * interrupt: an SGI, a DMA that faults; NULL: nothing), then up to `us`
 * for `intid` pending at the CPU interface, acknowledged and ended. True
 * when it came. t[0]: the counter before the kick, t[1] when ICC_HPPIR1
 * first showed it, t[2] when ICC_IAR1 returned it (0: never). */
bool gic_wait(struct gic *g, uint32_t intid, uint32_t us, void (*kick)(void *ctx), void *ctx, uint64_t t[3]);
/* SGI `intid` (0-15) sent to this CPU (ICC_SGI1R, its affinity). */
const char *gic_sgi_self(struct gic *g, uint32_t intid);
/* Whether `intid` is pending at the distributor or redistributor. */
bool gic_pending(struct gic *g, uint32_t intid);
/* Every claimed interrupt, ICC_PMR, ICC_IGRPEN1 and GICR_WAKER as found:
 * NULL, or what did not read back. Call it after every gic_open. */
const char *gic_release(struct gic *g);

#endif
