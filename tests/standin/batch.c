/* The shared boot of the boot tests (tools/boot-batch.py): several tests
 * that boot the same machine run in one boot, so the firmware's start
 * (3.4 s of OVMF under TCG against 0.2 s of the monitor's) is paid once.
 *
 * The USB stick is the image every boot test boots, this program in the
 * monitor's place as \EFI\BOOT\BOOTX64.EFI (BOOTAA64.EFI) and a folder
 * \batch: the monitor moved there (its name unchanged), `list`, one test
 * name a line, and NAME.cfg for each, the test's iommon.cfg. OVMF boots
 * the stick as ever; for each test in order this program writes that file
 * as the stick's \iommon.cfg and starts the monitor from the stick, as the
 * boot manager would: the monitor finds its volume, its plan and its
 * results folder as in a boot of its own. (QEMU's -kernel would leave the
 * stick alone, but OVMF takes 2-4 s longer to start one under TCG.)
 * Markers on the console cut the boot into the tests' own consoles:
 *
 *   <iommon-batch-begin n=N test=NAME>   before the monitor starts
 *   <iommon-batch-end n=N test=NAME status=S>   when it has returned
 *
 * The machine has no isa-debug-exit device (x86_64) and no semihosting
 * (aarch64) in a shared boot: a test's `exit qemu` says its verdict and
 * stays (the harness reads the exit status from that line and types `exit
 * firmware`). After the last test the machine is powered off. A program of
 * its own, built like the monitor, never on the stick unless the shared
 * boot puts it there. */
#include <efi.h>
#include <efilib.h>
#include <stdbool.h>

#define BATCH_FILE_MAX (256u * 1024u)
#if defined(__aarch64__)
#define BOOT_FILE L"\\batch\\BOOTAA64.EFI"
#else
#define BOOT_FILE L"\\batch\\BOOTX64.EFI"
#endif

static EFI_GUID fs_guid = SIMPLE_FILE_SYSTEM_PROTOCOL;

/* The whole of file `path` on `root` in pool memory (NUL-terminated), its
 * length in *len; NULL when there is none, or (*len ~0) when it cannot be
 * read whole (an error, or BATCH_FILE_MAX bytes or more). */
static char *read_all(EFI_FILE_HANDLE root, CHAR16 *path, UINTN *len)
{
	EFI_FILE_HANDLE f;
	*len = 0;
	if (EFI_ERROR(root->Open(root, &f, path, EFI_FILE_MODE_READ, 0)))
		return NULL;
	*len = ~(UINTN)0;
	char *buf = AllocatePool(BATCH_FILE_MAX + 1);
	UINTN n = BATCH_FILE_MAX;
	if (!buf || EFI_ERROR(f->Read(f, &n, buf)) || n >= BATCH_FILE_MAX) {
		f->Close(f);
		if (buf)
			FreePool(buf);
		return NULL;
	}
	f->Close(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* \iommon.cfg made `len` bytes of `data` (removed when data is NULL):
 * NULL, or what failed. */
static const CHAR16 *write_cfg(EFI_FILE_HANDLE root, const char *data, UINTN len)
{
	EFI_FILE_HANDLE f;
	if (!EFI_ERROR(root->Open(root, &f, L"\\iommon.cfg", EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0)) &&
	    EFI_ERROR(f->Delete(f)))
		return L"the old \\iommon.cfg could not be deleted";
	if (!data)
		return NULL;
	if (EFI_ERROR(root->Open(root, &f, L"\\iommon.cfg",
				 EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, 0)))
		return L"\\iommon.cfg could not be created";
	UINTN n = len;
	EFI_STATUS st = f->Write(f, &n, (void *)data);
	EFI_STATUS cl = f->Close(f);
	if (EFI_ERROR(st) || n != len || EFI_ERROR(cl))
		return L"\\iommon.cfg could not be written whole";
	return NULL;
}

/* True, with the volume's root open, when the volume this program was
 * loaded from holds \batch\list. */
static bool batch_volume(EFI_LOADED_IMAGE *li, EFI_FILE_HANDLE *root)
{
	EFI_FILE_IO_INTERFACE *fs;
	EFI_FILE_HANDLE f;
	if (EFI_ERROR(BS->HandleProtocol(li->DeviceHandle, &fs_guid, (void **)&fs)) ||
	    EFI_ERROR(fs->OpenVolume(fs, root)))
		return false;
	if (!EFI_ERROR((*root)->Open(*root, &f, L"\\batch\\list", EFI_FILE_MODE_READ, 0))) {
		f->Close(f);
		return true;
	}
	(*root)->Close(*root);
	return false;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	InitializeLib(image, systab);
	EFI_LOADED_IMAGE *li;
	EFI_FILE_HANDLE root;
	if (EFI_ERROR(BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&li)) || !batch_volume(li, &root)) {
		Print(L"<iommon-batch-error the volume this program was loaded from holds no \\batch\\list>\n");
		return EFI_NOT_FOUND;
	}
	EFI_HANDLE vol = li->DeviceHandle;
	UINTN len;
	char *list = read_all(root, L"\\batch\\list", &len);
	if (!list) {
		Print(L"<iommon-batch-error \\batch\\list could not be read>\n");
		RT->ResetSystem(EfiResetShutdown, EFI_LOAD_ERROR, 0, NULL);
		return EFI_LOAD_ERROR;
	}
	unsigned n = 0;
	for (char *p = list; *p;) {
		char *e = p;
		while (*e && *e != '\n' && *e != '\r')
			e++;
		char end = *e;
		*e = 0;
		if (*p) {
			n++;
			static CHAR16 path[160];
			UINTN k = 0;
			for (const CHAR16 *s = L"\\batch\\"; *s; s++)
				path[k++] = *s;
			for (const char *s = p; *s && k < 150; s++)
				path[k++] = (CHAR16)(unsigned char)*s;
			for (const CHAR16 *s = L".cfg"; *s; s++)
				path[k++] = *s;
			path[k] = 0;
			UINTN clen = 0;
			char *cfg = read_all(root, path, &clen);
			const CHAR16 *why =
			    clen == ~(UINTN)0 ? L"the test's plan could not be read whole" : write_cfg(root, cfg, clen);
			if (cfg)
				FreePool(cfg);
			Print(L"\n<iommon-batch-begin n=%d test=%a>\n", n, p);
			EFI_STATUS st;
			EFI_HANDLE mon = NULL;
			if (why) {
				st = EFI_DEVICE_ERROR;
				Print(L"<iommon-batch-error %s>\n", why);
			} else {
				/* the stick's own boot file, moved aside for this
				 * program, started as the boot manager starts a
				 * removable medium's */
				EFI_DEVICE_PATH *dp = FileDevicePath(vol, BOOT_FILE);
				st = BS->LoadImage(TRUE, image, dp, NULL, 0, &mon);
				if (!EFI_ERROR(st))
					st = BS->StartImage(mon, NULL, NULL);
			}
			Print(L"\n<iommon-batch-end n=%d test=%a status=%r>\n", n, p, st);
		}
		if (!end)
			break;
		p = e + 1;
	}
	root->Close(root);
	Print(L"<iommon-batch-done tests=%d>\n", n);
	/* the boot is the batch: off, rather than on to the boot manager */
	RT->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
	return EFI_SUCCESS;
}
