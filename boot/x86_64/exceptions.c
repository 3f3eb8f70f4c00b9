/* CPU exceptions on x86-64: vectors 0-31, worded with their error code,
 * RIP and CR2; the return is redirected by rewriting RIP, RSP and RFLAGS
 * in the context, which OVMF's exception entry reloads (the shared half
 * and the why are in boot/cpu_exceptions.c). */
#include <stdio.h>

#include "boot/boot.h"
#include "boot/exceptions.h"

const uint8_t exception_types[] = { 0,	1,  2,	3,  4,	5,  6,	7,  8,	9,  10, 11, 12, 13, 14, 15,
				    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };
const unsigned exception_ntypes = sizeof(exception_types);

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

void exception_describe(unsigned v, const void *context, char *out, size_t cap)
{
	const EFI_SYSTEM_CONTEXT_X64 *c = context;
	v &= 31;
	size_t n = (size_t)snprintf(out, cap, "CPU exception %u (%s)", v, vector_names[v]);
	if ((ERROR_CODE_VECTORS >> v) & 1 && n < cap)
		n += (size_t)snprintf(out + n, cap - n, ", error code 0x%llx", (unsigned long long)c->ExceptionData);
	if (n < cap)
		n += (size_t)snprintf(out + n, cap - n, " at RIP 0x%llx", (unsigned long long)c->Rip);
	if (n < cap)
		n += exception_in_image(c->Rip, out + n, cap - n);
	if (v == 14 && n < cap)
		n += (size_t)snprintf(out + n, cap - n, ", CR2 0x%llx", (unsigned long long)c->Cr2);
	if (n < cap)
		snprintf(out + n, cap - n, ", RSP 0x%llx", (unsigned long long)c->Rsp);
}

void exception_return_to(void *context, void (*landing)(void), uint8_t *stack_top)
{
	EFI_SYSTEM_CONTEXT_X64 *c = context;
	c->Rip = (uintptr_t)landing;
	/* as if called: the return address slot below a 16-byte boundary */
	c->Rsp = (uintptr_t)(stack_top - 8);
	c->Rflags = (c->Rflags | RFLAGS_IF) & ~(uint64_t)(RFLAGS_TF | RFLAGS_DF);
}

void exception_idle_forever(void)
{
	for (;;)
		__asm__ volatile("sti; hlt");
}
