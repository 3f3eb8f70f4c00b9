/* The DMA engine interface's request checks and the guarded buffers, on
 * the host. */
#include "unit.h"

#include "core/base/dmabuf.h"
#include "core/base/memmap.h"
#include "pci/dma.h"
#include "tests/host/platform_host.h"

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	return 0;
}

static void requests_checked(void **state)
{
	(void)state;
	struct dma_engine e = { .kind = "test",
				.caps = { .max_len = 8192,
					  .addr_bits = 28,
					  .align = 4,
					  .len_unit = 512,
					  .reads_ram = false,
					  .writes_ram = true } };
	struct dma_result r;
	assert_int_equal(dma_check_request(&e, DMA_FROM_DEVICE, 0x1000, 512, &r), DMA_OK);
	assert_int_equal(dma_check_request(&e, DMA_FROM_DEVICE, 0x1000, 0, &r), DMA_BAD_REQUEST);
	assert_non_null(strstr(r.error, "length 0"));
	assert_int_equal(dma_check_request(&e, DMA_FROM_DEVICE, 0x1000, 8704, &r), DMA_BAD_REQUEST);
	assert_int_equal(dma_check_request(&e, DMA_FROM_DEVICE, 0x1002, 512, &r), DMA_BAD_REQUEST);
	assert_non_null(strstr(r.error, "aligned"));
	assert_int_equal(dma_check_request(&e, DMA_FROM_DEVICE, 0x1000, 513, &r), DMA_BAD_REQUEST);
	assert_non_null(strstr(r.error, "multiple of 512"));
	/* the last byte must be reachable too, not only the first */
	assert_int_equal(dma_check_request(&e, DMA_FROM_DEVICE, (1u << 28) - 512, 1024, &r), DMA_BAD_REQUEST);
	assert_non_null(strstr(r.error, "address bits"));
	assert_int_equal(dma_check_request(&e, DMA_FROM_DEVICE, (1u << 28) - 512, 512, &r), DMA_OK);
	assert_int_equal(dma_check_request(&e, DMA_TO_DEVICE, 0x1000, 512, &r), DMA_BAD_REQUEST);
	assert_non_null(strstr(r.error, "cannot read"));
}

/* A device whose address bits end below every RAM range (edu on Arm's
 * virt machine) reaches no buffer untranslated, and says so in the words
 * the memory map supports; one that reaches memory is not stopped. */
static void reach_below_ram(void **state)
{
	(void)state;
	struct dma_engine e = { .kind = "edu", .caps = { .addr_bits = 12 } }; /* the first page only */
	char buf[112];
	assert_int_equal(dma_reach(&e), 0x1000);
	host_set_memory_map(NULL, 0); /* the map says nothing: the allocation decides */
	assert_string_equal(dma_unreachable(&e, 64, buf, sizeof(buf)),
			    "edu reaches 12 bits (0x1000) and no free memory below it could be had");
	static const struct mem_range virt[] = { { 0x40000000, 0x80000000, MEM_CONVENTIONAL } };
	host_set_memory_map(virt, 1);
	assert_string_equal(dma_unreachable(&e, 64, buf, sizeof(buf)),
			    "edu reaches 12 bits (0x1000) and no RAM lies below it");
	static const struct mem_range low[] = { { 0, 0x80000000, MEM_CONVENTIONAL } };
	host_set_memory_map(low, 1); /* RAM there, none of it free */
	assert_string_equal(dma_unreachable(&e, 64, buf, sizeof(buf)),
			    "edu reaches 12 bits (0x1000) and no free memory below it could be had");
	host_set_memory_map(NULL, 0);
	e.caps.addr_bits = 32; /* the host hands out pages below 2 GiB */
	assert_null(dma_unreachable(&e, 64, buf, sizeof(buf)));
	e.caps.addr_bits = 64;
	assert_int_equal(dma_reach(&e), 0);
	assert_null(dma_unreachable(&e, 64, buf, sizeof(buf)));
}

static void guards_catch_strays(void **state)
{
	(void)state;
	struct dmabuf b;
	assert_true(dmabuf_alloc(&b, 100, 4000, 0)); /* crosses into a second page */
	assert_int_equal((uintptr_t)b.data & 4095, 4000);
	dmabuf_pattern(&b, 7);
	assert_int_equal(dmabuf_check_pattern(&b, 7), -1);
	assert_int_equal(dmabuf_check_pattern(&b, 8) >= 0, 1);
	assert_int_equal(dmabuf_guards_damaged(&b), 0);
	b.data[-1] = 0;	   /* one byte before */
	b.data[b.len] = 0; /* one byte after */
	assert_int_equal(dmabuf_guards_damaged(&b), 2);
	assert_int_equal(dmabuf_guards_damaged(&b), 0); /* and they were put back */
	dmabuf_free(&b);

	assert_true(dmabuf_alloc(&b, 4096, 0, 0)); /* page-aligned: a guard page before */
	assert_true(b.data - b.region == 4096);
	b.region[0] = 1;
	assert_int_equal(dmabuf_guards_damaged(&b), 1);
	dmabuf_free(&b);
	assert_false(dmabuf_alloc(&b, 0, 0, 0));
	assert_false(dmabuf_alloc(&b, 16, 4096, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(requests_checked),
		cmocka_unit_test(reach_below_ram),
		cmocka_unit_test(guards_catch_strays),
	};
	return cmocka_run_group_tests_name("dma", tests, setup, NULL);
}
