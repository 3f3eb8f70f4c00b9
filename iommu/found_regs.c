#include "found_regs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/textlines.h"
#include "iommu/amdvi/regs.h"
#include "iommu/smmuv3/regs.h"
#include "iommu/vtd/regs.h"

/* SMMUv3 page-0 registers smmuv3/regs.h has no use for (IHI 0070 6.2). */
#define SMMU_IDR2 0x08
#define SMMU_IDR4 0x10
#define SMMU_IIDR 0x18
#define SMMU_STATUSR 0x40

struct reg_def {
	enum iommu_type type;
	uint32_t off;
	uint8_t width; /* bytes */
	const char *name;
};

static const struct reg_def defs[] = {
	/* VT-d 11.4: identity, then what vtd takeover.c records */
	{ IOMMU_VTD, VTD_REG_VER, 4, "VER" },
	{ IOMMU_VTD, VTD_REG_CAP, 8, "CAP" },
	{ IOMMU_VTD, VTD_REG_ECAP, 8, "ECAP" },
	{ IOMMU_VTD, VTD_REG_GSTS, 4, "GSTS" },
	{ IOMMU_VTD, VTD_REG_RTADDR, 8, "RTADDR" },
	{ IOMMU_VTD, VTD_REG_FSTS, 4, "FSTS" },
	{ IOMMU_VTD, VTD_REG_FECTL, 4, "FECTL" },
	{ IOMMU_VTD, VTD_REG_FEDATA, 4, "FEDATA" },
	{ IOMMU_VTD, VTD_REG_FEADDR, 4, "FEADDR" },
	{ IOMMU_VTD, VTD_REG_FEUADDR, 4, "FEUADDR" },
	{ IOMMU_VTD, VTD_REG_PMEN, 4, "PMEN" },
	{ IOMMU_VTD, VTD_REG_IQH, 8, "IQH" },
	{ IOMMU_VTD, VTD_REG_IQT, 8, "IQT" },
	{ IOMMU_VTD, VTD_REG_IQA, 8, "IQA" },
	{ IOMMU_VTD, VTD_REG_ICS, 4, "ICS" },
	{ IOMMU_VTD, VTD_REG_IRTA, 8, "IRTA" },
	/* AMD-Vi 3.4: the MMIO header, EFR, the ring pointers, status */
	{ IOMMU_AMDVI, AMDVI_REG_DEVTAB_BASE, 8, "DevTabBase" },
	{ IOMMU_AMDVI, AMDVI_REG_CMDBUF_BASE, 8, "CmdBufBase" },
	{ IOMMU_AMDVI, AMDVI_REG_EVTLOG_BASE, 8, "EvtLogBase" },
	{ IOMMU_AMDVI, AMDVI_REG_CONTROL, 8, "Control" },
	{ IOMMU_AMDVI, AMDVI_REG_EXCL_BASE, 8, "ExclBase" },
	{ IOMMU_AMDVI, AMDVI_REG_EXCL_LIMIT, 8, "ExclLimit" },
	{ IOMMU_AMDVI, AMDVI_REG_EFR, 8, "EFR" },
	{ IOMMU_AMDVI, AMDVI_REG_CMDBUF_HEAD, 8, "CmdBufHead" },
	{ IOMMU_AMDVI, AMDVI_REG_CMDBUF_TAIL, 8, "CmdBufTail" },
	{ IOMMU_AMDVI, AMDVI_REG_EVTLOG_HEAD, 8, "EvtLogHead" },
	{ IOMMU_AMDVI, AMDVI_REG_EVTLOG_TAIL, 8, "EvtLogTail" },
	{ IOMMU_AMDVI, AMDVI_REG_STATUS, 8, "Status" },
	/* SMMUv3 6.3: identification, control, queues (EVENTQ's indexes on page 1) */
	{ IOMMU_SMMUV3, SMMU_IDR0, 4, "IDR0" },
	{ IOMMU_SMMUV3, SMMU_IDR1, 4, "IDR1" },
	{ IOMMU_SMMUV3, SMMU_IDR2, 4, "IDR2" },
	{ IOMMU_SMMUV3, SMMU_IDR3, 4, "IDR3" },
	{ IOMMU_SMMUV3, SMMU_IDR4, 4, "IDR4" },
	{ IOMMU_SMMUV3, SMMU_IDR5, 4, "IDR5" },
	{ IOMMU_SMMUV3, SMMU_IIDR, 4, "IIDR" },
	{ IOMMU_SMMUV3, SMMU_AIDR, 4, "AIDR" },
	{ IOMMU_SMMUV3, SMMU_CR0, 4, "CR0" },
	{ IOMMU_SMMUV3, SMMU_CR0ACK, 4, "CR0ACK" },
	{ IOMMU_SMMUV3, SMMU_CR1, 4, "CR1" },
	{ IOMMU_SMMUV3, SMMU_CR2, 4, "CR2" },
	{ IOMMU_SMMUV3, SMMU_STATUSR, 4, "STATUSR" },
	{ IOMMU_SMMUV3, SMMU_GBPA, 4, "GBPA" },
	{ IOMMU_SMMUV3, SMMU_IRQ_CTRL, 4, "IRQ_CTRL" },
	{ IOMMU_SMMUV3, SMMU_GERROR, 4, "GERROR" },
	{ IOMMU_SMMUV3, SMMU_GERRORN, 4, "GERRORN" },
	{ IOMMU_SMMUV3, SMMU_STRTAB_BASE, 8, "STRTAB_BASE" },
	{ IOMMU_SMMUV3, SMMU_STRTAB_BASE_CFG, 4, "STRTAB_BASE_CFG" },
	{ IOMMU_SMMUV3, SMMU_CMDQ_BASE, 8, "CMDQ_BASE" },
	{ IOMMU_SMMUV3, SMMU_CMDQ_PROD, 4, "CMDQ_PROD" },
	{ IOMMU_SMMUV3, SMMU_CMDQ_CONS, 4, "CMDQ_CONS" },
	{ IOMMU_SMMUV3, SMMU_EVENTQ_BASE, 8, "EVENTQ_BASE" },
	{ IOMMU_SMMUV3, SMMU_EVENTQ_PROD, 4, "EVENTQ_PROD" },
	{ IOMMU_SMMUV3, SMMU_EVENTQ_CONS, 4, "EVENTQ_CONS" },
};

#define NDEFS (sizeof(defs) / sizeof(defs[0]))
#define FOUND_MAX 24 /* registers of the type with the most (SMMUv3) */

struct unit_found {
	char name[16];
	enum iommu_type type;
	uint64_t base;
	size_t n;
	struct {
		uint32_t off;
		uint8_t width;
		uint64_t val;
	} r[FOUND_MAX];
};

static struct unit_found found[IOMMU_MAX_UNITS];
static size_t nfound;

static struct unit_found *unit_slot(const char *name, enum iommu_type type, uint64_t base)
{
	for (size_t i = 0; i < nfound; i++)
		if (strcmp(found[i].name, name) == 0 && found[i].base == base && found[i].type == type)
			return &found[i];
	if (nfound == IOMMU_MAX_UNITS)
		return NULL;
	struct unit_found *f = &found[nfound++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->type = type;
	f->base = base;
	return f;
}

static void keep(struct unit_found *f, uint32_t off, uint8_t width, uint64_t val)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->r[i].off == off) {
			f->r[i].width = width, f->r[i].val = val;
			return;
		}
	if (f->n < FOUND_MAX)
		f->r[f->n++] = (typeof(f->r[0])){ off, width, val };
}

/* Once per unit a session, as a take-over records its registers once: a
 * later discovery (after a take-over, say) keeps what was found first. */
void found_regs_read(const struct iommu_units *u)
{
	for (size_t i = 0; i < u->n; i++) {
		const struct iommu_unit *unit = &u->u[i];
		struct regwin w;
		if (unit->refused[0] || units_open_window(unit, &w))
			continue;
		struct unit_found *f = unit_slot(unit->name, unit->type, unit->base);
		if (f && f->n)
			continue;
		for (size_t k = 0; f && k < NDEFS; k++)
			if (defs[k].type == unit->type && defs[k].off + defs[k].width <= unit->size)
				keep(f, defs[k].off, defs[k].width,
				     defs[k].width == 8 ? regwin_read64(&w, defs[k].off)
							: regwin_read32(&w, defs[k].off));
	}
}

static const struct reg_def *reg_at(enum iommu_type type, uint32_t off)
{
	for (size_t k = 0; k < NDEFS; k++)
		if (defs[k].type == type && defs[k].off == off)
			return &defs[k];
	return NULL;
}

static const char *reg_name(enum iommu_type type, uint32_t off)
{
	const struct reg_def *d = reg_at(type, off);
	return d ? d->name : "?";
}

char *found_regs_text(size_t *len)
{
	size_t cap = 160 + nfound * FOUND_MAX * 96, n = 0;
	char *t = nfound ? malloc(cap) : NULL;
	if (!t)
		return NULL;
	n += (size_t)snprintf(t + n, cap - n,
			      "# unit type base offset bytes register value: as found at discovery, before any "
			      "take-over\n");
	for (size_t i = 0; i < nfound; i++)
		for (size_t k = 0; k < found[i].n; k++)
			n += (size_t)snprintf(t + n, cap - n, "%s %s 0x%llx 0x%05x %u %s 0x%0*llx\n", found[i].name,
					      iommu_type_name(found[i].type), (unsigned long long)found[i].base,
					      found[i].r[k].off, found[i].r[k].width,
					      reg_name(found[i].type, found[i].r[k].off), found[i].r[k].width * 2,
					      (unsigned long long)found[i].r[k].val);
	*len = n;
	return t;
}

static bool type_named(const char *s, enum iommu_type *t)
{
	static const enum iommu_type all[] = { IOMMU_VTD, IOMMU_AMDVI, IOMMU_SMMUV3 };
	for (size_t i = 0; i < 3; i++)
		if (strcmp(s, iommu_type_name(all[i])) == 0) {
			*t = all[i];
			return true;
		}
	return false;
}

/* One line: "dmar0 vtd 0xfed90000 0x00008 8 CAP 0x00d2008c22260286";
 * NULL when taken, else what is wrong with it. */
static const char *load_line(const char *line)
{
	char name[16], type[12], reg[24], extra[2];
	unsigned long long base, off, val;
	unsigned width;
	enum iommu_type t;
	int k = sscanf(line, "%15s %11s %llx %llx %u %23s %llx %1s", name, type, &base, &off, &width, reg, &val, extra);
	if (k != 7)
		return "not 'unit type base offset bytes register value'";
	if (!type_named(type, &t))
		return "the type is not vtd, amdvi or smmuv3";
	if (width != 4 && width != 8)
		return "a register is 4 or 8 bytes";
	if (off > 0xfffff || (off & (width - 1)))
		return "the offset is not one of a register of that size";
	if (width == 4 && val > 0xffffffffull)
		return "the value does not fit in 4 bytes";
	const struct reg_def *d = reg_at(t, (uint32_t)off);
	if (!d || strcmp(reg, d->name) != 0)
		return "the register's name is not the one at that offset";
	if (d->width != width)
		return "the register is not that many bytes";
	struct unit_found *f = unit_slot(name, t, base);
	if (!f)
		return "more units than the monitor keeps";
	keep(f, (uint32_t)off, (uint8_t)width, val);
	return NULL;
}

static const char *take_line(char *line, void *ctx)
{
	(void)ctx;
	return load_line(line);
}

size_t found_regs_load(const char *text, size_t len, const char *file)
{
	nfound = 0;
	return text_lines(text, len, file, take_line, NULL);
}

static uint64_t saved_read(void *ctx, uint64_t off, unsigned width)
{
	const struct unit_found *f = ctx;
	for (size_t i = 0; i < f->n; i++)
		if (f->r[i].off == off && f->r[i].width == width)
			return f->r[i].val;
	return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
}

/* A replay never reaches a unit: what would be written goes nowhere. */
static void saved_write(void *ctx, uint64_t off, unsigned width, uint64_t val)
{
	(void)ctx, (void)off, (void)width, (void)val;
}

static const struct regwin_model_ops saved_ops = { saved_read, saved_write };

bool found_regs_window(const struct iommu_unit *u, struct regwin *w)
{
	for (size_t i = 0; i < nfound; i++)
		if (strcmp(found[i].name, u->name) == 0 && found[i].base == u->base && found[i].type == u->type) {
			regwin_init_model(w, u->name, u->size, false, &saved_ops, &found[i]);
			return true;
		}
	return false;
}
