#include "saved.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/textlines.h"

static struct pci_list kept;
static bool have_kept;

/* "0000:00:1f.0 8086 2918 060100 02 00 00 00 -1 caps 09@e0 ..." per function:
 * address, vendor, device, class, revision, header type, secondary and
 * subordinate bus, parent index; each capability id@offset, "x" before an
 * extended one's id. */
char *pci_saved_text(const struct pci_list *l, size_t *len)
{
	size_t cap = 128 + l->n * (80 + PCI_MAX_CAPS * 12), n = 0;
	char *t = l->n ? malloc(cap) : NULL;
	if (!t)
		return NULL;
	n +=
	    (size_t)snprintf(t, cap, "# seg:bus:dev.fn vendor device class rev header sec sub parent caps id@off...\n");
	for (size_t i = 0; i < l->n && n < cap; i++) {
		const struct pci_dev *d = &l->d[i];
		n += (size_t)snprintf(t + n, cap - n, "%04x:%02x:%02x.%x %04x %04x %06x %02x %02x %02x %02x %d caps",
				      d->addr.seg, d->addr.bus, d->addr.dev, d->addr.fn, d->vendor, d->device, d->class,
				      d->revision, d->header_type, d->sec_bus, d->sub_bus, d->parent);
		for (size_t k = 0; k < d->ncaps && n < cap; k++)
			n += (size_t)snprintf(t + n, cap - n, " %s%x@%x", d->cap[k].ext ? "x" : "", d->cap[k].id,
					      d->cap[k].offset);
		if (n < cap)
			n += (size_t)snprintf(t + n, cap - n, "\n");
	}
	*len = n < cap ? n : cap - 1;
	return t;
}

static const char *load_line(char *line, struct pci_dev *d)
{
	unsigned seg, bus, dev, fn, vendor, device, class, rev, hdr, sec, sub;
	int parent, used = 0;
	memset(d, 0, sizeof(*d));
	if (sscanf(line, "%x:%x:%x.%x %x %x %x %x %x %x %x %d caps%n", &seg, &bus, &dev, &fn, &vendor, &device, &class,
		   &rev, &hdr, &sec, &sub, &parent, &used) != 12 ||
	    !used)
		return "not 'seg:bus:dev.fn vendor device class rev header sec sub parent caps ...'";
	if (seg > 0xffff || bus > 0xff || dev > 31 || fn > 7 || vendor > 0xffff || device > 0xffff ||
	    class > 0xffffff || rev > 0xff || hdr > 0xff || sec > 0xff || sub > 0xff)
		return "a field is out of its range";
	*d = (struct pci_dev){ .addr = { (uint16_t)seg, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn },
			       .vendor = (uint16_t)vendor,
			       .device = (uint16_t)device,
			       .class = class,
			       .revision = (uint8_t)rev,
			       .header_type = (uint8_t)hdr,
			       .sec_bus = (uint8_t)sec,
			       .sub_bus = (uint8_t)sub,
			       .parent = parent,
			       .pcie_type = -1, /* not saved: aliases are not replayed */
			       .iommu = -1 };
	for (char *c = strtok(line + used, " "); c; c = strtok(NULL, " ")) {
		unsigned id, off;
		bool ext = *c == 'x';
		if (sscanf(c + ext, "%x@%x", &id, &off) != 2 || id > 0xffff || off > 0xfff)
			return "a capability is not id@offset";
		if (d->ncaps < PCI_MAX_CAPS)
			d->cap[d->ncaps++] = (struct pci_cap){ (uint16_t)id, (uint16_t)off, ext, 0 };
	}
	return NULL;
}

static const char *take_line(char *line, void *ctx)
{
	(void)ctx;
	struct pci_dev d;
	const char *why = load_line(line, &d);
	struct pci_dev *grown = why ? NULL : realloc(kept.d, (kept.n + 1) * sizeof(*grown));
	if (!why && !grown)
		return "no memory for it";
	if (!why) {
		kept.d = grown;
		kept.d[kept.n++] = d;
	}
	return why;
}

size_t pci_saved_load(const char *text, size_t len, const char *file)
{
	pci_list_free(&kept);
	have_kept = true;
	text_lines(text, len, file, take_line, NULL);
	/* a parent index is believed only where it names another function,
	 * a bridge (walks up the parents are bounded where they are made) */
	for (size_t i = 0; i < kept.n; i++)
		if (kept.d[i].parent >= (int)kept.n || kept.d[i].parent == (int)i || kept.d[i].parent < -1 ||
		    (kept.d[i].parent >= 0 && !pci_is_bridge(&kept.d[kept.d[i].parent])))
			kept.d[i].parent = -1;
	return kept.n;
}

bool pci_saved_take(struct pci_list *out)
{
	if (!have_kept)
		return false;
	*out = kept;
	memset(&kept, 0, sizeof(kept));
	have_kept = false;
	return true;
}
