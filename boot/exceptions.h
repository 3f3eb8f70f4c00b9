/* The architecture's half of the CPU exception handler: which exception
 * types it takes, how it words one, and how it sends the return from the
 * exception elsewhere. boot/cpu_exceptions.c is the shared half (the crash
 * landing, nesting, install and remove); boot/<arch>/exceptions.c each
 * provide what is declared here. */
#ifndef IOMMON_BOOT_EXCEPTIONS_H
#define IOMMON_BOOT_EXCEPTIONS_H

#include <stddef.h>
#include <stdint.h>

/* The exception types registered through the CPU architecture protocol
 * (x86: vectors 0-31; aarch64: EDK II's EXCEPT_AARCH64_* types). */
extern const uint8_t exception_types[];
extern const unsigned exception_ntypes;

/* One line: what the exception was, where, and the registers that say why. */
void exception_describe(unsigned type, const void *context, char *out, size_t cap);
/* Makes the firmware's return from the exception continue in landing(),
 * on the stack whose top is stack_top (16-byte aligned), with interrupts
 * enabled and single-stepping off. */
void exception_return_to(void *context, void (*landing)(void), uint8_t *stack_top);
/* Interrupts enabled, the CPU idle, for ever: waiting for a watchdog. */
void exception_idle_forever(void) __attribute__((noreturn));

/* Shared by the describers: " (iommon+0xOFFSET)" when pc lies in the image,
 * else nothing; returns the characters written. */
size_t exception_in_image(uint64_t pc, char *out, size_t cap);

#endif
