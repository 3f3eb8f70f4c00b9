/* The boot volume: the FAT file system the image was loaded from (the USB
 * stick, a CD's El Torito image), through EFI_SIMPLE_FILE_SYSTEM_PROTOCOL;
 * after a network boot, none: files are read from the TFTP server
 * (netboot.c) and none are written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "core/base/readall.h"

struct platform_file {
	EFI_FILE_HANDLE h;
	UINT64 size; /* what was written whole: where a failed write is cut back to */
};

static struct {
	EFI_FILE_HANDLE root;
	/* a file being streamed: the script it holds may leave (exit
	 * firmware) before the stream ends, and the volume is closed then */
	EFI_FILE_HANDLE streaming;
	bool net;	      /* no volume: a network boot, files read over TFTP */
	const char *readonly; /* why no file can be written, by the medium's nature */
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
	bool opened = !EFI_ERROR(st) && fs && !EFI_ERROR(fs->OpenVolume(fs, &vol.root));
	if (!opened)
		vol.root = NULL;
	/* iPXE puts a file system of its own on the network device: it holds
	 * the images its script fetched (imgfetch), not a volume; the rest
	 * come from beside the boot file through iPXE's download protocol */
	if (!opened || netboot_through_ipxe()) {
		vol.net = netboot_init(vol.describe, sizeof(vol.describe));
		if (vol.net)
			vol.readonly = "a network boot has no boot volume";
		else if (vol.root)
			vol.root->Close(vol.root), vol.root = NULL;
		return;
	}
	EFI_DEVICE_PATH *dp = DevicePathFromHandle(boot_loaded_image->DeviceHandle);
	/* A CD's El Torito boot image (UEFI 2.10 10.3.5.2, the CD-ROM media
	 * node): read-only by nature, so results are the console's; writing
	 * is not even tried (a USB CD-ROM may retry a refused write for long). */
	for (const EFI_DEVICE_PATH *p = dp; p && !IsDevicePathEnd(p) && DevicePathNodeLength(p) >= 4;
	     p = NextDevicePathNode(p))
		if (DevicePathType(p) == MEDIA_DEVICE_PATH && DevicePathSubType(p) == MEDIA_CDROM_DP)
			vol.readonly = "the boot volume is a CD-ROM, read-only";
	CHAR16 *text = dp ? DevicePathToStr(dp) : NULL;
	char path[160] = "?";
	if (text) {
		ascii_from_ucs2(path, sizeof(path), text, 1000);
		FreePool(text);
	}
	snprintf(vol.describe, sizeof(vol.describe), "boot volume %s%s", path,
		 vol.readonly ? ": a CD-ROM, read-only" : "");
}

const char *files_readonly(void)
{
	return vol.readonly;
}

void files_fini(void)
{
	if (vol.streaming)
		vol.streaming->Close(vol.streaming);
	vol.streaming = NULL;
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

/* The firmware's reason in words (UEFI 2.10 appendix D), for the console
 * and the verdict line. */
static const char *status_words(EFI_STATUS st)
{
	static char other[48];
	switch (st) {
	case EFI_WRITE_PROTECTED:
		return "the medium is write-protected";
	case EFI_VOLUME_FULL:
		return "the volume is full";
	case EFI_DEVICE_ERROR:
		return "device error";
	case EFI_VOLUME_CORRUPTED:
		return "the file system is corrupted";
	case EFI_NO_MEDIA:
		return "no medium in the drive";
	case EFI_MEDIA_CHANGED:
		return "the medium was changed";
	case EFI_ACCESS_DENIED:
		return "access denied (a read-only file or folder)";
	case EFI_OUT_OF_RESOURCES:
		return "the firmware ran out of resources";
	case EFI_NOT_FOUND:
		return "not found";
	}
	snprintf(other, sizeof(other), "firmware error (status 0x%llx)", (unsigned long long)st);
	return other;
}

static const char *volume_stream(const char *path, bool (*piece)(void *ctx, const void *buf, size_t n), void *ctx,
				 bool *absent);

/* The file in pieces of 64 KiB: a config file of any size is read to its
 * end while only one piece is held. */
const char *files_stream(const char *path, bool (*piece)(void *ctx, const void *buf, size_t n), void *ctx, bool *absent)
{
	*absent = false;
	if (vol.net && vol.root) { /* iPXE's: what its script fetched first */
		const char *e = volume_stream(path, piece, ctx, absent);
		if (!*absent)
			return e;
	}
	if (vol.net)
		return netboot_stream(path, piece, ctx, absent);
	return volume_stream(path, piece, ctx, absent);
}

/* The file from the volume's file system, in pieces. */
static const char *volume_stream(const char *path, bool (*piece)(void *ctx, const void *buf, size_t n), void *ctx,
				 bool *absent)
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
		snprintf(why, sizeof(why), "cannot open %s: %s", path, status_words(st));
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
				snprintf(why, sizeof(why), "read error after %llu bytes: %s", total, status_words(st));
				result = why;
				break;
			}
			vol.streaming = f;
			bool more = got != 0 && piece(ctx, buf, got);
			if (!vol.streaming) /* closed under us by an exit: the heap went too, free nothing */
				return NULL;
			vol.streaming = NULL;
			if (!more)
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

/* Opens `path` creating it when missing. */
static EFI_STATUS open_create(const char *path, UINT64 attrs, EFI_FILE_HANDLE *out)
{
	CHAR16 name[128];
	to_efi_path(name, 128, path);
	return vol.root->Open(vol.root, out, name, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
			      attrs);
}

/* The file's size, or ~0 when the firmware will not say. */
static UINT64 file_size(EFI_FILE_HANDLE f)
{
	EFI_FILE_INFO *info = LibFileInfo(f);
	if (!info)
		return ~0ull;
	UINT64 size = info->FileSize;
	FreePool(info);
	return size;
}

/* An open file as the platform hands it out: `size` is where a failed
 * append cuts it back to. */
static struct platform_file *wrap(EFI_FILE_HANDLE f, UINT64 size, const char **why)
{
	struct platform_file *pf = malloc(sizeof(*pf));
	if (!pf) {
		f->Close(f);
		*why = "out of memory";
		return NULL;
	}
	pf->h = f;
	pf->size = size;
	return pf;
}

/* `path` as the firmware names it on a volume files may be written to:
 * false with *why when there is none. */
static bool writable_name(const char *path, CHAR16 *name, size_t cap, const char **why)
{
	if (vol.readonly) { /* a CD or a network boot: never opened for writing */
		*why = vol.readonly;
		return false;
	}
	if (!vol.root) {
		*why = "the boot volume has no file system we can open";
		return false;
	}
	to_efi_path(name, cap, path);
	return true;
}

/* Each folder on the way to `path`, made where missing; false with the
 * reason in err. */
static bool make_folders(const char *path, char *err, size_t cap)
{
	char dir[128];
	for (const char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
		size_t n = (size_t)(s - path);
		if (n >= sizeof(dir))
			break;
		memcpy(dir, path, n);
		dir[n] = '\0';
		EFI_FILE_HANDLE d;
		EFI_STATUS st = open_create(dir, EFI_FILE_DIRECTORY, &d);
		if (EFI_ERROR(st)) {
			snprintf(err, cap, "cannot create the folder %s: %s", dir, status_words(st));
			return false;
		}
		d->Close(d);
	}
	return true;
}

struct platform_file *files_create(const char *path, const char **why)
{
	static char err[160];
	CHAR16 name[128];
	if (!writable_name(path, name, 128, why))
		return NULL;
	EFI_FILE_HANDLE f;
	/* Only NOT_FOUND says the name is free: after any other failure the
	 * file may be there, and Open(CREATE) would write over it. */
	EFI_STATUS st = vol.root->Open(vol.root, &f, name, EFI_FILE_MODE_READ, 0);
	if (!EFI_ERROR(st)) {
		f->Close(f);
		*why = "exists";
		return NULL;
	}
	if (st != EFI_NOT_FOUND) {
		snprintf(err, sizeof(err), "cannot tell whether %s exists: %s", path, status_words(st));
		*why = err;
		return NULL;
	}
	if (!make_folders(path, err, sizeof(err))) {
		*why = err;
		return NULL;
	}
	st = open_create(path, 0, &f);
	if (EFI_ERROR(st)) {
		snprintf(err, sizeof(err), "cannot create the file: %s", status_words(st));
		*why = err;
		return NULL;
	}
	/* Open(CREATE) opens a file that appeared meanwhile: appending to
	 * it would overwrite its start. */
	UINT64 size = file_size(f);
	if (size != 0) {
		f->Close(f);
		*why = size == ~0ull ? "the firmware will not say whether the new file is empty" : "exists";
		return NULL;
	}
	return wrap(f, 0, why);
}

/* Cuts the file back to `size` (SetInfo) after a write that failed or
 * fell short, so that no partial line stays on the medium. */
static bool cut_back(EFI_FILE_HANDLE h, UINT64 size)
{
	EFI_FILE_INFO *info = LibFileInfo(h);
	if (!info)
		return false;
	bool ok = true;
	if (info->FileSize != size) {
		info->FileSize = size;
		ok = !EFI_ERROR(h->SetInfo(h, &GenericFileInfo, info->Size, info));
	}
	FreePool(info);
	ok = ok && !EFI_ERROR(h->SetPosition(h, size)) && !EFI_ERROR(h->Flush(h));
	return ok && file_size(h) == size;
}

bool files_append(struct platform_file *f, const void *buf, size_t n, const char **why)
{
	static char err[160];
	char reason[64];
	UINTN len = n;
	EFI_STATUS st = f->h->Write(f->h, &len, (void *)buf);
	if (!EFI_ERROR(st) && len == n)
		st = f->h->Flush(f->h);
	if (!EFI_ERROR(st) && len == n) {
		f->size += n;
		return true;
	}
	if (EFI_ERROR(st))
		snprintf(reason, sizeof(reason), "%s", status_words(st));
	else
		snprintf(reason, sizeof(reason), "the firmware wrote %llu of %zu bytes", (unsigned long long)len, n);
	bool cut = cut_back(f->h, f->size);
	snprintf(err, sizeof(err), "%s%s", reason,
		 cut ? "" : "; cutting the partial line off failed too, so the file may end in one");
	*why = err;
	return false;
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
	CHAR16 name[128];
	if (!writable_name(path, name, 128, why))
		return NULL;
	EFI_FILE_HANDLE f;
	EFI_STATUS st = vol.root->Open(vol.root, &f, name, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0);
	if (EFI_ERROR(st)) {
		*why = status_words(st);
		return NULL;
	}
	EFI_FILE_INFO *info = LibFileInfo(f);
	if (!info) {
		f->Close(f);
		*why = "the file's size could not be read";
		return NULL;
	}
	static char err[160];
	UINT64 size = info->FileSize, keep = size;
	char tail[2048];
	UINT64 from = size > sizeof(tail) ? size - sizeof(tail) : 0;
	UINTN got = (UINTN)(size - from);
	const char *step = "reading its last record";
	EFI_STATUS st2 = f->SetPosition(f, from);
	if (!EFI_ERROR(st2))
		st2 = f->Read(f, &got, tail);
	if (!EFI_ERROR(st2) && got && tail[got - 1] != '\n') {
		keep = from;
		for (UINTN i = got; i-- > 0;)
			if (tail[i] == '\n') {
				keep = from + i + 1;
				break;
			}
		info->FileSize = keep;
		step = "cutting off the record the reset cut short";
		st2 = f->SetInfo(f, &GenericFileInfo, info->Size, info);
	}
	FreePool(info);
	if (!EFI_ERROR(st2)) {
		step = "moving to its end";
		st2 = f->SetPosition(f, keep);
	}
	if (EFI_ERROR(st2)) {
		f->Close(f);
		snprintf(err, sizeof(err), "%s failed: %s", step, status_words(st2));
		*why = err;
		return NULL;
	}
	return wrap(f, keep, why); /* a failed append is cut back to keep */
}

/* `path` made to hold exactly buf's n bytes, written from its start and
 * flushed to the medium; created (with its folders) when missing. A file
 * longer than n is cut to n, which costs the firmware one more update:
 * callers that rewrite a file often keep its length. */
bool files_replace(const char *path, const void *buf, size_t n, const char **why)
{
	static char err[160];
	CHAR16 name[128];
	if (!writable_name(path, name, 128, why))
		return false;
	EFI_FILE_HANDLE f;
	/* the folders made (and a refusal said of them) only when the file
	 * cannot be opened: a file rewritten before every test opens once */
	EFI_STATUS st = open_create(path, 0, &f);
	if (EFI_ERROR(st)) {
		if (!make_folders(path, err, sizeof(err))) {
			*why = err;
			return false;
		}
		st = open_create(path, 0, &f);
	}
	const char *step = "opening it";
	UINTN len = n;
	if (!EFI_ERROR(st)) {
		step = "writing it";
		st = f->SetPosition(f, 0);
		if (!EFI_ERROR(st))
			st = f->Write(f, &len, (void *)buf);
		if (!EFI_ERROR(st) && len != n)
			st = EFI_DEVICE_ERROR;
		UINT64 size = EFI_ERROR(st) ? n : file_size(f);
		if (!EFI_ERROR(st) && size != n) {
			step = "cutting it to its new length";
			EFI_FILE_INFO *info = LibFileInfo(f);
			st = info ? EFI_SUCCESS : EFI_DEVICE_ERROR;
			if (info) {
				info->FileSize = n;
				st = f->SetInfo(f, &GenericFileInfo, info->Size, info);
				FreePool(info);
			}
		}
		if (!EFI_ERROR(st)) {
			step = "flushing it";
			st = f->Flush(f);
		}
		f->Close(f);
	}
	if (EFI_ERROR(st)) {
		snprintf(err, sizeof(err), "%s: %s failed: %s", path, step, status_words(st));
		*why = err;
		return false;
	}
	return true;
}

/* `path` deleted; absent is fine. */
bool files_delete(const char *path, const char **why)
{
	static char err[160];
	CHAR16 name[128];
	if (!writable_name(path, name, 128, why))
		return false;
	EFI_FILE_HANDLE f;
	/* asked read-only first: a write-protected medium refuses the
	 * opening for writing even of a file that is not there */
	EFI_STATUS st = vol.root->Open(vol.root, &f, name, EFI_FILE_MODE_READ, 0);
	if (st == EFI_NOT_FOUND)
		return true;
	if (!EFI_ERROR(st)) {
		f->Close(f);
		st = vol.root->Open(vol.root, &f, name, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0);
	}
	if (!EFI_ERROR(st))
		st = f->Delete(f); /* closes it, whatever it returns */
	if (st == EFI_WARN_DELETE_FAILURE)
		st = EFI_ACCESS_DENIED;
	if (EFI_ERROR(st)) {
		snprintf(err, sizeof(err), "%s: deleting it failed: %s", path, status_words(st));
		*why = err;
		return false;
	}
	return true;
}
