/* Where RISC-V IOMMUs are found on a machine without ACPI (a riscv64
 * server under U-Boot describes itself by a device tree): PCI functions
 * whose BAR 0 holds the registers (the spec's PCIe guidance, "Integrating
 * an IOMMU as a PCIe device", gives the class 0806, but no vendor or
 * device id: only the ids the backend lists are taken, since AMD's IOMMU
 * function has the class too), and the device tree's "riscv,iommu"
 * platform units, each only where its status allows (a node "disabled"
 * may sit where nothing answers: it is said, never read). Which
 * functions a unit covers: the device tree's iommu-map on the ECAM host
 * where there is one (QEMU's virt gives every requester id but the
 * IOMMU's own), else every other function of the unit's segment. An
 * entry of the map that cannot be followed is named at discovery, and
 * the devices it would have covered say so instead of that no unit
 * covers them. Device ids are requester ids: a map that offsets them
 * refuses the unit by name (the driver keys contexts by requester id). Where
 * the firmware gives ACPI, the RIMT (RISC-V IO Mapping Table) names the
 * units instead (a PCIe function by segment and BDF, listed or not, or a
 * platform unit by base) and its root complexes' ID mappings say which
 * requester ids reach which unit; it is preferred to the device tree. */
#include "discover.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/monitor/early.h"
#include "core/monitor/monitor.h"
#include "core/tables/acpi.h"
#include "core/tables/fdt.h"
#include "core/tables/rimt.h"
#include "iommu/machine.h"
#include "rvi.h"

IOMMU_TABLE_STATE(riscv_table, struct rimt, rimt_parse, rimt_free)

static bool listed(const struct iommu_backend *self, const struct pci_dev *d)
{
	for (const struct iommu_pci_id *id = self->pci_ids; id && id->vendor; id++)
		if (id->vendor == d->vendor && id->device == d->device)
			return true;
	return false;
}

/* The RIMT's PCIe IOMMU node naming function `d`, or -1. */
static int rimt_pcie_node(const struct rimt *t, const struct pci_dev *d)
{
	for (size_t k = 0; t && k < t->niommu; k++)
		if ((t->iommu[k].flags & RIMT_IOMMU_PCIE) && t->iommu[k].segment == d->addr.seg &&
		    t->iommu[k].bdf == pci_rid(d->addr))
			return (int)k;
	return -1;
}

static bool rimt_names_base(const struct rimt *t, uint64_t base)
{
	for (size_t k = 0; t && k < t->niommu; k++)
		if (!(t->iommu[k].flags & RIMT_IOMMU_PCIE) && t->iommu[k].base == base)
			return true;
	return false;
}

/* EDK II binds no driver to the IOMMU's PCI function and leaves its
 * memory decoding off (command 0x0000 on QEMU 10.0's riscv-iommu-pci
 * under EDK II 2025.02; U-Boot turns it on): its registers, in BAR 0,
 * then read all ones. The decoding is turned on when the unit is found,
 * and the command register put back as found when the monitor leaves
 * (riscv_release), after the unit's own registers were compared. Never
 * under a replay: its machine is not here. */
static struct {
	struct pci_addr addr;
	uint16_t command;
} undecoded[IOMMU_MAX_UNITS];
static size_t nundecoded;

static void decode_bar0(const struct pci_dev *d)
{
	if (platform->replay || !pci_has_ecam(&machine.cfg, d->addr))
		return;
	for (size_t k = 0; k < nundecoded; k++)
		if (pci_addr_eq(undecoded[k].addr, d->addr))
			return; /* found again (a second discovery): already on */
	uint16_t cmd = pci_read16(&machine.cfg, d->addr, PCI_COMMAND);
	if (cmd == 0xffff || (cmd & PCI_COMMAND_MEMORY) || nundecoded == IOMMU_MAX_UNITS)
		return;
	undecoded[nundecoded].addr = d->addr;
	undecoded[nundecoded++].command = cmd;
	pci_write16(&machine.cfg, d->addr, PCI_COMMAND, (uint16_t)(cmd | PCI_COMMAND_MEMORY));
	char bdf[16];
	pci_addr_str(d->addr, bdf, sizeof(bdf));
	printf("note: %s, a RISC-V IOMMU, did not decode its BAR 0 (command 0x%04x): memory decoding on until exit\n",
	       bdf, cmd);
}

void riscv_release(void)
{
	for (size_t k = 0; k < nundecoded; k++)
		pci_write16(&machine.cfg, undecoded[k].addr, PCI_COMMAND, undecoded[k].command);
	nundecoded = 0;
}

/* The device tree's RISC-V IOMMU node for PCI function `d` (segment 0,
 * under the ECAM host) when its status rules it out: its index in
 * p->off, or -1. */
static int fdt_off_function(const struct fdt_platform *p, const struct pci_dev *d)
{
	for (size_t k = 0; p && d->addr.seg == 0 && k < p->noff; k++)
		if (p->off[k].kind == FDT_IOMMU && p->off[k].rid == (int)pci_rid(d->addr))
			return (int)k;
	return -1;
}

static void riscv_find(struct iommu_units *u, const struct iommu_backend *self, void *state, const struct pci_list *pci)
{
	const struct rimt *t = state;
	const struct fdt_platform *p = early_fdt();
	for (size_t i = 0; pci && i < pci->n; i++) {
		const struct pci_dev *d = &pci->d[i];
		if (!listed(self, d) && rimt_pcie_node(t, d) < 0)
			continue;
		int off = fdt_off_function(p, d);
		if (off >= 0) {
			char bdf[16];
			pci_addr_str(d->addr, bdf, sizeof(bdf));
			printf("  note: %s, a RISC-V IOMMU, is not driven: its device tree node %s: %s\n", bdf,
			       p->off[off].path, p->off[off].why);
			continue;
		}
		struct iommu_unit unit = { .backend = self,
					   .segment = d->addr.seg,
					   .src = i,
					   .own_bar_class = d->class };
		char bdf[16];
		pci_addr_str(d->addr, bdf, sizeof(bdf));
		snprintf(unit.name, sizeof(unit.name), "riscv%zu", units_of(u, self));
		snprintf(unit.source, sizeof(unit.source), "PCI %s BAR 0", bdf);
		for (size_t b = 0; b < d->nbars; b++)
			if (d->bar[b].index == 0 && !d->bar[b].io)
				unit.base = d->bar[b].base, unit.size = d->bar[b].size;
		if (unit.base && unit.size >= RVI_REG_SIZE)
			decode_bar0(d);
		if (units_add(u, &unit, NULL) >= 0 && (!unit.base || unit.size < RVI_REG_SIZE))
			snprintf(u->u[u->n - 1].refused, sizeof(u->u[0].refused),
				 "%s: BAR 0 %s (0x%llx bytes at 0x%llx): no register window to open", bdf,
				 unit.base ? "is smaller than the 4 KiB of registers" : "was not given an address",
				 (unsigned long long)unit.size, (unsigned long long)unit.base);
	}
	for (size_t k = 0; t && k < t->niommu; k++) {
		if (t->iommu[k].flags & RIMT_IOMMU_PCIE)
			continue; /* found above, as a PCI function */
		struct iommu_unit unit = {
			.backend = self, .base = t->iommu[k].base, .size = RVI_REG_SIZE, .src = RISCV_RIMT_SRC + k
		};
		snprintf(unit.name, sizeof(unit.name), "riscv%zu", units_of(u, self));
		snprintf(unit.source, sizeof(unit.source), "RIMT IOMMU node at 0x%x", t->iommu[k].offset);
		units_add(u, &unit, NULL);
	}
	if (!p)
		return;
	for (size_t k = 0; k < p->noff; k++)
		if (p->off[k].kind == FDT_IOMMU && p->off[k].rid < 0)
			printf("  note: the device tree's RISC-V IOMMU %s is not driven: %s\n", p->off[k].path,
			       p->off[k].why);
	for (size_t k = 0; k < p->niommus; k++) {
		if (p->iommu[k].pci || rimt_names_base(t, p->iommu[k].base))
			continue; /* found above, as a PCI function or from the RIMT */
		struct iommu_unit unit = {
			.backend = self, .base = p->iommu[k].base, .size = p->iommu[k].size, .src = RISCV_FDT_SRC + k
		};
		snprintf(unit.name, sizeof(unit.name), "riscv%zu", units_of(u, self));
		snprintf(unit.source, sizeof(unit.source), "device tree riscv,iommu at 0x%llx",
			 (unsigned long long)unit.base);
		units_add(u, &unit, NULL);
	}
}

/* The unit device tree IOMMU `k` is: a PCI unit by its requester id, a
 * platform unit by its index; -1 when none was made of it. */
static int unit_of_fdt(const struct iommu_units *u, const struct iommu_backend *self, const struct pci_list *pci,
		       const struct fdt_platform *p, int k)
{
	if (k < 0)
		return -1;
	if (!p->iommu[k].pci)
		return units_from(u, self, RISCV_FDT_SRC + (size_t)k);
	for (size_t i = 0; i < pci->n; i++)
		if (pci_rid(pci->d[i].addr) == p->iommu[k].rid && pci->d[i].addr.seg == 0) {
			int unit = units_from(u, self, i);
			if (unit >= 0)
				return unit;
		}
	return -1;
}

/* The unit RIMT IOMMU node `k` is (-1: none was made of it). */
static int unit_of_rimt(const struct iommu_units *u, const struct iommu_backend *self, const struct pci_list *pci,
			const struct rimt *t, size_t k)
{
	if (!(t->iommu[k].flags & RIMT_IOMMU_PCIE))
		return units_from(u, self, RISCV_RIMT_SRC + k);
	for (size_t i = 0; i < pci->n; i++)
		if (pci->d[i].addr.seg == t->iommu[k].segment && pci_rid(pci->d[i].addr) == t->iommu[k].bdf)
			return units_from(u, self, i);
	return -1;
}

/* Coverage by the RIMT's root complex mappings; a device id other than
 * the requester id refuses the unit by name, as the device tree's does. */
static void claim_rimt(struct iommu_units *u, const struct iommu_backend *self, const struct rimt *t,
		       struct pci_list *pci)
{
	for (size_t i = 0; i < pci->n; i++) {
		struct pci_dev *d = &pci->d[i];
		size_t k;
		uint32_t id;
		uint16_t rid = pci_rid(d->addr);
		if (d->iommu >= 0 || listed(self, d) || rimt_pcie_node(t, d) >= 0 ||
		    !rimt_map_rid(t, d->addr.seg, rid, &k, &id))
			continue;
		int unit = unit_of_rimt(u, self, pci, t, k);
		if (unit < 0)
			continue;
		if (id == rid) {
			units_cover(u, pci, i, (size_t)unit);
		} else if (!u->u[unit].refused[0]) {
			char bdf[16];
			pci_addr_str(d->addr, bdf, sizeof(bdf));
			snprintf(u->u[unit].refused, sizeof(u->u[0].refused),
				 "the RIMT gives %s (requester id 0x%04x) device id 0x%x: an offset the driver does "
				 "not apply (it keys contexts by requester id)",
				 bdf, rid, id);
		}
	}
}

/* What the device tree's iommu-map gives no RISC-V unit, said at
 * discovery once and kept for the devices there (units_missing): the
 * map or an entry that cannot be followed, an entry leading to another
 * kind of IOMMU or to a unit not made. Without a map, a RISC-V IOMMU
 * node ruled out by its status is why its segment's devices have none. */
static void fdt_missing(struct iommu_units *u, const struct iommu_backend *self, const struct pci_list *pci,
			const struct fdt_platform *p)
{
	uint16_t mask = (uint16_t)p->map_mask;
	if (!p->has_map) {
		for (size_t k = 0; k < p->noff; k++)
			if (p->off[k].kind == FDT_IOMMU)
				units_missing(u, 0, 0xffff, 0, 0xffff,
					      "the device tree's RISC-V IOMMU %s is not driven: %s", p->off[k].path,
					      p->off[k].why);
		return;
	}
	if (p->map_bad[0]) {
		printf("  warning: the device tree's iommu-map: %s (`fdt` shows it)\n", p->map_bad);
		units_missing(u, 0, 0xffff, 0, 0xffff, "the device tree's iommu-map: %s", p->map_bad);
		return;
	}
	for (size_t k = 0; k < p->nmap; k++) {
		const struct fdt_map_entry *e = &p->map[k];
		uint32_t last = e->len ? e->rid_base + e->len - 1 : 0;
		if (last > 0xffff)
			last = 0xffff;
		if (e->bad[0])
			printf("  warning: the device tree's iommu-map entry %zu (requester ids 0x%04x+0x%x) is not "
			       "used: %s (`fdt` shows the map)\n",
			       k, e->rid_base, e->len, e->bad);
		if (!e->len || e->rid_base > 0xffff)
			continue; /* no requester id to say it of */
		if (e->bad[0])
			units_missing(u, 0, mask, (uint16_t)e->rid_base, (uint16_t)last,
				      "the device tree's iommu-map entry %zu is not used: %s", k, e->bad);
		else if (e->iommu < 0)
			units_missing(u, 0, mask, (uint16_t)e->rid_base, (uint16_t)last,
				      "the device tree's iommu-map puts it behind %s, which iommon does not find "
				      "through a device tree",
				      e->target);
		else if (unit_of_fdt(u, self, pci, p, e->iommu) < 0)
			units_missing(u, 0, mask, (uint16_t)e->rid_base, (uint16_t)last,
				      "the device tree's iommu-map puts it behind %s, %s", e->target,
				      p->iommu[e->iommu].pci ? "a PCI function not found on the bus"
							     : "of which no unit was made");
	}
}

/* The iommu-map entry requester id `rid` follows (after the mask): the
 * first usable one holding it, or -1. */
static int fdt_map_entry(const struct fdt_platform *p, uint16_t rid)
{
	uint32_t id = rid & p->map_mask;
	for (size_t m = 0; !p->map_bad[0] && m < p->nmap; m++)
		if (!p->map[m].bad[0] && id >= p->map[m].rid_base && id - p->map[m].rid_base < p->map[m].len)
			return (int)m;
	return -1;
}

static void riscv_claim(struct iommu_units *u, const struct iommu_backend *self, void *state, struct pci_list *pci)
{
	if (state && ((const struct rimt *)state)->nsrc) {
		if (units_of(u, self))
			claim_rimt(u, self, state, pci);
		return;
	}
	const struct fdt_platform *p = early_fdt();
	if (p)
		fdt_missing(u, self, pci, p);
	if (!units_of(u, self))
		return;
	bool mapped = p && p->has_map;
	for (size_t i = 0; i < pci->n; i++) {
		struct pci_dev *d = &pci->d[i];
		if (d->iommu >= 0 || listed(self, d))
			continue; /* covered already, or an IOMMU itself */
		uint16_t rid = pci_rid(d->addr);
		int unit = -1, m = -1;
		if (mapped) {
			m = d->addr.seg == 0 ? fdt_map_entry(p, rid) : -1;
			if (m >= 0)
				unit = unit_of_fdt(u, self, pci, p, p->map[m].iommu);
		} else {
			for (size_t k = 0; k < u->n && unit < 0; k++)
				if (u->u[k].backend == self && u->u[k].segment == d->addr.seg)
					unit = (int)k;
		}
		if (unit < 0)
			continue;
		units_cover(u, pci, i, (size_t)unit);
		/* device ids other than the requester ids refuse the unit by name */
		uint32_t id = m >= 0 ? (rid & p->map_mask) - p->map[m].rid_base + p->map[m].iommu_base : rid;
		if (id != rid && !u->u[unit].refused[0]) {
			char bdf[16], mask[40] = "";
			pci_addr_str(d->addr, bdf, sizeof(bdf));
			if ((rid & p->map_mask) != rid)
				snprintf(mask, sizeof(mask), " (iommu-map-mask 0x%x)", p->map_mask);
			snprintf(u->u[unit].refused, sizeof(u->u[0].refused),
				 "the device tree's iommu-map gives %s (requester id 0x%04x) device id 0x%x%s: an "
				 "offset the driver does not apply (it keys contexts by requester id)",
				 bdf, rid, id, mask);
		}
	}
}

/* 5.1: what take-over records first, and the identity (capabilities) */
static const struct iommu_found_reg riscv_found_regs[] = {
	{ RVI_REG_CAPS, 8, "capabilities" }, { RVI_REG_FCTL, 4, "fctl" },   { RVI_REG_DDTP, 8, "ddtp" },
	{ RVI_REG_CQB, 8, "cqb" },	     { RVI_REG_CQH, 4, "cqh" },	    { RVI_REG_CQT, 4, "cqt" },
	{ RVI_REG_FQB, 8, "fqb" },	     { RVI_REG_FQH, 4, "fqh" },	    { RVI_REG_FQT, 4, "fqt" },
	{ RVI_REG_CQCSR, 4, "cqcsr" },	     { RVI_REG_FQCSR, 4, "fqcsr" }, { RVI_REG_IPSR, 4, "ipsr" },
	{ RVI_REG_ICVEC, 8, "icvec" },
};

static bool riscv_identity(struct regwin *w, struct unit_regs *r)
{
	r->r[0] = regwin_read64(w, RVI_REG_CAPS);
	r->r[1] = regwin_read64(w, RVI_REG_DDTP);
	return r->r[0] != ~0ull;
}

static void riscv_print_regs(const struct unit_regs *r)
{
	uint64_t c = r->r[0];
	unsigned v = (unsigned)RVI_CAP_VERSION(c);
	printf("    capabilities 0x%llx: spec %u.%u, PAS %u bits,%s%s%s%s%s%s%s%s%s; ddtp 0x%llx\n",
	       (unsigned long long)c, v >> 4, v & 15, (unsigned)RVI_CAP_PAS(c), c & RVI_CAP_SV39 ? " Sv39" : "",
	       c & RVI_CAP_SV48 ? " Sv48" : "", c & RVI_CAP_SV57 ? " Sv57" : "", c & RVI_CAP_SV39X4 ? " Sv39x4" : "",
	       c & RVI_CAP_MSI_FLAT ? " MSI flat" : "", c & RVI_CAP_MSI_MRIF ? " MRIF" : "",
	       c & RVI_CAP_AMO_HWAD ? " A/D" : "", c & RVI_CAP_ATS ? " ATS" : "", c & RVI_CAP_DBG ? " debug" : "",
	       (unsigned long long)r->r[1]);
}

/* `acpi rimt`: the RIMT in use and where each function's requester id
 * leads; or, when none was usable, every RIMT there decoded. */
static void riscv_acpi_show(const void *state, const struct pci_list *pci)
{
	const struct rimt *t = state;
	if (t) {
		rimt_print(t);
		printf("  requester ids through the root complexes:\n");
		for (size_t i = 0; i < pci->n; i++) {
			char bdf[16];
			size_t k;
			uint32_t id;
			pci_addr_str(pci->d[i].addr, bdf, sizeof(bdf));
			if (rimt_map_rid(t, pci->d[i].addr.seg, pci_rid(pci->d[i].addr), &k, &id))
				printf("    %s -> IOMMU at 0x%03x device id 0x%x\n", bdf, t->iommu[k].offset, id);
			else
				printf("    %s -> no IOMMU\n", bdf);
		}
		return;
	}
	const struct acpi_header *h = acpi_find(monitor_acpi(), "RIMT", 0);
	if (!h)
		printf("  no RIMT table\n");
	for (unsigned i = 0; h; h = acpi_find(monitor_acpi(), "RIMT", ++i)) {
		static struct rimt one;
		rimt_parse((const uint8_t *)h, h->length, &one);
		printf("  RIMT #%u (not used):\n", i);
		rimt_print(&one);
		rimt_free(&one);
	}
}

const struct iommu_discovery riscv_discovery = {
	.table = "RIMT",
	.parse = riscv_table_parse,
	.forget = riscv_table_forget,
	.acpi_show = riscv_acpi_show,
	.find = riscv_find,
	.claim = riscv_claim,
	.regs = riscv_found_regs,
	.nregs = ARRAY_SIZE(riscv_found_regs),
	.identity = riscv_identity,
	.print_regs = riscv_print_regs,
};
