/* The VT-d driver on a unit the firmware left protecting memory
 * (iommu/vtd/live.c), against the model's firmware (model_fw.c): its
 * tables kept live and put back byte for byte, its boot device reaching
 * its page throughout, protected memory regions lifted only under tables
 * of ours and enforced again, and the two faults a take-over must refuse
 * with the firmware's state untouched: a queue that never drains and a
 * root pointer that never latches; and pointers the firmware left that
 * are not its memory (another device's window, free memory, pages freed
 * and filled with 0xAF, a table with reserved bits set): refused by
 * name, nothing written. */
#include "unit.h"

#include <string.h>

#include "core/base/claims.h"
#include "core/base/memmap.h"
#include "core/base/timing.h"
#include "iommu/vtd/model.h"
#include "iommu/vtd/vtd.h"
#include "tests/host/platform_host.h"

static struct vtd_model m;
static struct vtd v;
static uint8_t buf[4096] __attribute__((aligned(4096)));

#define DUT_SID 0x1000 /* 10:00.0: a bus the firmware gave no context table */

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

static void open_with(uint64_t cap, enum vtdm_fw fw)
{
	vtdm_init(&m, cap, VTDM_QEMU_ECAP);
	memset(&v, 0, sizeof(v));
	assert_null(vtd_init(&v, &m.win, "model0", NULL, NULL, 0));
	vtdm_firmware(&m, fw);
}

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.forbidden, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

static bool reaches(uint16_t sid, uint64_t iova, uint64_t want)
{
	uint64_t phys = 0;
	return vtdm_translate(&m, sid, iova, true, &phys) && phys == want;
}

static void live_take_keeps_the_firmware_tables(void **state)
{
	(void)state;
	open_with(VTDM_QEMU_CAP, VTDM_FW_ON);
	static uint64_t root_before[512], ctx_before[512];
	const uint64_t *root = (const uint64_t *)(uintptr_t)(m.rtaddr & ~0xfffull);
	const uint64_t *ctx = (const uint64_t *)(uintptr_t)(root[0] & ~0xfffull);
	memcpy(root_before, root, sizeof(root_before));
	memcpy(ctx_before, ctx, sizeof(ctx_before));
	uint64_t rtaddr = m.rtaddr;
	assert_false(reaches(DUT_SID, (uint64_t)(uintptr_t)buf, (uint64_t)(uintptr_t)buf)); /* blocked */

	assert_null(v.io.ops->take(&v.io));
	assert_true(v.live);
	assert_int_equal(m.rtaddr, rtaddr); /* never switched */
	assert_true(m.gsts & (1u << 31));
	struct pci_addr dut = { .bus = 0x10 };
	assert_null(v.io.ops->attach(&v.io, dut, IOMMU_TRANSLATE));
	assert_null(v.io.ops->map(&v.io, 0x40000000, (uint64_t)(uintptr_t)buf, 4096, IOMMU_RW, 4096));
	assert_true(reaches(DUT_SID, 0x40000000, (uint64_t)(uintptr_t)buf));
	assert_true(reaches(VTDM_FW_SID, m.fw_page, m.fw_page)); /* the boot device keeps its page */
	assert_false(reaches(DUT_SID, m.fw_page, m.fw_page));
	/* the firmware's own domain id is not one of ours */
	assert_true(v.dut.did != 1 && v.ident.did != 1 && v.alt.did != 1);
	/* translation cannot be turned off for the baseline: it would open a window */
	assert_non_null(v.io.ops->enable(&v.io, false));
	assert_int_equal(v.io.err, IOMMU_ERR_FIRMWARE);

	assert_null(v.io.ops->give_back(&v.io));
	assert_int_equal(memcmp(root, root_before, sizeof(root_before)), 0);
	assert_int_equal(memcmp(ctx, ctx_before, sizeof(ctx_before)), 0);
	assert_true(m.gsts & (1u << 31));
	assert_false(reaches(DUT_SID, 0x40000000, (uint64_t)(uintptr_t)buf)); /* blocked again, caches too */
	assert_true(reaches(VTDM_FW_SID, m.fw_page, m.fw_page));
	char note[200];
	assert_true(vtd_as_found(&v, note, sizeof(note)));
	assert_clean();
}

/* The firmware's regions stay until tables of ours translate; the
 * bystanders' identity leaves them out; give-back enforces them again
 * before translation goes off. */
static void regions_lifted_under_our_tables(void **state)
{
	(void)state;
	open_with(VTDM_QEMU_CAP | 3ull << 5, VTDM_FW_PMR);
	assert_int_equal(m.pmen, 1u << 31 | 1u);
	assert_false(reaches(DUT_SID, (uint64_t)(uintptr_t)buf, (uint64_t)(uintptr_t)buf));
	assert_null(v.io.ops->take(&v.io));
	assert_int_equal(m.pmen, 0);
	assert_true(m.gsts & (1u << 31));
	/* a bystander: not inside the low region (0-2 GiB), which its identity leaves out */
	assert_false(reaches(VTDM_FW_SID, 0x1000, 0x1000));
	assert_true(reaches(VTDM_FW_SID, 0x80000000ull, 0x80000000ull));
	assert_null(v.io.ops->give_back(&v.io));
	assert_int_equal(m.pmen, 1u << 31 | 1u);
	assert_false(m.gsts & (1u << 31));
	unsigned blocked = m.pmr_blocked;
	assert_false(reaches(DUT_SID, (uint64_t)(uintptr_t)buf, (uint64_t)(uintptr_t)buf));
	assert_int_equal(m.pmr_blocked, blocked + 1);
	char note[200];
	assert_true(vtd_as_found(&v, note, sizeof(note)));
	assert_clean();
}

/* A root pointer that never latches: a named time-out, the regions never
 * lifted, the registers as found. */
static void root_that_never_latches(void **state)
{
	(void)state;
	open_with(VTDM_QEMU_CAP | 3ull << 5, VTDM_FW_PMR);
	m.no_latch = true;
	const char *why = v.io.ops->take(&v.io);
	assert_non_null(why);
	assert_non_null(strstr(why, "RTPS"));
	assert_int_equal(v.io.err, IOMMU_ERR_TIMEOUT);
	assert_false(v.io.taken);
	assert_int_equal(m.pmen, 1u << 31 | 1u);
	char note[200];
	assert_true(vtd_as_found(&v, note, sizeof(note)));
}

/* A firmware queue that never drains: a named time-out, nothing added to
 * it, its tail as found. */
static void queue_that_never_drains(void **state)
{
	(void)state;
	open_with(VTDM_QEMU_CAP, VTDM_FW_QUEUE);
	m.stall_queue = true;
	m.iqt = m.iqh + 0x10;
	uint64_t iqt = m.iqt, iqa = m.iqa;
	const char *why = v.io.ops->take(&v.io);
	assert_non_null(why);
	assert_non_null(strstr(why, "did not drain"));
	assert_int_equal(v.io.err, IOMMU_ERR_TIMEOUT);
	assert_int_equal(m.iqt, iqt);
	assert_int_equal(m.iqa, iqa);
	assert_true(m.gsts & (1u << 26));
	char note[200];
	assert_true(vtd_as_found(&v, note, sizeof(note)));
}

/* What the audit reads: everything the firmware left, and no write. */
static void firmware_left_reads_only(void **state)
{
	(void)state;
	open_with(VTDM_QEMU_CAP, VTDM_FW_QUEUE);
	struct iommu_fw_state st;
	v.io.ops->firmware_left(&v.io, &st);
	assert_int_equal(m.writes, 0);
	assert_true(st.translating && st.queue && st.intremap);
	assert_false(st.blocking || st.promised);
	assert_non_null(strstr(st.state, "translation on"));
	open_with(VTDM_QEMU_CAP | 3ull << 5, VTDM_FW_PMR);
	v.io.ops->firmware_left(&v.io, &st);
	assert_int_equal(m.writes, 0);
	assert_true(st.blocking && !st.translating);
	assert_non_null(strstr(st.state, "protected memory regions on (low 0x0-0x7fffffff"));
}

/* The firmware re-points the unit at a root table of the test's (a copy of
 * its own), as firmware whose tables moved would. */
static uint64_t moved_root[512] __attribute__((aligned(4096)));

static void repoint_root(void)
{
	memcpy(moved_root, (const void *)(uintptr_t)(m.rtaddr & ~0xfffull), sizeof(moved_root));
	regwin_write64(&m.win, 0x20, (uint64_t)(uintptr_t)moved_root);
	regwin_write32(&m.win, 0x18, (m.gsts & 0x96800000u) | 1u << 30);
	m.writes = 0;
}

/* Refused by name with nothing written: no register, no table byte. */
static void assert_refused_untouched(const char *want, const void *table, size_t len)
{
	static uint8_t before[4096];
	memcpy(before, table, len);
	uint32_t gsts = m.gsts;
	const char *why = v.io.ops->take(&v.io);
	if (!why || !strstr(why, want))
		fail_msg("want a refusal naming \"%s\", got \"%s\"", want, why ? why : "(taken)");
	assert_int_equal(v.io.err, IOMMU_ERR_FIRMWARE);
	assert_false(v.io.taken);
	assert_int_equal(m.writes, 0);
	assert_int_equal(m.gsts, gsts);
	assert_memory_equal(before, table, len);
	assert_clean();
}

static void root_table_in_a_devices_window(void **state)
{
	(void)state;
	open_with(VTDM_QEMU_CAP, VTDM_FW_ON);
	uint64_t rt = m.rtaddr & ~0xfffull;
	claims_reset();
	claims_add(CLAIM_DEVICE, rt, 4096, "the configuration header of 0000:00:01.0");
	assert_refused_untouched("lies in the configuration header of 0000:00:01.0", (void *)(uintptr_t)rt, 4096);
	claims_reset();
}

static void root_table_in_free_memory(void **state)
{
	(void)state;
	open_with(VTDM_QEMU_CAP, VTDM_FW_ON);
	repoint_root();
	uint64_t a = (uint64_t)(uintptr_t)moved_root;
	/* no map: the pointer cannot be checked, so it is not followed */
	host_set_memory_map(NULL, 0);
	assert_refused_untouched("no memory map to check it against", moved_root, 4096);
	struct mem_range freed[] = { { a, a + 4096, MEM_CONVENTIONAL } };
	host_set_memory_map(freed, 1);
	assert_refused_untouched("conventional RAM at", moved_root, 4096);
	struct mem_range mine[] = { { a, a + 4096, MEM_LOADER_DATA } };
	host_set_memory_map(mine, 1);
	assert_refused_untouched(", the monitor's", moved_root, 4096);
	/* the firmware's boot-services data: taken, and given back as found */
	struct mem_range kept[] = { { a, a + 4096, MEM_BOOT_DATA } };
	host_set_memory_map(kept, 1);
	assert_null(v.io.ops->take(&v.io));
	assert_null(v.io.ops->give_back(&v.io));
	char note[200];
	assert_true(vtd_as_found(&v, note, sizeof(note)));
	host_set_memory_map(NULL, 0);
}

/* Translation on over tables the firmware then freed and EDK II filled
 * with 0xAF (in memory the map still gives the firmware): reserved bits. */
static void root_table_freed_and_filled(void **state)
{
	(void)state;
	open_with(VTDM_QEMU_CAP, VTDM_FW_ON);
	repoint_root();
	uint64_t a = (uint64_t)(uintptr_t)moved_root;
	struct mem_range kept[] = { { a, a + 4096, MEM_BOOT_DATA } };
	host_set_memory_map(kept, 1);
	memset(moved_root, 0xaf, sizeof(moved_root));
	assert_refused_untouched("0xAF: a freed page", moved_root, 4096);
	/* one context entry with a reserved type (TT 3) in a table that is
	 * otherwise the firmware's own */
	open_with(VTDM_QEMU_CAP, VTDM_FW_ON);
	repoint_root();
	uint64_t *ctx = (uint64_t *)(uintptr_t)(moved_root[0] & ~0xfffull);
	uint64_t saved = ctx[2 * 5];
	ctx[2 * 5] = 1 | 3u << 2;
	assert_refused_untouched("00:00.5's entry 0x", moved_root, 4096);
	ctx[2 * 5] = saved;
	/* a context table pointer into a device's window */
	moved_root[2 * 7] = 0xb0000000ull | 1;
	claims_reset();
	claims_add(CLAIM_DEVICE, 0xb0000000ull, 1 << 20, "the ECAM window of segment 0 buses 00-00");
	assert_refused_untouched(
	    "bus 07's context table 0xb0000000 is not the firmware's: 0xb0000000-0xb0000fff lies in the ECAM",
	    moved_root, 4096);
	claims_reset();
	host_set_memory_map(NULL, 0);
}

/* A running invalidation queue on another device's page, translation on
 * or off: nothing added to it, its registers as found. */
static void queue_in_a_devices_window(void **state)
{
	(void)state;
	for (int te = 1; te >= 0; te--) {
		open_with(VTDM_QEMU_CAP, VTDM_FW_QUEUE);
		if (!te) {
			regwin_write32(&m.win, 0x18, (m.gsts & 0x96800000u) & ~(1u << 31));
			m.writes = 0;
		}
		uint64_t iq = m.iqa & ~0xfffull, iqt = m.iqt;
		claims_reset();
		claims_add(CLAIM_DEVICE, iq, 4096, "BAR0 of 0000:00:02.0");
		assert_refused_untouched("the running queue (IQA", (void *)(uintptr_t)iq, 4096);
		assert_int_equal(m.iqt, iqt);
		claims_reset();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(live_take_keeps_the_firmware_tables),
		cmocka_unit_test(regions_lifted_under_our_tables),
		cmocka_unit_test(root_that_never_latches),
		cmocka_unit_test(queue_that_never_drains),
		cmocka_unit_test(firmware_left_reads_only),
		cmocka_unit_test(root_table_in_a_devices_window),
		cmocka_unit_test(root_table_in_free_memory),
		cmocka_unit_test(root_table_freed_and_filled),
		cmocka_unit_test(queue_in_a_devices_window),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
