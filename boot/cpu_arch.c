/* The firmware's CPU architecture protocol (UEFI PI spec, DXE volume, "CPU
 * Architectural Protocol"), on both architectures: handlers for interrupt
 * vectors (x86-64) and exception types (AArch64: 0 synchronous, 1 IRQ,
 * 2 FIQ, 3 SError). */
#include "boot.h"

static EFI_GUID cpu_arch_guid = { 0x26baccb1, 0x6f42, 0x11d4, { 0xbc, 0xe7, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81 } };

typedef void(EFIAPI *cpu_interrupt_handler)(INTN vector, void *context);

/* The protocol's layout; only RegisterInterruptHandler is called. */
struct cpu_arch {
	void *flush_data_cache, *enable_interrupt, *disable_interrupt, *get_interrupt_state, *init;
	EFI_STATUS(EFIAPI *register_interrupt_handler)(struct cpu_arch *self, INTN vector, cpu_interrupt_handler h);
	void *get_timer_value, *set_memory_attributes;
	UINT32 number_of_timers, dma_buffer_alignment;
};

static struct cpu_arch *cpu;

EFI_STATUS cpu_register(unsigned vector, void(EFIAPI *handler)(INTN vector, void *context))
{
	if (!cpu && EFI_ERROR(BS->LocateProtocol(&cpu_arch_guid, NULL, (void **)&cpu)))
		cpu = NULL;
	if (!cpu)
		return EFI_UNSUPPORTED;
	return cpu->register_interrupt_handler(cpu, (INTN)vector, handler);
}
