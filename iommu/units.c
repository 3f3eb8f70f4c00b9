#include "units.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "core/base/claims.h"
#include "core/base/platform.h"
#include "core/tables/diag.h"
#include "found_regs.h"

const char *units_open_window(const struct iommu_unit *u, struct regwin *w)
{
	return regwin_open_mmio(w, u->name, u->base, u->size, false, u->source);
}

/* not inlined: GCC then takes the unit's name and source for parts of
 * the destination (-Wrestrict) */
__attribute__((noinline)) static void check_window(struct iommu_unit *unit)
{
	struct regwin w;
	const char *why = units_open_window(unit, &w), *owner = NULL;
	if (!why && unit->own_bar_class) /* its own BAR holds its registers: any other device's claim refuses */
		owner = claims_other_owner(unit->base, unit->size, 0xffffff, unit->own_bar_class);
	else if (!why)
		owner = claims_owner(unit->base, unit->size, false);
	if (why)
		snprintf(unit->refused, sizeof(unit->refused), "%s", why);
	else if (unit->base & 0xfff)
		snprintf(unit->refused, sizeof(unit->refused),
			 "%s gives %s registers at 0x%llx: refused, not 4 KiB aligned", unit->source, unit->name,
			 (unsigned long long)unit->base);
	else if (owner) /* another device's registers, or another unit's: never touched */
		snprintf(unit->refused, sizeof(unit->refused),
			 "%s gives %s registers at 0x%llx (+0x%llx): refused, they lie in %s", unit->source, unit->name,
			 (unsigned long long)unit->base, (unsigned long long)unit->size, owner);
	else {
		unit->refused[0] = '\0';
		claims_add(CLAIM_UNIT, unit->base, unit->size, "%s's register window (%s)", unit->name, unit->source);
	}
}

int units_add(struct iommu_units *u, const struct iommu_unit *unit, struct diag *diag)
{
	if (u->n == IOMMU_MAX_UNITS) {
		if (diag)
			diag_add(diag, DIAG_WARNING, "more than %d units: the rest are not used", IOMMU_MAX_UNITS);
		return -1;
	}
	struct iommu_unit *to = &u->u[u->n];
	*to = *unit;
	to->ndevices = 0;
	to->refused[0] = '\0';
	check_window(to);
	return (int)u->n++;
}

void units_cover(struct iommu_units *u, struct pci_list *pci, size_t i, size_t unit)
{
	pci->d[i].iommu = (int)unit;
	u->u[unit].ndevices++;
}

void units_missing(struct iommu_units *u, uint16_t segment, uint16_t mask, uint16_t first, uint16_t last,
		   const char *fmt, ...)
{
	if (u->nmissing == IOMMU_MAX_MISSING)
		return;
	typeof(u->missing[0]) *m = &u->missing[u->nmissing++];
	m->segment = segment, m->mask = mask, m->first = first, m->last = last;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
}

const char *units_why_missing(const struct iommu_units *u, const struct pci_dev *d)
{
	uint16_t rid = pci_rid(d->addr);
	for (size_t k = 0; d->iommu < 0 && k < u->nmissing; k++) {
		uint16_t id = rid & u->missing[k].mask;
		if (u->missing[k].segment == d->addr.seg && id >= u->missing[k].first && id <= u->missing[k].last)
			return u->missing[k].why;
	}
	return NULL;
}

size_t units_of(const struct iommu_units *u, const struct iommu_backend *b)
{
	size_t n = 0;
	for (size_t i = 0; i < u->n; i++)
		n += u->u[i].backend == b;
	return n;
}

int units_from(const struct iommu_units *u, const struct iommu_backend *b, size_t src)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->u[i].backend == b && u->u[i].src == src)
			return (int)i;
	return -1;
}

void *units_state(const struct iommu_units *u, const struct iommu_backend *b)
{
	for (size_t i = 0; i < u->nfound; i++)
		if (u->found[i].backend == b)
			return u->found[i].state;
	return NULL;
}

bool units_any_table(const struct iommu_units *u)
{
	for (size_t i = 0; i < u->nfound; i++)
		if (u->found[i].state)
			return true;
	return false;
}

void units_adopt(struct iommu_units *u, const struct iommu_backend *const *b, void *const *state, size_t n,
		 struct pci_list *pci)
{
	memset(u, 0, sizeof(*u));
	for (size_t k = 0; k < n && k < IOMMU_MAX_BACKENDS; k++) {
		u->found[k].backend = b[k];
		u->found[k].state = state ? state[k] : NULL;
		u->nfound++;
	}
	for (size_t i = 0; pci && i < pci->n; i++)
		pci->d[i].iommu = -1;
	for (size_t k = 0; k < u->nfound; k++) {
		const struct iommu_discovery *d = u->found[k].backend->discovery;
		if (d && d->find)
			d->find(u, u->found[k].backend, u->found[k].state, pci);
	}
	for (size_t k = 0; pci && k < u->nfound; k++) {
		const struct iommu_discovery *d = u->found[k].backend->discovery;
		if (d && d->claim)
			d->claim(u, u->found[k].backend, u->found[k].state, pci);
	}
}

void units_build(struct iommu_units *u, const struct units_table *t, size_t n, struct pci_list *pci)
{
	const struct iommu_backend *b[IOMMU_MAX_BACKENDS];
	void *state[IOMMU_MAX_BACKENDS];
	size_t k = 0;
	for (; k < n && k < IOMMU_MAX_BACKENDS; k++) {
		const struct iommu_discovery *d = t[k].backend->discovery;
		unsigned errors;
		b[k] = t[k].backend;
		state[k] = t[k].table && d && d->parse ? d->parse(t[k].table, t[k].len, &errors) : NULL;
	}
	units_adopt(u, b, state, k, pci);
}

void units_free(struct iommu_units *u)
{
	for (size_t k = 0; k < u->nfound; k++) {
		const struct iommu_discovery *d = u->found[k].backend->discovery;
		if (u->found[k].state && d && d->forget)
			d->forget(u->found[k].state);
		u->found[k].state = NULL;
	}
	u->n = 0;
	u->nfound = 0;
}

/* The discovery of the unit's backend, when it has one with `hook`. */
#define DISCOVERY(unit, hook)                                                              \
	((unit)->backend && (unit)->backend->discovery && (unit)->backend->discovery->hook \
	     ? (unit)->backend->discovery                                                  \
	     : NULL)

bool units_read_regs(const struct iommu_unit *u, struct unit_regs *r)
{
	struct regwin w;
	const struct iommu_discovery *d = DISCOVERY(u, identity);
	/* a replay answers from the registers its folder saved */
	if (!d ||
	    (platform->replay ? !found_regs_window(u, &w) : (u->base & 0xfff) || units_open_window(u, &w) != NULL))
		return false;
	memset(r, 0, sizeof(*r));
	return d->identity(&w, r);
}

void units_print_left_on(const char *const *on, size_t n, const char *off, const char *regs)
{
	printf("      the firmware left: %s", n ? "" : off);
	for (size_t i = 0; i < n; i++)
		printf("%s%s", i ? ", " : "", on[i]);
	printf("%s (%s)\n", n ? " on" : "", regs);
}

void units_describe(const struct iommu_unit *u)
{
	struct unit_regs r;
	if (u->refused[0] && !platform->replay) {
		printf("      registers: not opened: %s\n", u->refused);
		return;
	}
	if (!DISCOVERY(u, identity))
		return; /* its backend reads none */
	if (platform->replay && !units_read_regs(u, &r)) {
		printf("      registers: none saved for %s at 0x%llx in the replay folder\n", u->name,
		       (unsigned long long)u->base);
		return;
	}
	if (!units_read_regs(u, &r)) {
		printf("      registers: nothing answers at 0x%llx (they read all ones)\n",
		       (unsigned long long)u->base);
		return;
	}
	const struct iommu_discovery *d = DISCOVERY(u, print_regs);
	if (d)
		d->print_regs(&r);
}

void units_dma_aliases(const struct iommu_units *u, const struct pci_list *pci, size_t i, struct pci_aliases *out)
{
	pci_dma_aliases(pci, i, out);
	int k = pci->d[i].iommu;
	if (k < 0 || (size_t)k >= u->n)
		return;
	const struct iommu_unit *unit = &u->u[k];
	const struct iommu_discovery *d = DISCOVERY(unit, dma_aliases);
	if (d)
		d->dma_aliases(unit, units_state(u, unit->backend), pci, i, out);
}

size_t units_alias_group(const struct iommu_units *u, const struct pci_list *pci, size_t self,
			 const struct pci_aliases *ids, size_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < pci->n && n < max; i++) {
		const struct pci_dev *d = &pci->d[i];
		if (i == self || pci_is_bridge(d) || d->addr.seg != pci->d[self].addr.seg ||
		    (d->class >> 16) == 0x06) /* bridges of every kind: they forward, they do not master */
			continue;
		struct pci_aliases theirs;
		units_dma_aliases(u, pci, i, &theirs);
		bool shared = false;
		for (size_t k = 0; k < theirs.n && !shared; k++)
			shared = pci_aliases_have(ids, theirs.a[k].rid);
		if (shared)
			out[n++] = i;
	}
	return n;
}
