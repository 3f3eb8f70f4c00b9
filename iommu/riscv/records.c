/* The command and fault queues' records (spec 3.1, 3.2): the commands
 * iommon issues, built bit by bit, and fault records read back in words. */
#include <stdio.h>

#include "riscv.h"

#define CMD(op, func) ((uint64_t)(op) | ((uint64_t)(func) << 7))
/* IOTINVAL's ADDR[63:12] sits at dw1 bits 61:10; IOFENCE's ADDR[63:2] at 61:0 */
#define IOTINVAL_ADDR(a) (((a) >> 2) & 0x3ffffffffffffc00ull)
#define IOFENCE_ADDR(a) (((a) >> 2) & 0x3fffffffffffffffull)

static struct rvi_cmd iotinval(unsigned func, int gscid, int pscid, uint64_t addr)
{
	struct rvi_cmd c = { CMD(RVI_OP_IOTINVAL, func), 0 };
	if (gscid >= 0)
		c.dw0 |= RVI_IOTINVAL_GV | RVI_IOHGATP_GSCID((unsigned)gscid);
	if (pscid >= 0)
		c.dw0 |= RVI_IOTINVAL_PSCV | RVI_TA_PSCID((unsigned)pscid);
	if (addr != ~0ull) {
		c.dw0 |= RVI_IOTINVAL_AV;
		c.dw1 = IOTINVAL_ADDR(addr);
	}
	return c;
}

struct rvi_cmd rvi_cmd_iotinval_vma(int gscid, int pscid, uint64_t addr)
{
	return iotinval(0, gscid, pscid, addr);
}

/* PSCV is reserved in IOTINVAL.GVMA: never set */
struct rvi_cmd rvi_cmd_iotinval_gvma(int gscid, uint64_t addr)
{
	return iotinval(1, gscid, -1, addr);
}

struct rvi_cmd rvi_cmd_iodir_ddt(long id)
{
	struct rvi_cmd c = { CMD(RVI_OP_IODIR, 0), 0 };
	if (id >= 0)
		c.dw0 |= RVI_IODIR_DV | ((uint64_t)((unsigned long)id & 0xffffff) << 40);
	return c;
}

struct rvi_cmd rvi_cmd_iofence(uint64_t addr, uint32_t data)
{
	struct rvi_cmd c = { CMD(RVI_OP_IOFENCE, 0) | RVI_IOFENCE_PR | RVI_IOFENCE_PW, 0 };
	if (addr) {
		c.dw0 |= RVI_IOFENCE_AV | ((uint64_t)data << 32);
		c.dw1 = IOFENCE_ADDR(addr);
	}
	return c;
}

const char *rvi_cmd_name(const struct rvi_cmd *c)
{
	static const char *const names[][2] = {
		[RVI_OP_IOTINVAL] = { "IOTINVAL.VMA", "IOTINVAL.GVMA" },
		[RVI_OP_IOFENCE] = { "IOFENCE.C", NULL },
		[RVI_OP_IODIR] = { "IODIR.INVAL_DDT", "IODIR.INVAL_PDT" },
		[RVI_OP_ATS] = { "ATS.INVAL", "ATS.PRGR" },
	};
	unsigned op = (unsigned)RVI_CMD_OPCODE(c), func = (unsigned)RVI_CMD_FUNC(c);
	if (op >= sizeof(names) / sizeof(names[0]) || func > 1)
		return NULL;
	return names[op][func];
}

const char *rvi_cause_name(unsigned cause)
{
	static const struct {
		unsigned cause;
		const char *name;
	} causes[] = {
		{ 1, "instruction access fault" },
		{ 4, "read address misaligned" },
		{ 5, "read access fault" },
		{ 6, "write/AMO address misaligned" },
		{ 7, "write/AMO access fault" },
		{ 12, "instruction page fault" },
		{ 13, "read page fault" },
		{ 15, "write/AMO page fault" },
		{ 20, "instruction guest-page fault" },
		{ 21, "read guest-page fault" },
		{ 23, "write/AMO guest-page fault" },
		{ 256, "all inbound transactions disallowed" },
		{ 257, "DDT entry load access fault" },
		{ 258, "DDT entry not valid" },
		{ 259, "DDT entry misconfigured" },
		{ 260, "transaction type disallowed" },
		{ 261, "MSI PTE load access fault" },
		{ 262, "MSI PTE not valid" },
		{ 263, "MSI PTE misconfigured" },
		{ 264, "MRIF access fault" },
		{ 265, "PDT entry load access fault" },
		{ 266, "PDT entry not valid" },
		{ 267, "PDT entry misconfigured" },
		{ 268, "DDT data corruption" },
		{ 269, "PDT data corruption" },
		{ 270, "MSI PT data corruption" },
		{ 271, "MSI MRIF data corruption" },
		{ 272, "internal data path error" },
		{ 273, "IOMMU MSI write access fault" },
		{ 274, "first/second-stage PT data corruption" },
	};
	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (causes[i].cause == cause)
			return causes[i].name;
	return NULL;
}

static const char *ttyp_name(unsigned t)
{
	static const char *const names[] = {
		[RVI_TTYP_NONE] = "not a transaction",
		[RVI_TTYP_UNTRANSLATED_EXEC] = "untranslated read for execute",
		[RVI_TTYP_UNTRANSLATED_READ] = "untranslated read",
		[RVI_TTYP_UNTRANSLATED_WRITE] = "untranslated write/AMO",
		[RVI_TTYP_TRANSLATED_EXEC] = "translated read for execute",
		[RVI_TTYP_TRANSLATED_READ] = "translated read",
		[RVI_TTYP_TRANSLATED_WRITE] = "translated write/AMO",
		[RVI_TTYP_ATS_REQUEST] = "ATS translation request",
		[RVI_TTYP_MESSAGE] = "PCIe message",
	};
	return t < sizeof(names) / sizeof(names[0]) ? names[t] : NULL;
}

void rvi_fault_describe(const struct rvi_fault *f, char *out, size_t n)
{
	unsigned cause = RVI_FAULT_CAUSE(f->hdr), ttyp = RVI_FAULT_TTYP(f->hdr);
	const char *cname = rvi_cause_name(cause), *tname = ttyp_name(ttyp);
	char cbuf[64], tbuf[24];
	if (cname)
		snprintf(cbuf, sizeof(cbuf), "%s (%u)", cname, cause);
	else
		snprintf(cbuf, sizeof(cbuf), "reserved cause %u", cause);
	if (!tname)
		snprintf(tbuf, sizeof(tbuf), "reserved TTYP %u", ttyp), tname = tbuf;
	size_t k = 0;
	int w = snprintf(out, n, "%s, device 0x%06x, IOVA 0x%llx, %s", cbuf, (unsigned)RVI_FAULT_DID(f->hdr),
			 (unsigned long long)f->iotval, tname);
	k = w > 0 ? (size_t)w : 0;
	/* PV: the request carried a process id (PID, 31:12) */
	if (k < n && (f->hdr & RVI_BIT(32))) {
		w = snprintf(out + k, n - k, ", process 0x%05x%s", (unsigned)RVI_FIELD(f->hdr, 31, 12),
			     f->hdr & RVI_BIT(33) ? " (privileged)" : "");
		k += w > 0 ? (size_t)w : 0;
	}
	/* a guest-page fault names the guest physical address (iotval2 bits
	 * 63:2; bit 0: an implicit access of the first-stage walk, bit 1: a
	 * write of one) */
	if (k < n && (cause == 20 || cause == RVI_CAUSE_READ_GUEST_PAGE || cause == RVI_CAUSE_WRITE_GUEST_PAGE))
		snprintf(out + k, n - k, ", GPA 0x%llx%s", (unsigned long long)(f->iotval2 & ~3ull),
			 !(f->iotval2 & 1) ? ""
			 : f->iotval2 & 2  ? " (the first-stage walk's A/D update)"
					   : " (the first-stage walk's read)");
}
