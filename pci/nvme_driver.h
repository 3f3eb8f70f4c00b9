/* The NVMe driver's own header (pci/nvme.c, nvme_queue.c, nvme_stream.c, nvme_msix.c):
 * the controller's state and the queue machinery the engine's operations
 * and its interrupt share. Nothing outside these four files includes it;
 * pci/nvme.h holds what needs no controller. */
#ifndef IOMMON_NVME_DRIVER_H
#define IOMMON_NVME_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dma.h"
#include "nvme.h"

#define CC_EN NVME_CC_EN
#define CC_IOSQES_64 (6u << 16)
#define CC_IOCQES_16 (4u << 20)

/* Opcodes: admin (5.) and NVM command set (6.) */
#define ADMIN_DELETE_SQ 0x00
#define ADMIN_CREATE_SQ 0x01
#define ADMIN_DELETE_CQ 0x04
#define ADMIN_CREATE_CQ 0x05
#define ADMIN_IDENTIFY 0x06
#define NVM_FLUSH 0x00
#define NVM_WRITE 0x01
#define NVM_READ 0x02
#define NVM_COMPARE 0x05
/* Status: Compare Failure (1.4, figure 128: type 2, media and data integrity, code 85h) */
#define NVME_SC_COMPARE_FAILURE 0x285

#define PAGE NVME_PAGE
#define STREAM_MAX 32 /* transfers queue() keeps in flight, each with a PRP list page of its own */
#define ADMIN_DEPTH 16
#define IO_DEPTH 64
#define MAX_TRANSFER (1u << 20) /* 256 pages: one PRP list page */
#define CMD_DEADLINE_US 2000000 /* a read of 1 MiB from any real disk */

/* A queue pair: submission and completion queue, one page each. */
struct nvme_queue {
	uint8_t *sq, *cq; /* one page each */
	uint16_t depth, tail, head, qid;
	bool phase;
};

struct nvme {
	struct dma_engine e;
	struct regwin bar;
	struct pci_cfg *cfg;
	uint32_t dstrd;	     /* doorbell stride in bytes */
	uint64_t timeout_us; /* CAP.TO */
	uint64_t waited_us;  /* spent in budgeted waits, against NVME_BUDGET_US */
	char werr[160];	     /* why the last wait ended without an answer */
	uint16_t cid;
	struct nvme_queue admin, io;
	uint8_t *prp_list; /* STREAM_MAX pages: the first transfer()'s, then one a transfer in flight */
	struct nvme_slot {
		uint16_t cid;
		bool busy;
		uint64_t t0; /* the cycle counter when queue() was called */
		struct dma_result r;
	} slot[STREAM_MAX];
	unsigned inflight;
	uint8_t *identify; /* one page */
	uint32_t nsid, lba_size;
	uint64_t nsze;
	bool compare, scratch;
	char serial[21], model[41]; /* Identify controller, trimmed */
	char how[256];
	/* as found */
	uint16_t saved_command;
	uint32_t saved_cc, saved_aqa, saved_intms;
	uint64_t saved_asq, saved_acq;
	bool was_enabled, claimed;
	bool msix;		    /* MSI-X on: INTMS/INTMC must not be touched (1.4, 3.1.3) */
	uint16_t msix_off;	    /* the MSI-X capability (0: none) */
	struct msix_cap msix_saved; /* while the engine's own interrupt is programmed */
	uint8_t *irq_cq;	    /* the completion queue that holds vector 0 in use (nvme_msix.c) */
	bool saved;		    /* the registers above hold what was found */
	bool dead;		    /* stopped after a timeout */
	/* closing: the stop that ended the test (it stays requested for the
	 * rest of the run) no longer ends a wait, or the controller would be
	 * left disabled and not given back; a Ctrl-C/Esc typed during the
	 * close still does */
	bool closing;
};

/* nvme_queue.c: submission and completion queues, the controller's waits */

/* One zeroed page, or NULL. */
void *nvme_page(void);
/* Waits for CSTS.RDY to equal `ready`, for at most CAP.TO (and what is
 * left of the device's budget); false with *why. */
bool nvme_wait_ready(struct nvme *n, bool ready, const char **why);
/* Puts one command in queue `q` and rings its doorbell (unless `ring` is
 * false); returns its command identifier. *t_ring: the cycle counter just
 * before the doorbell. */
uint16_t nvme_submit(struct nvme *n, struct nvme_queue *q, const uint8_t cmd[64], bool ring, uint64_t *t_ring);
/* Polls `q` for command `cid`'s completion: DMA_OK, DMA_DEVICE_ERROR (the
 * status decoded into err) or DMA_TIMEOUT after `deadline_us` (cut to the
 * device's budget when `budgeted`). */
enum dma_status nvme_complete(struct nvme *n, struct nvme_queue *q, uint16_t cid, uint64_t deadline_us, bool budgeted,
			      uint32_t *dw0, char *err, size_t errn, uint16_t *status);
/* One admin command, submitted and completed within CAP.TO. */
enum dma_status nvme_admin(struct nvme *n, uint8_t opcode, uint32_t nsid, uint64_t prp1, uint32_t cdw10, uint32_t cdw11,
			   const char **why);

/* The next completion entry of `q`, whichever command it is for: its cid in
 * *cid and its status (DMA_OK or DMA_DEVICE_ERROR, decoded into err), or
 * DMA_TIMEOUT after `deadline_us`. */
enum dma_status nvme_next(struct nvme *n, struct nvme_queue *q, uint64_t deadline_us, uint16_t *cid, char *err,
			  size_t errn, uint16_t *status);
/* PRP2 for a transfer of `len` at `iova` (the next page, or `list` filled
 * with the pages after the first), 0 when PRP1 covers it (1.4, 4.3). */
uint64_t nvme_prp2(uint8_t *list, uint64_t iova, uint64_t len);
/* The read (device -> RAM) or compare/write (RAM -> device) of `len` bytes
 * at `iova` as a command, PRP list in `list`; NULL, or why not (r->status). */
const char *nvme_io_command(struct nvme *n, enum dma_dir dir, uint64_t iova, uint64_t len, uint8_t *list,
			    uint8_t cmd[64], struct dma_result *r);
/* A stopped controller: no more bus mastering, CC.EN clear, nothing of it
 * used again (a command that timed out may still run). */
void nvme_stop_dead(struct nvme *n);

/* nvme_stream.c: transfers in flight at once (struct dma_engine's queue, reap) */
enum dma_status nvme_queue_io(struct dma_engine *e, enum dma_dir dir, uint64_t iova, uint64_t len, unsigned *tag,
			      struct dma_result *r);
enum dma_status nvme_reap(struct dma_engine *e, unsigned *tag, struct dma_result *r);

/* nvme_msix.c: the engine's own interrupt (struct dma_engine's msi_*) */
const char *nvme_msi_program(struct dma_engine *e, const struct msi_message *m);
const char *nvme_msi_raise(struct dma_engine *e, uint64_t *t_doorbell);
void nvme_msi_off(struct dma_engine *e);

#endif
