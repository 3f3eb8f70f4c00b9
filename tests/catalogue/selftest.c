/* Group `selftest`, hidden: cases that crash or hang the monitor on
 * purpose, to prove that a run survives it (README "Crash survival").
 * Never run by `run all`, `run default` or a group name: only by a case's
 * full name (`run selftest.hang`). */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "catalogue.h"
#include "core/base/macros.h"
#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "core/monitor/survive.h"

/* Spins with interrupts enabled, as a test whose device never answers
 * would: only the firmware watchdog ends it. If the watchdog does not
 * reset the machine within twice its budget (plus 30 s), that is the
 * failure. Ctrl-C/Esc still stops it at the console. */
static void t_hang(struct test_ctx *t)
{
	unsigned budget = survive_armed();
	if (!budget) {
		test_skip(t, survive_budget() ? SKIP_UNSUPPORTED : SKIP_SETTING,
			  survive_budget() ? "the watchdog is not armed (the firmware refused it, or the breadcrumb is "
					     "not kept: see the warning above): nothing would end the hang"
					   : "the watchdog is off ('set watchdog N', or auto in an unattended plan): "
					     "nothing would end the hang");
		return;
	}
	printf("    hanging with interrupts enabled: the %u s watchdog is to reset the machine\n", budget);
	fflush(stdout);
	struct deadline dl = deadline_after_us((uint64_t)(2 * budget + 30) * 1000000);
	while (!deadline_passed(&dl)) {
		if (test_stopped(t))
			return;
		for (int i = 0; i < 1000; i++)
			cpu_relax();
	}
	report(t, false, "the watchdog did not reset the machine within %u s (its budget: %u s)", 2 * budget + 30,
	       budget);
}

/* A read the CPU refuses: the crash path must name this test, give back
 * the IOMMU unit held meanwhile (the machine's, when there is one) and
 * reset or return to the firmware. */
static void fault(struct test_ctx *t, uint64_t addr, const char *what)
{
	if (!platform->exceptions_caught) {
		test_skip(t, SKIP_PLATFORM,
			  "CPU exceptions are not caught on this platform: the fault would stop the machine");
		return;
	}
	struct env v;
	bool held = bench_setup(t, &v, NULL);
	if (!held) { /* the fault is the point: it happens with or without a unit */
		printf("    (no IOMMU unit held: %s)\n", t->detail);
		t->skipped = false;
		t->failures = 0;
	}
	printf("    reading %s 0x%016llx%s%s\n", what, (unsigned long long)addr, held ? " while holding " : "",
	       held ? v.io->name : "");
	fflush(stdout);
	uint64_t x = *(volatile uint64_t *)(uintptr_t)addr;
	report(t, false, "the read of 0x%016llx returned 0x%llx instead of faulting", (unsigned long long)addr,
	       (unsigned long long)x);
	if (held)
		bench_teardown(&v);
}

static void t_fault(struct test_ctx *t)
{
#if defined(__aarch64__) /* beyond a 48-bit VA: a data abort (translation fault, level 0) */
	fault(t, 0x8000000000000000ull, "the address beyond the 48-bit address space");
#else
	fault(t, 0x8000000000000000ull, "the non-canonical address"); /* #GP */
#endif
}

/* Canonical, but above any physical address width firmware maps today
 * (2^47 - 4 KiB): a page fault with CR2 naming it. */
static void t_pagefault(struct test_ctx *t)
{
	fault(t, 0x00007ffffffff000ull, "the unmapped address");
}

/* The C library giving up (a failed assert ends here too). */
static void t_abort(struct test_ctx *t)
{
	if (!platform->exceptions_caught) {
		test_skip(t, SKIP_PLATFORM, "abort() is not taken to the crash path on this platform");
		return;
	}
	printf("    calling abort()\n");
	fflush(stdout);
	abort();
}

static const struct test_doc docs[] = {
	{ t_hang,
	  "on purpose, a test that never returns with interrupts enabled: the firmware watchdog the monitor "
	  "armed must reset the machine, and the next boot records the test as crashed and resumes the plan",
	  "the machine still running after twice the watchdog's budget: a hung test would hang a lab's rack" },
	{ t_fault,
	  "on purpose, a CPU exception (a read outside the address space: #GP, or a data abort on aarch64): "
	  "the crash path gives every IOMMU back, records the crash and resets, and the next boot resumes",
	  "a machine left with an IOMMU translating, or a crash with no record after the reset" },
	{ t_pagefault,
	  "on purpose, a read of an unmapped address (#PF with CR2, or FAR on aarch64): handled as the other "
	  "exceptions, the faulting address recorded",
	  "a wrong or missing faulting address in the crash record, or the machine not given back" },
	{ t_abort, "on purpose, abort() as a failed assertion calls it: taken to the same crash path as an exception",
	  "an abort that leaves the machine as the monitor had it, or unrecorded" },
	{ NULL },
};

static const struct test_case cases[] = {
	{ "selftest.hang", "hang with interrupts enabled until the firmware watchdog resets the machine", t_hang,
	  false },
	{ "selftest.fault",
	  "read outside the address space (#GP; aarch64: data abort; riscv64: access fault): the crash path must give "
	  "back and reset",
	  t_fault, false },
	{ "selftest.pagefault",
	  "read an unmapped address (#PF, CR2; aarch64: FAR): the crash path must give back and reset", t_pagefault,
	  false },
	{ "selftest.abort", "call abort(), as a failed assert does: the crash path must give back and reset", t_abort,
	  false },
};

const struct test_group selftest_group = {
	.name = "selftest",
	.summary = "crash and hang on purpose (hidden: only by full name)",
	.cases = cases,
	.n = ARRAY_SIZE(cases),
	.hidden = true,
	.docs = (const struct test_doc *const[]){ docs, NULL },
};
