/* The VT-d backend's discovery (discover.h). */
#include "discover.h"

#include <stdio.h>
#include <stdlib.h>

#include "caps.h"
#include "core/base/json.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "regs.h"

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

IOMMU_TABLE_STATE(vtd_table, struct dmar, dmar_parse, dmar_free)

static void vtd_find(struct iommu_units *u, const struct iommu_backend *self, void *state, const struct pci_list *pci)
{
	struct dmar *dmar = state;
	(void)pci;
	for (size_t i = 0; dmar && i < dmar->n; i++) {
		const struct dmar_struct *st = &dmar->s[i];
		if (st->type != DMAR_DRHD)
			continue;
		struct iommu_unit unit = {
			.backend = self,
			.segment = st->segment,
			.base = st->base,
			.include_all = st->flags & DMAR_DRHD_INCLUDE_PCI_ALL,
			.src = i,
			.size = 0x1000ull << (st->size & 0xf), /* DRHD Size: 2^N pages */
		};
		snprintf(unit.name, sizeof(unit.name), "dmar%zu", units_of(u, self));
		snprintf(unit.source, sizeof(unit.source), "DMAR DRHD at 0x%x", st->offset);
		if (units_add(u, &unit, &dmar->diag) < 0)
			break;
	}
}

/* VT-d spec 8.3: a device belongs to the unit whose scope names it or a
 * bridge above it; failing that, to its segment's INCLUDE_PCI_ALL unit. */
static int unit_for(const struct iommu_units *u, const struct iommu_backend *self, const struct dmar *dmar,
		    const struct pci_list *pci, size_t dev, const int *target, unsigned *cut)
{
	int all = -1;
	for (size_t i = 0; i < u->n; i++) {
		const struct iommu_unit *unit = &u->u[i];
		if (unit->backend != self || unit->segment != pci->d[dev].addr.seg)
			continue;
		if (unit->include_all) {
			if (all < 0)
				all = (int)i;
			continue;
		}
		const struct dmar_struct *st = &dmar->s[unit->src];
		for (size_t k = 0; k < st->nscopes; k++) {
			const struct dmar_scope *sc = &dmar->scopes[st->first_scope + k];
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
					(*cut)++;
					break;
				}
			}
		}
	}
	return all;
}

static void vtd_claim(struct iommu_units *u, const struct iommu_backend *self, void *state, struct pci_list *pci)
{
	struct dmar *dmar = state;
	if (!dmar)
		return;
	/* each scope resolved once, not once per device */
	int *target = dmar->nscopes ? malloc(dmar->nscopes * sizeof(*target)) : NULL;
	if (dmar->nscopes && !target)
		return;
	for (size_t k = 0; k < dmar->nscopes; k++) {
		const struct dmar_scope *sc = &dmar->scopes[k];
		target[k] = -1;
		if (sc->type == DMAR_SCOPE_ENDPOINT || sc->type == DMAR_SCOPE_BRIDGE)
			for (size_t s = 0; s < dmar->n; s++)
				if (k >= dmar->s[s].first_scope && k < dmar->s[s].first_scope + dmar->s[s].nscopes)
					target[k] = dmar_scope_device(sc, dmar->s[s].segment, pci);
	}
	unsigned cut = 0;
	for (size_t i = 0; i < pci->n; i++) {
		int by = pci->d[i].iommu < 0 ? unit_for(u, self, dmar, pci, i, target, &cut) : -1;
		if (by >= 0)
			units_cover(u, pci, i, (size_t)by);
	}
	free(target);
	if (cut)
		diag_add(&dmar->diag, DIAG_WARNING, "%u device-to-bridge walks went past 256 hops: cut", cut);
}

/* VT-d 11.4: identity, then what takeover.c records */
static const struct iommu_found_reg vtd_found_regs[] = {
	{ VTD_REG_VER, 4, "VER" },	   { VTD_REG_CAP, 8, "CAP" },	    { VTD_REG_ECAP, 8, "ECAP" },
	{ VTD_REG_GSTS, 4, "GSTS" },	   { VTD_REG_RTADDR, 8, "RTADDR" }, { VTD_REG_FSTS, 4, "FSTS" },
	{ VTD_REG_FECTL, 4, "FECTL" },	   { VTD_REG_FEDATA, 4, "FEDATA" }, { VTD_REG_FEADDR, 4, "FEADDR" },
	{ VTD_REG_FEUADDR, 4, "FEUADDR" }, { VTD_REG_PMEN, 4, "PMEN" },	    { VTD_REG_IQH, 8, "IQH" },
	{ VTD_REG_IQT, 8, "IQT" },	   { VTD_REG_IQA, 8, "IQA" },	    { VTD_REG_ICS, 4, "ICS" },
	{ VTD_REG_IRTA, 8, "IRTA" },
};

/* the identity registers, in struct unit_regs */
enum { ID_VER, ID_CAP, ID_ECAP, ID_GSTS, ID_RTADDR, ID_PMEN };

/* VER, CAP, ECAP (spec 11.4.1-3), and what the firmware left on: GSTS,
 * RTADDR, PMEN (where the unit has protected regions); reads only */
static bool vtd_identity(struct regwin *w, struct unit_regs *r)
{
	r->r[ID_VER] = regwin_read32(w, VTD_REG_VER);
	r->r[ID_CAP] = regwin_read64(w, VTD_REG_CAP);
	r->r[ID_ECAP] = regwin_read64(w, VTD_REG_ECAP);
	if (r->r[ID_VER] == 0xffffffffu || r->r[ID_CAP] == ~0ull)
		return false;
	r->r[ID_GSTS] = regwin_read32(w, VTD_REG_GSTS);
	r->r[ID_RTADDR] = regwin_read64(w, VTD_REG_RTADDR);
	r->r[ID_PMEN] = (vtd_cap_plmr(r->r[ID_CAP]) || vtd_cap_phmr(r->r[ID_CAP])) ? regwin_read32(w, VTD_REG_PMEN) : 0;
	return true;
}

/* What the firmware left on, as names: "translation", "queue",
 * "interrupt-remapping", "protected-regions"; how many. */
static size_t left_on(const struct unit_regs *r, const char *names[4])
{
	size_t n = 0;
	uint32_t gsts = (uint32_t)r->r[ID_GSTS];
	if (gsts == 0xffffffffu)
		return 0;
	if (gsts & VTD_GSTS_TES)
		names[n++] = "translation";
	if (gsts & VTD_GSTS_QIES)
		names[n++] = "queue";
	if (gsts & VTD_GSTS_IRES)
		names[n++] = "interrupt-remapping";
	if (r->r[ID_PMEN] & VTD_PMEN_PRS)
		names[n++] = "protected-regions";
	return n;
}

static void vtd_print_regs(const struct unit_regs *r)
{
	vtd_caps_print((uint32_t)r->r[ID_VER], r->r[ID_CAP], r->r[ID_ECAP],
		       platform && platform->apic_id_bits ? platform->apic_id_bits() : 8);
	const char *on[4];
	size_t n = left_on(r, on);
	char regs[96];
	if (r->r[ID_GSTS] & VTD_GSTS_TES)
		snprintf(regs, sizeof(regs), "root table 0x%llx, %s, GSTS 0x%08x",
			 (unsigned long long)(r->r[ID_RTADDR] & VTD_ROOT_CTP),
			 (r->r[ID_RTADDR] & VTD_RTADDR_TTM) ? "scalable mode" : "legacy mode", (unsigned)r->r[ID_GSTS]);
	else
		snprintf(regs, sizeof(regs), "GSTS 0x%08x", (unsigned)r->r[ID_GSTS]);
	units_print_left_on(on, n, "everything off", regs);
}

static void vtd_unit_info(struct json *j, const struct iommu_unit *u, const void *state, const struct unit_regs *r)
{
	(void)u, (void)state;
	if (r) {
		json_hex(j, "cap", r->r[ID_CAP]);
		json_hex(j, "ecap", r->r[ID_ECAP]);
		/* the translation modes it offers, and those iommon drives */
		struct vtd_caps c;
		const char *names[4];
		vtd_caps_read(r->r[ID_CAP], r->r[ID_ECAP], &c);
		json_strs(j, "modes", names, vtd_modes(&c, names));
		json_strs(j, "modes_driven", names, vtd_modes_driven(&c, names));
		json_strs(j, "firmware_left_on", names, left_on(r, names));
	}
}

/* `acpi dmar`: the DMAR in use, and the device each scope resolves to */
static void vtd_acpi_show(const void *state, const struct pci_list *pci)
{
	const struct dmar *d = state;
	if (!d) {
		printf("  no usable DMAR table ('run acpi.dmar' checks every one)\n");
		return;
	}
	dmar_print(d);
	printf("  device scopes resolved through the bridges:\n");
	for (size_t i = 0; i < d->n; i++) {
		for (size_t k = 0; k < d->s[i].nscopes; k++) {
			const struct dmar_scope *sc = &d->scopes[d->s[i].first_scope + k];
			if (sc->type != DMAR_SCOPE_ENDPOINT && sc->type != DMAR_SCOPE_BRIDGE)
				continue;
			int idx = dmar_scope_device(sc, d->s[i].segment, pci);
			char bdf[16] = "not there";
			if (idx >= 0)
				pci_addr_str(pci->d[idx].addr, bdf, sizeof(bdf));
			printf("    %s at 0x%03x %-8s scope at 0x%03x -> %s\n", dmar_type_name(d->s[i].type),
			       d->s[i].offset, dmar_scope_name(sc->type), sc->offset, bdf);
		}
	}
}

const struct iommu_discovery vtd_discovery = {
	.table = "DMAR",
	.table_checked = true,
	.parse = vtd_table_parse,
	.forget = vtd_table_forget,
	.find = vtd_find,
	.claim = vtd_claim,
	.regs = vtd_found_regs,
	.nregs = ARRAY_SIZE(vtd_found_regs),
	.identity = vtd_identity,
	.print_regs = vtd_print_regs,
	.unit_info = vtd_unit_info,
	.acpi_show = vtd_acpi_show,
};
