#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "stats.h"

/* the counter rdtsc() reads, named in every measure record */
#if defined(__aarch64__)
struct timing timing = { .counter = "cntvct" };
#elif defined(__riscv)
struct timing timing = { .counter = "time" };
#else
struct timing timing = { .counter = "tsc" };
#endif
uint64_t timed_masked_max;
struct timing_floor timing_floor;

#define PMTIMER_HZ 3579545u
/* CNTFRQ_EL0 further than this from the Stall estimate is not believed */
#define CNTFRQ_TOLERANCE 0.01
#define HPET_GCAP_ID 0x000
#define HPET_GEN_CONF 0x010
#define HPET_MAIN_COUNTER 0x0f0
#define HPET_ENABLE_CNF (1ull << 0)
#define HPET_COUNT_SIZE_CAP (1ull << 13)
#define HPET_MAX_PERIOD_FS 100000000ull /* spec: at most 100 ns per tick */

static struct {
	struct regwin win;
	bool enabled_by_us;
} hpet_state;

/* The reference clock the counter was calibrated against, kept until
 * timing_fini (the HPET's window is hpet_state's). */
static struct refclock ref_kept;
static bool ref_valid;

struct refclock *timing_reference(void)
{
	return ref_valid ? &ref_kept : NULL;
}

uint64_t refclock_read(struct refclock *rc)
{
	uint64_t v = rc->width == 8 ? regwin_read64(&rc->win, rc->off) : regwin_read32(&rc->win, rc->off);
	return v & rc->mask;
}

const char *calib_err_name(enum calib_err e)
{
	switch (e) {
	case CALIB_OK:
		return "ok";
	case CALIB_REF_STUCK:
		return "reference clock stuck";
	case CALIB_REF_TOO_SLOW:
		return "reference clock too slow";
	case CALIB_ABSURD:
		return "calibrated frequency absurd";
	}
	return "?";
}

/* The median through the one statistics routine (nearest rank). */
static uint64_t median(uint64_t *v, unsigned n)
{
	struct stats s;
	return stats_compute(v, n, &s) == 0 ? s.p50 : 0;
}

/* One round: align to a reference edge, then count cycles over `ticks`. */
static enum calib_err one_round(struct refclock *rc, uint64_t ticks, uint64_t *hz)
{
	/* The reference must tick within 10 ms, and cover `ticks` within 4x
	 * their nominal time plus 50 ms. */
	uint64_t span_us = ticks * 1000000 / rc->hz;
	struct deadline dl = deadline_after_us(10000);
	uint64_t r0 = refclock_read(rc), r;
	while ((r = refclock_read(rc)) == r0)
		if (deadline_passed(&dl))
			return CALIB_REF_STUCK;
	uint64_t t0 = cycles_begin();
	dl = deadline_after_us(4 * span_us + 50000);
	uint64_t start = r, elapsed;
	for (;;) {
		r = refclock_read(rc);
		elapsed = (r - start) & rc->mask;
		if (elapsed >= ticks)
			break;
		if (deadline_passed(&dl))
			return elapsed ? CALIB_REF_TOO_SLOW : CALIB_REF_STUCK;
	}
	uint64_t t1 = cycles_end();
	*hz = (uint64_t)((double)(t1 - t0) * (double)rc->hz / (double)elapsed);
	if (*hz < 1000000ull || *hz > 20000000000ull)
		return CALIB_ABSURD;
	return CALIB_OK;
}

enum calib_err calibrate_refclock(struct refclock *rc, uint64_t ticks, unsigned rounds, uint64_t *hz)
{
	uint64_t v[16];
	if (rounds == 0 || rounds > 16 || ticks == 0 || ticks > rc->mask / 2)
		return CALIB_ABSURD;
	for (unsigned i = 0; i < rounds; i++) {
		enum calib_err e = one_round(rc, ticks, &v[i]);
		if (e != CALIB_OK)
			return e;
	}
	*hz = median(v, rounds);
	return CALIB_OK;
}

/* The shortest round: a Stall can only be stretched (by an interrupt, or
 * a host that deschedules the virtual CPU), never cut short, so the
 * fewest cycles are the best estimate. */
uint64_t calibrate_stall(uint32_t us, unsigned rounds)
{
	uint64_t best = ~0ull;
	if (rounds == 0 || rounds > 16 || us == 0)
		return 0;
	for (unsigned i = 0; i < rounds; i++) {
		uint64_t t0 = cycles_begin();
		platform->stall_us(us);
		uint64_t t1 = cycles_end();
		uint64_t hz = (t1 - t0) * 1000000ull / us;
		if (hz < best)
			best = hz;
	}
	return best;
}

/* The CPU and its counter's properties. Which platform this is (hardware,
 * QEMU's TCG, a hypervisor) is core/monitor/platform_id.c's to say, once SMBIOS
 * has been read too. */
#if defined(__aarch64__)
static void identify_cpu(void)
{
	/* MIDR_EL1 (Arm ARM D19.2): implementer, variant, part number, revision;
	 * there is no brand string. */
	uint64_t midr;
	__asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
	snprintf(timing.cpu, sizeof(timing.cpu), "MIDR 0x%08llx (implementer 0x%02llx, part 0x%03llx)",
		 (unsigned long long)midr, (unsigned long long)(midr >> 24) & 0xff,
		 (unsigned long long)(midr >> 4) & 0xfff);
	timing.invariant_tsc = true; /* the generic timer's count never stops or changes rate */
	timing.rdtscp = false;
}
#elif defined(__riscv)
static void identify_cpu(void)
{
	/* mvendorid, marchid and mimpid are M-mode CSRs: the SBI's base
	 * extension reads them for S-mode (SBI 1.0, 4.5-4.7) */
	snprintf(timing.cpu, sizeof(timing.cpu), "mvendorid 0x%llx marchid 0x%llx mimpid 0x%llx",
		 (unsigned long long)riscv_sbi_base(4), (unsigned long long)riscv_sbi_base(5),
		 (unsigned long long)riscv_sbi_base(6));
	timing.invariant_tsc = true; /* the time CSR counts at the constant timebase */
	timing.rdtscp = false;
}
#else
static void identify_cpu(void)
{
	struct cpuid_regs r = cpuid(0x80000000, 0);
	uint32_t max_ext = r.eax;
	if (max_ext >= 0x80000001)
		timing.rdtscp = (cpuid(0x80000001, 0).edx >> 27) & 1;
	if (max_ext >= 0x80000007)
		timing.invariant_tsc = (cpuid(0x80000007, 0).edx >> 8) & 1;
	if (max_ext >= 0x80000004) {
		for (uint32_t i = 0; i < 3; i++) {
			r = cpuid(0x80000002 + i, 0);
			memcpy(timing.cpu + 16 * i, &r, 16);
		}
		timing.cpu[48] = '\0';
		/* brand strings are right-aligned with leading spaces */
		char *p = timing.cpu;
		while (*p == ' ')
			p++;
		memmove(timing.cpu, p, strlen(p) + 1);
	}
}
#endif

/* The reference clocks the tables describe (struct timing_refs). NULL
 * when `rc` is ready, else why the source cannot be used (not described,
 * or its register window refused because the table's address is not a
 * device's). */
static const char not_described[] = "not described by ACPI";

/* A timer's registers inside another device's window (the ECAM windows
 * before the enumeration, its BARs after) are that device's: refused
 * before the first access. */
static const char *owned_by_another(uint64_t base, uint64_t size)
{
	static char why[200];
	const char *owner = claims_owner(base, size, true);
	if (!owner)
		return NULL;
	snprintf(why, sizeof(why), "its registers at 0x%llx lie inside %s: another device's, not touched",
		 (unsigned long long)base, owner);
	return why;
}

/* What claims_early_audit calls when the enumeration finds a timer the
 * TSC was calibrated against inside another device's BAR: the figure it
 * gave is not believed (the Stall estimate stands), and nothing touches
 * the window again (an HPET we switched on stays on: its registers may not
 * be the HPET's). */
static void note(const char *fmt, const char *a, const char *b);

static void timer_dropped(const char *name, const char *why)
{
	printf("error: timer: %s; not used again", why);
	if (ref_valid && strcmp(ref_kept.name, name) == 0)
		ref_valid = false;
	if (strcmp(name, "hpet") == 0)
		hpet_state.enabled_by_us = false;
	if (timing.source && strcmp(timing.source, name) == 0) {
		timing.tsc_hz = timing.stall_hz;
		timing.source = "stall";
		timing.ref_hz = 0;
		printf("; the counter's rate is the Stall estimate, %.3f MHz", (double)timing.stall_hz / 1e6);
		note("%s: %s; ", name, why);
	}
	printf("\n");
}

static void hpet_dropped(const char *why)
{
	timer_dropped("hpet", why);
}

static void pmtimer_dropped(const char *why)
{
	timer_dropped("pmtimer", why);
}

static const char *pmtimer_clock(const struct timing_refs *refs, struct refclock *rc)
{
	if (!refs || !refs->pmtimer)
		return not_described;
	const struct timing_pmtimer pm = refs->pm;
	*rc = (struct refclock){
		.name = "pmtimer", .hz = PMTIMER_HZ, .width = 4, .mask = pm.bits32 ? 0xffffffffull : 0xffffffull
	};
	if (pm.io) {
		if (pm.address > 0xfffc)
			return "the FADT names an I/O port beyond 0xfffc";
		if (platform->replay) /* the port is the machine's (regwin_open_mmio says the same of MMIO) */
			return "replay: no live hardware";
		regwin_init_port(&rc->win, "pmtimer", (uint16_t)pm.address, 4);
		return NULL;
	}
	const char *why = owned_by_another(pm.address, 4);
	if (!why)
		why = regwin_open_mmio(&rc->win, "pmtimer", pm.address, 4, false, "FADT X_PM_TMR_BLK (system memory)");
	if (!why)
		claims_early("pmtimer", pm.address, 4, "FADT X_PM_TMR_BLK", 0, 0, pmtimer_dropped);
	return why;
}

static const char *hpet_clock(const struct timing_refs *refs, struct refclock *rc)
{
	if (!refs || !refs->hpet)
		return not_described;
	uint64_t base = refs->hpet_base;
	const char *why = owned_by_another(base, 0x400);
	if (!why)
		why = regwin_open_mmio(&hpet_state.win, "hpet", base, 0x400, false, "ACPI HPET");
	if (why)
		return why;
	claims_early("hpet", base, 0x400, "ACPI HPET", 0, 0, hpet_dropped);
	uint64_t cap = regwin_read64(&hpet_state.win, HPET_GCAP_ID);
	uint64_t period_fs = cap >> 32;
	if (cap == ~0ull || period_fs == 0 || period_fs > HPET_MAX_PERIOD_FS)
		return "its capability register reads all ones or an impossible period";
	uint64_t conf = regwin_read64(&hpet_state.win, HPET_GEN_CONF);
	if (!(conf & HPET_ENABLE_CNF)) {
		/* Counting is off: switch it on, and back off in timing_fini. */
		regwin_write64(&hpet_state.win, HPET_GEN_CONF, conf | HPET_ENABLE_CNF);
		hpet_state.enabled_by_us = true;
	}
	bool wide = cap & HPET_COUNT_SIZE_CAP;
	*rc = (struct refclock){ .name = "hpet",
				 .hz = 1000000000000000ull / period_fs,
				 .win = hpet_state.win,
				 .off = HPET_MAIN_COUNTER,
				 .width = wide ? 8 : 4,
				 .mask = wide ? ~0ull : 0xffffffffull };
	return NULL;
}

void timing_fini(void)
{
	ref_valid = false;
	if (hpet_state.enabled_by_us) {
		uint64_t conf = regwin_read64(&hpet_state.win, HPET_GEN_CONF);
		regwin_write64(&hpet_state.win, HPET_GEN_CONF, conf & ~HPET_ENABLE_CNF);
		hpet_state.enabled_by_us = false;
	}
}

static void note(const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(timing.note);
	snprintf(timing.note + len, sizeof(timing.note) - len, fmt, a, b);
}

static uint64_t measure_overhead(void)
{
	uint64_t best = ~0ull;
	for (int i = 0; i < 1000; i++) {
		struct timed r;
		timed_begin(&r);
		uint64_t c = timed_end(&r);
		if (c < best)
			best = c;
	}
	return best;
}

#if defined(__aarch64__) || defined(__riscv)
/* The counter's frequency as the platform declares it: the generic
 * timer's CNTFRQ_EL0 (Arm ARM D11.1.2), programmed by firmware, or the
 * device tree's timebase-frequency for RISC-V's time CSR. Believed when
 * the firmware's Stall agrees within 1%, else the Stall estimate is used
 * and the disagreement said (the PM timer and HPET, which these servers
 * lack, are tried next). `name` is the source and the setting's word,
 * `what` the register or property. */
static bool declared_source(const char *name, const char *what, uint64_t hz, const char *prefer)
{
	if (strcmp(prefer, "auto") != 0 && strcmp(prefer, name) != 0)
		return false;
	double f = (double)hz, st = (double)timing.stall_hz;
	double diff = f > 0 ? (st > f ? st - f : f - st) / f : 1.0;
	if (hz == 0 || diff > CNTFRQ_TOLERANCE) {
		char why[160];
		if (hz == 0)
			snprintf(why, sizeof(why), "%s gives no frequency", what);
		else
			snprintf(why, sizeof(why), "%s says %.3f MHz but Stall measures %.3f MHz (%.2f%% apart)", what,
				 f / 1e6, st / 1e6, diff * 100);
		printf("error: timer: %s; using the Stall estimate\n", why);
		char line[200];
		snprintf(line, sizeof(line), "%s: %s", name, why);
		note("%s%s", line, "; ");
		return false;
	}
	timing.tsc_hz = hz;
	timing.source = name;
	timing.ref_hz = hz;
	return true;
}
#endif

void timing_calibrate(const struct timing_refs *refs, const char *prefer)
{
	if (!prefer)
		prefer = "auto";
	timing_fini();
	identify_cpu();
	timing.note[0] = '\0';
	timing.tsc_hz = 0;

	/* A rough figure first, so the deadlines below mean something. */
	timing.tsc_hz = calibrate_stall(2000, 1);
	timing.stall_hz = calibrate_stall(10000, 7);
	timing.tsc_hz = timing.stall_hz;
	timing.source = "stall";
	timing.ref_hz = 0;

	static const char *const order[] = { "pmtimer", "hpet" };
	bool chosen = false;
#if defined(__aarch64__)
	timing.cntfrq_hz = cntfrq();
	chosen = declared_source("cntfrq", "CNTFRQ_EL0", timing.cntfrq_hz, prefer);
#elif defined(__riscv)
	timing.timebase_hz = refs ? refs->timebase_hz : 0;
	chosen = declared_source(
	    "timebase", refs && refs->timebase_from ? refs->timebase_from : "the device tree's timebase-frequency",
	    timing.timebase_hz, prefer);
#else
	if (strcmp(prefer, "cntfrq") == 0)
		note("cntfrq: %s%s", "x86-64 has no Arm generic timer", "; ");
	if (strcmp(prefer, "timebase") == 0)
		note("timebase: %s%s", "x86-64 has no RISC-V time CSR", "; ");
#endif
	for (size_t i = 0; i < 2 && !chosen; i++) {
		if (strcmp(prefer, "auto") != 0 && strcmp(prefer, order[i]) != 0)
			continue;
		struct refclock rc;
		const char *why = i == 0 ? pmtimer_clock(refs, &rc) : hpet_clock(refs, &rc);
		if (why) {
			/* anything but absence is the firmware's error: said on its own line */
			if (why != not_described)
				printf("error: timer: %s: %s; calibrating against the next source\n", order[i], why);
			note("%s: %s; ", order[i], why);
			continue;
		}
		uint64_t hz;
		/* 10 ms per round, median of 5 */
		enum calib_err e = calibrate_refclock(&rc, rc.hz / 100, 5, &hz);
		if (e != CALIB_OK) {
			note("%s: %s; ", order[i], calib_err_name(e));
			continue;
		}
		timing.tsc_hz = hz;
		timing.source = order[i];
		timing.ref_hz = rc.hz;
		ref_kept = rc, ref_valid = true;
		break;
	}
	size_t len = strlen(timing.note);
	if (len >= 2 && timing.note[len - 2] == ';')
		timing.note[len - 2] = '\0';
	timing.overhead = measure_overhead();
}

double timing_disagreement(void)
{
	if (!timing.tsc_hz || !timing.stall_hz)
		return 1.0;
	double d = (double)timing.stall_hz - (double)timing.tsc_hz;
	return (d < 0 ? -d : d) / (double)timing.tsc_hz;
}
