/* The smmuv3 group's architecture checks: each a named rule with the
 * section it comes from, judged from the SMMUs' ID registers as found at
 * discovery (nothing is written), the running CPU's ID registers and the
 * IORT, worded so that each verdict can be held against Arm's ACS on the
 * same machine (BSA ACS 1.1.0, SBSA ACS 7.2.2; where iommon's reading
 * differs, the case says how). Rules every system keeps (the SMMU against
 * the CPU it serves) are judged always; those of a compliance level only
 * when the operator claims one (smmuv3.arm_claim: bsa, sbsa4 ... sbsa7,
 * sbsa-fr), else reported.
 *
 * Facts used (IHI 0070 6.3; Arm ARM D19): SMMU_AIDR ArchMajorRev [7:4],
 * ArchMinorRev [3:0] (v3.<minor>); range invalidation (IDR3.RIL), MPAM
 * (IDR3.MPAM) and BBML (IDR3.BBML) arrive in SMMUv3.2, 52-bit addresses
 * (IDR5.VAX, OAS 0b110) in SMMUv3.1. ID_AA64MMFR0_EL1 PARange [3:0],
 * ASIDBits [7:4], TGran16 [23:20], TGran64 [27:24], TGran4 [31:28];
 * ID_AA64MMFR1_EL1 VMIDBits [7:4]; ID_AA64MMFR2_EL1 VARange [19:16];
 * ID_AA64ISAR0_EL1 TLB [59:56] (2: range TLBI); ID_AA64PFR0_EL1 SEL2
 * [39:36], MPAM [43:40]; SCTLR_ELx.EE bit 25. */
#include <stdio.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/monitor/settings.h"
#include "core/tables/iort.h"
#include "iommu/backend.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "iommu/smmuv3/discover.h"
#include "pci/alias.h"
#include "smmuv3_cases.h"
#include "tests/catalogue/catalogue.h"

#define MAX_SMMUS 16
#define F(v, lo, w) (((v) >> (lo)) & ((1ull << (w)) - 1))

struct arch_smmu {
	char name[16];
	uint32_t idr0, idr3, idr5, aidr;
	size_t iort; /* its entry in the IORT's SMMUv3 list, or (size_t)-1 (a model) */
};

/* Every SMMUv3 the machine has (ID registers as found), or the model's. */
static size_t smmus(struct test_ctx *t, struct arch_smmu *out)
{
	struct dma_engine *e;
	struct iommu *mu = model_unit(&e);
	if (mu && mu == &smmuv3_model_driver()->io) {
		const struct smmuv3 *s = smmuv3_model_driver();
		t->model = true;
		out[0] = (struct arch_smmu){ "model", s->idr0, s->idr3, s->idr5, s->aidr, (size_t)-1 };
		test_uses_unit(mu->backend, mu->name, true); /* its ID registers are what the rules judge */
		return 1;
	}
	size_t n = 0;
	for (size_t i = 0; i < machine.units.n && n < MAX_SMMUS; i++) {
		const struct iommu_unit *u = &machine.units.u[i];
		struct unit_regs r;
		if (u->backend != &smmuv3_backend || !units_read_regs(u, &r))
			continue;
		struct arch_smmu *a = &out[n++];
		snprintf(a->name, sizeof(a->name), "%s", u->name);
		test_uses_unit(u->backend->name, u->name, false); /* the unit the rules judge */
		a->idr0 = (uint32_t)r.r[0], a->idr3 = (uint32_t)r.r[3], a->idr5 = (uint32_t)r.r[5];
		a->aidr = (uint32_t)r.r[6], a->iort = u->src;
	}
	return n;
}

static unsigned minor(const struct arch_smmu *a)
{
	return a->aidr & 0xf;
}

/* The SMMUs, or a skip. */
static size_t need_smmus(struct test_ctx *t, struct arch_smmu *a)
{
	size_t n = smmus(t, a);
	if (!n)
		test_skip(t, SKIP_NO_UNIT, "no SMMUv3 whose ID registers can be read");
	return n;
}

/* The CPU's register, or a skip (false). */
static bool cpu_reg(struct test_ctx *t, enum platform_arm_id r, uint64_t *v)
{
	if (platform->arm_id_reg && platform->arm_id_reg(r, v))
		return true;
	test_skip(t, SKIP_PLATFORM, "not an Arm CPU: its ID_AA64 registers cannot be read here");
	return false;
}

/* What the operator claims (smmuv3.arm_claim): 0 none, 1 BSA, 4-7 SBSA
 * level, 8 SBSA FR. */
static unsigned claim(void)
{
	const char *c = setting_get("smmuv3.arm_claim");
	if (!c || strcmp(c, "none") == 0)
		return 0;
	if (strcmp(c, "bsa") == 0)
		return 1;
	if (strcmp(c, "sbsa-fr") == 0)
		return 8;
	return strncmp(c, "sbsa", 4) == 0 ? (unsigned)(c[4] - '0') : 0;
}

/* ---- revision ---------------------------------------------------------------- */

void case_smmuv3_arch_revision(struct test_ctx *t)
{
	struct arch_smmu a[MAX_SMMUS];
	size_t n = need_smmus(t, a);
	unsigned bad = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned major = F(a[i].aidr, 4, 4), m = minor(&a[i]);
		/* a feature a later revision brought, on an earlier one */
		const struct {
			bool has;
			unsigned from;
			const char *what;
		} f[] = { { F(a[i].idr3, 10, 1), 2, "range invalidation (IDR3.RIL)" },
			  { F(a[i].idr3, 7, 1), 2, "MPAM (IDR3.MPAM)" },
			  { F(a[i].idr3, 11, 2) != 0, 2, "BBML (IDR3.BBML)" },
			  { F(a[i].idr5, 10, 2) != 0, 1, "52-bit VAs (IDR5.VAX)" },
			  { F(a[i].idr5, 0, 3) == 6, 1, "52-bit OAS (IDR5.OAS)" } };
		char late[200] = "";
		size_t len = 0;
		for (size_t k = 0; k < ARRAY_SIZE(f); k++)
			if (f[k].has && m < f[k].from)
				len += (size_t)snprintf(late + len, sizeof(late) - len, "%s%s (v3.%u)", len ? ", " : "",
							f[k].what, f[k].from);
		printf("    %s: AIDR 0x%x: SMMUv%u.%u%s%s\n", a[i].name, a[i].aidr, major + 3, m,
		       late[0] ? "; reports " : "", late);
		if (major != 0) {
			report(t, false, "%s: AIDR.ArchMajorRev %u: not an SMMUv3 (IHI 0070 6.3.7)", a[i].name, major);
			bad++;
		} else if (late[0]) {
			bad++;
			if (bench_on_qemu()) {
				test_skip(t, SKIP_EMULATOR,
					  "%s says SMMUv3.%u (AIDR 0x%x) yet reports %s: QEMU's SMMUv3 offers "
					  "later features without raising AIDR (on silicon this fails)",
					  a[i].name, m, a[i].aidr, late);
				return;
			}
			report(t, false, "%s: SMMUv3.%u reports %s (IHI 0070 6.3.7, 6.3.4, 6.3.6: RES0 before)",
			       a[i].name, m, late);
		}
	}
	report(t, !bad, "%zu SMMU%s: revision and features agree", n, n == 1 ? "" : "s");
	test_note(t, "SMMUv3.%u (AIDR 0x%x)%s", minor(&a[0]), a[0].aidr, n > 1 ? " and others" : "");
}

/* B_SMMU_01: the SMMUs agree in revision. ACS compares only v2 against v3
 * (the IORT's node types); iommon compares every SMMUv3's AIDR. */
void case_smmuv3_arch_same_revision(struct test_ctx *t)
{
	struct arch_smmu a[MAX_SMMUS];
	size_t n = need_smmus(t, a), differ = 0;
	if (n && n < 2) {
		test_skip(t, SKIP_UNSUPPORTED,
			  "one SMMU (%s, AIDR 0x%x): nothing to compare (ACS passes B_SMMU_01 here)", a[0].name,
			  a[0].aidr);
		return;
	}
	for (size_t i = 1; i < n; i++)
		if (a[i].aidr != a[0].aidr) {
			printf("    %s: AIDR 0x%x, %s: AIDR 0x%x\n", a[0].name, a[0].aidr, a[i].name, a[i].aidr);
			differ++;
		}
	report(t, n && !differ, "B_SMMU_01: %zu SMMUs, %zu differing from %s's AIDR 0x%x", n, differ,
	       n ? a[0].name : "-", n ? a[0].aidr : 0);
}

/* ---- the SMMU against the CPU (BSA rules, ACS's os/hyp tests) ---------------- */

/* B_SMMU_02 (BSA ACS 302): each translation granule the PE supports, the
 * SMMU supports; the PE's 52-bit 4K/16K (LPA2) needs the granule or a
 * 52-bit OAS, as ACS reads it. */
void case_smmuv3_arch_granules(struct test_ctx *t)
{
	struct arch_smmu a[MAX_SMMUS];
	uint64_t mmfr0;
	size_t n = need_smmus(t, a);
	if (!n || !cpu_reg(t, ARM_ID_AA64MMFR0, &mmfr0))
		return;
	unsigned g4 = F(mmfr0, 28, 4), g16 = F(mmfr0, 20, 4), g64 = F(mmfr0, 24, 4);
	bool pe4 = g4 == 0 || g4 == 1, pe16 = g16 == 1 || g16 == 2, pe64 = g64 == 0;
	printf("    PE: ID_AA64MMFR0_EL1 0x%llx: 4K %s, 16K %s, 64K %s\n", (unsigned long long)mmfr0,
	       g4 == 1 ? "52-bit"
	       : pe4   ? "yes"
		       : "no",
	       g16 == 2 ? "52-bit"
	       : pe16	? "yes"
			: "no",
	       pe64 ? "yes" : "no");
	for (size_t i = 0; i < n; i++) {
		bool s4 = F(a[i].idr5, 4, 1), s16 = F(a[i].idr5, 5, 1), s64 = F(a[i].idr5, 6, 1);
		bool oas52 = F(a[i].idr5, 0, 3) == 6;
		report(t, (!pe4 || s4 || (g4 == 1 && oas52)) && (!pe16 || s16 || (g16 == 2 && oas52)) && (!pe64 || s64),
		       "B_SMMU_02: %s offers %s%s%s (IDR5 0x%x) of the PE's %s%s%s", a[i].name, s4 ? "4K " : "",
		       s16 ? "16K " : "", s64 ? "64K" : "", a[i].idr5, pe4 ? "4K " : "", pe16 ? "16K " : "",
		       pe64 ? "64K" : "");
	}
}

/* B_SMMU_06 (BSA ACS 303): 52-bit physical addresses on both sides, or no
 * memory at 2^48 and above; and iommon's own: DMA through the SMMU reaches
 * every RAM address the firmware's memory map has (OAS). */
void case_smmuv3_arch_address_size(struct test_ctx *t)
{
	struct arch_smmu a[MAX_SMMUS];
	uint64_t mmfr0;
	size_t n = need_smmus(t, a);
	if (!n || !cpu_reg(t, ARM_ID_AA64MMFR0, &mmfr0))
		return;
	static const unsigned bits[8] = { 32, 36, 40, 42, 44, 48, 52, 52 };
	unsigned pa = bits[F(mmfr0, 0, 4) & 7];
	uint64_t top = platform->memory_top ? platform->memory_top() : 0;
	if (!top) { /* the host: no firmware memory map to hold the OAS against */
		test_skip(t, SKIP_PLATFORM, "no firmware memory map here: the RAM's top is not known");
		return;
	}
	bool all52 = F(mmfr0, 0, 4) == 6;
	for (size_t i = 0; i < n; i++) {
		unsigned oas = bits[F(a[i].idr5, 0, 3)];
		all52 = all52 && oas == 52;
		printf("    %s: OAS %u bits; the PE's PARange %u bits%s\n", a[i].name, oas, pa,
		       oas < pa ? ": the SMMU cannot output every address the CPU can" : "");
		report(t, !(oas < 64 && (top - 1) >> oas), "%s: RAM up to 0x%llx lies within its %u-bit OAS", a[i].name,
		       (unsigned long long)top, oas);
	}
	if (all52)
		report(t, true, "B_SMMU_06: 52-bit addresses on the PE and every SMMU");
	else if (top > 1ull << 48)
		report(t, false, "B_SMMU_06: memory at 0x%llx (above 2^48) without 52-bit addresses on both sides",
		       (unsigned long long)top);
	else
		printf("    B_SMMU_06: not applicable (no 52-bit addresses, no memory above 2^48): ACS skips it\n");
	test_note(t, "PARange %u bits; OAS %u bits; RAM top 0x%llx", pa, bits[F(a[0].idr5, 0, 3)],
		  (unsigned long long)top);
}

/* B_SMMU_13 (SBSA ACS 311): 16-bit ASIDs where the PE has them and the SMMU
 * stage 1; B_SMMU_23 (SBSA ACS 308): 16-bit VMIDs where the PE has them.
 * ACS asks VMID16 of an SMMU without stage 2 too; iommon only of one
 * with stage 2 (a VMID tags nothing else), and says so. */
void case_smmuv3_arch_asid_vmid(struct test_ctx *t)
{
	struct arch_smmu a[MAX_SMMUS];
	uint64_t mmfr0, mmfr1;
	size_t n = need_smmus(t, a);
	if (!n || !cpu_reg(t, ARM_ID_AA64MMFR0, &mmfr0) || !cpu_reg(t, ARM_ID_AA64MMFR1, &mmfr1))
		return;
	bool asid16 = F(mmfr0, 4, 4) != 0, vmid16 = F(mmfr1, 4, 4) != 0;
	for (size_t i = 0; i < n; i++) {
		bool s1 = F(a[i].idr0, 1, 1), s2 = F(a[i].idr0, 0, 1);
		bool sa = F(a[i].idr0, 12, 1), sv = F(a[i].idr0, 18, 1);
		report(t, !(asid16 && s1 && !sa), "B_SMMU_13: %s: %s-bit ASIDs; the PE's %s", a[i].name,
		       sa ? "16" : "8", asid16 ? "16" : "8");
		if (s2)
			report(t, !(vmid16 && !sv), "B_SMMU_23: %s: %s-bit VMIDs; the PE's %s", a[i].name,
			       sv ? "16" : "8", vmid16 ? "16" : "8");
		else if (vmid16 && !sv)
			printf("    B_SMMU_23: %s has no stage 2, so no VMIDs: ACS fails it (IDR0.VMID16 clear, the PE "
			       "16-bit); iommon does not judge VMIDs that tag nothing\n",
			       a[i].name);
	}
}

/* B_SMMU_04, B_SMMU_05 (SBSA ACS 310): where the PE has range TLBI
 * (ID_AA64ISAR0_EL1.TLB 2), the SMMU has range invalidation (IDR3.RIL). */
void case_smmuv3_arch_range_invalidation(struct test_ctx *t)
{
	struct arch_smmu a[MAX_SMMUS];
	uint64_t isar0;
	size_t n = need_smmus(t, a);
	if (!n || !cpu_reg(t, ARM_ID_AA64ISAR0, &isar0))
		return;
	if (F(isar0, 56, 4) != 2) {
		test_skip(t, SKIP_UNSUPPORTED, "the PE has no range TLBI (ID_AA64ISAR0_EL1.TLB %u): ACS skips it too",
			  (unsigned)F(isar0, 56, 4));
		return;
	}
	for (size_t i = 0; i < n; i++)
		report(t, F(a[i].idr3, 10, 1), "B_SMMU_04/05: %s: IDR3.RIL %u, the PE's TLBI range", a[i].name,
		       (unsigned)F(a[i].idr3, 10, 1));
}

/* B_SMMU_14 (SBSA ACS 312): the SMMU walks tables in the endianness the
 * PE runs (SCTLR_ELx.EE against IDR0.TTENDIAN: 0 mixed, 2 little, 3 big). */
void case_smmuv3_arch_endianness(struct test_ctx *t)
{
	struct arch_smmu a[MAX_SMMUS];
	uint64_t sctlr;
	size_t n = need_smmus(t, a);
	if (!n || !cpu_reg(t, ARM_SCTLR, &sctlr))
		return;
	bool big = F(sctlr, 25, 1);
	static const char *const te[4] = { "mixed", "reserved", "little-endian only", "big-endian only" };
	for (size_t i = 0; i < n; i++) {
		unsigned e = F(a[i].idr0, 21, 2);
		report(t, big ? (e == 0 || e == 3) : (e == 0 || e == 2), "B_SMMU_14: %s: TTENDIAN %s; the PE runs %s",
		       a[i].name, te[e], big ? "big-endian" : "little-endian");
	}
}

/* ---- a claimed compliance level ---------------------------------------------- */

/* The SMMU's PMCGs in the IORT and their counters (SMMU_PMCG_CFGR.NCTR + 1,
 * page 0 + 0xE00): how many PMCGs, the fewest counters. */
static size_t pmcgs(const struct iort *v, const struct arch_smmu *a, unsigned *fewest)
{
	size_t n = 0;
	*fewest = ~0u;
	for (size_t k = 0; v && a->iort < v->nsmmu && k < v->n; k++) {
		const struct iort_node *p = &v->node[k];
		if (p->type != IORT_PMCG || p->node_ref != v->smmu[a->iort].node_offset)
			continue;
		n++;
		struct regwin w;
		if (!regwin_open_mmio(&w, "pmcg", p->base, 0x1000, false, "the IORT's PMCG")) {
			unsigned c = (regwin_read32(&w, 0xe00) & 0x3f) + 1;
			*fewest = c < *fewest ? c : *fewest;
		}
	}
	return n;
}

void case_smmuv3_arch_level(struct test_ctx *t)
{
	struct arch_smmu a[MAX_SMMUS];
	size_t n = need_smmus(t, a);
	if (!n)
		return;
	const struct iort *v = smmuv3_units_iort(&machine.units);
	uint64_t pfr0 = 0;
	bool pe = platform->arm_id_reg && platform->arm_id_reg(ARM_ID_AA64PFR0, &pfr0);
	unsigned lvl = claim(), met = 8, fails = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t i0 = a[i].idr0, i3 = a[i].idr3;
		unsigned fewest;
		size_t npm = pmcgs(v, &a[i], &fewest);
		bool mpam_pe = F(pfr0, 40, 4) != 0;
		printf(
		    "    %s: SMMUv3.%u; S1P %u S2P %u COHACC %u BTM %u HTTU %u MSI %u ATS %u PRI %u MPAM %u BBML %u; "
		    "%zu PMCG%s%s\n",
		    a[i].name, minor(&a[i]), (unsigned)F(i0, 1, 1), (unsigned)F(i0, 0, 1), (unsigned)F(i0, 4, 1),
		    (unsigned)F(i0, 5, 1), (unsigned)F(i0, 6, 2), (unsigned)F(i0, 13, 1), (unsigned)F(i0, 10, 1),
		    (unsigned)F(i0, 16, 1), (unsigned)F(i3, 7, 1), (unsigned)F(i3, 11, 2), npm, npm == 1 ? "" : "s",
		    npm ? "" : " (no performance monitor in the IORT)");
		/* each rule: the level from which it holds, its id, whether it is met */
		const struct {
			unsigned from;
			const char *id, *what;
			bool ok;
		} r[] = {
			{ 1, "B_SMMU_08", "stage 1 (IDR0.S1P)",
			  F(i0, 1, 1) || (pe && F(pfr0, 36, 4) && minor(&a[i]) > 1) },
			{ 1, "B_SMMU_16", "stage 2 for a hypervisor (IDR0.S2P)",
			  F(i0, 0, 1) || (pe && F(pfr0, 36, 4) && minor(&a[i]) > 1) },
			{ 1, "B_SMMU_21", "coherent table walks (IDR0.COHACC)", F(i0, 4, 1) },
			{ 4, "S_L4SM_01/02", "both stages (IDR0.S1P, S2P)", F(i0, 0, 1) && F(i0, 1, 1) },
			{ 4, "S_L4SM_03", "coherent access (IDR0.COHACC)", F(i0, 4, 1) },
			{ 5, "S_L5SM_01/02", "SMMUv3.2 or later (AIDR)", minor(&a[i]) >= 2 },
			{ 5, "S_L5SM_03", "MPAM where the PE has it (IDR3.MPAM)", !mpam_pe || F(i3, 7, 1) },
			{ 6, "S_L6SM_02", "HTTU of access flag and dirty state (IDR0.HTTU 0b10)", F(i0, 6, 2) == 2 },
			{ 6, "S_L6SM_03", "MSIs (IDR0.MSI)", F(i0, 13, 1) },
			{ 7, "S_L7SM_03/04", "a PMCG of at least 4 counters", npm && fewest != ~0u && fewest >= 4 },
			{ 8, "S_L8SM_01", "SMMUv3.3 or later (AIDR)", minor(&a[i]) >= 3 },
			{ 8, "GPU_04", "ATS (IDR0.ATS)", F(i0, 10, 1) },
		};
		for (size_t k = 0; k < ARRAY_SIZE(r); k++) {
			if (!r[k].ok && r[k].from - 1 < met)
				met = r[k].from - 1;   /* the highest level every rule up to it allows */
			if (lvl && r[k].from <= lvl) { /* SBSA includes BSA */
				report(t, r[k].ok, "%s: %s: %s", r[k].id, a[i].name, r[k].what);
				fails += !r[k].ok;
			} else if (!r[k].ok) {
				printf("    %s not met by %s: %s (from %s)\n", r[k].id, a[i].name, r[k].what,
				       r[k].from == 1 ? "BSA" : "its SBSA level");
			}
		}
	}
	char meets[40];
	snprintf(meets, sizeof(meets),
		 met >= 8   ? "every level"
		 : met >= 3 ? "SBSA level %u"
			    : "no level (a BSA rule fails)",
		 met);
	if (!lvl) {
		test_skip(t, SKIP_SETTING,
			  "no compliance level claimed (set smmuv3.arm_claim bsa, sbsa4 ... sbsa7, sbsa-fr): the SMMU "
			  "rules would allow %s",
			  meets);
		return;
	}
	test_note(t, "claimed %s: %u rule%s not met; the SMMU rules allow %s", setting_get("smmuv3.arm_claim"), fails,
		  fails == 1 ? "" : "s", meets);
}

/* S_L7SM_01 (SBSA ACS 315): every DMA requester is behind an SMMU. Two
 * results, of different things: the IORT's id mappings (every root
 * complex and named component with CCA set: each of its input ranges
 * leads to an SMMU; ACS looks at a root complex's last mapping only), and
 * the PCI functions found (each requester id each can carry). */
void case_smmuv3_arch_requesters(struct test_ctx *t)
{
	struct dma_engine *e;
	struct iommu *mu = model_unit(&e);
	if (mu && mu == &smmuv3_model_driver()->io) {
		t->model = true;
		test_skip(t, SKIP_MACHINE_ONLY, "the IORT's rule is the machine's: a model is attached");
		return;
	}
	const struct iort *v = smmuv3_units_iort(&machine.units);
	if (!v) {
		test_skip(t, SKIP_NO_UNIT, "no IORT");
		return;
	}
	size_t nodes = 0, ranges = 0, direct = 0;
	for (size_t k = 0; k < v->n; k++) {
		const struct iort_node *p = &v->node[k];
		if ((p->type != IORT_ROOT_COMPLEX && p->type != IORT_NAMED_COMPONENT) || p->cca != 1)
			continue;
		nodes++;
		for (size_t m = p->first_map; m < p->first_map + p->nmaps; m++) {
			const struct iort_map *mp = &v->map[m];
			int to = mp->target;
			bool smmu = to >= 0 && (v->node[to].type == IORT_SMMU_V3 || v->node[to].type == IORT_SMMU_V1V2);
			ranges++;
			if (!smmu) {
				direct++;
				printf("    IORT %s at 0x%x: ids 0x%x-0x%x go to %s, past every SMMU\n",
				       iort_type_name(p->type), p->offset, mp->input_base, mp->input_base + mp->num_ids,
				       to >= 0 ? iort_type_name(v->node[to].type) : "nothing");
			}
		}
	}
	size_t funcs = 0, behind = 0;
	for (size_t k = 0; k < machine.pci.n; k++) {
		struct pci_aliases al;
		pci_dma_aliases(&machine.pci, k, &al);
		bool all = al.n > 0;
		for (size_t j = 0; j < al.n; j++) {
			size_t smmu;
			uint32_t sid;
			all = all && iort_map_rid(v, machine.pci.d[k].addr.seg, al.a[j].rid, &smmu, &sid);
		}
		funcs++, behind += all;
	}
	char tab[120], dev[120];
	snprintf(tab, sizeof(tab),
		 "the IORT's mappings: %zu of %zu id ranges of %zu coherent requesters lead past every SMMU", direct,
		 ranges, nodes);
	snprintf(dev, sizeof(dev), "the functions found: %zu of %zu have every requester id behind an SMMU", behind,
		 funcs);
	if (claim() < 7) {
		test_skip(t, SKIP_SETTING, "S_L7SM_01 holds from SBSA level 7 (smmuv3.arm_claim sbsa7): %s; %s", tab,
			  dev);
		return;
	}
	report(t, direct == 0, "S_L7SM_01 by %s", tab);
	report(t, behind == funcs, "S_L7SM_01 by %s", dev);
}

const struct test_doc smmuv3_arch_docs[] = {
	{ case_smmuv3_arch_revision,
	  "each SMMU's AIDR names SMMUv3.x, and no ID register reports a feature of a later revision (range "
	  "invalidation, MPAM, BBML from v3.2; 52-bit addresses from v3.1)",
	  "a feature of a later revision on an earlier one: a driver trusting AIDR and one trusting the ID bit "
	  "disagree about the unit (QEMU does this: a skip there)" },
	{ case_smmuv3_arch_same_revision, "every SMMUv3's AIDR is the same (B_SMMU_01; not applicable with one SMMU)",
	  "SMMUs of different revisions behind one OS: its driver must take the least of them" },
	{ case_smmuv3_arch_granules,
	  "each granule the CPU supports (ID_AA64MMFR0_EL1.TGran*), the SMMU offers (IDR5; B_SMMU_02)",
	  "an OS sharing its page tables or page size with the SMMU cannot use a granule the SMMU lacks" },
	{ case_smmuv3_arch_address_size,
	  "every RAM address of the firmware's memory map lies within the SMMU's OAS; and B_SMMU_06: 52-bit "
	  "addresses on both sides or no memory above 2^48",
	  "RAM beyond the OAS cannot be a DMA target through the SMMU" },
	{ case_smmuv3_arch_asid_vmid,
	  "16-bit ASIDs where the CPU has them and the SMMU stage 1 (B_SMMU_13); 16-bit VMIDs where the CPU has "
	  "them and the SMMU stage 2 (B_SMMU_23)",
	  "an OS or hypervisor sharing ASIDs or VMIDs with the CPU would run out of them on the SMMU" },
	{ case_smmuv3_arch_range_invalidation,
	  "range invalidation (IDR3.RIL) where the CPU has range TLBI (B_SMMU_04/05)",
	  "an OS issuing range invalidations to both would need another path for the SMMU" },
	{ case_smmuv3_arch_endianness,
	  "the SMMU walks tables in the endianness the CPU runs (IDR0.TTENDIAN, SCTLR.EE; B_SMMU_14)",
	  "tables the CPU writes would be read byte-swapped by the SMMU" },
	{ case_smmuv3_arch_level,
	  "with a compliance level claimed (smmuv3.arm_claim), each SMMU rule of that level holds (stages, "
	  "COHACC, revision, MPAM, HTTU, MSI, PMCG counters, ATS); without, the features and the level they "
	  "allow are reported",
	  "a rule of the claimed level not met: the machine is not what it claims" },
	{ case_smmuv3_arch_requesters,
	  "at SBSA level 7, every id range a coherent root complex or named component maps leads to an SMMU, and "
	  "every requester id of every PCI function found does: two results (the table, the devices)",
	  "a requester past every SMMU can DMA anywhere" },
	{ NULL },
};
