/* libFuzzer: the VT-d CAP/ECAP decoder on arbitrary register values and
 * window sizes. What it accepts must be safe to drive: registers inside
 * the window, a 3- or 4-level walk SAGAW offers, an address width the
 * walk covers. */
#include <stdint.h>
#include <string.h>

#include "iommu/vtd/caps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t in[29] = { 0 };
	memcpy(in, data, size < sizeof(in) ? size : sizeof(in));
	uint32_t ver;
	uint64_t cap, ecap, window;
	memcpy(&ver, in, 4);
	memcpy(&cap, in + 4, 8);
	memcpy(&ecap, in + 12, 8);
	memcpy(&window, in + 20, 8);
	unsigned want = in[28] % 6; /* 0, 3 and 4 are the settings; the rest must be taken as 0 */
	struct vtd_caps c;
	if (vtd_decode_caps(ver, cap, ecap, window, want, &c)) {
		/* a refusal says which kind: the unit, or the walk asked for */
		if (c.err != IOMMU_ERR_UNUSABLE && !(c.err == IOMMU_ERR_UNSUPPORTED && (want == 3 || want == 4)))
			__builtin_trap();
		return 0;
	}
	/* the oracle reads SAGAW and MGAW itself, not through vtd/regs.h */
	unsigned sagaw = (cap >> 8) & 0x1f;
	if (c.fro == 0 || c.fro + 16ull * c.nfr > window || c.iro == 0 || c.iro + 16ull > window)
		__builtin_trap(); /* a register outside the window */
	if (!(c.levels == 3 && c.aw == 1) && !(c.levels == 4 && c.aw == 2))
		__builtin_trap();
	if (!(sagaw & (1u << c.aw)) || !(sagaw & (1u << c.max_aw)) || c.max_aw < c.aw)
		__builtin_trap(); /* a walk the unit does not offer */
	if ((want == 3 || want == 4) && c.levels != want)
		__builtin_trap();
	if (c.mgaw == 0 || c.mgaw > (c.levels == 4 ? 48u : 39u) || c.mgaw > ((cap >> 16) & 0x3f) + 1)
		__builtin_trap(); /* wider than the walk or than MGAW */
	return 0;
}
