/* CPU exceptions, caught through the firmware's CPU architecture protocol
 * instead of stopping in the firmware's handler with an IOMMU taken over
 * and a controller disconnected. This is the part every architecture
 * shares; boot/<arch>/exceptions.c words the exception and redirects the
 * return (exceptions.h).
 *
 * The handler runs on whatever stack faulted, perhaps with interrupts
 * masked and the heap half-updated, so it does as little as it can: it
 * words the exception and sends the CPU, on its return, to crash_landing
 * on a stack of its own with interrupts enabled (the firmware's exception
 * return reloads the program counter and status from the context it hands
 * us). There, in ordinary code, survive_crash names the test, gives back
 * what is held and resets or returns to the firmware. An exception inside
 * that path lands once more and skips the give-back; if the firmware does
 * not honour the new return address (the same fault comes back before any
 * landing) or a third exception comes, the handler resets the machine
 * itself. */
#include "exceptions.h"

#include <stdio.h>
#include <string.h>

#include "boot.h"
#include "core/monitor/survive.h"

static struct {
	uint64_t taken; /* bit i: exception_types[i]'s handler is ours */
	volatile unsigned entries;
	volatile bool landed;
	char what[200];
	char first[200]; /* the first exception, for a line written after a later one */
} ex;

static uint8_t crash_stack[64 * 1024] __attribute__((aligned(16)));

static __attribute__((noreturn, used)) void crash_landing(void)
{
	ex.landed = true;
	survive_crash(ex.what);
}

size_t exception_in_image(uint64_t pc, char *out, size_t cap)
{
	uint64_t base = (uintptr_t)boot_loaded_image->ImageBase, size = boot_loaded_image->ImageSize;
	if (pc < base || pc - base >= size || cap == 0)
		return 0;
	int n = snprintf(out, cap, " (iommon+0x%llx)", (unsigned long long)(pc - base));
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

static void EFIAPI on_exception(INTN type, void *context)
{
	unsigned n = ++ex.entries;
	if (n == 1 || (n == 2 && ex.landed)) {
		exception_describe((unsigned)type, context, ex.what, sizeof(ex.what));
		if (n == 1)
			memcpy(ex.first, ex.what, sizeof(ex.first));
		irq_abandon();
		ex.landed = false;
		exception_return_to(context, crash_landing, crash_stack + sizeof(crash_stack));
		return;
	}
	if (n > 3) /* describing it or the reset faulted too: no more of either (each would nest one
		      exception deeper, for ever); a watchdog armed for the test or the crash path resets */
		exception_idle_forever();
	/* the line names the first exception, which is the crash; the one
	 * taken now only says why the landing did not run it to its end */
	char line[500];
	char what[200];
	exception_describe((unsigned)type, context, what, sizeof(what));
	int len =
	    snprintf(line, sizeof(line), "\r\ncrash: %s; then %s, %s: resetting at once\r\n", ex.first, what,
		     ex.landed ? "while handling the crash"
			       : "before the crash landing ran (or the firmware did not let us leave the handler)");
	if (len > 0)
		console_write(line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
	RT->ResetSystem(EfiResetCold, EFI_ABORTED, 0, NULL);
	exception_idle_forever(); /* the watchdog the crash path armed resets the machine */
}

bool exceptions_install(void)
{
	unsigned firmware = 0;
	for (unsigned i = 0; i < exception_ntypes; i++) {
		EFI_STATUS st = cpu_register(exception_types[i], on_exception);
		if (st == EFI_UNSUPPORTED) {
			printf(
			    "warning: CPU exceptions are left to the firmware: it has no CPU architecture protocol\n");
			return false;
		}
		if (!EFI_ERROR(st))
			ex.taken |= 1ull << i;
		else
			firmware++;
	}
	if (firmware)
		printf("note: %u exception types keep a handler the firmware had installed (mask 0x%llx ours)\n",
		       firmware, (unsigned long long)ex.taken);
	return ex.taken != 0;
}

void exceptions_remove(void)
{
	for (unsigned i = 0; i < exception_ntypes; i++)
		if (ex.taken & (1ull << i))
			cpu_register(exception_types[i], NULL);
	ex.taken = 0;
}
