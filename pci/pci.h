/* PCI: configuration access (ECAM from MCFG, CF8/CFC for segment 0),
 * enumeration of every bus, BARs sized, capabilities listed.
 * Hardware is reached only through register windows. */
#ifndef IOMMON_PCI_H
#define IOMMON_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "core/tables/mcfg.h"

/* An MSI as a device sends it: the address it writes and the data. */
struct msi_message {
	uint64_t addr;
	uint32_t data;
};

struct pci_addr {
	uint16_t seg;
	uint8_t bus, dev, fn;
};

/* Field by field: the struct has a padding byte memcmp would read. */
static inline bool pci_addr_eq(struct pci_addr a, struct pci_addr b)
{
	return a.seg == b.seg && a.bus == b.bus && a.dev == b.dev && a.fn == b.fn;
}

static inline uint16_t pci_rid(struct pci_addr a)
{
	return (uint16_t)(a.bus << 8 | a.dev << 3 | a.fn);
}

struct pci_ecam {
	uint16_t segment;
	uint8_t start_bus, end_bus;
	struct regwin win; /* covers start_bus..end_bus */
};

#define PCI_REFUSED_MAX 4

struct pci_cfg {
	size_t n;
	struct pci_ecam ecam[MCFG_MAX];
	bool legacy; /* CF8/CFC usable for segment 0 where no ECAM covers it */
	struct regwin cf8;
	/* MCFG regions whose window was refused (regwin_open_mmio), and why */
	unsigned nrefused;
	char refused[PCI_REFUSED_MAX][256];
};

/* Configuration space windows from MCFG (may be NULL), plus CF8/CFC. */
void pci_cfg_init(struct pci_cfg *c, const struct mcfg *m, bool legacy_io);
/* Reads outside what any mechanism reaches return all ones. */
uint32_t pci_read32(struct pci_cfg *c, struct pci_addr a, uint16_t off);
uint16_t pci_read16(struct pci_cfg *c, struct pci_addr a, uint16_t off);
uint8_t pci_read8(struct pci_cfg *c, struct pci_addr a, uint16_t off);
void pci_write32(struct pci_cfg *c, struct pci_addr a, uint16_t off, uint32_t v);
void pci_write16(struct pci_cfg *c, struct pci_addr a, uint16_t off, uint16_t v);
/* A register a driver changed, put back to `found`: written only when it
 * reads otherwise, so a device given back untouched sees no write. */
void pci_restore16(struct pci_cfg *c, struct pci_addr a, uint16_t off, uint16_t found);
void pci_restore32(struct pci_cfg *c, struct pci_addr a, uint16_t off, uint32_t found);
/* Does the function answer at all? One that is gone (a surprise removal,
 * a pulled card, a link that went down) reads all ones, and no function
 * has vendor id 0xffff (PCI Local Bus 3.0, 6.2.1): false. */
bool pci_answers(struct pci_cfg *c, struct pci_addr a);
/* Extended configuration space (offsets 0x100-0xfff) needs ECAM. */
bool pci_has_ecam(const struct pci_cfg *c, struct pci_addr a);

/* Configuration header (PCI Local Bus 3.0, 6.1; PCI-to-PCI bridge 1.2) */
#define PCI_VENDOR_ID 0x00
#define PCI_DEVICE_ID 0x02
#define PCI_COMMAND 0x04
#define PCI_COMMAND_IO 0x0001
#define PCI_COMMAND_MEMORY 0x0002
#define PCI_COMMAND_MASTER 0x0004
#define PCI_STATUS 0x06
#define PCI_STATUS_CAP_LIST 0x0010
#define PCI_CLASS_REVISION 0x08
#define PCI_HEADER_TYPE 0x0e
#define PCI_BAR0 0x10
#define PCI_PRIMARY_BUS 0x18
#define PCI_SECONDARY_BUS 0x19
#define PCI_SUBORDINATE_BUS 0x1a
#define PCI_CAPABILITY_LIST 0x34
#define PCI_CB_CAPABILITY_LIST 0x14

#define PCI_MAX_BARS 6
#define PCI_MAX_CAPS 32

struct pci_bar {
	uint8_t index; /* BAR number (register 0x10 + 4 * index) */
	bool io, mem64, prefetch;
	uint64_t base, size;
};

struct pci_cap {
	uint16_t id, offset;
	bool ext;
	uint8_t version; /* extended capabilities */
};

struct pci_dev {
	struct pci_addr addr;
	uint16_t vendor, device;
	uint32_t class; /* base, sub, prog-if */
	uint8_t revision, header_type;
	uint8_t sec_bus, sub_bus; /* bridges */
	/* the PCI Express capability's Device/Port Type (PCIe Base 7.5.3.2):
	 * 4 root port, 7 PCIe-to-PCI bridge...; -1: no such capability */
	int8_t pcie_type;
	size_t nbars, ncaps;
	struct pci_bar bar[PCI_MAX_BARS];
	struct pci_cap cap[PCI_MAX_CAPS];
	int parent; /* index of the bridge above, or -1 */
	/* bridges: why its bus range is not believed (not above its own bus,
	 * empty, or not inside its parent's), or NULL */
	const char *range_refused;
	int iommu; /* index of the covering IOMMU unit, or -1 */
};

struct pci_list {
	struct pci_dev *d;
	size_t n;
	unsigned cap_loops;   /* capability lists cut short because they looped */
	unsigned ghosts;      /* functions dropped: device 0 answering below a one-child port */
	unsigned bad_bridges; /* bridges whose bus range was refused (range_refused) */
};

/* Finds every device on every bus each mechanism reaches. Interrupts are
 * masked while a device's decoding is off for BAR sizing. A bridge's bus
 * range leads to children only when its secondary bus is above the bus it
 * sits on and its range lies inside its parent's: so every walk up the
 * parents ends, and each refused range is printed and counted. */
void pci_enumerate(struct pci_cfg *c, struct pci_list *out);
void pci_list_free(struct pci_list *l);
int pci_find(const struct pci_list *l, struct pci_addr a); /* index or -1 */
bool pci_is_bridge(const struct pci_dev *d);
const struct pci_cap *pci_find_cap(const struct pci_dev *d, uint16_t id, bool ext);

const char *pci_class_name(uint32_t class);
const char *pci_cap_name(uint16_t id, bool ext);
/* "0000:01:00.0" */
void pci_addr_str(struct pci_addr a, char *out, size_t n);
/* A memory BAR as a register window, through regwin_open_mmio (the
 * refusal names the BAR and the function): NULL, or why not. */
const char *pci_bar_open(struct regwin *w, const char *name, const struct pci_dev *d, const struct pci_bar *b);
/* "SSSS:BB:DD.F" or "BB:DD.F": hex fields within their widths (segment
 * 16 bits, bus 8, device 5, function 3), nothing before or after. NULL,
 * or what was wrong; *a is written only on success. */
const char *pci_parse_addr_why(const char *s, struct pci_addr *a);
bool pci_parse_addr(const char *s, struct pci_addr *a);

#endif
