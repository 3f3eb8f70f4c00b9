/* The RISC-V IOMMU's in-memory side: the page tables of its S and G stages
 * (the privileged architecture's Sv39/48/57 and their x4 forms, as the
 * shared tree's format), and the device directory that takes a device id
 * to its device context, built by software and walked as the unit walks
 * it (spec 2.1, 2.3). This code only writes and reads memory: no register,
 * no invalidation. */
#ifndef IOMMON_RISCV_H
#define IOMMON_RISCV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iommu/io_pgtable.h"
#include "regs.h"

/* ---- page tables ------------------------------------------------------------ */

/* Both stages' entries: V, R, W as asked, X never, U (a device's request
 * is unprivileged, and every G-stage access is a user one), A and D set (a
 * unit without caps.AMO_HWAD, or with tc.SADE/GADE clear, faults on a leaf
 * whose A or D it would have to set). Table entries are V alone. W without
 * R is reserved in this format: rvi_pgtable_cfg's users refuse a
 * write-only mapping before the tree sees it. */
extern const struct io_pgtable_fmt rvi_pte_fmt;

/* The tree configuration of a mode (RVI_ATP_SV39/48/57) at the S stage or,
 * `gstage`, at the G stage (Sv39x4/48x4/57x4: a root of four pages, two
 * bits wider). S-stage IOVAs are the lower half only (below 2^38, 2^47,
 * 2^56: the upper half would need sign extension); G-stage addresses are
 * zero-extended (below 2^41, 2^50, 2^59). Leaves: 4 KiB, 2 MiB, 1 GiB, and
 * 512 GiB from Sv48 up. `caps` decides whether the mode exists: NULL or
 * why not. The whole of *cfg is written: the caller adds sync, ctx and
 * limit after. */
const char *rvi_pgtable_cfg(uint64_t caps, unsigned mode, bool gstage, struct io_pgtable_cfg *cfg);

/* ---- the device directory --------------------------------------------------- */

/* A directory: its mode (1, 2 or 3 levels), its context size (64 bytes
 * when caps.MSI_FLAT, else 32), its root page and every page it holds. */
struct rvi_ddt {
	unsigned mode;	/* RVI_DDT_1LVL..3LVL */
	bool extended;	/* 64-byte device contexts */
	uint64_t limit; /* pages below this address (the unit's caps.PAS); 0: anywhere */
	uint64_t *root;
	void **pages;
	size_t npages, cap;
};

/* The device-id bits a directory of `mode` resolves: 1 level 6 (extended)
 * or 7, 2 levels 15 or 16, 3 levels 24. */
unsigned rvi_ddt_id_bits(unsigned mode, bool extended);
/* The fewest levels that resolve `id_bits` bits (1 to 24). */
unsigned rvi_ddt_mode_for(unsigned id_bits, bool extended);

/* An empty directory (every context invalid). NULL or why not. */
const char *rvi_ddt_init(struct rvi_ddt *t, unsigned mode, bool extended, uint64_t limit);
/* Device `id`'s context, its directory pages made on the way when
 * `create`; NULL when `id` is beyond the mode, or not made (create false,
 * or no memory). */
struct rvi_dc *rvi_ddt_context(struct rvi_ddt *t, uint32_t id, bool create);
void rvi_ddt_free(struct rvi_ddt *t);

/* The unit's walk (spec 2.3.1 steps 1 to 8, without caches): from the
 * directory at `root` in `mode`, to device `id`'s context; 0 and its
 * address in *dc, or the fault cause the unit reports: TTYP_BLOCKED for an
 * id wider than the mode (spec 2.3 step 5), DDT_INVALID for a non-leaf
 * entry not valid, DDT_MISCONFIGURED for one with reserved bits set. The context's own checks are
 * rvi_dc_check's. */
unsigned rvi_ddt_walk(uint64_t root, unsigned mode, bool extended, uint32_t id, uint64_t *dc);

/* A valid context's configuration checks (spec 2.1.4) against `caps` and
 * `fctl`: 0, or DDT_MISCONFIGURED with what is wrong in *why. A context
 * not valid gives DDT_INVALID. */
unsigned rvi_dc_check(const struct rvi_dc *dc, bool extended, uint64_t caps, uint32_t fctl, const char **why);

/* ---- the queues' records --------------------------------------------------- */

/* IOTINVAL.VMA (`gscid` < 0: not G-stage-tagged; `pscid` < 0: every
 * address space; `addr` ~0: every address) and IOTINVAL.GVMA. */
struct rvi_cmd rvi_cmd_iotinval_vma(int gscid, int pscid, uint64_t addr);
struct rvi_cmd rvi_cmd_iotinval_gvma(int gscid, uint64_t addr);
/* IODIR.INVAL_DDT for device `id` (< 0: every device). */
struct rvi_cmd rvi_cmd_iodir_ddt(long id);
/* IOFENCE.C ordering earlier reads and writes; with `addr` != 0 the unit
 * writes `data` (32 bits) there when it is done. */
struct rvi_cmd rvi_cmd_iofence(uint64_t addr, uint32_t data);
/* The command's name ("IOTINVAL.VMA"), or NULL for an opcode and function
 * the specification does not define. */
const char *rvi_cmd_name(const struct rvi_cmd *c);

/* A fault record in words: "write/AMO page fault (15), device 0x000010,
 * IOVA 0x7ffff000, untranslated write/AMO", then the process id where the
 * record has one and the guest physical address of a guest-page fault. */
void rvi_fault_describe(const struct rvi_fault *f, char *out, size_t n);
/* The cause's name, or NULL for one the specification does not define. */
const char *rvi_cause_name(unsigned cause);

#endif
