/* NVMe transfers in flight at once (pci/nvme_stream.c) against the
 * controller model: completions taken in the order the controller posts
 * them, each slot with a PRP list page of its own, the limits of the
 * queue, and a completion that never comes stopping the controller within
 * its deadline. Time is simulated as in test_nvme.c (1 MHz). */
#include "unit.h"

#include "core/base/timing.h"
#include "pci/dma.h"
#include "pci/nvme.h"
#include "tests/host/platform_host.h"

#include "nvme_model.h"

#define LEN 16384 /* four pages: a PRP list each */

static uint8_t bufs[32][LEN] __attribute__((aligned(4096)));
static struct platform fake;

static int setup(void **state)
{
	(void)state;
	fake = host_platform;
	fake.device_claim = NULL;
	fake.device_release = NULL;
	platform = &fake;
	timing.tsc_hz = 1000000; /* one cycle stands for one microsecond */
	return 0;
}

static struct dma_engine *open_healthy(void)
{
	healthy(1);
	const char *why = NULL;
	struct dma_engine *e = nvme_open_window(&pcfg, &dev, &bar, &why);
	assert_non_null(e);
	assert_non_null(e->queue);
	assert_non_null(e->reap);
	return e;
}

/* Eight reads in flight, completed last first: each reap names the one
 * that completed, every buffer is filled, each command had its own PRP
 * list page inside the driver's own memory; then transfer() works again. */
static void out_of_order(void **state)
{
	(void)state;
	struct dma_engine *e = open_healthy();
	assert_int_equal(e->caps.max_inflight, 32); /* MQES 63: 62 could be, a PRP list page each for 32 */
	const struct dma_range *lists = &e->own[e->nown - 1];
	assert_int_equal(lists->len, 32 * 4096);
	m.io_hold = true;
	memset(bufs, 0, sizeof(bufs));
	unsigned tags[8];
	struct dma_result r;
	unsigned before = m.nio;
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(e->queue(e, DMA_FROM_DEVICE, (uintptr_t)bufs[i], LEN, &tags[i], &r), DMA_OK);
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(tags[i], tags[j]);
	}
	assert_int_equal(m.nheld, 8);
	for (unsigned k = 0; k < 8; k++) {
		unsigned tag;
		assert_int_equal(e->reap(e, &tag, &r), DMA_OK);
		assert_int_equal(tag, tags[7 - k]); /* the model runs the held commands last first */
		assert_true(r.t_done >= r.t_submit);
	}
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(bufs[i][0], 0x5a);
		assert_int_equal(bufs[i][LEN - 1], 0x5a);
		uint64_t prp2 = m.prp2[(before + i) % 64];
		assert_true(prp2 >= lists->phys && prp2 < lists->phys + lists->len);
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(prp2, m.prp2[(before + j) % 64]);
	}
	m.io_hold = false;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, (uintptr_t)bufs[0], 512, &r), DMA_OK);
	uint32_t cc = m.cc;
	e->close(e);
	assert_int_equal(m.cc & NVME_CC_EN, cc & NVME_CC_EN);
}

/* No more than max_inflight at once, no transfer() while any is, and no
 * reap with nothing in flight: each refused with a reason. */
static void limits(void **state)
{
	(void)state;
	struct dma_engine *e = open_healthy();
	m.io_hold = true;
	struct dma_result r;
	unsigned tag;
	for (unsigned i = 0; i < e->caps.max_inflight; i++)
		assert_int_equal(e->queue(e, DMA_FROM_DEVICE, (uintptr_t)bufs[i], 4096, &tag, &r), DMA_OK);
	assert_int_equal(e->queue(e, DMA_FROM_DEVICE, (uintptr_t)bufs[0], 4096, &tag, &r), DMA_BAD_REQUEST);
	assert_non_null(strstr(r.error, "already in flight"));
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, (uintptr_t)bufs[0], 4096, &r), DMA_BAD_REQUEST);
	assert_non_null(strstr(r.error, "in flight"));
	for (unsigned i = 0; i < e->caps.max_inflight; i++)
		assert_int_equal(e->reap(e, &tag, &r), DMA_OK);
	assert_int_equal(e->reap(e, &tag, &r), DMA_BAD_REQUEST);
	assert_int_equal(tag, e->caps.max_inflight);
	m.io_hold = false;
	e->close(e);
}

/* A controller that takes I/O commands and never completes them: the reap
 * ends at its deadline with the named error, names no slot, and the
 * controller is stopped (bus mastering off) as transfer() leaves it. */
static void never_completes(void **state)
{
	(void)state;
	struct dma_engine *e = open_healthy();
	m.mute_after = (int)m.admin_done; /* from now on nothing answers */
	struct dma_result r;
	unsigned tag;
	assert_int_equal(e->queue(e, DMA_FROM_DEVICE, (uintptr_t)bufs[0], 4096, &tag, &r), DMA_OK);
	assert_int_equal(e->queue(e, DMA_FROM_DEVICE, (uintptr_t)bufs[1], 4096, &tag, &r), DMA_OK);
	alarm(20);
	assert_int_equal(e->reap(e, &tag, &r), DMA_TIMEOUT);
	alarm(0);
	assert_int_equal(tag, e->caps.max_inflight);
	assert_non_null(strstr(r.error, "a queued command"));
	assert_int_equal(cfg[PCI_COMMAND] & PCI_COMMAND_MASTER, 0);
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, (uintptr_t)bufs[0], 512, &r), DMA_DEVICE_ERROR);
	assert_non_null(strstr(r.error, "stopped"));
	e->close(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(out_of_order),
		cmocka_unit_test(limits),
		cmocka_unit_test(never_completes),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
