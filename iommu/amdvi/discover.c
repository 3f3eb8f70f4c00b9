/* The AMD-Vi backend's discovery (discover.h). */
#include "discover.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/base/json.h"
#include "core/base/macros.h"
#include "regs.h"

int amdvi_ivrs_alias(const struct ivrs *v, const struct ivrs_block *h, uint16_t devid)
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

IOMMU_TABLE_STATE(amdvi_table, struct ivrs, ivrs_parse, ivrs_free)

static void amdvi_find(struct iommu_units *u, const struct iommu_backend *self, void *state, const struct pci_list *pci)
{
	struct ivrs *v = state;
	(void)pci;
	for (size_t i = 0; v && i < v->n; i++) {
		if (!ivrs_preferred(v, i))
			continue;
		const struct ivrs_block *b = &v->b[i];
		struct iommu_unit unit = {
			.backend = self,
			.segment = b->segment,
			.base = b->base,
			.src = i,
			.size = 0x4000, /* the MMIO register set spans 16 KiB (3.4) */
		};
		for (size_t k = 0; k < b->nentries; k++)
			unit.include_all |= v->e[b->first_entry + k].type == IVHD_ALL;
		snprintf(unit.name, sizeof(unit.name), "amdvi%zu", units_of(u, self));
		snprintf(unit.source, sizeof(unit.source), "IVRS IVHD at 0x%x", b->offset);
		if (units_add(u, &unit, &v->diag) < 0)
			break;
	}
}

/* A device belongs to the first unit of its segment whose IVHD covers its
 * requester id. */
static void amdvi_claim(struct iommu_units *u, const struct iommu_backend *self, void *state, struct pci_list *pci)
{
	const struct ivrs *v = state;
	for (size_t dev = 0; v && dev < pci->n; dev++) {
		const struct pci_dev *d = &pci->d[dev];
		for (size_t i = 0; d->iommu < 0 && i < u->n; i++) {
			const struct iommu_unit *unit = &u->u[i];
			if (unit->backend == self && unit->segment == d->addr.seg &&
			    ivrs_covers(v, &v->b[unit->src], pci_rid(d->addr)))
				units_cover(u, pci, dev, i);
		}
	}
}

static void amdvi_dma_aliases(const struct iommu_unit *u, const void *state, const struct pci_list *pci, size_t i,
			      struct pci_aliases *out)
{
	const struct ivrs *v = state;
	(void)pci, (void)i;
	if (!v)
		return;
	const struct ivrs_block *h = &v->b[u->src];
	for (size_t m = 0, n = out->n; m < n; m++) {
		int al = amdvi_ivrs_alias(v, h, out->a[m].rid);
		if (al >= 0)
			pci_alias_add(out, (uint16_t)al, PCI_ALIAS_FIRMWARE, -1);
	}
}

/* 3.4: the MMIO header, EFR, the ring pointers, status */
static const struct iommu_found_reg amdvi_found_regs[] = {
	{ AMDVI_REG_DEVTAB_BASE, 8, "DevTabBase" },
	{ AMDVI_REG_CMDBUF_BASE, 8, "CmdBufBase" },
	{ AMDVI_REG_EVTLOG_BASE, 8, "EvtLogBase" },
	{ AMDVI_REG_CONTROL, 8, "Control" },
	{ AMDVI_REG_EXCL_BASE, 8, "ExclBase" },
	{ AMDVI_REG_EXCL_LIMIT, 8, "ExclLimit" },
	{ AMDVI_REG_EFR, 8, "EFR" },
	{ AMDVI_REG_CMDBUF_HEAD, 8, "CmdBufHead" },
	{ AMDVI_REG_CMDBUF_TAIL, 8, "CmdBufTail" },
	{ AMDVI_REG_EVTLOG_HEAD, 8, "EvtLogHead" },
	{ AMDVI_REG_EVTLOG_TAIL, 8, "EvtLogTail" },
	{ AMDVI_REG_STATUS, 8, "Status" },
};

/* the identity register, in struct unit_regs */
enum { ID_EFR, ID_CONTROL };

/* EFR, and what the firmware left on (Control): reads only */
static bool amdvi_identity(struct regwin *w, struct unit_regs *r)
{
	r->r[ID_EFR] = regwin_read64(w, AMDVI_REG_EFR);
	r->r[ID_CONTROL] = r->r[ID_EFR] != ~0ull ? regwin_read64(w, AMDVI_REG_CONTROL) : 0;
	return r->r[ID_EFR] != ~0ull;
}

/* "translation", "command-buffer", "event-log" as the firmware left them; how many. */
static size_t left_on(const struct unit_regs *r, const char *names[3])
{
	size_t n = 0;
	uint64_t c = r->r[ID_CONTROL];
	if (c & AMDVI_CTRL_IOMMU_EN)
		names[n++] = "translation";
	if (c & AMDVI_CTRL_CMDBUF_EN)
		names[n++] = "command-buffer";
	if (c & AMDVI_CTRL_EVENT_LOG_EN)
		names[n++] = "event-log";
	return n;
}

static void amdvi_print_regs(const struct unit_regs *r)
{
	uint64_t efr = r->r[ID_EFR];
	printf("      EFR 0x%016llx:%s%s%s%s%s%s%s%s, HATS %u\n", (unsigned long long)efr,
	       efr & AMDVI_EFR_PREF_SUP ? " prefetch" : "", efr & AMDVI_EFR_PPR_SUP ? " PPR" : "",
	       efr & AMDVI_EFR_XT_SUP ? " XT" : "", efr & AMDVI_EFR_NX_SUP ? " NX" : "",
	       efr & AMDVI_EFR_GT_SUP ? " GT" : "", efr & AMDVI_EFR_IA_SUP ? " IA" : "",
	       efr & AMDVI_EFR_GA_SUP ? " GA" : "", efr & AMDVI_EFR_PC_SUP ? " PC" : "", amdvi_efr_hats(efr));
	const char *on[3];
	size_t n = left_on(r, on);
	char regs[40];
	snprintf(regs, sizeof(regs), "Control 0x%llx", (unsigned long long)r->r[ID_CONTROL]);
	units_print_left_on(on, n, "everything off", regs);
}

static void amdvi_unit_info(struct json *j, const struct iommu_unit *u, const void *state, const struct unit_regs *r)
{
	(void)u, (void)state;
	if (r) {
		const char *on[3];
		json_hex(j, "efr", r->r[ID_EFR]);
		json_strs(j, "firmware_left_on", on, left_on(r, on));
	}
}

static void amdvi_acpi_show(const void *state, const struct pci_list *pci)
{
	(void)pci;
	if (!state)
		printf("  no IVRS table\n");
	else
		ivrs_print(state);
}

const struct iommu_discovery amdvi_discovery = {
	.table = "IVRS",
	.table_checked = true,
	.parse = amdvi_table_parse,
	.forget = amdvi_table_forget,
	.find = amdvi_find,
	.claim = amdvi_claim,
	.regs = amdvi_found_regs,
	.nregs = ARRAY_SIZE(amdvi_found_regs),
	.identity = amdvi_identity,
	.print_regs = amdvi_print_regs,
	.unit_info = amdvi_unit_info,
	.dma_aliases = amdvi_dma_aliases,
	.acpi_show = amdvi_acpi_show,
};
