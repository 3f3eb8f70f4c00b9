/* The register window: the one way a driver reaches its hardware.
 *
 * A window is a base and a size in one address space (MMIO, x86 I/O ports,
 * or a model's callbacks) with the device's byte order. Offsets are checked
 * against the size: an access outside the window is not performed, reads
 * return all ones (what a master abort returns), and the window counts it so
 * that tests and models can fail a driver that strays. */
#ifndef IOMMON_REGWIN_H
#define IOMMON_REGWIN_H

#include <stdbool.h>
#include <stdint.h>

enum regwin_space { REGWIN_MMIO, REGWIN_PORT, REGWIN_MODEL };

struct regwin_model_ops {
	/* width in bytes: 1, 2, 4 or 8; values in the device's byte order */
	uint64_t (*read)(void *ctx, uint64_t off, unsigned width);
	void (*write)(void *ctx, uint64_t off, unsigned width, uint64_t val);
};

struct regwin {
	const char *name;
	enum regwin_space space;
	uint64_t base;
	uint64_t size;
	bool big_endian;
	const struct regwin_model_ops *model;
	void *ctx;
	unsigned out_of_window; /* accesses refused because they strayed */
};

/* The one way to open an MMIO window on an address that a table, a BAR or
 * a person gave: NULL, or a message naming `source` (the table or BAR the
 * address came from), the window and why it was refused (memmap.h:
 * zero, wrapping, not canonical, beyond MAXPHYADDR, or RAM by the firmware's
 * memory map). A refused window has no bytes: nothing is ever touched
 * through it. The message is static, valid until the next refusal. */
const char *regwin_open_mmio(struct regwin *w, const char *name, uint64_t base, uint64_t size, bool big_endian,
			     const char *source);
void regwin_init_port(struct regwin *w, const char *name, uint16_t base, uint16_t size);
void regwin_init_model(struct regwin *w, const char *name, uint64_t size, bool big_endian,
		       const struct regwin_model_ops *ops, void *ctx);

uint8_t regwin_read8(struct regwin *w, uint64_t off);
uint16_t regwin_read16(struct regwin *w, uint64_t off);
uint32_t regwin_read32(struct regwin *w, uint64_t off);
uint64_t regwin_read64(struct regwin *w, uint64_t off);
void regwin_write8(struct regwin *w, uint64_t off, uint8_t v);
void regwin_write16(struct regwin *w, uint64_t off, uint16_t v);
void regwin_write32(struct regwin *w, uint64_t off, uint32_t v);
void regwin_write64(struct regwin *w, uint64_t off, uint64_t v);

#endif
