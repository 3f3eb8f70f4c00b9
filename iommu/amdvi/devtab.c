/* The device table (spec 2.2.2) built from what the firmware says about the
 * unit: as many entries as its IVHD names device ids (at most 64K), every
 * one passed through untranslated with the IVHD's interrupt settings, the
 * requester ids an alias entry names (types 42h, 43h) following the device
 * they stand for, and the IVMD unity ranges identity-mapped in a domain for
 * the devices they name (as RMRRs are on VT-d). */
#include <string.h>

#include "core/base/platform.h"
#include "driver.h"

#define IVMD_UNITY 0x01 /* IVMD flags */
#define IVMD_IR 0x02
#define IVMD_IW 0x04
#define IVMD_EXCLUSION 0x08

uint32_t amdvi_devtab_entries(const struct ivrs *ivrs, const struct ivrs_block *ivhd)
{
	if (!ivrs || !ivhd)
		return AMDVI_DEVTAB_MAX;
	uint32_t top = ivhd->devid;
	for (size_t i = 0; i < ivhd->nentries; i++) {
		const struct ivrs_entry *e = &ivrs->e[ivhd->first_entry + i];
		switch (e->type) {
		case IVHD_ALL:
			return AMDVI_DEVTAB_MAX;
		case IVHD_ALIAS_SELECT:
		case IVHD_ALIAS_RANGE:
		case IVHD_SPECIAL:
			top = e->source > top ? e->source : top;
			/* fall through */
		case IVHD_SELECT:
		case IVHD_RANGE_START:
		case IVHD_RANGE_END:
		case IVHD_EXT_SELECT:
		case IVHD_EXT_RANGE:
			top = e->devid > top ? e->devid : top;
			break;
		default:
			break;
		}
	}
	return top + 1;
}

static uint64_t *dte(struct amdvi *a, uint16_t devid)
{
	return a->devtab + (size_t)devid * (AMDVI_DTE_SIZE / 8);
}

/* Pass-through (Mode 0: no translation, access by IR/IW; QEMU too treats
 * it as identity) with the IVHD's interrupt pass bits. */
static void passthrough(struct amdvi *a, uint16_t devid, uint8_t setting)
{
	if (devid >= a->ndev)
		return;
	uint64_t *e = dte(a, devid);
	uint64_t q1 = AMDVI_DOMAIN_BYSTANDERS, q2 = 0;
	amdvi_dte_from_ivhd(setting, &q1, &q2);
	e[1] = q1, e[2] = q2, e[3] = 0;
	e[0] = AMDVI_DTE_V | AMDVI_DTE_TV | amdvi_dte_mode(0) | AMDVI_DTE_IR | AMDVI_DTE_IW;
}

void amdvi_devtab_fill(struct amdvi *a)
{
	memset(a->devtab, 0, a->devtab_pages * PAGE_SIZE);
	for (uint32_t id = 0; id < a->ndev; id++)
		passthrough(a, (uint16_t)id, 0);
	const struct ivrs_block *h = a->ivhd;
	uint32_t from = 0;
	uint8_t setting = 0;
	int alias = -1;
	for (size_t i = 0; h && i < h->nentries; i++) {
		const struct ivrs_entry *e = &a->ivrs->e[h->first_entry + i];
		switch (e->type) {
		case IVHD_ALL:
			for (uint32_t id = 0; id < a->ndev; id++)
				passthrough(a, (uint16_t)id, e->setting);
			break;
		case IVHD_SELECT:
		case IVHD_EXT_SELECT:
		case IVHD_ALIAS_SELECT:
			passthrough(a, e->devid, e->setting);
			if (e->type == IVHD_ALIAS_SELECT)
				passthrough(a, e->source, e->setting);
			break;
		case IVHD_RANGE_START:
		case IVHD_EXT_RANGE:
		case IVHD_ALIAS_RANGE:
			from = e->devid, setting = e->setting;
			alias = e->type == IVHD_ALIAS_RANGE ? e->source : -1;
			break;
		case IVHD_RANGE_END:
			for (uint32_t id = from; id <= e->devid; id++)
				passthrough(a, (uint16_t)id, setting);
			if (alias >= 0)
				passthrough(a, (uint16_t)alias, setting);
			alias = -1;
			break;
		default:
			break;
		}
	}
	amdvi_push(a->devtab, a->devtab_pages * PAGE_SIZE, a);
}

static void point(struct amdvi *a, uint16_t devid, const struct io_pgtable *d)
{
	uint64_t *e = dte(a, devid);
	if (!d) {
		e[1] = (e[1] & ~AMDVI_DTE_DOMAIN_ID) | AMDVI_DOMAIN_BYSTANDERS;
		e[0] = AMDVI_DTE_V | AMDVI_DTE_TV | amdvi_dte_mode(0) | AMDVI_DTE_IR | AMDVI_DTE_IW;
	} else {
		/* the domain id before the root and mode that use it */
		e[1] = (e[1] & ~AMDVI_DTE_DOMAIN_ID) | d->did;
		__asm__ volatile("" ::: "memory");
		e[0] = AMDVI_DTE_V | AMDVI_DTE_TV | amdvi_dte_mode(d->cfg->levels) |
		       ((uint64_t)(uintptr_t)d->top & AMDVI_DTE_PT_ROOT) | AMDVI_DTE_IR | AMDVI_DTE_IW;
	}
	amdvi_push(e, AMDVI_DTE_SIZE, a);
}

size_t amdvi_requester_ids(const struct amdvi *a, uint16_t devid, uint16_t *ids)
{
	uint16_t all[1 + IOMMU_MAX_ALIASES];
	size_t m = iommu_dut_rids(&a->io, devid, all), n = 0;
	int al = a->ivrs ? amdvi_ivrs_alias(a->ivrs, a->ivhd, devid) : -1;
	for (size_t i = 0; i <= m; i++) {
		int id = i < m ? all[i] : al; /* the IVHD's alias last */
		bool seen = id < 0 || (uint32_t)id >= a->ndev;
		for (size_t k = 0; k < n && !seen; k++)
			seen = ids[k] == id;
		if (!seen)
			ids[n++] = (uint16_t)id;
	}
	return n;
}

void amdvi_devtab_point_ids(struct amdvi *a, const uint16_t *ids, size_t n, const struct io_pgtable *d)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] < a->ndev)
			point(a, ids[i], d);
}

size_t amdvi_devtab_point(struct amdvi *a, uint16_t devid, const struct io_pgtable *d, uint16_t *ids)
{
	size_t n = amdvi_requester_ids(a, devid, ids);
	amdvi_devtab_point_ids(a, ids, n, d);
	return n;
}

static bool ivmd_names(const struct ivrs_block *b, uint16_t devid)
{
	switch (b->type) {
	case 0x20:
		return true; /* every device */
	case 0x21:
		return b->devid == devid;
	default:
		return devid >= b->devid && devid <= b->aux; /* 22h: a range */
	}
}

const char *amdvi_unity_map(struct amdvi *a, struct io_pgtable *d, uint16_t devid)
{
	for (size_t i = 0; a->ivrs && i < a->ivrs->n; i++) {
		const struct ivrs_block *b = &a->ivrs->b[i];
		if (!ivrs_is_ivmd(b->type) || !(b->flags & (IVMD_UNITY | IVMD_EXCLUSION)) || !b->size ||
		    !ivmd_names(b, devid))
			continue;
		/* an exclusion range is untranslated: identity with both
		 * permissions gives the device the same */
		unsigned perm = b->flags & IVMD_EXCLUSION
				    ? IOMMU_RW
				    : (b->flags & IVMD_IR ? IOMMU_R : 0) | (b->flags & IVMD_IW ? IOMMU_W : 0);
		if (!perm)
			continue;
		uint64_t end = b->start + b->size;
		for (uint64_t p = b->start & ~(PAGE_SIZE - 1); p < end; p += PAGE_SIZE) {
			uint64_t ph;
			unsigned pm, lv;
			if (io_pgtable_walk(&amdvi_pte_fmt, d, p, &ph, &pm, &lv))
				continue;
			const char *e = io_pgtable_map(&amdvi_pte_fmt, d, p, p, PAGE_SIZE, perm, PAGE_SIZE);
			if (e)
				return amdvi_pg_fail(a, d, e);
		}
	}
	return NULL;
}

/* The interrupt half of the entry (2.2.5): remapped through `table`, or
 * (table NULL) back to what take-over gives, IV=0 and the IVHD's pass bits
 * alone, so interrupts pass unremapped. */
static void point_ir(struct amdvi *a, uint16_t devid, const uint32_t *table, unsigned log2n)
{
	uint64_t *e = dte(a, devid);
	uint64_t pass = e[2] & (AMDVI_DTE_INIT_PASS | AMDVI_DTE_EINT_PASS | AMDVI_DTE_NMI_PASS | AMDVI_DTE_LINT0_PASS |
				AMDVI_DTE_LINT1_PASS);
	e[2] = table ? amdvi_dte_remapped(pass, (uint64_t)(uintptr_t)table, log2n) : pass;
	amdvi_push(e, AMDVI_DTE_SIZE, a);
}

size_t amdvi_devtab_point_ir(struct amdvi *a, uint16_t devid, const uint32_t *table, unsigned log2n, uint16_t *ids)
{
	size_t n = amdvi_requester_ids(a, devid, ids);
	for (size_t i = 0; i < n; i++)
		point_ir(a, ids[i], table, log2n);
	return n;
}
