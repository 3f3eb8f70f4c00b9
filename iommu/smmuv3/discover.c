/* The SMMUv3 backend's discovery (discover.h). */
#include "discover.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/base/json.h"
#include "core/base/macros.h"
#include "core/monitor/monitor.h"
#include "core/monitor/results.h"
#include "core/tables/acpi.h"
#include "regs.h"

IOMMU_TABLE_STATE(smmuv3_table, struct iort, iort_parse, iort_free)

static void smmuv3_find(struct iommu_units *u, const struct iommu_backend *self, void *state,
			const struct pci_list *pci)
{
	struct iort *t = state;
	(void)pci;
	for (size_t i = 0; t && i < t->nsmmu; i++) {
		const struct iort_smmu *s = &t->smmu[i];
		struct iommu_unit unit = {
			.backend = self,
			.segment = s->segment,
			.base = s->base,
			.src = i,
			.size = IORT_SMMUV3_SPAN,
		};
		snprintf(unit.name, sizeof(unit.name), "smmu%zu", units_of(u, self));
		snprintf(unit.source, sizeof(unit.source), "IORT SMMUv3 node at 0x%zx", s->node_offset);
		if (units_add(u, &unit, &t->diag) < 0)
			break;
	}
}

/* Each device not yet covered gets the SMMUv3 its requester id maps to,
 * if the unit limit let that one in. */
static void smmuv3_claim(struct iommu_units *u, const struct iommu_backend *self, void *state, struct pci_list *pci)
{
	const struct iort *t = state;
	for (size_t i = 0; t && i < pci->n; i++) {
		size_t smmu;
		uint32_t sid;
		if (pci->d[i].iommu >= 0 || !iort_map_rid(t, pci->d[i].addr.seg, pci_rid(pci->d[i].addr), &smmu, &sid))
			continue;
		int unit = units_from(u, self, smmu);
		if (unit >= 0)
			units_cover(u, pci, i, (size_t)unit);
	}
}

/* 6.3: identification, control, queues (EVENTQ's indexes on page 1) */
static const struct iommu_found_reg smmuv3_found_regs[] = {
	{ SMMU_IDR0, 4, "IDR0" },
	{ SMMU_IDR1, 4, "IDR1" },
	{ SMMU_IDR2, 4, "IDR2" },
	{ SMMU_IDR3, 4, "IDR3" },
	{ SMMU_IDR4, 4, "IDR4" },
	{ SMMU_IDR5, 4, "IDR5" },
	{ SMMU_IIDR, 4, "IIDR" },
	{ SMMU_AIDR, 4, "AIDR" },
	{ SMMU_CR0, 4, "CR0" },
	{ SMMU_CR0ACK, 4, "CR0ACK" },
	{ SMMU_CR1, 4, "CR1" },
	{ SMMU_CR2, 4, "CR2" },
	{ SMMU_STATUSR, 4, "STATUSR" },
	{ SMMU_GBPA, 4, "GBPA" },
	{ SMMU_IRQ_CTRL, 4, "IRQ_CTRL" },
	{ SMMU_GERROR, 4, "GERROR" },
	{ SMMU_GERRORN, 4, "GERRORN" },
	{ SMMU_STRTAB_BASE, 8, "STRTAB_BASE" },
	{ SMMU_STRTAB_BASE_CFG, 4, "STRTAB_BASE_CFG" },
	{ SMMU_CMDQ_BASE, 8, "CMDQ_BASE" },
	{ SMMU_CMDQ_PROD, 4, "CMDQ_PROD" },
	{ SMMU_CMDQ_CONS, 4, "CMDQ_CONS" },
	{ SMMU_EVENTQ_BASE, 8, "EVENTQ_BASE" },
	{ SMMU_EVENTQ_PROD, 4, "EVENTQ_PROD" },
	{ SMMU_EVENTQ_CONS, 4, "EVENTQ_CONS" },
};

/* the identity registers, in struct unit_regs: IDR0..5, then AIDR */
#define ID_IDR(n) (n)
#define ID_AIDR 6
#define ID_LEFT 7 /* CR0 (31:0) and GBPA (63:32): what the firmware left on */

/* IHI 0070 6.3.1-6 */
static bool smmuv3_identity(struct regwin *w, struct unit_regs *r)
{
	for (unsigned i = 0; i < 6; i++)
		r->r[ID_IDR(i)] = regwin_read32(w, SMMU_IDR0 + 4u * i);
	r->r[ID_AIDR] = regwin_read32(w, SMMU_AIDR);
	if (r->r[ID_IDR(0)] == 0xffffffffu)
		return false;
	r->r[ID_LEFT] = regwin_read32(w, SMMU_CR0) | (uint64_t)regwin_read32(w, SMMU_GBPA) << 32;
	return true;
}

/* "translation", "command-queue", "event-queue", "gbpa-abort" (GBPA.ABORT with
 * the SMMU off) as the firmware left them; how many. */
static size_t left_on(const struct unit_regs *r, const char *names[4])
{
	size_t n = 0;
	uint32_t cr0 = (uint32_t)r->r[ID_LEFT], gbpa = (uint32_t)(r->r[ID_LEFT] >> 32);
	if (cr0 & CR0_SMMUEN)
		names[n++] = "translation";
	if (cr0 & CR0_CMDQEN)
		names[n++] = "command-queue";
	if (cr0 & CR0_EVENTQEN)
		names[n++] = "event-queue";
	if (!(cr0 & CR0_SMMUEN) && (gbpa & GBPA_ABORT))
		names[n++] = "gbpa-abort";
	return n;
}

/* The SMMU_IDRn fields `iommu` shows (IHI 0070 6.3.1-6), by register and
 * bit position: one-bit features by name when set, wider fields as
 * NAME=value. */
static const struct idr_field {
	const char *name;
	uint8_t idr, lo, width;
} idr_fields[] = {
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

static void smmuv3_print_regs(const struct unit_regs *r)
{
	static const unsigned oas_bits[8] = { 32, 36, 40, 42, 44, 48, 52, 0 };
	for (unsigned reg = 0; reg < 6; reg++) {
		if (reg == 2 || reg == 4)
			continue; /* IDR2 (VATOS) and IDR4 (implementation defined) */
		uint32_t idr = (uint32_t)r->r[ID_IDR(reg)];
		printf("      IDR%u 0x%08x:", reg, idr);
		for (size_t i = 0; i < ARRAY_SIZE(idr_fields); i++) {
			const struct idr_field *f = &idr_fields[i];
			unsigned v = (idr >> f->lo) & ((1u << f->width) - 1);
			if (f->idr != reg || (f->width == 1 && !v))
				continue;
			if (f->width == 1)
				printf(" %s", f->name);
			else
				printf(" %s=%u", f->name, v);
		}
		if (reg == 5)
			printf(" (%u-bit output addresses)", oas_bits[IDR5_OAS(idr)]);
		printf("\n");
	}
	uint32_t aidr = (uint32_t)r->r[ID_AIDR];
	printf("      AIDR 0x%08x: SMMUv%u.%u\n", aidr, ((aidr >> 4) & 0xf) + 3, aidr & 0xf);
	const char *on[4];
	size_t n = left_on(r, on);
	char regs[40];
	snprintf(regs, sizeof(regs), "CR0 0x%x, GBPA 0x%x", (unsigned)r->r[ID_LEFT], (unsigned)(r->r[ID_LEFT] >> 32));
	units_print_left_on(on, n, "everything off, DMA bypassing", regs);
}

static void smmuv3_unit_info(struct json *j, const struct iommu_unit *u, const void *state, const struct unit_regs *r)
{
	static const char *const idr[] = { "idr0", "idr1", "idr2", "idr3", "idr4", "idr5" };
	(void)state;
	json_str(j, "source", u->source);
	for (unsigned k = 0; r && k < 6; k++)
		json_hex(j, idr[k], r->r[ID_IDR(k)]);
	if (r) {
		const char *on[4];
		json_hex(j, "aidr", r->r[ID_AIDR]);
		json_strs(j, "firmware_left_on", on, left_on(r, on));
	}
}

/* the stream id its requester id becomes */
static void smmuv3_device_info(struct json *j, const struct iommu_unit *u, const void *state, const struct pci_dev *d)
{
	size_t smmu;
	uint32_t sid;
	(void)u;
	if (state && iort_map_rid(state, d->addr.seg, pci_rid(d->addr), &smmu, &sid))
		json_hex(j, "stream_id", sid);
}

static void smmuv3_info(const void *state)
{
	const struct iort *t = state;
	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "iort");
	json_u64(&j, "revision", t->revision);
	json_u64(&j, "nodes", t->n);
	json_u64(&j, "smmuv3", t->nsmmu);
	json_u64(&j, "rmr", t->nrmr);
	json_u64(&j, "warnings", t->diag.warnings);
	record_emit(&j);
}

/* `acpi iort`: the IORT in use, and where each PCI function's requester id
 * leads; or, when none was usable, every IORT there decoded with what is
 * wrong. */
static void smmuv3_acpi_show(const void *state, const struct pci_list *pci)
{
	const struct iort *t = state;
	if (t) {
		iort_print(t);
		printf("  requester ids through the root complexes:\n");
		for (size_t i = 0; i < pci->n; i++) {
			const struct pci_dev *d = &pci->d[i];
			char bdf[16];
			size_t smmu;
			uint32_t sid;
			pci_addr_str(d->addr, bdf, sizeof(bdf));
			if (iort_map_rid(t, d->addr.seg, pci_rid(d->addr), &smmu, &sid))
				printf("    %s -> SMMUv3 at 0x%03zx stream id 0x%x\n", bdf, t->smmu[smmu].node_offset,
				       sid);
			else
				printf("    %s -> no SMMUv3 (an ITS only, or not covered)\n", bdf);
		}
		for (size_t r = 0; r < t->nrmr; r++)
			for (size_t k = 0; k < t->rmr[r].nstreams; k++)
				printf("    RMR at 0x%03zx: stream id 0x%x on SMMUv3 at 0x%03zx\n",
				       t->rmr[r].node_offset, t->rmr[r].stream[k].sid,
				       t->smmu[t->rmr[r].stream[k].smmu].node_offset);
		return;
	}
	const struct acpi_header *h = acpi_find(monitor_acpi(), "IORT", 0);
	if (!h)
		printf("  no IORT table\n");
	for (unsigned i = 0; h; h = acpi_find(monitor_acpi(), "IORT", ++i)) {
		struct iort one;
		iort_parse((const uint8_t *)h, h->length, &one);
		printf("  IORT #%u (not used):\n", i);
		iort_print(&one);
		iort_free(&one);
	}
}

const struct iommu_discovery smmuv3_discovery = {
	.table = "IORT",
	.parse = smmuv3_table_parse,
	.forget = smmuv3_table_forget,
	.find = smmuv3_find,
	.claim = smmuv3_claim,
	.regs = smmuv3_found_regs,
	.nregs = ARRAY_SIZE(smmuv3_found_regs),
	.identity = smmuv3_identity,
	.print_regs = smmuv3_print_regs,
	.unit_info = smmuv3_unit_info,
	.device_info = smmuv3_device_info,
	.info = smmuv3_info,
	.acpi_show = smmuv3_acpi_show,
};
