/* The command queue (spec 3.5, 4): commands written at PROD, each
 * submission ended by CMD_SYNC with no completion signal (CS=0b00) and
 * done when CONS has reached PROD (4.7: a CMD_SYNC is consumed only once
 * everything before it is complete), polled with a deadline: QEMU 7.2
 * runs the queue inside the PROD write and signals a SYNC only by an
 * interrupt we do not use.
 *
 * A command the unit refuses stops the queue with GERROR.CMDQ_ERR active
 * and CMDQ_CONS.ERR saying why, CONS at the command (7.1). CERROR_ILL: the
 * command is overwritten with a CMD_SYNC (skipped) and the submission
 * reported as failed. CERROR_ABT (its fetch aborted) and
 * CERROR_ATC_INV_SYNC (an ATS invalidation behind a SYNC timed out) are
 * retried a few times. Either way GERRORN is toggled to acknowledge, and
 * the unit resumes at CONS.
 *
 * The invalidations of the device's translations are the kinds the
 * catalogue names and times, stage 1's (TLBI_NH_*, by ASID) or, while the
 * device translates at stage 2, stage 2's (TLBI_S2_IPA, TLBI_S12_VMALL, by
 * VMID: 4.4 keeps the TLBI_NH_* away from stage-2 entries), or nested,
 * stage 1's within the device's VMID and TLBI_S12_VMALL; the
 * configuration invalidations (CFGI_*) and CMD_SYNC alone are offered to
 * it as functions. */
#include <stdio.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/timing.h"
#include "driver.h"

#define RETRIES 3

static const struct iommu_inval_kind all_kinds[] = {
	{ "tlbi-va", "page", "command" },	     /* TLBI_NH_VA per page, Leaf=1 */
	{ "tlbi-va-range", "range", "command" },     /* TLBI_NH_VA range form (IDR3.RIL) */
	{ "tlbi-asid", "domain", "command" },	     /* TLBI_NH_ASID */
	{ "tlbi-all", "global", "command" },	     /* TLBI_NSNH_ALL: both stages */
	{ "tlbi-s2-ipa", "page", "command" },	     /* TLBI_S2_IPA per page, Leaf=1 */
	{ "tlbi-s2-ipa-range", "range", "command" }, /* TLBI_S2_IPA range form (IDR3.RIL) */
	{ "tlbi-s12-vmall", "domain", "command" },   /* TLBI_S12_VMALL */
};
enum { K_VA, K_VA_RANGE, K_ASID, K_ALL, K_S2_IPA, K_S2_IPA_RANGE, K_S12_VMALL, NKINDS };

void smmuv3_kinds_setup(struct smmuv3 *s)
{
	/* nested: stage 1's by ASID within the VMID, and the VMID's whole
	 * (TLBI_S2_IPA does not reach entries that combine both stages, 4.4.2.3) */
	static const unsigned s1[] = { K_VA, K_VA_RANGE, K_ASID, K_ALL, NKINDS },
			      s2[] = { K_S2_IPA, K_S2_IPA_RANGE, K_S12_VMALL, K_ALL, NKINDS },
			      nested[] = { K_VA, K_VA_RANGE, K_ASID, K_S12_VMALL, K_ALL, NKINDS };
	const unsigned *k = s->nested ? nested : s->stage == 2 ? s2 : s1;
	s->io.nkinds = 0;
	for (size_t i = 0; k[i] != NKINDS; i++)
		if ((k[i] != K_VA_RANGE && k[i] != K_S2_IPA_RANGE) || s->ril)
			s->kinds[s->io.nkinds++] = all_kinds[k[i]];
}

void smmuv3_gerror_ack(struct smmuv3 *s, uint32_t bits)
{
	uint32_t g = smmu_r32(s, SMMU_GERROR), n = smmu_r32(s, SMMU_GERRORN);
	uint32_t active = (g ^ n) & bits;
	if (active)
		smmu_w32(s, SMMU_GERRORN, n ^ active);
}

static const char *cerror_name(unsigned e)
{
	static const char *const text[] = { "CERROR_NONE", "CERROR_ILL", "CERROR_ABT", "CERROR_ATC_INV_SYNC" };
	return e < 4 ? text[e] : "a CMDQ_CONS.ERR not known to iommon";
}

static void put(struct smmuv3 *s, const uint64_t c[CMD_DWORDS])
{
	uint64_t *slot = s->cmdq + (size_t)q_idx(s->cmdq_prod, s->cmdq_log2) * CMD_DWORDS;
	slot[0] = c[0];
	slot[1] = c[1];
	smmuv3_push(slot, 16, s);
	s->cmdq_prod = q_next(s->cmdq_prod, s->cmdq_log2);
}

/* GERROR.CMDQ_ERR active: the command at CONS handled as the error asks.
 * False when it cannot be ridden out (too many retries). */
static bool cmdq_error(struct smmuv3 *s, uint32_t cons, unsigned *retries, char *why, size_t n)
{
	unsigned err = CMDQ_CONS_ERR(cons);
	uint64_t *bad = s->cmdq + (size_t)q_idx(cons, s->cmdq_log2) * CMD_DWORDS;
	s->cmd_errors++;
	s->last_cerror = err;
	if (!why[0])
		snprintf(why, n, "smmuv3: %s at command %u (opcode 0x%02x)%s", cerror_name(err),
			 q_idx(cons, s->cmdq_log2), (unsigned)(bad[0] & 0xff),
			 err == CERROR_ILL ? ": skipped, the queue resumed" : "");
	if (err == CERROR_ILL || err > CERROR_ATC_INV_SYNC) {
		/* skipped: a CMD_SYNC in its place (7.1: software may correct the command) */
		bad[0] = CMD_SYNC | CMD_SYNC_CS_NONE;
		bad[1] = 0;
		smmuv3_push(bad, 16, s);
	} else if (++*retries > RETRIES) {
		return false;
	}
	mfence();
	smmuv3_gerror_ack(s, GERROR_CMDQ_ERR);
	return true;
}

/* `n` commands, then CMD_SYNC; done when CONS reaches PROD. */
static const char *submit_batch(struct smmuv3 *s, const uint64_t (*c)[CMD_DWORDS], size_t n)
{
	static char why[160];
	why[0] = '\0';
	for (size_t i = 0; i < n; i++)
		put(s, c[i]);
	const uint64_t sync[CMD_DWORDS] = { CMD_SYNC | CMD_SYNC_CS_NONE, 0 };
	put(s, sync);
	mfence();
	smmu_w32(s, SMMU_CMDQ_PROD, s->cmdq_prod);
	struct deadline dl = deadline_after_us(SMMUV3_DEADLINE_US);
	unsigned retries = 0;
	for (;;) {
		uint32_t cons = smmu_r32(s, SMMU_CMDQ_CONS);
		if (cons == ~0u)
			return iommu_fail(&s->io, IOMMU_ERR_UNUSABLE, "smmuv3: CMDQ_CONS reads all ones");
		if (q_ptr(cons, s->cmdq_log2) == s->cmdq_prod)
			break;
		if ((smmu_r32(s, SMMU_GERROR) ^ smmu_r32(s, SMMU_GERRORN)) & GERROR_CMDQ_ERR) {
			if (!cmdq_error(s, cons, &retries, why, sizeof(why)))
				return iommu_fail(&s->io, IOMMU_ERR_HARDWARE, why);
			dl = deadline_after_us(SMMUV3_DEADLINE_US);
			continue;
		}
		if (deadline_passed(&dl)) {
			snprintf(why, sizeof(why),
				 "smmuv3: the command queue did not drain within " SMMUV3_DEADLINE_TEXT
				 " (CMDQ_PROD 0x%x, CMDQ_CONS 0x%x)",
				 s->cmdq_prod, cons);
			return iommu_fail(&s->io, IOMMU_ERR_TIMEOUT, why);
		}
		cpu_relax();
	}
	return why[0] ? iommu_fail(&s->io, IOMMU_ERR_HARDWARE, why) : NULL;
}

const char *smmuv3_submit(struct smmuv3 *s, const uint64_t (*c)[CMD_DWORDS], size_t n)
{
	if (!s->cmdq || !(smmu_r32(s, SMMU_CR0ACK) & CR0_CMDQEN))
		return iommu_fail(&s->io, IOMMU_ERR_STATE, "smmuv3: the command queue is not running");
	size_t batch = ((size_t)1 << s->cmdq_log2) - 1; /* with its CMD_SYNC, never a full queue */
	do {
		size_t k = n < batch ? n : batch;
		const char *e = submit_batch(s, c, k);
		if (e)
			return e;
		c += k, n -= k;
	} while (n);
	return NULL;
}

const char *smmuv3_sync(struct smmuv3 *s)
{
	return smmuv3_submit(s, NULL, 0);
}

const char *smmuv3_cfgi_ste(struct smmuv3 *s, uint32_t sid)
{
	/* Leaf=0: a level-1 descriptor cached for the stream (a level-2 table
	 * just made) is dropped too (4.3.1) */
	const uint64_t c[1][CMD_DWORDS] = { { CMD_CFGI_STE | CMD_SID(sid), 0 } };
	return smmuv3_submit(s, c, 1);
}

const char *smmuv3_cfgi_cd(struct smmuv3 *s, uint32_t sid)
{
	/* SubstreamID 0, the only one (S1CDMax 0) */
	const uint64_t c[1][CMD_DWORDS] = { { CMD_CFGI_CD | CMD_SID(sid), CMD_LEAF } };
	return smmuv3_submit(s, c, 1);
}

const char *smmuv3_cfgi_all(struct smmuv3 *s)
{
	const uint64_t c[1][CMD_DWORDS] = { { CMD_CFGI_STE_RANGE, CMD_STE_RANGE(31) } };
	return smmuv3_submit(s, c, 1);
}

/* The VMID stage 1's commands name: the device's under nested
 * translation, else 0 (a stage-1 STE's S2VMID, which tags its entries
 * where the unit has stage 2). */
static unsigned s1_vmid(const struct smmuv3 *s)
{
	return s->nested ? s->vmid : 0;
}

const char *smmuv3_tlbi_tag(struct smmuv3 *s, unsigned asid, unsigned vmid)
{
	const uint64_t c[1][CMD_DWORDS] = { { s->stage == 1 ? CMD_TLBI_NH_ASID | CMD_ASID(asid) | CMD_VMID(vmid)
							    : CMD_TLBI_S12_VMALL | CMD_VMID(vmid),
					      0 } };
	return smmuv3_submit(s, c, 1);
}

const char *smmuv3_tlbi_nh_all(struct smmuv3 *s, unsigned vmid)
{
	const uint64_t c[1][CMD_DWORDS] = { { CMD_TLBI_NH_ALL | CMD_VMID(vmid), 0 } };
	return smmuv3_submit(s, c, 1);
}

const char *smmuv3_tlbi_asid(struct smmuv3 *s)
{
	const uint64_t c[1][CMD_DWORDS] = { { CMD_TLBI_NH_ASID | CMD_ASID(s->asid) | CMD_VMID(s1_vmid(s)), 0 } };
	return smmuv3_submit(s, c, 1);
}

const char *smmuv3_tlbi_vmall(struct smmuv3 *s)
{
	const uint64_t c[1][CMD_DWORDS] = { { CMD_TLBI_S12_VMALL | CMD_VMID(s->vmid), 0 } };
	return smmuv3_submit(s, c, 1);
}

const char *smmuv3_tlbi_domain(struct smmuv3 *s)
{
	return s->stage == 1 ? smmuv3_tlbi_asid(s) : smmuv3_tlbi_vmall(s);
}

const char *smmuv3_cfgi_ttb(struct smmuv3 *s)
{
	const char *e = NULL;
	for (size_t i = 0; !e && i < s->ndut_sids; i++)
		e = s->stage == 1 ? smmuv3_cfgi_cd(s, s->dut_sids[i]) : smmuv3_cfgi_ste(s, s->dut_sids[i]);
	return e;
}

const char *smmuv3_invalidate_everything(struct smmuv3 *s)
{
	const uint64_t c[2][CMD_DWORDS] = { { CMD_CFGI_STE_RANGE, CMD_STE_RANGE(31) }, { CMD_TLBI_NSNH_ALL, 0 } };
	return smmuv3_submit(s, c, 2);
}

const char *smmuv3_illegal_command_probe(struct smmuv3 *s, bool *reported)
{
	/* opcode 0x00 is not a command (4.1.1) */
	const uint64_t c[1][CMD_DWORDS] = { { 0x00, 0 } };
	unsigned before = s->cmd_errors;
	const char *e = smmuv3_submit(s, c, 1);
	*reported = s->cmd_errors > before && s->last_cerror == CERROR_ILL;
	if (!e && !*reported)
		return iommu_fail(&s->io, IOMMU_ERR_HARDWARE, "smmuv3: an illegal command was accepted silently");
	if (e && s->io.err != IOMMU_ERR_HARDWARE)
		return e; /* the queue did not come back */
	return smmuv3_sync(s);
}

/* TLBI_NH_VA (stage 1, the ASID) or TLBI_S2_IPA (stage 2, the VMID; the
 * same address and range fields, 4.4.1.1 and 4.4.2.3) of every granule
 * page in [iova, iova + size): page by page, or in the range form ((NUM
 * + 1) * 2^SCALE pages of TG's size from an address aligned to them)
 * where IDR3.RIL. */
static const char *tlbi_va(struct smmuv3 *s, uint64_t iova, uint64_t size, bool range)
{
	enum { MAXC = 64 };
	uint64_t c[MAXC][CMD_DWORDS];
	uint64_t g = 1ull << s->granule_bits;
	uint64_t pages = (size + (iova & (g - 1)) + g - 1) >> s->granule_bits;
	iova &= ~(g - 1);
	unsigned tg = s->granule_bits == 12 ? 1 : s->granule_bits == 14 ? 2 : 3;
	size_t k = 0;
	while (pages) {
		uint64_t w0 = s->stage == 2 ? CMD_TLBI_S2_IPA | CMD_VMID(s->vmid)
					    : CMD_TLBI_NH_VA | CMD_ASID(s->asid) | CMD_VMID(s1_vmid(s));
		uint64_t w1 = (iova & CMD_TLBI_ADDR) | CMD_LEAF;
		uint64_t covered = 1;
		unsigned scale = (unsigned)__builtin_ctzll(pages);
		uint64_t num = (pages >> scale) & 0x1f; /* odd: at least 1 */
		/* NUM 0, SCALE 0 with TTL 0 is reserved in the range form: a
		 * single page goes in the plain one */
		if (range && (num > 1 || scale > 0)) {
			covered = num << scale;
			w0 |= CMD_TLBI_NUM(num - 1) | CMD_TLBI_SCALE(scale);
			w1 |= CMD_TLBI_TG(tg);
		}
		c[k][0] = w0, c[k][1] = w1;
		pages -= covered, iova += covered << s->granule_bits;
		if (++k == MAXC || !pages) {
			const char *e = smmuv3_submit(s, (const uint64_t(*)[CMD_DWORDS])c, k);
			if (e)
				return e;
			k = 0;
		}
	}
	return NULL;
}

const char *smmuv3_op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "smmuv3: the unit is not taken over");
	if (kind >= io->nkinds)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "smmuv3: no such invalidation kind");
	const char *name = io->kinds[kind].name;
	bool range = name == all_kinds[K_VA_RANGE].name || name == all_kinds[K_S2_IPA_RANGE].name;
	if (range || name == all_kinds[K_VA].name || name == all_kinds[K_S2_IPA].name) {
		if (!size) /* nothing to drop: the fence alone */
			return smmuv3_sync(s);
		if (iova + size - 1 < iova)
			return iommu_fail(io, IOMMU_ERR_ARGUMENT, "smmuv3: a wrapping range");
		return tlbi_va(s, iova, size, range);
	}
	if (name == all_kinds[K_ASID].name)
		return smmuv3_tlbi_asid(s);
	if (name == all_kinds[K_S12_VMALL].name)
		return smmuv3_tlbi_vmall(s);
	const uint64_t c[1][CMD_DWORDS] = { { CMD_TLBI_NSNH_ALL, 0 } };
	return smmuv3_submit(s, c, 1);
}
