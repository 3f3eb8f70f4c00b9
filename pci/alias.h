/* DMA aliases: every requester id a function's DMA can reach the root
 * complex with. Bridges take ownership of what passes through them (a
 * PCIe-to-PCI/PCI-X bridge tags it with its secondary bus and devfn 0,
 * PCIe-to-PCI/PCI-X Bridge spec 1.0, 2.3; a conventional bridge forwards
 * it as its own), and some devices emit another function's id (known
 * quirks). Computed once here for every backend: each gives every id the
 * device's domain, or the case does not run. */
#ifndef IOMMON_ALIAS_H
#define IOMMON_ALIAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pci.h"

#define PCI_ALIAS_MAX 16

struct pci_alias {
	uint16_t rid; /* bus << 8 | devfn */
	/* where it comes from: the function itself, a quirk, a bridge (its
	 * index in the list), or the firmware's table */
	enum { PCI_ALIAS_SELF, PCI_ALIAS_QUIRK, PCI_ALIAS_PCIE_TO_PCI, PCI_ALIAS_BRIDGE, PCI_ALIAS_FIRMWARE } how;
	int bridge; /* PCI_ALIAS_PCIE_TO_PCI, PCI_ALIAS_BRIDGE: the bridge's index */
};

struct pci_aliases {
	struct pci_alias a[PCI_ALIAS_MAX];
	size_t n; /* a[0] is the function's own id */
	bool cut; /* more than PCI_ALIAS_MAX, or a walk the hop bound stopped */
};

/* The ids DMA from function `i` of `l` can carry: its own, a quirk's, then
 * each bridge's on the way up (Linux's pci_for_each_dma_alias walks the
 * same rules); every id once. */
void pci_dma_aliases(const struct pci_list *l, size_t i, struct pci_aliases *out);
/* Adds `rid` (the firmware says it: an IVRS alias entry) unless present. */
void pci_alias_add(struct pci_aliases *s, uint16_t rid, int how, int bridge);
bool pci_aliases_have(const struct pci_aliases *s, uint16_t rid);
/* "02:00.0 (PCIe-to-PCI bridge 0000:01:00.0: secondary bus, devfn 0)" */
void pci_alias_str(const struct pci_list *l, const struct pci_alias *a, char *out, size_t n);
/* Every id after the function's own, each with where it comes from,
 * comma-separated ("" when there is none). */
void pci_aliases_str(const struct pci_list *l, const struct pci_aliases *s, char *out, size_t n);
/* "bb:dd.f" of a requester id */
void pci_rid_str(uint16_t rid, char *out, size_t n);

#endif
