/* Shared between the boot/ files: the UEFI handles and the console sinks. */
#ifndef IOMMON_BOOT_H
#define IOMMON_BOOT_H

#include <efi.h>
#include <efilib.h>
#include <stddef.h>

#include "core/base/platform.h"

extern EFI_HANDLE boot_image;
extern EFI_LOADED_IMAGE *boot_loaded_image;

/* console.c */
void console_init(void);
void console_write(const char *buf, size_t n);
int console_getc(void);
const char *console_route(const char *mode, const struct console_uart *uart);
const char *console_describe(void);
void console_restore(void);

/* files.c */
void files_init(void);
void files_fini(void);
char *files_read(const char *path, size_t *len);
const char *files_stream(const char *path, bool (*piece)(void *ctx, const void *buf, size_t n), void *ctx,
			 bool *absent);
struct platform_file *files_create(const char *path, const char **why);
struct platform_file *files_reopen(const char *path, const char **why);
bool files_append(struct platform_file *f, const void *buf, size_t n, const char **why);
void files_close(struct platform_file *f);
bool files_replace(const char *path, const void *buf, size_t n, const char **why);
bool files_delete(const char *path, const char **why);
const char *files_describe(void);
const char *files_readonly(void);

/* netboot.c: after a network boot, files from the server the image came
 * from: the firmware's PXE base code (TFTP), or iPXE's download protocol
 * when iPXE started the image (TFTP or HTTP, beside the boot file) */
bool netboot_init(char *describe, size_t cap);
bool netboot_through_ipxe(void); /* iPXE started the image */
const char *netboot_stream(const char *path, bool (*piece)(void *ctx, const void *buf, size_t n), void *ctx,
			   bool *absent);

/* devices.c */
const char *device_claim(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn);
void device_release(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn);
/* The firmware's own DMA path: its IOMMU protocol, a buffer mapped through
 * a device's PCI I/O protocol, the boot volume read by block (platform.h). */
uint64_t device_fw_bar_size(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn, uint64_t base, bool io);
bool device_fw_iommu(void);
const char *device_fw_dma_map(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn, uint64_t phys, size_t len,
			      uint64_t *dev_addr, void **token);
void device_fw_dma_unmap(void *token);
const char *device_boot_read(uint64_t off, void *buf, size_t len);

/* x86_64/cpu.c, aarch64/cpu.c: the CPU-specific members of the platform
 * (interrupt masking, address width, paging depth) */
void arch_platform(struct platform *p);
/* EXIT_QEMU: ends QEMU with the verdict as its exit status, or returns why not */
const char *qemu_exit(int status);

/* aarch64/gic_cpu.c: platform->gic_sysreg and ->arm_id_reg */
bool aarch64_gic_sysreg(enum platform_gic_reg r, bool write, uint64_t *v);
bool aarch64_arm_id_reg(enum platform_arm_id r, uint64_t *v);

/* x86_64/irq.c, aarch64/irq.c */
int irq_install(void (*fn)(void *ctx), void *ctx, uint32_t *apic_id, const char **why);
void irq_remove(int vector);
bool irq_send(int vector, uint32_t apic_id);
/* The crash path leaves a handler of ours mid-way: its end-of-interrupt. */
void irq_abandon(void);
/* x86_64/irq.c: platform->apic_id_bits (32 for an x2APIC id above 255, else 8) */
unsigned apic_id_bits(void);
/* x86_64/irq.c: platform->apic_x2apic (IA32_APIC_BASE.EXTD) */
bool apic_x2apic(void);
/* cpu_arch.c: a handler for any vector through the CPU architecture
 * protocol (NULL removes it); EFI_UNSUPPORTED when the firmware has none. */
EFI_STATUS cpu_register(unsigned vector, void(EFIAPI *handler)(INTN vector, void *context));

/* services.c: platform->firmware_services */
size_t firmware_services(struct platform_service *out, size_t max);

/* breadcrumb.c */
int breadcrumb_get(char *buf, size_t cap, const char **why);
const char *breadcrumb_set(const char *text);
const char *watchdog_arm(unsigned seconds);

/* cpu_exceptions.c (with boot/<arch>/exceptions.c, boot/exceptions.h):
 * handlers for the CPU's exceptions (x86-64 vectors 0-31; aarch64
 * synchronous, FIQ and SError) through the CPU architecture protocol;
 * removed, the firmware's own handling returns. */
bool exceptions_install(void);
void exceptions_remove(void);

/* memmap.c */
struct mem_range;
size_t memory_map(const struct mem_range **map);
uint64_t memory_top(void);

/* syscalls.c */
void heap_init(void);
/* Gives the heap's pages back: nothing may allocate afterwards. */
void heap_fini(void);

/* Before Exit(): the UART as found, the volume closed, the timer event
 * and every page we took given back (Exit frees only the image itself). */
void boot_release(void);

/* UCS-2 <-> ASCII for firmware strings; non-ASCII becomes '?'. */
void ascii_from_ucs2(char *out, size_t cap, const CHAR16 *in, size_t max_in);

#endif
