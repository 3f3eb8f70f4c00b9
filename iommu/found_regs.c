#include "found_regs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "core/base/textlines.h"

#define FOUND_MAX FOUND_REGS_MAX

struct unit_found {
	char name[16];
	const struct iommu_backend *backend;
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

static struct unit_found *unit_slot(const char *name, const struct iommu_backend *b, uint64_t base)
{
	for (size_t i = 0; i < nfound; i++)
		if (strcmp(found[i].name, name) == 0 && found[i].base == base && found[i].backend == b)
			return &found[i];
	if (nfound == IOMMU_MAX_UNITS)
		return NULL;
	struct unit_found *f = &found[nfound++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->backend = b;
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
		const struct iommu_discovery *d = unit->backend ? unit->backend->discovery : NULL;
		if (!d || !d->nregs)
			continue;
		struct unit_found *f = unit_slot(unit->name, unit->backend, unit->base);
		if (f && f->n)
			continue;
		for (size_t k = 0; f && k < d->nregs; k++) {
			const struct iommu_found_reg *r = &d->regs[k];
			if (r->off + r->width <= unit->size)
				keep(f, r->off, r->width,
				     r->width == 8 ? regwin_read64(&w, r->off) : regwin_read32(&w, r->off));
		}
	}
}

static const struct iommu_found_reg *reg_at(const struct iommu_backend *b, uint32_t off)
{
	for (size_t k = 0; k < b->discovery->nregs; k++)
		if (b->discovery->regs[k].off == off)
			return &b->discovery->regs[k];
	return NULL;
}

static const char *reg_name(const struct iommu_backend *b, uint32_t off)
{
	const struct iommu_found_reg *d = reg_at(b, off);
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
					      found[i].backend->name, (unsigned long long)found[i].base,
					      found[i].r[k].off, found[i].r[k].width,
					      reg_name(found[i].backend, found[i].r[k].off), found[i].r[k].width * 2,
					      (unsigned long long)found[i].r[k].val);
	*len = n;
	return t;
}

/* The backend named `s` that saves registers, or NULL. */
static const struct iommu_backend *saver_named(const char *s)
{
	const struct iommu_backend *b = iommu_backend_named(s);
	return b && b->discovery && b->discovery->nregs ? b : NULL;
}

/* "the type is not vtd, amdvi or smmuv3": the backends that save registers */
static const char *not_a_type(void)
{
	static char msg[160];
	const struct iommu_backend *b, *names[IOMMU_MAX_BACKENDS];
	size_t n = 0, k = (size_t)snprintf(msg, sizeof(msg), "the type is not");
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL && n < IOMMU_MAX_BACKENDS; i++)
		if (saver_named(b->name) == b)
			names[n++] = b;
	for (size_t i = 0; i < n && k < sizeof(msg); i++)
		k += (size_t)snprintf(msg + k, sizeof(msg) - k, "%s%s",
				      i == 0	  ? " "
				      : i + 1 < n ? ", "
						  : " or ",
				      names[i]->name);
	return msg;
}

/* One line: "dmar0 vtd 0xfed90000 0x00008 8 CAP 0x00d2008c22260286";
 * NULL when taken, else what is wrong with it. */
static const char *load_line(const char *line)
{
	char name[16], type[12], reg[24], extra[2];
	unsigned long long base, off, val;
	unsigned width;
	const struct iommu_backend *t;
	int k = sscanf(line, "%15s %11s %llx %llx %u %23s %llx %1s", name, type, &base, &off, &width, reg, &val, extra);
	if (k != 7)
		return "not 'unit type base offset bytes register value'";
	if ((t = saver_named(type)) == NULL)
		return not_a_type();
	if (width != 4 && width != 8)
		return "a register is 4 or 8 bytes";
	if (off > 0xfffff || (off & (width - 1)))
		return "the offset is not one of a register of that size";
	if (width == 4 && val > 0xffffffffull)
		return "the value does not fit in 4 bytes";
	const struct iommu_found_reg *d = reg_at(t, (uint32_t)off);
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
		if (strcmp(found[i].name, u->name) == 0 && found[i].base == u->base && found[i].backend == u->backend) {
			regwin_init_model(w, u->name, u->size, false, &saved_ops, &found[i]);
			return true;
		}
	return false;
}
