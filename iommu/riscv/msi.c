/* The device under test's MSI page table: MSI address translation (spec
 * 2.3.3), the RISC-V IOMMU's interrupt remapping. One flat table of 16-byte
 * entries, one per interrupt file, each in basic translate mode (M = 3) or
 * not valid; the device's contexts name it in msiptp with the mask and
 * pattern that pick out its MSIs. Changing an entry is followed by
 * IOTINVAL.GVMA of the file's address under the GSCID, as the software
 * guidelines ask. */
#include <string.h>

#include "core/base/platform.h"
#include "driver.h"

static unsigned bits_set(uint64_t x)
{
	unsigned n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

void rvi_msi_free(struct rvi *r)
{
	if (r->msi_pt)
		platform->free_pages(r->msi_pt, 1);
	r->msi_pt = NULL;
	r->msi_mask = r->msi_pattern = 0;
}

/* The inverse of the unit's extract (2.3.3): file number `file`'s bits
 * spread over the mask's set bits, low to high, on top of the pattern. */
uint64_t rvi_msi_addr(const struct rvi *r, unsigned file)
{
	uint64_t pn = r->msi_pattern & ~r->msi_mask;
	for (unsigned bit = 0, k = 0; bit < 52; bit++)
		if ((r->msi_mask >> bit) & 1) {
			if ((file >> k) & 1)
				pn |= 1ull << bit;
			k++;
		}
	return pn << 12;
}

static const char *dut_in_g_stage(struct rvi *r)
{
	if (!r->io.taken || !r->has_dut || r->dut_mode != IOMMU_TRANSLATE)
		return iommu_fail(&r->io, IOMMU_ERR_STATE, "riscv: no device under test translating");
	if (!(r->caps & RVI_CAP_MSI_FLAT))
		return iommu_fail(&r->io, IOMMU_ERR_UNSUPPORTED,
				  "riscv: the unit has no MSI page tables (capabilities.MSI_FLAT clear)");
	if (!r->gstage)
		return iommu_fail(
		    &r->io, IOMMU_ERR_UNSUPPORTED,
		    "riscv: an MSI page table needs the G stage (msiptp must be Off under a Bare iohgatp)");
	return NULL;
}

const char *rvi_msi_on(struct rvi *r, uint64_t base, uint64_t mask)
{
	const char *e = dut_in_g_stage(r);
	if (e)
		return e;
	if (r->msi_pt)
		return iommu_fail(&r->io, IOMMU_ERR_STATE, "riscv: the MSI page table is already on");
	if (!mask || bits_set(mask) > 8 || (mask >> 52) || (base & 0xfff) || ((base >> 12) & mask))
		return iommu_fail(
		    &r->io, IOMMU_ERR_ARGUMENT,
		    "riscv: interrupt files need a page-aligned base clear of 1 to 8 mask bits below bit 52");
	uint64_t *pt = platform->alloc_pages(1, r->limit);
	if (!pt)
		return iommu_fail(&r->io, IOMMU_ERR_NOMEM, "riscv: no memory for the MSI page table");
	memset(pt, 0, PAGE_SIZE); /* every entry not valid */
	rvi_push(pt, PAGE_SIZE, r);
	r->msi_pt = pt;
	r->msi_mask = mask;
	r->msi_pattern = base >> 12;
	if ((e = rvi_write_contexts(r, r->dut_ids, r->ndut_ids, rvi_dut_context(r, IOMMU_TRANSLATE))) == NULL)
		return NULL;
	/* the contexts back without it; the page kept if even that fails */
	uint64_t *keep = r->msi_pt;
	r->msi_pt = NULL;
	if (!rvi_write_contexts(r, r->dut_ids, r->ndut_ids, rvi_dut_context(r, IOMMU_TRANSLATE)))
		platform->free_pages(keep, 1);
	r->msi_mask = r->msi_pattern = 0;
	return e;
}

const char *rvi_msi_file(struct rvi *r, unsigned file, uint64_t target)
{
	if (!r->msi_pt)
		return iommu_fail(&r->io, IOMMU_ERR_STATE, "riscv: no MSI page table");
	if (file >= 1u << bits_set(r->msi_mask) || (target & 0xfff) || (r->limit && target >= r->limit))
		return iommu_fail(
		    &r->io, IOMMU_ERR_ARGUMENT,
		    "riscv: no such interrupt file, or a target the unit cannot reach or not page-aligned");
	uint64_t *pte = r->msi_pt + 2 * file;
	/* the second doubleword stays zero (reserved in basic translate), so
	 * the one store of the first changes the entry whole */
	pte[0] = target ? ((target >> 2) & RVI_PTE_PPN_MASK) | RVI_MSI_PTE_M_BASIC | RVI_MSI_PTE_V : 0;
	rvi_push(pte, 16, r);
	const struct rvi_cmd c = rvi_cmd_iotinval_gvma(RVI_DUT_GSCID, rvi_msi_addr(r, file));
	return rvi_submit(r, &c, 1);
}

const char *rvi_msi_off(struct rvi *r)
{
	if (!r->msi_pt)
		return NULL;
	uint64_t *pt = r->msi_pt;
	r->msi_pt = NULL;
	/* the contexts' change invalidates what the unit cached of the table
	 * (IOTINVAL.GVMA of the GSCID among it) before the page goes */
	const char *e = rvi_write_contexts(r, r->dut_ids, r->ndut_ids, rvi_dut_context(r, IOMMU_TRANSLATE));
	if (e) {
		r->msi_pt = pt; /* the unit may still read it: not freed */
		return e;
	}
	platform->free_pages(pt, 1);
	r->msi_mask = r->msi_pattern = 0;
	return NULL;
}
