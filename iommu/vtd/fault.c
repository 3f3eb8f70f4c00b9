/* VT-d fault recording (7.1, 11.4.9): the primary fault log's records read
 * and cleared, their reasons named (appendix A), and the fault event
 * interrupt (FECTL/FEDATA/FEADDR) pointed at a handler when the platform
 * gives one. */
#include <stdio.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "driver.h"

const char *vtd_fault_reason(unsigned r)
{
	static const char *const text[] = {
		[1] = "root entry not present",
		[2] = "context entry not present",
		[3] = "context entry invalid",
		[4] = "address beyond the domain's width",
		[VTD_FR_WRITE] = "write to a page without write permission",
		[VTD_FR_READ] = "read of a page without read permission (or not present)",
		[7] = "second-level table walk failed",
		[8] = "root table address invalid",
		[9] = "context table address invalid",
		[10] = "reserved bit set in a root entry",
		[11] = "reserved bit set in a context entry",
		[12] = "reserved bit set in a second-level entry",
		[13] = "translation type blocked by the context entry",
		[VTD_FR_IR_REQ_RSVD] = "interrupt request with a reserved field set",
		[VTD_FR_IR_INDEX] = "interrupt index past the remapping table",
		[VTD_FR_IR_NOT_PRESENT] = "interrupt remapping entry not present",
		[VTD_FR_IR_FETCH] = "interrupt remapping table could not be read",
		[VTD_FR_IR_IRTE_RSVD] = "reserved field set in an interrupt remapping entry",
		[VTD_FR_IR_COMPAT] = "compatibility-format interrupt blocked",
		[VTD_FR_IR_SID] = "interrupt source-id verification failed",
		/* scalable mode (30h-90h): the table each family is about */
		[0x30] = "SM: root table address invalid",
		[0x31] = "SM: request with a PASID in legacy mode (TTM 00)",
		[0x32] = "SM: page request in legacy mode (TTM 00)",
		[0x38] = "SM: root entry could not be read",
		[0x39] = "SM: root entry not present",
		[0x3a] = "SM: reserved bit set in a root entry",
		[0x40] = "SM: context entry could not be read",
		[0x41] = "SM: context entry not present",
		[0x42] = "SM: reserved bit set in a context entry",
		[0x43] = "SM: context entry invalid",
		[0x44] = "SM: context entry's DTE clear for a translated request",
		[0x45] = "SM: context entry's PASIDE clear for a request with a PASID",
		[0x46] = "SM: PASID beyond the context entry's directory (PDTS)",
		[0x47] = "SM: context entry's PRE clear for a page request",
		[0x48] = "SM: context entry's RID_PASID invalid",
		[0x50] = "SM: PASID directory entry could not be read",
		[0x51] = "SM: PASID directory entry not present",
		[0x52] = "SM: reserved bit set in a PASID directory entry",
		[0x58] = "SM: PASID table entry could not be read",
		[0x59] = "SM: PASID table entry not present",
		[0x5a] = "SM: reserved bit set in a PASID table entry",
		[0x5b] = "SM: PASID table entry invalid (translation type, walk or width)",
		[0x5c] = "SM: PASID table entry's ERE clear for an execute request",
		[0x5d] = "SM: PASID table entry's SRE clear for a supervisor request",
		[0x70] = "SM: first-stage entry could not be read",
		[VTD_FR_SM_FS_NOT_PRESENT] = "SM: first-stage entry not present",
		[0x72] = "SM: reserved bit set in a first-stage entry",
		[0x73] = "SM: first-stage table pointer invalid (FSPTPTR)",
		[0x74] = "SM: nested: first-stage entry's address beyond the second stage's width",
		[0x75] = "SM: nested: first-stage top table not readable through the second stage",
		[0x76] = "SM: nested: first-stage entry not readable through the second stage",
		[VTD_FR_SM_NEST_FS_WRITE] = "SM: nested: first-stage entry not writable through the second stage",
		[0x78] = "SM: second-stage entry could not be read",
		[VTD_FR_SM_SS_RW] = "SM: second-stage entry denies the read or write",
		[0x7a] = "SM: reserved bit set in a second-stage entry",
		[0x7b] = "SM: second-stage table pointer invalid (SSPTPTR)",
		[0x7c] = "SM: second-stage A/D update needed with no-snoop walks",
		[0x80] = "SM: first-stage address not canonical",
		[0x81] = "SM: first-stage entry's U/S clear for a user request",
		[0x82] = "SM: no execute permission",
		[0x83] = "SM: address beyond the unit's width",
		[0x84] = "SM: second-stage address beyond the width",
		[VTD_FR_SM_WRITE] = "SM: no write permission for a write request",
		[VTD_FR_SM_READ] = "SM: no read permission for a read request",
		[0x87] = "SM: output address in the interrupt address range",
		[0x90] = "SM: first-stage A/D update needed with no-snoop walks",
	};
	return r < ARRAY_SIZE(text) && text[r] ? text[r] : "reason not known to iommon";
}

/* Appendix A: 20h-2Fh are the interrupt-remapping reasons. */
static bool is_ir(unsigned reason)
{
	return reason >= 0x20 && reason <= 0x2f;
}

bool vtd_op_fault_pending(struct iommu *io)
{
	struct vtd *v = container_of(io, struct vtd, io);
	uint32_t f = vtd_r32(v, VTD_REG_FSTS);
	return f != 0xffffffffu && (f & (VTD_FSTS_PPF | VTD_FSTS_PFO));
}

/* What a fault of `reason` was; `read` says which way for the reasons that
 * cover both (a second-stage R/W denial). */
static enum iommu_fault_kind kind_of(unsigned reason, bool read)
{
	if (reason == VTD_FR_SM_SS_RW)
		return read ? IOMMU_FAULT_NOT_PRESENT : IOMMU_FAULT_WRITE_DENIED;
	switch (reason) {
	case VTD_FR_WRITE:
	case VTD_FR_SM_WRITE:
	case VTD_FR_SM_NEST_FS_WRITE:
		return IOMMU_FAULT_WRITE_DENIED;
	case VTD_FR_READ:
	case VTD_FR_SM_FS_NOT_PRESENT:
	case VTD_FR_SM_READ:
		return IOMMU_FAULT_NOT_PRESENT;
	case VTD_FR_IR_NOT_PRESENT:
		return IOMMU_FAULT_IR_NOT_PRESENT;
	case VTD_FR_IR_INDEX:
		return IOMMU_FAULT_IR_INDEX;
	case VTD_FR_IR_SID:
		return IOMMU_FAULT_IR_SOURCE;
	case VTD_FR_IR_COMPAT:
		return IOMMU_FAULT_IR_COMPAT;
	}
	return is_ir(reason) ? IOMMU_FAULT_IR_OTHER : IOMMU_FAULT_OTHER;
}

size_t vtd_op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	struct vtd *v = container_of(io, struct vtd, io);
	uint32_t fsts = vtd_r32(v, VTD_REG_FSTS);
	*overflow = false;
	if (fsts == 0xffffffffu)
		return 0;
	size_t n = 0;
	unsigned first = vtd_fsts_fri(fsts);
	for (unsigned k = 0; k < v->nfr; k++) {
		unsigned i = (first + k) % v->nfr;
		uint32_t hi = vtd_r32(v, VTD_REG_FRCD_HI(v->fro, i));
		if (!(hi & VTD_FRCD_F))
			continue;
		uint32_t sid = vtd_r32(v, VTD_REG_FRCD_SID(v->fro, i));
		uint64_t lo = vtd_r64(v, VTD_REG_FRCD_LO(v->fro, i));
		unsigned reason = vtd_frcd_fr(hi);
		/* an interrupt fault has no page and no direction: `addr`
		 * carries its interrupt_index (FI 63:48) */
		bool ir = is_ir(reason);
		if (n < max)
			out[n++] = (struct iommu_fault){ .kind = kind_of(reason, (hi & VTD_FRCD_T) != 0),
							 .sid_known = true,
							 .addr_known = true,
							 .dir_known = !ir,
							 .sid = vtd_frcd_sid(sid),
							 .reason = reason,
							 .read = !ir && (hi & VTD_FRCD_T) != 0,
							 .addr = ir ? vtd_frcd_ir_index(lo) : vtd_frcd_fi(lo),
							 .why = vtd_fault_reason(reason),
							 .pasid_present = vtd_frcd_pp(sid) != 0,
							 .pasid = vtd_frcd_pv(hi),
							 .t_seen = rdtsc() };
		else
			*overflow = true;
		vtd_w32(v, VTD_REG_FRCD_HI(v->fro, i), VTD_FRCD_F);
	}
	if (fsts & VTD_FSTS_PFO)
		*overflow = true;
	vtd_w32(v, VTD_REG_FSTS, VTD_FSTS_PFO); /* PPF clears with the last F */
	return n;
}

static void fault_irq(void *ctx)
{
	struct vtd *v = ctx;
	v->io.irq_tsc = rdtsc();
	v->io.irq_count++;
}

/* The fault event MSI to our vector, when the platform gives us one. */
void vtd_irq_setup(struct vtd *v)
{
	v->vector = -1;
	v->io.irq = false;
	if (!platform->irq_install) {
		vtd_w32(v, VTD_REG_FECTL, VTD_FECTL_IM);
		return;
	}
	const char *why = NULL;
	v->vector = platform->irq_install(fault_irq, v, &v->apic_id, &why);
	if (v->vector < 0) {
		printf("    %s: no fault interrupt (%s); faults are polled\n", v->io.name, why ? why : "?");
		vtd_w32(v, VTD_REG_FECTL, VTD_FECTL_IM); /* no message to wherever FEADDR pointed */
		return;
	}
	vtd_w32(v, VTD_REG_FEDATA, (uint32_t)v->vector);
	vtd_w32(v, VTD_REG_FEADDR, vtd_feaddr(v->apic_id));
	vtd_w32(v, VTD_REG_FEUADDR, 0);
	vtd_w32(v, VTD_REG_FECTL, 0); /* unmasked */
	v->io.irq = true;
}

void vtd_irq_teardown(struct vtd *v)
{
	vtd_w32(v, VTD_REG_FECTL, VTD_FECTL_IM);
	if (v->vector >= 0 && platform->irq_remove) {
		/* a message already on its way still finds its handler (and its
		 * end-of-interrupt) before the handler goes */
		(void)vtd_r32(v, VTD_REG_FECTL);
		platform->stall_us(1000);
		platform->irq_remove(v->vector);
	}
	v->vector = -1;
	v->io.irq = false;
}
