/* The GICv3 CPU interface's system registers (IHI 0069 12.2, encodings
 * from 12.1.1) and the identification registers, for core/base/gic.c and
 * the SMMU-against-CPU checks. An ICC register is touched only where
 * ID_AA64PFR0_EL1.GIC says the interface exists and ICC_SRE_EL1.SRE says
 * the firmware enabled it: otherwise the access would be undefined. */
#include "boot/boot.h"

#define PFR0_GIC(v) (((v) >> 24) & 0xf)

#define RD(enc, v) __asm__ volatile("mrs %0, " enc : "=r"(v))
#define WR(enc, v) __asm__ volatile("msr " enc ", %0\n\tisb" : : "r"(v) : "memory")

static bool interface(void)
{
	uint64_t pfr0, sre;
	RD("id_aa64pfr0_el1", pfr0);
	if (!PFR0_GIC(pfr0))
		return false;
	RD("S3_0_C12_C12_5", sre); /* ICC_SRE_EL1 */
	return sre & 1;
}

bool aarch64_gic_sysreg(enum platform_gic_reg r, bool write, uint64_t *v)
{
	if (r == GIC_MPIDR) {
		if (write)
			return false;
		RD("mpidr_el1", *v);
		return true;
	}
	if (!interface())
		return false;
	uint64_t x = write ? *v : 0;
	switch (r) {
	case GIC_ICC_SRE:
		if (write)
			return false; /* the firmware's choice, never changed */
		RD("S3_0_C12_C12_5", x);
		break;
	case GIC_ICC_PMR:
		if (write)
			WR("S3_0_C4_C6_0", x);
		else
			RD("S3_0_C4_C6_0", x);
		break;
	case GIC_ICC_IAR1:
		if (write)
			return false;
		RD("S3_0_C12_C12_0", x);
		__asm__ volatile("dsb sy" ::: "memory"); /* the acknowledge seen before what follows */
		break;
	case GIC_ICC_EOIR1:
		if (!write)
			return false;
		WR("S3_0_C12_C12_1", x);
		break;
	case GIC_ICC_DIR:
		if (!write)
			return false;
		WR("S3_0_C12_C11_1", x);
		break;
	case GIC_ICC_CTLR:
		if (write)
			WR("S3_0_C12_C12_4", x);
		else
			RD("S3_0_C12_C12_4", x);
		break;
	case GIC_ICC_IGRPEN1:
		if (write)
			WR("S3_0_C12_C12_7", x);
		else
			RD("S3_0_C12_C12_7", x);
		break;
	case GIC_ICC_SGI1R:
		if (!write)
			return false;
		__asm__ volatile("dsb ishst" ::: "memory"); /* what the SGI announces is visible first */
		WR("S3_0_C12_C11_5", x);
		break;
	case GIC_ICC_RPR:
		if (write)
			return false;
		RD("S3_0_C12_C11_3", x);
		break;
	case GIC_ICC_HPPIR1:
		if (write)
			return false;
		RD("S3_0_C12_C12_2", x);
		break;
	default:
		return false;
	}
	if (!write)
		*v = x;
	return true;
}

bool aarch64_arm_id_reg(enum platform_arm_id r, uint64_t *v)
{
	switch (r) {
	case ARM_MIDR:
		RD("midr_el1", *v);
		return true;
	case ARM_ID_AA64PFR0:
		RD("id_aa64pfr0_el1", *v);
		return true;
	case ARM_ID_AA64ISAR0:
		RD("id_aa64isar0_el1", *v);
		return true;
	case ARM_ID_AA64MMFR0:
		RD("id_aa64mmfr0_el1", *v);
		return true;
	case ARM_ID_AA64MMFR1:
		RD("id_aa64mmfr1_el1", *v);
		return true;
	case ARM_ID_AA64MMFR2:
		RD("S3_0_C0_C7_2", *v); /* ID_AA64MMFR2_EL1 (Armv8.2; RAZ before, as the ID space is) */
		return true;
	case ARM_SCTLR: {
		uint64_t el;
		RD("CurrentEL", el);
		if (((el >> 2) & 3) == 2)
			RD("sctlr_el2", *v);
		else
			RD("sctlr_el1", *v);
		return true;
	}
	}
	return false;
}
