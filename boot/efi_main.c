/* The UEFI application's entry, and the platform interface built from
 * UEFI services. Boot services stay up for the whole run: the USB stick,
 * the keyboard and the firmware's console keep working. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "tests/catalogue/catalogue.h"

EFI_HANDLE boot_image;
EFI_LOADED_IMAGE *boot_loaded_image;

static void *alloc_pages(size_t pages, uint64_t limit)
{
	EFI_PHYSICAL_ADDRESS addr = limit ? limit - 1 : 0;
	EFI_STATUS st = BS->AllocatePages(limit ? AllocateMaxAddress : AllocateAnyPages, EfiLoaderData, pages, &addr);
	return EFI_ERROR(st) ? NULL : (void *)(uintptr_t)addr;
}

static void free_pages(void *p, size_t pages)
{
	BS->FreePages((EFI_PHYSICAL_ADDRESS)(uintptr_t)p, pages);
}

static void stall_us(uint32_t us)
{
	BS->Stall(us);
}

/* The firmware's timer still ticking: its event signalled within the
 * deadline, read by CheckEvent (which a timer event may be polled with:
 * UEFI 2.10 7.1) against the CPU counter, not the firmware's own clock. */
static const char *timer_event(uint32_t after_us, uint32_t deadline_us, bool *fired)
{
	EFI_EVENT ev;
	*fired = false;
	if (EFI_ERROR(BS->CreateEvent(EVT_TIMER, 0, NULL, NULL, &ev)))
		return "CreateEvent(EVT_TIMER) failed";
	if (EFI_ERROR(BS->SetTimer(ev, TimerRelative, (UINT64)after_us * 10))) {
		BS->CloseEvent(ev);
		return "SetTimer(TimerRelative) failed";
	}
	struct deadline d = deadline_after_us(deadline_us);
	while (!*fired && !deadline_passed(&d))
		*fired = BS->CheckEvent(ev) == EFI_SUCCESS;
	BS->SetTimer(ev, TimerCancel, 0);
	BS->CloseEvent(ev);
	return NULL;
}

/* Halts in the firmware's idle loop until a key or the timer: under
 * emulation this frees the host CPU while the menu waits. */
static EFI_EVENT idle_timer;

static void idle_us(uint32_t us)
{
	EFI_EVENT timer = idle_timer;
	static bool no_timer;
	if (!timer && !no_timer && EFI_ERROR(BS->CreateEvent(EVT_TIMER, 0, NULL, NULL, &timer)))
		no_timer = true;
	idle_timer = timer;
	if (no_timer || EFI_ERROR(BS->SetTimer(timer, TimerRelative, (UINT64)us * 10))) {
		BS->Stall(us);
		return;
	}
	EFI_EVENT events[2] = { timer, ST->ConIn->WaitForKey };
	UINTN which;
	if (EFI_ERROR(BS->WaitForEvent(2, events, &which)))
		BS->Stall(us);
}

static bool wallclock(struct wallclock *w)
{
	EFI_TIME t;
	if (EFI_ERROR(RT->GetTime(&t, NULL)) || t.Year < 2000 || t.Month < 1 || t.Month > 12)
		return false;
	*w = (struct wallclock){ t.Year, t.Month, t.Day, t.Hour, t.Minute, t.Second };
	return true;
}

static const void *config_table(EFI_GUID guid)
{
	for (UINTN i = 0; i < ST->NumberOfTableEntries; i++)
		if (CompareGuid(&ST->ConfigurationTable[i].VendorGuid, &guid) == 0)
			return ST->ConfigurationTable[i].VendorTable;
	return NULL;
}

static const void *acpi_rsdp(void)
{
	const void *v2 = config_table((EFI_GUID)ACPI_20_TABLE_GUID);
	return v2 ? v2 : config_table((EFI_GUID)ACPI_TABLE_GUID);
}

/* EFI_DTB_TABLE_GUID (UEFI 2.10 4.6.1.2, the Devicetree table) */
static const void *device_tree(void)
{
	return config_table(
	    (EFI_GUID){ 0xb1b621d5, 0xf19c, 0x41a5, { 0x83, 0x0b, 0xd9, 0x15, 0x2c, 0x69, 0xaa, 0xe0 } });
}

/* UEFI 2.10 4.6.1: SMBIOS3_TABLE_GUID names the 64-bit entry point,
 * SMBIOS_TABLE_GUID the 32-bit one; firmware may publish both. */
static const void *smbios_entry(unsigned major)
{
	return config_table(major >= 3 ? (EFI_GUID)SMBIOS3_TABLE_GUID : (EFI_GUID)SMBIOS_TABLE_GUID);
}

/* The image's own file name ("iommon.efi"), from the last file-path node of
 * the path it was loaded from, or "" (the shell may be given it without
 * the .efi, and passes it so in the load options). */
static void image_name(char *out, size_t cap)
{
	out[0] = '\0';
	const EFI_DEVICE_PATH *p = boot_loaded_image->FilePath;
	/* firmware data: a bounded walk that stops at a node too short to be one */
	for (int i = 0; p && i < 64 && !IsDevicePathEnd(p) && DevicePathNodeLength(p) >= 4; i++) {
		size_t len = DevicePathNodeLength(p);
		if (DevicePathType(p) == MEDIA_DEVICE_PATH && DevicePathSubType(p) == MEDIA_FILEPATH_DP &&
		    len > SIZE_OF_FILEPATH_DEVICE_PATH) {
			const CHAR16 *name = ((const FILEPATH_DEVICE_PATH *)p)->PathName;
			size_t chars = (len - SIZE_OF_FILEPATH_DEVICE_PATH) / sizeof(CHAR16), base = 0;
			for (size_t k = 0; k < chars && name[k]; k++)
				if (name[k] == L'\\' || name[k] == L'/')
					base = k + 1;
			ascii_from_ucs2(out, cap, name + base, chars - base);
		}
		p = NextDevicePathNode(p);
	}
}

/* Commands in the load options: a UCS-2 string, the first word being the
 * image's own name when started from the UEFI shell, taken whole
 * (core/monitor/script.c). Boot entries may carry binary data there instead:
 * anything that is not plain text is ignored, and said so. */
static const char *load_options(void)
{
	static char *text;
	static bool done;
	if (done)
		return text;
	done = true;
	UINT32 size = boot_loaded_image->LoadOptionsSize;
	const CHAR16 *s = boot_loaded_image->LoadOptions;
	if (!s || size < 2)
		return NULL;
	if (size & 1) {
		printf("load options: %u bytes, an odd count, so not UCS-2 text: ignored\n", size);
		return NULL;
	}
	char image[64];
	image_name(image, sizeof(image));
	const char *why = load_options_text(s, size / 2, image, &text);
	if (why)
		printf("%s\n", why);
	return text;
}

void boot_release(void)
{
	exceptions_remove(); /* the firmware's own handling from here */
	console_restore();
	files_fini();
	if (idle_timer)
		BS->CloseEvent(idle_timer);
	idle_timer = NULL;
	fflush(stdout);
	heap_fini();
}

static const char *firmware_exit(enum exit_kind how, int status)
{
	switch (how) {
	case EXIT_QEMU:
		return qemu_exit(status);
	case EXIT_FIRMWARE:
		boot_release();
		BS->Exit(boot_image, EFI_SUCCESS, 0, NULL);
		/* The heap is gone: no stdio from here. Nothing sane is left but a reset. */
		ST->ConOut->OutputString(ST->ConOut, L"iommon: the firmware refused Exit(); resetting\r\n");
		RT->ResetSystem(EfiResetCold, EFI_ABORTED, 0, NULL);
		return "ResetSystem returned";
	case EXIT_RESET:
	case EXIT_POWEROFF:
		console_restore();
		RT->ResetSystem(how == EXIT_RESET ? EfiResetCold : EfiResetShutdown, EFI_SUCCESS, 0, NULL);
		return "ResetSystem returned";
	}
	return "unknown exit";
}

static const char *firmware_name(void)
{
	static char name[96];
	char vendor[64];
	ascii_from_ucs2(vendor, sizeof(vendor), ST->FirmwareVendor, 63);
	snprintf(name, sizeof(name), "uefi %u.%u %s rev 0x%x", ST->Hdr.Revision >> 16, (ST->Hdr.Revision & 0xffff) / 10,
		 vendor, ST->FirmwareRevision);
	return name;
}

static struct platform efi_platform = {
	.hardware = true,
	.getc = console_getc,
	.console_route = console_route,
	.console_describe = console_describe,
	.alloc_pages = alloc_pages,
	.free_pages = free_pages,
	.stall_us = stall_us,
	.wallclock = wallclock,
	.idle_us = idle_us,
	.irq_install = irq_install,
	.irq_remove = irq_remove,
	.irq_send = irq_send,
	.memory_top = memory_top,
	.memory_map = memory_map,
	.acpi_rsdp = acpi_rsdp,
	.device_tree = device_tree,
	.smbios_entry = smbios_entry,
	.file_read = files_read,
	.file_stream = files_stream,
	.file_create = files_create,
	.file_append = files_append,
	.file_close = files_close,
	.volume_describe = files_describe,
	.volume_readonly = files_readonly,
	.device_claim = device_claim,
	.device_release = device_release,
	.fw_iommu = device_fw_iommu,
	.fw_bar_size = device_fw_bar_size,
	.fw_dma_map = device_fw_dma_map,
	.fw_dma_unmap = device_fw_dma_unmap,
	.boot_read = device_boot_read,
	.file_reopen = files_reopen,
	.note_get = breadcrumb_get,
	.note_set = breadcrumb_set,
	.watchdog = watchdog_arm,
	.timer_event = timer_event,
	.load_options = load_options,
	.exit = firmware_exit,
	.firmware_services = firmware_services,
};

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	InitializeLib(image, systab);
	boot_image = image;
	/* The firmware's 5-minute watchdog would reset the menu while it waits
	 * for a person; each test of an unattended plan arms its own budget
	 * (core/monitor/survive.c). */
	BS->SetWatchdogTimer(0, 0, 0, NULL);
	if (EFI_ERROR(BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&boot_loaded_image)))
		return EFI_LOAD_ERROR;
	arch_platform(&efi_platform);
	heap_init();
	console_init();
	files_init();
	efi_platform.exceptions_caught = exceptions_install();
	efi_platform.name = firmware_name();
	monitor_main(&efi_platform, iommon_catalogue(), subsystems);
	return EFI_SUCCESS;
}
