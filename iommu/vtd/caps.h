/* VT-d capability decoding: what CAP and ECAP (VT-d 3.x, 11.4.2 and
 * 11.4.3) say a remapping unit can do, and whether the driver can use it.
 * A pure function of the register values, fuzzed and unit-tested alone. */
#ifndef IOMMON_VTD_CAPS_H
#define IOMMON_VTD_CAPS_H

#include <stdbool.h>
#include <stdint.h>

struct vtd_caps {
	unsigned mgaw;	 /* the address width the driver uses: CAP.MGAW cut to its walk */
	unsigned levels; /* 3 or 4: the walk our own tables use */
	unsigned aw;	 /* context entry AW for that walk: 1 (39-bit) or 2 (48-bit) */
	unsigned max_aw; /* the largest AGAW SAGAW offers (pass-through entries name it) */
	unsigned fro;	 /* fault recording registers: offset in the window, count */
	unsigned nfr;
	unsigned iro; /* IOTLB registers' offset */
	unsigned mamv;
	bool coherent, rwbf, cm, pt, qi, psi, drain_r, drain_w, sp_2m, sp_1g;
};

/* NULL when a unit reporting these values, with a register window of
 * `window` bytes, can be driven in legacy mode with a walk of
 * `want_levels` (0: the deepest SAGAW offers; else 3 or 4); else why not. */
const char *vtd_decode_caps(uint32_t ver, uint64_t cap, uint64_t ecap, uint64_t window, unsigned want_levels,
			    struct vtd_caps *out);

#endif
