/* The RISC-V IOMMU behind the iommu interface: set-up from the
 * capabilities, device contexts changed as 2.5 asks (a valid context made
 * not valid and invalidated before fields that disagree change), the
 * device under test moved between its bystander context and an S stage of
 * its own, map and unmap, the software walk, translation on and off. */
#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/platform.h"
#include "driver.h"

static const char *no_domain(struct rvi *r)
{
	return iommu_fail(&r->io, IOMMU_ERR_STATE, "riscv: no device under test in a domain");
}

size_t rvi_dma_ids(const struct rvi *r, uint16_t rid, uint32_t *ids)
{
	uint16_t rids[RVI_MAX_IDS];
	size_t n = iommu_dut_rids(&r->io, rid, rids);
	for (size_t i = 0; i < n; i++)
		ids[i] = rids[i];
	return n;
}

/* What a device iommon does not test has: pass-through when ddtp was found
 * Bare, no valid context (its DMA blocked) when it was found Off. */
static struct rvi_dc bystander_dc(const struct rvi *r)
{
	struct rvi_dc dc = { 0 };
	if (RVI_DDTP_MODE(r->found.ddtp) == RVI_DDT_BARE)
		dc.tc = RVI_TC_V;
	return dc;
}

void rvi_bystander_context(struct rvi *r, uint32_t id)
{
	struct rvi_dc want = bystander_dc(r);
	if (!want.tc)
		return; /* nothing to write: a directory entry starts not valid */
	struct rvi_dc *dc = rvi_ddt_context(&r->ddt, id, true);
	if (dc)
		*dc = want;
}

struct rvi_dc rvi_dut_context(const struct rvi *r, enum iommu_mode mode)
{
	struct rvi_dc dc = { .tc = RVI_TC_V };
	if (mode != IOMMU_TRANSLATE)
		return dc;
	uint64_t top = (uint64_t)(uintptr_t)r->dut.top;
	if (!r->gstage) {
		dc.ta = RVI_TA_PSCID(RVI_DUT_PSCID);
		dc.fsc = RVI_ATP(r->s_mode, top);
		return dc;
	}
	/* the G stage alone: the IOVA is the guest physical address */
	dc.iohgatp = RVI_ATP(r->g_mode, top) | RVI_IOHGATP_GSCID(RVI_DUT_GSCID);
	if (r->msi_pt) {
		dc.msiptp = RVI_ATP(RVI_MSIPTP_FLAT, (uint64_t)(uintptr_t)r->msi_pt);
		dc.msi_addr_mask = r->msi_mask;
		dc.msi_addr_pattern = r->msi_pattern;
	}
	return dc;
}

/* Every context of `ids` becomes `want` (2.5): those now valid are first
 * made not valid and invalidated; the other fields, then tc, are written
 * and invalidated again. The contexts' memory was made by the caller. */
const char *rvi_write_contexts(struct rvi *r, const uint32_t *ids, size_t n, struct rvi_dc want)
{
	struct rvi_dc *dc[RVI_MAX_IDS];
	bool was_valid = false;
	for (size_t i = 0; i < n; i++) /* every page first: a failure changes nothing */
		if (!(dc[i] = rvi_ddt_context(&r->ddt, ids[i], true)))
			return iommu_fail(&r->io, IOMMU_ERR_NOMEM, "riscv: no memory for a directory page");
	for (size_t i = 0; i < n; i++) {
		if (dc[i]->tc & RVI_TC_V) {
			dc[i]->tc = 0;
			was_valid = true;
		}
	}
	const char *e;
	rvi_push(NULL, 0, r);
	if (was_valid && (e = rvi_contexts_changed(r, ids, n)) != NULL)
		return e;
	size_t bytes = r->extended ? RVI_DC_EXT_BYTES : RVI_DC_BASE_BYTES;
	for (size_t i = 0; i < n; i++) {
		/* every field but tc, then tc: the context is valid only whole */
		memcpy((char *)dc[i] + sizeof(want.tc), (const char *)&want + sizeof(want.tc), bytes - sizeof(want.tc));
		rvi_push(dc[i], bytes, r);
		dc[i]->tc = want.tc;
	}
	rvi_push(NULL, 0, r);
	return rvi_contexts_changed(r, ids, n);
}

static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	static char why[120];
	struct rvi *r = container_of(io, struct rvi, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "riscv: the unit is not taken over");
	uint32_t ids[RVI_MAX_IDS];
	size_t n = rvi_dma_ids(r, pci_rid(dev), ids);
	unsigned bits = rvi_ddt_id_bits(r->ddt_mode, r->extended);
	for (size_t i = 0; i < n; i++)
		if (bits < 32 && ids[i] >> bits) {
			snprintf(why, sizeof(why),
				 "riscv: device id 0x%x is beyond the %u bits ddtp's %u levels resolve", ids[i], bits,
				 r->ddt_mode - 1);
			return iommu_fail(io, IOMMU_ERR_ARGUMENT, why);
		}
	const char *e;
	if (r->has_dut) { /* the previous device under test back among the bystanders */
		if ((e = rvi_write_contexts(r, r->dut_ids, r->ndut_ids, bystander_dc(r))) != NULL)
			return e;
		r->has_dut = false;
	}
	rvi_msi_free(r); /* the table was the previous context's: no valid context names it now */
	if (mode == IOMMU_TRANSLATE &&
	    (e = rvi_pg_fail(r, &r->dut, io_pgtable_alloc(&rvi_pte_fmt, &r->dut, &r->pgcfg, RVI_DUT_PSCID))) != NULL)
		return e;
	if ((e = rvi_write_contexts(r, ids, n, rvi_dut_context(r, mode))) != NULL)
		return e;
	r->has_dut = true;
	r->dut_addr = dev;
	r->dut_mode = mode;
	memcpy(r->dut_ids, ids, n * sizeof(ids[0]));
	r->ndut_ids = n;
	return NULL;
}

/* On: ddtp back to the directory (from Bare, which 5.4 allows). Off: to
 * Off with the PPN unchanged, then Bare (Bare only from Off). */
static const char *op_enable(struct iommu *io, bool on)
{
	struct rvi *r = container_of(io, struct rvi, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "riscv: the unit is not taken over");
	uint64_t root = rvi_ppn_field((uint64_t)(uintptr_t)r->ddt.root);
	unsigned now = (unsigned)RVI_DDTP_MODE(rvi_r64(r, RVI_REG_DDTP));
	const char *e = NULL;
	if (on && now != r->ddt_mode)
		e = rvi_ddtp_write(r, root | r->ddt_mode);
	else if (!on && now != RVI_DDT_BARE) {
		if (now != RVI_DDT_OFF)
			e = rvi_ddtp_write(r, root | RVI_DDT_OFF);
		if (!e)
			e = rvi_ddtp_write(r, root | RVI_DDT_BARE);
	}
	return e;
}

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct rvi *r = container_of(io, struct rvi, io);
	if (!io->taken || !r->has_dut || r->dut_mode != IOMMU_TRANSLATE)
		return no_domain(r);
	if ((perm & IOMMU_W) && !(perm & IOMMU_R))
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED,
				  "riscv: a write-only page cannot be had (W without R is reserved in a PTE)");
	/* entries not valid are never cached (2.4): a new mapping needs no
	 * invalidation */
	return rvi_pg_fail(r, &r->dut, io_pgtable_map(&rvi_pte_fmt, &r->dut, iova, phys, size, perm, page));
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct rvi *r = container_of(io, struct rvi, io);
	if (!io->taken || !r->has_dut || r->dut_mode != IOMMU_TRANSLATE)
		return no_domain(r);
	return rvi_pg_fail(r, &r->dut, io_pgtable_unmap(&rvi_pte_fmt, &r->dut, iova, size));
}

static bool op_iova_to_phys(struct iommu *io, uint64_t iova, uint64_t *phys, unsigned *perm, uint64_t *page)
{
	struct rvi *r = container_of(io, struct rvi, io);
	if (!io->taken || !r->has_dut)
		return false;
	if (r->dut_mode == IOMMU_PASSTHROUGH) {
		*phys = iova, *perm = IOMMU_RW, *page = PAGE_SIZE;
		return true;
	}
	unsigned level;
	if (!io_pgtable_walk(&rvi_pte_fmt, &r->dut, iova, phys, perm, &level))
		return false;
	*page = io_pgtable_level_size(level);
	return true;
}

const char *rvi_leaf_repoint(struct rvi *r, uint64_t iova, uint64_t phys)
{
	uint64_t old, page;
	unsigned perm;
	if (!op_iova_to_phys(&r->io, iova, &old, &perm, &page) || r->dut_mode != IOMMU_TRANSLATE)
		return iommu_fail(&r->io, IOMMU_ERR_ARGUMENT, "riscv: nothing mapped there to repoint");
	iova &= ~(page - 1);
	return rvi_pg_fail(r, &r->dut,
			   io_pgtable_map(&rvi_pte_fmt, &r->dut, iova, phys & ~(page - 1), page, perm, page));
}

const char *rvi_context_pscid(struct rvi *r, uint32_t pscid)
{
	if (!r->io.taken || !r->has_dut || r->dut_mode != IOMMU_TRANSLATE)
		return no_domain(r);
	for (size_t i = 0; i < r->ndut_ids; i++) {
		struct rvi_dc *dc = rvi_ddt_context(&r->ddt, r->dut_ids[i], false);
		if (dc) {
			dc->ta = RVI_TA_PSCID(pscid); /* one store: the context stays whole */
			rvi_push(&dc->ta, sizeof(dc->ta), r);
		}
	}
	return NULL;
}

const char *rvi_context_invalidate(struct rvi *r)
{
	struct rvi_cmd c[RVI_MAX_IDS];
	for (size_t i = 0; i < r->ndut_ids; i++)
		c[i] = rvi_cmd_iodir_ddt(r->dut_ids[i]);
	return rvi_submit(r, c, r->ndut_ids);
}

static const char *op_mode(struct iommu *io, const char *name);

static const struct iommu_ops rvi_ops = {
	.take = rvi_op_take,
	.give_back = rvi_op_give_back,
	.attach = op_attach,
	.enable = op_enable,
	.map = op_map,
	.unmap = op_unmap,
	.invalidate = rvi_op_invalidate,
	.faults = rvi_op_faults,
	.fault_pending = rvi_op_fault_pending,
	.iova_to_phys = op_iova_to_phys,
	.as_found = rvi_op_as_found,
	.firmware_left = rvi_op_firmware_left,
	.mode = op_mode,
};

/* A stage's mode: the fewest levels whose IOVAs (the S stage's lower
 * half; the G stage's, zero-extended, two bits wider) cover all of RAM, so
 * that the device's own queues map at their physical addresses, among the
 * modes the unit offers; 0 when it offers none. */
static unsigned stage_mode(struct rvi *r, bool g, struct io_pgtable_cfg *out)
{
	static const unsigned modes[] = { RVI_ATP_SV39, RVI_ATP_SV48, RVI_ATP_SV57 };
	uint64_t top = platform->memory_top ? platform->memory_top() : 0;
	unsigned chosen = 0;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		struct io_pgtable_cfg cfg;
		if (rvi_pgtable_cfg(r->caps, modes[i], g, &cfg))
			continue;
		chosen = modes[i];
		*out = cfg;
		if (!top || !((top - 1) >> cfg.addr_bits))
			break;
	}
	return chosen;
}

/* The device under test's stage, and what follows from it: the tree's
 * shape, the IOVAs and leaves, the invalidation kinds, the records'
 * variant ("sv39x4" for the G stage; none for the default S stage). */
static void apply_stage(struct rvi *r, bool g)
{
	static char variant[16];
	r->gstage = g;
	stage_mode(r, g, &r->pgcfg);
	r->pgcfg.sync = rvi_push;
	r->pgcfg.ctx = r;
	r->pgcfg.limit = r->limit;
	const struct iommu_inval_kind *k = g ? rvi_g_kinds : rvi_kinds;
	r->io.nkinds = 0;
	for (size_t i = 0; i < ARRAY_SIZE(rvi_kinds); i++)
		r->kinds[r->io.nkinds++] = k[i];
	r->io.addr_bits = r->pgcfg.addr_bits;
	r->io.page_sizes = r->pgcfg.page_sizes;
	snprintf(variant, sizeof(variant), "sv%ux4", 39 + 9 * (r->g_mode - RVI_ATP_SV39));
	r->io.variant = g ? variant : NULL;
	r->io.mode = g ? "g" : "s";
}

/* The stage a unit translates in unless a case asks: the S stage where it
 * has one, else the G stage alone (a unit that offers only the G stage is
 * driven in it). */
static bool default_stage_g(const struct rvi *r)
{
	return !r->s_mode;
}

static const char *op_mode(struct iommu *io, const char *name)
{
	static char why[160];
	struct rvi *r = container_of(io, struct rvi, io);
	bool g = name ? strcmp(name, "g") == 0 : default_stage_g(r);
	if (name && !g && strcmp(name, "s") != 0)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "riscv: no such translation mode (s or g)");
	if (g && !r->g_mode) {
		snprintf(why, sizeof(why), "%s offers no G stage (capabilities 0x%llx: none of Sv39x4, Sv48x4, Sv57x4)",
			 io->name, (unsigned long long)r->caps);
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, why);
	}
	if (!g && !r->s_mode) {
		snprintf(why, sizeof(why),
			 "%s offers no S stage (capabilities 0x%llx: none of Sv39, Sv48, Sv57): it translates in the G "
			 "stage alone",
			 io->name, (unsigned long long)r->caps);
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, why);
	}
	if (io->taken && g != r->gstage)
		return iommu_fail(io, IOMMU_ERR_STATE, "riscv: the unit is taken over in the other stage");
	if (!io->taken)
		apply_stage(r, g);
	return NULL;
}

const char *rvi_init(struct rvi *r, const struct regwin *w, const char *name, uint32_t bystander_ids)
{
	static char why[240];
	struct rvi_found found = r->found;
	bool same_unit = r->found_valid && w->space == r->w.space && w->base == r->w.base && w->ctx == r->w.ctx;
	memset(r, 0, sizeof(*r));
	if (same_unit)
		r->found = found, r->found_valid = true;
	r->w = *w;
	r->io.ops = &rvi_ops;
	r->io.backend = "riscv";
	r->io.kinds = r->kinds;
	r->io.model = w->space == REGWIN_MODEL;
	snprintf(r->io.name, sizeof(r->io.name), "%s", name);
	r->bystander_ids = bystander_ids;
	r->caps = rvi_r64(r, RVI_REG_CAPS);
	r->fctl = rvi_r32(r, RVI_REG_FCTL);
	if (r->caps == ~0ull)
		return iommu_fail(&r->io, IOMMU_ERR_UNUSABLE, "riscv: capabilities reads all ones (nothing answers)");
	unsigned version = (unsigned)RVI_CAP_VERSION(r->caps);
	if (version >> 4 != 1) {
		snprintf(why, sizeof(why),
			 "riscv: specification version %u.%u (capabilities 0x%llx); this driver knows 1.x",
			 version >> 4, version & 15, (unsigned long long)r->caps);
		return iommu_fail(&r->io, IOMMU_ERR_UNUSABLE, why);
	}
	if (r->fctl & RVI_FCTL_BE)
		return iommu_fail(&r->io, IOMMU_ERR_UNSUPPORTED,
				  "riscv: fctl.BE is set (big-endian structures), which this driver does not write");
	if (r->fctl & RVI_FCTL_GXL) /* every context would need tc.SXL and the 32-bit modes (2.1.4) */
		return iommu_fail(&r->io, IOMMU_ERR_UNSUPPORTED,
				  "riscv: fctl.GXL is set (the G stage in Sv32x4), which this driver does not drive");
	r->io.take_first = RVI_DDTP_MODE(rvi_r64(r, RVI_REG_DDTP)) == RVI_DDT_OFF;
	r->extended = (r->caps & RVI_CAP_MSI_FLAT) != 0;
	unsigned pas = (unsigned)RVI_CAP_PAS(r->caps);
	r->limit = pas && pas < 64 ? 1ull << pas : 0;
	struct io_pgtable_cfg cfg;
	r->s_mode = stage_mode(r, false, &cfg);
	r->g_mode = stage_mode(r, true, &cfg);
	if (!r->s_mode && !r->g_mode) {
		/* Sv32 and Sv32x4 need tc.SXL and fctl.GXL (2.1.4), 32-bit
		 * contexts this driver never writes */
		snprintf(why, sizeof(why),
			 "riscv: no stage this driver translates in: no Sv39/48/57 (S) nor Sv39x4/48x4/57x4 (G)%s "
			 "(capabilities 0x%llx)",
			 r->caps & (RVI_CAP_SV32 | RVI_CAP_SV32X4) ? ", only the 32-bit Sv32 or Sv32x4" : "",
			 (unsigned long long)r->caps);
		return iommu_fail(&r->io, IOMMU_ERR_UNSUPPORTED, why);
	}
	r->io.nmodes = 0;
	if (r->s_mode)
		r->io.modes[r->io.nmodes++] = "s";
	if (r->g_mode)
		r->io.modes[r->io.nmodes++] = "g";
	apply_stage(r, default_stage_g(r));
	r->io.perm_bits = true;
	r->io.passthrough = true;
	r->dut.did = RVI_DUT_PSCID;
	r->dut.cfg = &r->pgcfg;
	return NULL;
}
