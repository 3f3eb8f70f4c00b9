/* dmafw: a stand-in for firmware that protects memory from DMA before the
 * OS boots, so that iommon's protection group and its live take-over can
 * be tested on QEMU, whose OVMF never leaves a VT-d unit on. A UEFI
 * application of its own (x86_64 only): started from the stick as
 * \EFI\BOOT\BOOTX64.EFI, it does to the first DMAR unit what pre-boot DMA
 * protection does, then loads and starts the monitor (\iommon.efi).
 *
 * The design, one variant per first word of \standin.txt:
 *   protect        translation on: every source id in one domain whose
 *                  second-level tables identity-map only what was
 *                  allocated when dmafw ran (the firmware's and its
 *                  drivers' memory: buffers, rings, ACPI, runtime) less
 *                  dmafw's own table pages; an EDKII_IOMMU_PROTOCOL is
 *                  installed, through which EDK II's PCI host bridge driver
 *                  (a protocol notification) routes every later Map,
 *                  AllocateBuffer and Unmap: Map identity-maps the buffer,
 *                  Unmap removes what nothing else needs. Memory allocated
 *                  later (the monitor's) is not reachable by any device.
 *                  Register-based invalidation.
 *   protect-queue  the same, with the invalidation queue and interrupt
 *                  remapping on (two entries of its own in a 256-entry table)
 *   liar           translation on with every source id passed through:
 *                  the DMAR promises, nothing is protected
 *   flag-only      the promise and nothing else: translation stays off
 * Every variant sets DMA_CTRL_PLATFORM_OPT_IN in the DMAR's flags (and the
 * checksum), as firmware that protects does. Nothing is given back: dmafw
 * is the firmware here. */
#include <efi.h>
#include <efilib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "standin.h"

#define POOL_PAGES 4096 /* root, 256 context tables, the page tables, queue, IRT, status */

uint8_t *reg;
uint64_t cap, ecap;
static uint64_t *pool;
static size_t pool_used;
static uint64_t *top_table;
static unsigned levels, aw;
static bool queue_on;
static unsigned mapcalls, unmaps;
static uint64_t *queue;
static volatile uint32_t *status;
static uint32_t seq;

uint32_t r32(unsigned off)
{
	return *(volatile uint32_t *)(reg + off);
}
uint64_t r64(unsigned off)
{
	return *(volatile uint64_t *)(reg + off);
}
void w32(unsigned off, uint32_t v)
{
	*(volatile uint32_t *)(reg + off) = v;
}
void w64(unsigned off, uint64_t v)
{
	*(volatile uint64_t *)(reg + off) = v;
}

bool wait_bits(unsigned off, uint64_t mask, bool set, bool wide)
{
	for (int i = 0; i < 100000; i++) { /* 1 s */
		uint64_t v = wide ? r64(off) : r32(off);
		if (!!(v & mask) == set)
			return true;
		BS->Stall(10);
	}
	return false;
}

/* GCMD: the persistent bits kept (TE, AFL, QIE, IRE, CFI), one command set */
bool command(uint32_t bit, uint32_t status_bit, bool set)
{
	uint32_t keep = r32(0x1c) & 0x96800000u;
	w32(0x18, set ? keep | bit : keep & ~bit);
	return wait_bits(0x1c, status_bit, set, false);
}

static uint64_t *page(void)
{
	if (pool_used == POOL_PAGES)
		return NULL;
	uint64_t *p = pool + 512 * pool_used++;
	SetMem(p, 4096, 0);
	return p;
}

static bool in_pool(uint64_t a)
{
	uint64_t b = (uint64_t)(uintptr_t)pool;
	return a >= b && a < b + POOL_PAGES * 4096ull;
}

/* The leaf entry of `a` (allocating tables on the way when `make`). */
static uint64_t *leaf(uint64_t a, bool make)
{
	uint64_t *t = top_table;
	for (unsigned l = levels; l > 1; l--) {
		uint64_t *e = &t[(a >> (12 + 9 * (l - 1))) & 511];
		if (!(*e & 3)) {
			uint64_t *n = make ? page() : NULL;
			if (!n)
				return NULL;
			*e = (uint64_t)(uintptr_t)n | 3;
		}
		t = (uint64_t *)(uintptr_t)(*e & 0x000ffffffffff000ull);
	}
	return &t[(a >> 12) & 511];
}

static void map_range(uint64_t a, uint64_t end)
{
	for (a &= ~0xfffull; a < end; a += 4096) {
		uint64_t *e = in_pool(a) ? NULL : leaf(a, true);
		if (e)
			*e = a | 3;
	}
}

/* What was allocated when dmafw ran: kept mapped for good. */
#define MAX_BASE 512
static struct {
	uint64_t a, end;
} base[MAX_BASE];
static size_t nbase;

static bool in_base(uint64_t a)
{
	for (size_t i = 0; i < nbase; i++)
		if (a >= base[i].a && a < base[i].end)
			return true;
	return false;
}

/* Live mappings of the protocol */
#define MAX_MAPS 512
static struct mapping {
	uint64_t a, len;
	bool used;
} maps[MAX_MAPS];

static bool mapped_by_other(uint64_t pg, const struct mapping *self)
{
	for (size_t i = 0; i < MAX_MAPS; i++)
		if (maps[i].used && &maps[i] != self && pg + 4096 > maps[i].a && pg < maps[i].a + maps[i].len)
			return true;
	return false;
}

/* The IOTLB globally: by register, or through the queue, with interrupts
 * off so that no timer callback's submission interleaves with this one. */
static void flush_iotlb(void)
{
	if (queue_on) {
		EFI_TPL old = BS->RaiseTPL(TPL_HIGH_LEVEL);
		unsigned tail = (unsigned)(r64(0x88) >> 4) & 255;
		uint64_t *d = queue + 2 * tail;
		d[0] = 2 | 1u << 4, d[1] = 0; /* IOTLB, global */
		tail = (tail + 1) % 256;
		d = queue + 2 * tail;
		uint32_t s = ++seq;
		d[0] = 5 | 1u << 5 | (uint64_t)s << 32, d[1] = (uint64_t)(uintptr_t)status;
		tail = (tail + 1) % 256;
		w64(0x88, (uint64_t)tail << 4);
		for (int i = 0; i < 100000 && *status != s; i++)
			BS->Stall(10);
		BS->RestoreTPL(old);
		return;
	}
	/* a queue someone else turned on refuses register-based invalidation */
	if (r32(0x1c) & (1u << 26))
		return;
	unsigned iotlb = (unsigned)((ecap >> 8) & 0x3ff) * 16 + 8;
	w64(iotlb, 1ull << 63 | 1ull << 60);
	wait_bits(iotlb, 1ull << 63, false, true);
}

static void unmap_range(const struct mapping *m)
{
	bool any = false;
	for (uint64_t pg = m->a & ~0xfffull; pg < m->a + m->len; pg += 4096) {
		if (in_base(pg) || mapped_by_other(pg, m))
			continue;
		uint64_t *e = leaf(pg, false);
		if (e && *e) {
			*e = 0;
			any = true;
		}
	}
	if (any)
		flush_iotlb();
}

static bool ours(const struct mapping *m)
{
	return m >= maps && m < maps + MAX_MAPS && m->used;
}

/* [a, end) no longer allocated: out of the base ranges, unmapped unless a
 * live mapping needs it. */
static void base_cut(uint64_t a, uint64_t end)
{
	bool any = false;
	for (size_t i = 0; i < nbase; i++) {
		if (end <= base[i].a || a >= base[i].end)
			continue;
		uint64_t lo = base[i].a, hi = base[i].end;
		if (a > lo && end < hi && nbase < MAX_BASE) { /* split */
			base[nbase].a = end, base[nbase++].end = hi;
			base[i].end = a;
		} else if (a <= lo) {
			base[i].a = end < hi ? end : hi;
		} else {
			base[i].end = a;
		}
	}
	struct mapping none = { 0, 0, false };
	for (uint64_t pg = a & ~0xfffull; pg < end; pg += 4096) {
		if (in_base(pg) || mapped_by_other(pg, &none))
			continue;
		uint64_t *e = leaf(pg, false);
		if (e && *e)
			*e = 0, any = true;
	}
	if (any)
		flush_iotlb();
}

/* ---- EDKII_IOMMU_PROTOCOL (MdeModulePkg/Include/Protocol/IoMmu.h) ---- */
typedef struct iommu_protocol IOMMU_P;
struct iommu_protocol {
	UINT64 revision;
	EFI_STATUS(EFIAPI *set_attribute)(IOMMU_P *, EFI_HANDLE, VOID *, UINT64);
	EFI_STATUS(EFIAPI *map)(IOMMU_P *, UINTN, VOID *, UINTN *, EFI_PHYSICAL_ADDRESS *, VOID **);
	EFI_STATUS(EFIAPI *unmap)(IOMMU_P *, VOID *);
	EFI_STATUS(EFIAPI *allocate)(IOMMU_P *, EFI_ALLOCATE_TYPE, EFI_MEMORY_TYPE, UINTN, VOID **, UINT64);
	EFI_STATUS(EFIAPI *free)(IOMMU_P *, UINTN, VOID *);
};

static EFI_STATUS EFIAPI p_set_attribute(IOMMU_P *p, EFI_HANDLE dev, VOID *mapping, UINT64 access)
{
	(void)p, (void)dev;
	struct mapping *m = mapping;
	if (!ours(m))
		return EFI_SUCCESS; /* made before dmafw: mapped already, as all memory allocated then */
	if (access & 3)
		map_range(m->a, m->a + m->len);
	else
		unmap_range(m);
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI p_map(IOMMU_P *p, UINTN op, VOID *host, UINTN *n, EFI_PHYSICAL_ADDRESS *dev, VOID **mapping)
{
	(void)p, (void)op;
	if (!n || !dev || !mapping)
		return EFI_INVALID_PARAMETER;
	mapcalls++;
	for (size_t i = 0; i < MAX_MAPS; i++)
		if (!maps[i].used) {
			maps[i] = (struct mapping){ (uint64_t)(uintptr_t)host, *n, true };
			map_range(maps[i].a, maps[i].a + maps[i].len); /* RootBridgeIo callers set no attribute */
			*dev = (uint64_t)(uintptr_t)host;
			*mapping = &maps[i];
			return EFI_SUCCESS;
		}
	return EFI_OUT_OF_RESOURCES;
}

static EFI_STATUS EFIAPI p_unmap(IOMMU_P *p, VOID *mapping)
{
	(void)p;
	struct mapping *m = mapping;
	/* a mapping made before dmafw ran (PciHostBridgeDxe hands those to
	 * the protocol too: NO_MAPPING, (VOID *)-1, where nothing bounced) */
	if (!ours(m))
		return EFI_SUCCESS;
	unmaps++;
	unmap_range(m);
	m->used = false;
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI p_allocate(IOMMU_P *p, EFI_ALLOCATE_TYPE type, EFI_MEMORY_TYPE mt, UINTN pages, VOID **host,
				    UINT64 attr)
{
	(void)p, (void)attr;
	EFI_PHYSICAL_ADDRESS a = type == AllocateAnyPages ? 0 : (EFI_PHYSICAL_ADDRESS)(uintptr_t)*host;
	EFI_STATUS st = BS->AllocatePages(type, mt, pages, &a);
	if (!EFI_ERROR(st))
		*host = (VOID *)(uintptr_t)a;
	return st;
}

static EFI_STATUS EFIAPI p_free(IOMMU_P *p, UINTN pages, VOID *host)
{
	(void)p;
	EFI_STATUS st = BS->FreePages((EFI_PHYSICAL_ADDRESS)(uintptr_t)host, pages);
	if (!EFI_ERROR(st)) /* a buffer allocated before dmafw ran, freed: no longer anyone's */
		base_cut((uint64_t)(uintptr_t)host, (uint64_t)(uintptr_t)host + pages * 4096ull);
	return st;
}

static IOMMU_P protocol = { 0x00010000, p_set_attribute, p_map, p_unmap, p_allocate, p_free };
static EFI_GUID iommu_guid = { 0x4e939de9, 0xd948, 0x4b0f, { 0x88, 0xed, 0xe6, 0xe1, 0xce, 0x51, 0x7c, 0x1e } };

/* ---- ACPI ---- */
uint8_t *find_table(const char *sig)
{
	EFI_GUID g = ACPI_20_TABLE_GUID;
	uint8_t *rsdp = NULL;
	for (UINTN i = 0; i < ST->NumberOfTableEntries; i++)
		if (CompareGuid(&ST->ConfigurationTable[i].VendorGuid, &g) == 0)
			rsdp = ST->ConfigurationTable[i].VendorTable;
	if (!rsdp)
		return NULL;
	uint8_t *xsdt = (uint8_t *)(uintptr_t) * (uint64_t *)(rsdp + 24);
	uint32_t len = *(uint32_t *)(xsdt + 4);
	for (uint32_t o = 36; o + 8 <= len; o += 8) {
		uint8_t *t = (uint8_t *)(uintptr_t) * (uint64_t *)(xsdt + o);
		if (t[0] == sig[0] && t[1] == sig[1] && t[2] == sig[2] && t[3] == sig[3])
			return t;
	}
	return NULL;
}

static void promise(uint8_t *dmar)
{
	dmar[37] |= 4; /* DMA_CTRL_PLATFORM_OPT_IN */
	checksum(dmar, *(uint32_t *)(dmar + 4));
}

/* The memory map: every allocated range mapped (`cut` false), or every
 * range free now cut out of those (`cut`: just before the monitor starts,
 * so that what was freed since is nobody's). */
static void snapshot_memory(bool cut)
{
	UINTN size = 0, key, dsize;
	UINT32 ver;
	BS->GetMemoryMap(&size, NULL, &key, &dsize, &ver);
	size += 16 * sizeof(EFI_MEMORY_DESCRIPTOR);
	EFI_MEMORY_DESCRIPTOR *map = NULL;
	if (EFI_ERROR(BS->AllocatePool(EfiLoaderData, size, (void **)&map)))
		return;
	if (EFI_ERROR(BS->GetMemoryMap(&size, map, &key, &dsize, &ver))) {
		BS->FreePool(map);
		return;
	}
	for (UINTN o = 0; o + dsize <= size; o += dsize) {
		EFI_MEMORY_DESCRIPTOR *d = (EFI_MEMORY_DESCRIPTOR *)((uint8_t *)map + o);
		if (cut) {
			if (d->Type == EfiConventionalMemory)
				base_cut(d->PhysicalStart, d->PhysicalStart + d->NumberOfPages * 4096);
			continue;
		}
		/* what no device DMAs to: free memory, MMIO, and what the firmware
		 * reserves (edk2 2025.02's OVMF reserves ranges large enough to
		 * use up the table pool at 4 KiB leaves) */
		if (d->Type == EfiConventionalMemory || d->Type == EfiMemoryMappedIO ||
		    d->Type == EfiMemoryMappedIOPortSpace || d->Type == EfiUnusableMemory ||
		    d->Type == EfiReservedMemoryType)
			continue;
		uint64_t a = d->PhysicalStart, end = a + d->NumberOfPages * 4096;
		if (nbase < MAX_BASE)
			base[nbase].a = a, base[nbase++].end = end;
		map_range(a, end);
	}
	BS->FreePool(map);
}

static void invalidate_all(void)
{
	w64(0x28, 1ull << 63 | 1ull << 61); /* CCMD: ICC, global */
	wait_bits(0x28, 1ull << 63, false, true);
	flush_iotlb();
}

static CHAR16 *variant_of(EFI_LOADED_IMAGE *li, char *buf, UINTN cap_)
{
	static CHAR16 name[24];
	EFI_FILE_IO_INTERFACE *fs;
	EFI_FILE_HANDLE root, f;
	StrCpy(name, L"protect");
	if (EFI_ERROR(BS->HandleProtocol(li->DeviceHandle, &FileSystemProtocol, (void **)&fs)) ||
	    EFI_ERROR(fs->OpenVolume(fs, &root)))
		return name;
	if (!EFI_ERROR(root->Open(root, &f, L"\\standin.txt", EFI_FILE_MODE_READ, 0))) {
		UINTN n = cap_ - 1;
		if (!EFI_ERROR(f->Read(f, &n, buf))) {
			UINTN k = 0;
			while (k < n && k < 23 && buf[k] > ' ')
				name[k] = (CHAR16)buf[k], k++;
			name[k] = 0;
		}
		f->Close(f);
	}
	root->Close(root);
	return name;
}

/* The load options in ASCII (OVMF's -kernel boot passes -append there,
 * after an "initrd=..." word of its own when there is an -initrd): the
 * words after those, or false when there are none. */
static bool options_of(EFI_LOADED_IMAGE *li, char *out, UINTN cap_)
{
	const CHAR16 *o = li->LoadOptions;
	UINTN n = li->LoadOptionsSize / sizeof(CHAR16), k = 0, i = 0;
	if (!o)
		return false;
	while (i < n && o[i]) {
		while (i < n && o[i] == ' ')
			i++;
		UINTN start = i;
		while (i < n && o[i] && o[i] != ' ')
			i++;
		bool initrd = i - start > 7 && o[start] == 'i' && o[start + 1] == 'n' && o[start + 2] == 'i' &&
			      o[start + 6] == '=';
		for (UINTN j = start; !initrd && j < i && k + 2 < cap_; j++)
			out[k++] = o[j] < 128 ? (char)o[j] : '?';
		if (!initrd && i > start && k + 2 < cap_)
			out[k++] = ' ';
	}
	while (k && out[k - 1] == ' ')
		k--;
	out[k] = 0;
	return k > 0;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	InitializeLib(image, systab);
	EFI_LOADED_IMAGE *li;
	if (EFI_ERROR(BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&li)))
		return EFI_LOAD_ERROR;
	char opts[256];
	if (options_of(li, opts, sizeof(opts)) && opts[0] == 'h' && opts[1] == 'o' && opts[2] == 's' &&
	    opts[3] == 't' && opts[4] == 'i' && opts[5] == 'l' && opts[6] == 'e' && (!opts[7] || opts[7] == ' '))
		return hostile_main(image, li, opts[7] ? opts + 8 : "");
	char buf[64];
	CHAR16 *variant = variant_of(li, buf, sizeof(buf));
	uint8_t *dmar = find_table("DMAR");
	if (!dmar) {
		Print(L"dmafw: no DMAR table: nothing to protect\n");
	} else {
		promise(dmar);
		uint8_t *s = dmar + 48;
		while (s < dmar + *(uint32_t *)(dmar + 4) && *(uint16_t *)s != 0)
			s += *(uint16_t *)(s + 2);
		reg = (uint8_t *)(uintptr_t) * (uint64_t *)(s + 8);
		cap = r64(0x08), ecap = r64(0x10);
		unsigned sagaw = (unsigned)(cap >> 8) & 0x1f;
		bool liar = StrCmp(variant, L"liar") == 0;
		EFI_PHYSICAL_ADDRESS a = 0xffffffffull;
		if (StrCmp(variant, L"flag-only") == 0) {
			Print(L"dmafw: flag-only: DMA_CTRL_PLATFORM_OPT_IN set, translation left off\n");
		} else if (EFI_ERROR(BS->AllocatePages(AllocateMaxAddress, EfiBootServicesData, POOL_PAGES, &a))) {
			Print(L"dmafw: no memory for the tables\n");
		} else {
			pool = (uint64_t *)(uintptr_t)a;
			/* 39 bits (3 levels) where offered, else 48 (4) */
			aw = sagaw & 2 ? 1 : 2;
			levels = aw + 2;
			unsigned pt_aw = sagaw & 8 ? 3 : sagaw & 4 ? 2 : 1; /* pass-through: the largest */
			uint64_t *root = page();
			top_table = page();
			for (unsigned bus = 0; bus < 256; bus++) {
				uint64_t *ctx = page();
				root[2 * bus] = (uint64_t)(uintptr_t)ctx | 1;
				for (unsigned fn = 0; fn < 256; fn++) {
					ctx[2 * fn + 1] = (liar ? pt_aw : aw) | 1u << 8; /* domain 1 */
					ctx[2 * fn] = liar ? (1 | 2u << 2) : ((uint64_t)(uintptr_t)top_table | 1);
				}
			}
			if (!liar)
				snapshot_memory(false);
			w64(0x20, (uint64_t)(uintptr_t)root);
			command(1u << 30, 1u << 30, true); /* SRTP, RTPS */
			invalidate_all();
			if (StrCmp(variant, L"protect-queue") == 0) {
				queue = page();
				status = (volatile uint32_t *)page();
				uint64_t *irt = page();
				if (!queue || !status || !irt) {
					Print(L"dmafw: protect-queue: the table pool (%d pages) is used up: no queue\n",
					      POOL_PAGES);
					return EFI_OUT_OF_RESOURCES;
				}
				w64(0x88, 0);
				w64(0x90, (uint64_t)(uintptr_t)queue);
				queue_on = command(1u << 26, 1u << 26, true);
				for (unsigned i = 0; i < 2; i++) /* its own sources: vectors 0x40, 0x41 to APIC 0 */
					irt[2 * i] = 1 | (uint64_t)(0x40 + i) << 16;
				w64(0xb8, (uint64_t)(uintptr_t)irt | 7); /* 256 entries */
				command(1u << 24, 1u << 24, true);	 /* SIRTP, IRTPS */
				command(1u << 23, 1u << 23, true);	 /* CFI: compatibility format kept */
				flush_iotlb();
				command(1u << 25, 1u << 25, true); /* IRE */
			}
			if (!liar) {
				EFI_HANDLE h = NULL;
				BS->InstallProtocolInterface(&h, &iommu_guid, EFI_NATIVE_INTERFACE, &protocol);
			}
			bool on = command(1u << 31, 1u << 31, true);
			Print(L"dmafw: %s: translation %s (root table %lx, %d of %d table pages, %d ranges kept "
			      L"mapped)\n",
			      variant, on ? L"on" : L"did not turn on", (uint64_t)(uintptr_t)root, (int)pool_used,
			      POOL_PAGES, (int)nbase);
		}
	}
	if (pool && nbase) {
		snapshot_memory(true);
		Print(L"dmafw: %d Map and %d Unmap calls through the IOMMU protocol so far; %d ranges still mapped\n",
		      mapcalls, unmaps, (int)nbase);
	}
	EFI_DEVICE_PATH *dp = FileDevicePath(li->DeviceHandle, L"\\iommon.efi");
	EFI_HANDLE mon = NULL;
	EFI_STATUS st = BS->LoadImage(FALSE, image, dp, NULL, 0, &mon);
	if (EFI_ERROR(st)) {
		Print(L"dmafw: \\iommon.efi not loaded: %r\n", st);
		return st;
	}
	return BS->StartImage(mon, NULL, NULL);
}
