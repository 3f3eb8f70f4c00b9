/* Interrupts where the monitor drives no interrupt controller (aarch64,
 * riscv64; x86_64 has its own irq.c for the local APIC): none are taken
 * for the monitor's hardware. The GIC and its ITS, or the AIA's IMSICs
 * and APLIC or a PLIC, are the firmware's, and every driver polls its
 * status registers with a deadline instead (an IOMMU's event queue, a
 * controller's completion). */
#include "boot/boot.h"

int irq_install(void (*fn)(void *ctx), void *ctx, uint32_t *target, const char **why)
{
	(void)fn, (void)ctx, (void)target;
#if defined(__riscv)
	*why = "no interrupt controller driven on riscv64: the monitor polls";
#else
	*why = "no interrupt controller driven on aarch64: the monitor polls";
#endif
	return -1;
}

/* Nothing was ever installed, so nothing to remove or end. */
void irq_remove(int vector)
{
	(void)vector;
}

bool irq_send(int vector, uint32_t target)
{
	(void)vector, (void)target;
	return false;
}

void irq_abandon(void) {}
