/* The GICv3 driver (core/base/gic.c) on a small model: a distributor and
 * one redistributor behind register windows (set/clear-enable and -pending
 * registers as the architecture has them, priorities, groups, trigger,
 * routes, RWP, WAKER), and a CPU interface behind platform->gic_sysreg
 * (PMR, IGRPEN1, HPPIR1 and IAR1 choosing the highest-priority pending
 * enabled Group 1 interrupt, EOIR1, SGI1R). The MADT's GIC structures are
 * tested here too. */
#include "core/base/gic.h"
#include "core/base/platform.h"
#include "core/tables/madt.h"
#include "table_bytes.h"
#include "tests/host/platform_host.h"
#include "unit.h"

#define NINTID 96
#define MPIDR 0x80000100ull /* Aff1 1 */

static struct {
	/* per INTID (0-31 in the redistributor's SGI frame, the rest in the distributor) */
	bool group[NINTID], grpmod[NINTID], enabled[NINTID], pending[NINTID], active[NINTID], edge[NINTID];
	uint8_t prio[NINTID];
	uint64_t route[NINTID];
	uint32_t gicd_ctlr, waker, pidr2;
	unsigned rwp_reads; /* RWP reads set after an enable change */
	bool rwp_stuck;
	/* the CPU interface */
	uint64_t pmr, igrpen1, ctlr;
	bool interface;
	unsigned sgis, eois;
} g_m;

static uint32_t bits_of(const bool *a, unsigned word)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < 32 && word * 32 + i < NINTID; i++)
		v |= (uint32_t)a[word * 32 + i] << i;
	return v;
}

static void set_bits(bool *a, unsigned word, uint32_t v, bool to)
{
	for (unsigned i = 0; i < 32 && word * 32 + i < NINTID; i++)
		if (v >> i & 1)
			a[word * 32 + i] = to;
}

/* The registers both frames share (offsets within the frame: the SGI
 * frame's hold INTIDs 0-31, the distributor's the rest). */
static uint64_t shared_read(uint64_t off, unsigned width)
{
	unsigned w = (unsigned)((off & 0x7f) / 4);
	if (off >= 0x400 && off < 0x400 + NINTID) {
		if (width == 1)
			return g_m.prio[off - 0x400];
		uint32_t v = 0;
		for (unsigned i = 0; i < 4; i++)
			v |= (uint32_t)g_m.prio[off - 0x400 + i] << 8 * i;
		return v;
	}
	if (off >= 0xc00 && off < 0xc00 + NINTID / 4) {
		uint32_t v = 0, base = (uint32_t)(off - 0xc00) * 4;
		for (unsigned i = 0; i < 16; i++)
			v |= (uint32_t)g_m.edge[base + i] << (2 * i + 1);
		return v;
	}
	switch (off & ~0x7full) {
	case 0x080:
		return bits_of(g_m.group, w);
	case 0x100:
	case 0x180:
		return bits_of(g_m.enabled, w);
	case 0x200:
	case 0x280:
		return bits_of(g_m.pending, w);
	case 0xd00:
		return bits_of(g_m.grpmod, w);
	}
	return 0;
}

static void shared_write(uint64_t off, unsigned width, uint64_t v)
{
	unsigned w = (unsigned)((off & 0x7f) / 4);
	if (off >= 0x400 && off < 0x400 + NINTID) {
		for (unsigned i = 0; i < width; i++)
			g_m.prio[off - 0x400 + i] = (uint8_t)(v >> 8 * i);
		return;
	}
	if (off >= 0xc00 && off < 0xc00 + NINTID / 4) {
		uint32_t base = (uint32_t)(off - 0xc00) * 4;
		for (unsigned i = 0; i < 16; i++)
			g_m.edge[base + i] = (v >> (2 * i + 1)) & 1;
		return;
	}
	switch (off & ~0x7full) {
	case 0x080:
		set_bits(g_m.group, w, ~0u, false), set_bits(g_m.group, w, (uint32_t)v, true);
		break;
	case 0x100:
		set_bits(g_m.enabled, w, (uint32_t)v, true);
		break;
	case 0x180:
		set_bits(g_m.enabled, w, (uint32_t)v, false);
		g_m.rwp_reads = 2;
		break;
	case 0x200:
		set_bits(g_m.pending, w, (uint32_t)v, true);
		break;
	case 0x280:
		set_bits(g_m.pending, w, (uint32_t)v, false);
		break;
	case 0xd00:
		set_bits(g_m.grpmod, w, ~0u, false), set_bits(g_m.grpmod, w, (uint32_t)v, true);
		break;
	}
}

static bool rwp(void)
{
	if (g_m.rwp_stuck)
		return true;
	return g_m.rwp_reads && g_m.rwp_reads--;
}

static uint64_t d_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx;
	if (off == 0x0000)
		return g_m.gicd_ctlr | (rwp() ? 1u << 31 : 0);
	if (off == 0x0004)
		return NINTID / 32 - 1; /* ITLinesNumber */
	if (off == 0xffe8)
		return g_m.pidr2;
	if (off >= 0x6000 && off < 0x6000 + 8 * NINTID)
		return g_m.route[(off - 0x6000) / 8];
	return shared_read(off, width);
}

static void d_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx;
	if (off >= 0x6000 && off < 0x6000 + 8 * NINTID) {
		g_m.route[(off - 0x6000) / 8] = v;
		return;
	}
	if (off >= 0x400 || (off >= 0x80 && (off & 0x7f) >= 4)) /* INTIDs 32 and up */
		shared_write(off, width, v);
}

static uint64_t r_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx;
	if (off == 0x0000)
		return rwp() ? 1u << 3 : 0;
	if (off == 0x0008)
		return (((MPIDR >> 32) & 0xff) << 24 | (MPIDR & 0xffffff)) << 32 | 1u << 4; /* Affinity, Last */
	if (off == 0x0014)
		return g_m.waker | ((g_m.waker & 2) ? 4 : 0); /* ChildrenAsleep follows ProcessorSleep */
	if (off >= 0x10000)
		return shared_read(off - 0x10000, width);
	return 0;
}

static void r_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx;
	if (off == 0x0014)
		g_m.waker = (uint32_t)v & 2;
	else if (off >= 0x10000 && (off - 0x10000 < 0x400 ? ((off - 0x10000) & 0x7f) < 4 : off - 0x10400 < 32))
		shared_write(off - 0x10000, width, v);
	else if (off >= 0x10c00 && off < 0x10c08)
		shared_write(off - 0x10000, width, v);
}

static const struct regwin_model_ops d_ops = { d_read, d_write }, r_ops = { r_read, r_write };

/* The highest-priority pending, enabled Group 1 interrupt that is not
 * active, or 1023. */
static uint32_t highest(bool by_pmr)
{
	uint32_t best = 1023;
	for (uint32_t i = 0; i < NINTID; i++)
		if (g_m.pending[i] && g_m.enabled[i] && g_m.group[i] && !g_m.active[i] &&
		    (best == 1023 || g_m.prio[i] < g_m.prio[best]))
			best = i;
	if (best != 1023 && by_pmr && (g_m.prio[best] >= g_m.pmr || !(g_m.igrpen1 & 1)))
		return 1023;
	return best;
}

static bool sysreg(enum platform_gic_reg r, bool write, uint64_t *v)
{
	if (r == GIC_MPIDR) {
		*v = MPIDR;
		return !write;
	}
	if (!g_m.interface)
		return false;
	switch (r) {
	case GIC_ICC_PMR:
		if (write)
			g_m.pmr = *v & 0xf8;
		else
			*v = g_m.pmr;
		return true;
	case GIC_ICC_IGRPEN1:
		if (write)
			g_m.igrpen1 = *v & 1;
		else
			*v = g_m.igrpen1;
		return true;
	case GIC_ICC_CTLR:
		if (!write)
			*v = g_m.ctlr;
		return !write;
	case GIC_ICC_HPPIR1:
		*v = highest(false);
		return !write;
	case GIC_ICC_IAR1: {
		uint32_t id = highest(true);
		if (id != 1023) {
			g_m.active[id] = true;
			if (g_m.edge[id] || id < 16)
				g_m.pending[id] = false;
		}
		*v = id;
		return !write;
	}
	case GIC_ICC_EOIR1:
		if (*v < NINTID)
			g_m.active[*v] = false, g_m.eois++;
		return write;
	case GIC_ICC_SGI1R: {
		uint64_t aff1 = (*v >> 16) & 0xff, list = *v & 0xffff, id = (*v >> 24) & 0xf;
		if (aff1 == ((MPIDR >> 8) & 0xff) && (list & 1))
			g_m.pending[id] = true, g_m.sgis++;
		return write;
	}
	default:
		return false;
	}
}

/* GICv2: one 4 KiB distributor banking INTIDs 0-31 itself, ITARGETSR
 * (bytes; 0-31 read back this CPU's bit), GICD_SGIR; the GICC window. */
static uint8_t targets[NINTID];
static uint64_t d2_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx;
	if (off == 0x0000)
		return 1; /* enabled */
	if (off == 0x0004)
		return NINTID / 32 - 1;
	if (off == 0x0fe8)
		return 0x2b;
	if (off >= 0x800 && off < 0x800 + NINTID)
		return off < 0x820 ? 0x01 : targets[off - 0x800];
	return shared_read(off, width);
}

static void d2_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx;
	if (off == 0x0f00 && ((v >> 24) & 3) == 2)
		g_m.pending[v & 0xf] = true, g_m.sgis++;
	else if (off >= 0x820 && off < 0x800 + NINTID)
		targets[off - 0x800] = (uint8_t)v;
	else if (off >= 0x80 && off < 0x800)
		shared_write(off, width, v);
	else if (off >= 0xc00 && off < 0xd00)
		shared_write(off, width, v);
}

static uint64_t c_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx, (void)width;
	uint64_t v = 0;
	switch (off) {
	case 0x00:
		return 1;
	case 0x04:
		return g_m.pmr;
	case 0x0c:
		sysreg(GIC_ICC_IAR1, false, &v);
		return v;
	case 0x18:
		sysreg(GIC_ICC_HPPIR1, false, &v);
		return v;
	}
	return 0;
}

static void c_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx, (void)width;
	if (off == 0x04)
		g_m.pmr = v & 0xf0;
	else if (off == 0x10)
		sysreg(GIC_ICC_EOIR1, true, &v);
}

static const struct regwin_model_ops d2_ops = { d2_read, d2_write }, c_ops = { c_read, c_write };

static struct platform fake;
static struct regwin dw, rw;

static void model(void)
{
	memset(&g_m, 0, sizeof(g_m));
	g_m.gicd_ctlr = 1u << 4 | 1u << 6 | 2; /* ARE, DS, EnableGrp1 */
	g_m.pidr2 = 0x3b;
	g_m.pmr = 0xf0, g_m.igrpen1 = 1, g_m.ctlr = 4u << 8; /* 5 priority bits */
	g_m.interface = true;
	for (unsigned i = 0; i < NINTID; i++)
		g_m.prio[i] = 0xa0;
	g_m.enabled[30] = g_m.group[30] = true; /* the firmware's timer */
	fake = host_platform;
	fake.gic_sysreg = sysreg;
	platform = &fake;
	regwin_init_model(&dw, "gicd", 0x10000, false, &d_ops, NULL);
	regwin_init_model(&rw, "gicr", 0x20000, false, &r_ops, NULL);
}

static void open_model(struct gic *g)
{
	memset(g, 0, sizeof(*g));
	assert_null(gic_attach(g, &dw, &rw, 0x8000000, 0x80a0000));
}

/* An SPI claimed is the monitor's (Group 1, priority 0, edge, routed
 * here, enabled); released, it is as found, and so are PMR and IGRPEN1. */
static void claim_and_release_as_found(void **state)
{
	(void)state;
	model();
	g_m.waker = 2; /* asleep: woken, and asleep again after */
	g_m.route[40] = 0x1234, g_m.enabled[40] = true, g_m.pending[41] = true;
	typeof(g_m) before = g_m;
	struct gic g;
	open_model(&g);
	assert_true(g.woke);
	assert_int_equal(g_m.waker, 0);
	assert_int_equal(g.pri_bits, 5);
	assert_null(gic_claim(&g, 40, true));
	assert_null(gic_claim(&g, 41, false));
	assert_true(g_m.group[40] && g_m.enabled[40] && g_m.edge[40] && !g_m.pending[41]);
	assert_int_equal(g_m.prio[40], 0);
	assert_int_equal(g_m.route[40], MPIDR & 0xffffff);
	assert_null(gic_quiet(&g));
	assert_int_equal(g_m.pmr, 0x08);
	assert_null(gic_release(&g));
	g_m.rwp_reads = before.rwp_reads;
	assert_memory_equal(&g_m, &before, sizeof(g_m));
	assert_non_null(gic_claim(&g, 200, true)); /* past the distributor's lines: refused */
	/* two security states: a Non-secure ICC_PMR write has one bit fewer,
	 * so the monitor's threshold is two steps */
	model();
	g_m.gicd_ctlr &= ~(1u << 6);
	open_model(&g);
	assert_null(gic_quiet(&g));
	assert_int_equal(g_m.pmr, 0x10);
	assert_null(gic_release(&g));
}

/* The SGI round trip: sent inside the masked region, seen pending,
 * acknowledged and ended; the firmware's pending timer (lower priority,
 * kept out by PMR) is never acknowledged. */
static void kick_sgi(void *ctx)
{
	gic_sgi_self(ctx, 8);
}

static void sgi_round_trip(void **state)
{
	(void)state;
	model();
	struct gic g;
	open_model(&g);
	assert_null(gic_claim(&g, 8, true));
	assert_null(gic_quiet(&g));
	g_m.pending[30] = true;
	uint64_t t[3];
	assert_true(gic_wait(&g, 8, 1000, kick_sgi, &g, t));
	assert_true(t[0] <= t[1] && t[1] <= t[2]);
	assert_int_equal(g_m.sgis, 1);
	assert_int_equal(g_m.eois, 1);
	assert_true(g_m.pending[30]); /* the firmware's, still pending for it */
	assert_int_equal(g.others_acked, 0);
	assert_false(gic_wait(&g, 8, 1000, NULL, NULL, t)); /* nothing sent: nothing comes */
	assert_null(gic_release(&g));
	assert_int_equal(g_m.pmr, 0xf0);
}

/* What cannot be driven is refused by name; an RWP that never clears is a
 * named timeout. */
static void refusals_and_timeouts(void **state)
{
	(void)state;
	struct gic g;
	model();
	g_m.pidr2 = 0x2b;
	memset(&g, 0, sizeof(g));
	assert_non_null(strstr(gic_attach(&g, &dw, &rw, 0, 0), "not GICv3"));
	model();
	g_m.gicd_ctlr &= ~(1u << 4);
	memset(&g, 0, sizeof(g));
	assert_non_null(strstr(gic_attach(&g, &dw, &rw, 0, 0), "affinity routing"));
	model();
	g_m.gicd_ctlr &= ~(1u << 6), g_m.waker = 2; /* two security states: only Secure may wake */
	memset(&g, 0, sizeof(g));
	assert_non_null(strstr(gic_attach(&g, &dw, &rw, 0, 0), "Secure"));
	model();
	g_m.interface = false;
	memset(&g, 0, sizeof(g));
	assert_non_null(strstr(gic_attach(&g, &dw, &rw, 0, 0), "system-register"));
	model();
	open_model(&g);
	g_m.rwp_stuck = true;
	assert_non_null(strstr(gic_claim(&g, 40, true), "RWP did not clear"));
	g_m.rwp_stuck = false;
	assert_null(gic_release(&g));
	const struct gic_where v2 = { .gicd = 0x8000000, .version = 2 };
	assert_non_null(strstr(gic_open(&g, &v2), "GICv2"));
}

/* The MADT's GIC structures: GICC (its MPIDR, GICR base), GICD (base,
 * version), GICR ranges, ITS; bad lengths and a second GICD named. */
static void madt_gic_structures(void **state)
{
	(void)state;
	tl = 0;
	put("APIC", 4), put32(0), put8(5), put8(0), put("OEMID ", 6), put("TABLEID ", 8);
	put32(1), put("TEST", 4), put32(1), put32(0), put32(0);
	size_t at = tl; /* GICC, 80 bytes (ACPI 6.0) */
	put8(MADT_GICC), put8(80);
	for (unsigned i = 2; i < 80; i++)
		put8(0);
	set32(at + 12, 1), set64(at + 60, 0x80a0000), set64(at + 68, 0x80000100ull | 1ull << 32);
	put8(MADT_GICD), put8(24), put16(0), put32(0), put64(0x8000000), put32(0), put8(3), put8(0), put16(0);
	put8(MADT_GICR), put8(16), put16(0), put64(0x80a0000), put32(0xf60000);
	put8(MADT_ITS), put8(20), put16(0), put32(7), put64(0x8080000), put32(0);
	/* a second GICD, and a GICR of the wrong length */
	put8(MADT_GICD), put8(24), put16(0), put32(0), put64(0x9000000), put32(0), put8(3), put8(0), put16(0);
	put8(MADT_GICR), put8(12), put16(0), put64(0);
	seal();
	struct madt m;
	assert_int_equal(madt_parse(t, tl, &m), 0);
	assert_true(m.gic.has_gicd);
	assert_int_equal(m.gic.gicd_base, 0x8000000);
	assert_int_equal(m.gic.version, 3);
	assert_int_equal(m.gic.ngicr, 1);
	assert_int_equal(m.gic.gicr[0].length, 0xf60000);
	assert_int_equal(m.gic.ngicc, 1);
	assert_int_equal(m.gic.nits, 1);
	assert_int_equal(m.gic.its[0].id, 7);
	const struct madt_gicc *c = madt_gicc_of(&m, 0x180000100ull);
	assert_non_null(c);
	assert_int_equal(c->gicr_base, 0x80a0000);
	assert_null(madt_gicc_of(&m, 0x80000000ull));
	assert_int_equal(m.diag.errors, 2); /* the second GICD, the short GICR */
	madt_free(&m);
}

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	return 0;
}

/* GICv2: an SPI routed by ITARGETSR, an SGI sent by GICD_SGIR and taken
 * through the memory-mapped interface, all as found after. */
static void gicv2_round_trip(void **state)
{
	(void)state;
	model();
	g_m.interface = true; /* the sysreg model stands behind the GICC window here */
	memset(targets, 0, sizeof(targets));
	targets[40] = 0x4;
	g_m.group[8] = true; /* in the group the interface signals: left as found */
	struct regwin d2, c;
	regwin_init_model(&d2, "gicd", 0x1000, false, &d2_ops, NULL);
	regwin_init_model(&c, "gicc", 0x2000, false, &c_ops, NULL);
	typeof(g_m) before = g_m;
	struct gic g;
	memset(&g, 0, sizeof(g));
	assert_null(gic_attach_v2(&g, &d2, &c, 0x8000000, 0x8010000));
	assert_true(g.v2);
	assert_int_equal(g.cpu_mask, 1);
	assert_null(gic_claim(&g, 40, true));
	assert_int_equal(targets[40], 1);
	assert_null(gic_claim(&g, 8, true));
	assert_null(gic_quiet(&g));
	assert_int_equal(g_m.pmr, 0x10);
	uint64_t t[3];
	assert_true(gic_wait(&g, 8, 1000, kick_sgi, &g, t));
	assert_int_equal(g_m.sgis, 1);
	assert_null(gic_release(&g));
	assert_int_equal(targets[40], 0x4);
	g_m.rwp_reads = before.rwp_reads;
	g_m.sgis = before.sgis, g_m.eois = before.eois;
	assert_memory_equal(&g_m, &before, sizeof(g_m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(claim_and_release_as_found), cmocka_unit_test(sgi_round_trip),
		cmocka_unit_test(refusals_and_timeouts),      cmocka_unit_test(madt_gic_structures),
		cmocka_unit_test(gicv2_round_trip),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
