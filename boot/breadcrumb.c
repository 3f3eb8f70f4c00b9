/* What survives a reset: the breadcrumb as a UEFI non-volatile variable,
 * and the firmware watchdog that causes the reset when a test hangs
 * (UEFI spec: Runtime Services GetVariable/SetVariable, Boot Services
 * SetWatchdogTimer).
 *
 * The variable: IommonBreadcrumb, vendor GUID
 * 723dca25-5f0e-43bd-b2f1-027fa6c00ccc (iommon's own), attributes
 * non-volatile + boot service + runtime access (an OS can read what a
 * crashed run left: efivarfs IommonBreadcrumb-723dca25-...). Its data is
 * ASCII text without a NUL: core/monitor/survive.c writes and checks it. */
#include <stdio.h>
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

int breadcrumb_get(char *buf, size_t cap, const char **why)
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

const char *breadcrumb_set(const char *text)
{
	EFI_STATUS st;
	if (!text || !*text) {
		st = RT->SetVariable(crumb_name, &crumb_guid, 0, 0, NULL);
		return st == EFI_SUCCESS || st == EFI_NOT_FOUND ? NULL : status_words(st);
	}
	st = RT->SetVariable(crumb_name, &crumb_guid, CRUMB_ATTRS, strlen(text), (void *)text);
	return EFI_ERROR(st) ? status_words(st) : NULL;
}

const char *watchdog_arm(unsigned seconds)
{
	EFI_STATUS st = BS->SetWatchdogTimer(seconds, seconds ? IOMMON_WATCHDOG_CODE : 0, 0, NULL);
	return EFI_ERROR(st) ? status_words(st) : NULL;
}
