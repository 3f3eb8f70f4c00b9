/* NVMe controller knowledge that needs no controller: the register map
 * and the decoders of what a controller reports (CAP, Identify). Pure
 * functions of their input, so that they are fuzzed and unit-tested
 * alone; pci/nvme.c drives the controller with them. */
#ifndef IOMMON_NVME_H
#define IOMMON_NVME_H

#include <stdbool.h>
#include <stdint.h>

/* Controller registers (NVM Express Base 1.4, 3.1) */
#define NVME_CAP 0x00
#define NVME_INTMS 0x0c
#define NVME_INTMC 0x10
#define NVME_CC 0x14
#define NVME_CSTS 0x1c
#define NVME_AQA 0x24
#define NVME_ASQ 0x28
#define NVME_ACQ 0x30
#define NVME_DOORBELLS 0x1000
#define NVME_CC_EN 0x1
#define NVME_CSTS_RDY 0x1
#define NVME_CSTS_CFS 0x2
#define NVME_PAGE 4096u

/* CAP, decoded (1.4, 3.1.1). */
struct nvme_cap {
	unsigned mqes;	     /* queue entries supported (MQES + 1) */
	uint64_t timeout_us; /* CAP.TO: the longest a ready change may take */
	uint32_t dstrd;	     /* doorbell stride in bytes */
	bool nvm_css;	     /* the NVM command set */
	unsigned mpsmin;     /* 4 KiB << mpsmin is the smallest page */
};
/* NULL when the driver can use the controller, else why not. */
const char *nvme_decode_cap(uint64_t cap, struct nvme_cap *out);

/* Identify Controller (CNS 1, 1.4 figure 247), the fields the driver uses. */
struct nvme_id_ctrl {
	char serial[21], model[41]; /* printable ASCII, trailing spaces trimmed */
	uint32_t nn;		    /* namespaces */
	bool compare;		    /* ONCS: the Compare command */
	uint64_t max_transfer;	    /* bytes per command (MDTS), at most `limit` */
};
void nvme_decode_id_ctrl(const uint8_t page[NVME_PAGE], uint64_t limit, struct nvme_id_ctrl *out);

/* Identify Namespace (CNS 0, 1.4 figure 245). */
struct nvme_id_ns {
	uint64_t nsze;	   /* blocks */
	uint32_t lba_size; /* bytes per block of the format in use */
};
/* NULL when the namespace can be used (blocks of 512 B to 4 KiB, no
 * metadata, no protection information), else why not. */
const char *nvme_decode_id_ns(const uint8_t page[NVME_PAGE], struct nvme_id_ns *out);

#endif
