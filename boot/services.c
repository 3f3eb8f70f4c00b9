/* platform->firmware_services: each UEFI service and protocol the monitor
 * uses, probed as the firmware under it offers it, for the `firmware`
 * command. EDK II (OVMF, AAVMF) offers every one; U-Boot's UEFI has no
 * CPU architecture protocol (a PI protocol, not UEFI's) and, in 2023.01,
 * no PCI I/O protocol. Nothing is changed: protocols are located, a
 * variable that does not exist is read and deleted, a timer event is made
 * and closed. */
#include <stdarg.h>
#include <stdio.h>

#include "boot.h"

#ifdef __riscv
#define RISCV 1
#else
#define RISCV 0
#endif

extern EFI_GUID crumb_guid; /* breadcrumb.c: the probe's variable lives beside the breadcrumb */

static const char *status_text(EFI_STATUS st)
{
	static char other[24];
	switch (st) {
	case EFI_SUCCESS:
		return "EFI_SUCCESS";
	case EFI_NOT_FOUND:
		return "EFI_NOT_FOUND";
	case EFI_UNSUPPORTED:
		return "EFI_UNSUPPORTED";
	case EFI_DEVICE_ERROR:
		return "EFI_DEVICE_ERROR";
	case EFI_INVALID_PARAMETER:
		return "EFI_INVALID_PARAMETER";
	case EFI_WRITE_PROTECTED:
		return "EFI_WRITE_PROTECTED";
	case EFI_BUFFER_TOO_SMALL:
		return "EFI_BUFFER_TOO_SMALL";
	}
	snprintf(other, sizeof(other), "status 0x%llx", (unsigned long long)st);
	return other;
}

struct probe {
	struct platform_service *out;
	size_t max, n;
};

static void add(struct probe *p, const char *name, const char *key, bool present, bool needed, const char *without,
		const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static void add(struct probe *p, const char *name, const char *key, bool present, bool needed, const char *without,
		const char *fmt, ...)
{
	if (p->n == p->max)
		return;
	struct platform_service *s = &p->out[p->n++];
	*s = (struct platform_service){
		.name = name, .key = key, .present = present, .needed = needed, .without = without
	};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
}

static UINTN handles(EFI_GUID *guid)
{
	UINTN n = 0;
	EFI_HANDLE *hs = NULL;
	if (EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, guid, NULL, &n, &hs)))
		return 0;
	BS->FreePool(hs);
	return n;
}

static bool located(EFI_GUID *guid)
{
	void *p = NULL;
	return !EFI_ERROR(BS->LocateProtocol(guid, NULL, &p)) && p;
}

static bool on_boot_device(EFI_GUID *guid)
{
	void *p = NULL;
	return boot_loaded_image && !EFI_ERROR(BS->HandleProtocol(boot_loaded_image->DeviceHandle, guid, &p)) && p;
}

size_t firmware_services(struct platform_service *out, size_t max)
{
	struct probe p = { out, max, 0 };
	EFI_GUID cpu_arch = { 0x26baccb1, 0x6f42, 0x11d4, { 0xbc, 0xe7, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81 } };
	EFI_GUID pci_io = EFI_PCI_IO_PROTOCOL_GUID, block_io = EFI_BLOCK_IO_PROTOCOL_GUID;

	add(&p, "EFI_CPU_ARCH_PROTOCOL (PI)", "cpu_arch", located(&cpu_arch), !RISCV,
	    "riscv64 installs its own trap vector where the firmware has none; x86-64 and AArch64 catch no CPU "
	    "exception and take no device interrupt",
	    "%s", "");
	UINTN n = handles(&pci_io);
	add(&p, "EFI_PCI_IO_PROTOCOL", "pci_io", n > 0, true,
	    "a function a firmware driver drives is not taken from it (U-Boot's NVMe driver, where it probed the "
	    "controller, and iommon may both drive one); protection.protocol cannot map a buffer through the firmware",
	    "%llu handles", (unsigned long long)n);
	add(&p, "EFI_SIMPLE_FILE_SYSTEM_PROTOCOL (boot device)", "file_system", on_boot_device(&FileSystemProtocol),
	    true, "no iommon.cfg read and no results saved, unless the image came over the network", "%s", "");
	add(&p, "EFI_BLOCK_IO_PROTOCOL (boot device)", "block_io", on_boot_device(&block_io), true,
	    "protection.give_back cannot read the boot medium before and after", "%s", "");
	n = handles(&PxeBaseCodeProtocol);
	add(&p, "EFI_PXE_BASE_CODE_PROTOCOL", "pxe", n > 0, false,
	    "a network boot reads no file from its server (TFTP); needed only there", "%llu handles",
	    (unsigned long long)n);
	add(&p, "EDKII_IOMMU_PROTOCOL", "edkii_iommu", device_fw_iommu(), false,
	    "the usual case: firmware that does not protect DMA through an IOMMU has none", "%s", "");

	UINT32 attrs;
	UINTN size = 0;
	EFI_STATUS st = RT->GetVariable(L"IommonProbe", &crumb_guid, &attrs, &size, NULL);
	add(&p, "GetVariable", "get_variable", st == EFI_NOT_FOUND, true,
	    "a crash's breadcrumb is not read back after the reset", "%s for a missing one", status_text(st));
	st = RT->SetVariable(L"IommonProbe", &crumb_guid, 0, 0, NULL);
	add(&p, "SetVariable", "set_variable", st == EFI_NOT_FOUND || st == EFI_SUCCESS, true,
	    "no breadcrumb is left before a test: a crash's cause is not known after the reset",
	    "%s deleting a missing one", status_text(st));
	EFI_TIME tm;
	st = RT->GetTime(&tm, NULL);
	add(&p, "GetTime", "get_time", !EFI_ERROR(st), true, "records carry no wall-clock time", "%s", status_text(st));
	add(&p, "ResetSystem", "reset_system", RT->ResetSystem != NULL, true,
	    "exit reset and exit poweroff have nothing to call (riscv64 resets through SBI SRST)", "%s", "");

	EFI_EVENT ev = NULL;
	st = BS->CreateEvent(EVT_TIMER, 0, NULL, NULL, &ev);
	if (!EFI_ERROR(st))
		BS->CloseEvent(ev);
	add(&p, "CreateEvent (timer)", "timer_event", !EFI_ERROR(st), true,
	    "waits spin in Stall instead of idling in the firmware, and vtd.ir_ioapic cannot check the firmware "
	    "timer",
	    "%s", status_text(st));
	add(&p, "ConIn", "con_in", ST->ConIn != NULL, true, "no key is read: the menu is not usable, plans still run",
	    "%s", "");

	/* the configuration tables as the platform seam hands them over */
	bool acpi = platform->acpi_rsdp() != NULL, fdt = platform->device_tree() != NULL;
	add(&p, "ACPI table", "acpi", acpi, !fdt, "the units come from the device tree or PCI alone", "%s", "");
	add(&p, "Devicetree table", "device_tree", fdt, !acpi, "the machine is described by ACPI alone", "%s", "");
	add(&p, "SMBIOS 3 table", "smbios3", platform->smbios_entry(3) != NULL, false,
	    "the system's identity comes from the 32-bit entry point, or is not known", "%s", "");
	return p.n;
}
