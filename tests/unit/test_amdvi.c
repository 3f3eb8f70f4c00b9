/* The AMD-Vi driver against the register-level AMD-Vi model (two readings
 * of the spec, neither including the other's header): what QEMU 7.2 cannot
 * show. Its event log is dead there, its page invalidation drops the whole
 * domain, and it never refuses a command; here each fault is an event the
 * driver decodes, an overflow is reported, a page invalidation drops only
 * the pages it names, and an illegal command is reported and recovered
 * from. */
#include "unit.h"

#include "core/base/platform.h"
#include "core/base/timing.h"
#include "iommu/amdvi/amdvi.h"
#include "iommu/amdvi/model.h"
#include "tests/host/platform_host.h"

static struct amdvi_model m;
static struct amdvi a;
static const struct pci_addr dev = { 0, 0x10, 1, 0 }; /* requester id 0x1008 */
#define DEVID 0x1008
#define IOVA 0x40000000ull

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

/* A fresh model and driver, the unit taken and the device in a domain. */
static void open_unit(void)
{
	amdvim_init(&m);
	assert_null(amdvi_init(&a, &m.win, "amdvi-model", NULL, NULL, NULL));
	assert_null(a.io.ops->take(&a.io));
	assert_null(a.io.ops->attach(&a.io, dev, IOMMU_TRANSLATE));
}

static size_t kind(const char *name)
{
	for (size_t k = 0; k < a.io.nkinds; k++)
		if (strcmp(a.io.kinds[k].name, name) == 0)
			return k;
	fail_msg("no invalidation kind %s", name);
	return 0;
}

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.protocol_errors, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

static void close_unit(void)
{
	assert_null(a.io.ops->give_back(&a.io));
	char note[200];
	assert_true(a.io.ops->as_found(&a.io, note, sizeof(note)));
	assert_clean();
}

/* Where the model's DMA lands is where the driver's own walk says. */
static void translates_where_the_walk_says(void **state)
{
	(void)state;
	open_unit();
	assert_null(a.io.ops->map(&a.io, IOVA, 0x7000000, PAGE_SIZE, IOMMU_RW, PAGE_SIZE));
	assert_null(a.io.ops->map(&a.io, IOVA + PAGE_SIZE, 0x7001000, PAGE_SIZE, IOMMU_R, PAGE_SIZE));
	assert_null(a.io.ops->map(&a.io, IOVA + (2 << 20), 0x8000000, 2 << 20, IOMMU_RW, 2 << 20));
	const uint64_t probes[] = { IOVA + 8, IOVA + PAGE_SIZE + 16, IOVA + (2 << 20) + 0x12345 };
	for (size_t i = 0; i < 3; i++) {
		uint64_t walked, page, dma;
		unsigned perm;
		assert_true(a.io.ops->iova_to_phys(&a.io, probes[i], &walked, &perm, &page));
		assert_true(amdvim_translate(&m, DEVID, probes[i], false, &dma));
		assert_int_equal(dma, walked);
		assert_int_equal(amdvim_translate(&m, DEVID, probes[i], true, &dma), (perm & IOMMU_W) != 0);
	}
	struct iommu_fault f[4];
	bool overflow;
	a.io.ops->faults(&a.io, f, 4, &overflow); /* the refused write's event */
	close_unit();
}

/* A forbidden DMA is an event the driver decodes: the requester, the
 * address, the direction and why; an unmapped read and a write to a
 * read-only page are told apart. */
static void faults_are_decoded_events(void **state)
{
	(void)state;
	open_unit();
	assert_null(a.io.ops->map(&a.io, IOVA, 0x7000000, PAGE_SIZE, IOMMU_R, PAGE_SIZE));
	uint64_t dma;
	assert_false(amdvim_translate(&m, DEVID, IOVA + 0x40, true, &dma));
	assert_false(amdvim_translate(&m, DEVID, IOVA + 16 * PAGE_SIZE, false, &dma));
	assert_true(a.io.ops->fault_pending(&a.io));
	struct iommu_fault f[4];
	bool overflow = true;
	assert_int_equal(a.io.ops->faults(&a.io, f, 4, &overflow), 2);
	assert_false(overflow);
	assert_int_equal(f[0].kind, IOMMU_FAULT_WRITE_DENIED);
	assert_true(f[0].sid_known && f[0].addr_known && f[0].dir_known);
	assert_int_equal(f[0].sid, DEVID);
	assert_int_equal(f[0].addr & ~(PAGE_SIZE - 1), IOVA);
	assert_false(f[0].read);
	assert_int_equal(f[1].kind, IOMMU_FAULT_NOT_PRESENT);
	assert_int_equal(f[1].addr & ~(PAGE_SIZE - 1), IOVA + 16 * PAGE_SIZE);
	assert_true(f[1].read);
	assert_non_null(f[1].why);
	assert_false(a.io.ops->fault_pending(&a.io)); /* consumed */
	close_unit();
}

/* A full log drops events: the driver says some were lost, and the log
 * records again once it has been read. */
static void an_overflow_is_reported(void **state)
{
	(void)state;
	open_unit();
	m.log_full = true;
	uint64_t dma;
	assert_false(amdvim_translate(&m, DEVID, IOVA, false, &dma));
	struct iommu_fault f[4];
	bool overflow = false;
	a.io.ops->faults(&a.io, f, 4, &overflow);
	assert_true(overflow);
	m.log_full = false;
	assert_false(amdvim_translate(&m, DEVID, IOVA + PAGE_SIZE, false, &dma));
	assert_int_equal(a.io.ops->faults(&a.io, f, 4, &overflow), 1);
	assert_false(overflow);
	assert_int_equal(f[0].addr & ~(PAGE_SIZE - 1), IOVA + PAGE_SIZE);
	close_unit();
}

/* INVALIDATE_IOMMU_PAGES drops the pages it names and no others (QEMU 7.2
 * drops the whole domain, whatever the address); the domain-wide form
 * drops them all. */
static void page_invalidation_is_precise(void **state)
{
	(void)state;
	open_unit();
	const uint64_t A = IOVA, B = IOVA + 64 * PAGE_SIZE;
	assert_null(a.io.ops->map(&a.io, A, 0x7000000, PAGE_SIZE, IOMMU_RW, PAGE_SIZE));
	assert_null(a.io.ops->map(&a.io, B, 0x7100000, PAGE_SIZE, IOMMU_RW, PAGE_SIZE));
	uint64_t dma;
	assert_true(amdvim_translate(&m, DEVID, A, false, &dma)); /* both cached */
	assert_true(amdvim_translate(&m, DEVID, B, false, &dma));
	assert_null(amdvi_leaf_repoint(&a, A, 0x7200000));
	assert_null(amdvi_leaf_repoint(&a, B, 0x7300000));
	assert_true(amdvim_translate(&m, DEVID, B, false, &dma));
	assert_int_equal(dma, 0x7100000); /* stale until invalidated */
	assert_null(a.io.ops->invalidate(&a.io, kind("cmd-page"), B, PAGE_SIZE));
	assert_true(amdvim_translate(&m, DEVID, B, false, &dma));
	assert_int_equal(dma, 0x7300000);
	assert_true(amdvim_translate(&m, DEVID, A, false, &dma));
	assert_int_equal(dma, 0x7000000); /* A was not named: still the cached one */
	assert_null(a.io.ops->invalidate(&a.io, kind("cmd-domain"), 0, 0));
	assert_true(amdvim_translate(&m, DEVID, A, false, &dma));
	assert_int_equal(dma, 0x7200000);
	close_unit();
}

/* A command the unit calls illegal stops the buffer: the driver names it
 * (IOMMU_ERR_HARDWARE), restarts the buffer, and the next command runs. */
static void an_illegal_command_is_recovered_from(void **state)
{
	(void)state;
	open_unit();
	m.illegal_next = true;
	a.io.err = IOMMU_OK;
	assert_non_null(a.io.ops->invalidate(&a.io, kind("cmd-all"), 0, 0));
	assert_int_equal(a.io.err, IOMMU_ERR_HARDWARE);
	struct iommu_fault f[4];
	bool overflow;
	a.io.ops->faults(&a.io, f, 4, &overflow); /* the ILLEGAL_COMMAND event */
	unsigned before = m.commands;
	assert_null(a.io.ops->invalidate(&a.io, kind("cmd-all"), 0, 0));
	assert_true(m.commands > before);
	close_unit();
}

/* A COMPLETION_WAIT that never completes: the wait ends at its deadline
 * with IOMMU_ERR_TIMEOUT, and the unit still goes back as found. */
static void a_completion_that_never_comes_times_out(void **state)
{
	(void)state;
	open_unit();
	m.cwait_stuck = true;
	a.io.err = IOMMU_OK;
	assert_non_null(a.io.ops->invalidate(&a.io, kind("cmd-page"), IOVA, PAGE_SIZE));
	assert_int_equal(a.io.err, IOMMU_ERR_TIMEOUT);
	m.cwait_stuck = false;
	a.io.ops->give_back(&a.io);
	char note[200];
	assert_true(a.io.ops->as_found(&a.io, note, sizeof(note)));
}

/* A unit the firmware left translating is not taken. */
static void an_enabled_unit_is_refused(void **state)
{
	(void)state;
	amdvim_init(&m);
	assert_null(amdvi_init(&a, &m.win, "amdvi-model", NULL, NULL, NULL));
	regwin_write64(&m.win, 0x18, regwin_read64(&m.win, 0x18) | 1); /* Control.IommuEn, by the "firmware" */
	a.io.err = IOMMU_OK;
	assert_non_null(a.io.ops->take(&a.io));
	assert_int_equal(a.io.err, IOMMU_ERR_FIRMWARE);
	assert_int_equal(regwin_read64(&m.win, 0x18) & 1, 1); /* left as it was */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(translates_where_the_walk_says),
		cmocka_unit_test(faults_are_decoded_events),
		cmocka_unit_test(an_overflow_is_reported),
		cmocka_unit_test(page_invalidation_is_precise),
		cmocka_unit_test(an_illegal_command_is_recovered_from),
		cmocka_unit_test(a_completion_that_never_comes_times_out),
		cmocka_unit_test(an_enabled_unit_is_refused),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
