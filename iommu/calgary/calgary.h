/* IBM Calgary (PCI-X) and CalIOC2 (PCIe) behind the iommu interface, from
 * shared/specs/calgary.md: one TCE table per PHB (so a device is isolated
 * with everything else on its PHB's buses), big-endian registers and table
 * entries, the whole-PHB cache flush sequences, and CSR error polling. */
#ifndef IOMMON_CALGARY_H
#define IOMMON_CALGARY_H

#include "core/base/regwin.h"
#include "iommu/backend.h"
#include "iommu/iommu.h"

#define CALGARY_PHBS 4
#define CALGARY_SPLITQ_READS 100   /* Linux's bound, then it went on */
#define CALGARY_SOFTSTOP_TRIES 100 /* CalIOC2: then the flush is abandoned */

struct calgary_phb {
	uint8_t start_bus, end_bus;
	uint64_t *table;    /* TCEs, big-endian */
	uint64_t entries;   /* 8192 << size code */
	uint64_t found_tar; /* as the firmware left them */
	uint32_t found_config, found_savior;
	bool used; /* we programmed it */
};

struct calgary {
	struct iommu io;
	struct regwin w;
	bool ioc2;
	struct calgary_phb phb[CALGARY_PHBS];
	int cur;	    /* the PHB of the device under test, -1 before attach */
	unsigned size_code; /* TCE table size: 8192 << n entries */
	bool fence;	    /* on an error, disable the PHB's slots as Linux did */
	unsigned softstop_retries;
	unsigned dumps;	  /* error dumps printed since the take-over */
	bool found_valid; /* the found_* fields hold a take-over's reading */
	struct iommu_inval_kind kind;
	char variant[16];
};

/* A chip reached through `w` (1 MiB window, big-endian). NULL or why not. */
const char *calgary_init(struct calgary *c, const struct regwin *w, bool ioc2, const char *name, unsigned size_code);

/* The PHB whose buses hold `bus`, or -1. */
int calgary_phb_of(const struct calgary *c, uint8_t bus);

/* Reserved IOVA ranges a map must not use (spec: page 0 and the emergency
 * pages, the legacy hole, the peripheral windows). */
bool calgary_iova_reserved(const struct calgary *c, unsigned phb, uint64_t iova, uint64_t size);

/* The backend: Calgary's PCI functions, its models, its settings
 * (calgary.fence) and what `iommu` says of it. */
extern const struct iommu_backend calgary_backend;

/* EBDA: the Rio Grande table's Calgary register windows (BBARs). `ebda` is
 * the EBDA's bytes; returns how many Calgary chips were found (types 4 and
 * 5), their BBARs in `bbar`; *why says what was wrong (a looping chain, a
 * table cut short) or NULL. */
size_t calgary_rio_bbars(const uint8_t *ebda, size_t len, uint32_t *bbar, size_t max, const char **why);
/* The same, from this machine's EBDA (read as RAM where the memory map
 * says it is). */
size_t calgary_ebda_bbars(uint32_t *bbar, size_t max, const char **why);

#endif
