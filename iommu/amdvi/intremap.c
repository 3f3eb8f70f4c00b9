/* Interrupt remapping (spec 2.2.5): one table per device served, of
 * 2^IntTabLen 32-bit entries (2.2.5.2) or, for 32-bit (x2APIC)
 * destinations, 128-bit ones (2.2.5.3: Control.GAEn, with XTEn so that
 * all 32 destination bits count; set only where the boot CPU's x2APIC id
 * needs them or the setting amdvi.xt forces them), named by the device's
 * DTE (IV=1,
 * IntCtl=10b, IntTableRootPtr); a device's MSI data bits 10:0 select its
 * entry. Devices not served keep what take-over gives them: IV=0, so their
 * interrupts (and the firmware's) pass unremapped. Every DTE change is
 * followed by INVALIDATE_DEVTAB_ENTRY, every entry change by the
 * invalidation the caller names (INVALIDATE_INTERRUPT_TABLE: a device's
 * whole table), each fenced by COMPLETION_WAIT. */
#include <stdio.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/platform.h"
#include "driver.h"

const struct iommu_inval_kind amdvi_ir_kinds[1] = {
	{ "cmd-interrupt-table", "device", "command" },
};

#define MSI_WINDOW 0xfee00000u /* the local APICs' window: the message the unit remaps */
#define AMDVI_IR_LOG2_USABLE 9 /* indexes whose data 10:8 reads fixed (000b) or arbitrated (001b) */

static size_t table_pages(const struct amdvi *a)
{
	return (((size_t)a->irte_size << a->ir_log2) + PAGE_SIZE - 1) / PAGE_SIZE;
}

static struct amdvi_irt *table_of(struct amdvi *a, uint16_t devid)
{
	for (unsigned i = 0; i < AMDVI_IR_TABLES; i++)
		if (a->irt[i].used && a->irt[i].devid == devid)
			return &a->irt[i];
	return NULL;
}

/* The DTEs of `devid` (and its alias) point at `t`'s table (NULL: back to
 * pass-through), the entries' cached copies invalidated. */
static const char *point(struct amdvi *a, uint16_t devid, const uint32_t *t)
{
	uint16_t ids[AMDVI_MAX_RIDS];
	size_t n = amdvi_devtab_point_ir(a, devid, t, a->ir_log2, ids);
	struct amdvi_cmd c[2 * AMDVI_MAX_RIDS];
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		c[k++] = amdvi_cmd_inv_devtab(ids[i]);
		c[k++] = amdvi_cmd_inv_interrupt_table(ids[i]);
	}
	return amdvi_submit(a, c, k);
}

/* A table for `devid`, every entry RemapEn=0, its DTE pointing at it. */
static const char *serve(struct amdvi *a, uint16_t devid, struct amdvi_irt **out)
{
	if ((*out = table_of(a, devid)) != NULL)
		return NULL;
	if (devid >= a->ndev)
		return iommu_fail(&a->io, IOMMU_ERR_ARGUMENT, "amdvi: the device is beyond the IVHD's device table");
	struct amdvi_irt *t = NULL;
	for (unsigned i = 0; !t && i < AMDVI_IR_TABLES; i++)
		if (!a->irt[i].used)
			t = &a->irt[i];
	if (!t)
		return iommu_fail(&a->io, IOMMU_ERR_NOMEM, "amdvi: interrupt remapping tables for 4 devices at most");
	size_t pages = table_pages(a);
	t->t = platform->alloc_pages(pages, 0);
	if (!t->t)
		return iommu_fail(&a->io, IOMMU_ERR_NOMEM, "amdvi: no memory for an interrupt remapping table");
	memset(t->t, 0, pages * PAGE_SIZE);
	amdvi_push(t->t, pages * PAGE_SIZE, a);
	t->used = true, t->devid = devid;
	*out = t;
	return point(a, devid, t->t);
}

void amdvi_ir_free(struct amdvi *a)
{
	for (unsigned i = 0; i < AMDVI_IR_TABLES; i++) {
		if (a->irt[i].used && a->irt[i].t)
			platform->free_pages(a->irt[i].t, table_pages(a));
		a->irt[i] = (struct amdvi_irt){ 0 };
	}
	a->ir_on = false;
	a->ir_xt = false; /* Control's bits go with xt_control or the give-back */
	a->io.ir_dest_bits = 0;
}

/* Control.GAEn and XTEn together (3.4.4), only while no table is served:
 * the entries' size changes with GAEn. */
static void xt_control(struct amdvi *a, bool on)
{
	uint64_t c = amdvi_r64(a, AMDVI_REG_CONTROL), bits = AMDVI_CTRL_GA_EN | AMDVI_CTRL_XT_EN;
	if (((c & bits) == bits) != on)
		amdvi_w64(a, AMDVI_REG_CONTROL, on ? c | bits : c & ~bits);
	a->ir_xt = on;
	a->irte_size = on ? AMDVI_IRTE_GA_SIZE : AMDVI_IRTE_SIZE;
}

/* 32-bit destinations for the boot CPU's id (an x2APIC id above 255) or
 * where amdvi.xt forces them: NULL, or why the unit cannot. */
static const char *ir_xt(struct amdvi *a, bool *xt)
{
	unsigned bits = platform && platform->apic_id_bits ? platform->apic_id_bits() : 8;
	*xt = bits > 8 || a->want_xt;
	if (!*xt || a->io.ir_dest32)
		return NULL;
	static char why[160];
	const char *lacks = !(a->efr & AMDVI_EFR_XT_SUP) ? "EFR.XTSup clear" : "EFR.GASup clear: no 128-bit entries";
	snprintf(why, sizeof(why),
		 bits > 8
		     ? "amdvi: the boot CPU's x2APIC id is above 255 and the unit has no x2APIC interrupts (%s): it "
		       "could not be named as a destination"
		     : "amdvi: amdvi.xt is on and the unit has no x2APIC interrupts (%s): 32-bit destinations "
		       "cannot be used",
		 lacks);
	return iommu_fail(&a->io, IOMMU_ERR_UNSUPPORTED, why);
}

/* AMD-Vi has no capability bit for interrupt remapping: the firmware says
 * it set remapping up for a unit by naming the unit's I/O APICs in its
 * IVHD (special entries of the I/O APIC variety), as Linux's amd_iommu requires
 * before it turns remapping on. A unit described by no IVHD (a model)
 * is taken at its word. */
static bool ivhd_names_ioapic(const struct amdvi *a)
{
	if (!a->ivrs || !a->ivhd)
		return true;
	for (size_t i = 0; i < a->ivhd->nentries; i++) {
		const struct ivrs_entry *e = &a->ivrs->e[a->ivhd->first_entry + i];
		if (e->type == IVHD_SPECIAL && e->variety == IVHD_SPECIAL_IOAPIC)
			return true;
	}
	return false;
}

const char *amdvi_op_ir_enable(struct iommu *io, bool on, unsigned entries)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "amdvi: the unit is not taken over");
	const char *e = NULL;
	if (on && !ivhd_names_ioapic(a))
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED,
				  "amdvi: its IVHD names no I/O APIC (no special entry): the firmware set up no "
				  "interrupt remapping");
	if (!on) {
		for (unsigned i = 0; i < AMDVI_IR_TABLES; i++)
			if (a->irt[i].used && !e)
				e = point(a, a->irt[i].devid, NULL);
		if (!e) /* only once nothing points at them */
			amdvi_ir_free(a), xt_control(a, false);
		return e;
	}
	/* GAEn makes every entry 128 bits (2.2.5.3): iommon sets it only for
	 * 32-bit destinations, and one the firmware set is not driven */
	if (!a->ir_xt && (amdvi_r64(a, AMDVI_REG_CONTROL) & AMDVI_CTRL_GA_EN))
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "amdvi: Control.GAEn is set: 128-bit entries, not driven");
	bool xt;
	if ((e = ir_xt(a, &xt)) != NULL)
		return e;
	unsigned log2n = 0;
	while ((1u << log2n) < entries)
		log2n++;
	/* IntTabLen allows 2^11, but a unit may read MSI data 10:8 as the
	 * message type before it remaps (QEMU's amdvi_int_remap_msi does):
	 * indexes from 512 would be SMI, NMI, INIT ... there, not remapped */
	if (log2n > AMDVI_IR_LOG2_USABLE)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "amdvi: at most 512 interrupt remapping entries per device");
	if (a->ir_on && (log2n != a->ir_log2 || xt != a->ir_xt) && (e = amdvi_op_ir_enable(io, false, 0)) != NULL)
		return e;
	if (!a->ir_on)
		xt_control(a, xt);
	a->ir_log2 = log2n;
	a->ir_on = true;
	io->ir_dest_bits = xt ? 32 : 8;
	struct amdvi_irt *t;
	return a->has_dut ? serve(a, pci_rid(a->dut_addr), &t) : NULL;
}

const char *amdvi_op_ir_set(struct iommu *io, uint16_t source_id, unsigned index, const struct iommu_irte *ent)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (!io->taken || !a->ir_on)
		return iommu_fail(io, IOMMU_ERR_STATE, "amdvi: interrupt remapping is not on");
	if (index >= 1u << a->ir_log2)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "amdvi: the index is past the interrupt remapping table");
	if (ent->present && ent->dest > 0xff && !a->ir_xt)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED,
				  "amdvi: the 32-bit entry holds an 8-bit destination (x2APIC needs GAEn and XTEn: "
				  "amdvi.xt on)");
	struct amdvi_irt *t;
	const char *e = serve(a, source_id, &t);
	if (e)
		return e;
	/* the table is per device, so the source is always checked */
	if (!a->ir_xt) {
		t->t[index] = ent->present ? amdvi_irte(ent->vector, (uint8_t)ent->dest) : 0;
		amdvi_push(&t->t[index], AMDVI_IRTE_SIZE, a);
		return NULL;
	}
	/* 128 bits: made present, the high quadword first and RemapEn last;
	 * made not present, RemapEn cleared first (no fetch between the two
	 * writes sees an entry with RemapEn and half of another) */
	volatile uint64_t *q = (volatile uint64_t *)(t->t + 4 * (size_t)index);
	if (ent->present) {
		q[1] = amdvi_irte_ga_hi(ent->vector, ent->dest);
		__asm__ volatile("" ::: "memory");
		q[0] = amdvi_irte_ga_lo(ent->dest);
	} else {
		q[0] = 0;
		__asm__ volatile("" ::: "memory");
		q[1] = 0;
	}
	amdvi_push((void *)(uintptr_t)q, AMDVI_IRTE_GA_SIZE, a);
	return NULL;
}

const char *amdvi_op_ir_msi(struct iommu *io, uint16_t source_id, unsigned index, struct msi_message *out)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (!io->taken || !a->ir_on)
		return iommu_fail(io, IOMMU_ERR_STATE, "amdvi: interrupt remapping is not on");
	(void)source_id;
	/* data 10:0 is the index (2.2.5.1); an index past the table is sent
	 * as asked: the unit must refuse it */
	if (index > 0x7ff)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "amdvi: an MSI's data names at most entry 2047");
	out->addr = MSI_WINDOW;
	out->data = index;
	return NULL;
}

/* The I/O APIC's interrupt is remapped like an MSI of its own devid
 * (2.2.5.1): data 10:8 the delivery mode (fixed, 000b), 7:0 the vector
 * field, so the vector field carries the index and only entries 0-255
 * can be named; physical destination (QEMU refuses logical ones). */
const char *amdvi_op_ir_ioapic_rte(struct iommu *io, unsigned index, uint8_t vector, uint64_t *rte)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	(void)vector; /* the entry's own: the RTE's vector field is the index */
	if (!io->taken || !a->ir_on)
		return iommu_fail(io, IOMMU_ERR_STATE, "amdvi: interrupt remapping is not on");
	if (index > 0xff)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "amdvi: an I/O APIC's vector field names at most entry 255");
	*rte = 1ull << 16 /* masked */ | index;
	return NULL;
}

const char *amdvi_op_ir_invalidate(struct iommu *io, size_t kind, uint16_t source_id, int index)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	(void)index; /* the command covers the device's whole table (2.4.5) */
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "amdvi: the unit is not taken over");
	if (kind >= io->nir_kinds)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "amdvi: no such interrupt invalidation kind");
	/* the alias's entry is the same table, perhaps cached under its id */
	uint16_t ids[AMDVI_MAX_RIDS];
	struct amdvi_cmd c[AMDVI_MAX_RIDS];
	size_t n = amdvi_requester_ids(a, source_id, ids);
	for (size_t i = 0; i < n; i++)
		c[i] = amdvi_cmd_inv_interrupt_table(ids[i]);
	return amdvi_submit(a, c, n);
}
