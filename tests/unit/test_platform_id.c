/* The platform decision (core/monitor/platform_id.c) from made-up evidence: QEMU
 * 7.2 and 10.0 under TCG as they were measured (ACPI BOCHS/BXPC, SMBIOS
 * QEMU, HVC conduit, SMCCC_VERSION and the vendor hypervisor UID both
 * NOT_SUPPORTED; the counter at 62.5 MHz and at 1 GHz), QEMU under KVM
 * (KVM's UID), hardware (no QEMU ids), and evidence that disagrees with
 * itself; x86-64's CPUID leaf; and the ids as they are taken from the
 * ACPI tables and SMBIOS. */
#include "unit.h"

#include "core/base/macros.h"
#include "core/monitor/platform_id.h"
#include "core/tables/acpi.h"

static const uint32_t kvm_uid[4] = { KVM_UID_W0, KVM_UID_W1, KVM_UID_W2, KVM_UID_W3 };
static const uint32_t no_uid[4] = { SMCCC_NOT_SUPPORTED, 0, 0, 0 };

static void qemu_tables(struct platform_evidence *e, const char *machine)
{
	strcpy(e->rsdp_oem, "BOCHS ");
	strcpy(e->root_sig, "XSDT");
	strcpy(e->root_oem, "BOCHS ");
	strcpy(e->root_table, "BXPC    ");
	strcpy(e->fadt_oem, "BOCHS ");
	strcpy(e->fadt_table, "BXPC    ");
	strcpy(e->fadt_creator, "BXPC");
	strcpy(e->manufacturer, "QEMU");
	strcpy(e->processor_version, machine);
}

static void hardware_tables(struct platform_evidence *e)
{
	strcpy(e->rsdp_oem, "AMPERE");
	strcpy(e->root_sig, "XSDT");
	strcpy(e->root_oem, "AMPERE");
	strcpy(e->root_table, "Altra   ");
	strcpy(e->fadt_oem, "AMPERE");
	strcpy(e->fadt_table, "Altra   ");
	strcpy(e->fadt_creator, "INTL");
	strcpy(e->manufacturer, "GIGABYTE");
	strcpy(e->processor_version, "Ampere(R) Altra(R) Processor");
}

static void answered(struct platform_evidence *e, uint32_t version, const uint32_t uid[4], uint64_t cntfrq)
{
	e->arch = PLATFORM_AARCH64;
	e->arm_boot = ACPI_ARM_PSCI_COMPLIANT | ACPI_ARM_PSCI_USE_HVC;
	e->smccc_hvc = true;
	e->el = 1;
	e->smccc = SMCCC_ANSWERED;
	e->smccc_version = version;
	memcpy(e->hyp_uid, uid, sizeof(e->hyp_uid));
	e->cntfrq = cntfrq;
}

static struct platform_decision decide(const struct platform_evidence *e)
{
	struct platform_decision d;
	memset(&d, 0x5a, sizeof(d)); /* nothing left over from before counts */
	platform_decide(e, &d);
	assert_true(memchr(d.name, 0, sizeof(d.name)) != NULL);
	assert_true(memchr(d.how, 0, sizeof(d.how)) != NULL);
	return d;
}

static void tcg_72(void **state)
{
	(void)state;
	struct platform_evidence e = { 0 };
	qemu_tables(&e, "virt-7.2");
	answered(&e, SMCCC_NOT_SUPPORTED, no_uid, 62500000);
	struct platform_decision d = decide(&e);
	assert_string_equal(d.name, "qemu-tcg");
	assert_string_equal(d.how, "ACPI OEM \"BOCHS \" / BXPC in RSDP, XSDT, FADT + SMBIOS manufacturer QEMU, "
				   "processor \"virt-7.2\"; SMCCC via HVC, SMCCC_VERSION NOT_SUPPORTED (v1.0); vendor "
				   "hypervisor UID: not KVM's (NOT_SUPPORTED); CNTFRQ 62.5 MHz (noted, not decisive)");
}

/* the machine: QEMU 10.0's virt with -cpu max, its counter at 1 GHz */
static void tcg_10_at_1ghz(void **state)
{
	(void)state;
	struct platform_evidence e = { 0 };
	qemu_tables(&e, "virt-10.0");
	answered(&e, SMCCC_NOT_SUPPORTED, no_uid, 1000000000);
	struct platform_decision d = decide(&e);
	assert_string_equal(d.name, "qemu-tcg");
	assert_non_null(strstr(d.how, "vendor hypervisor UID: not KVM's (NOT_SUPPORTED)"));
	assert_non_null(strstr(d.how, "CNTFRQ 1000.0 MHz (noted, not decisive)"));
	/* and at any other rate: the counter never decides */
	e.cntfrq = 25000000;
	assert_string_equal(decide(&e).name, "qemu-tcg");
}

static void kvm(void **state)
{
	(void)state;
	struct platform_evidence e = { 0 };
	qemu_tables(&e, "virt-10.0");
	answered(&e, 0x10001, kvm_uid, 1000000000);
	struct platform_decision d = decide(&e);
	assert_string_equal(d.name, "kvm");
	/* the words name the UID as the UUID KVM documents: the constants
	 * and the byte order agree with it */
	assert_non_null(strstr(d.how, "SMCCC via HVC, v1.1; vendor hypervisor UID: KVM's "
				      "(28b46fb6-2ec5-11e9-a9ca-4b564d003a74)"));
	/* KVM's UID under TCG's old counter rate: the hypervisor's word stands */
	e.cntfrq = 62500000;
	assert_string_equal(decide(&e).name, "kvm");
	/* one word off is not KVM's */
	e.hyp_uid[3] ^= 1; /* its least significant byte is the 13th */
	d = decide(&e);
	assert_string_equal(d.name, "qemu");
	assert_non_null(strstr(d.how, "28b46fb6-2ec5-11e9-a9ca-4b564c003a74, not KVM's"));
}

static void hardware(void **state)
{
	(void)state;
	struct platform_evidence e = { 0 };
	hardware_tables(&e);
	answered(&e, 0x10002, no_uid, 25000000);
	e.smccc_hvc = false;
	e.arm_boot = ACPI_ARM_PSCI_COMPLIANT;
	struct platform_decision d = decide(&e);
	assert_string_equal(d.name, "hardware");
	assert_string_equal(d.how, "ACPI OEM \"AMPERE\" (not QEMU's) + SMBIOS manufacturer \"GIGABYTE\" (not QEMU), "
				   "processor \"Ampere(R) Altra(R) Processor\"; SMCCC via SMC, v1.2; vendor hypervisor "
				   "UID: not KVM's (NOT_SUPPORTED); CNTFRQ 25.0 MHz (noted, not decisive)");
	/* at EL2 with an HVC conduit nothing is asked, and nothing is above */
	e.smccc = SMCCC_AT_EL2;
	e.el = 2;
	d = decide(&e);
	assert_string_equal(d.name, "hardware");
	assert_non_null(strstr(d.how, "SMCCC not asked: the conduit is HVC and the monitor runs at EL2"));
	assert_non_null(strstr(d.how, "running at EL2, no hypervisor below EL3"));
	/* a UID that is not KVM's on a machine without QEMU's ids */
	const uint32_t other[4] = { 0x12345678, 0x9abcdef0, 0x0fedcba9, 0x87654321 };
	answered(&e, 0x10001, other, 25000000);
	d = decide(&e);
	assert_string_equal(d.name, "hypervisor");
	assert_non_null(strstr(d.how, "78563412-f0de-bc9a-a9cb-ed0f21436587, not KVM's"));
}

/* QEMU's tables without an answer from the conduit: QEMU, but not which
 * accelerator; never "kvm", never "hardware" */
static void qemu_unasked(void **state)
{
	(void)state;
	static const enum smccc_probe probes[] = { SMCCC_NOT_ASKED, SMCCC_NO_PSCI, SMCCC_AT_EL2, SMCCC_NO_CALLER,
						   SMCCC_FAULTED };
	static const char *const words[] = { "no FADT ARM_BOOT_ARCH", "ARM_BOOT_ARCH 0x0000 is not PSCI-compliant",
					     "runs at EL2", "offers no call", "raised exception class 0x0" };
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
		struct platform_evidence e = { 0 };
		qemu_tables(&e, "virt-10.0");
		answered(&e, 0, no_uid, 1000000000);
		e.smccc = probes[i];
		e.arm_boot = 0;
		e.smccc_why = "HVC raised exception class 0x0 (ESR 0x2000000)";
		struct platform_decision d = decide(&e);
		assert_string_equal(d.name, "qemu");
		assert_non_null(strstr(d.how, words[i]));
		assert_non_null(strstr(d.how, "the accelerator is not established"));
	}
}

static void contradictory(void **state)
{
	(void)state;
	/* QEMU's ACPI tables, another manufacturer in SMBIOS (-smbios
	 * type=1,manufacturer=...): still QEMU's TCG, the disagreement said */
	struct platform_evidence e = { 0 };
	qemu_tables(&e, "virt-10.0");
	strcpy(e.manufacturer, "Dell Inc.");
	answered(&e, SMCCC_NOT_SUPPORTED, no_uid, 1000000000);
	struct platform_decision d = decide(&e);
	assert_string_equal(d.name, "qemu-tcg");
	assert_non_null(strstr(d.how, "SMBIOS manufacturer \"Dell Inc.\" (not QEMU)"));
	assert_non_null(strstr(d.how, "ACPI and SMBIOS disagree on QEMU"));

	/* a vendor's ACPI tables, SMBIOS saying QEMU: QEMU */
	memset(&e, 0, sizeof(e));
	hardware_tables(&e);
	strcpy(e.manufacturer, "QEMU");
	answered(&e, SMCCC_NOT_SUPPORTED, no_uid, 62500000);
	d = decide(&e);
	assert_string_equal(d.name, "qemu-tcg");
	assert_non_null(strstr(d.how, "ACPI OEM \"AMPERE\" (not QEMU's) + SMBIOS manufacturer QEMU"));
	assert_non_null(strstr(d.how, "disagree"));

	/* QEMU's ids in some tables only: named, and the others too */
	memset(&e, 0, sizeof(e));
	qemu_tables(&e, "virt-7.2");
	strcpy(e.fadt_oem, "ALASKA");
	strcpy(e.fadt_table, "A M I   ");
	strcpy(e.fadt_creator, "AMI ");
	answered(&e, SMCCC_NOT_SUPPORTED, no_uid, 62500000);
	d = decide(&e);
	assert_string_equal(d.name, "qemu-tcg");
	assert_non_null(strstr(d.how, "in RSDP, XSDT (but not in FADT)"));

	/* KVM's UID on a machine with no QEMU ids (another KVM VMM) */
	memset(&e, 0, sizeof(e));
	hardware_tables(&e);
	answered(&e, 0x10001, kvm_uid, 25000000);
	d = decide(&e);
	assert_string_equal(d.name, "kvm");
	assert_non_null(strstr(d.how, "no QEMU ids: another KVM VMM"));

	/* nothing at all: hardware, and what could not be seen said */
	memset(&e, 0, sizeof(e));
	e.arch = PLATFORM_AARCH64;
	d = decide(&e);
	assert_string_equal(d.name, "hardware");
	assert_string_equal(d.how, "no ACPI ids + no SMBIOS manufacturer; SMCCC not asked: no FADT ARM_BOOT_ARCH to "
				   "name a conduit; a hypervisor that names itself nowhere would not be seen");
}

static void x86_cpuid(void **state)
{
	(void)state;
	struct platform_evidence e = { .arch = PLATFORM_X86_64, .cpuid_hv = true };
	strcpy(e.cpuid_vendor, "TCGTCGTCGTCG");
	struct platform_decision d = decide(&e);
	assert_string_equal(d.name, "qemu-tcg");
	assert_string_equal(d.how, "CPUID hypervisor leaf TCGTCGTCGTCG");
	strcpy(e.cpuid_vendor, "KVMKVMKVM");
	assert_string_equal(decide(&e).name, "kvm");
	strcpy(e.cpuid_vendor, "Microsoft Hv");
	assert_string_equal(decide(&e).name, "hyperv");
	strcpy(e.cpuid_vendor, "NotAVendor!!");
	d = decide(&e);
	assert_string_equal(d.name, "hypervisor");
	assert_string_equal(d.how, "CPUID hypervisor leaf NotAVendor!! (a vendor iommon does not know)");

	/* no hypervisor bit */
	memset(&e, 0, sizeof(e));
	hardware_tables(&e);
	d = decide(&e);
	assert_string_equal(d.name, "hardware");
	assert_string_equal(d.how, "CPUID.1:ECX[31] clear (no hypervisor bit)");
	/* ... but QEMU's tables: a CPU model with the bit hidden */
	qemu_tables(&e, "pc-q35-7.2");
	d = decide(&e);
	assert_string_equal(d.name, "qemu");
	assert_non_null(strstr(d.how, "CPUID.1:ECX[31] clear (no hypervisor bit), but ACPI OEM \"BOCHS \""));
}

/* The ids as platform_evidence_tables takes them from a parsed struct acpi
 * and struct smbios: the root's and the FADT's header fields, bytes outside
 * printable ASCII as '?'. */
static void tables(void **state)
{
	(void)state;
	static struct acpi a;
	static struct acpi_header xsdt, fadt;
	memset(&a, 0, sizeof(a));
	a.present = true;
	memcpy(a.oem_id, "BOCHS ", 7);
	memcpy(xsdt.signature, "XSDT", 4);
	memcpy(xsdt.oem_id, "BOCHS ", 6);
	memcpy(xsdt.oem_table_id, "BXPC    ", 8);
	memcpy(fadt.signature, "FACP", 4);
	memcpy(fadt.oem_id, "BO\x01HS ", 6);
	memcpy(fadt.oem_table_id, "BXPC    ", 8);
	memcpy(fadt.creator_id, "BXPC", 4);
	a.root = &xsdt;
	a.tables[0].hdr = &fadt;
	a.tables[0].checksum_ok = true;
	a.n = 1;
	static struct smbios s;
	memset(&s, 0, sizeof(s));
	s.walked = true;
	strcpy(s.manufacturer, "QEMU");
	strcpy(s.processor_version, "virt-10.0");

	struct platform_evidence e;
	memset(&e, 0x5a, sizeof(e));
	platform_evidence_tables(&e, &a, &s);
	assert_string_equal(e.rsdp_oem, "BOCHS ");
	assert_string_equal(e.root_sig, "XSDT");
	assert_string_equal(e.root_oem, "BOCHS ");
	assert_string_equal(e.root_table, "BXPC    ");
	assert_string_equal(e.fadt_oem, "BO?HS ");
	assert_string_equal(e.fadt_table, "BXPC    ");
	assert_string_equal(e.fadt_creator, "BXPC");
	assert_string_equal(e.manufacturer, "QEMU");
	assert_string_equal(e.processor_version, "virt-10.0");

	/* no ACPI, no SMBIOS table: every id empty */
	memset(&e, 0x5a, sizeof(e));
	platform_evidence_tables(&e, NULL, NULL);
	assert_string_equal(e.rsdp_oem, "");
	assert_string_equal(e.fadt_creator, "");
	assert_string_equal(e.manufacturer, "");
	assert_string_equal(e.processor_version, "");
}

/* The FADT's ARM_BOOT_ARCH at offset 129: present from ACPI 5.1's
 * 268-byte FADT on, absent from a shorter one. */
static void arm_boot_arch(void **state)
{
	(void)state;
	static uint8_t fadt[276];
	memset(fadt, 0, sizeof(fadt));
	memcpy(fadt, "FACP", 4);
	uint32_t len = sizeof(fadt);
	memcpy(fadt + 4, &len, 4);
	fadt[129] = ACPI_ARM_PSCI_COMPLIANT | ACPI_ARM_PSCI_USE_HVC;
	uint16_t flags = 0;
	assert_int_equal(acpi_fadt_arm_boot((const struct acpi_header *)fadt, &flags), 0);
	assert_int_equal(flags, 3);
	len = 130; /* one byte short of the field */
	memcpy(fadt + 4, &len, 4);
	assert_int_equal(acpi_fadt_arm_boot((const struct acpi_header *)fadt, &flags), -1);
	assert_int_equal(acpi_fadt_arm_boot(NULL, &flags), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tcg_72),    cmocka_unit_test(tcg_10_at_1ghz), cmocka_unit_test(kvm),
		cmocka_unit_test(hardware),  cmocka_unit_test(qemu_unasked),   cmocka_unit_test(contradictory),
		cmocka_unit_test(x86_cpuid), cmocka_unit_test(tables),	       cmocka_unit_test(arm_boot_arch),
	};
	return cmocka_run_group_tests_name("platform_id", tests, NULL, NULL);
}
