/* The flattened device tree (Devicetree Specification v0.4, chapter 5)
 * the firmware hands over where there is no ACPI (U-Boot on RISC-V, and
 * some Arm boards): the blob checked as the ACPI tables are — every offset
 * and length bounded by the blob, every name terminated inside its block,
 * the token stream well nested — then read as nodes and properties, and
 * what a monitor needs found in it: memory, the timebase, the console
 * UART, the generic ECAM PCIe host with its iommu-map, and RISC-V IOMMUs,
 * each only where its "status" allows. A problem is one line in `diag`;
 * what can still be read is. */
#ifndef IOMMON_FDT_H
#define IOMMON_FDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define FDT_MAGIC 0xd00dfeedu

struct fdt_node {
	const char *name; /* "serial@10000000"; "" for the root */
	int parent;	  /* index of the parent, -1 for the root */
	unsigned depth;
	size_t first_prop, nprops;
};

struct fdt_prop {
	const char *name;
	const uint8_t *val; /* big-endian cells, strings or bytes */
	uint32_t len;
};

struct fdt {
	uint32_t version, boot_cpuid;
	size_t nrsv; /* memory reservation entries */
	struct fdt_node *nodes;
	size_t nnodes;
	struct fdt_prop *props;
	size_t nprops;
	struct diag diag;
};

/* Parses `len` bytes. 0 when the tree could be read (warnings may be in
 * diag), -1 when not even that; fdt_free() in both cases. */
int fdt_parse(const uint8_t *blob, size_t len, struct fdt *f);
void fdt_free(struct fdt *f);

/* The node at `path` ("/", "/cpus", "/soc/pci@30000000"), or -1. */
int fdt_path(const struct fdt *f, const char *path);
/* The next node after `from` (-1: from the start) whose "compatible"
 * list holds `compat`, or -1. */
int fdt_compatible(const struct fdt *f, int from, const char *compat);
/* The node whose "phandle" is `ph`, or -1. */
int fdt_phandle(const struct fdt *f, uint32_t ph);
/* Property `name` of `node`, or NULL. */
const struct fdt_prop *fdt_prop(const struct fdt *f, int node, const char *name);
/* Cell `i` of a property; false past its end. */
bool fdt_cell(const struct fdt_prop *p, size_t i, uint32_t *out);
/* Does a string-list property hold `s`? */
bool fdt_has_string(const struct fdt_prop *p, const char *s);
/* `node`'s "#address-cells" / "#size-cells" as its children read them
 * (2 and 1 where absent, the specification's defaults). */
unsigned fdt_address_cells(const struct fdt *f, int node);
unsigned fdt_size_cells(const struct fdt *f, int node);
/* Entry `i` of `node`'s "reg", in its parent's cells; false when there is
 * none, or the cells are more than 64 bits. */
bool fdt_reg(const struct fdt *f, int node, size_t i, uint64_t *addr, uint64_t *size);
/* `node`'s path from the root ("/soc/iommu@3010000"), cut to `cap`. */
void fdt_node_path(const struct fdt *f, int node, char *out, size_t cap);
/* May `node` be used? Its "status" and every ancestor's (Devicetree
 * Specification v0.4, 2.3.4): absent, "okay" or "ok" say yes; "disabled",
 * "reserved", "fail" and "fail-sss" say no, and so does any other value
 * (as Linux's of_device_is_available reads it). A node under a disabled
 * bus is not reached either. When not, `why` (NULL: not wanted) says
 * whose status and what it holds: `status "disabled"`, or `under /soc,
 * whose status is "disabled"`. */
bool fdt_usable(const struct fdt *f, int node, char *why, size_t cap);

/* What a monitor needs from the tree. */
#define FDT_MAX_MEMORY 8
#define FDT_MAX_IOMMUS 4
#define FDT_MAX_MAP 16
#define FDT_MAX_OFF 16
#define FDT_PATH 64
#define FDT_WHY 200
/* The kinds of node it reads. */
enum fdt_kind { FDT_MEMORY, FDT_CPU, FDT_UART, FDT_ECAM, FDT_IOMMU, FDT_FINISHER };
struct fdt_platform {
	struct {
		uint64_t base, size;
	} memory[FDT_MAX_MEMORY];
	size_t nmemory;
	/* /cpus "timebase-frequency", else the first usable hart's; 0 when
	 * neither has one */
	uint64_t timebase_hz;
	/* RISC-V: the Zicbom cache-block size of the first usable hart when
	 * its ISA names zicbom and "riscv,cbom-block-size" is a power of two
	 * (0: none); the test finisher ("sifive,test0": QEMU's virt) register */
	unsigned cbom_block;
	int cbom_hart; /* the hart node it was read from */
	uint64_t test_finisher;
	struct {
		bool found;
		uint64_t base, size; /* its register window */
		uint32_t clock_hz;   /* "clock-frequency"; 0 when absent */
		unsigned reg_shift;  /* "reg-shift" (0: byte registers) */
		bool chosen;	     /* named by /chosen's stdout-path */
		bool pl011;	     /* "arm,pl011"; else a 16550 */
	} uart;
	struct {
		bool found;
		int node;
		uint64_t base, size;	     /* the ECAM window */
		unsigned bus_start, bus_end; /* "bus-range", 0-255 where absent */
	} ecam;
	struct {
		int node;
		bool pci;     /* "riscv,pci-iommu": a PCI function (its reg a PCI address) */
		uint16_t rid; /* a PCI function's: bus << 8 | device << 3 | function, from its reg */
		uint64_t base, size;
		uint32_t phandle;
		char path[FDT_PATH];
	} iommu[FDT_MAX_IOMMUS];
	size_t niommus;
	/* Nodes of the kinds above that their status, or a parent's, rules
	 * out: never read, never driven. `fdt` lists them, and a backend's
	 * discovery its units'. The first FDT_MAX_OFF are kept (how many
	 * more, a warning in diag). */
	struct {
		enum fdt_kind kind;
		int rid; /* a RISC-V IOMMU PCI function's requester id; else -1 */
		char path[FDT_PATH];
		char why[96];
	} off[FDT_MAX_OFF];
	size_t noff;
	/* The PCIe host's "iommu-map" (pci-iommu.yaml): requester ids
	 * [rid_base, rid_base + len), masked by "iommu-map-mask" first, to
	 * device ids from iommu_base on the IOMMU its phandle leads to (an
	 * index into iommu[]; -1 when none of them). An entry that cannot be
	 * followed says why in `bad`; `map_bad` says why the whole map is
	 * not read. */
	bool has_map;
	uint32_t map_mask; /* 0xffffffff where absent */
	char map_bad[FDT_WHY];
	struct fdt_map_entry {
		uint32_t rid_base, iommu_base, len;
		int iommu;
		char target[FDT_PATH + 32]; /* "/soc/iommu@3010000", with a compatible when not one of iommu[] */
		char bad[FDT_WHY];
	} map[FDT_MAX_MAP];
	size_t nmap;
};

/* Fills `p` from `f`; what is malformed is added to f->diag and left out. */
void fdt_platform_read(struct fdt *f, struct fdt_platform *p);
/* `p` for people, as the `fdt` command prints it. */
void fdt_platform_print(const struct fdt *f, const struct fdt_platform *p);

#endif
