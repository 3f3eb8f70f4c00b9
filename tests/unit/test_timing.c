/* Calibration against reference clocks that are models driven by the
 * cycle counter itself, so the right answer is known exactly and the test
 * does not depend on how fast this machine is. Also the register window. */
#include "unit.h"

#include "core/base/regwin.h"
#include "core/base/timing.h"
#include "tests/host/platform_host.h"

struct ticker {
	uint64_t cycles_per_tick; /* 0: stuck */
	uint64_t t0, start;
};

static uint64_t ticker_read(void *ctx, uint64_t off, unsigned width)
{
	(void)off, (void)width;
	struct ticker *t = ctx;
	if (!t->cycles_per_tick)
		return t->start;
	return t->start + (rdtsc() - t->t0) / t->cycles_per_tick;
}

static void ticker_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx, (void)off, (void)width, (void)v;
}

static const struct regwin_model_ops ticker_ops = { ticker_read, ticker_write };

static void make_clock(struct refclock *rc, struct ticker *t, uint64_t hz, uint64_t mask)
{
	*rc = (struct refclock){ .name = "model", .hz = hz, .mask = mask, .width = 4 };
	regwin_init_model(&rc->win, "ticker", 4, false, &ticker_ops, t);
	t->t0 = rdtsc();
}

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = calibrate_stall(10000, 3); /* deadlines need a rough figure */
	return 0;
}

/* A 24-bit, 3.579545 MHz reference that ticks every 500 cycles means a
 * 1789.7725 MHz counter, whatever this CPU really runs at. It starts just
 * below the wrap so the wrap is crossed. */
static void exact_answer_across_wrap(void **state)
{
	(void)state;
	struct ticker t = { .cycles_per_tick = 500, .start = 0xffffff - 2000 };
	struct refclock rc;
	make_clock(&rc, &t, 3579545, 0xffffff);
	uint64_t hz = 0;
	assert_int_equal(calibrate_refclock(&rc, 20000, 5, &hz), CALIB_OK);
	double want = 3579545.0 * 500;
	double err = ((double)hz - want) / want;
	assert_true(err < 0.001 && err > -0.001);
}

static void stuck_reference_named_error(void **state)
{
	(void)state;
	struct ticker t = { .cycles_per_tick = 0, .start = 1234 };
	struct refclock rc;
	make_clock(&rc, &t, 3579545, 0xffffff);
	uint64_t hz = 0;
	assert_int_equal(calibrate_refclock(&rc, 35795, 5, &hz), CALIB_REF_STUCK);
	assert_string_equal(calib_err_name(CALIB_REF_STUCK), "reference clock stuck");
}

/* Ticks, but far too slowly to cover the interval before the deadline
 * (4x the nominal time + 50 ms): a named error, not a hang. */
static void slow_reference_named_error(void **state)
{
	(void)state;
	struct ticker t = { .cycles_per_tick = 2000000 };
	struct refclock rc;
	make_clock(&rc, &t, 3579545, 0xffffff);
	uint64_t hz = 0;
	assert_int_equal(calibrate_refclock(&rc, 3579, 1, &hz), CALIB_REF_TOO_SLOW);
}

static void absurd_arguments(void **state)
{
	(void)state;
	struct ticker t = { .cycles_per_tick = 500 };
	struct refclock rc;
	make_clock(&rc, &t, 3579545, 0xffffff);
	uint64_t hz;
	assert_int_equal(calibrate_refclock(&rc, 0, 5, &hz), CALIB_ABSURD);
	assert_int_equal(calibrate_refclock(&rc, 0x800000, 5, &hz), CALIB_ABSURD); /* past half the wrap */
	assert_int_equal(calibrate_refclock(&rc, 1000, 0, &hz), CALIB_ABSURD);
	assert_int_equal(calibrate_refclock(&rc, 1000, 17, &hz), CALIB_ABSURD);
}

static void deadlines_expire(void **state)
{
	(void)state;
	struct deadline d = deadline_after_us(1000);
	assert_false(deadline_passed(&d));
	platform->stall_us(2000);
	assert_true(deadline_passed(&d));
}

/* ---- register window ---- */

struct regs {
	uint8_t bytes[16];
	unsigned reads, writes;
};

static uint64_t regs_read(void *ctx, uint64_t off, unsigned width)
{
	struct regs *r = ctx;
	uint64_t v = 0;
	memcpy(&v, r->bytes + off, width);
	r->reads++;
	return v;
}

static void regs_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	struct regs *r = ctx;
	memcpy(r->bytes + off, &v, width);
	r->writes++;
}

static const struct regwin_model_ops regs_ops = { regs_read, regs_write };

static void window_byte_order(void **state)
{
	(void)state;
	struct regs r = { 0 };
	struct regwin w;
	regwin_init_model(&w, "be", 16, true, &regs_ops, &r);
	regwin_write32(&w, 0, 0x11223344);
	assert_int_equal(r.bytes[0], 0x11); /* big-endian device: MSB first */
	assert_int_equal(regwin_read32(&w, 0), 0x11223344);
	regwin_write64(&w, 8, 0x0102030405060708ull);
	assert_int_equal(r.bytes[8], 0x01);
	assert_int_equal(regwin_read64(&w, 8), 0x0102030405060708ull);
	regwin_write16(&w, 4, 0xabcd);
	assert_int_equal(r.bytes[4], 0xab);

	struct regwin le;
	regwin_init_model(&le, "le", 16, false, &regs_ops, &r);
	regwin_write32(&le, 0, 0x11223344);
	assert_int_equal(r.bytes[0], 0x44);
}

static void window_refuses_strays(void **state)
{
	(void)state;
	struct regs r = { 0 };
	struct regwin w;
	regwin_init_model(&w, "small", 16, false, &regs_ops, &r);
	assert_int_equal(regwin_read32(&w, 16), 0xffffffffu);
	assert_int_equal(regwin_read64(&w, 12), ~0ull); /* straddles the end */
	regwin_write8(&w, 0xffffffffffffffffull, 1);	/* wraps around */
	assert_int_equal(r.reads + r.writes, 0);	/* nothing reached the device */
	assert_int_equal(w.out_of_window, 3);
	regwin_read8(&w, 15);
	assert_int_equal(w.out_of_window, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_answer_across_wrap),   cmocka_unit_test(stuck_reference_named_error),
		cmocka_unit_test(slow_reference_named_error), cmocka_unit_test(absurd_arguments),
		cmocka_unit_test(deadlines_expire),	      cmocka_unit_test(window_byte_order),
		cmocka_unit_test(window_refuses_strays),
	};
	return cmocka_run_group_tests_name("timing", tests, setup, NULL);
}
