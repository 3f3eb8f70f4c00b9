/* Interrupts on aarch64: none are taken for the monitor's hardware. The
 * GIC (and its ITS, where an MSI would go) is not driven: the firmware owns
 * it, and every driver polls its status registers with a deadline instead
 * (an IOMMU's event queue, a controller's completion). */
#include "boot/boot.h"

int irq_install(void (*fn)(void *ctx), void *ctx, uint32_t *target, const char **why)
{
	(void)fn, (void)ctx, (void)target;
	*why = "no interrupt controller driven on aarch64: the monitor polls";
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
