/* Decoders of what an NVMe controller reports: checked here, in one place,
 * so that a controller reporting nonsense gets a named refusal. */
#include "nvme.h"

#include <string.h>

const char *nvme_decode_cap(uint64_t cap, struct nvme_cap *out)
{
	*out = (struct nvme_cap){ 0 };
	if (cap == ~0ull)
		return "nvme: CAP reads all ones (gone or not decoding)";
	out->mqes = (unsigned)(cap & 0xffff) + 1;
	out->timeout_us = ((cap >> 24) & 0xff) * 500000ull; /* units of 500 ms */
	if (out->timeout_us == 0)
		out->timeout_us = 500000;
	out->dstrd = 4u << ((cap >> 32) & 0xf);
	out->nvm_css = (cap >> 37) & 1;
	out->mpsmin = (cap >> 48) & 0xf;
	if (out->mqes < 2)
		return "nvme: CAP.MQES allows queues of one entry (a queue needs two)";
	if (out->mpsmin != 0 || !out->nvm_css)
		return "nvme: needs 4 KiB pages and the NVM command set";
	return NULL;
}

/* Identify strings are ASCII padded with spaces (1.4, figure 247). */
static void copy_trimmed(char *out, const uint8_t *in, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		out[k++] = in[i] >= 0x20 && in[i] < 0x7f ? (char)in[i] : '?';
	while (k && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

void nvme_decode_id_ctrl(const uint8_t page[NVME_PAGE], uint64_t limit, struct nvme_id_ctrl *out)
{
	*out = (struct nvme_id_ctrl){ 0 };
	uint16_t oncs;
	memcpy(&oncs, page + 520, 2);
	memcpy(&out->nn, page + 516, 4);
	copy_trimmed(out->serial, page + 4, 20);
	copy_trimmed(out->model, page + 24, 40);
	out->compare = oncs & 0x1;
	/* MDTS: 2^n pages of the minimum size, 0 = no limit */
	uint8_t mdts = page[77];
	out->max_transfer = limit;
	if (mdts && mdts < 32 && ((uint64_t)NVME_PAGE << mdts) < limit)
		out->max_transfer = (uint64_t)NVME_PAGE << mdts;
}

const char *nvme_decode_id_ns(const uint8_t page[NVME_PAGE], struct nvme_id_ns *out)
{
	*out = (struct nvme_id_ns){ 0 };
	uint64_t nsze;
	memcpy(&nsze, page, 8);
	uint8_t nlbaf = page[25], flbas = page[26] & 0xf;
	if (flbas > nlbaf)
		return "nvme: the namespace's format index is beyond its formats (FLBAS > NLBAF)";
	const uint8_t *lbaf = page + 128 + 4 * flbas;
	uint16_t ms;
	memcpy(&ms, lbaf, 2);
	uint8_t lbads = lbaf[2], dps = page[29] & 7;
	if (nsze == 0)
		return "nvme: the namespace has no blocks";
	/* metadata (inline or through MPTR) would move more bytes than the
	 * buffer holds, or to address 0: such namespaces are not used */
	if (ms != 0 || dps != 0)
		return "nvme: the namespace has metadata or protection information";
	if (lbads < 9 || lbads > 12)
		return "nvme: the namespace's blocks are not 512 bytes to 4 KiB";
	out->nsze = nsze;
	out->lba_size = 1u << lbads;
	return NULL;
}
