/* CPU exceptions (vectors 0-31), caught through the firmware's CPU
 * architecture protocol instead of stopping in the firmware's handler with
 * an IOMMU taken over and a controller disconnected.
 *
 * The handler runs on whatever stack faulted, perhaps with interrupts
 * masked and the heap half-updated, so it does as little as it can: it
 * words the exception and sends the CPU, on its return, to crash_landing
 * on a stack of its own with interrupts enabled (the firmware's exception
 * entry reloads RIP, RSP and RFLAGS from the context it hands us). There,
 * in ordinary code, survive_crash names the test, gives back what is held
 * and resets or returns to the firmware. An exception inside that path
 * lands once more and skips the give-back; if the firmware does not honour
 * the new RIP (the same fault comes back before any landing) or a third
 * exception comes, the handler resets the machine itself. */
#include <stdio.h>
#include <string.h>

#include "../core/survive.h"
#include "boot.h"

static const char *const vector_names[32] = {
	"#DE divide error",
	"#DB debug",
	"NMI",
	"#BP breakpoint",
	"#OF overflow",
	"#BR bound range exceeded",
	"#UD invalid opcode",
	"#NM device not available",
	"#DF double fault",
	"coprocessor segment overrun",
	"#TS invalid TSS",
	"#NP segment not present",
	"#SS stack-segment fault",
	"#GP general protection",
	"#PF page fault",
	"reserved vector 15",
	"#MF x87 floating-point error",
	"#AC alignment check",
	"#MC machine check",
	"#XM SIMD floating-point exception",
	"#VE virtualization exception",
	"#CP control protection",
	"reserved vector 22",
	"reserved vector 23",
	"reserved vector 24",
	"reserved vector 25",
	"reserved vector 26",
	"reserved vector 27",
	"#HV hypervisor injection",
	"#VC VMM communication",
	"#SX security exception",
	"reserved vector 31",
};

/* Vectors that push an error code (Intel SDM vol. 3A, table 6-1; AMD APM
 * vol. 2, 8.2). */
#define ERROR_CODE_VECTORS \
	(1u << 8 | 1u << 10 | 1u << 11 | 1u << 12 | 1u << 13 | 1u << 14 | 1u << 17 | 1u << 21 | 1u << 29 | 1u << 30)

#define RFLAGS_TF (1u << 8)
#define RFLAGS_IF (1u << 9)
#define RFLAGS_DF (1u << 10)

static struct {
	uint32_t taken; /* vectors whose handler is ours */
	volatile unsigned entries;
	volatile bool landed;
	char what[200];
} ex;

static uint8_t crash_stack[64 * 1024] __attribute__((aligned(16)));

static __attribute__((noreturn, used)) void crash_landing(void)
{
	ex.landed = true;
	survive_crash(ex.what);
}

static void describe(unsigned v, const EFI_SYSTEM_CONTEXT_X64 *c, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "CPU exception %u (%s)", v, vector_names[v]);
	if ((ERROR_CODE_VECTORS >> v) & 1 && n < cap)
		n += (size_t)snprintf(out + n, cap - n, ", error code 0x%llx", (unsigned long long)c->ExceptionData);
	if (n < cap)
		n += (size_t)snprintf(out + n, cap - n, " at RIP 0x%llx", (unsigned long long)c->Rip);
	uint64_t base = (uintptr_t)boot_loaded_image->ImageBase, size = boot_loaded_image->ImageSize;
	if (c->Rip >= base && c->Rip - base < size && n < cap)
		n += (size_t)snprintf(out + n, cap - n, " (iommon+0x%llx)", (unsigned long long)(c->Rip - base));
	if (v == 14 && n < cap)
		n += (size_t)snprintf(out + n, cap - n, ", CR2 0x%llx", (unsigned long long)c->Cr2);
	if (n < cap)
		snprintf(out + n, cap - n, ", RSP 0x%llx", (unsigned long long)c->Rsp);
}

static void EFIAPI on_exception(INTN vector, void *context)
{
	EFI_SYSTEM_CONTEXT_X64 *c = context;
	unsigned v = (unsigned)vector & 31, n = ++ex.entries;
	if (n == 1 || (n == 2 && ex.landed)) {
		describe(v, c, ex.what, sizeof(ex.what));
		irq_abandon();
		ex.landed = false;
		c->Rip = (uintptr_t)crash_landing;
		/* as if called: the return address slot below a 16-byte boundary */
		c->Rsp = (uintptr_t)(crash_stack + sizeof(crash_stack) - 8);
		c->Rflags = (c->Rflags | RFLAGS_IF) & ~(uint64_t)(RFLAGS_TF | RFLAGS_DF);
		return;
	}
	if (n > 3) /* describing it or the reset faulted too: no more of either (each would nest one
		      exception deeper, for ever); a watchdog armed for the test or the crash path resets */
		for (;;)
			__asm__ volatile("sti; hlt");
	char line[300];
	char what[200];
	describe(v, c, what, sizeof(what));
	int len = snprintf(line, sizeof(line), "\r\ncrash: %s, %s: resetting at once\r\n", what,
			   ex.landed ? "while handling an earlier crash"
				     : "and the firmware did not let us leave the handler");
	if (len > 0)
		console_write(line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
	RT->ResetSystem(EfiResetCold, EFI_ABORTED, 0, NULL);
	for (;;) /* the watchdog the crash path armed resets the machine */
		__asm__ volatile("sti; hlt");
}

bool exceptions_install(void)
{
	unsigned firmware = 0;
	for (unsigned v = 0; v < 32; v++) {
		EFI_STATUS st = cpu_register(v, on_exception);
		if (st == EFI_UNSUPPORTED) {
			printf(
			    "warning: CPU exceptions are left to the firmware: it has no CPU architecture protocol\n");
			return false;
		}
		if (!EFI_ERROR(st))
			ex.taken |= 1u << v;
		else
			firmware++;
	}
	if (firmware)
		printf("note: %u exception vectors keep a handler the firmware had installed (mask 0x%08x ours)\n",
		       firmware, ex.taken);
	return ex.taken != 0;
}

void exceptions_remove(void)
{
	for (unsigned v = 0; v < 32; v++)
		if (ex.taken & (1u << v))
			cpu_register(v, NULL);
	ex.taken = 0;
}
