/* The boot volume: the FAT file system the image was loaded from (the USB
 * stick), through EFI_SIMPLE_FILE_SYSTEM_PROTOCOL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/readall.h"
#include "boot.h"

struct platform_file {
	EFI_FILE_HANDLE h;
};

static struct {
	EFI_FILE_HANDLE root;
	char describe[200];
} vol;

void ascii_from_ucs2(char *out, size_t cap, const CHAR16 *in, size_t max_in)
{
	size_t k = 0;
	for (size_t i = 0; i < max_in && in[i] && k + 1 < cap; i++)
		out[k++] = in[i] >= 0x20 && in[i] < 0x7f ? (char)in[i] : '?';
	out[k] = '\0';
}

void files_init(void)
{
	snprintf(vol.describe, sizeof(vol.describe), "no boot volume");
	EFI_SIMPLE_FILE_SYSTEM_PROTOCOL *fs = NULL;
	EFI_STATUS st = BS->HandleProtocol(boot_loaded_image->DeviceHandle, &FileSystemProtocol, (void **)&fs);
	if (EFI_ERROR(st) || !fs || EFI_ERROR(fs->OpenVolume(fs, &vol.root))) {
		vol.root = NULL;
		return;
	}
	EFI_DEVICE_PATH *dp = DevicePathFromHandle(boot_loaded_image->DeviceHandle);
	CHAR16 *text = dp ? DevicePathToStr(dp) : NULL;
	char path[160] = "?";
	if (text) {
		ascii_from_ucs2(path, sizeof(path), text, 1000);
		FreePool(text);
	}
	snprintf(vol.describe, sizeof(vol.describe), "boot volume %s", path);
}

void files_fini(void)
{
	if (vol.root)
		vol.root->Close(vol.root);
	vol.root = NULL;
}

const char *files_describe(void)
{
	return vol.describe;
}

static void to_efi_path(CHAR16 *out, size_t cap, const char *path)
{
	size_t k = 0;
	for (; *path && k + 1 < cap; path++)
		out[k++] = *path == '/' ? L'\\' : (CHAR16)*path;
	out[k] = 0;
}

/* A read that failed, in words (UEFI 2.10 appendix D). */
static const char *read_status(EFI_STATUS st)
{
	switch (st) {
	case EFI_NO_MEDIA:
		return "no medium";
	case EFI_MEDIA_CHANGED:
		return "the medium was changed";
	case EFI_DEVICE_ERROR:
		return "device error";
	case EFI_VOLUME_CORRUPTED:
		return "the file system is corrupted";
	case EFI_ACCESS_DENIED:
		return "access denied";
	case EFI_OUT_OF_RESOURCES:
		return "the firmware is out of resources";
	default:
		return "firmware error";
	}
}

/* The file in pieces of 64 KiB: a config file of any size is read to its
 * end while only one piece is held. */
const char *files_stream(const char *path, bool (*piece)(void *ctx, const void *buf, size_t n), void *ctx, bool *absent)
{
	static char why[160];
	*absent = false;
	if (!vol.root) {
		*absent = true;
		return "the boot volume has no file system we can open";
	}
	CHAR16 name[128];
	to_efi_path(name, 128, path);
	EFI_FILE_HANDLE f;
	EFI_STATUS st = vol.root->Open(vol.root, &f, name, EFI_FILE_MODE_READ, 0);
	if (EFI_ERROR(st)) {
		*absent = st == EFI_NOT_FOUND;
		snprintf(why, sizeof(why), "cannot open %s: %s (status 0x%llx)", path, read_status(st),
			 (unsigned long long)st);
		return why;
	}
	enum { PIECE = 65536 };
	char *buf = malloc(PIECE);
	const char *result = NULL;
	unsigned long long total = 0;
	if (!buf) {
		result = "out of memory for a read buffer";
	} else {
		for (;;) {
			UINTN got = PIECE;
			st = f->Read(f, &got, buf);
			if (EFI_ERROR(st)) {
				snprintf(why, sizeof(why), "read error after %llu bytes: %s (status 0x%llx)", total,
					 read_status(st), (unsigned long long)st);
				result = why;
				break;
			}
			if (got == 0 || !piece(ctx, buf, got))
				break;
			total += got;
		}
	}
	free(buf);
	f->Close(f);
	return result;
}

char *files_read(const char *path, size_t *len)
{
	struct read_all r = { 0 };
	bool absent;
	const char *why = files_stream(path, read_all_piece, &r, &absent);
	return read_all_finish(&r, why, len);
}

/* Opens `path` creating it (and its directories) when missing. */
static EFI_STATUS open_create(const char *path, UINT64 attrs, EFI_FILE_HANDLE *out)
{
	CHAR16 name[128];
	to_efi_path(name, 128, path);
	return vol.root->Open(vol.root, out, name, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
			      attrs);
}

struct platform_file *files_create(const char *path, const char **why)
{
	if (!vol.root) {
		*why = "the boot volume has no file system we can open";
		return NULL;
	}
	CHAR16 name[128];
	to_efi_path(name, 128, path);
	EFI_FILE_HANDLE f;
	if (!EFI_ERROR(vol.root->Open(vol.root, &f, name, EFI_FILE_MODE_READ, 0))) {
		f->Close(f);
		*why = "exists";
		return NULL;
	}
	/* each directory on the way */
	char dir[128];
	for (const char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
		size_t n = (size_t)(s - path);
		if (n >= sizeof(dir))
			break;
		memcpy(dir, path, n);
		dir[n] = '\0';
		EFI_FILE_HANDLE d;
		if (EFI_ERROR(open_create(dir, EFI_FILE_DIRECTORY, &d))) {
			*why = "cannot create the results folder (read-only medium?)";
			return NULL;
		}
		d->Close(d);
	}
	if (EFI_ERROR(open_create(path, 0, &f))) {
		*why = "cannot create the file (read-only medium or full?)";
		return NULL;
	}
	struct platform_file *pf = malloc(sizeof(*pf));
	if (!pf) {
		f->Close(f);
		*why = "out of memory";
		return NULL;
	}
	pf->h = f;
	return pf;
}

bool files_append(struct platform_file *f, const void *buf, size_t n)
{
	UINTN len = n;
	if (EFI_ERROR(f->h->Write(f->h, &len, (void *)buf)) || len != n)
		return false;
	return !EFI_ERROR(f->h->Flush(f->h));
}

void files_close(struct platform_file *f)
{
	if (!f)
		return;
	f->h->Close(f->h);
	free(f);
}
