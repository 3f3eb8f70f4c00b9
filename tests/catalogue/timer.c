/* Group `timer`: the chain every figure stands on — the cycle counter
 * moves, its frequency is known, and a timed region's own cost is known. */
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "core/base/macros.h"
#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "core/monitor/settings.h"

/* Calibration and the Stall estimate must agree within this: both rest on
 * real clocks, and 5% is far outside the rounding of 10 ms intervals but
 * catches a wrong reference frequency or a counter that changes rate. */
#define CALIBRATION_TOLERANCE 0.05

static void t_counter(struct test_ctx *t)
{
	uint64_t prev = cycles_begin(), backwards = 0;
	for (int i = 0; i < 100000; i++) {
		uint64_t now = rdtsc();
		if (now < prev)
			backwards++;
		prev = now;
	}
	report(t, backwards == 0, "100000 consecutive reads never went backwards (%llu did)",
	       (unsigned long long)backwards);

	uint64_t t0 = cycles_begin();
	platform->stall_us(1000);
	uint64_t d = cycles_end() - t0;
	report(t, d > 0, "the counter advanced %llu cycles across a 1 ms firmware Stall", (unsigned long long)d);
	report(t, timing.tsc_hz > 0, "a frequency is known: %.3f MHz", (double)timing.tsc_hz / 1e6);
#if defined(__aarch64__)
	/* the generic timer counts at a fixed rate by architecture (Arm ARM D11.1.2) */
	test_note(t, "monotonic; %llu cycles in Stall(1 ms); CNTVCT_EL0 at CNTFRQ_EL0 %.3f MHz", (unsigned long long)d,
		  (double)timing.cntfrq_hz / 1e6);
#else
	test_note(t, "monotonic; %llu cycles in Stall(1 ms); invariant TSC bit %s", (unsigned long long)d,
		  timing.invariant_tsc ? "set" : "clear");
#endif
}

static void t_calibration(struct test_ctx *t)
{
	/* calibrate afresh, so the claim is about this run, not boot time */
	timing_init(monitor_acpi(), setting_get("timer.source"));
	if (strcmp(setting_get("timer.source"), "stall") == 0) {
		test_skip(t, SKIP_SETTING, "timer.source is stall: no independent reference to compare with");
		return;
	}
	if (timing.ref_hz == 0) {
		test_skip(t, SKIP_UNSUPPORTED, "no reference clock (PM timer or HPET) usable: %s",
			  timing.note[0] ? timing.note : "none described");
		return;
	}
	double diff = timing_disagreement();
	report(t, diff <= CALIBRATION_TOLERANCE,
	       "%s calibration %.3f MHz and Stall estimate %.3f MHz agree within %.0f%% (%.2f%%)", timing.source,
	       (double)timing.tsc_hz / 1e6, (double)timing.stall_hz / 1e6, CALIBRATION_TOLERANCE * 100, diff * 100);
	test_note(t, "%.3f MHz against %s (%llu Hz); Stall differs %.2f%%", (double)timing.tsc_hz / 1e6, timing.source,
		  (unsigned long long)timing.ref_hz, diff * 100);
}

static void t_overhead(struct test_ctx *t)
{
	size_t n = (size_t)setting_long("timer.samples");
	uint64_t *s = malloc(n * sizeof(*s));
	if (!s) {
		report(t, false, "no memory for %zu samples", n);
		return;
	}
	size_t zero = 0;
	for (size_t i = 0; i < n; i++) {
		struct timed r;
		timed_begin(&r);
		s[i] = timed_end(&r);
		zero += s[i] == 0;
	}
	struct measure m = { .path = "timer", .backend = "none", .variant = "empty-region", .unit = "cycles" };
	test_measure(t, &m, s, n);
	test_note(t, "empty region: min %llu cycles, median %llu", (unsigned long long)s[0],
		  (unsigned long long)s[n / 2]);
	uint64_t median = s[n / 2];
	free(s);
	/* A counter coarser than the region (RISC-V's time CSR at a 10 MHz
	 * timebase) misses it in some samples: told apart from one that
	 * stalls by the median, a tick or less: the region is that short */
	if (zero && zero < n && median <= 1) {
		test_skip(t, SKIP_UNSUPPORTED,
			  "the counter (%s, %.3f MHz: a tick is %.0f ns) is as coarse as an empty region (median %llu "
			  "tick): %zu of %zu regions saw no tick; nothing shorter than a tick is resolved here",
			  timing.counter, (double)timing.tsc_hz / 1e6, 1e9 / (double)timing.tsc_hz,
			  (unsigned long long)median, zero, n);
		return;
	}
	report(t, zero == 0, "the counter moved across every empty region (%zu did not)", zero);
}

static void t_stall(struct test_ctx *t)
{
	enum { N = 20, US = 1000 };
	uint64_t s[N];
	for (int i = 0; i < N; i++) {
		uint64_t t0 = cycles_begin();
		platform->stall_us(US);
		s[i] = cycles_end() - t0;
		timing_floor_sample();
	}
	struct measure m = { .path = "timer", .backend = "none", .variant = "stall-1ms", .unit = "cycles" };
	test_measure(t, &m, s, N);
	double shortest_us = cycles_to_ns(s[0]) / 1000;
	if (strcmp(timing.source, "stall") == 0) {
		/* chosen (timer.source stall), or no reference was usable */
		test_skip(t, strcmp(setting_get("timer.source"), "stall") == 0 ? SKIP_SETTING : SKIP_UNSUPPORTED,
			  "the counter was calibrated against Stall itself: nothing independent to compare");
		return;
	}
	/* UEFI: Stall waits at least the time asked. Judged by the reference
	 * clock itself where the counter was calibrated against one: a host
	 * that deschedules the CPU can only lengthen what it reads, while the
	 * counter's calibration can be off by a percent on a loaded host
	 * (QEMU 7.2 and 10.0 under the suite: 1.00 % and 1.22 %, and every
	 * Stall then read 1 % short). Elsewhere by the counter, 1 % for its
	 * calibration. */
	struct refclock *ref = timing_reference();
	if (ref) {
		uint64_t fewest = ~0ull, want = (uint64_t)US * ref->hz / 1000000;
		for (int i = 0; i < N; i++) {
			uint64_t r0 = refclock_read(ref);
			platform->stall_us(US);
			uint64_t ticks = (refclock_read(ref) - r0) & ref->mask;
			if (ticks < fewest)
				fewest = ticks;
		}
		/* one tick for where within a tick the reads fell */
		report(t, fewest + 1 >= want,
		       "Stall(%d us) never returned early: fewest %llu ticks of the %s (%llu Hz), %.1f us; %llu asked",
		       US, (unsigned long long)fewest, ref->name, (unsigned long long)ref->hz,
		       (double)fewest * 1e6 / (double)ref->hz, (unsigned long long)want);
	} else {
		report(t, shortest_us >= US * 0.99,
		       "Stall(%d us) never returned early: shortest %.1f us by the counter", US, shortest_us);
	}
	test_note(t, "Stall(1 ms): shortest %.1f us, median %.1f us", shortest_us, cycles_to_ns(s[N / 2]) / 1000);
}

static const struct test_case cases[] = {
	{ "timer.counter", "the cycle counter advances and never goes back", t_counter, true },
	{ "timer.calibration", "counter frequency against PM timer/HPET, checked against Stall", t_calibration, true },
	{ "timer.overhead", "cost of an empty timed region (fences, interrupt masking)", t_overhead, true },
	{ "timer.stall", "firmware Stall(1 ms) measured by the counter", t_stall, true },
};

static const struct test_doc docs[] = {
	{ t_counter,
	  "the cycle counter (TSC, or the Arm generic counter) never goes backwards over 100,000 reads, advances "
	  "across a 1 ms firmware Stall, and has a known frequency",
	  "a counter that goes back or stands still makes every figure iommon takes meaningless: the platform's "
	  "counter (or its virtualisation) is broken" },
	{ t_calibration,
	  "the counter's frequency measured against an independent reference (ACPI PM timer or HPET; the Arm "
	  "counter's CNTFRQ) agrees with the firmware Stall's estimate",
	  "a disagreement means one of the clocks is wrong and every ns figure with it; not applicable where no "
	  "independent reference is usable, skipped where a setting chose Stall" },
	{ t_overhead,
	  "the cost of an empty timed region (its fences and interrupt masking) measured: the floor below which "
	  "no timed figure means anything",
	  "a region across which the counter did not move means the counter is too coarse to time anything "
	  "that short; the figure itself is never judged" },
	{ t_stall,
	  "a 1 ms firmware Stall lasts at least 1 ms: read on the reference clock the counter was calibrated "
	  "against (PM timer, HPET; one tick of slack), else by the counter (less 1 % for its calibration)",
	  "a shorter Stall means the firmware's Stall is wrong (or, read by the counter, its calibration): every "
	  "deadline iommon keeps would be too short" },
	{ NULL },
};

const struct test_group timer_group = {
	.name = "timer",
	.summary = "cycle counter, calibration, timed-region overhead",
	.cases = cases,
	.n = ARRAY_SIZE(cases),
	.docs = (const struct test_doc *const[]){ docs, NULL },
};
