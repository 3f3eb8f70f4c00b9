#include "alias.h"

#include <stdio.h>

#include "core/base/macros.h"

/* The PCI Express capability's Device/Port Type (PCIe Base 7.5.3.2) */
#define PCIE_ROOT_PORT 4
#define PCIE_UPSTREAM 5
#define PCIE_DOWNSTREAM 6
#define PCIE_TO_PCI_BRIDGE 7
#define PCI_TO_PCIE_BRIDGE 8

/* Functions whose DMA carries another function's id of the same device
 * (the fn they use), as Linux's DMA alias quirks list them. */
static const struct {
	uint16_t vendor, device;
	uint8_t fn;
} func_quirks[] = {
	{ 0x1180, 0xe832, 0 }, { 0x1180, 0xe476, 0 }, /* Ricoh card readers */
	{ 0x1b4b, 0x9120, 1 }, { 0x1b4b, 0x9123, 1 }, { 0x1b4b, 0x917a, 1 },
	{ 0x1b4b, 0x9182, 1 }, { 0x1b4b, 0x9183, 1 }, { 0x1b4b, 0x91a0, 1 },
	{ 0x1b4b, 0x9215, 1 }, { 0x1b4b, 0x9230, 1 }, { 0x1b4b, 0x9235, 1 }, /* Marvell 88SE91xx/92xx SATA */
	{ 0x1103, 0x0642, 1 },						     /* HighPoint (TTI) RocketRAID */
};

/* Bridges with no PCIe capability that are PCIe-to-PCI bridges all the
 * same, and tag what they forward with their secondary bus. */
static const struct {
	uint16_t vendor, device;
} pcie_bridge_quirks[] = {
	{ 0x1b21, 0x1080 }, /* ASMedia ASM1083/1085 */
	{ 0x10e3, 0x8113 }, /* Tundra Tsi381 */
	{ 0x1283, 0x8892 }, /* ITE IT8892 */
	{ 0x1283, 0x8893 }, /* ITE IT8893 */
	{ 0x8086, 0x244e }, /* Intel 82801 PCI bridge */
};

bool pci_aliases_have(const struct pci_aliases *s, uint16_t rid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->a[i].rid == rid)
			return true;
	return false;
}

void pci_alias_add(struct pci_aliases *s, uint16_t rid, int how, int bridge)
{
	if (pci_aliases_have(s, rid))
		return;
	if (s->n == PCI_ALIAS_MAX) {
		s->cut = true;
		return;
	}
	s->a[s->n++] = (struct pci_alias){ .rid = rid, .how = how, .bridge = bridge };
}

static bool pcie_to_pci(const struct pci_dev *b)
{
	if (b->pcie_type == PCIE_TO_PCI_BRIDGE)
		return true;
	for (size_t i = 0; b->pcie_type < 0 && i < ARRAY_SIZE(pcie_bridge_quirks); i++)
		if (b->vendor == pcie_bridge_quirks[i].vendor && b->device == pcie_bridge_quirks[i].device)
			return true;
	return false;
}

void pci_dma_aliases(const struct pci_list *l, size_t i, struct pci_aliases *out)
{
	*out = (struct pci_aliases){ 0 };
	const struct pci_dev *d = &l->d[i];
	pci_alias_add(out, pci_rid(d->addr), PCI_ALIAS_SELF, -1);
	for (size_t q = 0; q < ARRAY_SIZE(func_quirks); q++)
		if (d->vendor == func_quirks[q].vendor && d->device == func_quirks[q].device) {
			struct pci_addr other = d->addr;
			other.fn = func_quirks[q].fn;
			pci_alias_add(out, pci_rid(other), PCI_ALIAS_QUIRK, -1);
		}
	/* parents sit on lower buses than their children (pci_enumerate), so
	 * the walk ends; bounded all the same */
	unsigned hops = 0;
	for (int p = d->parent; p >= 0 && (size_t)p < l->n; p = l->d[p].parent) {
		if (++hops > 256) {
			out->cut = true;
			break;
		}
		const struct pci_dev *b = &l->d[p];
		switch (b->pcie_type) {
		case PCIE_ROOT_PORT:
		case PCIE_UPSTREAM:
		case PCIE_DOWNSTREAM:
			continue; /* PCIe switches and ports pass the id through */
		default:
			break;
		}
		if (pcie_to_pci(b))
			pci_alias_add(out, pci_rid((struct pci_addr){ .seg = b->addr.seg, .bus = b->sec_bus }),
				      PCI_ALIAS_PCIE_TO_PCI, p);
		else /* conventional (and PCI-to-PCIe) bridges forward it as their own */
			pci_alias_add(out, pci_rid(b->addr), PCI_ALIAS_BRIDGE, p);
	}
}

void pci_rid_str(uint16_t rid, char *out, size_t n)
{
	snprintf(out, n, "%02x:%02x.%x", rid >> 8, (rid >> 3) & 0x1f, rid & 7);
}

void pci_alias_str(const struct pci_list *l, const struct pci_alias *a, char *out, size_t n)
{
	char rid[12], br[16] = "?";
	pci_rid_str(a->rid, rid, sizeof(rid));
	if (a->bridge >= 0 && (size_t)a->bridge < l->n)
		pci_addr_str(l->d[a->bridge].addr, br, sizeof(br));
	switch (a->how) {
	case PCI_ALIAS_SELF:
		snprintf(out, n, "%s (its own)", rid);
		break;
	case PCI_ALIAS_QUIRK:
		snprintf(out, n, "%s (a known quirk: the device uses another function's id)", rid);
		break;
	case PCI_ALIAS_PCIE_TO_PCI:
		snprintf(out, n, "%s (PCIe-to-PCI bridge %s: its secondary bus, devfn 0)", rid, br);
		break;
	case PCI_ALIAS_BRIDGE:
		snprintf(out, n, "%s (bridge %s forwards it as its own)", rid, br);
		break;
	default:
		snprintf(out, n, "%s (the firmware's alias entry)", rid);
		break;
	}
}

void pci_aliases_str(const struct pci_list *l, const struct pci_aliases *s, char *out, size_t n)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 1; i < s->n && len < n; i++) {
		char one[128];
		pci_alias_str(l, &s->a[i], one, sizeof(one));
		len += (size_t)snprintf(out + len, n - len, "%s%s", i > 1 ? ", " : "", one);
	}
}
