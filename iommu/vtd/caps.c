#include "caps.h"

#include <stdio.h>
#include <string.h>

#include "core/base/wrap.h"
#include "regs.h"

void vtd_caps_read(uint64_t cap, uint64_t ecap, struct vtd_caps *out)
{
	memset(out, 0, sizeof(*out));
	out->domains = 1u << (4 + 2 * vtd_cap_nd(cap));
	out->sagaw = vtd_cap_sagaw(cap);
	out->cap_mgaw = vtd_cap_mgaw(cap);
	out->fro = vtd_cap_fro(cap);
	out->nfr = vtd_cap_nfr(cap);
	out->iro = vtd_ecap_iro(ecap);
	out->mamv = vtd_cap_mamv(cap);
	out->coherent = vtd_ecap_c(ecap);
	out->qi = vtd_ecap_qi(ecap);
	out->pt = vtd_ecap_pt(ecap);
	out->rwbf = vtd_cap_rwbf(cap);
	out->cm = vtd_cap_cm(cap);
	out->psi = vtd_cap_psi(cap);
	out->drain_w = vtd_cap_dwd(cap);
	out->drain_r = vtd_cap_drd(cap);
	out->sp_2m = vtd_cap_sllps(cap) & VTD_SLLPS_2M;
	out->sp_1g = vtd_cap_sllps(cap) & VTD_SLLPS_1G;
	out->plmr = vtd_cap_plmr(cap);
	out->phmr = vtd_cap_phmr(cap);
	out->dt = vtd_ecap_dt(ecap);
	out->ir = vtd_ecap_ir(ecap);
	out->eim = vtd_ecap_eim(ecap);
	out->sc = vtd_ecap_sc(ecap);
	out->smts = vtd_ecap_smts(ecap);
	out->slts = vtd_ecap_slts(ecap);
	out->flts = vtd_ecap_flts(ecap);
	out->nest = vtd_ecap_nest(ecap);
	out->pasid = vtd_ecap_pasid(ecap);
	out->pasid_bits = out->pasid ? vtd_ecap_pss(ecap) + 1 : 0;
	out->rps = vtd_ecap_rps(ecap);
	out->slads = vtd_ecap_slads(ecap);
	out->smpwcs = vtd_ecap_smpwcs(ecap);
	out->fl1gp = vtd_cap_fl1gp(cap);
	out->fl5lp = vtd_cap_fl5lp(cap);
}

size_t vtd_modes(const struct vtd_caps *c, const char *names[4])
{
	size_t n = 0;
	if (c->sagaw)
		names[n++] = "legacy";
	if (c->smts && c->slts)
		names[n++] = "scalable-second-stage";
	if (c->smts && c->flts)
		names[n++] = "scalable-first-stage";
	if (c->smts && c->nest && c->slts && c->flts)
		names[n++] = "scalable-nested";
	return n;
}

size_t vtd_modes_driven(const struct vtd_caps *c, const char *names[4])
{
	const char *all[4];
	size_t n = 0, k = vtd_modes(c, all);
	for (size_t i = 0; i < k; i++)
		if (strcmp(all[i], "legacy") == 0 || c->qi)
			names[n++] = all[i];
	return n;
}

void vtd_modes_words(const struct vtd_caps *c, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%s", c->sagaw ? "legacy" : "no legacy walk (CAP.SAGAW 0)");
	if (!c->smts) {
		if (k < n)
			snprintf(buf + k, n - k, "; no scalable mode (ECAP.SMTS clear)");
		return;
	}
	k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "; scalable:%s%s", c->slts ? " second stage" : "",
			      c->slts && c->flts ? "," : "");
	if (c->flts && k < n)
		k += (size_t)snprintf(buf + k, n - k, " first stage (4-level%s%s)", c->fl5lp ? ", 5-level" : "",
				      c->fl1gp ? ", 1 GiB leaves" : "");
	if (!c->slts && !c->flts && k < n)
		k += (size_t)snprintf(buf + k, n - k, " no translation type (SLTS and FLTS clear)");
	if (c->nest && c->slts && c->flts && k < n)
		k += (size_t)snprintf(buf + k, n - k, ", nested");
	if (k < n && c->pasid)
		snprintf(buf + k, n - k, "; PASIDs of %u bits%s", c->pasid_bits, c->rps ? ", RID_PASID" : "");
	else if (k < n)
		snprintf(buf + k, n - k, "; no PASID support%s", c->rps ? ", RID_PASID" : "");
}

static const char *refuse(struct vtd_caps *out, enum iommu_err code, const char *why)
{
	out->err = code;
	return why;
}

const char *vtd_decode_caps(uint32_t ver, uint64_t cap, uint64_t ecap, uint64_t window, unsigned want_levels,
			    struct vtd_caps *out)
{
	vtd_caps_read(cap, ecap, out);
	if (ver == 0xffffffffu || cap == ~0ull || ecap == ~0ull)
		return refuse(out, IOMMU_ERR_UNUSABLE,
			      "vtd: the registers read all ones (nothing answers at the base)");
	if (out->smts && !out->sagaw)
		return refuse(out, IOMMU_ERR_UNUSABLE,
			      "vtd: the unit only supports scalable mode; iommon drives legacy mode");
	if (!out->fro || out->fro + 16ull * out->nfr > window || !out->iro || out->iro + 16ull > window)
		return refuse(out, IOMMU_ERR_UNUSABLE,
			      "vtd: the fault-recording or IOTLB registers lie outside the register window");
	if (!(out->sagaw & (VTD_SAGAW_39 | VTD_SAGAW_48)))
		return refuse(out, IOMMU_ERR_UNUSABLE,
			      "vtd: the unit offers neither a 3- nor a 4-level walk (CAP.SAGAW)");
	/* pass-through entries name the largest AGAW supported (5-level too);
	 * our own tables use a 3- or 4-level walk */
	out->max_aw = out->sagaw & VTD_SAGAW_57 ? 3 : out->sagaw & VTD_SAGAW_48 ? 2 : 1;
	if (want_levels == 3 || want_levels == 4) {
		unsigned aw = want_levels == 4 ? 2 : 1;
		if (!(out->sagaw & (1u << aw)))
			return refuse(out, IOMMU_ERR_UNSUPPORTED,
				      want_levels == 4 ? "vtd: a 4-level walk was asked for; SAGAW offers none"
						       : "vtd: a 3-level walk was asked for; SAGAW offers none");
		out->aw = aw;
	} else {
		out->aw = out->sagaw & VTD_SAGAW_48 ? 2 : 1;
	}
	out->levels = out->aw == 2 ? 4 : 3;
	unsigned width = out->levels == 4 ? 48 : 39;
	out->mgaw = out->cap_mgaw < width ? out->cap_mgaw : width;
	return NULL;
}

const char *vtd_ir_destinations(uint64_t ecap, unsigned apic_id_bits, bool force, bool *eime)
{
	*eime = apic_id_bits > 8 || force;
	if (!*eime || vtd_ecap_eim(ecap))
		return NULL;
	return apic_id_bits > 8 ? "vtd: the boot CPU's x2APIC id is above 255 and the unit has no extended interrupt "
				  "mode (ECAP.EIM clear): it could not be named as a destination"
				: "vtd: vtd.eime is on and the unit has no extended interrupt mode (ECAP.EIM clear): "
				  "32-bit destinations cannot be used";
}

void vtd_caps_print(uint32_t ver, uint64_t cap, uint64_t ecap, unsigned apic_id_bits)
{
	struct vtd_caps c;
	vtd_caps_read(cap, ecap, &c);
	printf("      VER %u.%u CAP 0x%016llx ECAP 0x%016llx\n", vtd_ver_max(ver), vtd_ver_min(ver),
	       (unsigned long long)cap, (unsigned long long)ecap);
	printf("      CAP: domains %u, MGAW %u, SAGAW%s%s%s%s, FRO 0x%x, NFR %u, SLLPS%s%s%s%s%s%s\n", c.domains,
	       c.cap_mgaw, c.sagaw & VTD_SAGAW_39 ? " 39-bit" : "", c.sagaw & VTD_SAGAW_48 ? " 48-bit" : "",
	       c.sagaw & VTD_SAGAW_57 ? " 57-bit" : "",
	       c.sagaw & ~(VTD_SAGAW_39 | VTD_SAGAW_48 | VTD_SAGAW_57) ? " other" : "", c.fro, c.nfr,
	       c.sp_2m ? " 2M" : "", c.sp_1g ? " 1G" : "", c.psi ? ", PSI" : "", c.cm ? ", caching mode" : "",
	       c.rwbf ? ", RWBF" : "", c.drain_r ? ", DRD" : "");
	printf("      ECAP: IRO 0x%x%s%s%s%s%s%s%s%s\n", c.iro, c.coherent ? ", coherent" : "", c.qi ? ", QI" : "",
	       c.dt ? ", device-TLB" : "", c.ir ? ", IR" : "", c.eim ? ", EIM" : "", c.pt ? ", pass-through" : "",
	       c.sc ? ", snoop control" : "", c.smts ? ", scalable mode" : "");
	char modes[200];
	vtd_modes_words(&c, modes, sizeof(modes));
	const char *driven[4];
	size_t nd = vtd_modes_driven(&c, driven), offered = vtd_modes(&c, (const char *[4]){ 0 });
	printf("      modes: ");
	table_wrapf(13, "%s; iommon drives %s", modes,
		    nd == offered ? (nd == 1 ? "it" : "each")
		    : nd == 1	  ? "legacy only (scalable mode needs ECAP.QI)"
				  : "those with ECAP.QI");
	if (c.ir) { /* what interrupt remapping would use on this CPU */
		bool eime;
		const char *why = vtd_ir_destinations(ecap, apic_id_bits, false, &eime);
		printf("      interrupt remapping: the boot CPU's APIC id %s, %s%s\n",
		       apic_id_bits > 8 ? "needs 32 bits" : "fits 8 bits",
		       why    ? "refused (no ECAP.EIM)"
		       : eime ? "32-bit destinations (IRTA.EIME set)"
			      : "8-bit destinations (IRTA.EIME clear)",
		       !eime && c.eim ? ", or 32-bit ones with vtd.eime on" : "");
	}
}
