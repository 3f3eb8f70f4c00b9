/* The faults and firmware states `model vtd` injects, and the kinds. The
 * firmware the "fw-*" states stand for: what pre-boot DMA
 * protection leaves on a unit when it starts a UEFI application, written
 * through the model's registers in the order firmware writes them (tables
 * first, then the pointer, the queue and remapping before translation),
 * with tables in memory of its own below 2 GiB. Like the model, it keeps
 * its own reading of the spec and does not include the driver's headers. */
#include <string.h>

#include "core/base/memmap.h"
#include "core/base/platform.h"
#include "model.h"

#define TE (1u << 31)
#define SRTP (1u << 30)
#define QIE (1u << 26)
#define IRE (1u << 25)
#define SIRTP (1u << 24)

static uint64_t *fw_page(void)
{
	uint64_t *p = platform->alloc_pages(1, 1ull << 31);
	if (p) {
		memset(p, 0, 4096);
		/* the firmware's memory, as far as the driver's checks go */
		memmap_firmware_standin((uint64_t)(uintptr_t)p, 4096);
	}
	return p;
}

static void gcmd(struct vtd_model *m, uint32_t bit)
{
	uint32_t keep = regwin_read32(&m->win, 0x1c) & (TE | QIE | IRE | (1u << 23));
	regwin_write32(&m->win, 0x18, keep | bit);
}

/* One 4 KiB page identity-mapped, read and write, in a 3-level walk. */
static void map_page(uint64_t *l3, uint64_t a)
{
	uint64_t *t = l3;
	for (unsigned shift = 30; shift > 12; shift -= 9) {
		uint64_t *e = &t[(a >> shift) & 511];
		if (!(*e & 3)) {
			uint64_t *next = fw_page();
			*e = (uint64_t)(uintptr_t)next | 3;
		}
		t = (uint64_t *)(uintptr_t)(*e & 0x000ffffffffff000ull);
	}
	t[(a >> 12) & 511] = (a & ~0xfffull) | 3;
}

void vtdm_firmware(struct vtd_model *m, enum vtdm_fw what)
{
	uint64_t *buf = fw_page();
	m->fw_page = (uint64_t)(uintptr_t)buf;
	if (what == VTDM_FW_PMR) {
		/* everything protected, low and high (a unit with CAP.PLMR and
		 * PHMR: `model vtd-pmr`); translation off */
		regwin_write32(&m->win, 0x68, 0);
		regwin_write32(&m->win, 0x6c, 0x7fffffffu);
		regwin_write64(&m->win, 0x70, 1ull << 32);
		regwin_write64(&m->win, 0x78, (1ull << 47) - 1);
		regwin_write32(&m->win, 0x64, 1u << 31);
		m->writes = 0;
		return;
	}
	uint64_t *root = fw_page(), *ctx = fw_page(), *l3 = fw_page();
	map_page(l3, m->fw_page);
	/* bus 0 only: every other bus's root entry not present, blocked */
	root[0] = (uint64_t)(uintptr_t)ctx | 1;
	for (unsigned fn = 0; fn < 256; fn++) {
		bool boot = fn == (VTDM_FW_SID & 0xff);
		if (what == VTDM_FW_LIAR) { /* pass-through (TT 2) for all, 39-bit */
			ctx[2 * fn + 1] = 1 | 1u << 8;
			ctx[2 * fn] = 1 | 2u << 2;
		} else if (boot) {
			ctx[2 * fn + 1] = 1 | 1u << 8; /* AW 39-bit, domain 1 */
			ctx[2 * fn] = (uint64_t)(uintptr_t)l3 | 1;
		}
	}
	if (what == VTDM_FW_LIAR) /* and every bus */
		for (unsigned bus = 1; bus < 256; bus++)
			root[2 * bus] = root[0];
	regwin_write64(&m->win, 0x20, (uint64_t)(uintptr_t)root);
	gcmd(m, SRTP);
	if (what == VTDM_FW_QUEUE) {
		uint64_t *q = fw_page(), *irt = fw_page();
		volatile uint32_t *status = (volatile uint32_t *)(uintptr_t)fw_page();
		regwin_write64(&m->win, 0x88, 0);
		regwin_write64(&m->win, 0x90, (uint64_t)(uintptr_t)q);
		gcmd(m, QIE);
		/* its own sources' entries: two of 256 (IRTA.S 7) */
		for (unsigned i = 0; i < 2; i++) {
			irt[2 * i + 1] = 0;
			irt[2 * i] = 1 | (uint64_t)(0x30 + i) << 16;
		}
		regwin_write64(&m->win, 0xb8, (uint64_t)(uintptr_t)irt | 7);
		gcmd(m, SIRTP);
		/* the context cache, the IOTLB and the entry cache, then a wait:
		 * the queue's tail left at 4 */
		q[0] = 1 | 1u << 4, q[1] = 0;
		q[2] = 2 | 1u << 4, q[3] = 0;
		q[4] = 4, q[5] = 0;
		q[6] = 5 | 1u << 5 | 1ull << 32, q[7] = (uint64_t)(uintptr_t)status;
		regwin_write64(&m->win, 0x88, 4 << 4);
		gcmd(m, IRE);
	}
	gcmd(m, TE);
	m->writes = 0;
}

/* ---- the faults `model` injects, and the kinds ---------------------------- */

static void inject_te_stuck(void *m)
{
	((struct vtd_model *)m)->stuck_gsts = TE;
}

static void inject_ccmd_stuck(void *m)
{
	((struct vtd_model *)m)->ignore_ccmd = true;
}

static void inject_queue_refused(void *m)
{
	((struct vtd_model *)m)->refuse_queue = true;
}

static void inject_cfi_ignored(void *m)
{
	((struct vtd_model *)m)->ignore_cfi = true;
}

/* What pre-boot DMA protection leaves (model_fw.c): states the driver must
 * take over and give back as found, and two it must refuse by name. */
static void fw_on(void *m)
{
	vtdm_firmware(m, VTDM_FW_ON);
}

static void fw_queue(void *m)
{
	vtdm_firmware(m, VTDM_FW_QUEUE);
}

static void fw_pmr(void *m)
{
	vtdm_firmware(m, VTDM_FW_PMR);
}

static void fw_liar(void *m)
{
	vtdm_firmware(m, VTDM_FW_LIAR);
}

static void fw_queue_stuck(void *m)
{
	struct vtd_model *v = m;
	vtdm_firmware(v, VTDM_FW_QUEUE);
	v->stall_queue = true;
	v->iqt = (v->iqh + (1u << 4)) & 0xff0u; /* one descriptor it never fetches */
}

static void fw_no_latch(void *m)
{
	vtdm_firmware(m, VTDM_FW_PMR);
	((struct vtd_model *)m)->no_latch = true;
}

const struct model_fault vtdm_faults[] = {
	{ "fw-on", "the firmware left translation on, its tables mapping only its boot device's page", "vtd", fw_on,
	  IOMMU_OK, IOMMU_OK },
	{ "fw-queue", "the firmware left translation, its invalidation queue and interrupt remapping on", "vtd",
	  fw_queue, IOMMU_OK, IOMMU_OK },
	{ "fw-pmr", "the firmware left protected memory regions over all memory, translation off", "vtd-pmr", fw_pmr,
	  IOMMU_OK, IOMMU_OK },
	{ "fw-liar", "the firmware left translation on with every device passed through (no protection)", "vtd",
	  fw_liar, IOMMU_OK, IOMMU_OK },
	{ "fw-queue-stuck", "the firmware left its queue running with a descriptor the unit never fetches", "vtd",
	  fw_queue_stuck, IOMMU_ERR_TIMEOUT, IOMMU_OK },
	{ "fw-no-latch", "protected memory regions on, and SRTP never latches a root pointer (RTPS stays clear)",
	  "vtd-pmr", fw_no_latch, IOMMU_ERR_TIMEOUT, IOMMU_OK },
	{ "te-stuck", "GSTS.TES never follows GCMD.TE: translation never turns on", NULL, inject_te_stuck,
	  IOMMU_ERR_TIMEOUT, IOMMU_OK },
	{ "ccmd-stuck", "CCMD.ICC never clears: a context-cache invalidation by register never completes", NULL,
	  inject_ccmd_stuck, IOMMU_ERR_TIMEOUT, IOMMU_OK },
	/* take-over and the first invalidation (by register) use no queue:
	 * the first queued operation (interrupt remapping on, a queued
	 * invalidation) meets it: the driver retries, is refused every time, and
	 * gives up (IOMMU_ERR_ABANDONED) */
	{ "queue-refused", "every invalidation descriptor raises a queue error (FSTS.IQE)", NULL, inject_queue_refused,
	  IOMMU_OK, IOMMU_OK },
	{ "cfi-ignored", "GCMD.CFI ignored, compatibility-format interrupts always pass (QEMU 7.2)", NULL,
	  inject_cfi_ignored, IOMMU_OK, IOMMU_OK },
	{ NULL },
};

const char *const vtdm_kind_names[] = { "vtd", "vtd-sm", "vtd-pmr", NULL };
