/* What the stand-in's programs share besides the unit's registers:
 * short text built up in a fixed buffer, numbers read from load options,
 * an ACPI table's checksum, and a file QEMU passes through fw_cfg. */
#include <efi.h>
#include <efilib.h>

#include "standin.h"

unsigned say(char *s, unsigned k, const char *a)
{
	while (*a && k + 1 < STANDIN_TEXT)
		s[k++] = *a++;
	s[k] = 0;
	return k;
}

unsigned say_hex(char *s, unsigned k, uint64_t v)
{
	char b[20];
	int n = 0;
	do
		b[n++] = "0123456789abcdef"[v & 15];
	while ((v >>= 4) && n < 16);
	k = say(s, k, "0x");
	while (n && k + 1 < STANDIN_TEXT)
		s[k++] = b[--n];
	s[k] = 0;
	return k;
}

uint64_t number(const char **p)
{
	const char *s = *p;
	uint64_t v = 0;
	while (*s == ' ')
		s++;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	if (hex)
		s += 2;
	for (;; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (hex && (*s | 32) >= 'a' && (*s | 32) <= 'f')
			d = (unsigned)((*s | 32) - 'a' + 10);
		else
			break;
		v = v * (hex ? 16 : 10) + d;
	}
	*p = s;
	return v;
}

/* Over the length the header now claims (at most `len` + 64: what a
 * mutation can make it). */
void checksum(uint8_t *t, uint32_t len)
{
	uint32_t claimed = *(uint32_t *)(t + 4);
	uint8_t sum = 0;
	t[9] = 0;
	for (uint32_t i = 0; i < claimed && i < len + 64; i++)
		sum += t[i];
	t[9] = (uint8_t)-sum;
}

/* ---- the monitor, from fw_cfg (QEMU's docs/specs/fw_cfg.rst) ---------------- */
#define FW_CFG_SEL 0x510
#define FW_CFG_DATA 0x511
#define FW_CFG_FILE_DIR 0x19

static void fwcfg_read(void *buf, UINTN n)
{
	__asm__ volatile("rep insb" : "+D"(buf), "+c"(n) : "d"((uint16_t)FW_CFG_DATA) : "memory");
}

static uint32_t be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The named file's bytes in pool memory, or NULL. */
void *fwcfg_file(const char *name, UINTN *size)
{
	uint8_t n4[4], e[64];
	__asm__ volatile("outw %0, %1" ::"a"((uint16_t)FW_CFG_FILE_DIR), "Nd"((uint16_t)FW_CFG_SEL));
	fwcfg_read(n4, 4);
	for (uint32_t i = 0, count = be32(n4); i < count && i < 4096; i++) {
		fwcfg_read(e, sizeof(e));
		const char *a = (const char *)e + 8, *b = name;
		while (*b && *a == *b)
			a++, b++;
		if (*b || *a)
			continue;
		uint16_t sel = (uint16_t)(e[4] << 8 | e[5]);
		void *buf = NULL;
		*size = be32(e);
		if (EFI_ERROR(BS->AllocatePool(EfiBootServicesData, *size, &buf)))
			return NULL;
		__asm__ volatile("outw %0, %1" ::"a"(sel), "Nd"((uint16_t)FW_CFG_SEL));
		fwcfg_read(buf, *size);
		return buf;
	}
	return NULL;
}
