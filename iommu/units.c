#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/claims.h"
#include "core/base/platform.h"
#include "found_regs.h"
#include "iommu/vtd/caps.h"
#include "iommu/vtd/regs.h"

int dmar_scope_device(const struct dmar_scope *sc, uint16_t segment, const struct pci_list *pci)
{
	if (sc->npath == 0)
		return -1;
	uint8_t bus = sc->start_bus;
	int idx = -1;
	for (unsigned h = 0; h < sc->npath; h++) {
		struct pci_addr a = { segment, bus, sc->path[h].dev, sc->path[h].fn };
		idx = pci_find(pci, a);
		if (idx < 0)
			return -1;
		if (h + 1 < sc->npath) {
			const struct pci_dev *br = &pci->d[idx];
			if (!pci_is_bridge(br))
				return -1;
			bus = br->sec_bus;
		}
	}
	return idx;
}

/* VT-d spec 8.3: a device belongs to the unit whose scope names it or a
 * bridge above it; failing that, to its segment's INCLUDE_PCI_ALL unit. */
static int vtd_unit_for(struct iommu_units *u, const struct pci_list *pci, size_t dev, const int *target)
{
	int all = -1;
	for (size_t i = 0; i < u->n; i++) {
		const struct iommu_unit *unit = &u->u[i];
		if (unit->type != IOMMU_VTD || unit->segment != pci->d[dev].addr.seg)
			continue;
		if (unit->include_all) {
			if (all < 0)
				all = (int)i;
			continue;
		}
		const struct dmar_struct *st = &u->dmar.s[unit->src];
		for (size_t k = 0; k < st->nscopes; k++) {
			const struct dmar_scope *sc = &u->dmar.scopes[st->first_scope + k];
			int to = target[st->first_scope + k];
			if (to < 0)
				continue;
			/* parents come from the bridges' bus numbers, which pci_enumerate
			 * only trusts when they nest; the walk is bounded all the same,
			 * since a bus tree is at most 256 deep */
			int hops = 0;
			for (int d = (int)dev; d >= 0 && (size_t)d < pci->n; d = pci->d[d].parent) {
				if (d == to && (d == (int)dev || sc->type == DMAR_SCOPE_BRIDGE))
					return (int)i;
				if (++hops > 256) {
					u->parent_walks_cut++;
					break;
				}
			}
		}
	}
	return all;
}

int units_ivrs_alias(const struct ivrs *v, const struct ivrs_block *h, uint16_t devid)
{
	uint32_t from = 0;
	int src = -1;
	for (size_t i = 0; h && i < h->nentries; i++) {
		const struct ivrs_entry *e = &v->e[h->first_entry + i];
		if (e->type == IVHD_ALIAS_SELECT && e->devid == devid)
			return e->source;
		if (e->type == IVHD_ALIAS_RANGE)
			from = e->devid, src = e->source;
		else if (e->type == IVHD_RANGE_END && src >= 0 && devid >= from && devid <= e->devid)
			return src;
		else if (e->type == IVHD_RANGE_END || e->type == IVHD_RANGE_START || e->type == IVHD_EXT_RANGE)
			src = -1;
	}
	return -1;
}

void units_dma_aliases(const struct iommu_units *u, const struct pci_list *pci, size_t i, struct pci_aliases *out)
{
	pci_dma_aliases(pci, i, out);
	int k = pci->d[i].iommu;
	if (k < 0 || (size_t)k >= u->n || u->u[k].type != IOMMU_AMDVI)
		return;
	const struct ivrs_block *h = &u->ivrs.b[u->u[k].src];
	for (size_t m = 0, n = out->n; m < n; m++) {
		int al = units_ivrs_alias(&u->ivrs, h, out->a[m].rid);
		if (al >= 0)
			pci_alias_add(out, (uint16_t)al, PCI_ALIAS_FIRMWARE, -1);
	}
}

size_t units_alias_group(const struct iommu_units *u, const struct pci_list *pci, size_t self,
			 const struct pci_aliases *ids, size_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < pci->n && n < max; i++) {
		const struct pci_dev *d = &pci->d[i];
		if (i == self || pci_is_bridge(d) || d->addr.seg != pci->d[self].addr.seg ||
		    (d->class >> 16) == 0x06) /* bridges of every kind: they forward, they do not master */
			continue;
		struct pci_aliases theirs;
		units_dma_aliases(u, pci, i, &theirs);
		bool shared = false;
		for (size_t k = 0; k < theirs.n && !shared; k++)
			shared = pci_aliases_have(ids, theirs.a[k].rid);
		if (shared)
			out[n++] = i;
	}
	return n;
}

static int amdvi_unit_for(const struct iommu_units *u, const struct pci_list *pci, size_t dev)
{
	const struct pci_dev *d = &pci->d[dev];
	for (size_t i = 0; i < u->n; i++) {
		const struct iommu_unit *unit = &u->u[i];
		if (unit->type == IOMMU_AMDVI && unit->segment == d->addr.seg &&
		    ivrs_covers(&u->ivrs, &u->ivrs.b[unit->src], pci_rid(d->addr)))
			return (int)i;
	}
	return -1;
}

const char *units_open_window(const struct iommu_unit *u, struct regwin *w)
{
	return regwin_open_mmio(w, u->name, u->base, u->size, false, u->source);
}

static void check_window(struct iommu_unit *unit)
{
	struct regwin w;
	const char *why = units_open_window(unit, &w),
		   *owner = why ? NULL : claims_owner(unit->base, unit->size, false);
	if (why)
		snprintf(unit->refused, sizeof(unit->refused), "%s", why);
	else if (unit->base & 0xfff)
		snprintf(unit->refused, sizeof(unit->refused),
			 "%s gives %s registers at 0x%llx: refused, not 4 KiB aligned", unit->source, unit->name,
			 (unsigned long long)unit->base);
	else if (owner) /* another device's registers, or another unit's: never touched */
		snprintf(unit->refused, sizeof(unit->refused),
			 "%s gives %s registers at 0x%llx (+0x%llx): refused, they lie in %s", unit->source, unit->name,
			 (unsigned long long)unit->base, (unsigned long long)unit->size, owner);
	else {
		unit->refused[0] = '\0';
		claims_add(CLAIM_UNIT, unit->base, unit->size, "%s's register window (%s)", unit->name, unit->source);
	}
}

void units_build(struct iommu_units *u, const uint8_t *dmar, size_t dmar_len, const uint8_t *ivrs, size_t ivrs_len,
		 struct pci_list *pci)
{
	struct dmar d;
	struct ivrs v;
	if (dmar)
		dmar_parse(dmar, dmar_len, &d);
	if (ivrs)
		ivrs_parse(ivrs, ivrs_len, &v);
	units_adopt(u, dmar ? &d : NULL, ivrs ? &v : NULL, pci);
}

void units_adopt(struct iommu_units *u, struct dmar *dmar, struct ivrs *ivrs, struct pci_list *pci)
{
	memset(u, 0, sizeof(*u));
	if (dmar) {
		u->dmar = *dmar;
		u->have_dmar = true;
		for (size_t i = 0; i < u->dmar.n; i++) {
			const struct dmar_struct *st = &u->dmar.s[i];
			if (st->type != DMAR_DRHD)
				continue;
			if (u->n == IOMMU_MAX_UNITS) {
				diag_add(&u->dmar.diag, DIAG_WARNING, "more than %d units: the rest are not used",
					 IOMMU_MAX_UNITS);
				break;
			}
			struct iommu_unit *unit = &u->u[u->n];
			snprintf(unit->name, sizeof(unit->name), "dmar%zu", u->n);
			unit->type = IOMMU_VTD;
			unit->segment = st->segment;
			unit->base = st->base;
			unit->include_all = st->flags & DMAR_DRHD_INCLUDE_PCI_ALL;
			unit->src = i;
			unit->size = 0x1000ull << (st->size & 0xf); /* DRHD Size: 2^N pages */
			snprintf(unit->source, sizeof(unit->source), "DMAR DRHD at 0x%x", st->offset);
			check_window(unit);
			u->n++;
		}
	}
	if (ivrs) {
		u->ivrs = *ivrs;
		u->have_ivrs = true;
		size_t first = u->n;
		for (size_t i = 0; i < u->ivrs.n; i++) {
			if (!ivrs_preferred(&u->ivrs, i))
				continue;
			if (u->n == IOMMU_MAX_UNITS) {
				diag_add(&u->ivrs.diag, DIAG_WARNING, "more than %d units: the rest are not used",
					 IOMMU_MAX_UNITS);
				break;
			}
			const struct ivrs_block *b = &u->ivrs.b[i];
			struct iommu_unit *unit = &u->u[u->n];
			snprintf(unit->name, sizeof(unit->name), "amdvi%zu", u->n - first);
			unit->type = IOMMU_AMDVI;
			unit->segment = b->segment;
			unit->base = b->base;
			for (size_t k = 0; k < b->nentries; k++)
				unit->include_all |= u->ivrs.e[b->first_entry + k].type == IVHD_ALL;
			unit->src = i;
			unit->size = 0x4000; /* the MMIO register set spans 16 KiB (3.4) */
			snprintf(unit->source, sizeof(unit->source), "IVRS IVHD at 0x%x", b->offset);
			check_window(unit);
			u->n++;
		}
	}
	/* each scope resolved once, not once per device */
	int *target = u->dmar.nscopes ? malloc(u->dmar.nscopes * sizeof(*target)) : NULL;
	for (size_t k = 0; target && k < u->dmar.nscopes; k++) {
		const struct dmar_scope *sc = &u->dmar.scopes[k];
		target[k] = -1;
		if (pci && (sc->type == DMAR_SCOPE_ENDPOINT || sc->type == DMAR_SCOPE_BRIDGE))
			for (size_t s = 0; s < u->dmar.n; s++)
				if (k >= u->dmar.s[s].first_scope &&
				    k < u->dmar.s[s].first_scope + u->dmar.s[s].nscopes)
					target[k] = dmar_scope_device(sc, u->dmar.s[s].segment, pci);
	}
	for (size_t i = 0; pci && i < pci->n; i++) {
		int vtd = target || !u->dmar.nscopes ? vtd_unit_for(u, pci, i, target) : -1;
		pci->d[i].iommu = vtd >= 0 ? vtd : amdvi_unit_for(u, pci, i);
		if (pci->d[i].iommu >= 0)
			u->u[pci->d[i].iommu].ndevices++;
	}
	free(target);
	if (u->parent_walks_cut)
		diag_add(&u->dmar.diag, DIAG_WARNING, "%u device-to-bridge walks went past 256 hops: cut",
			 u->parent_walks_cut);
}

void units_adopt_iort(struct iommu_units *u, struct iort *iort, struct pci_list *pci)
{
	u->iort = *iort;
	u->have_iort = true;
	size_t first = u->n;
	for (size_t i = 0; i < u->iort.nsmmu; i++) {
		if (u->n == IOMMU_MAX_UNITS) {
			diag_add(&u->iort.diag, DIAG_WARNING, "more than %d units: the rest are not used",
				 IOMMU_MAX_UNITS);
			break;
		}
		const struct iort_smmu *s = &u->iort.smmu[i];
		struct iommu_unit *unit = &u->u[u->n];
		memset(unit, 0, sizeof(*unit));
		snprintf(unit->name, sizeof(unit->name), "smmu%zu", u->n - first);
		unit->type = IOMMU_SMMUV3;
		unit->segment = s->segment;
		unit->base = s->base;
		unit->src = i;
		unit->size = IORT_SMMUV3_SPAN;
		snprintf(unit->source, sizeof(unit->source), "IORT SMMUv3 node at 0x%zx", s->node_offset);
		check_window(unit);
		u->n++;
	}
	for (size_t i = 0; pci && i < pci->n; i++) {
		size_t smmu;
		uint32_t sid;
		if (pci->d[i].iommu >= 0 ||
		    !iort_map_rid(&u->iort, pci->d[i].addr.seg, pci_rid(pci->d[i].addr), &smmu, &sid))
			continue;
		/* the unit made from t->smmu[smmu], if the unit limit let it in */
		if (first + smmu < u->n) {
			pci->d[i].iommu = (int)(first + smmu);
			u->u[first + smmu].ndevices++;
		}
	}
}

void units_free(struct iommu_units *u)
{
	if (u->have_dmar)
		dmar_free(&u->dmar);
	if (u->have_ivrs)
		ivrs_free(&u->ivrs);
	if (u->have_iort)
		iort_free(&u->iort);
	u->n = 0;
	u->have_dmar = u->have_ivrs = u->have_iort = false;
}

/* AMD-Vi's Extended Feature Register (AMD IOMMU spec 3.4); VT-d's
 * registers are named in vtd/regs.h */
#define AMDVI_EFR 0x30
/* SMMUv3 identification registers, page 0 (IHI 0070 6.2) */
#define SMMU_IDR(n) (0x0u + 4u * (n))
#define SMMU_AIDR 0x1c

bool units_read_regs(const struct iommu_unit *u, struct unit_regs *r)
{
	struct regwin w;
	/* a replay answers from the registers its folder saved */
	if (platform->replay ? !found_regs_window(u, &w) : (u->base & 0xfff) || units_open_window(u, &w) != NULL)
		return false;
	memset(r, 0, sizeof(*r));
	if (u->type == IOMMU_VTD) {
		r->version = regwin_read32(&w, VTD_REG_VER);
		r->cap = regwin_read64(&w, VTD_REG_CAP);
		r->ecap = regwin_read64(&w, VTD_REG_ECAP);
		return r->version != 0xffffffffu && r->cap != ~0ull;
	}
	if (u->type == IOMMU_SMMUV3) {
		for (unsigned i = 0; i < 6; i++)
			r->idr[i] = regwin_read32(&w, SMMU_IDR(i));
		r->aidr = regwin_read32(&w, SMMU_AIDR);
		return r->idr[0] != 0xffffffffu;
	}
	r->cap = regwin_read64(&w, AMDVI_EFR);
	return r->cap != ~0ull;
}

/* The SMMU_IDRn fields `iommu` shows (IHI 0070 6.3.1-6), by register and
 * bit position: one-bit features by name when set, wider fields as
 * NAME=value. */
static const struct smmuv3_field {
	const char *name;
	uint8_t idr, lo, width;
} smmuv3_fields[] = {
	{ "S2P", 0, 0, 1 },
	{ "S1P", 0, 1, 1 },
	{ "TTF", 0, 2, 2 },
	{ "COHACC", 0, 4, 1 },
	{ "BTM", 0, 5, 1 },
	{ "HTTU", 0, 6, 2 },
	{ "HYP", 0, 9, 1 },
	{ "ATS", 0, 10, 1 },
	{ "ASID16", 0, 12, 1 },
	{ "MSI", 0, 13, 1 },
	{ "SEV", 0, 14, 1 },
	{ "PRI", 0, 16, 1 },
	{ "VMID16", 0, 18, 1 },
	{ "CD2L", 0, 19, 1 },
	{ "STALL_MODEL", 0, 24, 2 },
	{ "ST_LEVEL", 0, 27, 2 },
	{ "SIDSIZE", 1, 0, 6 },
	{ "SSIDSIZE", 1, 6, 5 },
	{ "PRIQS", 1, 11, 5 },
	{ "EVTQS", 1, 16, 5 },
	{ "CMDQS", 1, 21, 5 },
	{ "REL", 1, 28, 1 },
	{ "QUEUES_PRESET", 1, 29, 1 },
	{ "TABLES_PRESET", 1, 30, 1 },
	{ "HAD", 3, 2, 1 },
	{ "RIL", 3, 10, 1 },
	{ "BBML", 3, 11, 2 },
	{ "OAS", 5, 0, 3 },
	{ "GRAN4K", 5, 4, 1 },
	{ "GRAN16K", 5, 5, 1 },
	{ "GRAN64K", 5, 6, 1 },
};

static void smmuv3_print(const struct unit_regs *r)
{
	static const unsigned oas_bits[8] = { 32, 36, 40, 42, 44, 48, 52, 0 };
	for (unsigned reg = 0; reg < 6; reg++) {
		if (reg == 2 || reg == 4)
			continue; /* IDR2 (VATOS) and IDR4 (implementation defined) */
		printf("      IDR%u 0x%08x:", reg, r->idr[reg]);
		for (size_t i = 0; i < sizeof(smmuv3_fields) / sizeof(smmuv3_fields[0]); i++) {
			const struct smmuv3_field *f = &smmuv3_fields[i];
			unsigned v = (r->idr[reg] >> f->lo) & ((1u << f->width) - 1);
			if (f->idr != reg || (f->width == 1 && !v))
				continue;
			if (f->width == 1)
				printf(" %s", f->name);
			else
				printf(" %s=%u", f->name, v);
		}
		if (reg == 5)
			printf(" (%u-bit output addresses)", oas_bits[r->idr[5] & 7]);
		printf("\n");
	}
	printf("      AIDR 0x%08x: SMMUv%u.%u\n", r->aidr, ((r->aidr >> 4) & 0xf) + 3, r->aidr & 0xf);
}

static unsigned bits(uint64_t v, unsigned hi, unsigned lo)
{
	return (unsigned)((v >> lo) & ((1ull << (hi - lo + 1)) - 1));
}

void units_describe(const struct iommu_unit *u)
{
	struct unit_regs r;
	if (u->refused[0] && !platform->replay) {
		printf("      registers: not opened: %s\n", u->refused);
		return;
	}
	if (platform->replay && !units_read_regs(u, &r)) {
		printf("      registers: none saved for %s at 0x%llx in the replay folder\n", u->name,
		       (unsigned long long)u->base);
		return;
	}
	if (!units_read_regs(u, &r)) {
		printf("      registers: nothing answers at 0x%llx (they read all ones)\n",
		       (unsigned long long)u->base);
		return;
	}
	if (u->type == IOMMU_VTD) {
		vtd_caps_print(r.version, r.cap, r.ecap,
			       platform && platform->apic_id_bits ? platform->apic_id_bits() : 8);
	} else if (u->type == IOMMU_SMMUV3) {
		smmuv3_print(&r);
	} else {
		printf("      EFR 0x%016llx:%s%s%s%s%s%s%s%s, HATS %u\n", (unsigned long long)r.cap,
		       bits(r.cap, 0, 0) ? " prefetch" : "", bits(r.cap, 1, 1) ? " PPR" : "",
		       bits(r.cap, 2, 2) ? " XT" : "", bits(r.cap, 3, 3) ? " NX" : "", bits(r.cap, 4, 4) ? " GT" : "",
		       bits(r.cap, 6, 6) ? " IA" : "", bits(r.cap, 7, 7) ? " GA" : "", bits(r.cap, 9, 9) ? " PC" : "",
		       bits(r.cap, 11, 10));
	}
}
