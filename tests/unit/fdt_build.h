/* A small writer of flattened device trees for the unit tests (test_fdt.c,
 * test_fdt_gen.c, test_riscv_fdt.c): nodes and properties in the order
 * given, the strings block shared, an empty reservation block, version
 * 17. fdtb_reset() starts a tree, fdtb_finish() lays it out in
 * fdtb_blob and gives its length. */
#ifndef IOMMON_TEST_FDT_BUILD_H
#define IOMMON_TEST_FDT_BUILD_H

#include <stdint.h>
#include <string.h>

#include "core/tables/fdt.h"

static uint8_t fdtb_st[16384], fdtb_strs[2048], fdtb_blob[24576];
static size_t fdtb_nst, fdtb_nstrs;

static inline void fdtb_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static inline void fdtb_reset(void)
{
	fdtb_nst = fdtb_nstrs = 0;
}

static inline void fdtb_tok(uint32_t v)
{
	fdtb_put32(fdtb_st + fdtb_nst, v);
	fdtb_nst += 4;
}

static inline void fdtb_begin(const char *name)
{
	fdtb_tok(1);
	size_t n = strlen(name) + 1;
	memcpy(fdtb_st + fdtb_nst, name, n);
	memset(fdtb_st + fdtb_nst + n, 0, ((n + 3) & ~(size_t)3) - n);
	fdtb_nst += (n + 3) & ~(size_t)3;
}

static inline void fdtb_end(void)
{
	fdtb_tok(2);
}

static inline uint32_t fdtb_name_off(const char *name)
{
	for (size_t i = 0; i < fdtb_nstrs; i += strlen((char *)fdtb_strs + i) + 1)
		if (strcmp((char *)fdtb_strs + i, name) == 0)
			return (uint32_t)i;
	size_t at = fdtb_nstrs;
	memcpy(fdtb_strs + at, name, strlen(name) + 1);
	fdtb_nstrs += strlen(name) + 1;
	return (uint32_t)at;
}

static inline void fdtb_prop(const char *name, const void *val, uint32_t len)
{
	fdtb_tok(3);
	fdtb_tok(len);
	fdtb_tok(fdtb_name_off(name));
	memcpy(fdtb_st + fdtb_nst, val, len);
	memset(fdtb_st + fdtb_nst + len, 0, ((len + 3) & ~3u) - len);
	fdtb_nst += (len + 3) & ~3u;
}

static inline void fdtb_cells(const char *name, const uint32_t *c, size_t n)
{
	uint8_t v[256];
	for (size_t i = 0; i < n && i < 64; i++)
		fdtb_put32(v + 4 * i, c[i]);
	fdtb_prop(name, v, (uint32_t)(4 * (n < 64 ? n : 64)));
}

#define FDTB_CELLS(name, ...)                                   \
	do {                                                    \
		const uint32_t c_[] = { __VA_ARGS__ };          \
		fdtb_cells(name, c_, sizeof(c_) / sizeof(*c_)); \
	} while (0)

static inline void fdtb_str(const char *name, const char *s)
{
	fdtb_prop(name, s, (uint32_t)strlen(s) + 1);
}

/* The header, an empty reservation block, the blocks: the blob's length. */
static inline size_t fdtb_finish(void)
{
	fdtb_tok(9);
	size_t rsv = 40, stoff = rsv + 16, stroff = stoff + fdtb_nst, total = stroff + fdtb_nstrs;
	memset(fdtb_blob, 0, sizeof(fdtb_blob));
	fdtb_put32(fdtb_blob, FDT_MAGIC);
	fdtb_put32(fdtb_blob + 4, (uint32_t)total);
	fdtb_put32(fdtb_blob + 8, (uint32_t)stoff);
	fdtb_put32(fdtb_blob + 12, (uint32_t)stroff);
	fdtb_put32(fdtb_blob + 16, (uint32_t)rsv);
	fdtb_put32(fdtb_blob + 20, 17);
	fdtb_put32(fdtb_blob + 24, 16);
	fdtb_put32(fdtb_blob + 32, (uint32_t)fdtb_nstrs);
	fdtb_put32(fdtb_blob + 36, (uint32_t)fdtb_nst);
	memcpy(fdtb_blob + stoff, fdtb_st, fdtb_nst);
	memcpy(fdtb_blob + stroff, fdtb_strs, fdtb_nstrs);
	return total;
}

static inline void fdtb_status(const char *s)
{
	if (s)
		fdtb_str("status", s);
}

/* What fdtb_virt changes of QEMU's riscv64 virt tree: a status on each
 * node the monitor reads (NULL: none), the ECAM host's iommu-map (NULL:
 * every requester id to the IOMMU at 0x3010000, phandle 7) and its
 * iommu-map-mask (0: none), and nodes added at the end of /soc. */
struct fdtb_virt {
	const char *memory, *cpu, *finisher, *uart, *iommu, *ecam;
	const uint32_t *map;
	size_t nmap;
	uint32_t mask;
	void (*soc)(void);
};

/* QEMU's riscv64 virt, as its tree names things (10.0's iommu-sys=on). */
static inline size_t fdtb_virt(const struct fdtb_virt *o)
{
	static const struct fdtb_virt none;
	if (!o)
		o = &none;
	fdtb_reset();
	fdtb_begin("");
	FDTB_CELLS("#address-cells", 2);
	FDTB_CELLS("#size-cells", 2);
	fdtb_str("compatible", "riscv-virtio");
	fdtb_begin("chosen");
	fdtb_str("stdout-path", "/soc/serial@10000000");
	fdtb_end();
	fdtb_begin("memory@80000000");
	fdtb_str("device_type", "memory");
	FDTB_CELLS("reg", 0, 0x80000000u, 0, 0x10000000u);
	fdtb_status(o->memory);
	fdtb_end();
	fdtb_begin("cpus");
	FDTB_CELLS("#address-cells", 1);
	FDTB_CELLS("#size-cells", 0);
	FDTB_CELLS("timebase-frequency", 10000000);
	fdtb_begin("cpu@0");
	fdtb_str("device_type", "cpu");
	FDTB_CELLS("reg", 0);
	fdtb_str("riscv,isa", "rv64imafdch_zicbom_zicboz_zicntr");
	FDTB_CELLS("riscv,cbom-block-size", 64);
	fdtb_status(o->cpu);
	fdtb_end();
	fdtb_end();
	fdtb_begin("soc");
	FDTB_CELLS("#address-cells", 2);
	FDTB_CELLS("#size-cells", 2);
	fdtb_begin("test@100000");
	const char test[] = "sifive,test1\0sifive,test0\0syscon";
	fdtb_prop("compatible", test, sizeof(test));
	FDTB_CELLS("reg", 0, 0x100000u, 0, 0x1000);
	fdtb_status(o->finisher);
	fdtb_end();
	fdtb_begin("serial@10000000");
	fdtb_str("compatible", "ns16550a");
	FDTB_CELLS("reg", 0, 0x10000000u, 0, 0x100);
	FDTB_CELLS("clock-frequency", 3686400);
	fdtb_status(o->uart);
	fdtb_end();
	fdtb_begin("iommu@3010000");
	const char compat[] = "qemu,riscv-iommu\0riscv,iommu";
	fdtb_prop("compatible", compat, sizeof(compat));
	FDTB_CELLS("reg", 0, 0x3010000u, 0, 0x1000);
	FDTB_CELLS("#iommu-cells", 1);
	FDTB_CELLS("phandle", 7);
	fdtb_status(o->iommu);
	fdtb_end();
	fdtb_begin("pci@30000000");
	fdtb_str("compatible", "pci-host-ecam-generic");
	fdtb_str("device_type", "pci");
	FDTB_CELLS("reg", 0, 0x30000000u, 0, 0x10000000u);
	FDTB_CELLS("bus-range", 0, 0xff);
	if (o->map)
		fdtb_cells("iommu-map", o->map, o->nmap);
	else
		FDTB_CELLS("iommu-map", 0, 7, 0, 0x10000);
	if (o->mask)
		FDTB_CELLS("iommu-map-mask", o->mask);
	fdtb_status(o->ecam);
	fdtb_end();
	if (o->soc)
		o->soc();
	fdtb_end();
	fdtb_end();
	return fdtb_finish();
}

#endif
