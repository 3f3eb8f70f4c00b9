/* The I/O APIC driver on a small register model: IOREGSEL/IOWIN, the
 * version register, 24 redirection entries, every dword write logged so the
 * order can be checked (masked first, the high dword before the low one). */
#include "core/base/ioapic.h"
#include "unit.h"

struct model {
	uint32_t sel;
	uint32_t version;
	uint32_t rte[48];
	uint64_t stuck; /* bits of entry 5 that ignore writes (a broken part) */
	struct {
		uint8_t reg;
		uint32_t v;
		bool unmasked_live; /* the entry unmasked at this write */
	} log[64];
	size_t nlog;
	bool absent;
};

static uint64_t m_read(void *ctx, uint64_t off, unsigned width)
{
	struct model *m = ctx;
	(void)width;
	if (m->absent)
		return 0xffffffffu;
	if (off == IOAPIC_REGSEL)
		return m->sel;
	if (m->sel == IOAPIC_REG_VERSION)
		return m->version;
	if (m->sel >= IOAPIC_REG_RTE && m->sel < IOAPIC_REG_RTE + 48)
		return m->rte[m->sel - IOAPIC_REG_RTE];
	return 0;
}

static void m_write(void *ctx, uint64_t off, unsigned width, uint64_t val)
{
	struct model *m = ctx;
	(void)width;
	if (off == IOAPIC_REGSEL) {
		m->sel = (uint32_t)val & 0xff;
		return;
	}
	if (off != IOAPIC_IOWIN || m->sel < IOAPIC_REG_RTE || m->sel >= IOAPIC_REG_RTE + 48)
		return;
	unsigned i = m->sel - IOAPIC_REG_RTE;
	uint32_t keep = i / 2 == 5 ? (uint32_t)(m->stuck >> (i % 2 ? 32 : 0)) : 0;
	m->rte[i] = ((uint32_t)val & ~keep) | (m->rte[i] & keep);
	if (m->nlog < 64)
		m->log[m->nlog++] =
		    (typeof(m->log[0])){ (uint8_t)m->sel, (uint32_t)val, !(m->rte[i & ~1u] & IOAPIC_RTE_MASKED) };
}

static const struct regwin_model_ops ops = { m_read, m_write };

static void setup_model(struct model *m, struct ioapic *a)
{
	memset(m, 0, sizeof(*m));
	m->version = 0x00170020; /* 24 entries, version 0x20 (QEMU's) */
	for (unsigned i = 0; i < 24; i++)
		m->rte[2 * i] = (uint32_t)IOAPIC_RTE_MASKED | (0x30 + i);
	m->rte[2 * 2] = 0x30; /* pin 2 the firmware's timer: unmasked */
	struct regwin w;
	regwin_init_model(&w, "ioapic", IOAPIC_WINDOW, false, &ops, m);
	assert_null(ioapic_init(a, &w, 0, 0));
}

static void version_and_claim(void **state)
{
	(void)state;
	static struct model m;
	static struct ioapic a;
	setup_model(&m, &a);
	assert_int_equal(a.pins, 24);
	assert_int_equal(a.version, 0x20);
	assert_non_null(ioapic_claim(&a, 2)); /* in use: never touched */
	assert_non_null(ioapic_claim(&a, 24));
	assert_null(ioapic_claim(&a, 16));
	m.nlog = 0;
	ioapic_write_rte(&a, 2, 0x41); /* not claimed: nothing written */
	assert_int_equal(m.nlog, 0);
	assert_int_equal(m.rte[4], 0x30);
	m.absent = true;
	struct regwin w;
	regwin_init_model(&w, "ioapic", IOAPIC_WINDOW, false, &ops, &m);
	assert_non_null(ioapic_init(&a, &w, 0, 0));
}

static void write_order(void **state)
{
	(void)state;
	static struct model m;
	static struct ioapic a;
	setup_model(&m, &a);
	assert_null(ioapic_claim(&a, 16));
	/* from an entry the monitor had unmasked to another destination */
	ioapic_write_rte(&a, 16, 0x0100000000000041ull);
	m.nlog = 0;
	ioapic_write_rte(&a, 16, 0xaa00000000000042ull);
	assert_int_equal(m.nlog, 3);
	assert_int_equal(m.log[0].reg, 0x30);
	assert_true(m.log[0].v & IOAPIC_RTE_MASKED); /* masked first */
	assert_int_equal(m.log[1].reg, 0x31);	     /* the high dword ... */
	assert_false(m.log[1].unmasked_live);	     /* ... while masked */
	assert_int_equal(m.log[2].reg, 0x30);	     /* unmasked last */
	assert_int_equal(m.rte[33], 0xaa000000);
	assert_int_equal(m.rte[32], 0x42);
	assert_int_equal(ioapic_read_rte(&a, 16), 0xaa00000000000042ull);
}

static void restored_as_found(void **state)
{
	(void)state;
	static struct model m;
	static struct ioapic a;
	setup_model(&m, &a);
	m.rte[2 * 17 + 1] = 0x05000000; /* a destination the firmware left */
	uint32_t before[48];
	memcpy(before, m.rte, sizeof(before));
	for (unsigned pin = 16; pin < 24; pin++) {
		assert_null(ioapic_claim(&a, pin));
		ioapic_write_rte(&a, pin, 0x1234560000000050ull + pin);
	}
	assert_null(ioapic_claim(&a, 16)); /* claimed twice: the first copy kept */
	ioapic_hold(&a, 1);		   /* as the exit and crash paths find it */
	assert_int_equal(ioapic_restore_held(), 0);
	assert_int_equal(ioapic_restore_held(), 0); /* once: nothing held after */
	assert_memory_equal(m.rte, before, sizeof(before));
	assert_false(ioapic_claimed(&a, 16));
	/* an entry that no longer takes writes is counted */
	assert_null(ioapic_claim(&a, 5));
	ioapic_write_rte(&a, 5, 0x4200000000000060ull);
	m.stuck = 0xff00000000000000ull; /* the destination byte stuck at 0x42 */
	assert_int_equal(ioapic_restore(&a), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version_and_claim),
		cmocka_unit_test(write_order),
		cmocka_unit_test(restored_as_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
