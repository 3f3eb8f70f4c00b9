/* libFuzzer: PCI enumeration, BAR sizing and both capability walks against
 * a fuzzed configuration space behind a model register window (ECAM, buses
 * 0-3). The input is a list of functions: 4 bytes (bus 0-3, device/function,
 * and the length of the configuration bytes that follow, up to 4096), then
 * 24 bytes of BAR masks (what each BAR reads back after all ones), then the
 * configuration bytes; the rest of each 4 KiB reads as zero. Whatever the
 * bytes, enumeration must end, every parent walk must end, and nothing may
 * be read outside what was given. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_platform.h"
#include "pci/pci.h"

#define MAX_FN 16
#define BUSES 4

struct fn {
	uint8_t bus, devfn;
	uint32_t mask[6];
	size_t extent; /* bytes of cfg that may be non-zero */
	uint8_t cfg[4096];
};

static struct fn fns[MAX_FN]; /* zero at start: extent 0 is true */
static size_t nfns;
static struct fn *slot[BUSES][256]; /* by bus and device/function */

static struct fn *at(uint64_t off)
{
	uint64_t bus = off >> 20;
	return bus < BUSES ? slot[bus][(off >> 12) & 0xff] : NULL;
}

static uint64_t m_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx;
	struct fn *f = at(off);
	unsigned reg = off & 0xfff;
	if (!f || reg + width > 4096)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	uint64_t v = 0;
	memcpy(&v, f->cfg + reg, width);
	return v;
}

static void m_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx;
	struct fn *f = at(off);
	unsigned reg = off & 0xfff;
	if (!f || reg + width > 4096)
		return;
	if (reg >= 0x10 && reg < 0x28 && width == 4 && (uint32_t)v == 0xffffffffu)
		v = f->mask[(reg - 0x10) / 4];
	memcpy(f->cfg + reg, &v, width);
	if (reg + width > f->extent)
		f->extent = reg + width;
}

static const struct regwin_model_ops ops = { m_read, m_write };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < nfns; i++)
		slot[fns[i].bus][fns[i].devfn] = NULL;
	nfns = 0;
	while (size >= 28 && nfns < MAX_FN) {
		struct fn *f = &fns[nfns++];
		f->bus = data[0] % BUSES;
		f->devfn = data[1];
		size_t len = (size_t)(data[2] | data[3] << 8) % 4097;
		memcpy(f->mask, data + 4, 24);
		data += 28, size -= 28;
		if (len > size)
			len = size;
		memcpy(f->cfg, data, len);
		if (f->extent > len) /* what the last run left there */
			memset(f->cfg + len, 0, f->extent - len);
		f->extent = len;
		data += len, size -= len;
		slot[f->bus][f->devfn] = f; /* a later function at the same address wins */
	}
	static struct pci_cfg c;
	pci_cfg_init(&c, NULL, false);
	c.n = 1;
	c.ecam[0].end_bus = BUSES - 1;
	regwin_init_model(&c.ecam[0].win, "ecam", (uint64_t)BUSES << 20, false, &ops, NULL);
	struct pci_list l;
	pci_enumerate(&c, &l);
	for (size_t i = 0; i < l.n; i++) {
		const struct pci_dev *d = &l.d[i];
		if (d->nbars > PCI_MAX_BARS || d->ncaps > PCI_MAX_CAPS || d->parent >= (int)l.n)
			abort();
		for (size_t k = 0; k < d->ncaps; k++)
			if (d->cap[k].offset > 0xffc || (!d->cap[k].ext && d->cap[k].offset < 0x40))
				abort();
		/* a parent sits on a lower bus than its child: the walk ends */
		size_t hops = 0;
		for (int p = d->parent; p >= 0; p = l.d[p].parent)
			if (++hops > 256)
				abort();
	}
	if (c.ecam[0].win.out_of_window)
		abort();
	pci_list_free(&l);
	return 0;
}
