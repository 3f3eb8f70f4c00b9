/* What a monitor needs from a device tree (fdt.h's fdt_platform_read):
 * the memory nodes, the timebase (/cpus', else the first usable hart's),
 * the console UART (/chosen's stdout-path first, else the first
 * ns16550-compatible node), the generic ECAM PCIe host
 * ("pci-host-ecam-generic", Linux's
 * Documentation/devicetree/bindings/pci/host-generic-pci.yaml) with its
 * "bus-range" and "iommu-map" (pci-iommu.yaml: rid-base, IOMMU phandle,
 * iommu-base, length, after "iommu-map-mask"), and the RISC-V IOMMUs
 * ("riscv,iommu" platform units, "riscv,pci-iommu" PCI functions:
 * riscv,iommu.yaml). Every one only where its status, and its parents',
 * allows (fdt_usable): SoC trees carry nodes for blocks that are off,
 * fused out or kept by another agent, and the registers of such a block
 * may answer nothing. */
#include <stdio.h>
#include <string.h>

#include "fdt.h"

static const char *const kind_name[] = {
	[FDT_MEMORY] = "memory",     [FDT_CPU] = "a hart",	     [FDT_UART] = "a UART",
	[FDT_ECAM] = "an ECAM host", [FDT_IOMMU] = "a RISC-V IOMMU", [FDT_FINISHER] = "a test finisher",
};

static bool is_uart(const struct fdt *f, int node)
{
	const struct fdt_prop *c = fdt_prop(f, node, "compatible");
	return fdt_has_string(c, "ns16550a") || fdt_has_string(c, "ns16550") || fdt_has_string(c, "snps,dw-apb-uart") ||
	       fdt_has_string(c, "arm,pl011");
}

static bool is_riscv_iommu(const struct fdt *f, int node)
{
	const struct fdt_prop *c = fdt_prop(f, node, "compatible");
	return fdt_has_string(c, "riscv,iommu") || fdt_has_string(c, "riscv,pci-iommu");
}

/* A hart: a child of /cpus named cpu or cpu@N, or with device_type "cpu"
 * (3.8: not cpu-map and the like). */
static bool is_cpu(const struct fdt *f, int node, int cpus)
{
	const char *name = f->nodes[node].name;
	return cpus >= 0 && f->nodes[node].parent == cpus &&
	       (strcmp(name, "cpu") == 0 || strncmp(name, "cpu@", 4) == 0 ||
		fdt_has_string(fdt_prop(f, node, "device_type"), "cpu"));
}

/* Which of the kinds the monitor reads `node` is, or -1. */
static int kind_of(const struct fdt *f, int node, int cpus)
{
	if (fdt_has_string(fdt_prop(f, node, "device_type"), "memory"))
		return FDT_MEMORY;
	if (is_cpu(f, node, cpus))
		return FDT_CPU;
	if (is_uart(f, node))
		return FDT_UART;
	const struct fdt_prop *c = fdt_prop(f, node, "compatible");
	if (fdt_has_string(c, "pci-host-ecam-generic"))
		return FDT_ECAM;
	if (is_riscv_iommu(f, node))
		return FDT_IOMMU;
	if (fdt_has_string(c, "sifive,test0"))
		return FDT_FINISHER;
	return -1;
}

/* Every node of those kinds that its status rules out, listed once. */
static void ruled_out(struct fdt *f, struct fdt_platform *p)
{
	int cpus = fdt_path(f, "/cpus");
	size_t more = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		int kind = kind_of(f, (int)i, cpus);
		char why[96];
		if (kind < 0 || fdt_usable(f, (int)i, why, sizeof(why)))
			continue;
		if (p->noff == FDT_MAX_OFF) {
			more++;
			continue;
		}
		typeof(p->off[0]) *o = &p->off[p->noff++];
		o->kind = (enum fdt_kind)kind;
		o->rid = -1;
		fdt_node_path(f, (int)i, o->path, sizeof(o->path));
		snprintf(o->why, sizeof(o->why), "%s", why);
		uint32_t hi;
		if (kind == FDT_IOMMU && fdt_has_string(fdt_prop(f, (int)i, "compatible"), "riscv,pci-iommu") &&
		    !fdt_has_string(fdt_prop(f, (int)i, "compatible"), "riscv,iommu") &&
		    fdt_cell(fdt_prop(f, (int)i, "reg"), 0, &hi))
			o->rid = (int)((hi >> 8) & 0xffff);
	}
	if (more)
		diag_add(&f->diag, DIAG_WARNING, "%zu more nodes ruled out by their status than the %u listed", more,
			 FDT_MAX_OFF);
}

static void memory(struct fdt *f, struct fdt_platform *p)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct fdt_prop *t = fdt_prop(f, (int)i, "device_type");
		if (!t || !fdt_has_string(t, "memory") || !fdt_usable(f, (int)i, NULL, 0))
			continue;
		uint64_t base, size;
		for (size_t k = 0; fdt_reg(f, (int)i, k, &base, &size); k++) {
			if (base + size < base) {
				diag_add(&f->diag, DIAG_WARNING, "%s: reg %zu wraps past 2^64: left out",
					 f->nodes[i].name, k);
				continue;
			}
			if (p->nmemory == FDT_MAX_MEMORY) {
				diag_add(&f->diag, DIAG_WARNING, "more than %u memory ranges: the rest left out",
					 FDT_MAX_MEMORY);
				return;
			}
			if (size)
				p->memory[p->nmemory].base = base, p->memory[p->nmemory++].size = size;
		}
	}
}

/* The first hart whose status allows it, or -1. A disabled hart may be
 * another kind of core (the SiFive FU540's hart 0, an E51 without
 * S-mode): its ISA says nothing of the one the monitor runs on. */
static int first_hart(const struct fdt *f)
{
	int cpus = fdt_path(f, "/cpus");
	for (size_t i = 0; cpus >= 0 && i < f->nnodes; i++)
		if (is_cpu(f, (int)i, cpus) && fdt_usable(f, (int)i, NULL, 0))
			return (int)i;
	return -1;
}

/* A frequency of one cell or two (3.7, 3.8: timebase-frequency). */
static bool frequency(const struct fdt_prop *t, uint64_t *hz)
{
	uint32_t hi, lo;
	if (t && t->len == 8 && fdt_cell(t, 0, &hi) && fdt_cell(t, 1, &lo))
		*hz = (uint64_t)hi << 32 | lo;
	else if (t && t->len == 4 && fdt_cell(t, 0, &lo))
		*hz = lo;
	else
		return false;
	return true;
}

/* /cpus holds it when every hart runs at the same rate; else each hart
 * does (Devicetree Specification v0.4, 3.8.1). */
static void timebase(struct fdt *f, struct fdt_platform *p)
{
	int cpus = fdt_path(f, "/cpus");
	if (!frequency(fdt_prop(f, cpus, "timebase-frequency"), &p->timebase_hz) &&
	    !frequency(fdt_prop(f, first_hart(f), "timebase-frequency"), &p->timebase_hz) && cpus >= 0)
		diag_add(&f->diag, DIAG_WARNING, "neither /cpus nor its first usable hart has a timebase-frequency");
}

static void uart(struct fdt *f, struct fdt_platform *p)
{
	int node = -1;
	const struct fdt_prop *sp = fdt_prop(f, fdt_path(f, "/chosen"), "stdout-path");
	if (sp && sp->len && strnlen((const char *)sp->val, sp->len) < sp->len) {
		char path[128];
		snprintf(path, sizeof(path), "%.*s", (int)strcspn((const char *)sp->val, ":"), (const char *)sp->val);
		node = fdt_path(f, path);
		if (node < 0 || !is_uart(f, node)) {
			diag_add(&f->diag, DIAG_WARNING, "/chosen stdout-path '%.60s' names no UART iommon drives",
				 path);
			node = -1;
		} else if (!fdt_usable(f, node, NULL, 0)) {
			node = -1; /* listed among the nodes ruled out */
		} else {
			p->uart.chosen = true;
		}
	}
	for (size_t i = 0; node < 0 && i < f->nnodes; i++)
		if (is_uart(f, (int)i) && fdt_usable(f, (int)i, NULL, 0))
			node = (int)i;
	if (node < 0 || !fdt_reg(f, node, 0, &p->uart.base, &p->uart.size))
		return;
	p->uart.found = true;
	p->uart.pl011 = fdt_has_string(fdt_prop(f, node, "compatible"), "arm,pl011");
	uint32_t v;
	if (fdt_cell(fdt_prop(f, node, "clock-frequency"), 0, &v))
		p->uart.clock_hz = v;
	if (fdt_cell(fdt_prop(f, node, "reg-shift"), 0, &v))
		p->uart.reg_shift = v < 4 ? v : 0;
}

static void iommus(struct fdt *f, struct fdt_platform *p)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct fdt_prop *c = fdt_prop(f, (int)i, "compatible");
		bool plat = fdt_has_string(c, "riscv,iommu"), pci = fdt_has_string(c, "riscv,pci-iommu");
		if ((!plat && !pci) || !fdt_usable(f, (int)i, NULL, 0))
			continue;
		if (p->niommus == FDT_MAX_IOMMUS) {
			diag_add(&f->diag, DIAG_WARNING, "more than %u RISC-V IOMMUs: the rest left out",
				 FDT_MAX_IOMMUS);
			return;
		}
		typeof(p->iommu[0]) *u = &p->iommu[p->niommus];
		*u = (typeof(*u)){ .node = (int)i, .pci = pci && !plat };
		fdt_cell(fdt_prop(f, (int)i, "phandle"), 0, &u->phandle);
		fdt_node_path(f, (int)i, u->path, sizeof(u->path));
		/* a PCI function's reg is a PCI address (its BAR is the PCI
		 * core's to find); a platform unit's is its register window */
		uint32_t hi;
		if (u->pci && fdt_cell(fdt_prop(f, (int)i, "reg"), 0, &hi))
			u->rid = (hi >> 8) & 0xffff; /* phys.hi: bus 23:16, device 15:11, function 10:8 */
		if (!u->pci && (!fdt_reg(f, (int)i, 0, &u->base, &u->size) || !u->size)) {
			diag_add(&f->diag, DIAG_WARNING, "%s: a RISC-V IOMMU without a usable reg: left out",
				 f->nodes[i].name);
			continue;
		}
		p->niommus++;
	}
}

/* Where iommu-map entry `e`'s phandle leads, checked as pci-iommu.yaml
 * and the generic IOMMU binding (iommu.txt) read: a node, usable, an
 * IOMMU (it has #iommu-cells), one whose specifier is the one cell the
 * entry's iommu-base gives. A RISC-V IOMMU is found among p->iommu; an
 * IOMMU of another kind is named and not a defect (its devices are not
 * a RISC-V unit's). */
static void map_target(const struct fdt *f, const struct fdt_platform *p, uint32_t ph, struct fdt_map_entry *e)
{
	int node = fdt_phandle(f, ph);
	char why[96], path[FDT_PATH];
	if (node < 0) {
		snprintf(e->bad, sizeof(e->bad), "phandle 0x%x leads to no node", ph);
		return;
	}
	fdt_node_path(f, node, path, sizeof(path));
	snprintf(e->target, sizeof(e->target), "%s", path);
	if (!fdt_usable(f, node, why, sizeof(why))) {
		snprintf(e->bad, sizeof(e->bad), "phandle 0x%x leads to %s: %s", ph, path, why);
		return;
	}
	bool riscv = is_riscv_iommu(f, node);
	uint32_t cells;
	bool has_cells = fdt_cell(fdt_prop(f, node, "#iommu-cells"), 0, &cells);
	const struct fdt_prop *c = fdt_prop(f, node, "compatible");
	const char *compat = c && c->len && strnlen((const char *)c->val, c->len) < c->len ? (const char *)c->val : "";
	if (!riscv && !has_cells) {
		snprintf(e->bad, sizeof(e->bad), "phandle 0x%x leads to %s%s%s%s, not an IOMMU (no #iommu-cells)", ph,
			 path, compat[0] ? " (" : "", compat, compat[0] ? ")" : "");
		return;
	}
	if (!has_cells || cells != 1) {
		char n[16] = "none";
		if (has_cells)
			snprintf(n, sizeof(n), "%u", cells);
		snprintf(e->bad, sizeof(e->bad),
			 "%s has #iommu-cells %s: an iommu-map entry gives its IOMMU one specifier cell "
			 "(iommu-base)",
			 path, n);
		return;
	}
	if (!riscv) {
		snprintf(e->target, sizeof(e->target), "%s (%.30s)", path, compat);
		return;
	}
	for (size_t u = 0; u < p->niommus; u++)
		if (p->iommu[u].node == node)
			e->iommu = (int)u;
	if (e->iommu < 0)
		snprintf(e->bad, sizeof(e->bad), "phandle 0x%x leads to %s, a RISC-V IOMMU left out (%s)", ph, path,
			 p->niommus == FDT_MAX_IOMMUS ? "more than the units kept" : "no usable reg");
}

/* The host's iommu-map, each entry checked; one that cannot be followed
 * is kept with why, so that the devices it would have given a unit say
 * so. */
static void iommu_map(struct fdt *f, struct fdt_platform *p, int node)
{
	const struct fdt_prop *m = fdt_prop(f, node, "iommu-map"), *mask = fdt_prop(f, node, "iommu-map-mask");
	p->map_mask = 0xffffffffu;
	if (!m)
		return;
	p->has_map = true;
	if (mask && (mask->len != 4 || !fdt_cell(mask, 0, &p->map_mask))) {
		snprintf(p->map_bad, sizeof(p->map_bad),
			 "iommu-map-mask of %u bytes is not one cell: the map is not read", mask->len);
		return;
	}
	if (!m->len || m->len % 16) {
		snprintf(p->map_bad, sizeof(p->map_bad),
			 "iommu-map of %u bytes is not whole entries of 4 cells (rid-base, phandle, iommu-base, "
			 "length): not read",
			 m->len);
		return;
	}
	for (size_t k = 0; k < m->len / 16; k++) {
		if (p->nmap == FDT_MAX_MAP) {
			diag_add(&f->diag, DIAG_WARNING, "more than %u iommu-map entries: the rest left out",
				 FDT_MAX_MAP);
			return;
		}
		uint32_t rid, ph, base, len;
		fdt_cell(m, 4 * k, &rid), fdt_cell(m, 4 * k + 1, &ph), fdt_cell(m, 4 * k + 2, &base),
		    fdt_cell(m, 4 * k + 3, &len);
		struct fdt_map_entry *e = &p->map[p->nmap++];
		*e = (typeof(*e)){ .rid_base = rid, .iommu_base = base, .len = len, .iommu = -1 };
		if (!len) {
			snprintf(e->bad, sizeof(e->bad), "length 0: it covers no requester id");
			continue;
		}
		if ((uint64_t)rid + len > 0x10000) {
			snprintf(e->bad, sizeof(e->bad), "requester ids 0x%x+0x%x run past 0xffff", rid, len);
			continue;
		}
		if (rid & ~p->map_mask) {
			snprintf(e->bad, sizeof(e->bad),
				 "rid-base 0x%x has bits iommu-map-mask 0x%x clears: no masked requester id reaches "
				 "it",
				 rid, p->map_mask);
			continue;
		}
		/* the first entry that matches an id is the one read: a later
		 * one over the same ids is a defect, not a second route */
		for (size_t j = 0; j + 1 < p->nmap && !e->bad[0]; j++)
			if (!p->map[j].bad[0] && rid < p->map[j].rid_base + p->map[j].len &&
			    p->map[j].rid_base < rid + len)
				snprintf(e->bad, sizeof(e->bad),
					 "requester ids 0x%04x-0x%04x overlap entry %zu's (0x%04x-0x%04x)", rid,
					 rid + len - 1, j, p->map[j].rid_base, p->map[j].rid_base + p->map[j].len - 1);
		if (!e->bad[0])
			map_target(f, p, ph, e);
	}
}

static void ecam(struct fdt *f, struct fdt_platform *p)
{
	int node = -1;
	do
		node = fdt_compatible(f, node, "pci-host-ecam-generic");
	while (node >= 0 && !fdt_usable(f, node, NULL, 0));
	if (node < 0)
		return;
	if (!fdt_reg(f, node, 0, &p->ecam.base, &p->ecam.size) || !p->ecam.size) {
		diag_add(&f->diag, DIAG_WARNING, "%s: an ECAM host without a usable reg", f->nodes[node].name);
		return;
	}
	p->ecam.found = true;
	p->ecam.node = node;
	p->ecam.bus_start = 0, p->ecam.bus_end = 255;
	uint32_t a, b;
	const struct fdt_prop *br = fdt_prop(f, node, "bus-range");
	if (br && fdt_cell(br, 0, &a) && fdt_cell(br, 1, &b)) {
		if (a <= b && b <= 255)
			p->ecam.bus_start = a, p->ecam.bus_end = b;
		else
			diag_add(&f->diag, DIAG_WARNING, "%s: bus-range %u-%u is not a range of buses: 0-255 used",
				 f->nodes[node].name, a, b);
	}
	/* the window holds 1 MiB per bus */
	uint64_t need = (uint64_t)(p->ecam.bus_end - p->ecam.bus_start + 1) << 20;
	if (p->ecam.size < need)
		diag_add(&f->diag, DIAG_WARNING, "%s: ECAM window of 0x%llx bytes is short of buses %u-%u",
			 f->nodes[node].name, (unsigned long long)p->ecam.size, p->ecam.bus_start, p->ecam.bus_end);
	iommu_map(f, p, node);
}

/* Zicbom on the first usable hart: riscv,isa-extensions naming it, or
 * the riscv,isa string's "_zicbom"; and its block size. */
static void riscv_hart(struct fdt *f, struct fdt_platform *p)
{
	int t = -1;
	do
		t = fdt_compatible(f, t, "sifive,test0");
	while (t >= 0 && !fdt_usable(f, t, NULL, 0));
	uint64_t size;
	if (t >= 0 && (!fdt_reg(f, t, 0, &p->test_finisher, &size) || size < 4))
		p->test_finisher = 0;
	int cpu = first_hart(f);
	if (cpu < 0)
		return;
	const struct fdt_prop *isa = fdt_prop(f, cpu, "riscv,isa"), *ext = fdt_prop(f, cpu, "riscv,isa-extensions");
	bool has = ext && fdt_has_string(ext, "zicbom");
	if (!has && isa && isa->len && memchr(isa->val, 0, isa->len))
		for (const char *z = (const char *)isa->val; !has && (z = strstr(z, "_zicbom")) != NULL; z++)
			has = z[7] == '\0' || z[7] == '_'; /* the whole name, not a longer one */
	uint32_t block = 0;
	const struct fdt_prop *bs = fdt_prop(f, cpu, "riscv,cbom-block-size");
	if (has && bs && fdt_cell(bs, 0, &block) && block >= 16 && block <= 4096 && !(block & (block - 1)))
		p->cbom_block = block, p->cbom_hart = cpu;
	else if (has)
		diag_add(&f->diag, DIAG_WARNING, "%s has Zicbom but no usable riscv,cbom-block-size: not used",
			 f->nodes[cpu].name);
}

void fdt_platform_read(struct fdt *f, struct fdt_platform *p)
{
	memset(p, 0, sizeof(*p));
	p->ecam.node = -1;
	p->map_mask = 0xffffffffu;
	if (!f->nnodes)
		return;
	ruled_out(f, p);
	memory(f, p);
	timebase(f, p);
	riscv_hart(f, p);
	uart(f, p);
	iommus(f, p);
	ecam(f, p);
}

void fdt_platform_print(const struct fdt *f, const struct fdt_platform *p)
{
	printf("  device tree: version %u, %zu nodes, %zu properties, %zu memory reservations\n", f->version, f->nnodes,
	       f->nprops, f->nrsv);
	for (size_t i = 0; i < p->nmemory; i++)
		printf("  memory     0x%llx-0x%llx\n", (unsigned long long)p->memory[i].base,
		       (unsigned long long)(p->memory[i].base + p->memory[i].size - 1));
	if (p->timebase_hz)
		printf("  timebase   %llu Hz (timebase-frequency)\n", (unsigned long long)p->timebase_hz);
	if (p->cbom_block)
		printf("  zicbom     %u-byte cache blocks (%s)\n", p->cbom_block, f->nodes[p->cbom_hart].name);
	if (p->test_finisher)
		printf("  finisher   sifive,test0 at 0x%llx\n", (unsigned long long)p->test_finisher);
	if (p->uart.found)
		printf("  uart       %s at 0x%llx%s, clock %u Hz\n", p->uart.pl011 ? "pl011" : "16550",
		       (unsigned long long)p->uart.base, p->uart.chosen ? " (/chosen stdout-path)" : "",
		       p->uart.clock_hz);
	if (p->ecam.found)
		printf("  pcie       ECAM at 0x%llx (0x%llx bytes), buses %u-%u\n", (unsigned long long)p->ecam.base,
		       (unsigned long long)p->ecam.size, p->ecam.bus_start, p->ecam.bus_end);
	for (size_t i = 0; i < p->niommus; i++)
		if (p->iommu[i].pci)
			printf("  iommu      %s: a RISC-V IOMMU PCI function\n", p->iommu[i].path);
		else
			printf("  iommu      %s: a RISC-V IOMMU at 0x%llx\n", p->iommu[i].path,
			       (unsigned long long)p->iommu[i].base);
	for (size_t i = 0; i < p->noff; i++)
		printf("  not used   %s (%s): %s\n", p->off[i].path, kind_name[p->off[i].kind], p->off[i].why);
	if (p->map_bad[0])
		printf("  iommu-map  not read: %s\n", p->map_bad);
	else if (p->has_map && p->map_mask != 0xffffffffu)
		printf("  iommu-map  mask 0x%x, applied to each requester id first\n", p->map_mask);
	for (size_t i = 0; i < p->nmap; i++) {
		const struct fdt_map_entry *e = &p->map[i];
		if (e->bad[0])
			printf("  iommu-map  entry %zu, requester ids 0x%04x+0x%x: not used: %s\n", i, e->rid_base,
			       e->len, e->bad);
		else
			printf("  iommu-map  requester ids 0x%04x-0x%04x -> device ids from 0x%x on %s\n", e->rid_base,
			       e->rid_base + e->len - 1, e->iommu_base, e->target);
	}
	for (size_t i = 0; i < f->diag.n; i++)
		printf("  %s: %s\n", f->diag.msg[i].level == DIAG_ERROR ? "error" : "warning", f->diag.msg[i].text);
}
