/* PCI enumeration, BAR sizing, capability walks and device-to-IOMMU
 * mapping against a configuration-space model behind the register window:
 * a host bridge, a root port leading to bus 1 with an endpoint, and a
 * multi-function device, with BARs of every kind. */
#include "unit.h"

#include "core/tables/dmar.h"
#include "iommu/amdvi/amdvi.h"
#include "iommu/units.h"
#include "iommu/vtd/vtd.h"
#include "pci/pci.h"
#include "tests/host/platform_host.h"

struct fdev {
	uint8_t bus, dev, fn;
	uint8_t cfg[4096];
	uint64_t bar_size[6]; /* 0: the BAR does not exist */
	unsigned bar_writes;
};

static struct fdev devs[8];
static size_t ndevs;
static unsigned bar_probes_while_decoding; /* all-ones written to a BAR of a decoding device */

static struct fdev *at(uint64_t off)
{
	uint8_t bus = (uint8_t)(off >> 20), dev = (off >> 15) & 31, fn = (off >> 12) & 7;
	for (size_t i = 0; i < ndevs; i++)
		if (devs[i].bus == bus && devs[i].dev == dev && devs[i].fn == fn)
			return &devs[i];
	return NULL;
}

static uint64_t m_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx;
	struct fdev *d = at(off);
	if (!d)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	uint64_t v = 0;
	memcpy(&v, d->cfg + (off & 0xfff), width);
	return v;
}

static void m_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx;
	struct fdev *d = at(off);
	if (!d)
		return;
	unsigned reg = off & 0xfff;
	if (reg >= 0x10 && reg < 0x28 && width == 4) {
		unsigned i = (reg - 0x10) / 4;
		d->bar_writes++;
		uint32_t old;
		memcpy(&old, d->cfg + reg, 4);
		uint16_t cmd;
		memcpy(&cmd, d->cfg + 4, 2);
		if ((uint32_t)v == 0xffffffffu && (cmd & 3))
			bar_probes_while_decoding++;
		uint64_t size = d->bar_size[i];
		bool upper = i > 0 && d->bar_size[i - 1] && (d->cfg[0x10 + 4 * (i - 1)] & 0x6) == 0x4;
		uint32_t nv;
		if (upper) {
			uint64_t sz = d->bar_size[i - 1];
			nv = (uint32_t)(v & (~(sz - 1) >> 32));
		} else if (!size) {
			nv = 0;
		} else {
			uint32_t flags = old & ((old & 1) ? 0x3 : 0xf);
			nv = ((uint32_t)v & (uint32_t) ~(size - 1) & ((old & 1) ? ~3u : ~0xfu)) | flags;
		}
		memcpy(d->cfg + reg, &nv, 4);
		return;
	}
	memcpy(d->cfg + reg, &v, width);
}

static const struct regwin_model_ops ops = { m_read, m_write };

static struct fdev *add(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t vendor, uint16_t device, uint32_t class,
			uint8_t htype)
{
	struct fdev *d = &devs[ndevs++];
	memset(d, 0, sizeof(*d));
	d->bus = bus, d->dev = dev, d->fn = fn;
	memcpy(d->cfg, &vendor, 2);
	memcpy(d->cfg + 2, &device, 2);
	uint32_t cr = class << 8 | 1;
	memcpy(d->cfg + 8, &cr, 4);
	d->cfg[0x0e] = htype;
	d->cfg[4] = 0x07; /* io, memory, bus master: as firmware leaves a device in use */
	return d;
}

static void bar(struct fdev *d, unsigned i, uint64_t base, uint64_t size, uint32_t flags)
{
	uint32_t lo = (uint32_t)base | flags;
	memcpy(d->cfg + 0x10 + 4 * i, &lo, 4);
	d->bar_size[i] = size;
	if ((flags & 0x6) == 0x4) {
		uint32_t hi = (uint32_t)(base >> 32);
		memcpy(d->cfg + 0x14 + 4 * i, &hi, 4);
	}
}

static void cap(struct fdev *d, uint8_t off, uint8_t id, uint8_t next)
{
	d->cfg[6] |= 0x10;
	if (!d->cfg[0x34])
		d->cfg[0x34] = off;
	d->cfg[off] = id;
	d->cfg[off + 1] = next;
}

static void ext_cap(struct fdev *d, uint16_t off, uint16_t id, uint16_t next)
{
	uint32_t h = id | 1u << 16 | (uint32_t)next << 20;
	memcpy(d->cfg + off, &h, 4);
}

static struct pci_cfg cfg;
static struct pci_list list;

static void build(void)
{
	ndevs = 0;
	bar_probes_while_decoding = 0;
	struct fdev *host = add(0, 0, 0, 0x8086, 0x29c0, 0x060000, 0);
	bar(host, 0, 0xf0000000, 0x1000, 0); /* a host bridge BAR: never to be probed */
	struct fdev *rp = add(0, 0x1c, 0, 0x8086, 0x2940, 0x060400, 1);
	rp->cfg[0x18] = 0, rp->cfg[0x19] = 1, rp->cfg[0x1a] = 1;
	cap(rp, 0x40, 0x10, 0x00); /* PCIe */
	rp->cfg[0x42] = 4 << 4;	   /* device/port type: root port */
	struct fdev *ep = add(1, 0, 0, 0x1b36, 0x0010, 0x010802, 0);
	bar(ep, 0, 0xe000000000ull, 0x4000, 0x4 | 0x8); /* 64-bit prefetchable, 16 KiB */
	bar(ep, 2, 0xc0000000, 0x100000, 0);		/* 32-bit, 1 MiB */
	bar(ep, 4, 0x6000, 0x20, 0x1);			/* I/O, 32 bytes */
	cap(ep, 0x40, 0x10, 0x50);
	cap(ep, 0x50, 0x11, 0x60);
	cap(ep, 0x60, 0x05, 0x00);
	ext_cap(ep, 0x100, 0x0001, 0x148);
	ext_cap(ep, 0x148, 0x000f, 0x000); /* AER, ATS */
	/* the endpoint again at device 3: it decodes every device number */
	struct fdev *ghost = add(1, 3, 0, 0x1b36, 0x0010, 0x010802, 0);
	(void)ghost;
	struct fdev *mf0 = add(0, 0x1f, 0, 0x8086, 0x2918, 0x060100, 0x80);
	(void)mf0;
	struct fdev *mf2 = add(0, 0x1f, 2, 0x8086, 0x2922, 0x010601, 0);
	cap(mf2, 0x80, 0x05, 0x80);	     /* a capability that points at itself */
	bar(mf2, 5, 0xc1000000, 0x800, 0x4); /* "64-bit" in the last slot: no upper half */

	static struct mcfg m;
	memset(&m, 0, sizeof(m));
	pci_cfg_init(&cfg, NULL, false);
	cfg.n = 1;
	cfg.ecam[0].segment = 0;
	cfg.ecam[0].start_bus = 0;
	cfg.ecam[0].end_bus = 3;
	regwin_init_model(&cfg.ecam[0].win, "ecam", 4ull << 20, false, &ops, NULL);
	pci_enumerate(&cfg, &list);
}

static void enumerate_into_list(void *arg)
{
	(void)arg;
	pci_enumerate(&cfg, &list);
}

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	return 0;
}

static const struct pci_dev *dev_at(uint8_t bus, uint8_t d, uint8_t fn)
{
	int i = pci_find(&list, (struct pci_addr){ 0, bus, d, fn });
	assert_true(i >= 0);
	return &list.d[i];
}

static void finds_every_function(void **state)
{
	(void)state;
	build();
	assert_int_equal(list.n, 5);
	assert_int_equal(list.ghosts, 1); /* 01:03.0 below a root port: device 0 again */
	assert_int_equal(pci_find(&list, (struct pci_addr){ 0, 1, 3, 0 }), -1);
	const struct pci_dev *ep = dev_at(1, 0, 0);
	assert_int_equal(ep->vendor, 0x1b36);
	assert_int_equal(ep->class, 0x010802);
	assert_int_equal(list.d[ep->parent].addr.dev, 0x1c); /* the root port */
	assert_int_equal(dev_at(0, 0x1f, 2)->parent, -1);
	assert_true(pci_is_bridge(dev_at(0, 0x1c, 0)));
	assert_int_equal(dev_at(0, 0x1c, 0)->sec_bus, 1);
	pci_list_free(&list);
}

static void bars_sized_and_restored(void **state)
{
	(void)state;
	build();
	const struct pci_dev *ep = dev_at(1, 0, 0);
	assert_int_equal(ep->nbars, 3);
	assert_true(ep->bar[0].mem64 && ep->bar[0].prefetch);
	assert_int_equal(ep->bar[0].base, 0xe000000000ull);
	assert_int_equal(ep->bar[0].size, 0x4000);
	assert_false(ep->bar[1].mem64);
	assert_int_equal(ep->bar[1].index, 2);
	assert_int_equal(ep->bar[1].size, 0x100000);
	assert_true(ep->bar[2].io);
	assert_int_equal(ep->bar[2].base, 0x6000);
	assert_int_equal(ep->bar[2].size, 0x20);
	/* the registers hold their addresses again, decoding is back on, and
	 * no BAR was probed while its device decoded */
	uint32_t lo = pci_read32(&cfg, ep->addr, 0x10), hi = pci_read32(&cfg, ep->addr, 0x14);
	assert_int_equal(((uint64_t)hi << 32) | (lo & ~0xfu), 0xe000000000ull);
	assert_int_equal(pci_read32(&cfg, ep->addr, 0x18) & ~0xfu, 0xc0000000);
	assert_int_equal(pci_read16(&cfg, ep->addr, PCI_COMMAND) & 7, 7);
	assert_int_equal(bar_probes_while_decoding, 0);
	/* a host bridge's decoding is never switched off, nor its BARs probed */
	assert_int_equal(devs[0].bar_writes, 0);
	assert_int_equal(dev_at(0, 0, 0)->nbars, 0);
	/* a 64-bit BAR with no slot for its upper half is sized as 32-bit */
	const struct pci_dev *sata = dev_at(0, 0x1f, 2);
	assert_int_equal(sata->nbars, 1);
	assert_false(sata->bar[0].mem64);
	assert_int_equal(sata->bar[0].size, 0x800);
	pci_list_free(&list);
}

/* The firmware that enumerated the machine, as its PciIo answers: the
 * model's sizes, except where `fw_blind` names a base it does not know. */
static uint64_t fw_blind;
static unsigned fw_asked;

static uint64_t fw_bar_size(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn, uint64_t base, bool io)
{
	(void)seg, (void)io;
	fw_asked++;
	for (size_t i = 0; i < ndevs; i++) {
		struct fdev *d = &devs[i];
		if (d->bus != bus || d->dev != dev || d->fn != fn || base == fw_blind)
			continue;
		for (unsigned b = 0; b < 6; b++) {
			uint32_t lo;
			memcpy(&lo, d->cfg + 0x10 + 4 * b, 4);
			uint64_t at = (lo & 1) ? (lo & ~3u) : (lo & ~0xfu);
			if ((lo & 0x6) == 0x4 && !(lo & 1) && b < 5) {
				uint32_t hi;
				memcpy(&hi, d->cfg + 0x14 + 4 * b, 4);
				at |= (uint64_t)hi << 32;
			}
			if (d->bar_size[b] && at == base)
				return d->bar_size[b];
		}
	}
	return 0;
}

/* Where the firmware knows a function's BARs, they are taken from it and
 * not one is written: a device the firmware drives (the stick's
 * controller, a PCI UART) never stops decoding. One it cannot size is
 * sized by writing, as before. */
static void bars_from_the_firmware(void **state)
{
	(void)state;
	struct platform p = host_platform;
	p.fw_bar_size = fw_bar_size;
	platform = &p;
	fw_blind = 0, fw_asked = 0;
	build();
	const struct pci_dev *ep = dev_at(1, 0, 0);
	assert_true(fw_asked > 0);
	for (size_t i = 0; i < ndevs; i++)
		assert_int_equal(devs[i].bar_writes, 0);
	assert_int_equal(ep->nbars, 3);
	assert_true(ep->bar[0].mem64 && ep->bar[0].prefetch);
	assert_int_equal(ep->bar[0].base, 0xe000000000ull);
	assert_int_equal(ep->bar[0].size, 0x4000);
	assert_int_equal(ep->bar[1].index, 2);
	assert_int_equal(ep->bar[1].size, 0x100000);
	assert_true(ep->bar[2].io);
	assert_int_equal(ep->bar[2].size, 0x20);
	pci_list_free(&list);
	/* the firmware cannot size the endpoint's 1 MiB BAR: that function
	 * alone is sized by writing */
	fw_blind = 0xc0000000;
	build();
	ep = dev_at(1, 0, 0);
	assert_true(devs[2].bar_writes > 0);
	assert_int_equal(devs[5].bar_writes, 0); /* 00:1f.2, which the firmware knows */
	assert_int_equal(ep->bar[1].size, 0x100000);
	pci_list_free(&list);
	platform = &host_platform;
}

static void build_quietly(void *arg)
{
	(void)arg;
	build();
}

static void capabilities_and_loops(void **state)
{
	(void)state;
	const char *out = capture_stdout(build_quietly, NULL);
	/* the loop is named with the function's address, not only counted */
	assert_non_null(strstr(out, "error: pci: 0000:00:1f.2: the capability list points back to 0x080"));
	const struct pci_dev *ep = dev_at(1, 0, 0);
	assert_int_equal(ep->ncaps, 5);
	assert_non_null(pci_find_cap(ep, 0x11, false));
	assert_non_null(pci_find_cap(ep, 0x000f, true));
	assert_string_equal(pci_cap_name(0x000f, true), "ATS");
	assert_string_equal(pci_cap_name(0x11, false), "MSI-X");
	const struct pci_dev *sata = dev_at(0, 0x1f, 2);
	assert_int_equal(sata->ncaps, 1); /* listed once, then the loop is seen */
	assert_int_equal(list.cap_loops, 1);
	pci_list_free(&list);
}

static void addresses(void **state)
{
	(void)state;
	struct pci_addr a;
	assert_true(pci_parse_addr("0001:02:1f.7", &a));
	assert_int_equal(a.seg, 1);
	assert_int_equal(a.dev, 0x1f);
	assert_true(pci_parse_addr("02:03.1", &a));
	assert_int_equal(a.seg, 0);
	assert_false(pci_parse_addr("02:20.0", &a)); /* device 32 */
	assert_false(pci_parse_addr("02:03.8", &a));
	assert_false(pci_parse_addr("02:03.1x", &a));
	assert_false(pci_parse_addr("nonsense", &a));
	char s[16];
	pci_addr_str((struct pci_addr){ 0, 1, 0, 0 }, s, sizeof(s));
	assert_string_equal(s, "0000:01:00.0");
}

/* A DMAR with a unit for the root port's hierarchy (bridge scope), a unit
 * for an endpoint named through a two-hop path, and INCLUDE_PCI_ALL. */
static uint8_t dmar[256];
static size_t dmar_len;

static void put(const void *p, size_t n)
{
	memcpy(dmar + dmar_len, p, n);
	dmar_len += n;
}

static void build_dmar(bool endpoint_unit)
{
	memset(dmar, 0, sizeof(dmar));
	memcpy(dmar, "DMAR", 4);
	dmar[36] = 38;
	dmar_len = 48;
	uint16_t t0 = 0, l;
	uint64_t base;
	if (endpoint_unit) {
		l = 16 + 10;
		base = 0xfed92000;
		put(&t0, 2), put(&l, 2), put("\0\0\0\0", 4), put(&base, 8);
		put("\x01\x0a\0\0\0\x00\x1c\x00\x00\x00", 10); /* endpoint: bus 0, 1c.0 then 00.0 */
	}
	l = 16 + 8;
	base = 0xfed91000;
	put(&t0, 2), put(&l, 2), put("\0\0\0\0", 4), put(&base, 8);
	put("\x02\x08\0\0\0\x00\x1c\x00", 8); /* bridge: bus 0, 1c.0 */
	l = 16;
	base = 0xfed90000;
	put(&t0, 2), put(&l, 2), put("\x01\0\0\0", 4), put(&base, 8);
	uint32_t len = (uint32_t)dmar_len;
	memcpy(dmar + 4, &len, 4);
}

static void vtd_mapping(void **state)
{
	(void)state;
	build();
	build_dmar(false);
	struct iommu_units u;
	units_build(&u, &(struct units_table){ &vtd_backend, dmar, dmar_len }, 1, &list);
	assert_int_equal(u.n, 2);
	assert_string_equal(u.u[0].name, "dmar0");
	/* the root port and what is below it belong to the bridge-scope unit */
	assert_int_equal(dev_at(1, 0, 0)->iommu, 0);
	assert_int_equal(dev_at(0, 0x1c, 0)->iommu, 0);
	/* everything else to INCLUDE_PCI_ALL */
	assert_int_equal(dev_at(0, 0x1f, 2)->iommu, 1);
	assert_int_equal(dev_at(0, 0, 0)->iommu, 1);
	assert_true(u.u[1].include_all);
	units_free(&u);

	build_dmar(true);
	units_build(&u, &(struct units_table){ &vtd_backend, dmar, dmar_len }, 1, &list);
	assert_int_equal(u.n, 3);
	const struct dmar *d = vtd_units_dmar(&u);
	const struct dmar_scope *sc = &d->scopes[d->s[0].first_scope];
	int target = dmar_scope_device(sc, 0, &list);
	assert_true(target >= 0);
	assert_int_equal(list.d[target].addr.bus, 1); /* two hops: through the root port to bus 1 */
	assert_int_equal(dev_at(1, 0, 0)->iommu, 0);  /* the endpoint unit comes first and names it */
	units_free(&u);
	pci_list_free(&list);
}

static void amdvi_mapping(void **state)
{
	(void)state;
	build();
	uint8_t iv[128] = "IVRS";
	size_t n = 48;
	uint8_t h[24] = { 0x10, 0xb0, 0, 0, 0x02, 0x00, 0x40, 0 };
	uint64_t base = 0xfeb80000;
	memcpy(h + 8, &base, 8);
	memcpy(iv + n, h, 24);
	n += 24;
	uint8_t e[] = { 0x02, 0x00, 0x01, 0x00, /* select 01:00.0 */ 0x03, 0xf8, 0x00, 0x00, 0x04, 0xff, 0x00, 0x00 };
	memcpy(iv + n, e, sizeof(e));
	n += sizeof(e);
	uint16_t bl = (uint16_t)(24 + sizeof(e));
	memcpy(iv + 48 + 2, &bl, 2);
	uint32_t len = (uint32_t)n;
	memcpy(iv + 4, &len, 4);
	struct iommu_units u;
	units_build(&u, &(struct units_table){ &amdvi_backend, iv, n }, 1, &list);
	assert_int_equal(u.n, 1);
	assert_string_equal(u.u[0].name, "amdvi0");
	assert_int_equal(dev_at(1, 0, 0)->iommu, 0);
	assert_int_equal(dev_at(0, 0x1f, 2)->iommu, 0); /* in the range 00:1f.0-00:1f.7 */
	assert_int_equal(dev_at(0, 0, 0)->iommu, -1);	/* named by no entry */
	units_free(&u);
	pci_list_free(&list);
}

/* Two bridges whose bus ranges each hold the other's bus: 01:00.0 leads to
 * bus 2, where 02:00.0 leads back to bus 1. Each would be the other's
 * parent, and the walk up the parents from 02:01.0 towards the DMAR's
 * bridge scope (00:1c.0, elsewhere) would spin: the old code hung there,
 * before the menu. A range not above its own bus is refused, printed with
 * the bridge's address, and the walk ends; an alarm fails the test instead
 * of hanging it. */
static void looping_bridges(void **state)
{
	(void)state;
	ndevs = 0;
	add(0, 0, 0, 0x8086, 0x29c0, 0x060000, 0);
	struct fdev *rp = add(0, 0x1c, 0, 0x8086, 0x2940, 0x060400, 1);
	rp->cfg[0x18] = 0, rp->cfg[0x19] = 5, rp->cfg[0x1a] = 5;
	struct fdev *a = add(1, 0, 0, 0x8086, 0x2941, 0x060400, 1);
	a->cfg[0x18] = 1, a->cfg[0x19] = 2, a->cfg[0x1a] = 2;
	struct fdev *b = add(2, 0, 0, 0x8086, 0x2942, 0x060400, 1);
	b->cfg[0x18] = 2, b->cfg[0x19] = 1, b->cfg[0x1a] = 1; /* back to bus 1 */
	add(2, 1, 0, 0x1b36, 0x0010, 0x010802, 0);
	pci_cfg_init(&cfg, NULL, false);
	cfg.n = 1;
	cfg.ecam[0].end_bus = 3;
	regwin_init_model(&cfg.ecam[0].win, "ecam", 4ull << 20, false, &ops, NULL);
	alarm(10);
	const char *out = capture_stdout(enumerate_into_list, NULL);
	assert_non_null(strstr(out,
			       "error: pci: bridge 0000:02:00.0 on bus 02 claims buses 01-01: its secondary bus "
			       "is not above the bus it sits on (it is below 0000:01:00.0); that range is not used"));
	assert_int_equal(list.bad_bridges, 1);
	assert_int_equal(dev_at(1, 0, 0)->parent, -1);
	assert_int_equal(list.d[dev_at(2, 1, 0)->parent].addr.bus, 1);
	/* the DMAR walk from every device up its parents ends */
	build_dmar(false);
	struct iommu_units u;
	units_build(&u, &(struct units_table){ &vtd_backend, dmar, dmar_len }, 1, &list);
	assert_int_equal(dev_at(2, 1, 0)->iommu, 1); /* not below 00:1c.0: INCLUDE_PCI_ALL's */
	const struct diag *dg = &vtd_units_dmar(&u)->diag;
	for (size_t k = 0; k < dg->n; k++) /* no walk was cut at the hop bound */
		assert_null(strstr(dg->msg[k].text, "walks went past"));
	alarm(0);
	units_free(&u);
	pci_list_free(&list);

	/* a range that leaves its parent's: 01:00.0 below 00:1c.0 (1-2) claims 2-5 */
	ndevs = 0;
	add(0, 0, 0, 0x8086, 0x29c0, 0x060000, 0);
	rp = add(0, 0x1c, 0, 0x8086, 0x2940, 0x060400, 1);
	rp->cfg[0x18] = 0, rp->cfg[0x19] = 1, rp->cfg[0x1a] = 2;
	struct fdev *wide = add(1, 0, 0, 0x8086, 0x2941, 0x060400, 1);
	wide->cfg[0x18] = 1, wide->cfg[0x19] = 2, wide->cfg[0x1a] = 5;
	add(2, 0, 0, 0x1b36, 0x0010, 0x010802, 0);
	out = capture_stdout(enumerate_into_list, NULL);
	assert_non_null(strstr(out, "bridge 0000:01:00.0 on bus 01 claims buses 02-05: its buses are not inside its "
				    "parent bridge's (it is below 0000:00:1c.0)"));
	assert_int_equal(list.bad_bridges, 1);
	assert_int_equal(list.d[pci_find(&list, (struct pci_addr){ 0, 2, 0, 0 })].parent,
			 pci_find(&list, (struct pci_addr){ 0, 0, 0x1c, 0 }));
	pci_list_free(&list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finds_every_function),
		cmocka_unit_test(bars_sized_and_restored),
		cmocka_unit_test(bars_from_the_firmware),
		cmocka_unit_test(capabilities_and_loops),
		cmocka_unit_test(addresses),
		cmocka_unit_test(vtd_mapping),
		cmocka_unit_test(amdvi_mapping),
		cmocka_unit_test(looping_bridges),
	};
	return cmocka_run_group_tests_name("pci", tests, setup, NULL);
}
