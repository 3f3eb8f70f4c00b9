/* The iommu interface: what every backend (Intel VT-d, AMD-Vi, Arm
 * SMMUv3, Calgary/CalIOC2, DART, Apple DART; iommu/backends.h lists them)
 * offers the test catalogue. A backend takes one unit over from the
 * firmware, puts one device (the device under test) in a domain of its
 * own while every other device keeps working, maps and unmaps pages in
 * that domain, walks it as the hardware would, invalidates its caches by
 * named kinds (offered as data), and reads and clears the faults it
 * recorded. Every operation that fails returns one line for people and
 * leaves a code in io->err for the catalogue. */
#ifndef IOMMON_IOMMU_H
#define IOMMON_IOMMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pci/pci.h"

/* What the device may do to the page: R = read RAM (DMA to the device),
 * W = write RAM (DMA from the device). */
enum iommu_perm { IOMMU_R = 1, IOMMU_W = 2, IOMMU_RW = 3 };

/* How the device under test reaches memory. */
enum iommu_mode {
	IOMMU_TRANSLATE,   /* through its own domain: only what is mapped */
	IOMMU_PASSTHROUGH, /* untranslated, the way the bystanders are */
};

/* What a fault was, as far as the hardware says. */
enum iommu_fault_kind {
	IOMMU_FAULT_OTHER,	    /* something else, or the hardware does not say */
	IOMMU_FAULT_WRITE_DENIED,   /* a write to a page mapped without write permission */
	IOMMU_FAULT_NOT_PRESENT,    /* an IOVA with no valid entry (or no read permission) */
	IOMMU_FAULT_IR_NOT_PRESENT, /* an interrupt whose remapping entry is not present */
	IOMMU_FAULT_IR_INDEX,	    /* an interrupt index past the remapping table */
	IOMMU_FAULT_IR_SOURCE,	    /* an interrupt from a requester the entry does not admit */
	IOMMU_FAULT_IR_COMPAT,	    /* a compatibility-format interrupt while they are blocked */
	IOMMU_FAULT_IR_OTHER,	    /* another interrupt-remapping fault (reserved bits, table fetch, ...) */
};

struct iommu_fault {
	enum iommu_fault_kind kind;
	uint16_t sid;			       /* requester id: bus << 8 | devfn */
	uint32_t reason;		       /* the hardware's own code or register value */
	bool read;			       /* the device was reading RAM */
	uint64_t addr;			       /* the page address the device used */
	bool sid_known, addr_known, dir_known; /* which of the above the hardware records */
	const char *why;		       /* the reason in words */
	bool pasid_present;		       /* the request carried a PASID (VT-d scalable mode: PP) */
	uint32_t pasid;			       /* and its value (PV) */
	/* the translation stage that refused it, where a unit with two
	 * stages says (SMMUv3 events: 1 or 2; 0 not said), and at stage 2
	 * the intermediate address it met (the IPA) */
	uint8_t stage;
	uint64_t ipa;
	uint64_t t_seen; /* cycle counter when the record was read */
};

/* An invalidation the backend offers, e.g. "queued-page". */
struct iommu_inval_kind {
	const char *name;
	const char *granularity; /* "page", "domain", "global" */
	const char *interface;	 /* "register", "queued", ... */
};

/* Why an operation failed, for code that must tell failures apart (the
 * catalogue checks these, never the words). */
enum iommu_err {
	IOMMU_OK,
	IOMMU_ERR_TIMEOUT,     /* a handshake's deadline passed: the hardware never answered */
	IOMMU_ERR_ABANDONED,   /* the hardware answered with an error on every retry: given up */
	IOMMU_ERR_HARDWARE,    /* the hardware reported an error (queue error, error register) */
	IOMMU_ERR_UNUSABLE,    /* the registers read all ones or describe what this driver cannot drive */
	IOMMU_ERR_FIRMWARE,    /* the firmware left it in a state the monitor must not take (locked, in use) */
	IOMMU_ERR_UNSUPPORTED, /* the unit cannot do what was asked (a page size, a kind, a mode) */
	IOMMU_ERR_ARGUMENT,    /* an IOVA, size, page or device outside what the domain holds */
	IOMMU_ERR_NOMEM,       /* no page for a table */
	IOMMU_ERR_STATE,       /* not taken over, or no device attached */
	IOMMU_ERR_RESTORE,     /* give-back could not put a register back as found */
};

struct iommu;

/* ---- interrupt remapping ---------------------------------------------------
 * The cases' view of a remapping entry, whatever the unit's format (VT-d
 * IRTE, AMD-Vi 32- or 128-bit IRTE): deliver `vector` to the CPU `dest`
 * (a local APIC id: 8 bits in xAPIC mode, 32 with x2APIC), fixed delivery,
 * physical destination, edge. present=false writes an entry that blocks.
 * sid_check: the entry admits only `source_id` (VT-d SVT=01, SQ=00; an
 * AMD-Vi table is per device, so always). */
struct iommu_irte {
	bool present;
	uint8_t vector;
	uint32_t dest;
	uint16_t source_id;
	bool sid_check;
};

/* What the firmware left a unit doing to protect memory from DMA, as read
 * from it without a write (ops->firmware_left), and what the firmware's
 * tables promise of it. */
struct iommu_fw_state {
	bool translating; /* DMA goes through the firmware's tables */
	bool blocking;	  /* something else blocks DMA: VT-d PMRs, SMMUv3 GBPA.ABORT */
	bool queue, intremap, faults;
	bool promised;	  /* the ACPI tables promise DMA protection for this unit */
	char promise[96]; /* where: "DMAR flags 0x5 (DMA_CTRL_PLATFORM_OPT_IN)"; "" when nothing */
	char state[256];  /* what was found, for people: "translation on (root table 0x...), ..." */
};

struct iommu_ops {
	/* Record what the firmware left, then own the unit: every device
	 * untranslated or identity-mapped, translation on. NULL or why not. */
	const char *(*take)(struct iommu *io);
	/* The unit as found. Safe to call when not taken. Returns NULL, or what
	 * could not be put back. */
	const char *(*give_back)(struct iommu *io);
	/* The device under test gets an empty domain of its own (or is passed
	 * through); NULL or why not. */
	const char *(*attach)(struct iommu *io, struct pci_addr dev, enum iommu_mode mode);
	/* Translation on or off for the whole unit (the "no IOMMU" baseline). */
	const char *(*enable)(struct iommu *io, bool on);
	/* [iova, iova + size) -> [phys, ...) in leaves of `page` bytes (one of
	 * io->page_sizes). Table writes reach memory before it returns; caches
	 * are invalidated only where the hardware requires it for a new entry
	 * (VT-d caching mode). On an error, the leaves before it stay mapped. */
	const char *(*map)(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page);
	/* Clears the leaves; the caches are left alone (see invalidate). */
	const char *(*unmap)(struct iommu *io, uint64_t iova, uint64_t size);
	/* Kind `kind` (an index into io->kinds) covering [iova, iova + size)
	 * of the device's domain, waiting until the hardware says it is done. */
	const char *(*invalidate)(struct iommu *io, size_t kind, uint64_t iova, uint64_t size);
	/* Reads and clears every recorded fault; *overflow when some were lost. */
	size_t (*faults)(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow);
	/* Is there a recorded fault, without reading it (cheap, for polling)? */
	bool (*fault_pending)(struct iommu *io);
	/* IOVAs the backend keeps for itself (NULL: none). */
	bool (*reserved)(struct iommu *io, uint64_t iova, uint64_t size);
	/* The device-under-test's domain walked in software as the hardware
	 * walks it: where `iova` leads, with what permission (IOMMU_R/W) and
	 * in a leaf of how many bytes; false when nothing is mapped there. */
	bool (*iova_to_phys)(struct iommu *io, uint64_t iova, uint64_t *phys, unsigned *perm, uint64_t *page);
	/* The unit's state registers now against what the firmware left:
	 * true when they agree; `out` says which differ (NULL: the backend
	 * records nothing to compare, as on a model without firmware). */
	bool (*as_found)(struct iommu *io, char *out, size_t n);
	/* What the firmware left on, read without writing anything (NULL:
	 * the backend cannot say). */
	void (*firmware_left)(struct iommu *io, struct iommu_fw_state *st);

	/* Interrupt remapping (NULL where the backend has none). */
	/* On: a table of at least `entries` entries for each device it will
	 * serve, every entry not present, remapping enabled through whatever
	 * the unit requires (VT-d: queued invalidation, IRTA, SIRTP, IRE; the
	 * firmware's compatibility-format interrupts kept allowed unless
	 * ir_compat(false)). Off: remapping disabled. NULL or why not. */
	const char *(*ir_enable)(struct iommu *io, bool on, unsigned entries);
	/* Writes entry `index` of the table serving `source_id`. The unit may
	 * keep using a cached copy of the old one until ir_invalidate. */
	const char *(*ir_set)(struct iommu *io, uint16_t source_id, unsigned index, const struct iommu_irte *e);
	/* The message a device with requester id `source_id` must send to
	 * raise entry `index` (VT-d: remappable format, handle = index;
	 * AMD-Vi: the interrupt's data selects the entry). */
	const char *(*ir_msi)(struct iommu *io, uint16_t source_id, unsigned index, struct msi_message *out);
	/* The I/O APIC redirection entry (82093AA 3.2.4) that raises entry
	 * `index` of the table serving the I/O APIC: edge, fixed, masked (the
	 * caller unmasks it); `vector` the entry's, which VT-d requires the
	 * RTE to repeat (VT-d: remappable format; AMD-Vi: the vector field is
	 * the index). */
	const char *(*ir_ioapic_rte)(struct iommu *io, unsigned index, uint8_t vector, uint64_t *rte);
	/* Invalidates the unit's cached entries: `index` of `source_id`'s
	 * table, or every entry when index < 0, by the kind named in
	 * io->ir_kinds[kind]. */
	const char *(*ir_invalidate)(struct iommu *io, size_t kind, uint16_t source_id, int index);
	/* Compatibility-format interrupts allowed (VT-d GCMD.CFI) or blocked;
	 * NULL where the unit has no such switch. */
	const char *(*ir_compat)(struct iommu *io, bool allow);
	/* The translation mode of the next take, by one of io->modes' names
	 * (NULL: the unit's default, as its settings say), for a unit that
	 * translates in more than one way (VT-d legacy, scalable first and
	 * second stage). It sets io->variant, page_sizes, addr_bits and kinds
	 * for that mode. NULL or why not: UNSUPPORTED when the unit does not
	 * offer the mode, STATE while taken. NULL op: one mode only. */
	const char *(*mode)(struct iommu *io, const char *name);
	/* Why the unit does not offer mode `name`, in mode's words, from what
	 * its open read: nothing is written or read from the unit. NULL when
	 * it offers it. NULL op: one mode only. */
	const char *(*mode_refusal)(const struct iommu *io, const char *name);
};

/* The table's common part for a backend that names each operation op_ and
 * its member, as the one-file backends (Calgary, DART, Apple DART) do:
 * `static const struct iommu_ops x_ops = { IOMMU_OPS_OP_NAMED, ... };` */
#define IOMMU_OPS_OP_NAMED                                                                                      \
	.take = op_take, .give_back = op_give_back, .attach = op_attach, .enable = op_enable, .map = op_map,    \
	.unmap = op_unmap, .invalidate = op_invalidate, .faults = op_faults, .fault_pending = op_fault_pending, \
	.iova_to_phys = op_iova_to_phys, .as_found = op_as_found

#define IOMMU_MAX_ALIASES 15

struct iommu {
	const struct iommu_ops *ops;
	const char *backend;		      /* "vtd" */
	char name[16];			      /* the unit: "dmar0" */
	uint64_t page_sizes;		      /* bit n set: leaves of 2^n bytes */
	unsigned addr_bits;		      /* IOVAs the domain can hold */
	const struct iommu_inval_kind *kinds; /* only those this unit can do */
	size_t nkinds;
	const struct iommu_inval_kind *ir_kinds; /* interrupt-entry invalidations ("iec-global", "iec-index", ...) */
	size_t nir_kinds;
	/* While interrupt remapping is on (ir_enable): the width of the
	 * destinations its entries carry, 8 (xAPIC ids) or 32 (x2APIC ids:
	 * VT-d IRTA.EIME, AMD-Vi XTEn); 0 while off. ir_dest32: where the
	 * unit offers 32-bit destinations, the setting that turns them on
	 * when 8 bits would do (NULL: the unit offers none). */
	unsigned ir_dest_bits;
	const char *ir_dest32;
	bool perm_bits;	     /* entries can be read-only (DART's cannot) */
	bool map_flushes;    /* map invalidates too (VT-d caching mode): its cost includes one */
	bool passthrough;    /* the device under test can bypass translation */
	const char *variant; /* named in every record: "calioc2", "dart-u4-invalid", ... (NULL: none) */
	/* The translation modes this unit offers and its driver drives, by
	 * name (ops->mode chooses one); none where it has one way only. */
	const char *modes[4];
	size_t nmodes;
	const char *mode; /* the one the next take uses (NULL: one way only) */
	bool model;	  /* a register-level model, not hardware */
	/* The fault event interrupt, when the platform could install one:
	 * the count and the cycle counter at the last one. */
	bool irq;
	volatile uint64_t irq_count, irq_tsc;
	/* Requester ids the device under test's DMA also carries (bridges,
	 * quirks, the firmware's alias entries: units_dma_aliases), set by
	 * whoever opens the unit for that device; its own id is not among
	 * them. attach gives each the device's domain; the next attach and
	 * give_back take them back with the device. */
	uint16_t alias[IOMMU_MAX_ALIASES];
	size_t nalias;
	uint16_t alias_rid; /* the requester id they are aliases of */
	bool taken;
	/* Taken over live: translation stays on (the firmware left it on to
	 * protect memory), so enable(false) is refused and no "translation
	 * off" baseline can be had; why, for people. */
	const char *stays_on;
	/* The unit as found blocks every DMA (a RISC-V IOMMU's ddtp Off, its
	 * reset state): a device's driver cannot reach its own queues until
	 * the unit is taken over and the device passed through, so the bench
	 * brings the device under test up that way. */
	bool take_first;
	enum iommu_err err;	/* why the last operation that failed did */
	char restore_note[160]; /* what the last give-back found, for people ("" before one) */
};

/* What the firmware left `io` doing, read without a write (ops->firmware_left):
 * all false where the backend cannot say or the unit is taken over (what it
 * does then is iommon's). True when that protects memory from DMA. */
static inline bool iommu_fw_protects(struct iommu *io, struct iommu_fw_state *st)
{
	*st = (struct iommu_fw_state){ 0 };
	if (io && !io->taken && io->ops->firmware_left)
		io->ops->firmware_left(io, st);
	return st->translating || st->blocking;
}

/* A device's requester ids, `rid` first, then io->alias when they are
 * its aliases (each once): how many, at most 1 + IOMMU_MAX_ALIASES. */
static inline size_t iommu_dut_rids(const struct iommu *io, uint16_t rid, uint16_t *out)
{
	size_t n = 0;
	out[n++] = rid;
	for (size_t i = 0; io->alias_rid == rid && i < io->nalias && i < IOMMU_MAX_ALIASES; i++) {
		size_t k = 0;
		while (k < n && out[k] != io->alias[i])
			k++;
		if (k == n)
			out[n++] = io->alias[i];
	}
	return n;
}

/* Is `sid` one the DMA of the device with requester id `rid` carries
 * (its own, or an alias the unit was told of)? */
static inline bool iommu_rid_carries(const struct iommu *io, uint16_t rid, uint16_t sid)
{
	for (size_t i = 0; sid != rid && io->alias_rid == rid && i < io->nalias && i < IOMMU_MAX_ALIASES; i++)
		if (io->alias[i] == sid)
			return true;
	return sid == rid;
}

/* A failing operation's return: records `code` in io->err, returns `why`. */
static inline const char *iommu_fail(struct iommu *io, enum iommu_err code, const char *why)
{
	io->err = code;
	return why;
}

#endif
