/* The device directory (spec 2.1): one to three levels of 4 KiB pages from
 * ddtp down to the device context, indexed by slices of the device id
 * whose widths depend on the context's size; and the checks a unit makes
 * of a context before it uses one (spec 2.1.4, 2.3.1). */
#include <stdlib.h>
#include <string.h>

#include "core/base/platform.h"
#include "riscv.h"

/* DDI[0], the leaf slice, is 7 bits wide with 32-byte contexts and 6 with
 * 64-byte ones (a page holds 128 or 64); DDI[1] is 9 bits; DDI[2] the rest
 * of 24 (8 or 9). */
static unsigned leaf_bits(bool extended)
{
	return extended ? 6 : 7;
}

static unsigned levels(unsigned mode)
{
	return mode >= RVI_DDT_1LVL && mode <= RVI_DDT_3LVL ? mode - RVI_DDT_1LVL + 1 : 0;
}

static unsigned ddi(uint32_t id, unsigned i, bool extended)
{
	if (i == 0)
		return id & ((1u << leaf_bits(extended)) - 1);
	unsigned lo = leaf_bits(extended) + 9 * (i - 1);
	unsigned width = i == 1 ? 9 : 24 - lo;
	return (id >> lo) & ((1u << width) - 1);
}

unsigned rvi_ddt_id_bits(unsigned mode, bool extended)
{
	switch (levels(mode)) {
	case 1:
		return leaf_bits(extended);
	case 2:
		return leaf_bits(extended) + 9;
	case 3:
		return 24;
	default:
		return 0;
	}
}

unsigned rvi_ddt_mode_for(unsigned id_bits, bool extended)
{
	for (unsigned m = RVI_DDT_1LVL; m <= RVI_DDT_3LVL; m++)
		if (id_bits <= rvi_ddt_id_bits(m, extended))
			return m;
	return RVI_DDT_3LVL;
}

static void *page(struct rvi_ddt *t)
{
	if (t->npages == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		void **p = realloc(t->pages, cap * sizeof(*p));
		if (!p)
			return NULL;
		t->pages = p, t->cap = cap;
	}
	void *p = platform->alloc_pages(1, t->limit);
	if (!p)
		return NULL;
	memset(p, 0, PAGE_SIZE);
	t->pages[t->npages++] = p;
	return p;
}

const char *rvi_ddt_init(struct rvi_ddt *t, unsigned mode, bool extended, uint64_t limit)
{
	memset(t, 0, sizeof(*t));
	if (!levels(mode))
		return "not a directory mode (1LVL, 2LVL or 3LVL)";
	t->mode = mode, t->extended = extended, t->limit = limit;
	t->root = page(t);
	if (!t->root) {
		rvi_ddt_free(t);
		return "no memory for the device directory's root page";
	}
	return NULL;
}

void rvi_ddt_free(struct rvi_ddt *t)
{
	for (size_t i = 0; i < t->npages; i++)
		platform->free_pages(t->pages[i], 1);
	free(t->pages);
	memset(t, 0, sizeof(*t));
}

static bool id_fits(uint32_t id, unsigned mode, bool extended)
{
	unsigned bits = rvi_ddt_id_bits(mode, extended);
	return bits && (id >> bits) == 0;
}

struct rvi_dc *rvi_ddt_context(struct rvi_ddt *t, uint32_t id, bool create)
{
	if (!t->root || !id_fits(id, t->mode, t->extended))
		return NULL;
	uint64_t *table = t->root;
	for (unsigned i = levels(t->mode) - 1; i > 0; i--) {
		uint64_t *e = &table[ddi(id, i, t->extended)];
		if (!(*e & RVI_DDTE_V)) {
			if (!create)
				return NULL;
			void *p = page(t);
			if (!p)
				return NULL;
			*e = rvi_ppn_field((uintptr_t)p) | RVI_DDTE_V;
		}
		table = (uint64_t *)(uintptr_t)rvi_ppn_addr(*e);
	}
	size_t size = t->extended ? RVI_DC_EXT_BYTES : RVI_DC_BASE_BYTES;
	return (struct rvi_dc *)((uint8_t *)table + ddi(id, 0, t->extended) * size);
}

unsigned rvi_ddt_walk(uint64_t root, unsigned mode, bool extended, uint32_t id, uint64_t *dc)
{
	/* spec 2.3 step 5: an id wider than the mode is a transaction the
	 * mode disallows, not an entry it finds invalid */
	if (!levels(mode) || !id_fits(id, mode, extended))
		return RVI_CAUSE_TTYP_BLOCKED;
	uint64_t a = root;
	for (unsigned i = levels(mode) - 1; i > 0; i--) {
		uint64_t e = ((const uint64_t *)(uintptr_t)a)[ddi(id, i, extended)];
		if (!(e & RVI_DDTE_V))
			return RVI_CAUSE_DDT_INVALID;
		if (e & ~(RVI_DDTE_V | RVI_DDTP_PPN_MASK))
			return RVI_CAUSE_DDT_MISCONFIGURED;
		a = rvi_ppn_addr(e);
	}
	*dc = a + ddi(id, 0, extended) * (extended ? RVI_DC_EXT_BYTES : RVI_DC_BASE_BYTES);
	return 0;
}

/* ---- a context's configuration (spec 2.1.4) -------------------------------- */

#define TC_DEFINED 0xfffull		   /* V .. SXL */
#define TC_CUSTOM 0xff000000ull		   /* 31:24, the implementation's */
#define TA_DEFINED 0xfffff000ull	   /* PSCID (RCID and MCID only with the QoS extension) */
#define ATP_RESERVED 0x0fff000000000000ull /* iosatp and msiptp: 59:44 */
#define MSI_MASK_RESERVED 0xfff0000000000000ull

/* A stage's MODE against the unit's capabilities; `sxl`: the 32-bit
 * encodings (tc.SXL for iosatp, fctl.GXL for iohgatp), where 8 is Sv32 or
 * Sv32x4. */
static const char *stage_mode(uint64_t caps, unsigned mode, bool gstage, bool sxl)
{
	if (mode == RVI_ATP_BARE)
		return NULL;
	if (sxl) {
		if (mode != RVI_ATP_SV39)
			return gstage ? "iohgatp.MODE is reserved under fctl.GXL"
				      : "iosatp.MODE is reserved under tc.SXL";
		if (!(caps & (gstage ? RVI_CAP_SV32X4 : RVI_CAP_SV32)))
			return gstage ? "the unit has no Sv32x4" : "the unit has no Sv32";
		return NULL;
	}
	if (mode < RVI_ATP_SV39 || mode > RVI_ATP_SV57)
		return gstage ? "iohgatp.MODE is a reserved encoding" : "iosatp.MODE is a reserved encoding";
	struct io_pgtable_cfg cfg;
	return rvi_pgtable_cfg(caps, mode, gstage, &cfg);
}

/* tc.PDTV: fsc is pdtp, its MODE 1 PD8, 2 PD17, 3 PD20 */
static const char *pdtp_mode(uint64_t caps, unsigned mode)
{
	static const uint64_t cap[] = { 0, RVI_CAP_PD8, RVI_CAP_PD17, RVI_CAP_PD20 };
	if (mode > 3)
		return "pdtp.MODE is a reserved encoding";
	if (mode && !(caps & cap[mode]))
		return "the unit has no process directory of pdtp.MODE's depth";
	return NULL;
}

static const char *msi_check(const struct rvi_dc *dc, uint64_t caps, unsigned gmode)
{
	unsigned mode = (unsigned)RVI_ATP_MODE(dc->msiptp);
	if (!(caps & RVI_CAP_MSI_FLAT))
		return "an extended context on a unit without capabilities.MSI_FLAT";
	if (mode != 0 && mode != RVI_MSIPTP_FLAT)
		return "msiptp.MODE is neither Off nor Flat";
	if (dc->msiptp & ATP_RESERVED)
		return "msiptp has reserved bits set";
	if ((dc->msi_addr_mask | dc->msi_addr_pattern) & MSI_MASK_RESERVED)
		return "the MSI address mask or pattern has reserved bits set";
	if (mode == RVI_MSIPTP_FLAT && gmode == RVI_ATP_BARE)
		return "an MSI page table under a Bare G stage (no GSCID to tag it by)";
	if (dc->reserved)
		return "the context's last doubleword is reserved";
	return NULL;
}

static const char *dc_why(const struct rvi_dc *dc, bool extended, uint64_t caps, uint32_t fctl)
{
	uint64_t tc = dc->tc;
	unsigned gmode = (unsigned)RVI_ATP_MODE(dc->iohgatp), smode = (unsigned)RVI_ATP_MODE(dc->fsc);
	bool pdtv = tc & RVI_TC_PDTV, sxl = tc & RVI_TC_SXL, gxl = fctl & RVI_FCTL_GXL;
	const char *why;
	if (tc & ~(TC_DEFINED | TC_CUSTOM))
		return "tc has reserved bits set";
	if (dc->ta & ~TA_DEFINED)
		return "ta has reserved bits set";
	if (dc->fsc & ATP_RESERVED)
		return pdtv ? "pdtp has reserved bits set" : "iosatp has reserved bits set";
	if (!(caps & RVI_CAP_ATS) && (tc & (RVI_TC_EN_ATS | RVI_TC_EN_PRI | RVI_TC_PRPR)))
		return "ATS or PRI enabled on a unit without capabilities.ATS";
	if (!(tc & RVI_TC_EN_ATS) && (tc & (RVI_TC_T2GPA | RVI_TC_EN_PRI)))
		return "T2GPA or EN_PRI without EN_ATS";
	if (!(tc & RVI_TC_EN_PRI) && (tc & RVI_TC_PRPR))
		return "PRPR without EN_PRI";
	if ((tc & RVI_TC_T2GPA) && !(caps & RVI_CAP_T2GPA))
		return "T2GPA on a unit without capabilities.T2GPA";
	if ((tc & RVI_TC_T2GPA) && gmode == RVI_ATP_BARE)
		return "T2GPA with a Bare G stage";
	if (pdtv && (why = pdtp_mode(caps, smode)) != NULL)
		return why;
	if (!pdtv && (tc & RVI_TC_DPE))
		return "DPE without a process directory (PDTV clear)";
	/* fctl.GXL set needs SXL set; a unit with no 32-bit mode cannot have
	 * GXL writable, so SXL must be clear there */
	if (gxl && !sxl)
		return "tc.SXL clear under fctl.GXL";
	if (sxl && !(caps & (RVI_CAP_SV32 | RVI_CAP_SV32X4)))
		return "tc.SXL on a unit with no 32-bit mode";
	if (!pdtv && (why = stage_mode(caps, smode, false, sxl)) != NULL)
		return why;
	if ((why = stage_mode(caps, gmode, true, gxl)) != NULL)
		return why;
	if (gmode != RVI_ATP_BARE && (RVI_ATP_PPN(dc->iohgatp) & 3))
		return "the G-stage root is not aligned to 16 KiB";
	if (!(caps & RVI_CAP_AMO_HWAD) && (tc & (RVI_TC_SADE | RVI_TC_GADE)))
		return "SADE or GADE without capabilities.AMO_HWAD";
	if (!(caps & RVI_CAP_END) && !(tc & RVI_TC_SBE) != !(fctl & RVI_FCTL_BE))
		return "tc.SBE differs from fctl.BE on a unit of one endianness";
	return extended ? msi_check(dc, caps, gmode) : NULL;
}

unsigned rvi_dc_check(const struct rvi_dc *dc, bool extended, uint64_t caps, uint32_t fctl, const char **why)
{
	if (!(dc->tc & RVI_TC_V)) {
		*why = "tc.V is clear";
		return RVI_CAUSE_DDT_INVALID;
	}
	*why = dc_why(dc, extended, caps, fctl);
	return *why ? RVI_CAUSE_DDT_MISCONFIGURED : 0;
}
