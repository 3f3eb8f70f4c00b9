/* Which platform the monitor runs on: "hardware", "qemu-tcg", "kvm", ...
 * (timing.platform, in every record), and how that was decided
 * (timing.platform_how, in the `info` record and the boot lines).
 *
 * The decision is made from what identifies a platform, gathered into
 * struct platform_evidence, by one pure function (platform_decide) that
 * the host tests drive with made-up evidence:
 * - x86-64: the CPUID hypervisor leaf 0x40000000, whose vendor string each
 *   hypervisor (and QEMU's TCG) sets.
 * - aarch64: the hypervisor's own interface, SMCCC's "Vendor Specific
 *   Hypervisor Service Call UID" query (KVM answers with its UID; QEMU's
 *   TCG, which emulates PSCI itself, answers NOT_SUPPORTED), asked through
 *   the PSCI conduit the FADT names, and only when the FADT says there is
 *   one.
 * - riscv64: who implements the SBI (its base extension's implementation
 *   id): KVM answers a guest's ecalls itself (id 3); under QEMU's TCG the
 *   emulated M-mode runs the firmware's own SBI (OpenSBI, id 1); and the
 *   device tree's root "model" ("riscv-virtio,qemu" on QEMU's virt).
 * - All: QEMU's ids in the ACPI tables it builds (OEM id "BOCHS ", OEM
 *   table id and creator "BXPC") and in SMBIOS (type 1 manufacturer
 *   "QEMU"; type 4's version names the machine type, e.g. "virt-10.0").
 * The counter's rate is noted, never decisive: QEMU 7.2 TCG runs the Arm
 * generic timer at 62.5 MHz, QEMU 10.0's virt with `-cpu max` at 1 GHz,
 * which is also what Armv8.6 hardware must run it at. */
#ifndef IOMMON_PLATFORM_ID_H
#define IOMMON_PLATFORM_ID_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tables/smbios.h"

struct acpi;

/* SMCCC function ids (DEN0028 6.2, 7.2): fast calls, 32-bit convention. */
#define SMCCC_VERSION_FID 0x80000000u
#define SMCCC_VENDOR_HYP_CALL_UID_FID 0x8600ff01u
#define SMCCC_NOT_SUPPORTED 0xffffffffu /* W0 of an unknown function id: -1 */

/* KVM's UID, 28b46fb6-2ec5-11e9-a9ca-4b564d003a74, as W0-W3 of the UID
 * query (Linux Documentation/virt/kvm/arm/hypercalls.rst,
 * include/linux/arm-smccc.h ARM_SMCCC_VENDOR_HYP_UID_KVM_REG_0..3). */
#define KVM_UID_W0 0xb66fb428u
#define KVM_UID_W1 0xe911c52eu
#define KVM_UID_W2 0x564bcaa9u
#define KVM_UID_W3 0x743a004du

enum platform_arch { PLATFORM_X86_64, PLATFORM_AARCH64, PLATFORM_RISCV64 };

/* SBI implementation ids (SBI 1.0, 4.9): who answers the ecalls. */
#define SBI_IMPL_OPENSBI 1
#define SBI_IMPL_KVM 3

/* How far the SMCCC query got (aarch64). */
enum smccc_probe {
	SMCCC_NOT_ASKED, /* no ACPI, no FADT, or one too old for ARM_BOOT_ARCH */
	SMCCC_NO_PSCI,	 /* the FADT does not say PSCI-compliant: no conduit, nothing issued */
	SMCCC_AT_EL2,	 /* the conduit is HVC but the monitor runs at EL2: nothing above to ask */
	SMCCC_NO_CALLER, /* the platform offers no guarded call */
	SMCCC_FAULTED,	 /* the call raised an exception (smccc_why) */
	SMCCC_ANSWERED,	 /* smccc_version and hyp_uid hold the answers */
	SMCCC_NPROBES
};

struct platform_evidence {
	enum platform_arch arch;
	/* x86-64: CPUID.1:ECX[31] (a hypervisor is present) and leaf
	 * 0x40000000's vendor in EBX, ECX, EDX */
	bool cpuid_hv;
	char cpuid_vendor[13];
	/* ACPI, "" where absent: the RSDP's OEM id, the root table's (XSDT or
	 * RSDT) OEM id and OEM table id, the FADT's OEM id, table id and
	 * creator id */
	char rsdp_oem[7], root_sig[5], root_oem[7], root_table[9], fadt_oem[7], fadt_table[9], fadt_creator[5];
	/* SMBIOS, "" where absent: type 1 manufacturer, type 4 version */
	char manufacturer[SMBIOS_STR_MAX + 1], processor_version[SMBIOS_STR_MAX + 1];
	/* aarch64: the FADT's ARM_BOOT_ARCH, CurrentEL, and the SMCCC answers */
	uint16_t arm_boot;
	unsigned el;
	enum smccc_probe smccc;
	bool smccc_hvc;		/* the conduit: HVC, else SMC */
	const char *smccc_why;	/* SMCCC_FAULTED: what the instruction raised */
	uint32_t smccc_version; /* SMCCC_VERSION's W0: major << 16 | minor, or NOT_SUPPORTED */
	uint32_t hyp_uid[4];	/* the UID query's W0-W3 */
	uint64_t cntfrq;	/* aarch64: CNTFRQ_EL0, noted only */
	/* riscv64: the SBI's implementation id and version (0 and 0 when the
	 * base extension did not answer), the device tree's root "model" */
	uint64_t sbi_impl, sbi_impl_version;
	char fdt_model[64];
};

#define PLATFORM_NAME_MAX 32
#define PLATFORM_HOW_MAX 400

struct platform_decision {
	char name[PLATFORM_NAME_MAX]; /* "hardware", "qemu-tcg", "qemu", "kvm", "hypervisor", ... */
	char how[PLATFORM_HOW_MAX];   /* the evidence that decided it, in words */
};

/* The decision: pure, from the evidence alone. */
void platform_decide(const struct platform_evidence *e, struct platform_decision *d);

/* The ACPI and SMBIOS part of the evidence (either may be NULL): ids
 * copied, bytes outside printable ASCII as '?'. */
void platform_evidence_tables(struct platform_evidence *e, const struct acpi *acpi, const struct smbios *smbios);

/* Gathers the evidence on this CPU (CPUID, or the FADT's conduit and the
 * SMCCC calls through platform->smccc), decides, and sets timing.platform,
 * timing.platform_how and timing.hypervisor. */
void platform_identify(const struct acpi *acpi, const struct smbios *smbios);

#endif
