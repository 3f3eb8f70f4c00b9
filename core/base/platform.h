/* What the layer below core/ offers: the only door to the firmware.
 *
 * boot/ fills this in with UEFI services; tests/host/ fills it in with the
 * host's for unit tests and the host build of the monitor. Console output is
 * not here: everything prints with stdio, and the platform routes stdout to
 * its console sinks through the output contract's filter (contract_write,
 * core/base/contract.h).
 *
 * Calls go down, core to platform, with one exception: on a CPU exception,
 * an abort or an exit the platform calls the crash path, survive_crash
 * (core/monitor/survive.h). Nothing else in core/ is called from below. */
#ifndef IOMMON_PLATFORM_H
#define IOMMON_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum exit_kind { EXIT_FIRMWARE, EXIT_RESET, EXIT_POWEROFF, EXIT_QEMU };

struct wallclock {
	unsigned year, month, day, hour, minute, second;
};

/* The page the platform allocates (alloc_pages) and the IOMMUs' smallest:
 * 4 KiB. */
#define PAGE_SIZE 4096ull

struct platform_file;
struct mem_range;    /* core/base/memmap.h */
struct regwin;	     /* core/base/regwin.h */
struct console_uart; /* core/serial/uart.h */

/* The GIC CPU interface registers platform->gic_sysreg reaches. */
enum platform_gic_reg {
	GIC_ICC_SRE,
	GIC_ICC_PMR,
	GIC_ICC_IAR1,
	GIC_ICC_EOIR1,
	GIC_ICC_DIR,
	GIC_ICC_CTLR,
	GIC_ICC_IGRPEN1,
	GIC_ICC_SGI1R,
	GIC_ICC_RPR,
	GIC_ICC_HPPIR1,
	GIC_MPIDR, /* read only */
};

/* The Arm identification registers platform->arm_id_reg reads. */
enum platform_arm_id {
	ARM_MIDR,
	ARM_ID_AA64PFR0,
	ARM_ID_AA64ISAR0,
	ARM_ID_AA64MMFR0,
	ARM_ID_AA64MMFR1,
	ARM_ID_AA64MMFR2,
	ARM_SCTLR, /* SCTLR_EL1, or SCTLR_EL2 at EL2: the current endianness (EE) */
};

/* A firmware service or protocol the monitor uses, as the firmware under
 * it offers it (platform->firmware_services). */
struct platform_service {
	const char *name; /* "EFI_PCI_IO_PROTOCOL" */
	const char *key;  /* "pci_io": its field in the record */
	bool present;
	bool needed;	     /* by this architecture and boot: absent, something is lost */
	char detail[48];     /* "3 handles", "EFI_UNSUPPORTED", or "" */
	const char *without; /* what the monitor does without it */
};

struct platform {
	const char *name; /* "uefi", "host" */
	bool hardware;	  /* running on the machine: its ports and MMIO may be touched */
	/* A replay (tests/host/replay.c): the folder a live run saved, whose
	 * tables, memory map and registers stand in for a machine that is not
	 * here; no address they name is ever touched. NULL on a live run. */
	const char *replay;
	/* Under test only (NULL on a machine): the register-level model that
	 * answers at [base, base + size) instead of memory-mapped I/O, given as
	 * its window (true); false where none does. regwin_open_mmio asks it
	 * first, so a host test puts a model where a table or a BAR says
	 * registers are and the drivers open them as on a machine. */
	bool (*mmio_model)(uint64_t base, uint64_t size, struct regwin *w);

	/* Console input: a byte, or -1 when none is waiting. Never blocks. */
	int (*getc)(void);
	/* Console routing. mode: "auto", "efi", "uart", "both", or NULL to
	 * keep it; uart: NULL to keep the current port, else the port the
	 * monitor resolved (the SPCR's or `set uart`'s, or why there is none:
	 * core/monitor/console.c), which the platform drives. Everything the
	 * sinks print passes through contract_write (core/base/contract.h).
	 * Returns NULL, or a message saying what was wrong. */
	const char *(*console_route)(const char *mode, const struct console_uart *uart);
	/* One line saying which sinks print, e.g. "efi (firmware redirects to serial)". */
	const char *(*console_describe)(void);

	/* Memory: whole 4 KiB pages, physically contiguous, below `limit`
	 * (0 = anywhere); identity-mapped. NULL when none could be had. */
	void *(*alloc_pages)(size_t pages, uint64_t limit);
	void (*free_pages)(void *p, size_t pages);

	/* Busy-wait in microseconds on the firmware's own timer (the reference
	 * of last resort for calibration). */
	void (*stall_us)(uint32_t us);
	bool (*wallclock)(struct wallclock *out);
	/* Wait for a key or `us`, whichever comes first, letting the CPU rest
	 * (a person is typing; nothing is being timed). */
	void (*idle_us)(uint32_t us);

	/* Interrupts: masked only inside timed regions. */
	uint64_t (*irq_save)(void);
	void (*irq_restore)(uint64_t state);

	/* A handler for interrupts from hardware the monitor programs itself
	 * (an IOMMU's fault event): fn(ctx) runs on a free vector, and the
	 * platform sends the end-of-interrupt. Returns the vector and the local
	 * APIC id an MSI must name, or -1 with *why. NULL: no interrupts here. */
	int (*irq_install)(void (*fn)(void *ctx), void *ctx, uint32_t *apic_id, const char **why);
	void (*irq_remove)(int vector);
	/* `vector` delivered to local APIC `apic_id` as an arriving MSI would
	 * be (x86: a self IPI through the local APIC, so the handler runs
	 * with the vector in service and ends it), for a register model's
	 * remapped interrupt. False when that APIC is not this CPU's or no
	 * handler holds the vector: nothing runs, as nothing would. NULL:
	 * the platform cannot. */
	bool (*irq_send)(int vector, uint32_t apic_id);

	/* The size of the memory or I/O range a PCI function's BAR decodes at
	 * `base`, as the firmware that enumerated the function recorded it
	 * (UEFI: EFI_PCI_IO_PROTOCOL.GetBarAttributes), so that the monitor
	 * learns it without writing the BAR; 0 when the firmware does not say
	 * (no PciIo for the function, no BAR there). NULL: no firmware to ask
	 * (the host): BARs are sized by writing them. */
	uint64_t (*fw_bar_size)(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn, uint64_t base, bool io);
	/* The firmware's own IOMMU protocol (EDK II's EDKII_IOMMU_PROTOCOL),
	 * as a firmware driver meets it: fw_iommu says whether one is
	 * installed (NULL: no firmware). fw_dma_map maps `len` bytes at
	 * `phys` for bus-master writes by the PCI function seg:bus:dev.fn
	 * through its PCI I/O protocol (whose Map calls the IOMMU protocol's
	 * Map and SetAttribute), the address the device must use in
	 * *dev_addr; fw_dma_unmap undoes it. NULL or why not. */
	bool (*fw_iommu)(void);
	const char *(*fw_dma_map)(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn, uint64_t phys, size_t len,
				  uint64_t *dev_addr, void **token);
	void (*fw_dma_unmap)(void *token);
	/* `len` bytes of the medium the monitor booted from, at byte `off`,
	 * read through the firmware's block driver (no cache between: the
	 * device DMAs them): NULL or why not. NULL: no such medium. */
	const char *(*boot_read)(uint64_t off, void *buf, size_t len);

	/* End of the highest RAM range in the firmware's memory map (0 when
	 * unknown): what an identity map must cover. */
	uint64_t (*memory_top)(void);

	/* The firmware's memory map: *map is set to n entries (UEFI types,
	 * core/base/memmap.h). core/base/memmap.c asks it before any address a table,
	 * a BAR or a person gave is opened as MMIO or read as memory. */
	size_t (*memory_map)(const struct mem_range **map);
	/* The CPU's physical address width in bits (MAXPHYADDR, CPUID
	 * 0x80000008 EAX[7:0]). */
	unsigned (*phys_bits)(void);
	/* 5 when the firmware pages with 5 levels (CR4.LA57), so that its
	 * identity map reaches 2^56 rather than 2^47; NULL or 4 otherwise. */
	unsigned (*paging_levels)(void);
	/* The width an interrupt's destination needs to name the boot CPU's
	 * local APIC: 32 when the firmware left it in x2APIC mode (IA32_APIC_BASE,
	 * MSR 0x1B, bit 10 EXTD) with an id above 255, else 8 (an x2APIC-mode
	 * CPU with a smaller id takes 8-bit destinations). The monitor never
	 * changes the mode. NULL: no local APIC (aarch64). */
	unsigned (*apic_id_bits)(void);
	/* An SMC Calling Convention fast call (Arm DEN0028): function id `fid`
	 * in W0 and no arguments, through HVC (`hvc`) or SMC, with a handler
	 * of ours in place should the instruction raise an exception (nothing
	 * at the level it targets: undefined). True with X0-X3 in res; false
	 * with *why when it raised one. core/ calls it only through the
	 * conduit the FADT names (core/monitor/platform_id.c). NULL: no SMCCC here
	 * (x86-64, the host). */
	bool (*smccc)(bool hvc, uint32_t fid, uint64_t res[4], const char **why);
	/* The boot CPU's local APIC is in x2APIC mode (IA32_APIC_BASE.EXTD):
	 * it compares all 32 bits of a destination, where an xAPIC compares
	 * the low 8. NULL: no local APIC. */
	bool (*apic_x2apic)(void);

	/* The GICv3 CPU interface's system registers (IHI 0069 12.2) and the
	 * MPIDR that names this CPU to the GIC: one read (`write` false) or
	 * written (with the synchronisation its write needs). False when the
	 * CPU has no system-register interface to the GIC (ID_AA64PFR0_EL1.GIC
	 * 0, or ICC_SRE_EL1.SRE clear: a GICv2, or a GICv3 driven through
	 * memory): nothing is touched then. NULL: no GIC (x86-64, the host). */
	bool (*gic_sysreg)(enum platform_gic_reg r, bool write, uint64_t *v);
	/* An Arm identification register of this CPU (ID_AA64MMFR0_EL1 and
	 * friends), for the SMMU-against-CPU checks. False when unknown. NULL:
	 * not an Arm CPU. */
	bool (*arm_id_reg)(enum platform_arm_id r, uint64_t *v);

	/* ACPI RSDP (physical = virtual), or NULL. */
	const void *(*acpi_rsdp)(void);
	/* The flattened device tree the firmware installed (UEFI's
	 * EFI_DTB_TABLE_GUID), or NULL: U-Boot's on RISC-V, some Arm firmware. */
	const void *(*device_tree)(void);
	/* The SMBIOS entry point of that major version (3: the 64-bit
	 * "_SM3_" one, 2: the 32-bit "_SM_" one), or NULL; NULL: none here. */
	const void *(*smbios_entry)(unsigned major);

	/* The boot volume. Paths use '/' and are relative to its root. */
	/* Whole file into a malloc'd, NUL-terminated buffer, whatever its size;
	 * NULL if absent, unreadable or too big for memory. */
	char *(*file_read)(const char *path, size_t *len);
	/* A file from its start to its end in pieces, never held whole: piece()
	 * gets each in order and returns false to stop. NULL when it was read to
	 * its end (or piece() stopped); else why not, with *absent set when
	 * there is no such file. */
	const char *(*file_stream)(const char *path, bool (*piece)(void *ctx, const void *buf, size_t n), void *ctx,
				   bool *absent);
	/* Create a file that must not exist yet (results never overwrite):
	 * NULL with *why "exists" when it does, or with the firmware's reason
	 * in words; a file whose existence cannot be ruled out is not opened. */
	struct platform_file *(*file_create)(const char *path, const char **why);
	/* Append and flush to the medium before returning: all n bytes, or
	 * false with *why (the firmware's reason in words, "volume full", ...)
	 * and the file cut back to its size before the call, so that no part
	 * of buf stays; *why says so when even that failed. */
	bool (*file_append)(struct platform_file *f, const void *buf, size_t n, const char **why);
	void (*file_close)(struct platform_file *f);
	/* One line describing where files go, e.g. "boot volume (USB)". */
	const char *(*volume_describe)(void);
	/* Why this boot's medium takes no files by its nature (a CD-ROM, a
	 * network boot with no boot volume), or NULL: results then go to the
	 * console only, by design rather than by failure (a write-protected
	 * stick is a failure: someone meant it to take them). NULL member:
	 * never. */
	const char *(*volume_readonly)(void);

	/* Take a PCI function from the firmware's driver before the monitor
	 * drives it, and hand it back after (UEFI: DisconnectController and
	 * ConnectController). NULL, or why it may not be taken (it holds the
	 * boot volume, ...). */
	const char *(*device_claim)(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn);
	void (*device_release)(uint16_t seg, uint8_t bus, uint8_t dev, uint8_t fn);

	/* Commands passed by whoever started us (UEFI load options), or NULL. */
	const char *(*load_options)(void);

	/* Crash survival (README "A run that survives a crash"). */
	/* Open an existing file to add to its end (a results file after a
	 * reset); a record cut short by the reset is dropped first. */
	struct platform_file *(*file_reopen)(const char *path, const char **why);
	/* A short text that survives a reset (UEFI: a non-volatile variable).
	 * get: its length, 0 when there is none, -1 with *why when it could
	 * not be read or is longer than cap - 1. set: NULL or "" deletes it;
	 * returns NULL or why it could not be written. */
	int (*note_get)(char *buf, size_t cap, const char **why);
	const char *(*note_set)(const char *text);
	/* The firmware watchdog: reset the machine unless called again within
	 * `seconds`; 0 disarms it. NULL or why it could not be armed. */
	const char *(*watchdog)(unsigned seconds);
	/* A firmware timer event (UEFI: CreateEvent EVT_TIMER, SetTimer
	 * relative `after_us`) polled (CheckEvent) on the CPU counter until it
	 * fires or `deadline_us` passes: NULL with *fired, or why no event
	 * could be made. NULL: the platform has no firmware timer (the host). */
	const char *(*timer_event)(uint32_t after_us, uint32_t deadline_us, bool *fired);
	/* CPU exceptions are caught: they name the test and give back what is
	 * held (survive_crash) instead of stopping in the firmware's handler. */
	bool exceptions_caught;

	/* Give the machine back and leave. Returns only when it could not
	 * (e.g. EXIT_QEMU with no isa-debug-exit device), with a message. */
	const char *(*exit)(enum exit_kind how, int status);
	/* Probes each service and protocol the monitor uses, touching nothing
	 * (a variable that does not exist is read and deleted, a timer event
	 * made and closed): up to `max` into `out`, how many. NULL: not under
	 * firmware. */
	size_t (*firmware_services)(struct platform_service *out, size_t max);
};

extern const struct platform *platform;

#endif
