/* The event queue (spec 3.5, 7.3): records between the CONS the driver
 * keeps and the PROD the unit advances, decoded into faults (stream id,
 * input address or, for a stage-2 fault, the IPA, read or write, the
 * event type as the reason, stage 2 said in the words) and consumed by writing CONS back. A full queue drops events and toggles
 * EVENTQ_PROD.OVFLG (7.4); the driver reports the loss and acknowledges it
 * by copying the flag to EVENTQ_CONS.OVACKFLG. Nothing here waits: QEMU
 * records an event per 4-byte chunk of a faulting access, so a caller
 * counts "at least one". */
#include <stdio.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "driver.h"

static const struct {
	unsigned id;
	const char *name, *what;
} events[] = {
	{ EVT_F_UUT, "F_UUT", "a transaction the unit does not support" },
	{ EVT_C_BAD_STREAMID, "C_BAD_STREAMID", "a stream id beyond the stream table" },
	{ EVT_F_STE_FETCH, "F_STE_FETCH", "the STE could not be fetched" },
	{ EVT_C_BAD_STE, "C_BAD_STE", "an STE that is invalid or not allowed" },
	{ EVT_F_BAD_ATS_TREQ, "F_BAD_ATS_TREQ", "an ATS translation request not allowed" },
	{ EVT_F_STREAM_DISABLED, "F_STREAM_DISABLED", "the stream's translation is disabled" },
	{ EVT_F_TRANSL_FORBIDDEN, "F_TRANSL_FORBIDDEN", "a translated transaction the STE forbids" },
	{ EVT_C_BAD_SUBSTREAMID, "C_BAD_SUBSTREAMID", "a substream id beyond the CD table" },
	{ EVT_F_CD_FETCH, "F_CD_FETCH", "the context descriptor could not be fetched" },
	{ EVT_C_BAD_CD, "C_BAD_CD", "a context descriptor that is invalid or not allowed" },
	{ EVT_F_WALK_EABT, "F_WALK_EABT", "an external abort walking the tables" },
	{ EVT_F_TRANSLATION, "F_TRANSLATION", "no valid descriptor for the address" },
	{ EVT_F_ADDR_SIZE, "F_ADDR_SIZE", "an address beyond the configured size" },
	{ EVT_F_ACCESS, "F_ACCESS", "a descriptor with the access flag clear" },
	{ EVT_F_PERMISSION, "F_PERMISSION", "an access the descriptor's permissions forbid" },
	{ EVT_F_TLB_CONFLICT, "F_TLB_CONFLICT", "conflicting TLB entries" },
	{ EVT_F_CFG_CONFLICT, "F_CFG_CONFLICT", "conflicting configuration cache entries" },
	{ EVT_E_PAGE_REQUEST, "E_PAGE_REQUEST", "a speculative page request" },
	{ EVT_F_VMS_FETCH, "F_VMS_FETCH", "the VMS could not be fetched" },
};

static int find(unsigned id)
{
	for (size_t i = 0; i < ARRAY_SIZE(events); i++)
		if (events[i].id == id)
			return (int)i;
	return -1;
}

const char *smmuv3_event_name(unsigned id)
{
	int i = find(id);
	if (i >= 0)
		return events[i].name;
	return id >= 0xe0 && id <= 0xef ? "IMPLEMENTATION DEFINED event" : "event type not known to iommon";
}

/* Stage 2's words for the faults a stage-2 walk records (7.3.12-7.3.16 with S2=1) */
static const char *s2_what(unsigned id)
{
	switch (id) {
	case EVT_F_TRANSLATION:
		return "stage 2: no valid descriptor for the IPA";
	case EVT_F_ADDR_SIZE:
		return "stage 2: an IPA or output address beyond the configured size";
	case EVT_F_ACCESS:
		return "stage 2: a descriptor with the access flag clear";
	case EVT_F_PERMISSION:
		return "stage 2: an access S2AP forbids";
	case EVT_F_WALK_EABT:
		return "stage 2: an external abort walking the tables";
	}
	return NULL;
}

/* The fault events with an input address and a direction (7.3.12-7.3.16) */
static bool has_address(unsigned id)
{
	return id == EVT_F_WALK_EABT || id == EVT_F_TRANSLATION || id == EVT_F_ADDR_SIZE || id == EVT_F_ACCESS ||
	       id == EVT_F_PERMISSION || id == EVT_F_TLB_CONFLICT;
}

static struct iommu_fault decode(const struct smmuv3 *s, const uint64_t *e)
{
	unsigned id = EVT_ID(e[0]);
	int k = find(id);
	bool addr = has_address(id);
	bool read = e[1] & EVT1_RNW;
	/* a stage-2 fault: the IPA field says where stage 2 was asked; the
	 * input address is the IPA too when stage 1 does not translate, the
	 * IOVA under nested translation */
	bool s2 = addr && (e[1] & EVT1_S2) && s2_what(id);
	uint64_t ipa = e[3] & EVT3_IPA, at = s2 && !s->nested ? ipa : e[2];
	struct iommu_fault f = { .kind = IOMMU_FAULT_OTHER,
				 .sid = (uint16_t)EVT_SID(e[0]),
				 .reason = id,
				 .read = read,
				 .addr = addr ? at & ~((1ull << s->granule_bits) - 1) : 0,
				 .sid_known = true,
				 .addr_known = addr,
				 .dir_known = addr,
				 .why = s2	 ? s2_what(id)
					: k >= 0 ? events[k].what
						 : smmuv3_event_name(id),
				 .stage = addr ? (s2 ? 2 : 1) : 0,
				 .ipa = s2 ? ipa : 0,
				 .t_seen = rdtsc() };
	if (id == EVT_F_TRANSLATION)
		f.kind = IOMMU_FAULT_NOT_PRESENT;
	else if (id == EVT_F_PERMISSION && !read)
		f.kind = IOMMU_FAULT_WRITE_DENIED;
	return f;
}

bool smmuv3_op_fault_pending(struct iommu *io)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	if (!io->taken || !s->evtq)
		return false;
	uint32_t prod = smmu_r32(s, SMMU_EVENTQ_PROD);
	return prod != ~0u && (q_ptr(prod, s->evtq_log2) != q_ptr(s->evtq_cons, s->evtq_log2) ||
			       (prod & EVENTQ_PROD_OVFLG) != (s->evtq_cons & EVENTQ_CONS_OVACKFLG));
}

size_t smmuv3_op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	*overflow = false;
	if (!io->taken || !s->evtq)
		return 0;
	uint32_t prod = smmu_r32(s, SMMU_EVENTQ_PROD);
	if (prod == ~0u)
		return 0;
	size_t n = 0;
	mfence(); /* the records before PROD said they were there */
	while (n < max && q_ptr(s->evtq_cons, s->evtq_log2) != q_ptr(prod, s->evtq_log2)) {
		const uint64_t *e = s->evtq + (size_t)q_idx(s->evtq_cons, s->evtq_log2) * EVT_DWORDS;
		if (!s->coherent) /* the unit wrote the record past the CPU's caches (CR1: non-cacheable) */
			cache_invalidate(e, EVT_DWORDS * sizeof(*e));
		out[n++] = decode(s, e);
		s->evtq_cons = (s->evtq_cons & EVENTQ_CONS_OVACKFLG) | q_next(s->evtq_cons, s->evtq_log2);
	}
	if ((prod & EVENTQ_PROD_OVFLG) != (s->evtq_cons & EVENTQ_CONS_OVACKFLG)) {
		*overflow = true;
		s->events_lost++;
		s->evtq_cons ^= EVENTQ_CONS_OVACKFLG; /* acknowledged */
	}
	smmu_w32(s, SMMU_EVENTQ_CONS, s->evtq_cons);
	return n;
}
