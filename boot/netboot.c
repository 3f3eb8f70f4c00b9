/* After a network boot there is no boot volume: the image came over TFTP
 * and the loaded image's device is the network interface. The plan files
 * (iommon.cfg, iommon-<product>.cfg, iommon-known.txt) are then read from
 * the same TFTP server through the firmware's PXE base code protocol (UEFI
 * 2.10 24.3, Mtftp), the one that fetched the image; nothing is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"

/* A plan larger than this is refused rather than held: 1 MiB is far past
 * any plan, and bounds what a misnamed file on the server can take. */
#define NET_FILE_MAX (1u << 20)

static struct {
	EFI_PXE_BASE_CODE_PROTOCOL *pxe;
	EFI_IP_ADDRESS server;
	char dir[128]; /* the boot file's folder on the server ("lab/"), or "" */
} net;

/* The PXE base code on the device the image came from, or on its nearest
 * ancestor (EDK II installs it on the NIC and on its IPv4 child). */
static EFI_PXE_BASE_CODE_PROTOCOL *find_pxe(void)
{
	EFI_HANDLE dev = boot_loaded_image->DeviceHandle;
	EFI_PXE_BASE_CODE_PROTOCOL *pxe = NULL;
	if (dev && !EFI_ERROR(BS->HandleProtocol(dev, &PxeBaseCodeProtocol, (void **)&pxe)) && pxe)
		return pxe;
	EFI_DEVICE_PATH *dp = dev ? DevicePathFromHandle(dev) : NULL;
	EFI_HANDLE h;
	if (dp && !EFI_ERROR(BS->LocateDevicePath(&PxeBaseCodeProtocol, &dp, &h)) &&
	    !EFI_ERROR(BS->HandleProtocol(h, &PxeBaseCodeProtocol, (void **)&pxe)))
		return pxe;
	return NULL;
}

bool netboot_init(char *describe, size_t cap)
{
	EFI_PXE_BASE_CODE_PROTOCOL *pxe = find_pxe();
	if (!pxe || !pxe->Mode || !pxe->Mode->Started)
		return false;
	EFI_PXE_BASE_CODE_MODE *m = pxe->Mode;
	if (m->UsingIpv6) {
		snprintf(describe, cap,
			 "no boot volume: a network boot over IPv6, whose TFTP server iommon does not use");
		return false;
	}
	/* The boot server: the proxy DHCP offer's when one came (a PXE server
	 * beside the site's DHCP server), else the DHCP ack's siaddr
	 * (RFC 2131: "next server to use in bootstrap"). */
	const EFI_PXE_BASE_CODE_DHCPV4_PACKET *p = NULL;
	if (m->ProxyOfferReceived)
		p = &m->ProxyOffer.Dhcpv4;
	else if (m->DhcpAckReceived)
		p = &m->DhcpAck.Dhcpv4;
	if (!p || (p->BootpSiAddr[0] | p->BootpSiAddr[1] | p->BootpSiAddr[2] | p->BootpSiAddr[3]) == 0) {
		snprintf(describe, cap, "no boot volume: a network boot whose DHCP answer names no TFTP server");
		return false;
	}
	net.pxe = pxe;
	memset(&net.server, 0, sizeof(net.server));
	memcpy(net.server.v4.Addr, p->BootpSiAddr, 4);
	/* the plan files lie beside the boot file: its folder, up to the last
	 * '/' of the DHCP answer's file field (128 bytes, NUL-padded or not) */
	size_t n = strnlen((const char *)p->BootpBootFile, sizeof(p->BootpBootFile)), cut = 0;
	for (size_t i = 0; i < n; i++)
		if (p->BootpBootFile[i] == '/')
			cut = i + 1;
	if (cut >= sizeof(net.dir))
		cut = 0;
	memcpy(net.dir, p->BootpBootFile, cut);
	net.dir[cut] = 0;
	snprintf(
	    describe, cap, "no boot volume: a network boot; plans from TFTP server %u.%u.%u.%u%s%s, nothing written",
	    p->BootpSiAddr[0], p->BootpSiAddr[1], p->BootpSiAddr[2], p->BootpSiAddr[3], cut ? " in " : "", net.dir);
	return true;
}

/* One TFTP read of the whole file (a plan is small), handed on in one
 * piece. The firmware's Mtftp is synchronous and bounds its own wait: it
 * retransmits a few times and gives up with EFI_TIMEOUT (EDK II: 4 s, 6
 * tries); iommon cannot interrupt it, only report what it returned. */
const char *netboot_stream(const char *path, bool (*piece)(void *ctx, const void *buf, size_t n), void *ctx,
			   bool *absent)
{
	static char why[200];
	*absent = false;
	char *buf = malloc(NET_FILE_MAX);
	if (!buf)
		return "out of memory for a TFTP read buffer";
	char where[256];
	snprintf(where, sizeof(where), "%s%s", net.dir, path);
	UINT64 size = NET_FILE_MAX;
	EFI_STATUS st = net.pxe->Mtftp(net.pxe, EFI_PXE_BASE_CODE_TFTP_READ_FILE, buf, FALSE, &size, NULL, &net.server,
				       (UINT8 *)where, NULL, FALSE);
	const char *result = NULL;
	/* The server refused the read with a TFTP ERROR packet. RFC 1350's
	 * code 1 is "file not found"; OVMF 2022.11 returns EFI_TFTP_ERROR
	 * without filling Mode->TftpError, so a refusal with no code known
	 * counts as absent too (a server answered: the name is not there). */
	bool refused = st == EFI_TFTP_ERROR;
	if (refused && net.pxe->Mode->TftpErrorReceived && net.pxe->Mode->TftpError.ErrorCode != 1)
		refused = false;
	if (refused) {
		*absent = true;
		snprintf(why, sizeof(why), "no %s on the TFTP server", where);
		result = why;
	} else if (st == EFI_BUFFER_TOO_SMALL) {
		snprintf(why, sizeof(why), "%s on the TFTP server is larger than %u bytes: not read", where,
			 NET_FILE_MAX);
		result = why;
	} else if (EFI_ERROR(st)) {
		char server[64] = "";
		if (st == EFI_TFTP_ERROR && net.pxe->Mode->TftpErrorReceived)
			snprintf(server, sizeof(server), " (server error %u)", net.pxe->Mode->TftpError.ErrorCode);
		snprintf(why, sizeof(why), "TFTP read of %s failed: status 0x%llx%s%s", where, (unsigned long long)st,
			 st == EFI_TIMEOUT ? ", the server did not answer" : "", server);
		result = why;
	} else if (size) {
		piece(ctx, buf, (size_t)size);
	}
	free(buf);
	return result;
}
