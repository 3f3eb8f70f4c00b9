/* newlib's system calls on UEFI. On this target newlib's reentrant
 * wrappers call the unprefixed names (write, sbrk, ...). */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>

#include "boot.h"
#include "core/monitor/survive.h"

/* The heap is one block of pages taken at start: sbrk cannot grow into
 * memory that is not contiguous. */
static struct {
	uint8_t *base;
	size_t size, used;
} heap;

void heap_init(void)
{
	for (size_t mib = 64; mib >= 4 && !heap.base; mib /= 2) {
		EFI_PHYSICAL_ADDRESS addr = 0;
		if (!EFI_ERROR(BS->AllocatePages(AllocateAnyPages, EfiLoaderData, mib << 8, &addr))) {
			heap.base = (uint8_t *)(uintptr_t)addr;
			heap.size = mib << 20;
		}
	}
}

void heap_fini(void)
{
	if (heap.base)
		BS->FreePages((EFI_PHYSICAL_ADDRESS)(uintptr_t)heap.base, heap.size >> 12);
	heap.base = NULL;
	heap.size = heap.used = 0;
}

void *sbrk(ptrdiff_t incr)
{
	if (!heap.base || (incr > 0 && (size_t)incr > heap.size - heap.used) ||
	    (incr < 0 && (size_t)-incr > heap.used)) {
		errno = ENOMEM;
		return (void *)-1;
	}
	void *old = heap.base + heap.used;
	heap.used += incr;
	return old;
}

int write(int fd, const void *buf, size_t n)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	console_write(buf, n);
	return (int)n;
}

int read(int fd, void *buf, size_t n)
{
	if (fd != 0) {
		errno = EBADF;
		return -1;
	}
	if (n == 0)
		return 0;
	int c;
	while ((c = console_getc()) < 0)
		BS->Stall(1000); /* read() is not used by the monitor itself */
	*(char *)buf = (char)c;
	return 1;
}

int close(int fd)
{
	(void)fd;
	return 0;
}

off_t lseek(int fd, off_t off, int whence)
{
	(void)fd, (void)off, (void)whence;
	errno = ESPIPE;
	return -1;
}

int fstat(int fd, struct stat *st)
{
	(void)fd;
	st->st_mode = S_IFCHR;
	return 0;
}

int isatty(int fd)
{
	return fd <= 2;
}

int kill(int pid, int sig)
{
	(void)pid, (void)sig;
	errno = EINVAL;
	return -1;
}

int getpid(void)
{
	return 1;
}

/* exit() lands here (the monitor itself never calls it): the crash path,
 * which gives back what is held before it resets or leaves. */
void _exit(int status)
{
	char what[64];
	snprintf(what, sizeof(what), "exit(%d) called (the C library gave up)", status);
	survive_crash(what);
}

/* newlib's abort() (and so every failed assert, which prints its message
 * first) would raise SIGABRT and end in _exit(1); taking it here names it. */
void abort(void)
{
	survive_crash("abort() called (a failed assert, or the C library gave up)");
}
