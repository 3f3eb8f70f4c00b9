/* VT-d interrupt remapping (spec chapter 5, 9.10, 11.4.10): one interrupt
 * remapping table for the unit, pointed at by IRTA and latched by SIRTP,
 * the interrupt entry cache invalidated (6.5.2.7) before IRE is set, and
 * IRE only with the queue on (IEC exists only as a queued descriptor).
 * Compatibility-format interrupts stay allowed (CFI) unless a case blocks
 * them: the firmware's timer and watchdog use them (with EIME set they are
 * blocked whatever CFI says, 5.1.4, so EIME is set only when needed).
 *
 * Destinations: the 8-bit APIC id in IRTE.DST 15:8 with IRTA.EIME clear,
 * which reaches the boot CPU in xAPIC mode and in x2APIC mode with an id
 * below 256; EIME and the 32-bit id in DST 63:32 (9.10) only for an x2APIC
 * id above 255, which needs ECAP.EIM (platform->apic_id_bits), or where the
 * setting vtd.eime forces it so that the 32-bit path is exercised on a
 * CPU whose id fits 8 bits (QEMU 10.0 offers ECAP.EIM under TCG with
 * eim=on; 7.2 refuses eim=on there). */
#include <stdio.h>
#include <string.h>

#include "caps.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "driver.h"

const struct iommu_inval_kind vtd_ir_kinds[2] = {
	{ "iec-global", "global", "queued" },
	{ "iec-index", "entry", "queued" },
};

static size_t table_pages(unsigned entries)
{
	size_t bytes = (size_t)entries * 16;
	return bytes < PAGE_SIZE ? 1 : bytes / PAGE_SIZE;
}

static void table_free(struct vtd *v)
{
	if (v->irt)
		platform->free_pages(v->irt, table_pages(v->irt_size));
	v->irt = NULL;
	v->irt_size = 0;
}

static const char *ir_usable(struct vtd *v)
{
	if (!v->io.taken)
		return iommu_fail(&v->io, IOMMU_ERR_STATE, "vtd: the unit is not taken over");
	if (!v->ir)
		return iommu_fail(&v->io, IOMMU_ERR_UNSUPPORTED,
				  "vtd: the unit has no interrupt remapping (ECAP.IR clear)");
	if (!v->qi)
		return iommu_fail(
		    &v->io, IOMMU_ERR_UNSUPPORTED,
		    "vtd: interrupt remapping needs queued invalidation, which the unit lacks (ECAP.QI clear)");
	/* the firmware's table serves its own sources: it stays the one in
	 * use, untouched, until the unit is given back */
	if (v->fw_ir)
		return iommu_fail(&v->io, IOMMU_ERR_UNSUPPORTED,
				  "vtd: the firmware left interrupt remapping on with its own table, which stays in "
				  "use and untouched while iommon has the unit (no table of iommon's replaces it)");
	return NULL;
}

/* GCMD.CFI to `allow`, GSTS.CFIS polled. QEMU 7.2 ignores CFI (CFIS never
 * follows, and compatibility-format interrupts always pass): a unit whose
 * CFIS never sets is noted as having no such switch rather than failed,
 * since what CFI would keep allowed is allowed anyway; blocking on it is
 * then refused by name. */
static const char *cfi_set(struct vtd *v, bool allow)
{
	if (v->cfi_ignored)
		return allow ? NULL
			     : iommu_fail(
				   &v->io, IOMMU_ERR_UNSUPPORTED,
				   "vtd: the unit ignores GCMD.CFI (GSTS.CFIS never followed it): compatibility-format "
				   "interrupts cannot be blocked");
	const char *e = vtd_gcmd_set(v, VTD_GCMD_CFI, allow,
				     allow ? "vtd: GSTS.CFIS not set within " VTD_DEADLINE_TEXT " of setting CFI"
					   : "vtd: GSTS.CFIS still set " VTD_DEADLINE_TEXT " after clearing CFI");
	if (!e || !allow || v->io.err != IOMMU_ERR_TIMEOUT)
		return e;
	printf("    %s: GSTS.CFIS never followed GCMD.CFI: the unit has no compatibility-format switch\n", v->io.name);
	v->io.err = IOMMU_OK;
	v->cfi_ignored = true;
	return NULL;
}

static const char *ir_off(struct vtd *v)
{
	const char *e =
	    vtd_gcmd_set(v, VTD_GCMD_IRE, false, "vtd: GSTS.IRES still set " VTD_DEADLINE_TEXT " after clearing IRE");
	if (e)
		return e; /* the unit may still read the table: it is kept */
	v->ir_on = false;
	v->io.ir_dest_bits = 0;
	table_free(v);
	return NULL;
}

/* IRTA.EIME for the boot CPU's APIC id (11.4.10.1, 9.10), decided in
 * caps.c: set for an id above 255 or when vtd.eime forces it, refused
 * without ECAP.EIM. With EIME set, compatibility-format interrupts are
 * blocked whatever CFI says (5.1.4). */
static const char *ir_eime(struct vtd *v, bool *eime)
{
	unsigned bits = platform && platform->apic_id_bits ? platform->apic_id_bits() : 8;
	const char *why = vtd_ir_destinations(v->ecap, bits, v->want_eime, eime);
	return why ? iommu_fail(&v->io, IOMMU_ERR_UNSUPPORTED, why) : NULL;
}

const char *vtd_ir_describe(const struct vtd *v, char *buf, size_t n)
{
	if (!v->ir_on)
		snprintf(buf, n, "interrupt remapping off");
	else
		snprintf(buf, n, "%u entries (IRTA.S %u), %s destinations (IRTA.EIME %s: %s)", v->irt_size,
			 (unsigned)__builtin_ctz(v->irt_size) - 1, v->eime ? "32-bit" : "8-bit",
			 v->eime ? "set" : "clear",
			 !v->eime	? "the boot CPU's APIC id fits 8 bits"
			 : v->want_eime ? "vtd.eime on"
					: "the boot CPU's APIC id needs 32 bits");
	return buf;
}

const char *vtd_op_ir_enable(struct iommu *io, bool on, unsigned entries)
{
	struct vtd *v = container_of(io, struct vtd, io);
	const char *e = ir_usable(v);
	if (e)
		return e;
	if (v->ir_on && (e = ir_off(v)) != NULL)
		return e;
	if (!on)
		return NULL;
	if (entries > 65536)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT,
				  "vtd: an interrupt remapping table holds at most 65536 entries");
	bool eime;
	if ((e = ir_eime(v, &eime)) != NULL)
		return e;
	unsigned s = 0; /* 2^(S+1) entries */
	while ((2u << s) < entries)
		s++;
	unsigned size = 2u << s;
	v->irt = platform->alloc_pages(table_pages(size), 0);
	if (!v->irt)
		return iommu_fail(io, IOMMU_ERR_NOMEM, "vtd: no memory for the interrupt remapping table");
	memset(v->irt, 0, table_pages(size) * PAGE_SIZE); /* every entry not present */
	v->irt_size = size;
	v->eime = eime;
	vtd_push(v->irt, table_pages(size) * PAGE_SIZE, v);
	if ((e = vtd_qi_enable(v, true)) != NULL)
		goto fail;
	vtd_w64(v, VTD_REG_IRTA, vtd_irta((uint64_t)(uintptr_t)v->irt, s) | (eime ? VTD_IRTA_EIME : 0));
	vtd_w32(v, VTD_REG_GCMD, (vtd_r32(v, VTD_REG_GSTS) & VTD_GSTS_KEEP) | VTD_GCMD_SIRTP);
	if ((e = vtd_gsts_wait(v, VTD_GSTS_IRTPS, true,
			       "vtd: GSTS.IRTPS not set within " VTD_DEADLINE_TEXT " of SIRTP")) != NULL)
		goto fail;
	/* entries an earlier table left in the cache go before IRE (5.1.5) */
	if ((e = vtd_iec_invalidate(v, false, 0, 0)) != NULL)
		goto fail;
	/* CFI before IRE: no moment in which the firmware's compatibility
	 * interrupts are blocked */
	if ((e = cfi_set(v, true)) != NULL)
		goto fail;
	if ((e = vtd_gcmd_set(v, VTD_GCMD_IRE, true,
			      "vtd: GSTS.IRES not set within " VTD_DEADLINE_TEXT " of setting IRE")) != NULL)
		goto fail;
	v->ir_on = true;
	v->io.ir_dest_bits = eime ? 32 : 8;
	return NULL;
fail:
	if (!(vtd_r32(v, VTD_REG_GSTS) & VTD_GSTS_IRES))
		table_free(v);
	return e;
}

const char *vtd_op_ir_set(struct iommu *io, uint16_t source_id, unsigned index, const struct iommu_irte *e)
{
	struct vtd *v = container_of(io, struct vtd, io);
	(void)source_id; /* one table for the whole unit */
	if (!v->ir_on)
		return iommu_fail(io, IOMMU_ERR_STATE, "vtd: interrupt remapping is not on");
	if (index >= v->irt_size)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "vtd: the index is past the interrupt remapping table");
	if (e->present && e->dest > 0xff && !v->eime)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED,
				  "vtd: a destination above 255 needs 32-bit destinations (IRTA.EIME), which are on "
				  "only when the boot CPU's x2APIC id needs them");
	uint64_t *irte = v->irt + 2 * (size_t)index;
	/* Made present: the high half (source check) first, P last. Made not
	 * present: P cleared first, so no fetch between the two writes sees a
	 * present entry without its source check. */
	if (e->present) {
		irte[1] = vtd_irte_hi(e->sid_check, e->source_id);
		__asm__ volatile("" ::: "memory");
		irte[0] = vtd_irte_lo(e->vector, e->dest, v->eime);
	} else {
		irte[0] = 0;
		__asm__ volatile("" ::: "memory");
		irte[1] = 0;
	}
	vtd_push(irte, 16, v);
	return NULL;
}

const char *vtd_op_ir_msi(struct iommu *io, uint16_t source_id, unsigned index, struct msi_message *out)
{
	struct vtd *v = container_of(io, struct vtd, io);
	(void)source_id;
	/* any 16-bit handle, past the table too: the cases send those */
	if (index > 0xffff)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "vtd: an interrupt handle has 16 bits");
	if (!v->io.taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "vtd: the unit is not taken over");
	out->addr = vtd_msi_addr(index);
	out->data = 0; /* SHV clear: no subhandle */
	return NULL;
}

/* Remappable format (5.1.5.1): handle[14:0] in 63:49, interrupt format
 * (48) 1, handle[15] in 11; trigger mode (15) and vector as the IRTE's
 * (edge; the IRTE's vector, which a level entry's EOI would need); the
 * delivery mode 000b. The I/O APIC sends 63:48 as address 19:4 and bit 11
 * as address bit 2: the remappable MSI of vtd_msi_addr. */
const char *vtd_op_ir_ioapic_rte(struct iommu *io, unsigned index, uint8_t vector, uint64_t *rte)
{
	struct vtd *v = container_of(io, struct vtd, io);
	if (index > 0xffff)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "vtd: an interrupt handle has 16 bits");
	if (!v->io.taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "vtd: the unit is not taken over");
	*rte = (uint64_t)(index & 0x7fffu) << 49 | 1ull << 48 | 1ull << 16 /* masked */ |
	       (uint64_t)((index >> 15) & 1u) << 11 | vector;
	return NULL;
}

const char *vtd_op_ir_invalidate(struct iommu *io, size_t kind, uint16_t source_id, int index)
{
	struct vtd *v = container_of(io, struct vtd, io);
	(void)source_id;
	if (kind >= io->nir_kinds)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "vtd: no such kind of interrupt entry invalidation");
	if (!v->ir_on)
		return iommu_fail(io, IOMMU_ERR_STATE, "vtd: interrupt remapping is not on");
	bool by_index = strcmp(io->ir_kinds[kind].name, "iec-index") == 0;
	if (by_index && (index < 0 || index > 0xffff))
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "vtd: iec-index needs an index of 16 bits");
	return vtd_iec_invalidate(v, by_index, by_index ? (unsigned)index : 0, 0);
}

const char *vtd_op_ir_compat(struct iommu *io, bool allow)
{
	struct vtd *v = container_of(io, struct vtd, io);
	const char *e = ir_usable(v);
	return e ? e : cfi_set(v, allow);
}

const char *vtd_ir_give_back(struct vtd *v)
{
	const char *e = v->ir_on ? ir_off(v) : NULL;
	if (e || !v->ir || v->fw_ir)
		return e;
	uint32_t cfis = v->found.gsts & VTD_GSTS_CFIS;
	if (!v->cfi_ignored && (vtd_r32(v, VTD_REG_GSTS) & VTD_GSTS_CFIS) != cfis &&
	    vtd_gcmd_set(v, VTD_GCMD_CFI, cfis != 0, "vtd: GSTS.CFIS not back as found within " VTD_DEADLINE_TEXT))
		e = iommu_fail(&v->io, IOMMU_ERR_RESTORE,
			       "vtd: GSTS.CFIS could not be put back as the firmware left it");
	/* the firmware's pointer back; latched only where it had latched one */
	if (vtd_r64(v, VTD_REG_IRTA) != v->found.irta) {
		vtd_w64(v, VTD_REG_IRTA, v->found.irta);
		if (!e && (v->found.gsts & VTD_GSTS_IRTPS)) {
			vtd_w32(v, VTD_REG_GCMD, (vtd_r32(v, VTD_REG_GSTS) & VTD_GSTS_KEEP) | VTD_GCMD_SIRTP);
			e = vtd_gsts_wait(v, VTD_GSTS_IRTPS, true,
					  "vtd: GSTS.IRTPS not set within " VTD_DEADLINE_TEXT " of SIRTP");
		}
	}
	return e;
}
