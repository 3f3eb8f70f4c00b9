/* The cycle counter: reading it with the right fences, knowing its
 * frequency, deadlines for every hardware poll, and timed regions. */
#ifndef IOMMON_TIMING_H
#define IOMMON_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu.h"
#include "platform.h"
#include "regwin.h"

struct timing {
	uint64_t tsc_hz; /* calibrated counter frequency */
	const char
	    *counter; /* which counter rdtsc() reads: "tsc", "cntvct" (aarch64's generic timer), "time" (riscv64) */
	const char *source;	/* what it was calibrated against: pmtimer, hpet, stall, cntfrq, timebase */
	uint64_t stall_hz;	/* estimate against the firmware's Stall service */
	uint64_t ref_hz;	/* the reference clock's own frequency (0 for stall) */
	uint64_t cntfrq_hz;	/* aarch64: CNTFRQ_EL0 as the firmware programmed it */
	uint64_t timebase_hz;	/* riscv64: the device tree's timebase-frequency (0: none) */
	bool invariant_tsc;	/* CPUID 0x80000007 EDX[8], as found; the generic timer always is */
	bool rdtscp;		/* CPUID 0x80000001 EDX[27] */
	uint64_t overhead;	/* cycles of an empty timed region (minimum) */
	char platform[32];	/* "hardware", "qemu-tcg", "kvm", ... (core/monitor/platform_id.c) */
	char platform_how[400]; /* the evidence that named it, in words */
	char hypervisor[13];	/* CPUID 0x40000000 vendor, "" on hardware (and on aarch64) */
	char cpu[49];		/* brand string */
	char note[320];		/* why a preferred source was passed over */
};

extern struct timing timing;

/* Start of a measured interval: nothing before it is still in flight, and
 * nothing after it starts early. */
static inline uint64_t cycles_begin(void)
{
#if defined(__aarch64__)
	/* ISB: the counter read is not taken early (Arm ARM D11.2.2) */
	isb();
	uint64_t t = rdtsc();
	isb();
#elif defined(__riscv)
	/* FENCE: earlier accesses done before the time CSR is read */
	mfence();
	uint64_t t = rdtsc();
	mfence();
#else
	lfence();
	uint64_t t = rdtsc();
	lfence();
#endif
	return t;
}

/* End of a measured interval: RDTSCP waits for everything before it; on
 * aarch64 a DSB lets the measured accesses complete before the ISB-ordered
 * counter read. */
static inline uint64_t cycles_end(void)
{
	uint64_t t;
#if defined(__aarch64__)
	mfence();
	isb();
	t = rdtsc();
	isb();
#elif defined(__riscv)
	mfence();
	t = rdtsc();
	mfence();
#else
	if (timing.rdtscp) {
		t = rdtscp();
	} else {
		lfence();
		t = rdtsc();
	}
	lfence();
#endif
	return t;
}

/* The noise floor: the same timed region with nothing in it, taken beside
 * the real ones (timed_end takes one after each region; a measure loop
 * that times by hand calls timing_floor_sample after each sample, outside
 * any region it times). test_measure reports the last TIMING_FLOOR_MAX of
 * the test's, so a reader sees what difference the method can resolve. */
#define TIMING_FLOOR_MAX 256
struct timing_floor {
	uint64_t s[TIMING_FLOOR_MAX];
	uint64_t n; /* taken since the test began; s[] holds the last ones */
};
extern struct timing_floor timing_floor;

static inline void timing_floor_sample(void)
{
	uint64_t t0 = cycles_begin();
	uint64_t t1 = cycles_end();
	timing_floor.s[timing_floor.n++ % TIMING_FLOOR_MAX] = t1 - t0;
}

/* Deadlines, in cycles. Before calibration the frequency is taken as
 * 10 GHz, so an early deadline is never shorter than asked. */
struct deadline {
	uint64_t end;
};

static inline struct deadline deadline_after_us(uint64_t us)
{
	uint64_t hz = timing.tsc_hz ? timing.tsc_hz : 10000000000ull;
	return (struct deadline){ rdtsc() + us * (hz / 1000000) };
}

static inline bool deadline_passed(const struct deadline *d)
{
	return (int64_t)(rdtsc() - d->end) >= 0;
}

/* A timed region: interrupts masked inside it, and only there. Each one
 * wraps a single operation whose waits have deadlines (VT-d's longest is
 * 100 ms), so the firmware's timer, and with it the watchdog, is held off
 * for no longer than TIMED_MASK_BOUND_US; the runner warns about a test
 * whose longest region (timed_masked_max, cycles) went past it. */
#define TIMED_MASK_BOUND_US 250000
extern uint64_t timed_masked_max;

struct timed {
	uint64_t irq;
	uint64_t t0;
};

static inline void timed_begin(struct timed *r)
{
	r->irq = platform->irq_save();
	r->t0 = cycles_begin();
}

static inline uint64_t timed_end(struct timed *r)
{
	uint64_t t1 = cycles_end();
	timing_floor_sample(); /* as masked as the region was */
	platform->irq_restore(r->irq);
	if (t1 - r->t0 > timed_masked_max)
		timed_masked_max = t1 - r->t0;
	return t1 - r->t0;
}

static inline double cycles_to_ns(uint64_t cycles)
{
	return timing.tsc_hz ? (double)cycles * 1e9 / (double)timing.tsc_hz : 0.0;
}

/* A free-running reference counter (PM timer, HPET main counter). */
struct refclock {
	const char *name;
	uint64_t hz;
	uint64_t mask; /* counter width */
	struct regwin win;
	uint64_t off;
	unsigned width; /* access width in bytes */
};

uint64_t refclock_read(struct refclock *rc);

enum calib_err {
	CALIB_OK = 0,
	CALIB_REF_STUCK,    /* the reference clock did not advance */
	CALIB_REF_TOO_SLOW, /* it advanced, but not far enough within the deadline */
	CALIB_ABSURD,	    /* the result is outside 1 MHz .. 20 GHz */
};
const char *calib_err_name(enum calib_err e);

/* Measure the cycle counter against `rc` over `ticks` reference ticks,
 * `rounds` times; the median lands in *hz. Deadlines use the current
 * timing.tsc_hz (set a rough estimate first). */
enum calib_err calibrate_refclock(struct refclock *rc, uint64_t ticks, unsigned rounds, uint64_t *hz);

/* Estimate against the platform's Stall service: `us` per round, the
 * shortest of `rounds`. */
uint64_t calibrate_stall(uint32_t us, unsigned rounds);

/* The reference clocks the firmware's tables describe, as the monitor
 * found them (timing_init, core/monitor/early.c): the FADT's PM timer and
 * the HPET table's. Nothing here reads a table. */
struct timing_pmtimer {
	bool io;	  /* in system I/O space (a port), else system memory */
	uint64_t address; /* X_PM_TMR_BLK */
	bool bits32;	  /* TMR_VAL_EXT: a 32-bit counter, else 24-bit */
};
struct timing_refs {
	bool pmtimer; /* the FADT describes one */
	struct timing_pmtimer pm;
	bool hpet; /* an HPET table gives its base */
	uint64_t hpet_base;
	uint64_t timebase_hz;	   /* the device tree's /cpus timebase-frequency (riscv64's time CSR); 0: none */
	const char *timebase_from; /* where timebase_hz came from, worded (NULL: the device tree) */
};

/* Identify the CPU; calibrate against the best of `refs` (NULL: none;
 * `prefer`: auto, cntfrq, timebase, pmtimer, hpet, stall); measure the timed-region
 * overhead. Always leaves a usable timing.tsc_hz. */
void timing_calibrate(const struct timing_refs *refs, const char *prefer);
/* Give back what calibration changed (the HPET enable bit). */
void timing_fini(void);
/* The reference clock (PM timer, HPET) the counter was calibrated
 * against, readable until timing_fini; NULL when the counter's frequency
 * came from elsewhere (Stall, CNTFRQ, the device tree). */
struct refclock *timing_reference(void);
/* Relative difference between the chosen calibration and the stall estimate. */
double timing_disagreement(void);

#endif
