/* What a monitor needs from a device tree (fdt.h's fdt_platform_read):
 * the memory nodes, /cpus' timebase, the console UART (/chosen's
 * stdout-path first, else the first ns16550-compatible node), the
 * generic ECAM PCIe host ("pci-host-ecam-generic", Linux's
 * Documentation/devicetree/bindings/pci/host-generic-pci.yaml) with its
 * "bus-range" and "iommu-map" (pci-iommu.txt: rid-base, IOMMU phandle,
 * iommu-base, length), and the RISC-V IOMMUs ("riscv,iommu" platform
 * units, "riscv,pci-iommu" PCI functions: riscv,iommu.yaml). */
#include <stdio.h>
#include <string.h>

#include "fdt.h"

static void memory(struct fdt *f, struct fdt_platform *p)
{
	for (size_t i = 0; i < f->nnodes; i++) {
		const struct fdt_prop *t = fdt_prop(f, (int)i, "device_type");
		if (!t || !fdt_has_string(t, "memory"))
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

static void timebase(struct fdt *f, struct fdt_platform *p)
{
	int cpus = fdt_path(f, "/cpus");
	const struct fdt_prop *t = fdt_prop(f, cpus, "timebase-frequency");
	uint32_t hi, lo;
	if (t && t->len == 8 && fdt_cell(t, 0, &hi) && fdt_cell(t, 1, &lo))
		p->timebase_hz = (uint64_t)hi << 32 | lo;
	else if (t && t->len == 4 && fdt_cell(t, 0, &lo))
		p->timebase_hz = lo;
	else if (cpus >= 0)
		diag_add(&f->diag, DIAG_WARNING, "/cpus has no usable timebase-frequency");
}

static bool is_uart(const struct fdt *f, int node)
{
	const struct fdt_prop *c = fdt_prop(f, node, "compatible");
	return fdt_has_string(c, "ns16550a") || fdt_has_string(c, "ns16550") || fdt_has_string(c, "snps,dw-apb-uart") ||
	       fdt_has_string(c, "arm,pl011");
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
		} else {
			p->uart.chosen = true;
		}
	}
	for (size_t i = 0; node < 0 && i < f->nnodes; i++)
		if (is_uart(f, (int)i))
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
		if (!plat && !pci)
			continue;
		if (p->niommus == FDT_MAX_IOMMUS) {
			diag_add(&f->diag, DIAG_WARNING, "more than %u RISC-V IOMMUs: the rest left out",
				 FDT_MAX_IOMMUS);
			return;
		}
		typeof(p->iommu[0]) *u = &p->iommu[p->niommus];
		*u = (typeof(*u)){ .node = (int)i, .pci = pci && !plat };
		fdt_cell(fdt_prop(f, (int)i, "phandle"), 0, &u->phandle);
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

static void ecam(struct fdt *f, struct fdt_platform *p)
{
	int node = fdt_compatible(f, -1, "pci-host-ecam-generic");
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
	const struct fdt_prop *m = fdt_prop(f, node, "iommu-map");
	if (m && m->len % 16)
		diag_add(&f->diag, DIAG_WARNING, "%s: iommu-map of %u bytes is not whole entries of 4 cells",
			 f->nodes[node].name, m->len);
	for (size_t k = 0; m && 4 * k + 3 < m->len / 4; k++) {
		uint32_t rid, ph, base, len;
		fdt_cell(m, 4 * k, &rid), fdt_cell(m, 4 * k + 1, &ph), fdt_cell(m, 4 * k + 2, &base),
		    fdt_cell(m, 4 * k + 3, &len);
		if (p->nmap == FDT_MAX_MAP) {
			diag_add(&f->diag, DIAG_WARNING, "more than %u iommu-map entries: the rest left out",
				 FDT_MAX_MAP);
			break;
		}
		if (!len || (uint64_t)rid + len > 0x10000) {
			diag_add(&f->diag, DIAG_WARNING, "iommu-map entry %zu: requester ids 0x%x+0x%x are not 16-bit",
				 k, rid, len);
			continue;
		}
		int idx = -1;
		for (size_t u = 0; u < p->niommus; u++)
			if (p->iommu[u].phandle == ph)
				idx = (int)u;
		if (idx < 0)
			diag_add(&f->diag, DIAG_WARNING, "iommu-map entry %zu names phandle %u, no RISC-V IOMMU", k,
				 ph);
		p->map[p->nmap++] = (typeof(p->map[0])){ rid, base, len, idx };
	}
}

/* Zicbom on the first hart: riscv,isa-extensions naming it, or the
 * riscv,isa string's "_zicbom"; and its block size. */
static void riscv_hart(struct fdt *f, struct fdt_platform *p)
{
	int cpu = fdt_path(f, "/cpus/cpu@0");
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
		p->cbom_block = block;
	else if (has)
		diag_add(&f->diag, DIAG_WARNING, "%s has Zicbom but no usable riscv,cbom-block-size: not used",
			 f->nodes[cpu].name);
	int t = fdt_compatible(f, -1, "sifive,test0");
	uint64_t size;
	if (t >= 0 && (!fdt_reg(f, t, 0, &p->test_finisher, &size) || size < 4))
		p->test_finisher = 0;
}

void fdt_platform_read(struct fdt *f, struct fdt_platform *p)
{
	memset(p, 0, sizeof(*p));
	p->ecam.node = -1;
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
		printf("  timebase   %llu Hz (/cpus timebase-frequency)\n", (unsigned long long)p->timebase_hz);
	if (p->cbom_block)
		printf("  zicbom     %u-byte cache blocks (cpu@0)\n", p->cbom_block);
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
			printf("  iommu      %s: a RISC-V IOMMU PCI function\n", f->nodes[p->iommu[i].node].name);
		else
			printf("  iommu      %s: a RISC-V IOMMU at 0x%llx\n", f->nodes[p->iommu[i].node].name,
			       (unsigned long long)p->iommu[i].base);
	for (size_t i = 0; i < p->nmap; i++)
		printf("  iommu-map  requester ids 0x%04x-0x%04x -> device ids from 0x%x on %s\n", p->map[i].rid_base,
		       p->map[i].rid_base + p->map[i].len - 1, p->map[i].iommu_base,
		       p->map[i].iommu >= 0 ? f->nodes[p->iommu[p->map[i].iommu].node].name : "no RISC-V IOMMU");
	for (size_t i = 0; i < f->diag.n; i++)
		printf("  %s: %s\n", f->diag.msg[i].level == DIAG_ERROR ? "error" : "warning", f->diag.msg[i].text);
}
