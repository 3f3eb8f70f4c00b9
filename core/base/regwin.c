#include "regwin.h"

#include <stdio.h>

#include "cpu.h"
#include "memmap.h"
#include "platform.h"

const char *regwin_open_mmio(struct regwin *w, const char *name, uint64_t base, uint64_t size, bool big_endian,
			     const char *source)
{
	static char msg[320];
	/* refused: a window of no bytes, so that a caller that goes on anyway
	 * touches nothing (every access is counted as out of the window) */
	*w = (struct regwin){ .name = name, .space = REGWIN_MMIO, .big_endian = big_endian };
	if (platform && platform->mmio_model && platform->mmio_model(base, size, w)) {
		w->name = name;
		return NULL;
	}
	const char *why = memmap_mmio_refusal(base, size);
	if (!why && platform && platform->replay)
		why = "replay: no live hardware";
	if (why) {
		snprintf(msg, sizeof(msg), "%s gives %s registers at 0x%llx (+0x%llx): refused, %s", source, name,
			 (unsigned long long)base, (unsigned long long)size, why);
		return msg;
	}
	w->base = base;
	w->size = size;
	return NULL;
}

void regwin_init_port(struct regwin *w, const char *name, uint16_t base, uint16_t size)
{
	*w = (struct regwin){ .name = name, .space = REGWIN_PORT, .base = base, .size = size };
}

void regwin_init_model(struct regwin *w, const char *name, uint64_t size, bool big_endian,
		       const struct regwin_model_ops *ops, void *ctx)
{
	*w = (struct regwin){
		.name = name, .space = REGWIN_MODEL, .size = size, .big_endian = big_endian, .model = ops, .ctx = ctx
	};
}

static bool inside(struct regwin *w, uint64_t off, unsigned width)
{
#if !CPU_PORT_IO
	/* no I/O port space on Arm or RISC-V: a port window answers like one
	 * outside every window (all ones, nothing written), and is counted so */
	if (w->space == REGWIN_PORT) {
		w->out_of_window++;
		return false;
	}
#endif
	if (off <= w->size && width <= w->size - off)
		return true;
	w->out_of_window++;
	return false;
}

static uint64_t swap(uint64_t v, unsigned width)
{
	switch (width) {
	case 2:
		return __builtin_bswap16((uint16_t)v);
	case 4:
		return __builtin_bswap32((uint32_t)v);
	case 8:
		return __builtin_bswap64(v);
	default:
		return v;
	}
}

#if defined(__aarch64__)
/* Device memory on Arm is accessed by one aligned LDR/STR of the
 * register's width, written out in assembly so the compiler can neither
 * merge, split nor pair accesses, nor use a writeback addressing mode: a
 * hypervisor emulating the register decodes the trapped access from
 * ESR_EL2's syndrome, which describes only single loads and stores without
 * writeback (Arm ARM D17.2.37, ISV). There is no port I/O: inside()
 * refuses port windows before they get here. */
static uint64_t mmio_read(uintptr_t a, unsigned width)
{
	uint64_t v;
	switch (width) {
	case 1:
		__asm__ volatile("ldrb %w0, [%1]" : "=r"(v) : "r"(a) : "memory");
		return (uint8_t)v;
	case 2:
		__asm__ volatile("ldrh %w0, [%1]" : "=r"(v) : "r"(a) : "memory");
		return (uint16_t)v;
	case 4:
		__asm__ volatile("ldr %w0, [%1]" : "=r"(v) : "r"(a) : "memory");
		return (uint32_t)v;
	default:
		__asm__ volatile("ldr %0, [%1]" : "=r"(v) : "r"(a) : "memory");
		return v;
	}
}

static void mmio_write(uintptr_t a, unsigned width, uint64_t v)
{
	/* Stores to memory the device will read (tables, descriptors) reach
	 * it before the register write that tells it to look (a DSB: the
	 * device is an observer outside the inner shareable domain). */
	__asm__ volatile("dsb sy" ::: "memory");
	switch (width) {
	case 1:
		__asm__ volatile("strb %w0, [%1]" ::"r"(v), "r"(a) : "memory");
		break;
	case 2:
		__asm__ volatile("strh %w0, [%1]" ::"r"(v), "r"(a) : "memory");
		break;
	case 4:
		__asm__ volatile("str %w0, [%1]" ::"r"(v), "r"(a) : "memory");
		break;
	default:
		__asm__ volatile("str %0, [%1]" ::"r"(v), "r"(a) : "memory");
		break;
	}
}

#else
static uint64_t mmio_read(uintptr_t a, unsigned width)
{
	volatile void *p = (volatile void *)a;
	uint64_t v;
	switch (width) {
	case 1:
		v = *(volatile uint8_t *)p;
		break;
	case 2:
		v = *(volatile uint16_t *)p;
		break;
	case 4:
		v = *(volatile uint32_t *)p;
		break;
	default:
		v = *(volatile uint64_t *)p;
		break;
	}
#if defined(__riscv)
	/* RISC-V orders device input before later memory reads only with a
	 * fence (I before R: a status read, then the data DMA wrote) */
	mfence();
#endif
	return v;
}

static void mmio_write(uintptr_t a, unsigned width, uint64_t v)
{
	volatile void *p = (volatile void *)a;
	/* Stores to memory the device will read (tables, descriptors) must
	 * not be moved after the register write that tells it to look (x86
	 * keeps stores in order: the compiler must too; RISC-V needs a FENCE,
	 * W before O). */
#if defined(__riscv)
	mfence();
#else
	__asm__ volatile("" ::: "memory");
#endif
	switch (width) {
	case 1:
		*(volatile uint8_t *)p = (uint8_t)v;
		break;
	case 2:
		*(volatile uint16_t *)p = (uint16_t)v;
		break;
	case 4:
		*(volatile uint32_t *)p = (uint32_t)v;
		break;
	default:
		*(volatile uint64_t *)p = v;
		break;
	}
}

#if CPU_PORT_IO
static uint64_t port_read(uint16_t port, unsigned width)
{
	switch (width) {
	case 1:
		return inb(port);
	case 2:
		return inw(port);
	case 4:
		return inl(port);
	default: /* no 64-bit port access: two dwords, low first */
		return inl(port) | (uint64_t)inl((uint16_t)(port + 4)) << 32;
	}
}

static void port_write(uint16_t port, unsigned width, uint64_t v)
{
	switch (width) {
	case 1:
		outb(port, (uint8_t)v);
		break;
	case 2:
		outw(port, (uint16_t)v);
		break;
	case 4:
		outl(port, (uint32_t)v);
		break;
	default:
		outl(port, (uint32_t)v);
		outl((uint16_t)(port + 4), (uint32_t)(v >> 32));
		break;
	}
}
#endif /* CPU_PORT_IO */
#endif

static uint64_t raw_read(struct regwin *w, uint64_t off, unsigned width)
{
	if (w->space == REGWIN_MODEL)
		return w->model->read(w->ctx, off, width);
#if CPU_PORT_IO
	if (w->space == REGWIN_PORT)
		return port_read((uint16_t)(w->base + off), width);
#endif
	return mmio_read((uintptr_t)(w->base + off), width);
}

static void raw_write(struct regwin *w, uint64_t off, unsigned width, uint64_t v)
{
	if (w->space == REGWIN_MODEL)
		w->model->write(w->ctx, off, width, v);
#if CPU_PORT_IO
	else if (w->space == REGWIN_PORT)
		port_write((uint16_t)(w->base + off), width, v);
#endif
	else
		mmio_write((uintptr_t)(w->base + off), width, v);
}

static uint64_t rd(struct regwin *w, uint64_t off, unsigned width)
{
	if (!inside(w, off, width))
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	uint64_t v = raw_read(w, off, width);
	return w->big_endian ? swap(v, width) : v;
}

static void wr(struct regwin *w, uint64_t off, unsigned width, uint64_t v)
{
	if (!inside(w, off, width))
		return;
	raw_write(w, off, width, w->big_endian ? swap(v, width) : v);
}

uint8_t regwin_read8(struct regwin *w, uint64_t off)
{
	return (uint8_t)rd(w, off, 1);
}
uint16_t regwin_read16(struct regwin *w, uint64_t off)
{
	return (uint16_t)rd(w, off, 2);
}
uint32_t regwin_read32(struct regwin *w, uint64_t off)
{
	return (uint32_t)rd(w, off, 4);
}
uint64_t regwin_read64(struct regwin *w, uint64_t off)
{
	return rd(w, off, 8);
}
void regwin_write8(struct regwin *w, uint64_t off, uint8_t v)
{
	wr(w, off, 1, v);
}
void regwin_write16(struct regwin *w, uint64_t off, uint16_t v)
{
	wr(w, off, 2, v);
}
void regwin_write32(struct regwin *w, uint64_t off, uint32_t v)
{
	wr(w, off, 4, v);
}
void regwin_write64(struct regwin *w, uint64_t off, uint64_t v)
{
	wr(w, off, 8, v);
}
