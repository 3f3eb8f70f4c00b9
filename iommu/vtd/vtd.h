/* Intel VT-d (Intel Virtualization Technology for Directed I/O, rev. 3+):
 * a remapping unit taken over from the firmware in legacy mode — root and
 * context tables, second-level page tables, register-based and queued
 * invalidation, fault recording and the fault event interrupt — behind the
 * iommu interface. */
#ifndef IOMMON_VTD_H
#define IOMMON_VTD_H

#include "../core/regwin.h"
#include "iommu.h"
#include "units.h"

/* Registers (spec 11.4) */
#define VTD_REG_VER 0x00
#define VTD_REG_CAP 0x08
#define VTD_REG_ECAP 0x10
#define VTD_REG_GCMD 0x18
#define VTD_REG_GSTS 0x1c
#define VTD_REG_RTADDR 0x20
#define VTD_REG_CCMD 0x28
#define VTD_REG_FSTS 0x34
#define VTD_REG_FECTL 0x38
#define VTD_REG_FEDATA 0x3c
#define VTD_REG_FEADDR 0x40
#define VTD_REG_FEUADDR 0x44
#define VTD_REG_PMEN 0x64
#define VTD_REG_IQH 0x80
#define VTD_REG_IQT 0x88
#define VTD_REG_IQA 0x90
#define VTD_REG_ICS 0x9c

/* GCMD / GSTS bits */
#define VTD_GCMD_TE (1u << 31)
#define VTD_GCMD_SRTP (1u << 30)
#define VTD_GCMD_WBF (1u << 27)
#define VTD_GCMD_QIE (1u << 26)
#define VTD_GCMD_IRE (1u << 25)
/* the one-shot bits read back as status, never to be written back */
#define VTD_GSTS_KEEP 0x96ffffffu

#define VTD_FSTS_PFO (1u << 0)
#define VTD_FSTS_PPF (1u << 1)
#define VTD_FSTS_IQE (1u << 4)
#define VTD_FSTS_ICE (1u << 5)
#define VTD_FSTS_ITE (1u << 6)
#define VTD_FECTL_IM (1u << 31)
#define VTD_FECTL_IP (1u << 30)

/* Second-level paging entries (9.8) */
#define VTD_PTE_R 1ull
#define VTD_PTE_W 2ull
#define VTD_PTE_PS (1ull << 7)
#define VTD_PTE_ADDR 0x000ffffffffff000ull

#define VTD_DEADLINE_US 100000 /* any register handshake or queue wait */
#define VTD_IQ_ENTRIES 256     /* one page of 128-bit descriptors */
#define VTD_MAX_FAULTS 256

/* A second-level page-table tree with its domain id. */
struct vtd_domain {
	uint16_t did;
	uint64_t *top;
	void **pages; /* every table page, freed with the domain */
	size_t npages, cap;
};

/* What the firmware left, recorded before the first write. */
struct vtd_found {
	uint32_t gsts, fsts, fectl, fedata, feaddr, feuaddr;
	uint64_t rtaddr, iqa, iqt;
};

enum vtd_bystanders { VTD_BYSTANDERS_AUTO, VTD_BYSTANDERS_PT, VTD_BYSTANDERS_IDENTITY };

struct vtd {
	struct iommu io;
	struct regwin w;
	struct vtd_found found;
	bool found_valid;
	uint32_t ver;
	uint64_t cap, ecap;
	/* from CAP/ECAP */
	unsigned mgaw, levels, aw, max_aw, fro, nfr, iro, mamv;
	bool coherent, rwbf, cm, pt, qi, psi, drain_r, drain_w;
	struct iommu_inval_kind kinds[6]; /* the kinds this unit can do */
	/* settings for the next take */
	enum vtd_bystanders want_bystanders;
	unsigned want_levels; /* 0: the deepest walk SAGAW offers */
	/* the tables */
	uint64_t *root, *ctx;		   /* one page; 256 context tables, one per bus */
	struct vtd_domain ident, dut, alt; /* alt: the second domain of the context-cache probe */
	bool alt_cached;		   /* a context-cache entry may still lead to alt's tables */
	bool bystanders_pt;
	uint64_t ident_top; /* the identity domain covers [0, ident_top) */
	bool has_dut;
	struct pci_addr dut_addr;
	enum iommu_mode dut_mode;
	/* queued invalidation */
	uint64_t *iq;
	volatile uint32_t *wait_status;
	uint32_t wait_seq;
	unsigned iq_tail;
	bool qi_on;
	unsigned queue_errors; /* IQE seen and recovered */
	/* the fault event interrupt */
	int vector;
	uint32_t apic_id;
	/* identity ranges RMRRs ask for, with the devices they name */
	const struct dmar *dmar;
	const struct pci_list *pci;
	uint16_t segment;
	char restore_note[160]; /* what give_back found, for people */
};

/* Prepares a unit reached through `w` (MMIO on hardware, a model in tests):
 * reads VER/CAP/ECAP and decides what the driver will use. NULL or why the
 * registers are unusable. `dmar` and `pci` (either may be NULL) give the
 * RMRRs and the devices they name. */
const char *vtd_init(struct vtd *v, const struct regwin *w, const char *name, const struct dmar *dmar,
		     const struct pci_list *pci, uint16_t segment);
/* The same for a DMAR unit at its register base. */
const char *vtd_open(struct vtd *v, const struct iommu_unit *u, const struct dmar *dmar, const struct pci_list *pci);

/* Software walk of the device-under-test's domain: the physical address
 * and permissions `iova` translates to, and the level of the leaf (1: 4K,
 * 2: 2M, 3: 1G); false when not present. For checks and unit tests. */
bool vtd_walk(const struct vtd *v, const struct vtd_domain *d, uint64_t iova, uint64_t *phys, unsigned *perm,
	      unsigned *level);

/* Queued invalidation with a descriptor the hardware must refuse: the
 * queue error it raises is reported, cleared and the queue recovered.
 * Returns NULL when that happened, else what went wrong. Test support. */
const char *vtd_queue_error_probe(struct vtd *v, unsigned *iqe_seen);

/* Test support for the context cache. vtd_context_swap moves the device
 * under test to a second domain in which `iova` maps to `phys` (and `keep`
 * is identity-mapped as before) by rewriting its context entry WITHOUT
 * invalidating the context cache; the old domain's IOTLB entries are
 * invalidated, so only a cached context entry can still lead to the old
 * tables. vtd_context_invalidate then invalidates the device's context
 * entry (device-selective) and the old domain's IOTLB (where a stale
 * context entry put its translations), by register or through the queue. */
struct dma_range;
const char *vtd_context_swap(struct vtd *v, uint64_t iova, uint64_t phys, const struct dma_range *keep, size_t nkeep);
const char *vtd_context_invalidate(struct vtd *v, bool queued);

/* The state registers now against what the firmware left: true when they
 * agree; `out` says which differ. */
bool vtd_as_found(struct vtd *v, char *out, size_t n);

/* The fault reason in words (spec, appendix A). */
const char *vtd_fault_reason(unsigned reason);

/* The kinds of invalidation this driver offers (some may be unsupported
 * by a given unit: vtd_kind_usable says). */
bool vtd_kind_usable(const struct vtd *v, size_t kind);

#endif
