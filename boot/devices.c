/* Taking a PCI function from the firmware's driver and giving it back
 * (UEFI 2.x, 7.3 DisconnectController / ConnectController), so the monitor
 * and the firmware never drive one controller at the same time, and the
 * firmware re-initialises it afterwards. The function holding the boot
 * volume is never taken. */
#include <stdio.h>
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
