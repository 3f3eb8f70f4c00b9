/* The VT-d register-level model (see vtd_model.h). Register layout and
 * semantics from the VT-d specification, chapters 6, 9, 10 and 11, read
 * here independently of the driver: this file must not include
 * iommu/vtd/regs.h, so that a wrong offset or bit in the driver's reading
 * fails against the model instead of passing both. */
#include "model.h"

#include <string.h>

#include "core/base/platform.h"
#include "iommu/models/models.h"

#define R_VER 0x00
#define R_CAP 0x08
#define R_ECAP 0x10
#define R_GCMD 0x18
#define R_GSTS 0x1c
#define R_RTADDR 0x20
#define R_CCMD 0x28
#define R_FSTS 0x34
#define R_FECTL 0x38
#define R_FEDATA 0x3c
#define R_FEADDR 0x40
#define R_FEUADDR 0x44
#define R_PMEN 0x64
#define R_PLMBASE 0x68
#define R_PLMLIMIT 0x6c
#define R_PHMBASE 0x70
#define R_PHMLIMIT 0x78
#define R_IQH 0x80
#define R_IQT 0x88
#define R_IQA 0x90
#define R_ICS 0x9c
#define R_IRTA 0xb8

#define TE (1u << 31)
#define SRTP (1u << 30)
#define WBF (1u << 27)
#define QIE (1u << 26)
#define IRE (1u << 25)
#define SIRTP (1u << 24) /* and GSTS.IRTPS */
#define CFI (1u << 23)
#define PERSISTENT (TE | QIE | (1u << 25) | (1u << 29) | (1u << 28) | (1u << 23))

#define PMEN_EPM (1u << 31)
#define PMEN_PRS 1u
#define PMR_GRANULE 0x1fffffu

#define CTX_SLOTS (sizeof(((struct vtd_model *)0)->ctx_cache) / sizeof(((struct vtd_model *)0)->ctx_cache[0]))

static bool is32(uint64_t off)
{
	switch (off) {
	case R_VER:
	case R_GCMD:
	case R_GSTS:
	case R_FSTS:
	case R_FECTL:
	case R_FEDATA:
	case R_FEADDR:
	case R_FEUADDR:
	case R_ICS:
	case R_PMEN:
	case R_PLMBASE:
	case R_PLMLIMIT:
		return true;
	}
	return false;
}

/* The IOTLB descriptor and register: in scalable mode they name
 * second-stage and pass-through translations only (first-stage ones are
 * the PASID-based IOTLB's). */
static void tlb_flush(struct vtd_model *m, int g, uint16_t did, uint64_t addr, unsigned am)
{
	uint64_t first = addr >> 12, n = 1ull << am;
	for (unsigned i = 0; i < VTDM_CACHE; i++) {
		struct vtdm_tlb *t = &m->tlb[i];
		if (!t->valid || t->first)
			continue;
		if (g == 1 || (g == 2 && t->did == did) ||
		    (g == 3 && t->did == did && t->page >= (first & ~(n - 1)) && t->page < (first & ~(n - 1)) + n))
			t->valid = false;
	}
	if (g == 3)
		m->last_psi_addr = addr, m->last_psi_am = am;
	m->iotlb_invalidations++;
}

static const uint64_t *ctx_in_memory(struct vtd_model *m, uint16_t sid)
{
	const uint64_t *root = (const uint64_t *)(uintptr_t)(m->root & ~0xfffull);
	if (!root || !(root[2 * (sid >> 8)] & 1))
		return NULL;
	return (const uint64_t *)(uintptr_t)(root[2 * (sid >> 8)] & ~0xfffull) + 2 * (sid & 0xff);
}

/* Global and domain-selective (as global, like QEMU) drop everything;
 * device-selective drops the source's entry only when the domain id given
 * is the one it was cached under. In caching mode the model assumes the
 * worst of a device-selective invalidation that finds the entry not
 * present in memory: a request arrived meanwhile and the not-present entry
 * is now cached, under domain 0. */
static void ctx_flush(struct vtd_model *m, int g, uint16_t did, uint16_t sid)
{
	m->ctx_invalidations++;
	if (g != 3) {
		for (unsigned i = 0; i < CTX_SLOTS; i++)
			m->ctx_cache[i].valid = false;
		return;
	}
	unsigned i = sid % CTX_SLOTS;
	/* a scalable-mode context entry holds no domain id: the device's
	 * entry goes whatever the descriptor's DID */
	uint16_t cached_did = vtdm_scalable(m) ? did : (uint16_t)(m->ctx_cache[i].hi >> 8);
	if (m->ctx_cache[i].valid && (uint16_t)(m->ctx_cache[i].hi >> 48) == sid && cached_did == did)
		m->ctx_cache[i].valid = false;
	const uint64_t *ce = ctx_in_memory(m, sid);
	if ((m->cap & (1u << 7)) && !vtdm_scalable(m) && ce && !(ce[0] & 1) && !m->ctx_cache[i].valid) {
		m->ctx_cache[i].valid = true;
		m->ctx_cache[i].lo = 0;
		m->ctx_cache[i].hi = (uint64_t)sid << 48; /* domain 0 */
	}
}

static void update_ppf(struct vtd_model *m)
{
	bool any = false;
	for (unsigned i = 0; i < VTDM_NFR; i++)
		any |= m->frcd[i][1] >> 63;
	m->fsts = any ? m->fsts | 2u : m->fsts & ~2u;
}

/* The fault event (7.3): a record made while none was pending (PPF clear),
 * or PFO newly set, sends FEDATA to FEADDR, unremapped; while FECTL.IM
 * masks it, IP holds it until IM clears. */
#define FECTL_IM (1u << 31)
#define FECTL_IP (1u << 30)

static void fault_event(struct vtd_model *m)
{
	if (m->fectl & FECTL_IM) {
		m->fectl |= FECTL_IP;
		return;
	}
	m->fectl &= ~FECTL_IP;
	m->fault_events++;
	if (platform && platform->irq_send) /* xAPIC: destination in address 19:12, vector in data 7:0 */
		platform->irq_send((int)(m->fedata & 0xff), (m->feaddr >> 12) & 0xff);
}

static void iec_flush(struct vtd_model *m, bool by_index, uint16_t iidx, unsigned im)
{
	uint32_t first = iidx & ~((1u << im) - 1), n = 1u << im;
	for (unsigned i = 0; i < VTDM_IEC; i++)
		if (!by_index || (m->iec[i].index >= first && m->iec[i].index - first < n))
			m->iec[i].valid = false;
	m->iec_invalidations++;
	m->iec_global += !by_index;
}

static void queue_run(struct vtd_model *m)
{
	uint64_t *q = (uint64_t *)(uintptr_t)(m->iqa & ~0xfffull);
	bool dw = (m->iqa >> 11) & 1; /* 256-bit descriptors */
	unsigned shift = dw ? 5 : 4;
	uint64_t entries = (dw ? 128ull : 256ull) << (m->iqa & 7);
	bool sm = vtdm_scalable(m);
	while (m->iqh != m->iqt && !(m->fsts & (1u << 4)) && !m->stall_queue) {
		uint64_t *d = q + (dw ? 4 : 2) * (m->iqh >> shift);
		uint64_t lo = d[0], hi = d[1];
		bool ok = !m->refuse_queue;
		if (sm && !dw) { /* scalable mode treats 128-bit descriptors as invalid */
			m->narrow_in_sm++;
			m->forbidden++;
			ok = false;
		}
		switch (ok ? lo & 0xf : 0) {
		case 1:
			ctx_flush(m, (int)((lo >> 4) & 3), (uint16_t)(lo >> 16), (uint16_t)(lo >> 32));
			break;
		case 2:
			tlb_flush(m, (int)((lo >> 4) & 3), (uint16_t)(lo >> 16), hi & ~0xfffull, (unsigned)(hi & 0x3f));
			break;
		case 6: /* P_IOTLB: G (5:4), DID (31:16), PASID (51:32); ADDR, AM */
			if (!sm)
				ok = false;
			else
				vtdm_piotlb_flush(m, (unsigned)(lo >> 4) & 3, (uint16_t)(lo >> 16),
						  (uint32_t)(lo >> 32) & 0xfffff, hi & ~0xfffull,
						  (unsigned)(hi & 0x3f));
			break;
		case 7: /* PASID cache: G (5:4), DID (31:16), PASID (51:32) */
			if (!sm)
				ok = false;
			else
				vtdm_pc_flush(m, (unsigned)(lo >> 4) & 3, (uint16_t)(lo >> 16),
					      (uint32_t)(lo >> 32) & 0xfffff);
			break;
		case 4: /* IEC: G (4) index-selective, IM (31:27), IIDX (47:32) */
			iec_flush(m, (lo >> 4) & 1, (uint16_t)(lo >> 32), (unsigned)(lo >> 27) & 0x1f);
			break;
		case 5:
			if ((lo & 0x30) == 0x30 || !(lo & 0x30)) {
				ok = false; /* both SW and IF, or neither: refused */
			} else if (lo & 0x20) {
				*(volatile uint32_t *)(uintptr_t)(hi & ~3ull) = (uint32_t)(lo >> 32);
				m->waits++;
			}
			break;
		default:
			ok = false;
		}
		if (!ok) {
			m->fsts |= 1u << 4; /* IQE: the head stays at the bad descriptor */
			m->queue_errors++;
			return;
		}
		m->iqh = ((m->iqh >> shift) + 1) % entries << shift;
	}
}

static uint64_t reg64(struct vtd_model *m, uint64_t off)
{
	if (off == R_CAP)
		return m->cap;
	if (off == R_ECAP)
		return m->ecap;
	if (off == R_RTADDR)
		return m->rtaddr;
	if (off == R_CCMD)
		return m->ccmd;
	if (off == R_IQH)
		return m->iqh;
	if (off == R_IQT)
		return m->iqt;
	if (off == R_IQA)
		return m->iqa;
	if (off == R_IRTA)
		return m->irta;
	if (off == R_PHMBASE)
		return m->phmbase;
	if (off == R_PHMLIMIT)
		return m->phmlimit;
	if (off == VTDM_IRO)
		return 0; /* IVA is write-only */
	if (off == VTDM_IRO + 8)
		return m->iotlb;
	if (off >= VTDM_FRO && off < VTDM_FRO + 16 * VTDM_NFR)
		return m->frcd[(off - VTDM_FRO) / 16][(off & 8) >> 3];
	return 0;
}

static uint32_t reg32(struct vtd_model *m, uint64_t off)
{
	switch (off) {
	case R_VER:
		return 0x10;
	case R_GSTS:
		return m->gsts;
	case R_FSTS:
		return m->fsts;
	case R_FECTL:
		return m->fectl;
	case R_FEDATA:
		return m->fedata;
	case R_FEADDR:
		return m->feaddr;
	case R_FEUADDR:
		return m->feuaddr;
	case R_PMEN:
		return m->pmen;
	case R_PLMBASE:
		return m->plmbase;
	case R_PLMLIMIT:
		return m->plmlimit;
	}
	return 0; /* GCMD reads as 0, as on hardware */
}

static uint64_t model_read(void *ctx, uint64_t off, unsigned width)
{
	struct vtd_model *m = ctx;
	if (m->all_ones)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	if (is32(off)) {
		m->bad_width += width != 4;
		return reg32(m, off);
	}
	if (is32(off & ~7ull) || (width == 8 && (off & 7))) {
		m->bad_width++;
		return 0;
	}
	uint64_t v = reg64(m, off & ~7ull);
	return width == 8 ? v : (uint32_t)(v >> (8 * (off & 4)));
}

static void gcmd(struct vtd_model *m, uint32_t v)
{
	uint32_t changed = (v ^ m->gsts) & PERSISTENT;
	unsigned asks = __builtin_popcount(changed) + !!(v & SRTP) + !!(v & WBF) + !!(v & SIRTP);
	m->oneshot_writes += asks > 1;
	m->forbidden += asks > 1;
	uint32_t next = m->gsts;
	if (changed & TE) /* caches are left as they are: software invalidates */
		next ^= TE;
	if (changed & QIE) {
		if (v & QIE) {
			m->iqh = 0;
			next |= QIE;
		} else if (m->iqh == m->iqt) {
			next &= ~QIE;
		}
	}
	if (changed & IRE) {
		/* IEC is a queued descriptor only: IRE with the queue off, or
		 * before a table was latched, leaves the cache unmanageable */
		bool unready = (v & IRE) && (!(m->gsts & QIE) || !(m->gsts & SIRTP));
		m->ire_unready += unready;
		m->forbidden += unready;
		next ^= IRE;
	}
	if ((changed & CFI) && !m->ignore_cfi)
		next ^= CFI;
	if (v & SIRTP) { /* the entry cache stays until software invalidates */
		m->irt = m->irta;
		next |= SIRTP;
	}
	if (v & SRTP) { /* the caches too stay until software invalidates */
		if (m->no_latch) {
			next &= ~SRTP; /* RTPS clears on SRTP and never sets again */
		} else {
			m->root = m->rtaddr;
			next |= SRTP;
		}
	}
	m->gsts = (next & ~m->stuck_gsts) | (m->gsts & m->stuck_gsts);
}

static void model_write(void *ctx, uint64_t off, unsigned width, uint64_t val)
{
	struct vtd_model *m = ctx;
	m->writes++;
	if (is32(off)) {
		m->bad_width += width != 4;
		uint32_t v = (uint32_t)val;
		switch (off) {
		case R_GCMD:
			gcmd(m, v);
			break;
		case R_FSTS:
			m->fsts &= ~(v & 0x71u);
			break;
		case R_FECTL:
			m->fectl = (v & FECTL_IM) | (m->fectl & FECTL_IP);
			if (!(v & FECTL_IM) && (m->fectl & FECTL_IP))
				fault_event(m);
			break;
		case R_FEDATA:
			m->fedata = v;
			break;
		case R_FEADDR:
			m->feaddr = v;
			break;
		case R_FEUADDR:
			m->feuaddr = v;
			break;
		case R_PMEN: /* regions only where CAP.PLMR or PHMR; PRS follows EPM at once */
			if (m->cap & (3u << 5))
				m->pmen = (v & PMEN_EPM) ? PMEN_EPM | PMEN_PRS : 0;
			break;
		case R_PLMBASE: /* 2 MiB granules; ignored while the regions are enforced */
			if ((m->cap & (1u << 5)) && !(m->pmen & PMEN_PRS))
				m->plmbase = v & ~PMR_GRANULE;
			break;
		case R_PLMLIMIT:
			if ((m->cap & (1u << 5)) && !(m->pmen & PMEN_PRS))
				m->plmlimit = v | PMR_GRANULE;
			break;
		}
		return;
	}
	uint64_t base = off & ~7ull;
	if (is32(base) || (width == 8 && (off & 7))) {
		m->bad_width++;
		return;
	}
	uint64_t v = val;
	if (width == 4) { /* one half of a 64-bit register */
		uint64_t cur = reg64(m, base);
		v = off & 4 ? (cur & 0xffffffffull) | val << 32 : (cur & ~0xffffffffull) | (uint32_t)val;
	}
	if (base == R_RTADDR) {
		m->rtaddr = v;
	} else if (base == R_CCMD && (v >> 63)) {
		if (m->gsts & QIE) {
			m->reg_while_queued++;
			m->forbidden++;
			m->ccmd = v; /* ICC stays set: the invalidation never runs */
		} else if (m->ignore_ccmd) {
			m->ccmd = v;
		} else {
			int g = (int)((v >> 61) & 3);
			ctx_flush(m, g, (uint16_t)v, (uint16_t)(v >> 16));
			m->ccmd = (v & ~(1ull << 63) & ~(3ull << 59)) | (uint64_t)g << 59;
		}
	} else if (base == R_IQT) {
		m->iqt = v & 0x7fff0;
		if (m->gsts & QIE)
			queue_run(m);
	} else if (base == R_IRTA) {
		m->irta = v;
	} else if ((base == R_PHMBASE || base == R_PHMLIMIT) && (m->cap & (1u << 6)) && !(m->pmen & PMEN_PRS)) {
		if (base == R_PHMBASE)
			m->phmbase = v & ~(uint64_t)PMR_GRANULE;
		else
			m->phmlimit = v | PMR_GRANULE;
	} else if (base == R_IQA) {
		m->iqa = v;
		m->iqh = m->iqt = 0; /* as Intel's units do */
	} else if (base == VTDM_IRO) {
		m->iva = v;
	} else if (base == VTDM_IRO + 8 && (v >> 63)) {
		if (m->gsts & QIE) {
			m->reg_while_queued++;
			m->forbidden++;
			m->iotlb = v;
		} else {
			int g = (int)((v >> 60) & 3);
			tlb_flush(m, g, (uint16_t)(v >> 32), m->iva & ~0xfffull, (unsigned)(m->iva & 0x3f));
			m->iotlb = (v & ~(1ull << 63) & ~(3ull << 57)) | (uint64_t)g << 57;
		}
	} else if (base >= VTDM_FRO && base < VTDM_FRO + 16 * VTDM_NFR && (base & 8)) {
		unsigned i = (unsigned)(base - VTDM_FRO) / 16;
		if (v >> 63)
			m->frcd[i][1] &= ~(1ull << 63);
		update_ppf(m);
	}
}

static const struct regwin_model_ops ops = { model_read, model_write };

void vtdm_init(struct vtd_model *m, uint64_t cap, uint64_t ecap)
{
	memset(m, 0, sizeof(*m));
	/* the model's own fault-recording and IOTLB register offsets */
	cap &= ~(0x3ffull << 24) & ~(0xffull << 40);
	cap |= (uint64_t)(VTDM_FRO / 16) << 24 | (uint64_t)(VTDM_NFR - 1) << 40;
	ecap &= ~(0x3ffull << 8);
	ecap |= (uint64_t)(VTDM_IRO / 16) << 8;
	m->cap = cap, m->ecap = ecap;
	m->fectl = 1u << 31;
	regwin_init_model(&m->win, "vtd-model", VTDM_WINDOW, false, &ops, m);
}

bool vtdm_fault(struct vtd_model *m, uint16_t sid, uint64_t iova, bool write, unsigned reason)
{
	for (unsigned k = 0; k < VTDM_NFR; k++) {
		unsigned i = (m->next_frcd + k) % VTDM_NFR;
		if (m->frcd[i][1] >> 63)
			continue;
		m->frcd[i][0] = iova & ~0xfffull;
		m->frcd[i][1] = sid | (uint64_t)reason << 32 | (uint64_t)!write << 62 | 1ull << 63;
		bool pending = m->fsts & 2u;
		if (!pending)
			m->fsts = (m->fsts & ~0xff00u) | i << 8;
		m->next_frcd = (i + 1) % VTDM_NFR;
		update_ppf(m);
		if (!pending)
			fault_event(m);
		return false;
	}
	if (!(m->fsts & 1u)) {
		m->fsts |= 1u; /* PFO */
		fault_event(m);
	}
	return false;
}

/* Interrupt faults (7.1.1, 9.9): FI's bits 63:48 the interrupt_index, the
 * request a write (T clear). */
static bool ir_fault(struct vtd_model *m, uint16_t sid, uint16_t index, unsigned reason)
{
	return vtdm_fault(m, sid, (uint64_t)index << 48, true, reason);
}

/* The IRTE for `index`: the cached copy while there is one (hardware may
 * keep it until an IEC invalidation covers it), else the table in memory,
 * present entries cached. */
static void irte_fetch(struct vtd_model *m, uint16_t index, uint64_t *lo, uint64_t *hi)
{
	for (unsigned i = 0; i < VTDM_IEC; i++)
		if (m->iec[i].valid && m->iec[i].index == index) {
			*lo = m->iec[i].lo, *hi = m->iec[i].hi;
			return;
		}
	const uint64_t *t = (const uint64_t *)(uintptr_t)(m->irt & ~0xfffull);
	*lo = t[2 * (size_t)index], *hi = t[2 * (size_t)index + 1];
	if (*lo & 1) {
		unsigned i = m->iec_next++ % VTDM_IEC;
		m->iec[i].valid = true, m->iec[i].index = index, m->iec[i].lo = *lo, m->iec[i].hi = *hi;
	}
}

/* SVT (83:82) and SQ (81:80) against the requester (9.10, table 26). */
static bool sid_admitted(uint64_t hi, uint16_t sid)
{
	unsigned svt = (hi >> 18) & 3, sq = (hi >> 16) & 3;
	uint16_t want = (uint16_t)hi;
	if (svt == 0)
		return true;
	if (svt == 2) /* bus range: SID 15:8 the first bus, 7:0 the last */
		return (sid >> 8) >= (want >> 8) && (sid >> 8) <= (want & 0xff);
	static const uint16_t ignored[] = { 0, 1u << 2, 3u << 1, 7u };
	return ((sid ^ want) & ~ignored[sq]) == 0;
}

bool vtdm_msi(struct vtd_model *m, uint16_t sid, uint64_t addr, uint32_t data, uint8_t *vector, uint32_t *dest)
{
	bool remappable = (addr >> 4) & 1;
	/* CFIS lets compatibility format through only in xAPIC mode (IRTA.EIME
	 * clear): with EIME it is blocked whatever CFI says (5.1.4) */
	bool compat_ok = ((m->gsts & CFI) && !((m->irt >> 11) & 1)) || m->ignore_cfi;
	if (!(m->gsts & IRE) || (!remappable && compat_ok)) {
		*vector = (uint8_t)data;
		*dest = (uint32_t)(addr >> 12) & 0xff;
		return true;
	}
	/* compatibility format with CFIS clear: blocked (5.1.4); the index
	 * field means nothing for it and is recorded as 0 */
	if (!remappable)
		return ir_fault(m, sid, 0, 0x25);
	uint32_t index = (uint32_t)((addr >> 5) & 0x7fff) | (uint32_t)((addr >> 2) & 1) << 15;
	bool shv = (addr >> 3) & 1;
	if ((addr >> 32) || (shv && (data >> 16)))
		return ir_fault(m, sid, (uint16_t)index, 0x20);
	if (shv)
		index = (index + (data & 0xffff)) & 0xffff;
	if (index >= 2u << (m->irt & 0xf))
		return ir_fault(m, sid, (uint16_t)index, 0x21);
	uint64_t lo, hi;
	irte_fetch(m, (uint16_t)index, &lo, &hi);
	bool fpd = (lo >> 1) & 1, eime = (m->irt >> 11) & 1;
	unsigned reason = 0;
	if (!(lo & 1))
		reason = 0x22;
	/* reserved: 14:12 and 31:24 low, 127:84 high; DLM 3 and 6; SVT 3;
	 * IM (15) posted, not modelled; xAPIC DST keeps only 15:8 */
	else if ((lo & 0xff00f000ull) || (hi >> 20) || ((hi >> 18) & 3) == 3 || ((lo >> 5) & 7) == 3 ||
		 ((lo >> 5) & 7) == 6 || (!eime && (lo >> 32) & 0xffff00ffull))
		reason = 0x24;
	else if (!sid_admitted(hi, sid))
		reason = 0x26;
	if (reason)
		return fpd ? false : ir_fault(m, sid, (uint16_t)index, reason);
	*vector = (uint8_t)(lo >> 16);
	*dest = eime ? (uint32_t)(lo >> 32) : (uint32_t)(lo >> 40) & 0xff;
	return true;
}

struct vtdm_tlb *vtdm_tlb_find(struct vtd_model *m, uint16_t did, bool first, uint32_t pasid, uint64_t iova)
{
	for (unsigned i = 0; i < VTDM_CACHE; i++) {
		struct vtdm_tlb *t = &m->tlb[i];
		if (t->valid && t->did == did && t->first == first && t->pasid == pasid && t->page == iova >> 12)
			return t;
	}
	return NULL;
}

void vtdm_tlb_add(struct vtd_model *m, const struct vtdm_tlb *t)
{
	m->tlb[m->tlb_next++ % VTDM_CACHE] = *t;
}

/* Inside a protected memory region the firmware enforces (PMEN.PRS)? */
static bool pmr_blocks(const struct vtd_model *m, uint64_t a)
{
	if (!(m->pmen & PMEN_PRS))
		return false;
	if ((m->cap & (1u << 5)) && m->plmlimit >= m->plmbase && a >= m->plmbase && a <= m->plmlimit)
		return true;
	return (m->cap & (1u << 6)) && m->phmlimit >= m->phmbase && a >= m->phmbase && a <= m->phmlimit;
}

bool vtdm_translate(struct vtd_model *m, uint16_t sid, uint64_t iova, bool write, uint64_t *phys)
{
	/* untranslated DMA to a protected region is blocked, with no fault
	 * record; with translation on the model leaves it to the tables (the
	 * spec lets a unit block or not) */
	if (!(m->gsts & TE) && pmr_blocks(m, iova)) {
		m->pmr_blocked++;
		return false;
	}
	if (!(m->gsts & TE)) {
		*phys = iova;
		return true;
	}
	if (vtdm_scalable(m))
		return vtdm_sm_translate(m, sid, iova, write, phys);
	unsigned slot = sid % CTX_SLOTS;
	uint64_t lo, hi;
	if (m->ctx_cache[slot].valid && (uint16_t)(m->ctx_cache[slot].hi >> 48) == sid) {
		lo = m->ctx_cache[slot].lo, hi = m->ctx_cache[slot].hi & 0xffffffffffffull;
		if (!(lo & 1))
			return vtdm_fault(m, sid, iova, write, 2); /* a cached not-present entry */
	} else {
		const uint64_t *root = (const uint64_t *)(uintptr_t)(m->root & ~0xfffull);
		uint64_t re = root[2 * (sid >> 8)];
		if (!(re & 1))
			return vtdm_fault(m, sid, iova, write, 1);
		const uint64_t *ce = (const uint64_t *)(uintptr_t)(re & ~0xfffull) + 2 * (sid & 0xff);
		lo = ce[0], hi = ce[1];
		if (!(lo & 1))
			return vtdm_fault(m, sid, iova, write, 2);
		unsigned aw = hi & 7, tt = (lo >> 2) & 3;
		unsigned sagaw = (m->cap >> 8) & 0x1f;
		unsigned largest = sagaw & 8 ? 3 : sagaw & 4 ? 2 : 1;
		if (aw > 4 || !(sagaw & (1u << aw)) || tt == 1 || tt == 3 || (tt == 2 && !(m->ecap & (1u << 6))) ||
		    (tt == 2 && aw != largest) || (hi & 0xffffffffff000080ull) || (lo & 0xff0))
			return vtdm_fault(m, sid, iova, write, 3);
		m->ctx_cache[slot].valid = true;
		m->ctx_cache[slot].lo = lo;
		m->ctx_cache[slot].hi = hi | (uint64_t)sid << 48;
	}
	if (((lo >> 2) & 3) == 2) {
		*phys = iova;
		return true;
	}
	uint16_t did = (uint16_t)(hi >> 8);
	unsigned levels = (hi & 7) == 2 ? 4 : 3;
	if (iova >> (levels == 4 ? 48 : 39))
		return vtdm_fault(m, sid, iova, write, 4);
	struct vtdm_tlb *hit = vtdm_tlb_find(m, did, false, 0, iova); /* tagged by domain, as on hardware */
	if (hit) {
		if (!(hit->perm & (write ? 2 : 1)))
			return vtdm_fault(m, sid, iova, write, write ? 5 : 6);
		*phys = hit->phys << 12 | (iova & 0xfff);
		return true;
	}
	unsigned perm, reason = vtdm_ss_walk(lo & ~0xfffull, levels, iova, write, phys, &perm);
	if (reason)
		return vtdm_fault(m, sid, iova, write, reason);
	vtdm_tlb_add(m, &(struct vtdm_tlb){ true, sid, did, iova >> 12, *phys >> 12, perm });
	return true;
}

unsigned vtdm_ss_walk(uint64_t top, unsigned levels, uint64_t iova, bool write, uint64_t *phys, unsigned *perm)
{
	const uint64_t *t = (const uint64_t *)(uintptr_t)top;
	for (unsigned l = levels; l >= 1; l--) {
		unsigned shift = 12 + 9 * (l - 1);
		uint64_t e = t[(iova >> shift) & 511];
		if (!(e & 3))
			return write ? 5 : 6;
		if (l == 1 || (e & 0x80)) {
			if ((l == 4 && (e & 0x80)) || (e & (1ull << 11)))
				return 12;
			if (!(e & (write ? 2 : 1)))
				return write ? 5 : 6;
			uint64_t mask = (1ull << shift) - 1;
			*phys = ((e & 0x000ffffffffff000ull) & ~mask) | (iova & mask);
			*perm = (unsigned)(e & 3);
			return 0;
		}
		t = (const uint64_t *)(uintptr_t)(e & 0x000ffffffffff000ull);
	}
	return 7;
}
