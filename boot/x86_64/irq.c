/* Interrupts for hardware the monitor programs itself, through the
 * firmware's CPU architecture protocol (boot/cpu_arch.c): a handler
 * registered on a free vector, and the local APIC's end-of-interrupt sent
 * for it, since the firmware sends none for handlers it did not install. */
#include <stdio.h>
#include <stdlib.h>

#include "boot/boot.h"
#include "core/base/cpu.h"
#include "core/base/macros.h"

/* Vectors tried, lowest priority class first above everything OVMF uses
 * (its timer is 0x20, legacy PIC bases 0x68/0x70, HPET default 0x40). */
#define FIRST_VECTOR 0xd0
#define LAST_VECTOR 0xdf

static struct {
	void (*fn)(void *ctx);
	void *ctx;
} slots[LAST_VECTOR - FIRST_VECTOR + 1];

#define MSR_APIC_BASE 0x1b
#define MSR_X2APIC_EOI 0x80b

static uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" ::"c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

/* IA32_APIC_BASE.EXTD: the firmware put the local APIC in x2APIC mode
 * (Intel SDM vol. 3A, 11.12.1) */
static bool x2apic(void)
{
	return (rdmsr(MSR_APIC_BASE) & (1u << 10)) != 0;
}

static uint32_t apic_id(void);

/* 32 only when the boot CPU's id needs it: an 8-bit destination reaches an
 * x2APIC-mode CPU whose id is below 256, and VT-d's 32-bit destinations
 * (IRTA.EIME) would block the firmware's compatibility-format interrupts
 * whatever CFI says (VT-d 5.1.4). */
unsigned apic_id_bits(void)
{
	return x2apic() && apic_id() > 0xff ? 32 : 8;
}

bool apic_x2apic(void)
{
	return x2apic();
}

static void apic_eoi(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	if (x2apic())
		wrmsr(MSR_X2APIC_EOI, 0);
	else
		*(volatile uint32_t *)(uintptr_t)((base & 0xffffff000ull) + 0xb0) = 0;
}

static volatile bool dispatching;

static void EFIAPI dispatch(INTN vector, void *context)
{
	(void)context;
	unsigned i = (unsigned)vector - FIRST_VECTOR;
	dispatching = true;
	if (i < ARRAY_SIZE(slots) && slots[i].fn)
		slots[i].fn(slots[i].ctx);
	dispatching = false;
	apic_eoi();
}

/* A CPU exception inside a handler of ours never reaches its end-of-
 * interrupt: the vector would stay in service and block every interrupt
 * of lower priority (the firmware's timer, and so its watchdog). */
void irq_abandon(void)
{
	if (dispatching) {
		dispatching = false;
		apic_eoi();
	}
}

static uint32_t apic_id(void)
{
	if (x2apic())
		return (uint32_t)rdmsr(0x802);
	return cpuid(1, 0).ebx >> 24;
}

int irq_install(void (*fn)(void *ctx), void *ctx, uint32_t *apic, const char **why)
{
	*apic = apic_id();
	if (*apic > 0xff) {
		*why = "the boot CPU's APIC id does not fit an MSI address without remapping";
		return -1;
	}
	for (unsigned v = FIRST_VECTOR; v <= LAST_VECTOR; v++) {
		unsigned i = v - FIRST_VECTOR;
		if (slots[i].fn)
			continue;
		slots[i].fn = fn, slots[i].ctx = ctx;
		EFI_STATUS st = cpu_register(v, dispatch);
		if (!EFI_ERROR(st))
			return (int)v;
		slots[i].fn = NULL;
		if (st == EFI_UNSUPPORTED) {
			*why = "the firmware has no CPU architecture protocol";
			return -1;
		}
	}
	*why = "every vector from 0xd0 to 0xdf is taken";
	return -1;
}

/* A fixed, edge interrupt to ourselves (Intel SDM vol. 3 10.6.1: ICR
 * destination shorthand 01b, self; x2APIC: the SELF IPI register, 10.12.11),
 * so the vector is in service when the handler's end-of-interrupt comes. */
#define ICR_SELF (1u << 18)
#define MSR_X2APIC_SELF_IPI 0x83f

bool irq_send(int vector, uint32_t apic)
{
	unsigned i = (unsigned)vector - FIRST_VECTOR;
	if (i >= ARRAY_SIZE(slots) || !slots[i].fn || apic != apic_id())
		return false;
	uint64_t base = rdmsr(MSR_APIC_BASE);
	if (base & (1u << 10))
		wrmsr(MSR_X2APIC_SELF_IPI, (uint32_t)vector);
	else
		*(volatile uint32_t *)(uintptr_t)((base & 0xffffff000ull) + 0x300) = ICR_SELF | (uint32_t)vector;
	return true;
}

/* The source must already be masked: an interrupt arriving after this would
 * find no handler and get no end-of-interrupt. */
void irq_remove(int vector)
{
	unsigned i = (unsigned)vector - FIRST_VECTOR;
	if (i >= ARRAY_SIZE(slots) || !slots[i].fn)
		return;
	cpu_register((unsigned)vector, NULL);
	slots[i].fn = NULL;
}
