/* hostile: firmware states no person wrote. Started by OVMF as the
 * -kernel of a machine with the monitor as the fw_cfg file
 * opt/iommon/monitor.efi (both reach the firmware through fw_cfg, which no
 * IOMMU translates, so no state here can cut the firmware off from its own
 * medium), with the load options "hostile SEED COUNT": up to COUNT times,
 * it leaves the first DMAR unit in a state drawn from SEED, starts the
 * monitor with a plan that takes the unit over for the device behind the
 * root port ("set device 01:00.0; run vtd.takeover vtd.translate_4k; exit
 * firmware"), and when the monitor returns checks what it left.
 *
 * A state: translation on or off over a root table, some bus's context
 * table, or one context entry, each placed at a target drawn from a list
 * (the firmware's own memory of several types, the same filled with 0xAF
 * as freed pages read, a freed page, another device's configuration page
 * or BAR, the monitor's own image, the unit's registers, an address no
 * map entry describes, one beyond the address space) or made wrong in
 * place (reserved bits, the reserved translation type); an invalidation
 * queue running or not, at a target of the same list, of 1 to 4 pages,
 * with its tail anywhere; interrupt remapping on or off; and for a third
 * of the states a change to the machine's own DMAR or MCFG, put back
 * after the monitor returns.
 *
 * Before each start it prints the state and what a monitor that checks
 * every pointer before following it must do ("expect taken", "refused",
 * "no-unit" or "any"); after it, whether the unit's registers, every PCI
 * function's configuration header on buses 0-1, the firmware's tables and
 * the bystander's BAR are as they were ("after: as found" or "after:
 * DIFFERS: ..."). tools/hostile.sh boots it and judges both against what
 * the monitor said. */
#include <efi.h>
#include <efilib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "standin.h"

#define TE (1u << 31)
#define SRTP (1u << 30)
#define QIE (1u << 26)
#define IRE (1u << 25)
#define SIRTP (1u << 24)
#define CFI (1u << 23)

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned pick(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* ---- where a pointer can lead ------------------------------------------ */
enum target {
	T_BOOT_DATA, /* the firmware's own, as EDK II's IntelVTdDxe allocates */
	T_RESERVED,
	T_ACPI_NVS,
	T_RUNTIME,
	T_FILLED, /* the firmware's memory, every byte 0xAF */
	T_FREED,  /* a page the firmware freed, contents left */
	T_FREED_AF,
	T_ECAM,	 /* a bystander's configuration page */
	T_BAR,	 /* a bystander's BAR */
	T_IMAGE, /* the monitor's own image */
	T_UNIT,	 /* the unit's registers */
	T_HOLE,	 /* no map entry, no device */
	T_BEYOND,
	T_COUNT
};
static const char *const tname[T_COUNT] = { "boot-data",      "reserved",   "acpi-nvs", "runtime-data", "0xaf-filled",
					    "freed",	      "freed-0xaf", "ecam",	"bar",		"monitor-image",
					    "unit-registers", "hole",	    "beyond" };
/* Memory the firmware keeps, written by this program: a table there is
 * the firmware's own. */
static bool kept(enum target t)
{
	return t <= T_FILLED;
}

static uint8_t *ecam;
static unsigned by_bus, by_dev, by_fn; /* the bystander */
static uint64_t by_bar;
static uint64_t mon_image;

static volatile uint32_t *cfg(unsigned bus, unsigned dev, unsigned fn)
{
	return (volatile uint32_t *)(ecam + ((uint64_t)bus << 20 | dev << 15 | fn << 12));
}

/* Pages this state allocated: freed before the next. */
#define MAX_HELD 16
static struct {
	EFI_PHYSICAL_ADDRESS a;
	UINTN pages;
} held[MAX_HELD];
static unsigned nheld;

static uint64_t alloc(EFI_MEMORY_TYPE type, UINTN pages)
{
	EFI_PHYSICAL_ADDRESS a = 0xffffffffull; /* below 4 GiB, as firmware tables often are */
	if (nheld == MAX_HELD || EFI_ERROR(BS->AllocatePages(AllocateMaxAddress, type, pages, &a)))
		return 0;
	held[nheld].a = a, held[nheld++].pages = pages;
	SetMem((void *)(uintptr_t)a, pages * 4096, 0);
	return a;
}

static void release_all(void)
{
	while (nheld) {
		nheld--;
		BS->FreePages(held[nheld].a, held[nheld].pages);
	}
}

/* Freed pages to give back just before the monitor starts (their contents
 * written first). */
static struct {
	EFI_PHYSICAL_ADDRESS a;
	UINTN pages;
} to_free[4];
static unsigned nto_free;

/* An address of `pages` pages at target `t`, filled with `content` (4096
 * bytes per page, NULL: zeros) where the target is memory this program may
 * write; 0 when it could not be had. */
static uint64_t place(enum target t, UINTN pages, const void *content)
{
	static const EFI_MEMORY_TYPE type[] = { EfiBootServicesData, EfiReservedMemoryType, EfiACPIMemoryNVS,
						EfiRuntimeServicesData, EfiBootServicesData };
	uint64_t a = 0;
	switch (t) {
	case T_BOOT_DATA:
	case T_RESERVED:
	case T_ACPI_NVS:
	case T_RUNTIME:
	case T_FILLED:
		a = alloc(type[t], pages);
		if (a && t == T_FILLED)
			SetMem((void *)(uintptr_t)a, pages * 4096, 0xaf);
		else if (a && content)
			CopyMem((void *)(uintptr_t)a, (void *)content, pages * 4096);
		return a;
	case T_FREED:
	case T_FREED_AF: {
		EFI_PHYSICAL_ADDRESS f = 0xffffffffull;
		if (nto_free == 4 || EFI_ERROR(BS->AllocatePages(AllocateMaxAddress, EfiBootServicesData, pages, &f)))
			return 0;
		if (t == T_FREED_AF)
			SetMem((void *)(uintptr_t)f, pages * 4096, 0xaf);
		else if (content)
			CopyMem((void *)(uintptr_t)f, (void *)content, pages * 4096);
		to_free[nto_free].a = f, to_free[nto_free++].pages = pages;
		return f;
	}
	case T_ECAM:
		return (uint64_t)(uintptr_t)cfg(by_bus, by_dev, by_fn);
	case T_BAR:
		return by_bar;
	case T_IMAGE:
		return mon_image;
	case T_UNIT:
		return (uint64_t)(uintptr_t)reg;
	case T_HOLE:
		return 0x3000000000ull; /* 192 GiB: above this machine's RAM, below its PCI windows */
	case T_BEYOND:
		return 1ull << 52;
	default:
		return 0;
	}
}

/* A target for a table: half the time the firmware's own memory, half
 * any of the list. */
static enum target draw(void)
{
	return pick(2) ? (enum target)pick(4) : (enum target)pick(T_COUNT);
}

/* ---- the unit ------------------------------------------------------------ */
static void invalidate_by_register(void)
{
	if (r32(0x1c) & QIE)
		return;
	w64(0x28, 1ull << 63 | 1ull << 61); /* CCMD: ICC, global */
	wait_bits(0x28, 1ull << 63, false, true);
	unsigned iotlb = (unsigned)((ecap >> 8) & 0x3ff) * 16 + 8;
	w64(iotlb, 1ull << 63 | 1ull << 60);
	wait_bits(iotlb, 1ull << 63, false, true);
}

/* Everything off, faults cleared: the state before each new one. */
static void unit_off(void)
{
	if (r32(0x1c) & IRE)
		command(IRE, IRE, false);
	if (r32(0x1c) & TE)
		command(TE, TE, false);
	if (r32(0x1c) & QIE)
		command(QIE, QIE, false);
	w32(0x34, 0x7f); /* FSTS: every write-1-to-clear bit */
	unsigned fro = (unsigned)((cap >> 24) & 0x3ff) * 16, nfr = (unsigned)((cap >> 40) & 0xff) + 1;
	for (unsigned i = 0; i < nfr; i++)
		w32(fro + 16 * i + 12, 1u << 31);
}

/* ---- one state ------------------------------------------------------------ */
struct state {
	bool te, queue, ire, refused;
	bool no_unit; /* the DMAR no longer names the unit: no vtd case may pass */
	bool any;     /* the tables changed otherwise: only the invariants hold */
	bool last;    /* the unit cannot be turned off after it: the boot ends */
	char desc[STANDIN_TEXT];
	uint64_t root, ctx_bad, iqa;
	/* the firmware's tables this program wrote, compared afterwards */
	uint64_t kept_pages[8];
	unsigned nkept;
};

static uint64_t *good_ctx;   /* boot-services data of its own, kept for the campaign */
static uint64_t wait_status; /* where its wait descriptors write, the same */
static uint64_t root_image[512] __attribute__((aligned(4096)));
static uint64_t ctx_image[512] __attribute__((aligned(4096)));

static void keep_page(struct state *st, enum target t, uint64_t a)
{
	if (kept(t) && a && st->nkept < 8)
		st->kept_pages[st->nkept++] = a;
}

/* ---- the machine's own tables, changed in place for one state ---------- */
static uint8_t *dmar_t, *mcfg_t;
static uint8_t dmar_saved[2048], mcfg_saved[256];
static uint32_t dmar_n, mcfg_n;

/* A target for a register window or ECAM a table names: a page of the
 * firmware's filled with a pattern (compared afterwards), another
 * device's BAR or configuration page, the unit's next page, a hole, zero,
 * beyond the address space. */
static uint64_t window_target(struct state *st, unsigned *k)
{
	static const char *const names[] = { "ram", "bar", "ecam", "unit-next", "hole", "zero", "beyond" };
	unsigned w = pick(7);
	uint64_t a = 0;
	if (w == 0) {
		a = place(T_BOOT_DATA, 1, NULL);
		if (a) {
			SetMem((void *)(uintptr_t)a, 4096, 0x5a);
			keep_page(st, T_BOOT_DATA, a);
		}
	} else if (w == 1) {
		a = by_bar;
	} else if (w == 2) {
		a = (uint64_t)(uintptr_t)cfg(by_bus, by_dev, by_fn);
	} else if (w == 3) {
		a = (uint64_t)(uintptr_t)reg + 0x1000;
	} else if (w == 4) {
		a = 0x3000000000ull;
	} else if (w == 6) {
		a = 1ull << 52;
	}
	*k = say(st->desc, *k, names[w]);
	*k = say(st->desc, *k, " ");
	return a;
}

/* One change to the DMAR or the MCFG (restored by tables_back). */
static unsigned mutate_tables(struct state *st, unsigned k)
{
	uint32_t dlen = dmar_n;
	unsigned what = pick(8);
	bool fix = pick(2);
	st->any = true;
	if (what == 0) { /* the first DRHD's register base */
		k = say(st->desc, k, "dmar.base=");
		uint64_t a = window_target(st, &k);
		*(uint64_t *)(dmar_t + 48 + 8) = a;
		st->no_unit = true, st->any = false;
	} else if (what == 1) { /* the table's length */
		uint32_t n = 36 + pick(dlen + 64 - 36);
		*(uint32_t *)(dmar_t + 4) = n;
		k = say(st->desc, k, "dmar.length=");
		k = say_hex(st->desc, k, n);
		k = say(st->desc, k, " ");
	} else if (what == 2) { /* INCLUDE_PCI_ALL toggled */
		dmar_t[48 + 4] ^= 1;
		k = say(st->desc, k, "dmar.include-all-toggled ");
	} else if (what == 3) { /* the first structure's length */
		static const uint16_t lens[] = { 0, 1, 4, 15, 16, 17, 0xffff };
		*(uint16_t *)(dmar_t + 48 + 2) = lens[pick(7)];
		k = say(st->desc, k, "dmar.struct-length=");
		k = say_hex(st->desc, k, *(uint16_t *)(dmar_t + 48 + 2));
		k = say(st->desc, k, " ");
	} else if (what == 4) { /* the host address width */
		dmar_t[36] = (uint8_t)rnd();
		k = say(st->desc, k, "dmar.haw=");
		k = say_hex(st->desc, k, dmar_t[36]);
		k = say(st->desc, k, " ");
	} else if (what == 5) { /* bytes of the remapping structures */
		unsigned n = 1 + pick(4);
		for (unsigned i = 0; i < n && dlen > 48; i++)
			dmar_t[48 + pick(dlen - 48)] = (uint8_t)rnd();
		k = say(st->desc, k, "dmar.bytes ");
	} else if (what == 6) { /* ECAM's base */
		k = say(st->desc, k, "mcfg.base=");
		*(uint64_t *)(mcfg_t + 44) = window_target(st, &k);
	} else { /* ECAM's bus range */
		mcfg_t[44 + 10] = (uint8_t)rnd();
		mcfg_t[44 + 11] = (uint8_t)rnd();
		k = say(st->desc, k, "mcfg.buses=");
		k = say_hex(st->desc, k, mcfg_t[54]);
		k = say(st->desc, k, "-");
		k = say_hex(st->desc, k, mcfg_t[55]);
		k = say(st->desc, k, " ");
	}
	if (fix) {
		checksum(dmar_t, dmar_n);
		checksum(mcfg_t, mcfg_n);
	} else {
		k = say(st->desc, k, "(checksum left) ");
	}
	return k;
}

static void tables_back(void)
{
	CopyMem(dmar_t, dmar_saved, dmar_n);
	CopyMem(mcfg_t, mcfg_saved, mcfg_n);
}

static void build(struct state *st, unsigned dut_bus)
{
	unsigned k = 0;
	st->te = pick(2);
	st->queue = pick(5) < 2;
	st->refused = false;
	nto_free = 0;
	if (pick(3) == 0)
		k = mutate_tables(st, k);
	if (st->te) {
		/* the root table: bus 0's and the device under test's bus lead to
		 * the firmware's pass-through context table */
		SetMem(root_image, 4096, 0);
		root_image[0] = (uint64_t)(uintptr_t)good_ctx | 1;
		root_image[2 * dut_bus] = (uint64_t)(uintptr_t)good_ctx | 1;
		unsigned what = pick(4); /* 0: the root placed; 1: a context table; 2: an entry; 3: all well */
		unsigned bus = pick(2) ? dut_bus : pick(256);
		if (what == 1) {
			enum target t = draw();
			uint64_t c = place(t, 1, good_ctx);
			if (c) {
				root_image[2 * bus] = c | 1;
				keep_page(st, t, c);
				st->refused |= !(t <= T_RUNTIME);
				k = say(st->desc, k, "ctx[bus ");
				k = say_hex(st->desc, k, bus);
				k = say(st->desc, k, "]=");
				k = say(st->desc, k, tname[t]);
				k = say(st->desc, k, " ");
			}
		} else if (what == 2) {
			CopyMem(ctx_image, good_ctx, 4096);
			unsigned fn = pick(256), kind = pick(4);
			static const char *const kinds[] = { "lo-reserved", "tt3", "hi-bit7", "hi-reserved" };
			if (kind == 0)
				ctx_image[2 * fn] |= 1ull << (4 + pick(8));
			else if (kind == 1)
				ctx_image[2 * fn] = (ctx_image[2 * fn] & ~0xcull) | 0xc | 1;
			else if (kind == 2)
				ctx_image[2 * fn + 1] |= 0x80;
			else
				ctx_image[2 * fn + 1] |= 1ull << (24 + pick(40));
			ctx_image[2 * fn] |= 1;
			uint64_t c = place(T_BOOT_DATA, 1, ctx_image);
			if (c) {
				root_image[2 * bus] = c | 1;
				keep_page(st, T_BOOT_DATA, c);
				st->refused = true;
				k = say(st->desc, k, "ctx[bus ");
				k = say_hex(st->desc, k, bus);
				k = say(st->desc, k, " fn ");
				k = say_hex(st->desc, k, fn);
				k = say(st->desc, k, "]=");
				k = say(st->desc, k, kinds[kind]);
				k = say(st->desc, k, " ");
			}
		}
		enum target rt = what == 0 ? draw() : (enum target)pick(4);
		st->root = place(rt, 1, root_image);
		if (!st->root) /* a target this machine lacks (no BAR): the firmware's own */
			rt = T_BOOT_DATA, st->root = place(rt, 1, root_image);
		keep_page(st, rt, st->root);
		st->refused |= !(rt <= T_RUNTIME);
		k = say(st->desc, k, "te root=");
		k = say(st->desc, k, tname[rt]);
		k = say(st->desc, k, " ");
		w64(0x20, st->root);
		command(SRTP, SRTP, true);
	} else {
		k = say(st->desc, k, "te=off ");
	}
	if (st->queue) {
		unsigned qs = pick(3);
		enum target t = pick(16) ? (enum target)pick(T_FREED) : (enum target)pick(T_COUNT);
		uint64_t q = place(t, 1u << qs, NULL);
		if (q) {
			st->iqa = q | qs;
			st->refused |= !kept(t); /* its contents are not read: 0xAF is no defect here */
			k = say(st->desc, k, "queue=");
			k = say(st->desc, k, tname[t]);
			k = say(st->desc, k, " qs=");
			k = say_hex(st->desc, k, qs);
			k = say(st->desc, k, " ");
			/* QEMU turns a queue off only when its last descriptor was a
			 * wait (the spec's advice, made a rule): a queue here ends
			 * with one, so that the next state can turn it off. One in
			 * memory this program may not write gets none: it ends the
			 * boot (st->last), and is drawn rarely for that. */
			if (kept(t)) {
				uint64_t *d = (uint64_t *)(uintptr_t)q;
				unsigned n = t != T_FILLED ? pick(6) : 0; /* harmless ones first: the tail not at 0 */
				for (unsigned i = 0; i < n; i++)
					d[2 * i] = 1 | 1u << 4, d[2 * i + 1] = 0; /* context cache, global */
				d[2 * n] = 5 | 1u << 5 | (uint64_t)1 << 32, d[2 * n + 1] = wait_status;
				w64(0x88, 0);
				w64(0x90, st->iqa);
				command(QIE, QIE, true);
				w64(0x88, (uint64_t)(n + 1) << 4);
				for (int i = 0; i < 100000 && r64(0x80) != r64(0x88); i++)
					BS->Stall(10);
			} else {
				w64(0x88, 0);
				w64(0x90, st->iqa);
				command(QIE, QIE, true);
				st->last = true;
			}
			k = say(st->desc, k, "iqa=");
			k = say_hex(st->desc, k, r64(0x90));
			k = say(st->desc, k, " ");
			if (kept(t) && pick(3) == 0) {
				uint64_t irt = place(T_BOOT_DATA, 1, NULL);
				if (irt) {
					uint64_t *e = (uint64_t *)(uintptr_t)irt;
					e[0] = 1 | (uint64_t)0x40 << 16;
					w64(0xb8, irt | 7);
					command(SIRTP, SIRTP, true);
					command(CFI, CFI, true);
					command(IRE, IRE, true);
					st->ire = true;
					keep_page(st, T_BOOT_DATA, irt);
					k = say(st->desc, k, "ire ");
				}
			}
		} else {
			st->queue = false;
		}
	}
	if (!st->queue)
		k = say(st->desc, k, "queue=off ");
	if (!(r32(0x1c) & QIE))
		invalidate_by_register();
	if (st->te)
		command(TE, TE, true);
	for (unsigned i = 0; i < nto_free; i++)
		BS->FreePages(to_free[i].a, to_free[i].pages);
	if (k && st->desc[k - 1] == ' ')
		st->desc[k - 1] = 0;
}

/* ---- what the monitor left -------------------------------------------------- */
#define MAX_FN 64
static struct {
	unsigned bus, dev, fn;
	uint32_t hdr[16];
} fns[MAX_FN];
static unsigned nfns;
static uint32_t regs_before[8];
static uint8_t tables_before[8][4096];
static uint32_t bar_before[64]; /* the bystander's first 256 bytes of BAR */

static void read_regs(uint32_t *r)
{
	r[0] = r32(0x1c) & (TE | QIE | IRE);
	r[1] = (uint32_t)r64(0x20), r[2] = (uint32_t)(r64(0x20) >> 32);
	r[3] = (uint32_t)r64(0x90), r[4] = (uint32_t)r64(0x88);
	r[5] = (uint32_t)r64(0xb8);
	r[6] = r32(0x38) & ~(1u << 30); /* FECTL less IP */
	r[7] = r32(0x3c);
}

static void snapshot(struct state *st)
{
	read_regs(regs_before);
	nfns = 0;
	for (unsigned bus = 0; bus < 2; bus++)
		for (unsigned dev = 0; dev < 32; dev++)
			for (unsigned fn = 0; fn < 8 && nfns < MAX_FN; fn++) {
				volatile uint32_t *c = cfg(bus, dev, fn);
				if ((c[0] & 0xffff) == 0xffff)
					continue;
				fns[nfns].bus = bus, fns[nfns].dev = dev, fns[nfns].fn = fn;
				for (unsigned i = 0; i < 16; i++)
					fns[nfns].hdr[i] = c[i];
				nfns++;
			}
	for (unsigned i = 0; i < st->nkept; i++)
		CopyMem(tables_before[i], (void *)(uintptr_t)st->kept_pages[i], 4096);
	for (unsigned i = 0; by_bar && i < 64; i++)
		bar_before[i] = ((volatile uint32_t *)(uintptr_t)by_bar)[i];
}

static void compare(struct state *st, CHAR16 *out, UINTN cap_)
{
	uint32_t now[8];
	static const CHAR16 *const rn[8] = { L"GSTS", L"RTADDR", L"RTADDR.hi", L"IQA",
					     L"IQT",  L"IRTA",	 L"FECTL",     L"FEDATA" };
	UINTN k = 0;
	out[0] = 0;
	read_regs(now);
	for (unsigned i = 0; i < 8; i++)
		if (now[i] != regs_before[i] && k + 60 < cap_)
			k += SPrint(out + k, (cap_ - k) * sizeof(CHAR16), L" register %s 0x%x (was 0x%x);", rn[i],
				    now[i], regs_before[i]);
	for (unsigned f = 0; f < nfns; f++) {
		volatile uint32_t *c = cfg(fns[f].bus, fns[f].dev, fns[f].fn);
		for (unsigned i = 0; i < 16; i++) {
			uint32_t mask = i == 1 ? 0xffffu : 0xffffffffu; /* the status register's bits come and go */
			if (((c[i] ^ fns[f].hdr[i]) & mask) && k + 60 < cap_)
				k += SPrint(out + k, (cap_ - k) * sizeof(CHAR16),
					    L" config %02x:%02x.%x+0x%x 0x%08x (was 0x%08x);", fns[f].bus, fns[f].dev,
					    fns[f].fn, 4 * i, c[i], fns[f].hdr[i]);
		}
	}
	for (unsigned i = 0; i < st->nkept; i++)
		if (CompareMem(tables_before[i], (void *)(uintptr_t)st->kept_pages[i], 4096) && k + 60 < cap_)
			k += SPrint(out + k, (cap_ - k) * sizeof(CHAR16), L" the firmware's table at 0x%lx changed;",
				    st->kept_pages[i]);
	for (unsigned i = 0; by_bar && i < 64; i++) {
		uint32_t now_v = ((volatile uint32_t *)(uintptr_t)by_bar)[i];
		/* pci-testdev's registers change only when written */
		if (now_v != bar_before[i] && k + 60 < cap_)
			k += SPrint(out + k, (cap_ - k) * sizeof(CHAR16), L" bystander BAR+0x%x 0x%08x (was 0x%08x);",
				    4 * i, now_v, bar_before[i]);
	}
}

/* ---- the campaign ------------------------------------------------------------ */
static void find_bystander(void)
{
	/* QEMU's pci-testdev (1b36:0005) on bus 0, which the monitor never
	 * drives, else the first function there that is not a bridge or the
	 * host bridge: its ECAM page and first memory BAR */
	unsigned want = 0x00051b36;
	for (unsigned dev = 1; dev < 64; dev++) {
		volatile uint32_t *c = cfg(0, dev % 32, 0);
		if (dev == 32)
			want = 0;
		if ((c[0] & 0xffff) == 0xffff || ((c[3] >> 16) & 0x7f) != 0 || (want && c[0] != want))
			continue;
		by_bus = 0, by_dev = dev % 32, by_fn = 0;
		for (unsigned b = 0; b < 6; b++) {
			uint32_t lo = c[4 + b];
			if (!(lo & 1) && (lo & ~0xfu)) {
				by_bar = (lo & ~0xfull) | ((lo & 6) == 4 ? (uint64_t)c[5 + b] << 32 : 0);
				break;
			}
		}
		return;
	}
}

EFI_STATUS hostile_main(EFI_HANDLE image, EFI_LOADED_IMAGE *li, const char *args)
{
	uint64_t seed = number(&args), count = number(&args);
	unsigned dut_bus = 1;
	uint8_t *dmar = find_table("DMAR"), *mcfg = find_table("MCFG");
	if (!dmar || !mcfg || !seed || !count) {
		Print(L"hostile: usage: hostile SEED COUNT, on a machine with a DMAR and an MCFG (seed %lx, count %ld, "
		      L"DMAR %a, MCFG %a)\n",
		      seed, count, dmar ? "found" : "missing", mcfg ? "found" : "missing");
		return EFI_INVALID_PARAMETER;
	}
	uint8_t *s = dmar + 48;
	while (s < dmar + *(uint32_t *)(dmar + 4) && *(uint16_t *)s != 0)
		s += *(uint16_t *)(s + 2);
	reg = (uint8_t *)(uintptr_t) * (uint64_t *)(s + 8);
	cap = r64(0x08), ecap = r64(0x10);
	ecam = (uint8_t *)(uintptr_t) * (uint64_t *)(mcfg + 44);
	if (!(ecap & (1u << 6))) {
		Print(
		    L"hostile: the unit has no pass-through (ECAP.PT clear): the firmware's tables cannot be built\n");
		return EFI_UNSUPPORTED;
	}
	/* the firmware's context table: every function passed through, 39 bits
	 * (AW 1), domain 1 */
	EFI_PHYSICAL_ADDRESS g = 0xffffffffull;
	if (EFI_ERROR(BS->AllocatePages(AllocateMaxAddress, EfiBootServicesData, 1, &g))) {
		Print(L"hostile: no memory for the firmware's context table\n");
		return EFI_OUT_OF_RESOURCES;
	}
	good_ctx = (uint64_t *)(uintptr_t)g;
	g = 0xffffffffull;
	if (EFI_ERROR(BS->AllocatePages(AllocateMaxAddress, EfiBootServicesData, 1, &g))) {
		Print(L"hostile: no memory for the queue's status\n");
		return EFI_OUT_OF_RESOURCES;
	}
	wait_status = g;
	for (unsigned fn = 0; fn < 256; fn++)
		good_ctx[2 * fn + 1] = 1 | 1u << 8, good_ctx[2 * fn] = 1 | 2u << 2;
	find_bystander();
	dmar_t = dmar, mcfg_t = mcfg;
	dmar_n = *(uint32_t *)(dmar + 4), mcfg_n = *(uint32_t *)(mcfg + 4);
	if (dmar_n > sizeof(dmar_saved) || mcfg_n > sizeof(mcfg_saved)) {
		Print(L"hostile: the DMAR (%d bytes) or MCFG (%d) is larger than the copy kept of it\n", dmar_n,
		      mcfg_n);
		return EFI_UNSUPPORTED;
	}
	CopyMem(dmar_saved, dmar, dmar_n);
	CopyMem(mcfg_saved, mcfg, mcfg_n);
	/* the mark tools/hostile.sh finds in QEMU's trace of configuration
	 * writes: from here on no one writes the bystander's configuration
	 * space (its interrupt line, 0xa5 and then as it was) */
	volatile uint8_t *line = (volatile uint8_t *)cfg(by_bus, by_dev, by_fn) + 0x3c;
	uint8_t was = *line;
	*line = 0xa5;
	*line = was;
	Print(L"hostile: seed 0x%lx, %ld states; unit at 0x%lx, bystander %02x:%02x.%x (BAR 0x%lx)\n", seed, count,
	      (uint64_t)(uintptr_t)reg, by_bus, by_dev, by_fn, by_bar);
	(void)li;
	UINTN mon_size = 0;
	void *mon_file = fwcfg_file("opt/iommon/monitor.efi", &mon_size);
	if (!mon_file) {
		Print(L"hostile: no fw_cfg file opt/iommon/monitor.efi: no monitor to start\n");
		return EFI_NOT_FOUND;
	}
	static CHAR16 plan[] =
	    L"iommon.efi set records console; set device 01:00.0; run vtd.takeover vtd.translate_4k; "
	    L"exit firmware";
	for (uint64_t i = 0; i < count; i++) {
		rng = seed * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull + 1;
		for (int warm = 0; warm < 4; warm++)
			rnd();
		unit_off();
		if (r32(0x1c) & (TE | QIE | IRE)) {
			/* the campaign's own failure, not the monitor's: said, and ended */
			Print(L"hostile: state %ld: the unit did not turn off (GSTS 0x%x, FSTS 0x%x, IQH 0x%lx, IQT "
			      L"0x%lx)\n",
			      i + 1, r32(0x1c), r32(0x34), r64(0x80), r64(0x88));
			break;
		}
		release_all();
		EFI_HANDLE mon = NULL;
		EFI_STATUS st = BS->LoadImage(FALSE, image, NULL, mon_file, mon_size, &mon);
		if (EFI_ERROR(st)) {
			Print(L"hostile: state %ld: the monitor (%ld bytes from fw_cfg) not loaded: %r\n", i, mon_size,
			      st);
			return st;
		}
		EFI_LOADED_IMAGE *ml;
		BS->HandleProtocol(mon, &LoadedImageProtocol, (void **)&ml);
		mon_image = ((uint64_t)(uintptr_t)ml->ImageBase + 4095) & ~0xfffull;
		ml->LoadOptions = plan;
		ml->LoadOptionsSize = sizeof(plan);
		static struct state stt;
		SetMem(&stt, sizeof(stt), 0);
		build(&stt, dut_bus);
		snapshot(&stt);
		Print(L"hostile: state %ld/%ld (seed 0x%lx): %a: expect %a\n", i + 1, count, seed, stt.desc,
		      stt.no_unit   ? "no-unit"
		      : stt.any	    ? "any"
		      : stt.refused ? "refused"
				    : "taken");
		st = BS->StartImage(mon, NULL, NULL);
		tables_back();
		static CHAR16 diff[1024];
		compare(&stt, diff, 1024);
		Print(L"hostile: state %ld: after: %s%s\n", i + 1, diff[0] ? L"DIFFERS:" : L"as found", diff);
		if (stt.last) {
			Print(L"hostile: state %ld ends the boot: its queue is where no wait descriptor can be "
			      L"written, and "
			      L"QEMU turns a queue off only after one\n",
			      i + 1);
			break;
		}
	}
	unit_off();
	release_all();
	Print(L"hostile: done\n");
	/* the campaign is the whole boot: off, rather than on to the boot manager */
	RT->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
	return EFI_SUCCESS;
}
