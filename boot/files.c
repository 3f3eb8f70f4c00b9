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

static size_t efi_read(void *ctx, void *buf, size_t n)
{
	EFI_FILE_HANDLE f = ctx;
	UINTN got = n;
	return EFI_ERROR(f->Read(f, &got, buf)) ? 0 : got;
}

char *files_read(const char *path, size_t *len)
{
	if (!vol.root)
		return NULL;
	CHAR16 name[128];
	to_efi_path(name, 128, path);
	EFI_FILE_HANDLE f;
	if (EFI_ERROR(vol.root->Open(vol.root, &f, name, EFI_FILE_MODE_READ, 0)))
		return NULL;
	char *buf = read_all(efi_read, f, 1 << 20, len); /* a config file is small: 1 MiB at most */
	f->Close(f);
	return buf;
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

/* An existing file opened to add to its end (a results file after a
 * reset). A record the reset cut short (no final newline) is dropped
 * first, so that every line stays one whole record. */
struct platform_file *files_reopen(const char *path, const char **why)
{
	if (!vol.root) {
		*why = "the boot volume has no file system we can open";
		return NULL;
	}
	CHAR16 name[128];
	to_efi_path(name, 128, path);
	EFI_FILE_HANDLE f;
	EFI_STATUS st = vol.root->Open(vol.root, &f, name, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0);
	if (EFI_ERROR(st)) {
		*why = st == EFI_NOT_FOUND	   ? "no such file"
		       : st == EFI_WRITE_PROTECTED ? "the medium is write-protected"
						   : "the file could not be opened for writing";
		return NULL;
	}
	EFI_FILE_INFO *info = LibFileInfo(f);
	if (!info) {
		f->Close(f);
		*why = "the file's size could not be read";
		return NULL;
	}
	UINT64 size = info->FileSize, keep = size;
	char tail[2048];
	UINT64 from = size > sizeof(tail) ? size - sizeof(tail) : 0;
	UINTN got = (UINTN)(size - from);
	bool ok = !EFI_ERROR(f->SetPosition(f, from)) && !EFI_ERROR(f->Read(f, &got, tail));
	if (ok && got && tail[got - 1] != '\n') {
		keep = from;
		for (UINTN i = got; i-- > 0;)
			if (tail[i] == '\n') {
				keep = from + i + 1;
				break;
			}
		info->FileSize = keep;
		ok = !EFI_ERROR(f->SetInfo(f, &GenericFileInfo, info->Size, info));
	}
	FreePool(info);
	if (!ok || EFI_ERROR(f->SetPosition(f, keep))) {
		f->Close(f);
		*why = "the end of the file could not be reached or a cut record dropped";
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
