/* libFuzzer: the NVMe CAP and Identify decoders on arbitrary register
 * values and pages. What they accept must be safe to drive: queues of at
 * least two entries, CAP.TO within 127.5 s, a doorbell stride the spec
 * allows, printable NUL-terminated strings, transfers within the driver's
 * limit, blocks of 512 B to 4 KiB. */
#include <stdint.h>
#include <string.h>

#include "pci/nvme.h"

static void printable(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	if (n == cap)
		__builtin_trap(); /* not terminated */
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t page[NVME_PAGE];
	uint64_t capv = 0, limit = 1u << 20;
	memcpy(&capv, data, size < 8 ? size : 8);
	memset(page, 0, sizeof(page));
	if (size > 8)
		memcpy(page, data + 8, size - 8 < sizeof(page) ? size - 8 : sizeof(page));

	struct nvme_cap cap;
	if (!nvme_decode_cap(capv, &cap)) {
		if (cap.mqes < 2 || cap.mqes > 65536 || cap.timeout_us == 0 || cap.timeout_us > 127500000 ||
		    cap.dstrd < 4 || cap.dstrd > (4u << 15) || (cap.dstrd & (cap.dstrd - 1)) || cap.mpsmin ||
		    !cap.nvm_css)
			__builtin_trap();
	}

	struct nvme_id_ctrl id;
	nvme_decode_id_ctrl(page, limit, &id);
	printable(id.serial, sizeof(id.serial));
	printable(id.model, sizeof(id.model));
	if (id.max_transfer == 0 || id.max_transfer > limit || id.max_transfer % NVME_PAGE)
		__builtin_trap();

	struct nvme_id_ns ns;
	if (!nvme_decode_id_ns(page, &ns)) {
		if (ns.nsze == 0 || ns.lba_size < 512 || ns.lba_size > 4096 || (ns.lba_size & (ns.lba_size - 1)))
			__builtin_trap();
	}
	return 0;
}
