/* Where a Calgary's registers are: the EBDA's Rio Grande table names each
 * chip's 1 MiB register window (its BBAR). Facts: shared/specs/calgary.md,
 * "Finding the register window". Apart from the driver so that the parser
 * can be fuzzed on its own (tests/fuzz/fuzz_rio.c). */
#include <stdio.h>

#include "calgary.h"
#include "core/base/memmap.h"

#define EBDA_BLOCKS 0x180    /* the first block's offset in the EBDA */
#define RIO_GRANDE_ID 0x4752 /* "GR": the Rio Grande table's block id */
#define RIO_COMPAT_CALGARY 4
#define RIO_ALT_CALGARY 5

static unsigned le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

size_t calgary_rio_bbars(const uint8_t *ebda, size_t len, uint32_t *bbar, size_t max, const char **why)
{
	*why = NULL;
	size_t off = EBDA_BLOCKS, found = 0;
	/* blocks: word 0 the next block's offset, word 1 the id; offsets must
	 * strictly increase (a real BIOS chain looped forever) */
	for (;;) {
		if (off + 4 > len) {
			*why = "EBDA: no Rio Grande table (the block chain ends)";
			return 0;
		}
		unsigned next = le16(ebda + off), id = le16(ebda + off + 2);
		if (id == RIO_GRANDE_ID)
			break;
		if (next <= off) {
			*why = next ? "EBDA: the block chain goes backwards (a loop): stopped"
				    : "EBDA: no Rio Grande table";
			return 0;
		}
		off = next;
	}
	const uint8_t *t = ebda + off + 4;
	size_t left = len - off - 4;
	if (left < 3) {
		*why = "EBDA: the Rio Grande table is cut short";
		return 0;
	}
	/* header: version, num_scal_dev, num_rio_dev */
	unsigned version = t[0], nscal = t[1], nrio = t[2];
	if (version != 2 && version != 3) {
		*why = "EBDA: Rio Grande table version not 2 or 3";
		return 0;
	}
	size_t scal = version == 2 ? 11 : 12, rio = version == 2 ? 13 : 15;
	if (3 + nscal * scal + nrio * rio > left) {
		*why = "EBDA: the Rio Grande table is longer than the EBDA";
		return 0;
	}
	/* a rio record: node_id, BBAR (32 bits), type, ... */
	const uint8_t *r = t + 3 + nscal * scal;
	for (unsigned i = 0; i < nrio; i++, r += rio) {
		unsigned type = r[5];
		if ((type == RIO_COMPAT_CALGARY || type == RIO_ALT_CALGARY) && found < max)
			bbar[found++] = le32(r + 1);
	}
	return found;
}

/* The EBDA is RAM the BIOS keeps (its segment in the BIOS data area's word
 * at 0x40E, its size in KiB in its first byte), not a register window: it
 * is read as memory, and only where the memory map describes RAM there. */
size_t calgary_ebda_bbars(uint32_t *bbar, size_t max, const char **why)
{
	const char *no = memmap_read_refusal(0x40e, 2);
	if (no) {
		static char msg[200];
		snprintf(msg, sizeof(msg), "the BIOS data area cannot be read: %s", no);
		*why = msg;
		return 0;
	}
	/* the compiler must not judge a pointer into page 0: it is RAM here */
	uintptr_t bda = 0x400;
	__asm__("" : "+r"(bda));
	const volatile uint8_t *p = (const volatile uint8_t *)bda;
	uint64_t ebda = (uint64_t)(p[0x0e] | p[0x0f] << 8) << 4;
	if (ebda < 0x80000 || ebda >= 0xa0000 || memmap_read_refusal(ebda, 1)) {
		*why = "no EBDA (BDA word 0x40E is outside 0x80000-0x9FFFF, or the memory map has no RAM there)";
		return 0;
	}
	size_t len = (size_t) * (const volatile uint8_t *)(uintptr_t)ebda * 1024;
	if (!len || ebda + len > 0xa0000 || (no = memmap_read_refusal(ebda, len)) != NULL) {
		*why = "the EBDA's length runs past 640 KiB or into memory the map does not give as RAM";
		return 0;
	}
	return calgary_rio_bbars((const uint8_t *)(uintptr_t)ebda, len, bbar, max, why);
}
