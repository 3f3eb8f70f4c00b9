#include "platform_host.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../core/monitor.h"
#include "../../core/readall.h"

struct platform_file {
	int fd;
};

static const char *load_opts;

void host_set_load_options(const char *opts)
{
	load_opts = opts;
}

static bool stdin_ended;

static int host_getc(void)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	if (stdin_ended || poll(&p, 1, 0) <= 0)
		return -1;
	unsigned char c;
	if (read(0, &c, 1) == 1)
		return c;
	stdin_ended = true;
	return -1;
}

static const char *host_console_route(const char *mode, const char *uart)
{
	if (uart && strcmp(uart, "spcr") != 0)
		return "the host build has no UART";
	if (mode && (strcmp(mode, "uart") == 0 || strcmp(mode, "both") == 0))
		return "the host build has no UART";
	return NULL;
}

static const char *host_console_describe(void)
{
	return "stdout";
}

/* Pages from mmap, so that part of an allocation can be given back (as
 * UEFI's FreePages allows), and from the low 2 GiB when a limit is asked
 * for (hardware models read tables at addresses their registers hold). */
static void *host_alloc_pages(size_t pages, uint64_t limit)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (limit ? MAP_32BIT : 0);
	void *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (limit && (uint64_t)(uintptr_t)p + pages * 4096 > limit) {
		munmap(p, pages * 4096);
		return NULL;
	}
	return p;
}

static void host_free_pages(void *p, size_t pages)
{
	munmap(p, pages * 4096);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void host_stall_us(uint32_t us)
{
	uint64_t end = now_ns() + (uint64_t)us * 1000;
	while (now_ns() < end)
		;
}

/* Waiting for a key that can never come (input ended): nobody is left to
 * type, so leave with the verdict. A test polling for Ctrl-C only sees -1. */
static void host_idle_us(uint32_t us)
{
	if (stdin_ended) {
		fflush(stdout);
		exit(monitor_verdict());
	}
	struct pollfd p = { .fd = 0, .events = POLLIN };
	poll(&p, 1, (int)(us / 1000));
}

static bool host_wallclock(struct wallclock *w)
{
	time_t t = time(NULL);
	struct tm tm;
	if (!gmtime_r(&t, &tm))
		return false;
	*w = (struct wallclock){ (unsigned)tm.tm_year + 1900, (unsigned)tm.tm_mon + 1, (unsigned)tm.tm_mday,
				 (unsigned)tm.tm_hour,	      (unsigned)tm.tm_min,     (unsigned)tm.tm_sec };
	return true;
}

static uint64_t host_irq_save(void)
{
	return 0;
}
static void host_irq_restore(uint64_t s)
{
	(void)s;
}
static const void *host_acpi_rsdp(void)
{
	return NULL;
}

static const char *volume(void)
{
	const char *v = getenv("IOMMON_VOLUME");
	return v && *v ? v : "build/host-volume";
}

static void join(char *out, size_t n, const char *path)
{
	snprintf(out, n, "%s/%s", volume(), path);
}

static const char *host_file_stream(const char *path, bool (*piece)(void *ctx, const void *buf, size_t n), void *ctx,
				    bool *absent)
{
	static char why[160];
	char full[512];
	join(full, sizeof(full), path);
	*absent = false;
	FILE *f = fopen(full, "rb");
	if (!f) {
		*absent = errno == ENOENT;
		snprintf(why, sizeof(why), "cannot open %s: %s", path, strerror(errno));
		return why;
	}
	static char buf[65536];
	unsigned long long total = 0;
	const char *result = NULL;
	for (;;) {
		size_t got = fread(buf, 1, sizeof(buf), f);
		if (got && !piece(ctx, buf, got))
			break;
		total += got;
		if (got < sizeof(buf)) {
			if (ferror(f)) {
				snprintf(why, sizeof(why), "read error after %llu bytes: %s", total, strerror(errno));
				result = why;
			}
			break;
		}
	}
	fclose(f);
	return result;
}

static char *host_file_read(const char *path, size_t *len)
{
	struct read_all r = { 0 };
	bool absent;
	const char *why = host_file_stream(path, read_all_piece, &r, &absent);
	return read_all_finish(&r, why, len);
}

static struct platform_file *host_file_create(const char *path, const char **why)
{
	char full[512];
	join(full, sizeof(full), path);
	for (char *s = strchr(full + strlen(volume()) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(full, 0755);
		*s = '/';
	}
	int fd = open(full, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		*why = errno == EEXIST ? "exists" : strerror(errno);
		return NULL;
	}
	struct platform_file *f = malloc(sizeof(*f));
	if (!f) {
		close(fd);
		*why = "out of memory";
		return NULL;
	}
	f->fd = fd;
	return f;
}

static bool host_file_append(struct platform_file *f, const void *buf, size_t n)
{
	return write(f->fd, buf, n) == (ssize_t)n && fsync(f->fd) == 0;
}

static void host_file_close(struct platform_file *f)
{
	close(f->fd);
	free(f);
}

static const char *host_volume_describe(void)
{
	static char d[300];
	snprintf(d, sizeof(d), "host folder %s", volume());
	return d;
}

static const char *host_load_options(void)
{
	return load_opts;
}

static const char *host_exit(enum exit_kind how, int status)
{
	fflush(stdout);
	exit(how == EXIT_QEMU ? (status << 1) | 1 : 0);
}

struct platform host_platform = {
	.name = "host",
	.getc = host_getc,
	.console_route = host_console_route,
	.console_describe = host_console_describe,
	.alloc_pages = host_alloc_pages,
	.free_pages = host_free_pages,
	.stall_us = host_stall_us,
	.wallclock = host_wallclock,
	.idle_us = host_idle_us,
	.irq_save = host_irq_save,
	.irq_restore = host_irq_restore,
	.acpi_rsdp = host_acpi_rsdp,
	.file_read = host_file_read,
	.file_stream = host_file_stream,
	.file_create = host_file_create,
	.file_append = host_file_append,
	.file_close = host_file_close,
	.volume_describe = host_volume_describe,
	.load_options = host_load_options,
	.exit = host_exit,
};
