#define _GNU_SOURCE /* fopencookie */
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

#include "core/base/contract.h"
#include "core/base/cpu.h"
#include "core/base/memmap.h"
#include "core/base/readall.h"
#include "core/monitor/monitor.h"
#include "core/serial/uart.h"

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

/* The console is stdout, which keeps the output contract as the
 * machine's sinks do: host_console_open puts contract_write between
 * stdio's buffer and file descriptor 1. */
static void stdout_sink(const char *buf, size_t n)
{
	while (n) {
		ssize_t k = write(1, buf, n);
		if (k <= 0 && errno != EINTR)
			return; /* nobody reads any more: what is left is lost, as on a UART with no wire */
		if (k > 0)
			buf += k, n -= (size_t)k;
	}
}

static ssize_t contract_stdout_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	contract_write(buf, n, stdout_sink);
	return (ssize_t)n;
}

void host_console_open(void)
{
	FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = contract_stdout_write });
	if (!f) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		return;
	}
	fflush(stdout);
	setvbuf(f, NULL, _IOLBF, 0);
	stdout = f;
}

static const char *host_console_route(const char *mode, const struct console_uart *uart)
{
	if (uart && !uart->from_spcr)
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
	void *p = mmap(NULL, pages * PAGE_SIZE, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (limit && (uint64_t)(uintptr_t)p + pages * PAGE_SIZE > limit) {
		munmap(p, pages * PAGE_SIZE);
		return NULL;
	}
	return p;
}

static void host_free_pages(void *p, size_t pages)
{
	munmap(p, pages * PAGE_SIZE);
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
/* Interrupts on the host: nothing sends one but a register model's engine
 * (irq_send), so a table of handlers, as a local APIC's vectors, dispatched
 * at once on the one CPU, whose APIC id is 0. The same vectors as the
 * x86_64 boot's, so a case sees the numbers it would on the machine. */
#define HOST_FIRST_VECTOR 0xd0
#define HOST_VECTORS 16

static struct {
	void (*fn)(void *ctx);
	void *ctx;
} host_vectors[HOST_VECTORS];

static int host_irq_install(void (*fn)(void *ctx), void *ctx, uint32_t *apic_id, const char **why)
{
	*apic_id = 0;
	for (unsigned i = 0; i < HOST_VECTORS; i++)
		if (!host_vectors[i].fn) {
			host_vectors[i].fn = fn, host_vectors[i].ctx = ctx;
			return (int)(HOST_FIRST_VECTOR + i);
		}
	*why = "every vector from 0xd0 to 0xdf is taken";
	return -1;
}

static void host_irq_remove(int vector)
{
	unsigned i = (unsigned)vector - HOST_FIRST_VECTOR;
	if (i < HOST_VECTORS)
		host_vectors[i].fn = NULL;
}

static bool host_irq_send(int vector, uint32_t apic_id)
{
	unsigned i = (unsigned)vector - HOST_FIRST_VECTOR;
	if (apic_id != 0 || i >= HOST_VECTORS || !host_vectors[i].fn)
		return false;
	host_vectors[i].fn(host_vectors[i].ctx);
	return true;
}

/* No ACPI or SMBIOS on the host, until a replay (replay.c) gives its own. */
static const void *host_rsdp, *host_smbios[2];

void host_set_acpi_rsdp(const void *rsdp)
{
	host_rsdp = rsdp;
}

void host_set_smbios_entry(unsigned major, const void *entry)
{
	host_smbios[major == 3] = entry;
}

static const void *host_acpi_rsdp(void)
{
	return host_rsdp;
}

static const void *host_smbios_entry(unsigned major)
{
	return host_smbios[major == 3];
}

/* The host has no firmware memory map: none until a test sets one. */
static const struct mem_range *host_map;
static size_t host_map_n;
static unsigned host_bits;

void host_set_memory_map(const struct mem_range *map, size_t n)
{
	host_map = map;
	host_map_n = map ? n : 0;
}

void host_set_phys_bits(unsigned bits)
{
	host_bits = bits;
}

static size_t host_memory_map(const struct mem_range **map)
{
	*map = host_map;
	return host_map_n;
}

static unsigned host_levels = 4;

void host_set_paging_levels(unsigned levels)
{
	host_levels = levels;
}

static unsigned host_paging_levels(void)
{
	return host_levels;
}

static unsigned host_apic_bits = 8;

void host_set_apic_id_bits(unsigned bits)
{
	host_apic_bits = bits;
}

static unsigned host_apic_id_bits(void)
{
	return host_apic_bits;
}

/* x2APIC mode exactly when the id needs 32 bits: the one mode a test sets */
static bool host_apic_x2apic(void)
{
	return host_apic_bits > 8;
}

static unsigned host_phys_bits(void)
{
	return host_bits ? host_bits : cpuid_phys_bits();
}

/* An Arm CPU's identification registers, for the SMMU-against-CPU checks
 * run on the host: IOMMON_ARM_ID="MMFR0=0x...,MMFR1=...,MMFR2=...,ISAR0=...,
 * PFR0=...,MIDR=...,SCTLR=..." (a register not named reads 0). Without it
 * the host is no Arm CPU: every read says so. */
static bool host_arm_id_reg(enum platform_arm_id r, uint64_t *v)
{
	static const char *const names[] = {
		[ARM_MIDR] = "MIDR",	      [ARM_ID_AA64PFR0] = "PFR0",   [ARM_ID_AA64ISAR0] = "ISAR0",
		[ARM_ID_AA64MMFR0] = "MMFR0", [ARM_ID_AA64MMFR1] = "MMFR1", [ARM_ID_AA64MMFR2] = "MMFR2",
		[ARM_SCTLR] = "SCTLR"
	};
	const char *env = getenv("IOMMON_ARM_ID");
	if (!env || !*env || (unsigned)r >= sizeof(names) / sizeof(names[0]))
		return false;
	*v = 0;
	size_t len = strlen(names[r]);
	for (const char *p = env; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, names[r], len) == 0 && p[len] == '=')
			*v = strtoull(p + len + 1, NULL, 0);
	return true;
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

static struct platform_file *wrap(int fd, const char **why)
{
	struct platform_file *f = malloc(sizeof(*f));
	if (!f) {
		close(fd);
		*why = "out of memory";
		return NULL;
	}
	f->fd = fd;
	return f;
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
	return wrap(fd, why);
}

static bool host_file_append(struct platform_file *f, const void *buf, size_t n, const char **why)
{
	static char err[160];
	off_t before = lseek(f->fd, 0, SEEK_END);
	ssize_t got = write(f->fd, buf, n);
	if (got == (ssize_t)n && fsync(f->fd) == 0)
		return true;
	int e = got < 0 ? errno : got == (ssize_t)n ? errno : ENOSPC; /* a short write: the volume filled */
	bool cut = before >= 0 && ftruncate(f->fd, before) == 0 && lseek(f->fd, before, SEEK_SET) == before;
	snprintf(err, sizeof(err), "%s%s", e == ENOSPC ? "the volume is full" : strerror(e),
		 cut ? "" : "; cutting the partial line off failed too, so the file may end in one");
	*why = err;
	return false;
}

static void host_file_close(struct platform_file *f)
{
	close(f->fd);
	free(f);
}

/* A record cut short by a crash (no final newline) is dropped before
 * anything is appended: every line stays one whole record. */
static struct platform_file *host_file_reopen(const char *path, const char **why)
{
	char full[512];
	join(full, sizeof(full), path);
	int fd = open(full, O_RDWR);
	if (fd < 0) {
		*why = errno == ENOENT ? "no such file" : strerror(errno);
		return NULL;
	}
	off_t size = lseek(fd, 0, SEEK_END), keep = size;
	char tail[2048];
	off_t from = size > (off_t)sizeof(tail) ? size - (off_t)sizeof(tail) : 0;
	ssize_t got = size ? pread(fd, tail, (size_t)(size - from), from) : 0;
	if (got > 0 && tail[got - 1] != '\n') {
		keep = from;
		for (ssize_t i = got - 1; i >= 0; i--)
			if (tail[i] == '\n') {
				keep = from + i + 1;
				break;
			}
	}
	if (got < 0 || (keep != size && ftruncate(fd, keep) != 0) || lseek(fd, 0, SEEK_END) < 0) {
		*why = strerror(errno);
		close(fd);
		return NULL;
	}
	return wrap(fd, why);
}

/* The note that outlives a reset: in memory, or in the file
 * $IOMMON_NVRAM when set (so the host monitor resumes across processes). */
static char host_note[1024];

static int host_note_get(char *buf, size_t cap, const char **why)
{
	const char *file = getenv("IOMMON_NVRAM");
	size_t len = 0;
	if (file && *file) {
		FILE *f = fopen(file, "rb");
		if (!f)
			return 0;
		len = fread(buf, 1, cap, f);
		fclose(f);
		if (len == cap) {
			*why = "longer than the buffer";
			return -1;
		}
		buf[len] = '\0';
	} else {
		len = strlen(host_note);
		if (len >= cap) {
			*why = "longer than the buffer";
			return -1;
		}
		memcpy(buf, host_note, len + 1);
	}
	if (strlen(buf) != len) {
		*why = "it holds NUL bytes";
		return -1;
	}
	return (int)len;
}

static const char *host_note_set(const char *text)
{
	const char *file = getenv("IOMMON_NVRAM");
	if (!text)
		text = "";
	if (file && *file) {
		if (!*text)
			return unlink(file) == 0 || errno == ENOENT ? NULL : strerror(errno);
		FILE *f = fopen(file, "wb");
		bool ok = f && fwrite(text, 1, strlen(text), f) == strlen(text);
		if (f && fclose(f) != 0)
			ok = false;
		return ok ? NULL : strerror(errno);
	}
	if (strlen(text) >= sizeof(host_note))
		return "too long for the note";
	strcpy(host_note, text);
	return NULL;
}

void host_note_put(const char *text)
{
	host_note_set(text);
}

const char *host_note_text(void)
{
	static char buf[1024];
	const char *why;
	return host_note_get(buf, sizeof(buf), &why) > 0 ? buf : "";
}

/* The host's watchdog is SIGALRM: its default action ends the process. */
static unsigned host_watchdog_s;

static const char *host_watchdog(unsigned seconds)
{
	host_watchdog_s = seconds;
	alarm(seconds);
	return NULL;
}

unsigned host_watchdog_armed(void)
{
	return host_watchdog_s;
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
	.irq_install = host_irq_install,
	.irq_remove = host_irq_remove,
	.irq_send = host_irq_send,
	.memory_map = host_memory_map,
	.phys_bits = host_phys_bits,
	.arm_id_reg = host_arm_id_reg,
	.paging_levels = host_paging_levels,
	.apic_id_bits = host_apic_id_bits,
	.apic_x2apic = host_apic_x2apic,
	.acpi_rsdp = host_acpi_rsdp,
	.smbios_entry = host_smbios_entry,
	.file_read = host_file_read,
	.file_stream = host_file_stream,
	.file_create = host_file_create,
	.file_append = host_file_append,
	.file_close = host_file_close,
	.volume_describe = host_volume_describe,
	.file_reopen = host_file_reopen,
	.note_get = host_note_get,
	.note_set = host_note_set,
	.watchdog = host_watchdog,
	.load_options = host_load_options,
	.exit = host_exit,
};
