/* After a network boot there is no boot volume: the image came over TFTP
 * and the loaded image's device is the network interface. The plan files
 * (iommon.cfg, iommon-<product>.cfg, iommon-known.txt) are then read from
 * beside the boot file, the way the image came: through the firmware's PXE
 * base code protocol (UEFI 2.10 24.3, Mtftp) from the same TFTP server,
 * or, when iPXE started the image (chain-loaded, or QEMU's virtio-net
 * option ROM), through iPXE's download protocol, which resolves a name
 * against the boot file's URI (TFTP or HTTP alike). Nothing is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "core/base/timing.h"

/* iPXE's download protocol, as iPXE's include/ipxe/efi/efi_download.h
 * defines it: installed on the loaded image's device handle of every EFI
 * application iPXE starts. */
typedef EFI_STATUS(EFIAPI *ipxe_data_cb)(VOID *ctx, VOID *buf, UINTN len, UINTN offset);
typedef VOID(EFIAPI *ipxe_finish_cb)(VOID *ctx, EFI_STATUS status);
struct ipxe_download {
	EFI_STATUS(EFIAPI *start)
	(struct ipxe_download *self, CHAR8 *url, ipxe_data_cb data, ipxe_finish_cb finish, VOID *ctx, VOID **file);
	EFI_STATUS(EFIAPI *abort)(struct ipxe_download *self, VOID *file, EFI_STATUS status);
	EFI_STATUS(EFIAPI *poll)(struct ipxe_download *self);
};
static EFI_GUID ipxe_download_guid = { 0x3eaeaebd, 0xdecf, 0x493b, { 0x9b, 0xd1, 0xcd, 0xb2, 0xde, 0xca, 0xe7, 0x19 } };

/* How long one plan file may take to arrive through iPXE: its TFTP gives
 * up on a silent server by itself, this bounds the rest. */
#define IPXE_FETCH_US (20 * 1000 * 1000)

/* A plan larger than this is refused rather than held: 1 MiB is far past
 * any plan, and bounds what a misnamed file on the server can take. */
#define NET_FILE_MAX (1u << 20)

static struct {
	struct ipxe_download *ipxe; /* iPXE started the image: its download protocol */
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

static struct ipxe_download *find_ipxe(void)
{
	EFI_HANDLE dev = boot_loaded_image->DeviceHandle;
	struct ipxe_download *d = NULL;
	if (dev && !EFI_ERROR(BS->HandleProtocol(dev, &ipxe_download_guid, (void **)&d)) && d && d->start && d->poll)
		return d;
	return NULL;
}

bool netboot_through_ipxe(void)
{
	return find_ipxe() != NULL;
}

bool netboot_init(char *describe, size_t cap)
{
	net.ipxe = find_ipxe();
	if (net.ipxe) {
		snprintf(describe, cap,
			 "no boot volume: a network boot through iPXE; plans fetched beside the boot file, nothing "
			 "written");
		return true;
	}
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

/* One download through iPXE, into a buffer of NET_FILE_MAX. */
struct fetch {
	char *buf;
	size_t len;
	bool too_big, done;
	EFI_STATUS status;
};

static EFI_STATUS EFIAPI ipxe_data(VOID *ctx, VOID *data, UINTN len, UINTN offset)
{
	struct fetch *f = ctx;
	if (len == 0) /* a size hint */
		return EFI_SUCCESS;
	if (offset > NET_FILE_MAX || len > NET_FILE_MAX - offset) {
		f->too_big = true;
		return EFI_BUFFER_TOO_SMALL; /* iPXE aborts the download */
	}
	memcpy(f->buf + offset, data, len);
	if (offset + len > f->len)
		f->len = offset + len;
	return EFI_SUCCESS;
}

static VOID EFIAPI ipxe_finish(VOID *ctx, EFI_STATUS status)
{
	struct fetch *f = ctx;
	f->status = status;
	f->done = true;
}

static const char *ipxe_stream(const char *path, bool (*piece)(void *ctx, const void *buf, size_t n), void *ctx,
			       bool *absent)
{
	static char why[200];
	struct fetch f = { .buf = malloc(NET_FILE_MAX) };
	if (!f.buf)
		return "out of memory for a download buffer";
	char url[192];
	snprintf(url, sizeof(url), "%s", path); /* relative: beside the boot file */
	VOID *file = NULL;
	EFI_STATUS st = net.ipxe->start(net.ipxe, (CHAR8 *)url, ipxe_data, ipxe_finish, &f, &file);
	struct deadline d = deadline_after_us(IPXE_FETCH_US);
	while (!EFI_ERROR(st) && !f.done && !deadline_passed(&d))
		net.ipxe->poll(net.ipxe);
	const char *result = NULL;
	if (!EFI_ERROR(st) && !f.done) {
		net.ipxe->abort(net.ipxe, file, EFI_TIMEOUT);
		snprintf(why, sizeof(why), "%s through iPXE did not arrive within %u s", path, IPXE_FETCH_US / 1000000);
		result = why;
	} else if (EFI_ERROR(st) || EFI_ERROR(f.status)) {
		EFI_STATUS e = EFI_ERROR(st) ? st : f.status;
		/* iPXE reports a name its server does not have (TFTP's file not
		 * found, HTTP's 404) as EFI_NOT_FOUND */
		*absent = e == EFI_NOT_FOUND && !f.too_big;
		if (f.too_big)
			snprintf(why, sizeof(why), "%s beside the boot file is larger than %u bytes: not read", path,
				 NET_FILE_MAX);
		else if (*absent)
			snprintf(why, sizeof(why), "no %s beside the boot file (iPXE)", path);
		else
			snprintf(why, sizeof(why), "fetching %s through iPXE failed: status 0x%llx", path,
				 (unsigned long long)e);
		result = why;
	} else if (f.len) {
		piece(ctx, f.buf, f.len);
	}
	free(f.buf);
	return result;
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
	if (net.ipxe)
		return ipxe_stream(path, piece, ctx, absent);
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
