#include "early.h"

#include "core/base/claims.h"
#include "core/base/cpu.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "core/tables/acpi.h"
#include "core/tables/fdt.h"
#include "core/tables/mcfg.h"
#include "monitor.h"

void early_claim_ecam(const struct mcfg *m)
{
	for (size_t i = 0; m && i < m->n; i++) {
		const struct mcfg_region *r = &m->r[i];
		uint64_t first = r->base + ((uint64_t)r->start_bus << 20);
		if (first >= r->base && r->end_bus >= r->start_bus)
			claims_add(CLAIM_DEVICE, first, (uint64_t)(r->end_bus - r->start_bus + 1) << 20,
				   "the ECAM window of segment %u buses %02x-%02x (MCFG)", r->segment, r->start_bus,
				   r->end_bus);
	}
}

void early_timing_refs(const struct acpi *acpi, struct timing_refs *out)
{
	*out = (struct timing_refs){ 0 };
	struct acpi_pmtimer pm;
	if (acpi && acpi_fadt_pmtimer(acpi_find(acpi, "FACP", 0), &pm) == 0) {
		out->pmtimer = true;
		out->pm = (struct timing_pmtimer){ .io = pm.space == ACPI_SPACE_IO,
						   .address = pm.address,
						   .bits32 = pm.bits32 };
	}
	if (acpi && acpi_hpet_base(acpi_find(acpi, "HPET", 0), &out->hpet_base) == 0)
		out->hpet = true;
	out->timebase_hz = early_fdt_timebase();
	/* EDK II on a RISC-V server describes the harts by ACPI alone: the
	 * RHCT's time base frequency is the same clock */
	uint64_t hz = 0;
	unsigned cbom;
	if (!out->timebase_hz && acpi && acpi_rhct(acpi_find(acpi, "RHCT", 0), &hz, &cbom) == 0 && hz) {
		out->timebase_hz = hz;
		out->timebase_from = "the RHCT's time base frequency";
	}
}

/* Read once a boot (the timer, the CPU facts, the PCI host and each
 * discovery ask): the tree the firmware installed does not change. */
static const uint8_t *read_from;

void early_fdt_forget(void)
{
	read_from = NULL;
}

const struct fdt_platform *early_fdt(void)
{
	static struct fdt_platform once;
	const uint8_t *b = platform->device_tree ? platform->device_tree() : NULL;
	if (!b)
		return NULL;
	if (b != read_from) {
		size_t total = (size_t)b[4] << 24 | (size_t)b[5] << 16 | (size_t)b[6] << 8 | b[7];
		struct fdt f;
		if (total > (4u << 20) || fdt_parse(b, total, &f) != 0)
			return NULL;
		fdt_platform_read(&f, &once);
		fdt_free(&f);
		read_from = b;
	}
	return &once;
}

uint64_t early_fdt_timebase(void)
{
	const struct fdt_platform *p = early_fdt();
	return p ? p->timebase_hz : 0;
}

void early_cpu_facts(const struct acpi *acpi)
{
#if defined(__riscv)
	const struct fdt_platform *p = early_fdt();
	if (p) {
		riscv_cbom_block = p->cbom_block;
		riscv_test_finisher = p->test_finisher;
		return;
	}
	/* under ACPI the RHCT's CMO node gives the block size; no table
	 * names QEMU's test finisher (`exit qemu` uses the SBI's reset) */
	uint64_t hz;
	unsigned cbom = 0;
	if (acpi && acpi_rhct(acpi_find(acpi, "RHCT", 0), &hz, &cbom) == 0)
		riscv_cbom_block = cbom;
#else
	(void)acpi;
#endif
}
void timing_init(const struct acpi *acpi, const char *prefer)
{
	struct timing_refs refs;
	early_timing_refs(acpi, &refs);
	timing_calibrate(&refs, prefer);
}
