#include "vtd_caps.h"

#include <string.h>

static unsigned field(uint64_t v, unsigned hi, unsigned lo)
{
	return (unsigned)((v >> lo) & ((1ull << (hi - lo + 1)) - 1));
}

const char *vtd_decode_caps(uint32_t ver, uint64_t cap, uint64_t ecap, uint64_t window, unsigned want_levels,
			    struct vtd_caps *out)
{
	memset(out, 0, sizeof(*out));
	if (ver == 0xffffffffu || cap == ~0ull || ecap == ~0ull)
		return "vtd: the registers read all ones (nothing answers at the base)";
	unsigned sagaw = field(cap, 12, 8);
	if (field(ecap, 43, 43) && !sagaw)
		return "vtd: the unit only supports scalable mode; iommon drives legacy mode";
	out->mgaw = field(cap, 21, 16) + 1;
	out->fro = field(cap, 33, 24) * 16;
	out->nfr = field(cap, 47, 40) + 1;
	out->iro = field(ecap, 17, 8) * 16;
	out->mamv = field(cap, 53, 48);
	out->coherent = field(ecap, 0, 0);
	out->qi = field(ecap, 1, 1);
	out->pt = field(ecap, 6, 6);
	out->rwbf = field(cap, 4, 4);
	out->cm = field(cap, 7, 7);
	out->psi = field(cap, 39, 39);
	out->drain_w = field(cap, 54, 54);
	out->drain_r = field(cap, 55, 55);
	out->sp_2m = field(cap, 34, 34);
	out->sp_1g = field(cap, 35, 35);
	if (!out->fro || out->fro + 16ull * out->nfr > window || !out->iro || out->iro + 16ull > window)
		return "vtd: the fault-recording or IOTLB registers lie outside the register window";
	if (!(sagaw & 6))
		return "vtd: the unit offers neither a 3- nor a 4-level walk (CAP.SAGAW)";
	/* pass-through entries name the largest AGAW supported (5-level too);
	 * our own tables use a 3- or 4-level walk */
	out->max_aw = sagaw & 8 ? 3 : sagaw & 4 ? 2 : 1;
	if (want_levels == 3 || want_levels == 4) {
		unsigned aw = want_levels == 4 ? 2 : 1;
		if (!(sagaw & (1u << aw)))
			return want_levels == 4 ? "vtd: a 4-level walk was asked for; SAGAW offers none"
						: "vtd: a 3-level walk was asked for; SAGAW offers none";
		out->aw = aw;
	} else {
		out->aw = sagaw & 4 ? 2 : 1;
	}
	out->levels = out->aw == 2 ? 4 : 3;
	unsigned width = out->levels == 4 ? 48 : 39;
	if (out->mgaw < width)
		width = out->mgaw;
	out->mgaw = width;
	return NULL;
}
