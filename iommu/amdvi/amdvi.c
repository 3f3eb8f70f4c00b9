/* The AMD-Vi unit behind the iommu interface: set-up from EFR, the device
 * under test moved between pass-through and a domain of its own through its
 * device table entry (and its alias's), map and unmap with what NpCache
 * asks, the software walk. */
#include "amdvi.h"

#include <stdio.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/platform.h"
#include "driver.h"

#define AMDVI_CAP_NP_CACHE (1u << 26) /* IOMMU capability header (3.2.1) */

static const char *no_domain(struct amdvi *a)
{
	return iommu_fail(&a->io, IOMMU_ERR_STATE, "amdvi: no device under test in a domain");
}

/* After a device table entry changed (2.4.2): the entries and the domain's
 * translations cached under them invalidated, fenced. */
static const char *dte_changed(struct amdvi *a, const uint16_t *ids, size_t n, uint16_t domain)
{
	struct amdvi_cmd c[AMDVI_MAX_RIDS + 1];
	size_t k = 0;
	for (size_t i = 0; i < n && k < AMDVI_MAX_RIDS; i++)
		c[k++] = amdvi_cmd_inv_devtab(ids[i]);
	c[k++] = amdvi_cmd_inv_pages(domain, AMDVI_INV_ALL_PAGES, true, true);
	return amdvi_submit(a, c, k);
}

static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "amdvi: the unit is not taken over");
	uint16_t devid = pci_rid(dev), ids[AMDVI_MAX_RIDS];
	if (devid >= a->ndev)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "amdvi: the device is beyond the IVHD's device table");
	const char *e;
	size_t n;
	if (a->has_dut) {
		/* the previous device under test back among the bystanders, and
		 * nothing left pointing at its tables */
		amdvi_devtab_point_ids(a, a->dut_ids, a->ndut_ids, NULL);
		if ((e = dte_changed(a, a->dut_ids, a->ndut_ids, a->dut.did)) != NULL)
			return e;
		a->has_dut = false;
	}
	if (mode == IOMMU_TRANSLATE) {
		if ((e = amdvi_pg_fail(
			 a, &a->dut, io_pgtable_alloc(&amdvi_pte_fmt, &a->dut, &a->pgcfg, AMDVI_DOMAIN_DUT))) != NULL ||
		    (e = amdvi_unity_map(a, &a->dut, devid)) != NULL)
			return e;
	}
	n = amdvi_devtab_point(a, devid, mode == IOMMU_TRANSLATE ? &a->dut : NULL, ids);
	if ((e = dte_changed(a, ids, n, a->dut.did)) != NULL)
		return e;
	a->has_dut = true;
	a->dut_addr = dev;
	a->dut_mode = mode;
	memcpy(a->dut_ids, ids, n * sizeof(ids[0]));
	a->ndut_ids = n;
	return NULL;
}

static const char *op_enable(struct iommu *io, bool on)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "amdvi: the unit is not taken over");
	uint64_t c = amdvi_r64(a, AMDVI_REG_CONTROL);
	amdvi_w64(a, AMDVI_REG_CONTROL, on ? c | AMDVI_CTRL_IOMMU_EN : c & ~AMDVI_CTRL_IOMMU_EN);
	return NULL;
}

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (!io->taken || !a->has_dut)
		return no_domain(a);
	const char *e =
	    amdvi_pg_fail(a, &a->dut, io_pgtable_map(&amdvi_pte_fmt, &a->dut, iova, phys, size, perm, page));
	if (e || !a->np_cache)
		return e;
	/* NpCache: a not-present entry may be cached, so a new mapping is a
	 * change like any other (3.2.1) */
	return amdvi_op_invalidate(io, 1, iova, size);
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (!io->taken || !a->has_dut)
		return no_domain(a);
	return amdvi_pg_fail(a, &a->dut, io_pgtable_unmap(&amdvi_pte_fmt, &a->dut, iova, size));
}

static bool op_iova_to_phys(struct iommu *io, uint64_t iova, uint64_t *phys, unsigned *perm, uint64_t *page)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (!io->taken || !a->has_dut)
		return false;
	if (a->dut_mode == IOMMU_PASSTHROUGH) {
		*phys = iova, *perm = IOMMU_RW, *page = PAGE_SIZE;
		return true;
	}
	unsigned level;
	if (!io_pgtable_walk(&amdvi_pte_fmt, &a->dut, iova, phys, perm, &level))
		return false;
	*page = io_pgtable_level_size(level);
	return true;
}

const char *amdvi_leaf_repoint(struct amdvi *a, uint64_t iova, uint64_t phys)
{
	uint64_t old, page;
	unsigned perm;
	if (!op_iova_to_phys(&a->io, iova, &old, &perm, &page) || a->dut_mode != IOMMU_TRANSLATE)
		return iommu_fail(&a->io, IOMMU_ERR_ARGUMENT, "amdvi: nothing mapped there to repoint");
	iova &= ~(page - 1);
	return amdvi_pg_fail(a, &a->dut,
			     io_pgtable_map(&amdvi_pte_fmt, &a->dut, iova, phys & ~(page - 1), page, perm, page));
}

static const struct iommu_ops amdvi_ops = {
	.take = amdvi_op_take,
	.give_back = amdvi_op_give_back,
	.attach = op_attach,
	.enable = op_enable,
	.map = op_map,
	.unmap = op_unmap,
	.invalidate = amdvi_op_invalidate,
	.faults = amdvi_op_faults,
	.fault_pending = amdvi_op_fault_pending,
	.iova_to_phys = op_iova_to_phys,
	.as_found = amdvi_op_as_found,
	.firmware_left = amdvi_op_firmware_left,
	.ir_enable = amdvi_op_ir_enable,
	.ir_set = amdvi_op_ir_set,
	.ir_msi = amdvi_op_ir_msi,
	.ir_ioapic_rte = amdvi_op_ir_ioapic_rte,
	.ir_invalidate = amdvi_op_ir_invalidate,
	.ir_compat = NULL, /* AMD-Vi has no switch for compatibility-format interrupts */
};

/* The walk: the levels asked for, or the fewest (at least 3) whose IOVAs
 * cover all of RAM, so that the device's own queues map at their physical
 * addresses; at most 4 + EFR.HATS. */
static const char *choose_levels(struct amdvi *a)
{
	static char why[120];
	unsigned hats = amdvi_efr_hats(a->efr);
	a->max_levels = hats == 3 ? 4 : 4 + hats;
	if (a->want_levels) {
		if (a->want_levels < 3 || a->want_levels > a->max_levels) {
			snprintf(why, sizeof(why), "amdvi: a %u-level walk was asked for; EFR.HATS %u allows 3 to %u",
				 a->want_levels, hats, a->max_levels);
			return iommu_fail(&a->io, IOMMU_ERR_UNSUPPORTED, why);
		}
		a->levels = a->want_levels;
		return NULL;
	}
	uint64_t top = platform->memory_top ? platform->memory_top() : 0;
	a->levels = 3;
	while (a->levels < a->max_levels && 12 + 9 * a->levels < 64 && top >> (12 + 9 * a->levels))
		a->levels++;
	return NULL;
}

const char *amdvi_init(struct amdvi *a, const struct regwin *w, const char *name, const struct ivrs *ivrs,
		       const struct ivrs_block *ivhd, const struct amdvi_pci *pci)
{
	unsigned lv = a->want_levels;
	bool want_xt = a->want_xt;
	struct amdvi_found found = a->found;
	bool same_unit = a->found_valid && w->space == a->w.space && w->base == a->w.base && w->ctx == a->w.ctx;
	memset(a, 0, sizeof(*a));
	a->want_levels = lv;
	a->want_xt = want_xt;
	if (same_unit)
		a->found = found, a->found_valid = true;
	a->w = *w;
	a->vector = -1;
	a->ivrs = ivrs, a->ivhd = ivhd;
	if (pci)
		a->pci = *pci;
	a->io.ops = &amdvi_ops;
	a->io.backend = "amdvi";
	a->io.kinds = a->kinds;
	a->io.ir_kinds = amdvi_ir_kinds;
	a->io.nir_kinds = ARRAY_SIZE(amdvi_ir_kinds);
	a->io.model = w->space == REGWIN_MODEL;
	snprintf(a->io.name, sizeof(a->io.name), "%s", name);
	a->efr = amdvi_r64(a, AMDVI_REG_EFR);
	if (a->efr == ~0ull)
		return iommu_fail(&a->io, IOMMU_ERR_UNUSABLE, "amdvi: EFR reads all ones (nothing answers)");
	const char *e = choose_levels(a);
	if (e)
		return e;
	a->ia = a->efr & AMDVI_EFR_IA_SUP;
	/* x2APIC destinations take 128-bit entries (GAEn, which GASup offers)
	 * and XTEn (XTSup) */
	bool xt = (a->efr & AMDVI_EFR_XT_SUP) && (a->efr & AMDVI_EFR_GA_SUP);
	a->io.ir_dest32 = xt ? "amdvi.xt on" : NULL;
	/* without the capability header to say otherwise, assume the unit
	 * caches not-present entries: an invalidation too many is only slow */
	a->np_cache = !(a->pci.cfg && a->pci.iommu_cap) ||
		      (pci_read32(a->pci.cfg, a->pci.fn, a->pci.iommu_cap) & AMDVI_CAP_NP_CACHE);
	a->ndev = amdvi_devtab_entries(ivrs, ivhd);
	for (size_t k = 0; k < ARRAY_SIZE(amdvi_kinds); k++)
		if (amdvi_kind_usable(a, k))
			a->kinds[a->io.nkinds++] = amdvi_kinds[k];
	/* a 6-level walk covers all 64 bits; the interface counts IOVAs as
	 * below 2^addr_bits, so it is told 63 (the top level still indexed) */
	a->io.addr_bits = 12 + 9 * a->levels < 63 ? 12 + 9 * a->levels : 63;
	a->io.page_sizes = 1ull << 12 | 1ull << 21 | 1ull << 30;
	a->io.perm_bits = true;
	a->io.passthrough = true;
	a->io.map_flushes = a->np_cache;
	a->pgcfg = (struct io_pgtable_cfg){ .levels = a->levels,
					    .addr_bits = a->io.addr_bits,
					    .page_sizes = a->io.page_sizes,
					    .sync = amdvi_push,
					    .ctx = a };
	a->dut.did = AMDVI_DOMAIN_DUT;
	a->dut.cfg = &a->pgcfg;
	return NULL;
}

/* The usable MSI capability: the first whose registers fit before the next
 * capability (QEMU's function has a 4-byte dummy one at 0x58 before the
 * real one at 0x60). */
static uint16_t usable_msi(const struct pci_dev *d, struct pci_cfg *cfg)
{
	for (size_t i = 0; i < d->ncaps; i++) {
		if (d->cap[i].ext || d->cap[i].id != 0x05)
			continue;
		uint16_t off = d->cap[i].offset, next = 0x100;
		for (size_t k = 0; k < d->ncaps; k++)
			if (!d->cap[k].ext && d->cap[k].offset > off && d->cap[k].offset < next)
				next = d->cap[k].offset;
		bool is64 = pci_read16(cfg, d->addr, off + AMDVI_MSI_CTRL) & AMDVI_MSI_CTRL_64;
		if (next - off >= (is64 ? 14 : 10))
			return off;
	}
	return 0;
}

const char *amdvi_open(struct amdvi *a, const struct iommu_unit *u, const struct iommu_units *all,
		       const struct pci_list *pci, struct pci_cfg *cfg)
{
	const struct ivrs *ivrs = amdvi_units_ivrs(all);
	if (u->backend != &amdvi_backend || !ivrs)
		return iommu_fail(&a->io, IOMMU_ERR_ARGUMENT, "not an AMD-Vi unit");
	if (u->refused[0])
		return iommu_fail(&a->io, IOMMU_ERR_UNUSABLE, u->refused);
	struct regwin w;
	const char *why = units_open_window(u, &w);
	if (why)
		return iommu_fail(&a->io, IOMMU_ERR_UNUSABLE, why);
	const struct ivrs_block *ivhd = &ivrs->b[u->src];
	struct amdvi_pci p = { 0 };
	struct pci_addr fn = { .seg = ivhd->segment,
			       .bus = (uint8_t)(ivhd->devid >> 8),
			       .dev = (uint8_t)(ivhd->devid >> 3 & 31),
			       .fn = (uint8_t)(ivhd->devid & 7) };
	int i = pci ? pci_find(pci, fn) : -1;
	if (i >= 0 && cfg) {
		p = (struct amdvi_pci){ .cfg = cfg, .fn = fn, .iommu_cap = ivhd->cap_offset };
		p.msi = usable_msi(&pci->d[i], cfg);
	}
	return amdvi_init(a, &w, u->name, ivrs, ivhd, &p);
}
