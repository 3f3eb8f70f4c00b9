/* Taking a PCI function from the firmware's driver and giving it back
 * (UEFI 2.x, 7.3 DisconnectController / ConnectController), so the monitor
 * and the firmware never drive one controller at the same time, and the
 * firmware re-initialises it afterwards. The function holding the boot
 * volume is never taken. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"

#define MAX_CLAIMED 8

static struct {
	uint16_t seg;
	uint8_t bus, dev, fn;
	EFI_HANDLE handle;
} claimed[MAX_CLAIMED];
static size_t nclaimed;

static bool location(EFI_HANDLE h, UINTN *seg, UINTN *bus, UINTN *dev, UINTN *fn)
{
	EFI_GUID guid = EFI_PCI_IO_PROTOCOL_GUID;
	EFI_PCI_IO_PROTOCOL *io;
	if (EFI_ERROR(BS->HandleProtocol(h, &guid, (void **)&io)))
		return false;
	return !EFI_ERROR(io->GetLocation(io, seg, bus, dev, fn));
}

static EFI_HANDLE handle_of(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn)
{
	EFI_GUID guid = EFI_PCI_IO_PROTOCOL_GUID;
	UINTN n = 0;
	EFI_HANDLE *hs = NULL, found = NULL;
	if (EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, &guid, NULL, &n, &hs)))
		return NULL;
	for (UINTN i = 0; i < n && !found; i++) {
		UINTN s, b, d, f;
		if (location(hs[i], &s, &b, &d, &f) && s == seg && b == bus && d == dev && f == fn)
			found = hs[i];
	}
	BS->FreePool(hs);
	return found;
}

/* The PciIo handle of a function, from a table of every handle's location
 * made at the first call: asked once per BAR of every function, a walk of
 * all the handles each time would ask GetLocation n^2 times on a server. */
static EFI_HANDLE pci_io_handle(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn)
{
	static struct {
		uint32_t loc;
		EFI_HANDLE h;
	} * table;
	static UINTN n;
	static bool made;
	if (!made) {
		EFI_GUID guid = EFI_PCI_IO_PROTOCOL_GUID;
		EFI_HANDLE *hs = NULL;
		UINTN nh = 0;
		made = true;
		if (EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, &guid, NULL, &nh, &hs)))
			return NULL;
		table = malloc(nh * sizeof(*table));
		for (UINTN i = 0; table && i < nh; i++) {
			UINTN s, b, d, f;
			if (location(hs[i], &s, &b, &d, &f))
				table[n].loc = (uint32_t)(s << 16 | b << 8 | d << 3 | f), table[n++].h = hs[i];
		}
		BS->FreePool(hs);
	}
	uint32_t loc = (uint32_t)seg << 16 | (uint32_t)bus << 8 | (uint32_t)dev << 3 | fn;
	for (UINTN i = 0; i < n; i++)
		if (table[i].loc == loc)
			return table[i].h;
	return NULL;
}

/* What the firmware's PciIo says of the function's BARs: for each, the
 * resource descriptor GetBarAttributes gives (ACPI 6.4, 6.4.3.5.1: the
 * QWORD address space descriptor, 0x8A; its resource type 0 memory, 1
 * I/O; minimum at byte 14, length at byte 38). EDK II numbers a 64-bit
 * BAR as one, so the index is not the register's: the BAR is found by
 * its base. */
uint64_t device_fw_bar_size(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn, uint64_t base, bool io)
{
	EFI_GUID guid = EFI_PCI_IO_PROTOCOL_GUID;
	EFI_PCI_IO_PROTOCOL *pio;
	EFI_HANDLE h = pci_io_handle(seg, bus, dev, fn);
	if (!base || !h || EFI_ERROR(BS->HandleProtocol(h, &guid, (void **)&pio)))
		return 0;
	uint64_t size = 0;
	for (UINT8 i = 0; i < 6 && !size; i++) {
		VOID *res = NULL;
		if (EFI_ERROR(pio->GetBarAttributes(pio, i, NULL, &res)) || !res)
			continue;
		const uint8_t *d = res;
		uint64_t min, len;
		if (d[0] == 0x8a && (d[1] | d[2] << 8) >= 0x2b && d[3] == (io ? 1 : 0)) {
			memcpy(&min, d + 14, 8);
			memcpy(&len, d + 38, 8);
			if (min == base)
				size = len;
		}
		BS->FreePool(res);
	}
	return size;
}

/* The PCI function the boot volume sits on, found along its device path. */
static EFI_HANDLE boot_controller(void)
{
	EFI_GUID guid = EFI_PCI_IO_PROTOCOL_GUID;
	EFI_DEVICE_PATH *dp = DevicePathFromHandle(boot_loaded_image->DeviceHandle);
	EFI_HANDLE h = NULL;
	if (!dp || EFI_ERROR(BS->LocateDevicePath(&guid, &dp, &h)))
		return NULL;
	return h;
}

const char *device_claim(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn)
{
	EFI_HANDLE h = handle_of(seg, bus, dev, fn);
	if (!h)
		return NULL; /* no firmware driver knows it: nothing to take */
	if (h == boot_controller())
		return "this controller holds the boot volume: the monitor will not take it";
	for (size_t i = 0; i < nclaimed; i++)
		if (claimed[i].handle == h)
			return NULL; /* already ours */
	if (nclaimed == MAX_CLAIMED)
		return "too many devices taken from the firmware";
	EFI_STATUS st = BS->DisconnectController(h, NULL, NULL);
	if (EFI_ERROR(st) && st != EFI_NOT_FOUND) {
		/* some child drivers may have stopped already: start them again */
		BS->ConnectController(h, NULL, NULL, TRUE);
		return "the firmware's driver would not let go of it (DisconnectController failed)";
	}
	claimed[nclaimed].seg = seg;
	claimed[nclaimed].bus = bus;
	claimed[nclaimed].dev = dev;
	claimed[nclaimed].fn = fn;
	claimed[nclaimed].handle = h;
	nclaimed++;
	return NULL;
}

void device_release(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn)
{
	for (size_t i = 0; i < nclaimed; i++) {
		if (claimed[i].seg != seg || claimed[i].bus != bus || claimed[i].dev != dev || claimed[i].fn != fn)
			continue;
		EFI_STATUS st = BS->ConnectController(claimed[i].handle, NULL, NULL, TRUE);
		if (EFI_ERROR(st) && st != EFI_NOT_FOUND)
			printf("warning: the firmware did not take %02x:%02x.%x back (ConnectController: 0x%llx)\n",
			       bus, dev, fn, (unsigned long long)st);
		claimed[i] = claimed[--nclaimed];
		return;
	}
}

/* ---- the firmware's own DMA path (the protection group) ------------------ */

/* EDK II's EDKII_IOMMU_PROTOCOL (MdeModulePkg/Include/Protocol/IoMmu.h). */
static EFI_GUID iommu_protocol_guid = {
	0x4e939de9, 0xd948, 0x4b0f, { 0x88, 0xed, 0xe6, 0xe1, 0xce, 0x51, 0x7c, 0x1e }
};

bool device_fw_iommu(void)
{
	void *p = NULL;
	return !EFI_ERROR(BS->LocateProtocol(&iommu_protocol_guid, NULL, &p)) && p;
}

struct fw_mapping {
	EFI_PCI_IO_PROTOCOL *io;
	void *mapping;
};

/* As a firmware driver maps a buffer the device writes: PciIo.Map, which
 * goes through the IOMMU protocol's Map and SetAttribute when one is
 * installed (EDK II's PciBusDxe and PciHostBridgeDxe). */
const char *device_fw_dma_map(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn, uint64_t phys, size_t len,
			      uint64_t *dev_addr, void **token)
{
	static char why[96];
	EFI_HANDLE h = handle_of(seg, bus, dev, fn);
	EFI_GUID guid = EFI_PCI_IO_PROTOCOL_GUID;
	EFI_PCI_IO_PROTOCOL *io;
	if (!h || EFI_ERROR(BS->HandleProtocol(h, &guid, (void **)&io)))
		return "the firmware has no PCI I/O protocol for the device";
	static struct fw_mapping maps[4];
	struct fw_mapping *m = NULL;
	for (size_t i = 0; i < 4 && !m; i++)
		if (!maps[i].io)
			m = &maps[i];
	if (!m)
		return "four firmware mappings are held already";
	UINTN n = len;
	EFI_PHYSICAL_ADDRESS a = 0;
	EFI_STATUS st = io->Map(io, EfiPciIoOperationBusMasterWrite, (void *)(uintptr_t)phys, &n, &a, &m->mapping);
	if (EFI_ERROR(st) || n < len) {
		if (!EFI_ERROR(st))
			io->Unmap(io, m->mapping);
		snprintf(why, sizeof(why), "PciIo.Map: %s (%llu of %zu bytes)", EFI_ERROR(st) ? "refused" : "short",
			 (unsigned long long)n, len);
		return why;
	}
	m->io = io;
	*dev_addr = a;
	*token = m;
	return NULL;
}

void device_fw_dma_unmap(void *token)
{
	struct fw_mapping *m = token;
	if (m && m->io) {
		m->io->Unmap(m->io, m->mapping);
		m->io = NULL;
	}
}

/* The boot volume's block device, read with no cache between (BlockIo). */
const char *device_boot_read(uint64_t off, void *buf, size_t len)
{
	EFI_GUID guid = EFI_BLOCK_IO_PROTOCOL_GUID;
	EFI_BLOCK_IO *bio;
	if (!boot_loaded_image || EFI_ERROR(BS->HandleProtocol(boot_loaded_image->DeviceHandle, &guid, (void **)&bio)))
		return "the boot volume has no block I/O protocol (booted from the network?)";
	UINT32 bs = bio->Media->BlockSize;
	if (!bs || off % bs || len % bs)
		return "the boot volume's block size does not divide the read";
	/* page-aligned: any IoAlign a driver asks */
	size_t pages = (len + 4095) / 4096;
	EFI_PHYSICAL_ADDRESS a = 0;
	if (EFI_ERROR(BS->AllocatePages(AllocateAnyPages, EfiLoaderData, pages, &a)))
		return "no memory";
	EFI_STATUS st = bio->ReadBlocks(bio, bio->Media->MediaId, off / bs, len, (void *)(uintptr_t)a);
	if (!EFI_ERROR(st))
		memcpy(buf, (void *)(uintptr_t)a, len);
	BS->FreePages(a, pages);
	return EFI_ERROR(st) ? "BlockIo.ReadBlocks failed" : NULL;
}
