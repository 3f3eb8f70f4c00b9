/* VT-d capability decoding: what CAP and ECAP (11.4.2, 11.4.3) say a
 * remapping unit can do, and whether the driver can use it. The one place
 * CAP and ECAP are taken apart: the driver and the `iommu` command both
 * read them through here. Pure functions of the register values, fuzzed
 * and unit-tested alone. */
#ifndef IOMMON_VTD_CAPS_H
#define IOMMON_VTD_CAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "iommu/iommu.h"

struct vtd_caps {
	/* as the registers say */
	unsigned domains;  /* CAP.ND: 2^(4 + 2 * ND) */
	unsigned sagaw;	   /* CAP.SAGAW: bit n, an (n + 2)-level walk */
	unsigned cap_mgaw; /* CAP.MGAW + 1 */
	unsigned fro;	   /* fault recording registers: offset in the window, count */
	unsigned nfr;
	unsigned iro; /* IOTLB registers' offset */
	unsigned mamv;
	bool coherent, rwbf, cm, pt, qi, psi, drain_r, drain_w, sp_2m, sp_1g, plmr, phmr;
	bool dt, ir, eim, sc, smts;
	/* scalable mode (ECAP.SMTS): its translation types and what they need */
	bool slts, flts, nest, pasid, rps, slads, smpwcs, fl1gp, fl5lp;
	unsigned pasid_bits; /* ECAP.PSS + 1, where ECAP.PASID */
	/* what the driver chose from them (vtd_decode_caps) */
	unsigned mgaw;	    /* the address width the driver uses: CAP.MGAW cut to its walk */
	unsigned levels;    /* 3 or 4: the walk our own tables use */
	unsigned aw;	    /* context entry AW for that walk: 1 (39-bit) or 2 (48-bit) */
	unsigned max_aw;    /* the largest AGAW SAGAW offers (pass-through entries name it) */
	enum iommu_err err; /* when refused: UNUSABLE, or UNSUPPORTED for a walk asked for */
};

/* The fields of CAP and ECAP, nothing chosen. */
void vtd_caps_read(uint64_t cap, uint64_t ecap, struct vtd_caps *out);

/* The translation modes the unit offers, by the names records and the
 * README use: "legacy" (a SAGAW walk outside scalable mode), and with
 * ECAP.SMTS "scalable-second-stage" (SLTS), "scalable-first-stage"
 * (FLTS), "scalable-nested" (NEST with both). Returns how many went into
 * `names` (at most 4). */
size_t vtd_modes(const struct vtd_caps *c, const char *names[4]);
/* Those of them iommon drives: legacy, and the scalable ones where the
 * unit has queued invalidation (scalable mode invalidates through it). */
size_t vtd_modes_driven(const struct vtd_caps *c, const char *names[4]);
/* The same in words for a person, with what each type can use: "legacy;
 * scalable: second stage, first stage (4- and 5-level, 1 GiB leaves),
 * nested; PASIDs of 20 bits, RID_PASID". */
void vtd_modes_words(const struct vtd_caps *c, char *buf, size_t n);

/* NULL when a unit reporting these values, with a register window of
 * `window` bytes, can be driven in legacy mode with a walk of
 * `want_levels` (0: the deepest SAGAW offers; else 3 or 4); else why not,
 * with out->err saying which kind of no. */
const char *vtd_decode_caps(uint32_t ver, uint64_t cap, uint64_t ecap, uint64_t window, unsigned want_levels,
			    struct vtd_caps *out);

/* The interrupt destination format for a destination of `apic_id_bits`
 * bits (platform->apic_id_bits: 32 for an x2APIC id above 255, else 8):
 * *eime set for 32 (IRTA.EIME, 32-bit IRTE destinations) or when `force`d
 * (setting vtd.eime on), else clear, since EIME blocks compatibility-format
 * interrupts whatever CFI says (5.1.4). NULL, or why a unit reporting
 * `ecap` cannot (EIME without ECAP.EIM). */
const char *vtd_ir_destinations(uint64_t ecap, unsigned apic_id_bits, bool force, bool *eime);

/* VER, CAP and ECAP for people, indented, as `iommu` shows them. */
/* apic_id_bits: the local APIC's id width on this CPU (8 xAPIC, 32 x2APIC). */
void vtd_caps_print(uint32_t ver, uint64_t cap, uint64_t ecap, unsigned apic_id_bits);

#endif
