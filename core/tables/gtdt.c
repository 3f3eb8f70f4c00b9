#include "gtdt.h"

#include <stdio.h>
#include <string.h>

#include "acpi.h"
#include "bytes.h"

#define GTDT_REV2_LEN 96  /* ACPI 5.1-6.2: up to the platform timer offset */
#define GTDT_REV3_LEN 104 /* ACPI 6.3+: the virtual EL2 timer */
#define GT_BLOCK_LEN 20
#define GT_FRAME_LEN 40
#define WATCHDOG_LEN 28

static const char *const timer_names[] = { "secure EL1", "non-secure EL1", "virtual EL1", "non-secure EL2",
					   "virtual EL2" };

const char *gtdt_timer_name(enum gtdt_timer_index i)
{
	return i <= GTDT_VIRTUAL_EL2 ? timer_names[i] : "?";
}

/* The per-processor timers are PPIs: INTID 16-31, or the GICv3.1
 * extended PPI range 1056-1119. 0 means not provided (the secure timer
 * and, before ACPI 6.3, the EL2 ones may be absent). */
static bool is_ppi(uint32_t gsiv)
{
	return (gsiv >= 16 && gsiv <= 31) || (gsiv >= 1056 && gsiv <= 1119);
}

static void read_block(struct gtdt *g, const uint8_t *p, struct gtdt_platform *pt)
{
	pt->base = get64(p + 4);
	uint32_t count = get32(p + 12), at = get32(p + 16);
	pt->frames_at = at;
	if (pt->base == 0)
		diag_add(&g->diag, DIAG_ERROR, "GTDT: GT block at 0x%x: CntCtlBase 0", pt->offset);
	if (count > GTDT_MAX_FRAMES || (count && at < GT_BLOCK_LEN) ||
	    (uint64_t)at + (uint64_t)count * GT_FRAME_LEN > pt->length) {
		diag_add(&g->diag, DIAG_ERROR, "GTDT: GT block at 0x%x: %u frames at +0x%x in %u bytes", pt->offset,
			 count, at, pt->length);
		return;
	}
	unsigned seen = 0;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *f = p + at + i * GT_FRAME_LEN;
		struct gtdt_frame fr = { .number = f[0],
					 .cntbase = get64(f + 4),
					 .cntel0base = get64(f + 12),
					 .physical = { get32(f + 20), get32(f + 24) },
					 .virtual = { get32(f + 28), get32(f + 32) },
					 .common_flags = get32(f + 36) };
		if (fr.number >= GTDT_MAX_FRAMES || (seen >> fr.number) & 1)
			diag_add(&g->diag, DIAG_ERROR, "GTDT: GT block at 0x%x: frame number %u twice or above 7",
				 pt->offset, fr.number);
		else
			seen |= 1u << fr.number;
		if (fr.cntbase == 0)
			diag_add(&g->diag, DIAG_ERROR, "GTDT: GT block at 0x%x: frame %u has CntBase 0", pt->offset,
				 fr.number);
		pt->frame[pt->nframes++] = fr;
	}
}

static void read_platform(struct gtdt *g, const uint8_t *buf, uint32_t tlen)
{
	uint32_t off = g->platform_offset;
	/* in a revision 3 table the virtual EL2 timer takes 0x60-0x67 */
	uint32_t fixed = g->have_virtual_el2 ? GTDT_REV3_LEN : GTDT_REV2_LEN;
	if (g->platform_count && (off < fixed || off > tlen)) {
		diag_add(&g->diag, DIAG_ERROR,
			 "GTDT: %u platform timers at 0x%x: over the fixed part (0x%x) or past the end",
			 g->platform_count, off, fixed);
		return;
	}
	for (uint32_t i = 0; i < g->platform_count; i++) {
		if (tlen - off < 3) {
			diag_add(&g->diag, DIAG_ERROR, "GTDT: platform timer %u of %u at 0x%x: past the table", i,
				 g->platform_count, off);
			return;
		}
		const uint8_t *p = buf + off;
		struct gtdt_platform pt = { .offset = off, .type = p[0], .length = get16(p + 1) };
		uint16_t need = pt.type == 0 ? GT_BLOCK_LEN : WATCHDOG_LEN;
		if (pt.length < 3 || pt.length > tlen - off || (pt.type <= 1 && pt.length < need)) {
			diag_add(&g->diag, DIAG_ERROR,
				 "GTDT: platform timer at 0x%x (type %u) is %u bytes, room for %u", off, pt.type,
				 pt.length, tlen - off);
			return;
		}
		off += pt.length;
		if (pt.type > 1) {
			diag_add(&g->diag, DIAG_WARNING, "GTDT: platform timer type %u at 0x%x unknown: skipped",
				 pt.type, pt.offset);
			continue;
		}
		if (g->nplatform == GTDT_MAX_PLATFORM) {
			diag_add(&g->diag, DIAG_ERROR, "GTDT: more than %d platform timers", GTDT_MAX_PLATFORM);
			return;
		}
		if (pt.type == 0) {
			read_block(g, p, &pt);
		} else {
			pt.base = get64(p + 4), pt.control = get64(p + 12);
			pt.irq = (struct gtdt_irq){ get32(p + 20), get32(p + 24) };
			if (pt.base == 0 || pt.control == 0)
				diag_add(&g->diag, DIAG_ERROR, "GTDT: watchdog at 0x%x: refresh 0x%llx control 0x%llx",
					 pt.offset, (unsigned long long)pt.base, (unsigned long long)pt.control);
		}
		g->platform[g->nplatform++] = pt;
	}
}

int gtdt_parse(const uint8_t *buf, size_t len, struct gtdt *g)
{
	memset(g, 0, sizeof(*g));
	uint32_t tlen = acpi_table_header(buf, len, "GTDT", GTDT_REV2_LEN, NULL, &g->diag);
	if (!tlen)
		return -1;
	g->revision = buf[8];
	if (g->revision < 2 || g->revision > 3)
		diag_add(&g->diag, DIAG_WARNING, "GTDT: revision %u (ACPI 5.1+ has 2, 6.3+ has 3)", g->revision);
	g->cnt_control_base = get64(buf + 36);
	for (unsigned i = 0; i < 4; i++)
		g->timer[i] = (struct gtdt_irq){ get32(buf + 48 + 8 * i), get32(buf + 52 + 8 * i) };
	g->cnt_read_base = get64(buf + 80);
	g->platform_count = get32(buf + 88);
	g->platform_offset = get32(buf + 92);
	if (g->revision >= 3 && tlen >= GTDT_REV3_LEN) {
		g->timer[GTDT_VIRTUAL_EL2] = (struct gtdt_irq){ get32(buf + 96), get32(buf + 100) };
		g->have_virtual_el2 = true;
	} else if (g->revision >= 3) {
		diag_add(&g->diag, DIAG_ERROR, "GTDT: revision 3 in %u bytes (needs %d)", tlen, GTDT_REV3_LEN);
	}
	/* the non-secure EL1 and virtual timers are what an OS uses: required */
	for (unsigned i = 0; i <= GTDT_VIRTUAL_EL2; i++) {
		uint32_t v = g->timer[i].gsiv;
		bool required = i == GTDT_NONSECURE_EL1 || i == GTDT_VIRTUAL_EL1;
		if ((v || required) && !is_ppi(v))
			diag_add(&g->diag, required ? DIAG_ERROR : DIAG_WARNING, "GTDT: %s timer GSIV %u is not a PPI",
				 gtdt_timer_name(i), v);
		if (g->timer[i].flags & ~7u)
			diag_add(&g->diag, DIAG_WARNING, "GTDT: %s timer flags 0x%x set reserved bits",
				 gtdt_timer_name(i), g->timer[i].flags);
	}
	read_platform(g, buf, tlen);
	return 0;
}

static void print_irq(const char *what, struct gtdt_irq q)
{
	printf("    %-15s GSIV %4u %s, active %s%s\n", what, q.gsiv, q.flags & GTDT_IRQ_EDGE ? "edge" : "level",
	       q.flags & GTDT_IRQ_ACTIVE_LOW ? "low" : "high", q.flags & GTDT_ALWAYS_ON ? ", always-on" : "");
}

static void print_address(const char *what, uint64_t a)
{
	if (a == GTDT_NO_ADDRESS)
		printf("    %s: not provided\n", what);
	else
		printf("    %s 0x%llx\n", what, (unsigned long long)a);
}

void gtdt_print(const struct gtdt *g)
{
	printf("  GTDT: revision %u\n", g->revision);
	print_address("CntControlBase", g->cnt_control_base);
	print_address("CntReadBase", g->cnt_read_base);
	for (unsigned i = 0; i <= GTDT_VIRTUAL_EL2; i++)
		if (i < GTDT_VIRTUAL_EL2 || g->have_virtual_el2)
			print_irq(gtdt_timer_name(i), g->timer[i]);
	for (size_t i = 0; i < g->nplatform; i++) {
		const struct gtdt_platform *p = &g->platform[i];
		if (p->type == 1) {
			printf("    watchdog at 0x%03x: refresh 0x%llx control 0x%llx GSIV %u%s\n", p->offset,
			       (unsigned long long)p->base, (unsigned long long)p->control, p->irq.gsiv,
			       p->irq.flags & GTDT_WATCHDOG_SECURE ? " secure" : "");
			continue;
		}
		printf("    GT block at 0x%03x: CntCtlBase 0x%llx, %zu frames\n", p->offset,
		       (unsigned long long)p->base, p->nframes);
		for (size_t k = 0; k < p->nframes; k++)
			printf("      frame %u CntBase 0x%llx CntEL0Base 0x%llx physical GSIV %u virtual GSIV %u%s\n",
			       p->frame[k].number, (unsigned long long)p->frame[k].cntbase,
			       (unsigned long long)p->frame[k].cntel0base, p->frame[k].physical.gsiv,
			       p->frame[k].virtual.gsiv, p->frame[k].common_flags & GTDT_FRAME_SECURE ? " secure" : "");
	}
	for (size_t i = 0; i < g->diag.n; i++)
		printf("    %s: %s\n", g->diag.msg[i].level == DIAG_ERROR ? "error" : "warning", g->diag.msg[i].text);
}
