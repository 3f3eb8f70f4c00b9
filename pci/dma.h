/* The DMA engine interface: "move N bytes between this IOVA and the device,
 * tell me when it finished or failed", with the cycle counter read at
 * submission and when completion is seen. Drivers (edu, NVMe) sit behind it
 * and reach their devices only through register windows. */
#ifndef IOMMON_DMA_H
#define IOMMON_DMA_H

#include <stdbool.h>
#include <stdint.h>

#include "pci.h"

enum dma_dir {
	DMA_TO_DEVICE,	 /* the device reads RAM */
	DMA_FROM_DEVICE, /* the device writes RAM */
};

enum dma_status {
	DMA_OK,
	DMA_BAD_REQUEST,  /* refused before the device saw it: length, alignment, address */
	DMA_DEVICE_ERROR, /* the device said no (decoded in `error`) */
	DMA_TIMEOUT,	  /* no completion before the deadline */
};

struct dma_result {
	enum dma_status status;
	uint64_t t_submit, t_done; /* cycles: doorbell written, completion seen */
	uint64_t driver_cycles;	   /* spent in the driver, the wait excluded */
	uint16_t device_status;	   /* the device's own code (NVMe: type << 8 | code) */
	/* DMA_DEVICE_ERROR because the device compared the data it read with
	 * its own and they differed (NVMe Compare Failure): the only device
	 * error that says anything of the data. Every other error (a command
	 * refused, a device that stopped, or is gone) is no miscompare. */
	bool miscompare;
	char error[96];
};

struct dma_caps {
	uint64_t max_len;
	unsigned addr_bits; /* IOVAs the device can emit */
	uint64_t align;	    /* required alignment of the IOVA */
	uint64_t len_unit;  /* lengths are whole multiples of this (NVMe: the LBA size) */
	bool reads_ram, writes_ram;
	/* true: what goes to the device comes back (a scratch buffer); false:
	 * the device compares what it reads against its own data (NVMe
	 * Compare), so a mismatch is a device error */
	bool roundtrip;
	uint32_t fixed_latency_us; /* a model's built-in delay (edu: 100 ms), 0 if none */
	unsigned max_inflight;	   /* transfers queue() keeps in flight at once (0: no queue()) */
	const char *how;	   /* which command moves the data, for the records */
};

/* Memory the driver itself hands to its device (queues, PRP lists):
 * whoever puts the device behind an IOMMU must map it, at its physical
 * address, before the next transfer. */
struct dma_range {
	uint64_t phys, len;
};
#define DMA_MAX_OWN 8

struct dma_engine {
	const char *kind; /* "edu", "nvme" */
	struct pci_addr addr;
	struct dma_caps caps;
	enum dma_status (*transfer)(struct dma_engine *e, enum dma_dir dir, uint64_t iova, uint64_t len,
				    struct dma_result *r);
	void (*close)(struct dma_engine *e); /* the device as found */
	/* Transfers in flight at once (NULL where the engine takes one at a
	 * time): queue() starts one as transfer() does but does not wait, *tag
	 * naming it; reap() waits, within the driver's deadline, for the next
	 * to complete, whichever it is, and gives its tag and result (on a
	 * timeout the tag is caps.max_inflight: the device is stopped, nothing
	 * in flight will complete). At most caps.max_inflight at once, and no
	 * transfer() while any is. */
	enum dma_status (*queue)(struct dma_engine *e, enum dma_dir dir, uint64_t iova, uint64_t len, unsigned *tag,
				 struct dma_result *r);
	enum dma_status (*reap)(struct dma_engine *e, unsigned *tag, struct dma_result *r);
	void *priv;
	bool withhold_doorbell; /* test knob: never tell the device, so it never completes */
	struct dma_range own[DMA_MAX_OWN];
	size_t nown;
	/* Called on every turn of the driver's completion wait (NULL: none),
	 * so a test can watch other hardware while the DMA runs. */
	void (*on_wait)(void *ctx);
	void *on_wait_ctx;
	/* The device's own interrupt, for the interrupt-remapping cases (NULL
	 * where the driver offers none). msi_program: the device's MSI (or
	 * MSI-X entry 0) set to `m`, enabled, with every other vector masked;
	 * msi_raise: make the device send it once (edu: its raise register;
	 * NVMe: an admin command's completion), with *t_doorbell the counter
	 * just before the write that makes it; msi_off: the capability as
	 * found. */
	const char *(*msi_program)(struct dma_engine *e, const struct msi_message *m);
	const char *(*msi_raise)(struct dma_engine *e, uint64_t *t_doorbell);
	void (*msi_off)(struct dma_engine *e);
	/* The device's INTx, for the I/O APIC path (NULL where the driver
	 * offers none). intx_enable(true): MSI off and INTx allowed (PCI
	 * command INTx-disable clear); false: back as the driver runs, the
	 * line deasserted. intx_set: the line asserted (edu: its raise
	 * register; *t_doorbell the counter just before the write) or
	 * deasserted (its acknowledge register). */
	const char *(*intx_enable)(struct dma_engine *e, bool on);
	void (*intx_set)(struct dma_engine *e, bool asserted, uint64_t *t_doorbell);
};

/* A counting interrupt handler for a device's own MSI: installed on a free
 * vector of the boot CPU, each arrival counted and the counter stamped.
 * The interrupt-remapping cases install one for the vector they expect and
 * one for a decoy the device is told, and wait on each. */
struct msi_catch {
	int vector; /* -1: none installed */
	uint32_t apic_id;
	volatile uint64_t count, tsc;
};
/* Installs the handler (platform->irq_install). NULL or why not. */
const char *msi_catch_install(struct msi_catch *c);
void msi_catch_remove(struct msi_catch *c);
/* Waits up to `us` for the count to pass `before`: true when it did. */
bool msi_catch_wait(const struct msi_catch *c, uint64_t before, uint32_t us);
/* The message that reaches `c` untranslated: xAPIC physical destination,
 * fixed delivery, edge (Intel SDM vol. 3 10.11.1, 10.11.2). */
struct msi_message msi_catch_message(const struct msi_catch *c);

/* A device's MSI capability (PCIe base spec 7.7.1) as found, so it can be
 * programmed for one vector and put back. */
struct msi_cap {
	uint16_t off; /* 0: the device has none */
	uint16_t control;
	uint32_t addr_lo, addr_hi, data, mask;
};
/* Records the capability at `off` and programs it: `m`, one vector,
 * enabled, unmasked. NULL or why not. */
const char *msi_cap_program(struct pci_cfg *c, struct pci_addr a, uint16_t off, struct msi_cap *saved,
			    const struct msi_message *m);
/* The capability as recorded (nothing when none was). */
void msi_cap_restore(struct pci_cfg *c, struct pci_addr a, struct msi_cap *saved);

/* A device's MSI-X (PCIe base spec 7.7.2) as found, so entry 0 can be
 * programmed, every other entry masked, and all put back. The table lies
 * in a BAR the driver already has open (`table`: that BAR's window). */
#define MSIX_SAVED_MAX 2048 /* the most entries a table has */
struct msix_cap {
	uint16_t off; /* 0: nothing recorded */
	uint16_t control;
	uint32_t entry0[4]; /* address low, high, data, vector control */
	uint8_t masked[MSIX_SAVED_MAX / 8];
	struct regwin *table;
	uint64_t table_off;
	unsigned n;
};
/* The BAR (BIR) and offset of the table of the MSI-X capability at `off`. */
void msix_table_where(struct pci_cfg *c, struct pci_addr a, uint16_t off, unsigned *bir, uint64_t *table_off);
const char *msix_program(struct pci_cfg *c, struct pci_addr a, uint16_t off, struct regwin *table, uint64_t table_off,
			 struct msix_cap *saved, const struct msi_message *m);
void msix_restore(struct pci_cfg *c, struct pci_addr a, struct msix_cap *saved);

const char *dma_status_name(enum dma_status s);

/* Checks a request against the engine's capabilities; DMA_OK or
 * DMA_BAD_REQUEST with the reason in r->error. */
enum dma_status dma_check_request(const struct dma_engine *e, enum dma_dir dir, uint64_t iova, uint64_t len,
				  struct dma_result *r);

/* Physical addresses the engine reaches when nothing translates its DMA
 * (no IOMMU, translation off, pass-through, a bypass entry): below this;
 * 0 when it reaches every address. */
uint64_t dma_reach(const struct dma_engine *e);
/* NULL when a guarded buffer of `len` bytes can be had below `limit`
 * (0: anywhere); else why not, in words about the memory: "no RAM lies
 * below it" when the firmware's map describes none there, else "no free
 * memory below it could be had". */
const char *dma_ram_below(uint64_t limit, size_t len);
/* NULL when the engine can reach a buffer of `len` bytes untranslated;
 * else why not, in buf: "edu reaches 28 bits (0x10000000) and no RAM lies
 * below it" (a device whose reach ends below the RAM, as edu's on Arm's
 * virt machine, where RAM starts at 1 GiB). */
const char *dma_unreachable(const struct dma_engine *e, size_t len, char *buf, size_t n);

/* The engine for this PCI function, opened (NULL with *why if none). */
struct dma_engine *dma_open(struct pci_cfg *c, const struct pci_dev *d, const char **why);
/* Is there a driver for this function at all? */
bool dma_has_driver(const struct pci_dev *d);

/* Drivers */
struct dma_engine *edu_open(struct pci_cfg *c, const struct pci_dev *d, const char **why);
struct dma_engine *edu_open_window(struct pci_cfg *c, const struct pci_dev *d, const struct regwin *bar,
				   const char **why);
struct dma_engine *nvme_open(struct pci_cfg *c, const struct pci_dev *d, const char **why);
/* The same on a register window the caller opened (a model, under test). */
struct dma_engine *nvme_open_window(struct pci_cfg *c, const struct pci_dev *d, const struct regwin *bar,
				    const char **why);

#endif
