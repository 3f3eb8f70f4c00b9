/* ACPI GTDT (ACPI 6.5 5.2.25, Generic Timer Description Table): the Arm
 * generic timer's per-processor interrupts and flags, the memory-mapped
 * counter's CntControlBase/CntReadBase, and the platform timers (GT blocks
 * with their frames, SBSA generic watchdogs). Bounded like the other
 * parsers: nothing is read past the table. */
#ifndef IOMMON_GTDT_H
#define IOMMON_GTDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Per-processor timer flags (ACPI 6.5 table 5.123) */
#define GTDT_IRQ_EDGE 0x1
#define GTDT_IRQ_ACTIVE_LOW 0x2
#define GTDT_ALWAYS_ON 0x4
/* GT block timer common flags, SBSA watchdog flags */
#define GTDT_FRAME_SECURE 0x1
#define GTDT_FRAME_ALWAYS_ON 0x2
#define GTDT_WATCHDOG_SECURE 0x4
/* "not provided" for the two counter block addresses */
#define GTDT_NO_ADDRESS 0xffffffffffffffffull

enum gtdt_timer_index { GTDT_SECURE_EL1, GTDT_NONSECURE_EL1, GTDT_VIRTUAL_EL1, GTDT_NONSECURE_EL2, GTDT_VIRTUAL_EL2 };

struct gtdt_irq {
	uint32_t gsiv, flags;
};

struct gtdt_frame {
	uint8_t number;
	uint64_t cntbase, cntel0base;
	struct gtdt_irq physical, virtual;
	uint32_t common_flags;
};

#define GTDT_MAX_FRAMES 8 /* GT Frame Number is 0-7 */
#define GTDT_MAX_PLATFORM 32

struct gtdt_platform {
	uint32_t offset;
	uint8_t type; /* 0 GT block, 1 SBSA generic watchdog */
	uint16_t length;
	uint64_t base;	     /* GT block: CntCtlBase; watchdog: refresh frame */
	uint64_t control;    /* watchdog: control frame */
	struct gtdt_irq irq; /* watchdog */
	uint32_t frames_at;  /* GT block: the frames' offset in the block */
	struct gtdt_frame frame[GTDT_MAX_FRAMES];
	size_t nframes;
};

struct gtdt {
	uint8_t revision;
	uint64_t cnt_control_base, cnt_read_base;
	struct gtdt_irq timer[5]; /* enum gtdt_timer_index; the EL2 virtual one from revision 3 */
	bool have_virtual_el2;
	uint32_t platform_count, platform_offset;
	struct gtdt_platform platform[GTDT_MAX_PLATFORM];
	size_t nplatform;
	struct diag diag;
};

/* Returns 0, or -1 when not even the fixed part could be read; g->diag
 * says what was wrong. Nothing to free. */
int gtdt_parse(const uint8_t *buf, size_t len, struct gtdt *g);
const char *gtdt_timer_name(enum gtdt_timer_index i);
void gtdt_print(const struct gtdt *g);

#endif
