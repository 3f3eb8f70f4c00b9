/* What survives a reset: the breadcrumb, and the firmware watchdog that
 * causes the reset when a test hangs (UEFI spec: Runtime Services
 * GetVariable/SetVariable, Boot Services SetWatchdogTimer).
 *
 * The breadcrumb is rewritten before every test, so it is kept where that
 * is cheap: the file iommon/breadcrumb.txt on the boot medium when the
 * medium takes writes (a write and a flush, as each result record has),
 * else a UEFI non-volatile variable. Under QEMU a variable write costs
 * about 25 ms (OVMF's flash written a byte at a time), a third of the vtd
 * group's run; on a server each is an SPI flash program, often through
 * SMM, and the variable store's wear. The variable: IommonBreadcrumb,
 * vendor GUID 723dca25-5f0e-43bd-b2f1-027fa6c00ccc (iommon's own),
 * non-volatile + boot service + runtime access (an OS can read what a
 * crashed run left: efivarfs IommonBreadcrumb-723dca25-...). Either holds
 * ASCII text without a NUL (core/monitor/survive.c writes and checks it);
 * the file is padded with newlines to a fixed length, so that rewriting
 * it never changes its size.
 *
 * The file is used until a write to it fails (a write-protected stick, a
 * medium gone); from then on the variable, and the file is deleted if it
 * can be, so that it cannot be read as newer. A boot that finds both
 * takes the variable: it is only written after the file failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"

EFI_GUID crumb_guid = { 0x723dca25, 0x5f0e, 0x43bd, { 0xb2, 0xf1, 0x02, 0x7f, 0xa6, 0xc0, 0x0c, 0xcc } };
static CHAR16 crumb_name[] = L"IommonBreadcrumb";

#define CRUMB_ATTRS (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)

/* Watchdog codes 0x0000-0xffff are the firmware's; ours is above. */
#define IOMMON_WATCHDOG_CODE 0x10001

static const char *status_words(EFI_STATUS st)
{
	static char other[48];
	switch (st) {
	case EFI_OUT_OF_RESOURCES:
		return "the variable store is full";
	case EFI_WRITE_PROTECTED:
		return "the variable store is write-protected";
	case EFI_DEVICE_ERROR:
		return "the variable store reported a device error";
	case EFI_SECURITY_VIOLATION:
		return "the firmware refused the write (security policy)";
	case EFI_UNSUPPORTED:
		return "the firmware does not support it";
	case EFI_INVALID_PARAMETER:
		return "the firmware called the request invalid";
	}
	snprintf(other, sizeof(other), "EFI status 0x%llx", (unsigned long long)st);
	return other;
}

#define CRUMB_FILE "iommon/breadcrumb.txt"
#define CRUMB_FILE_LEN 1024 /* core/monitor/crumb.h: CRUMB_MAX, its NUL made a newline */

static struct {
	bool file_failed;   /* the medium refused a write: the variable from now on */
	bool variable_gone; /* this boot deleted the variable (or found none) */
	char failed_why[160];
} keep;

static int variable_get(char *buf, size_t cap, const char **why)
{
	UINT32 attrs;
	UINTN size = cap - 1;
	EFI_STATUS st = RT->GetVariable(crumb_name, &crumb_guid, &attrs, &size, buf);
	if (st == EFI_NOT_FOUND)
		return 0;
	if (st == EFI_BUFFER_TOO_SMALL) {
		*why = "the variable is longer than any breadcrumb";
		return -1;
	}
	if (EFI_ERROR(st)) {
		*why = status_words(st);
		return -1;
	}
	buf[size] = '\0';
	if (strlen(buf) != size) {
		*why = "the variable holds NUL bytes";
		return -1;
	}
	return (int)size;
}

/* The file's breadcrumb: 0 when there is none (no file, or only padding). */
static int file_get(char *buf, size_t cap, const char **why)
{
	size_t len = 0;
	char *text = files_read(CRUMB_FILE, &len);
	if (!text)
		return 0;
	int n = -1;
	if (memchr(text, '\0', len))
		*why = CRUMB_FILE " holds NUL bytes";
	else {
		while (len && text[len - 1] == '\n' && (len == 1 || text[len - 2] == '\n'))
			len--; /* the padding: the text's own last newline stays */
		if (len == 1 && text[0] == '\n')
			len = 0;
		if (len >= cap)
			*why = CRUMB_FILE " is longer than any breadcrumb";
		else {
			memcpy(buf, text, len);
			buf[len] = '\0';
			n = (int)len;
		}
	}
	free(text);
	return n;
}

int breadcrumb_get(char *buf, size_t cap, const char **why)
{
	int v = variable_get(buf, cap, why);
	if (v != 0)
		return v; /* written only after the file failed: the newer */
	keep.variable_gone = true;
	return file_get(buf, cap, why);
}

static const char *variable_delete(void)
{
	EFI_STATUS st = RT->SetVariable(crumb_name, &crumb_guid, 0, 0, NULL);
	if (st != EFI_SUCCESS && st != EFI_NOT_FOUND)
		return status_words(st);
	keep.variable_gone = true;
	return NULL;
}

const char *breadcrumb_set(const char *text)
{
	const char *why = NULL;
	if (!text || !*text) { /* cleared: neither place holds one */
		const char *fwhy = NULL, *vwhy = variable_delete();
		if (!files_readonly() && !files_delete(CRUMB_FILE, &fwhy))
			return fwhy;
		return vwhy;
	}
	size_t len = strlen(text);
	if (!keep.file_failed && !files_readonly() && len < CRUMB_FILE_LEN) {
		char padded[CRUMB_FILE_LEN];
		memcpy(padded, text, len);
		memset(padded + len, '\n', sizeof(padded) - len);
		if (files_replace(CRUMB_FILE, padded, sizeof(padded), &why)) {
			/* one left by an earlier boot would be read before the file */
			return keep.variable_gone ? NULL : variable_delete();
		}
		keep.file_failed = true;
		snprintf(keep.failed_why, sizeof(keep.failed_why), "%s", why);
		const char *dwhy;
		files_delete(CRUMB_FILE, &dwhy);
		printf(
		    "warning: the breadcrumb could not be kept on the boot medium (%s): a UEFI variable from now on\n",
		    keep.failed_why);
	}
	EFI_STATUS st = RT->SetVariable(crumb_name, &crumb_guid, CRUMB_ATTRS, len, (void *)text);
	if (!EFI_ERROR(st))
		keep.variable_gone = false;
	return EFI_ERROR(st) ? status_words(st) : NULL;
}

const char *watchdog_arm(unsigned seconds)
{
	EFI_STATUS st = BS->SetWatchdogTimer(seconds, seconds ? IOMMON_WATCHDOG_CODE : 0, 0, NULL);
	return EFI_ERROR(st) ? status_words(st) : NULL;
}
