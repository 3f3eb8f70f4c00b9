/* What the AMD-Vi driver's files share and nobody else uses: register
 * access, table writes made visible, and the pieces each file offers the
 * others. Every function that fails records its code in a->io.err
 * (iommu_fail) where the failure is seen, and returns why. */
#ifndef IOMMON_AMDVI_DRIVER_H
#define IOMMON_AMDVI_DRIVER_H

#include "amdvi.h"
#include "core/base/macros.h"

#define AMDVI_DEADLINE_MS 100 /* any command-buffer wait */
#define AMDVI_DEADLINE_US (AMDVI_DEADLINE_MS * 1000)
#define AMDVI_DEADLINE_TEXT STRINGIFY(AMDVI_DEADLINE_MS) " ms"
#define AMDVI_DOMAIN_BYSTANDERS 1
#define AMDVI_DOMAIN_DUT 2

/* Every register is 64 bits wide and accessed whole (QEMU latches the
 * base registers only on an 8-byte write or an upper-dword one). */
static inline uint64_t amdvi_r64(struct amdvi *a, uint64_t off)
{
	return regwin_read64(&a->w, off);
}
static inline void amdvi_w64(struct amdvi *a, uint64_t off, uint64_t v)
{
	regwin_write64(&a->w, off, v);
}

/* takeover.c: table memory reaches RAM before the unit may read it */
void amdvi_push(const void *p, size_t n, void *amdvi);

/* devtab.c */
uint32_t amdvi_devtab_entries(const struct ivrs *ivrs, const struct ivrs_block *ivhd);
/* Every entry passed through untranslated (Mode 0, IR=IW=1) with the
 * IVHD's settings. */
void amdvi_devtab_fill(struct amdvi *a);
/* At most this many requester ids for one device: its own, its aliases
 * (struct iommu's alias) and the IVHD's alias entry. */
#define AMDVI_MAX_RIDS (2 + IOMMU_MAX_ALIASES)
/* `devid`, the aliases the unit was told of for it (io.alias) and the
 * requester id the IVHD says its requests appear with, those within the
 * table, each once: how many (at most AMDVI_MAX_RIDS). */
size_t amdvi_requester_ids(const struct amdvi *a, uint16_t devid, uint16_t *ids);
/* Entry `devid` and its alias's: through `d`, or passed through (d NULL).
 * Returns how many were written, their ids in `ids`. */
size_t amdvi_devtab_point(struct amdvi *a, uint16_t devid, const struct io_pgtable *d, uint16_t *ids);
/* Exactly the entries `ids` (those within the table) through `d`, or
 * passed through (d NULL). */
void amdvi_devtab_point_ids(struct amdvi *a, const uint16_t *ids, size_t n, const struct io_pgtable *d);
/* The interrupt half of entry `devid` and its alias's: remapped through
 * `table` of 2^log2n entries, or (NULL) interrupts passed unremapped. */
size_t amdvi_devtab_point_ir(struct amdvi *a, uint16_t devid, const uint32_t *table, unsigned log2n, uint16_t *ids);
/* The IVMD unity ranges that name `devid` identity-mapped in `d`. */
const char *amdvi_unity_map(struct amdvi *a, struct io_pgtable *d, uint16_t devid);

/* cmd.c */
const char *amdvi_submit(struct amdvi *a, const struct amdvi_cmd *c, size_t n);
const char *amdvi_inv_domain(struct amdvi *a, uint16_t domain);
const char *amdvi_inv_everything(struct amdvi *a);
const char *amdvi_op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size);
extern const struct iommu_inval_kind amdvi_kinds[4];
bool amdvi_kind_usable(const struct amdvi *a, size_t kind);

/* event.c */
bool amdvi_op_fault_pending(struct iommu *io);
size_t amdvi_op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow);
/* The unit's MSI pointed at a handler of ours, events interrupting. */
void amdvi_irq_setup(struct amdvi *a);
void amdvi_irq_teardown(struct amdvi *a);

/* intremap.c */
const char *amdvi_op_ir_enable(struct iommu *io, bool on, unsigned entries);
const char *amdvi_op_ir_set(struct iommu *io, uint16_t source_id, unsigned index, const struct iommu_irte *e);
const char *amdvi_op_ir_msi(struct iommu *io, uint16_t source_id, unsigned index, struct msi_message *out);
const char *amdvi_op_ir_ioapic_rte(struct iommu *io, unsigned index, uint8_t vector, uint64_t *rte);
const char *amdvi_op_ir_invalidate(struct iommu *io, size_t kind, uint16_t source_id, int index);
/* Every table freed, nothing pointing at them (give-back). */
void amdvi_ir_free(struct amdvi *a);
extern const struct iommu_inval_kind amdvi_ir_kinds[1];

/* takeover.c */
const char *amdvi_op_take(struct iommu *io);
const char *amdvi_op_give_back(struct iommu *io);
bool amdvi_op_as_found(struct iommu *io, char *out, size_t n);
void amdvi_op_firmware_left(struct iommu *io, struct iommu_fw_state *st);
/* The unit's MSI capability written (nothing when it is not reachable). */
void amdvi_msi_write(struct amdvi *a, uint16_t ctrl, uint32_t lo, uint32_t hi, uint16_t data);

static inline const char *amdvi_pg_fail(struct amdvi *a, const struct io_pgtable *d, const char *why)
{
	return why ? iommu_fail(&a->io, d->err, why) : NULL;
}

#endif
