#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/claims.h"
#include "core/base/number.h"
#include "core/base/platform.h"
#include "core/tables/range.h"
#include "pci.h"

#define PCI_MAX_DEVICES 4096
#define PCI_HEADER_TYPE_MASK 0x7f
#define PCI_HEADER_MULTIFUNCTION 0x80
#define PCI_BAR_IO 0x1
#define PCI_BAR_MEM_TYPE_64 0x4
#define PCI_BAR_PREFETCH 0x8

bool pci_is_bridge(const struct pci_dev *d)
{
	return (d->header_type & PCI_HEADER_TYPE_MASK) == 1;
}

/* The BARs as the firmware that enumerated the function sized them
 * (platform->fw_bar_size): the registers read, nothing written. False,
 * with nothing added, when the firmware cannot size one that is assigned:
 * the function is then sized by writing. A BAR at 0 is unassigned, and
 * left out. */
static bool fw_sized_bars(struct pci_cfg *c, struct pci_dev *d, unsigned nbars)
{
	struct pci_bar bars[PCI_MAX_BARS];
	unsigned n = 0;
	for (unsigned i = 0; i < nbars; i++) {
		uint16_t reg = (uint16_t)(PCI_BAR0 + 4 * i);
		uint32_t lo = pci_read32(c, d->addr, reg);
		struct pci_bar b = { .index = (uint8_t)i };
		if (lo & PCI_BAR_IO) {
			b.io = true;
			b.base = lo & ~3u;
		} else {
			b.prefetch = lo & PCI_BAR_PREFETCH;
			b.mem64 = (lo & 0x6) == PCI_BAR_MEM_TYPE_64 && i + 1 < nbars;
			b.base = lo & ~0xfu;
			if (b.mem64)
				b.base |= (uint64_t)pci_read32(c, d->addr, (uint16_t)(reg + 4)) << 32, i++;
		}
		if (!b.base)
			continue;
		b.size = platform->fw_bar_size(d->addr.seg, d->addr.bus, d->addr.dev, d->addr.fn, b.base, b.io);
		if (!b.size)
			return false;
		struct range span;
		if (range_from_length(b.base, b.size, &span) != RANGE_OK)
			return false; /* said by the sizing that follows */
		if (n < PCI_MAX_BARS)
			bars[n++] = b;
	}
	for (unsigned i = 0; i < n && d->nbars < PCI_MAX_BARS; i++)
		d->bar[d->nbars++] = bars[i];
	return true;
}

/* Sizes every BAR: from the firmware where it says (nothing written to a
 * device the firmware may be driving: the stick's controller, a PCI
 * UART), else by writing all ones, reading the low zeros as the size, and
 * putting the original back. Decoding is off meanwhile (a half-written
 * 64-bit BAR must not decode) and interrupts are masked, so no firmware
 * handler touches the device while its BARs point nowhere. */
static void size_bars(struct pci_cfg *c, struct pci_dev *d)
{
	unsigned nbars = pci_is_bridge(d) ? 2 : (d->header_type & PCI_HEADER_TYPE_MASK) == 0 ? 6 : 0;
	/* Host bridges are left alone: on some chipsets turning their decoding
	 * off stops the path to DRAM we are running from. */
	if (!nbars || (d->class >> 8) == 0x0600)
		return;
	if (platform->fw_bar_size && fw_sized_bars(c, d, nbars))
		return;
	uint64_t irq = platform->irq_save();
	uint16_t cmd = pci_read16(c, d->addr, PCI_COMMAND);
	pci_write16(c, d->addr, PCI_COMMAND, cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (unsigned i = 0; i < nbars; i++) {
		uint16_t reg = (uint16_t)(PCI_BAR0 + 4 * i);
		uint32_t lo = pci_read32(c, d->addr, reg);
		pci_write32(c, d->addr, reg, 0xffffffffu);
		uint32_t lo_mask = pci_read32(c, d->addr, reg);
		pci_write32(c, d->addr, reg, lo);
		struct pci_bar b = { .index = (uint8_t)i };
		if (lo & PCI_BAR_IO) {
			b.io = true;
			b.base = lo & ~3u;
			uint32_t m = lo_mask & ~3u & 0xffff;
			b.size = m ? (~m & 0xffff) + 1 : 0;
		} else {
			b.prefetch = lo & PCI_BAR_PREFETCH;
			b.mem64 = (lo & 0x6) == PCI_BAR_MEM_TYPE_64;
			uint64_t base = lo & ~0xfu, mask = lo_mask & ~0xfu;
			if (b.mem64 && i + 1 < nbars) {
				uint16_t hreg = (uint16_t)(reg + 4);
				uint32_t hi = pci_read32(c, d->addr, hreg);
				pci_write32(c, d->addr, hreg, 0xffffffffu);
				uint32_t hi_mask = pci_read32(c, d->addr, hreg);
				pci_write32(c, d->addr, hreg, hi);
				base |= (uint64_t)hi << 32;
				mask |= (uint64_t)hi_mask << 32;
				i++;
			} else {
				/* a 64-bit BAR in the last slot has no upper half: malformed,
				 * taken as 32-bit */
				b.mem64 = false;
				mask |= 0xffffffff00000000ull;
			}
			b.base = base;
			b.size = (mask & ~0xfull) ? ~mask + 1 : 0;
			if (!b.mem64 && lo_mask == 0)
				b.size = 0;
		}
		struct range span; /* a BAR reaching past the address space opens no window */
		enum range_fault f = b.size ? range_from_length(b.base, b.size, &span) : RANGE_OK;
		if (f != RANGE_OK) {
			char bdf[16];
			pci_addr_str(d->addr, bdf, sizeof(bdf));
			printf("error: pci: %s BAR%u at 0x%llx +0x%llx %s: not used\n", bdf, b.index,
			       (unsigned long long)b.base, (unsigned long long)b.size, range_fault_text(f));
			b.size = 0;
		}
		if (b.size && d->nbars < PCI_MAX_BARS)
			d->bar[d->nbars++] = b;
	}
	pci_write16(c, d->addr, PCI_COMMAND, cmd);
	platform->irq_restore(irq);
}

static void add_cap(struct pci_list *l, struct pci_dev *d, uint16_t id, uint16_t off, bool ext, uint8_t ver)
{
	(void)l;
	if (d->ncaps < PCI_MAX_CAPS)
		d->cap[d->ncaps++] = (struct pci_cap){ .id = id, .offset = off, .ext = ext, .version = ver };
}

static void cap_walk_cut(struct pci_list *l, const struct pci_dev *d, const char *kind, unsigned at)
{
	char bdf[16];
	pci_addr_str(d->addr, bdf, sizeof(bdf));
	printf("error: pci: %s: the %scapability list points back to 0x%03x (into the header or a loop): cut there\n",
	       bdf, kind, at);
	l->cap_loops++;
}

/* Capability lists come from the device: a pointer into the header or
 * back to a capability already seen ends the walk, and is counted. */
static void read_caps(struct pci_cfg *c, struct pci_list *l, struct pci_dev *d)
{
	if (pci_read16(c, d->addr, PCI_STATUS) & PCI_STATUS_CAP_LIST) {
		uint16_t ptr_reg =
		    (d->header_type & PCI_HEADER_TYPE_MASK) == 2 ? PCI_CB_CAPABILITY_LIST : PCI_CAPABILITY_LIST;
		uint8_t ptr = pci_read8(c, d->addr, ptr_reg) & 0xfc;
		uint64_t seen = 0; /* one bit per dword of the 256-byte space */
		while (ptr) {
			uint64_t bit = 1ull << (ptr >> 2);
			if (ptr < 0x40 || (seen & bit)) { /* into the header, or a loop */
				cap_walk_cut(l, d, "", ptr);
				break;
			}
			seen |= bit;
			uint16_t hdr = pci_read16(c, d->addr, ptr);
			add_cap(l, d, hdr & 0xff, ptr, false, 0);
			ptr = (uint8_t)(hdr >> 8) & 0xfc;
		}
	}
	if (!pci_has_ecam(c, d->addr) || !pci_find_cap(d, 0x10, false))
		return; /* extended capabilities live in PCI Express config space */
	uint16_t off = 0x100;
	uint64_t eseen[16] = { 0 }; /* one bit per dword of 0x000-0xfff */
	while (off) {
		uint32_t hdr = pci_read32(c, d->addr, off);
		if (hdr == 0 || hdr == 0xffffffffu)
			break;
		unsigned dw = off >> 2;
		if (off < 0x100 || (eseen[dw >> 6] & (1ull << (dw & 63)))) {
			cap_walk_cut(l, d, "extended ", off);
			break;
		}
		eseen[dw >> 6] |= 1ull << (dw & 63);
		add_cap(l, d, hdr & 0xffff, off, true, (hdr >> 16) & 0xf);
		off = (uint16_t)(hdr >> 20) & 0xffc;
	}
}

static void probe_function(struct pci_cfg *c, struct pci_list *l, struct pci_addr a, uint32_t id)
{
	if (l->n == PCI_MAX_DEVICES)
		return;
	if (l->n % 64 == 0) {
		struct pci_dev *nd = realloc(l->d, (l->n + 64) * sizeof(*nd));
		if (!nd)
			return;
		l->d = nd;
	}
	struct pci_dev *d = &l->d[l->n];
	memset(d, 0, sizeof(*d));
	d->addr = a;
	d->vendor = id & 0xffff;
	d->device = id >> 16;
	uint32_t cr = pci_read32(c, a, PCI_CLASS_REVISION);
	d->class = cr >> 8;
	d->revision = cr & 0xff;
	d->header_type = pci_read8(c, a, PCI_HEADER_TYPE);
	d->parent = -1;
	d->iommu = -1;
	if (pci_is_bridge(d)) {
		d->sec_bus = pci_read8(c, a, PCI_SECONDARY_BUS);
		d->sub_bus = pci_read8(c, a, PCI_SUBORDINATE_BUS);
	}
	size_bars(c, d);
	read_caps(c, l, d);
	const struct pci_cap *e = pci_find_cap(d, 0x10, false);
	d->pcie_type = e ? (int8_t)((pci_read16(c, a, e->offset + 2) >> 4) & 0xf) : -1;
	l->n++;
}

static void scan_bus(struct pci_cfg *c, struct pci_list *l, uint16_t seg, uint8_t bus)
{
	for (uint8_t dev = 0; dev < 32; dev++) {
		struct pci_addr a = { seg, bus, dev, 0 };
		uint32_t id = pci_read32(c, a, PCI_VENDOR_ID);
		if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0)
			continue;
		bool multi = pci_read8(c, a, PCI_HEADER_TYPE) & PCI_HEADER_MULTIFUNCTION;
		probe_function(c, l, a, id);
		for (uint8_t fn = 1; multi && fn < 8; fn++) {
			a.fn = fn;
			id = pci_read32(c, a, PCI_VENDOR_ID);
			if ((id & 0xffff) != 0xffff && (id & 0xffff) != 0)
				probe_function(c, l, a, id);
		}
	}
}

/* Every bus of every ECAM region, and of segment 0 through CF8 where no
 * ECAM covers it: servers have root buses that no bridge leads to. The
 * bridges' bus ranges then give each device its parent. */
static void assign_parents(struct pci_list *l);
static void drop_ghosts(struct pci_list *l);
static void report_bridges(struct pci_list *l);

void pci_enumerate(struct pci_cfg *c, struct pci_list *l)
{
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < c->n; i++)
		for (unsigned bus = c->ecam[i].start_bus; bus <= c->ecam[i].end_bus; bus++)
			scan_bus(c, l, c->ecam[i].segment, (uint8_t)bus);
	if (c->legacy)
		for (unsigned bus = 0; bus < 256; bus++)
			if (!pci_has_ecam(c, (struct pci_addr){ 0, (uint8_t)bus, 0, 0 }))
				scan_bus(c, l, 0, (uint8_t)bus);
	assign_parents(l);
	drop_ghosts(l);
	report_bridges(l);
	/* every memory BAR is its function's: no table's base may lie there */
	for (size_t i = 0; i < l->n; i++)
		for (size_t k = 0; k < l->d[i].nbars; k++) {
			const struct pci_bar *b = &l->d[i].bar[k];
			char bdf[16];
			pci_addr_str(l->d[i].addr, bdf, sizeof(bdf));
			if (!b->io && b->base)
				claims_add_bar(b->base, b->size, l->d[i].class, "BAR%u of %s", b->index, bdf);
		}
}

/* Below a PCIe root or downstream port the link has one device, number 0
 * (PCIe Base 7.3.1): a function answering at another number is device 0
 * decoding every number, unless device 0 uses ARI, whose functions 8 and
 * up appear there. Such ghosts are dropped. */
static bool one_child_port(const struct pci_dev *p)
{
	return p->pcie_type == 4 || p->pcie_type == 6; /* root port, downstream port */
}

static void drop_ghosts(struct pci_list *l)
{
	size_t kept = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct pci_dev *d = &l->d[i];
		bool ghost = false;
		if (d->addr.dev != 0 && d->parent >= 0 && one_child_port(&l->d[d->parent])) {
			int dev0 = pci_find(l, (struct pci_addr){ d->addr.seg, d->addr.bus, 0, 0 });
			ghost = dev0 < 0 || !pci_find_cap(&l->d[dev0], 0x000e, true); /* ARI */
		}
		if (!ghost)
			l->d[kept++] = l->d[i];
		else
			l->ghosts++;
	}
	if (kept != l->n) {
		l->n = kept;
		assign_parents(l);
	}
}

static int nearest_bridge(const struct pci_list *l, size_t i)
{
	const struct pci_dev *d = &l->d[i];
	int best = -1;
	for (size_t k = 0; k < l->n; k++) {
		const struct pci_dev *b = &l->d[k];
		if (k == i || !pci_is_bridge(b) || b->range_refused || b->addr.seg != d->addr.seg || b->sec_bus == 0 ||
		    d->addr.bus < b->sec_bus || d->addr.bus > b->sub_bus)
			continue;
		/* the nearest bridge: the one whose range is narrowest */
		if (best < 0 || b->sec_bus > l->d[best].sec_bus)
			best = (int)k;
	}
	return best;
}

/* Bus numbers are the firmware's (or a broken bridge's). Believed only
 * when they nest: a bridge leads to buses above its own, and they lie
 * inside its parent's. Then a parent always sits on a lower bus than its
 * child, and no walk up the parents can loop. A range that breaks the
 * rule is refused and its bridge leads nowhere; refusing one can change
 * another's parent, so the check repeats, at most once per bridge. */
static void assign_parents(struct pci_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct pci_dev *b = &l->d[i];
		if (!pci_is_bridge(b) || b->sec_bus == 0 || b->range_refused)
			continue;
		if (b->sec_bus <= b->addr.bus)
			b->range_refused = "its secondary bus is not above the bus it sits on";
		else if (b->sub_bus < b->sec_bus)
			b->range_refused = "its subordinate bus is below its secondary bus";
	}
	for (size_t round = 0; round <= l->n; round++) {
		for (size_t i = 0; i < l->n; i++)
			l->d[i].parent = nearest_bridge(l, i);
		bool changed = false;
		for (size_t i = 0; i < l->n; i++) {
			struct pci_dev *b = &l->d[i];
			if (!pci_is_bridge(b) || b->sec_bus == 0 || b->range_refused || b->parent < 0)
				continue;
			const struct pci_dev *p = &l->d[b->parent];
			if (b->sec_bus < p->sec_bus || b->sub_bus > p->sub_bus) {
				b->range_refused = "its buses are not inside its parent bridge's";
				changed = true;
			}
		}
		if (!changed)
			break;
	}
}

static void report_bridges(struct pci_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct pci_dev *b = &l->d[i];
		if (!b->range_refused)
			continue;
		l->bad_bridges++;
		char bdf[16], pbdf[16] = "";
		pci_addr_str(b->addr, bdf, sizeof(bdf));
		int p = nearest_bridge(l, i);
		if (p >= 0)
			pci_addr_str(l->d[p].addr, pbdf, sizeof(pbdf));
		printf("error: pci: bridge %s on bus %02x claims buses %02x-%02x: %s%s%s%s; that range is not used\n",
		       bdf, b->addr.bus, b->sec_bus, b->sub_bus, b->range_refused, p >= 0 ? " (it is below " : "", pbdf,
		       p >= 0 ? ")" : "");
	}
}

void pci_list_free(struct pci_list *l)
{
	free(l->d);
	l->d = NULL;
	l->n = 0;
}

int pci_find(const struct pci_list *l, struct pci_addr a)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct pci_addr *b = &l->d[i].addr;
		if (b->seg == a.seg && b->bus == a.bus && b->dev == a.dev && b->fn == a.fn)
			return (int)i;
	}
	return -1;
}

const struct pci_cap *pci_find_cap(const struct pci_dev *d, uint16_t id, bool ext)
{
	for (size_t i = 0; i < d->ncaps; i++)
		if (d->cap[i].id == id && d->cap[i].ext == ext)
			return &d->cap[i];
	return NULL;
}

void pci_addr_str(struct pci_addr a, char *out, size_t n)
{
	snprintf(out, n, "%04x:%02x:%02x.%x", a.seg, a.bus, a.dev, a.fn);
}

const char *pci_bar_open(struct regwin *w, const char *name, const struct pci_dev *d, const struct pci_bar *b)
{
	char source[40], bdf[16];
	pci_addr_str(d->addr, bdf, sizeof(bdf));
	snprintf(source, sizeof(source), "BAR%u of %s", b->index, bdf);
	return regwin_open_mmio(w, name, b->base, b->size, false, source);
}

/* "SSSS:BB:DD.F" or "BB:DD.F" (segment 0): core/base/number.c reads it. */
const char *pci_parse_addr_why(const char *s, struct pci_addr *a)
{
	unsigned seg, bus, dev, fn;
	const char *why = parse_bdf_why(s, &seg, &bus, &dev, &fn);
	if (!why)
		*a = (struct pci_addr){ (uint16_t)seg, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
	return why;
}

bool pci_parse_addr(const char *s, struct pci_addr *a)
{
	return pci_parse_addr_why(s, a) == NULL;
}
