/* petool: looks at (and marks) the PE32+ image objcopy makes.
 *
 *   petool nx FILE     set IMAGE_DLLCHARACTERISTICS_NX_COMPAT
 *   petool pad FILE    extend the file with zeros to the end of the last
 *                      section's raw data (aarch64: objcopy -O binary stops
 *                      at the last byte it copies, gnu-efi's crt0 header
 *                      declares more, and the firmware refuses the image)
 *   petool check FILE  fail unless: PE32+ EFI application, NX_COMPAT set,
 *                      no section both writable and executable, sections
 *                      page-aligned (firmware maps them with their own
 *                      permissions), every section's raw data in the file.
 * Offsets: Microsoft PE/COFF specification, "Optional Header". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DLLCHAR_NX_COMPAT 0x0100
#define SCN_MEM_EXECUTE 0x20000000u
#define SCN_MEM_READ 0x40000000u
#define SCN_MEM_WRITE 0x80000000u
#define SUBSYSTEM_EFI_APPLICATION 10

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "nx") && strcmp(argv[1], "pad") && strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: petool nx|pad|check FILE\n");
		return 2;
	}
	FILE *f = fopen(argv[2], "r+b");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	static uint8_t img[16 << 20];
	size_t n = fread(img, 1, sizeof(img), f);
	if (n < 0x200 || img[0] != 'M' || img[1] != 'Z') {
		fprintf(stderr, "%s: not a PE image\n", argv[2]);
		return 1;
	}
	uint32_t pe = le32(img + 0x3c);
	if (pe > n - 24 - 240 || memcmp(img + pe, "PE\0\0", 4) != 0) {
		fprintf(stderr, "%s: no PE signature\n", argv[2]);
		return 1;
	}
	const uint8_t *coff = img + pe + 4;
	uint16_t nsect = le16(coff + 2), optsize = le16(coff + 16);
	uint8_t *opt = img + pe + 24;
	if (le16(opt) != 0x20b) {
		fprintf(stderr, "%s: not PE32+\n", argv[2]);
		return 1;
	}
	uint16_t subsystem = le16(opt + 68);
	uint16_t dllchar = le16(opt + 70);
	uint32_t salign = le32(opt + 32);

	if (strcmp(argv[1], "nx") == 0) {
		dllchar |= DLLCHAR_NX_COMPAT;
		opt[70] = (uint8_t)dllchar;
		opt[71] = (uint8_t)(dllchar >> 8);
		if (fseek(f, pe + 24 + 70, SEEK_SET) || fwrite(opt + 70, 1, 2, f) != 2 || fclose(f)) {
			perror(argv[2]);
			return 1;
		}
		return 0;
	}
	const uint8_t *sh = opt + optsize;
	if ((size_t)(sh - img) + (size_t)nsect * 40 > n) {
		printf("FAIL section table runs past the file\n");
		return 1;
	}
	uint64_t raw_end = 0;
	for (unsigned i = 0; i < nsect; i++) {
		const uint8_t *e = sh + 40 * i;
		uint64_t end = (uint64_t)le32(e + 20) + le32(e + 16); /* PointerToRawData + SizeOfRawData */
		if (end > raw_end)
			raw_end = end;
	}
	if (strcmp(argv[1], "pad") == 0) {
		if (raw_end > sizeof(img)) {
			fprintf(stderr, "%s: sections end at 0x%llx, past %zu bytes\n", argv[2],
				(unsigned long long)raw_end, sizeof(img));
			return 1;
		}
		if (raw_end > n && (fseek(f, 0, SEEK_END) || fwrite(img + n, 1, raw_end - n, f) != raw_end - n)) {
			perror(argv[2]);
			return 1;
		}
		return fclose(f) ? 1 : 0;
	}
	fclose(f);

	int bad = 0;
	if (raw_end > n) {
		printf("FAIL sections end at 0x%llx but the file has 0x%zx bytes (firmware refuses it)\n",
		       (unsigned long long)raw_end, n);
		bad++;
	}
	if (subsystem != SUBSYSTEM_EFI_APPLICATION) {
		printf("FAIL subsystem %u, want %u (EFI application)\n", subsystem, SUBSYSTEM_EFI_APPLICATION);
		bad++;
	}
	if (!(dllchar & DLLCHAR_NX_COMPAT)) {
		printf("FAIL DllCharacteristics 0x%04x lacks NX_COMPAT (0x0100)\n", dllchar);
		bad++;
	}
	if (salign < 4096) {
		printf("FAIL SectionAlignment 0x%x is below a page\n", salign);
		bad++;
	}
	for (unsigned i = 0; i < nsect; i++, sh += 40) {
		char name[9] = { 0 };
		memcpy(name, sh, 8);
		uint32_t va = le32(sh + 12), flags = le32(sh + 36);
		printf("  %-8s va 0x%06x %c%c%c\n", name, va, flags & SCN_MEM_READ ? 'r' : '-',
		       flags & SCN_MEM_WRITE ? 'w' : '-', flags & SCN_MEM_EXECUTE ? 'x' : '-');
		if ((flags & SCN_MEM_WRITE) && (flags & SCN_MEM_EXECUTE)) {
			printf("FAIL section %s is both writable and executable\n", name);
			bad++;
		}
		if (va % 4096) {
			printf("FAIL section %s starts at 0x%x, not on a page\n", name, va);
			bad++;
		}
	}
	if (!bad)
		printf("ok: EFI application (machine 0x%04x), NX_COMPAT, %u sections, none W+X, all page-aligned, all "
		       "in the file\n",
		       le16(coff), nsect);
	return bad ? 1 : 0;
}
