/* Which platform this is, from what identifies it (platform_id.h). */
#include "platform_id.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "core/tables/acpi.h"
#include "core/tables/fdt.h"

_Static_assert(sizeof(((struct timing *)0)->platform_how) == PLATFORM_HOW_MAX, "timing.platform_how holds a how");
_Static_assert(sizeof(((struct timing *)0)->platform) == PLATFORM_NAME_MAX, "timing.platform holds a name");

/* ---- the decision -------------------------------------------------------- */

struct text {
	char *buf;
	size_t cap, len;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
	if (t->len + 1 >= t->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len = t->len + (size_t)n < t->cap ? t->len + (size_t)n : t->cap - 1;
}

/* QEMU's ACPI ids (hw/acpi: ACPI_BUILD_APPNAME6 "BOCHS ", APPNAME8
 * "BXPC    ", creator "BXPC"); "QEMU" as an OEM id as before. */
static bool qemu_oem(const char *id)
{
	return strcmp(id, "BOCHS ") == 0 || strncmp(id, "QEMU", 4) == 0;
}

static bool qemu_bxpc(const char *id)
{
	return strncmp(id, "BXPC", 4) == 0;
}

struct acpi_ids {
	bool any;	 /* some ACPI id was there */
	bool qemu;	 /* some table says QEMU */
	bool other;	 /* and some table's OEM id is not QEMU's */
	const char *oem; /* the first OEM id seen */
	char where[40];	 /* the tables carrying QEMU's ids */
	char other_where[40];
};

static void one_table(struct acpi_ids *a, const char *name, const char *oem, const char *table, const char *creator)
{
	if (!oem[0] && !table[0] && !creator[0])
		return;
	if (!a->any)
		a->oem = oem;
	a->any = true;
	char *w;
	if (qemu_oem(oem) || qemu_bxpc(table) || qemu_bxpc(creator)) {
		a->qemu = true;
		w = a->where;
	} else {
		a->other = true;
		w = a->other_where;
	}
	size_t len = strlen(w);
	snprintf(w + len, sizeof(a->where) - len, "%s%s", len ? ", " : "", name);
}

static struct acpi_ids acpi_ids(const struct platform_evidence *e)
{
	struct acpi_ids a = { .oem = "" };
	one_table(&a, "RSDP", e->rsdp_oem, "", "");
	one_table(&a, e->root_sig[0] ? e->root_sig : "root", e->root_oem, e->root_table, "");
	one_table(&a, "FADT", e->fadt_oem, e->fadt_table, e->fadt_creator);
	return a;
}

static void say_acpi(struct text *t, const struct acpi_ids *a, const struct platform_evidence *e)
{
	if (!a->any) {
		add(t, "no ACPI ids");
		return;
	}
	if (!a->qemu) {
		add(t, "ACPI OEM \"%s\" (not QEMU's)", a->oem);
		return;
	}
	const char *oem = qemu_oem(e->rsdp_oem) ? e->rsdp_oem : qemu_oem(e->root_oem) ? e->root_oem : e->fadt_oem;
	bool bxpc = qemu_bxpc(e->root_table) || qemu_bxpc(e->fadt_table) || qemu_bxpc(e->fadt_creator);
	add(t, "ACPI OEM");
	if (qemu_oem(oem))
		add(t, " \"%s\"", oem);
	add(t, "%s in %s", bxpc ? (qemu_oem(oem) ? " / BXPC" : " BXPC") : "", a->where);
	if (a->other)
		add(t, " (but not in %s)", a->other_where);
}

static bool smbios_qemu(const struct platform_evidence *e)
{
	return strcmp(e->manufacturer, "QEMU") == 0;
}

static void say_smbios(struct text *t, const struct platform_evidence *e)
{
	if (!e->manufacturer[0])
		add(t, "no SMBIOS manufacturer");
	else if (smbios_qemu(e))
		add(t, "SMBIOS manufacturer QEMU");
	else
		add(t, "SMBIOS manufacturer \"%s\" (not QEMU)", e->manufacturer);
	if (e->processor_version[0])
		add(t, ", processor \"%s\"", e->processor_version);
}

/* The UID's 16 bytes are W0-W3, each least significant byte first
 * (SMCCC 7.2 "Call UID Query"), printed as RFC 4122 groups. */
static void say_uid(struct text *t, const uint32_t w[4])
{
	uint8_t b[16];
	for (unsigned i = 0; i < 16; i++)
		b[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
	for (unsigned i = 0; i < 16; i++)
		add(t, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", b[i]);
}

static bool uid_is_kvm(const uint32_t w[4])
{
	return w[0] == KVM_UID_W0 && w[1] == KVM_UID_W1 && w[2] == KVM_UID_W2 && w[3] == KVM_UID_W3;
}

static void say_smccc(struct text *t, const struct platform_evidence *e)
{
	const char *conduit = e->smccc_hvc ? "HVC" : "SMC";
	switch (e->smccc) {
	case SMCCC_NOT_ASKED:
		add(t, "SMCCC not asked: no FADT ARM_BOOT_ARCH to name a conduit");
		return;
	case SMCCC_NO_PSCI:
		add(t, "SMCCC not asked: the FADT's ARM_BOOT_ARCH 0x%04x is not PSCI-compliant (no conduit)",
		    (unsigned)e->arm_boot);
		return;
	case SMCCC_AT_EL2:
		add(t, "SMCCC not asked: the conduit is HVC and the monitor runs at EL2 (nothing above it)");
		return;
	case SMCCC_NO_CALLER:
		add(t, "SMCCC not asked: the platform offers no call");
		return;
	case SMCCC_FAULTED:
		add(t, "SMCCC via %s refused: %s", conduit, e->smccc_why ? e->smccc_why : "an exception");
		return;
	case SMCCC_ANSWERED:
	case SMCCC_NPROBES:
		break;
	}
	add(t, "SMCCC via %s, ", conduit);
	if (e->smccc_version == SMCCC_NOT_SUPPORTED)
		add(t, "SMCCC_VERSION NOT_SUPPORTED (v1.0)");
	else if (e->smccc_version & 0x80000000u)
		add(t, "SMCCC_VERSION error 0x%08x", (unsigned)e->smccc_version);
	else
		add(t, "v%u.%u", (unsigned)(e->smccc_version >> 16), (unsigned)(e->smccc_version & 0xffff));
	add(t, "; vendor hypervisor UID: ");
	if (uid_is_kvm(e->hyp_uid)) {
		add(t, "KVM's (");
		say_uid(t, e->hyp_uid);
		add(t, ")");
	} else if (e->hyp_uid[0] == SMCCC_NOT_SUPPORTED) {
		add(t, "not KVM's (NOT_SUPPORTED)");
	} else {
		say_uid(t, e->hyp_uid);
		add(t, ", not KVM's");
	}
}

static void decide_aarch64(const struct platform_evidence *e, struct platform_decision *d, struct text *t)
{
	struct acpi_ids a = acpi_ids(e);
	bool qemu = a.qemu || smbios_qemu(e);
	bool answered = e->smccc == SMCCC_ANSWERED;
	bool no_uid = answered && e->hyp_uid[0] == SMCCC_NOT_SUPPORTED;
	const char *name;
	if (answered && uid_is_kvm(e->hyp_uid))
		name = "kvm"; /* the hypervisor's own word, whoever built the tables */
	else if (answered && !no_uid)
		name = qemu ? "qemu" : "hypervisor"; /* a UID iommon does not know */
	else if (qemu)
		name = answered ? "qemu-tcg" : "qemu"; /* TCG's own PSCI answers, no accelerator's UID */
	else
		name = "hardware";
	snprintf(d->name, sizeof(d->name), "%s", name);

	say_acpi(t, &a, e);
	add(t, " + ");
	say_smbios(t, e);
	add(t, "; ");
	say_smccc(t, e);
	if (a.qemu != smbios_qemu(e) && a.any && e->manufacturer[0])
		add(t, "; ACPI and SMBIOS disagree on QEMU");
	if (strcmp(name, "qemu") == 0)
		add(t, "; the accelerator is not established");
	else if (strcmp(name, "kvm") == 0 && !qemu)
		add(t, "; no QEMU ids: another KVM VMM");
	else if (strcmp(name, "hardware") == 0 && e->smccc == SMCCC_AT_EL2)
		add(t, "; running at EL2, no hypervisor below EL3");
	else if (strcmp(name, "hardware") == 0 && !answered)
		add(t, "; a hypervisor that names itself nowhere would not be seen");
	if (e->cntfrq)
		add(t, "; CNTFRQ %.1f MHz (noted, not decisive)", (double)e->cntfrq / 1e6);
}

static const struct {
	const char *sig, *name;
} cpuid_vendors[] = {
	{ "TCGTCGTCGTCG", "qemu-tcg" }, { "KVMKVMKVM", "kvm" },		 { "Microsoft Hv", "hyperv" },
	{ "VMwareVMware", "vmware" },	{ "XenVMMXenVMM", "xen" },	 { "bhyve bhyve ", "bhyve" },
	{ "ACRNACRNACRN", "acrn" },	{ " lrpepyh  vr", "parallels" },
};

static void decide_x86_64(const struct platform_evidence *e, struct platform_decision *d, struct text *t)
{
	if (e->cpuid_hv) {
		add(t, "CPUID hypervisor leaf %s", e->cpuid_vendor);
		for (size_t i = 0; i < ARRAY_SIZE(cpuid_vendors); i++) {
			if (strcmp(e->cpuid_vendor, cpuid_vendors[i].sig) == 0) {
				snprintf(d->name, sizeof(d->name), "%s", cpuid_vendors[i].name);
				return;
			}
		}
		snprintf(d->name, sizeof(d->name), "hypervisor");
		add(t, " (a vendor iommon does not know)");
		return;
	}
	/* no hypervisor bit: QEMU's own tables still say QEMU (a CPU model
	 * with the bit hidden), though not under which accelerator */
	struct acpi_ids a = acpi_ids(e);
	bool qemu = a.qemu || smbios_qemu(e);
	snprintf(d->name, sizeof(d->name), "%s", qemu ? "qemu" : "hardware");
	add(t, "CPUID.1:ECX[31] clear (no hypervisor bit)");
	if (qemu) {
		add(t, ", but ");
		say_acpi(t, &a, e);
		add(t, " + ");
		say_smbios(t, e);
		add(t, "; the accelerator is not established");
	}
}

static void decide_riscv64(const struct platform_evidence *e, struct platform_decision *d, struct text *t)
{
	struct acpi_ids a = acpi_ids(e);
	bool model_qemu = strstr(e->fdt_model, "qemu") != NULL;
	bool qemu = model_qemu || a.qemu || smbios_qemu(e);
	const char *name;
	if (e->sbi_impl == SBI_IMPL_KVM)
		name = "kvm"; /* the hypervisor answers the ecalls itself */
	else if (qemu)
		name = e->sbi_impl ? "qemu-tcg" : "qemu"; /* the firmware's own SBI in emulated M-mode */
	else
		name = "hardware";
	snprintf(d->name, sizeof(d->name), "%s", name);
	if (e->fdt_model[0])
		add(t, "device tree model \"%s\"", e->fdt_model);
	else
		add(t, "no device tree model");
	add(t, " + ");
	say_smbios(t, e);
	if (e->sbi_impl)
		add(t, "; SBI implementation %llu%s, version 0x%llx", (unsigned long long)e->sbi_impl,
		    e->sbi_impl == SBI_IMPL_OPENSBI ? " (OpenSBI)"
		    : e->sbi_impl == SBI_IMPL_KVM   ? " (KVM)"
						    : "",
		    (unsigned long long)e->sbi_impl_version);
	else
		add(t, "; the SBI's base extension did not answer");
	if (strcmp(name, "qemu") == 0)
		add(t, "; the accelerator is not established");
}

void platform_decide(const struct platform_evidence *e, struct platform_decision *d)
{
	struct text t = { d->how, sizeof(d->how), 0 };
	d->how[0] = '\0';
	if (e->arch == PLATFORM_AARCH64)
		decide_aarch64(e, d, &t);
	else if (e->arch == PLATFORM_RISCV64)
		decide_riscv64(e, d, &t);
	else
		decide_x86_64(e, d, &t);
}

/* ---- the evidence -------------------------------------------------------- */

static void copy_id(char *dst, size_t cap, const char *src, size_t n)
{
	size_t i = 0;
	for (; src && i < n && i + 1 < cap && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

void platform_evidence_tables(struct platform_evidence *e, const struct acpi *acpi, const struct smbios *smbios)
{
	e->rsdp_oem[0] = e->root_sig[0] = e->root_oem[0] = e->root_table[0] = '\0';
	e->fadt_oem[0] = e->fadt_table[0] = e->fadt_creator[0] = '\0';
	e->manufacturer[0] = e->processor_version[0] = '\0';
	if (acpi && acpi->present) {
		copy_id(e->rsdp_oem, sizeof(e->rsdp_oem), acpi->oem_id, 6);
		if (acpi->root) {
			copy_id(e->root_sig, sizeof(e->root_sig), acpi->root->signature, 4);
			copy_id(e->root_oem, sizeof(e->root_oem), acpi->root->oem_id, 6);
			copy_id(e->root_table, sizeof(e->root_table), acpi->root->oem_table_id, 8);
		}
		const struct acpi_header *f = acpi_find(acpi, "FACP", 0);
		if (f) {
			copy_id(e->fadt_oem, sizeof(e->fadt_oem), f->oem_id, 6);
			copy_id(e->fadt_table, sizeof(e->fadt_table), f->oem_table_id, 8);
			copy_id(e->fadt_creator, sizeof(e->fadt_creator), f->creator_id, 4);
		}
	}
	if (smbios && smbios->walked) {
		copy_id(e->manufacturer, sizeof(e->manufacturer), smbios->manufacturer, SMBIOS_STR_MAX);
		copy_id(e->processor_version, sizeof(e->processor_version), smbios->processor_version, SMBIOS_STR_MAX);
	}
}

#if defined(__aarch64__)
/* The FADT names the conduit (ARM_BOOT_ARCH); without PSCI_COMPLIANT an
 * SMCCC caller has none and issues nothing. SMCCC_VERSION first: a v1.0
 * implementation answers it NOT_SUPPORTED, as it must any function id it
 * does not know (DEN0028 5.2), so the order costs nothing and the version
 * is on record before the vendor range is asked. */
static void gather_arch(const struct acpi *acpi, struct platform_evidence *e)
{
	e->arch = PLATFORM_AARCH64;
	e->cntfrq = cntfrq();
	e->el = current_el();
	e->smccc = SMCCC_NOT_ASKED;
	if (!acpi || !acpi->present || acpi_fadt_arm_boot(acpi_find(acpi, "FACP", 0), &e->arm_boot) != 0)
		return;
	e->smccc_hvc = e->arm_boot & ACPI_ARM_PSCI_USE_HVC;
	if (!(e->arm_boot & ACPI_ARM_PSCI_COMPLIANT)) {
		e->smccc = SMCCC_NO_PSCI;
		return;
	}
	if (e->smccc_hvc && e->el >= 2) {
		e->smccc = SMCCC_AT_EL2;
		return;
	}
	if (!platform->smccc) {
		e->smccc = SMCCC_NO_CALLER;
		return;
	}
	uint64_t res[4];
	if (!platform->smccc(e->smccc_hvc, SMCCC_VERSION_FID, res, &e->smccc_why)) {
		e->smccc = SMCCC_FAULTED;
		return;
	}
	e->smccc_version = (uint32_t)res[0];
	if (!platform->smccc(e->smccc_hvc, SMCCC_VENDOR_HYP_CALL_UID_FID, res, &e->smccc_why)) {
		e->smccc = SMCCC_FAULTED;
		return;
	}
	for (unsigned i = 0; i < 4; i++)
		e->hyp_uid[i] = (uint32_t)res[i];
	e->smccc = SMCCC_ANSWERED;
}
#elif defined(__riscv)
static void gather_arch(const struct acpi *acpi, struct platform_evidence *e)
{
	(void)acpi;
	e->arch = PLATFORM_RISCV64;
	e->sbi_impl = riscv_sbi_base(1);
	e->sbi_impl_version = riscv_sbi_base(2);
	e->fdt_model[0] = '\0';
	const uint8_t *b = platform->device_tree ? platform->device_tree() : NULL;
	size_t total = b ? (size_t)b[4] << 24 | (size_t)b[5] << 16 | (size_t)b[6] << 8 | b[7] : 0;
	struct fdt f;
	if (!b || total > (4u << 20) || fdt_parse(b, total, &f) != 0)
		return;
	const struct fdt_prop *m = fdt_prop(&f, fdt_path(&f, "/"), "model");
	if (m && m->len)
		copy_id(e->fdt_model, sizeof(e->fdt_model), (const char *)m->val, m->len);
	fdt_free(&f);
}
#else
static void gather_arch(const struct acpi *acpi, struct platform_evidence *e)
{
	(void)acpi;
	e->arch = PLATFORM_X86_64;
	e->cpuid_hv = (cpuid(1, 0).ecx >> 31) & 1;
	e->cpuid_vendor[0] = '\0';
	if (!e->cpuid_hv)
		return;
	struct cpuid_regs r = cpuid(0x40000000, 0);
	char v[12];
	memcpy(v + 0, &r.ebx, 4);
	memcpy(v + 4, &r.ecx, 4);
	memcpy(v + 8, &r.edx, 4);
	/* KVM's is "KVMKVMKVM\0\0\0": the string ends at its first NUL */
	copy_id(e->cpuid_vendor, sizeof(e->cpuid_vendor), v, 12);
}
#endif

void platform_identify(const struct acpi *acpi, const struct smbios *smbios)
{
	static struct platform_evidence e;
	static struct platform_decision d;
	memset(&e, 0, sizeof(e));
	platform_evidence_tables(&e, acpi, smbios);
	gather_arch(acpi, &e);
	platform_decide(&e, &d);
	snprintf(timing.platform, sizeof(timing.platform), "%s", d.name);
	snprintf(timing.platform_how, sizeof(timing.platform_how), "%s", d.how);
	snprintf(timing.hypervisor, sizeof(timing.hypervisor), "%s", e.arch == PLATFORM_X86_64 ? e.cpuid_vendor : "");
}
