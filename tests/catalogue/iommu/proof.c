/* Whether the device's DMA meets the translation the bench set up
 * (bench.h): the proof every case on a unit makes before it DMAs, and the
 * requester id a unit recorded that is none of those the device's DMA can
 * carry. */
#include <stdio.h>
#include <string.h>

#include "core/base/macros.h"
#include "iommu/machine.h"
#include "pci/dut.h"
#include "tests/catalogue/bench.h"

/* After a DMA of the device's (or its bring-up) that failed: the first
 * fault the unit recorded under a requester id that is none of those the
 * device's DMA can carry (pci_dma_aliases) nor any other function's that
 * masters DMA, said before the engine's words, while none came under the
 * device's own. That DMA met a context iommon never wrote (the ids the
 * topology gives were set up); the cases cannot run until it is
 * explained. NULL when the unit recorded no such fault; then, where
 * `own` is given, the first fault under one of the device's own ids is
 * said there ("" when none): the records are consumed here, and what the
 * unit said of the device's DMA is the failure's best witness (a
 * C_BAD_STE for a stream whose STE is valid names the unit's reading of
 * the stream table, not the device). */
const char *bench_foreign_id(struct iommu *io, struct pci_addr a, const char *engine, char *own, size_t own_n)
{
	static char msg[320];
	struct iommu_fault f[16];
	bool overflow = false;
	if (own && own_n)
		own[0] = '\0';
	size_t n = io->ops->faults ? io->ops->faults(io, f, ARRAY_SIZE(f), &overflow) : 0;
	if (!n)
		return NULL;
	/* a model's engine is no function of the machine's: its own id only */
	int d = pci_find(&machine.pci, a);
	struct pci_aliases al = { .a = { { .rid = pci_rid(a) } }, .n = 1 };
	if (d >= 0)
		units_dma_aliases(&machine.units, &machine.pci, (size_t)d, &al);
	/* a fault under one of its own ids: the device's DMA reached the unit
	 * as the topology says, and what failed is the case's to report */
	for (size_t i = 0; i < n; i++)
		if (!f[i].sid_known || pci_aliases_have(&al, f[i].sid)) {
			if (own && own_n) {
				char seen[12];
				pci_rid_str(f[i].sid, seen, sizeof(seen));
				snprintf(own, own_n, "%s recorded a fault (0x%x) from %s: %s", io->name, f[i].reason,
					 f[i].sid_known ? seen : "an id it does not record",
					 f[i].why ? f[i].why : "a fault");
			}
			return NULL;
		}
	for (size_t i = 0; i < n; i++) {
		/* another function that masters DMA under that id (a bystander
		 * at work meanwhile) says nothing of this device's */
		struct pci_aliases one = { .a = { { .rid = f[i].sid } }, .n = 1 };
		size_t other;
		if (d >= 0 && units_alias_group(&machine.units, &machine.pci, (size_t)d, &one, &other, 1))
			continue;
		char seen[12], ids[PCI_ALIAS_MAX * 12] = "";
		pci_rid_str(f[i].sid, seen, sizeof(seen));
		for (size_t k = 0, len = 0; k < al.n && len < sizeof(ids); k++) {
			char rid[12];
			pci_rid_str(al.a[k].rid, rid, sizeof(rid));
			len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%s", k ? ", " : "", rid);
		}
		snprintf(msg, sizeof(msg), "%s recorded a fault from %s, none of its ids (%s) nor another device's: %s",
			 io->name, seen, ids, engine);
		return msg;
	}
	return NULL;
}

/* ---- the proof that the device's DMA is translated ------------------------ */

/* Before a case DMAs, one write shows that the unit translates what the
 * device emits, under whichever requester id the bridges give it: the
 * IOVA is the physical address of a guarded buffer of ours (the landing),
 * mapped to another (the target). Translated, the data arrives in the
 * target; untranslated (an alias left in pass-through, a unit that keys
 * the device by the wrong bus, as QEMU's amd-iommu does behind a bridge)
 * in the landing, memory of ours, where the cases' IOVAs high in the
 * device's reach would have written whatever lies there. An engine that
 * writes no RAM has nothing to prove; one that reaches no RAM untranslated
 * (or finds no page to land in) writes through the unit all the same, at
 * an IOVA as the cases place theirs: an escape goes uncaught there, a
 * write the unit refuses does not. Either is said once, as is a proof
 * that passed. A write refused under a requester id none of the device's
 * skips the case by name (bench_foreign_id). On the machine a proof holds for the
 * boot: every case takes the unit over anew the same way, so it is made
 * again only for another unit, device or set of requester ids (a model is
 * proven every time: its faults change between cases). */
bool bench_prove_translated(struct env *v)
{
	static char proven[128]; /* "unit device ids" the machine's proof holds for */
	static const struct iommu *said_io;
	static char said_label[32];
	static struct pci_addr said_dev;
	bool say = said_io != v->io || strncmp(said_label, v->label, sizeof(said_label) - 1) != 0 ||
		   !pci_addr_eq(said_dev, v->e->addr);
	said_io = v->io;
	snprintf(said_label, sizeof(said_label), "%s", v->label);
	said_dev = v->e->addr;
	char bdf[16], rids[96] = "";
	pci_addr_str(v->e->addr, bdf, sizeof(bdf));
	uint16_t id[1 + IOMMU_MAX_ALIASES];
	size_t nid = iommu_dut_rids(v->io, pci_rid(v->e->addr), id);
	for (size_t i = 0, len = 0; i < nid && len < sizeof(rids); i++)
		len += (size_t)snprintf(rids + len, sizeof(rids) - len, "%s%04x", i ? ", " : "", id[i]);
	char key[sizeof(proven)];
	snprintf(key, sizeof(key), "%.24s %s %.80s", v->io->name, bdf, rids);
	/* a proof made before holds only while the device is there to be
	 * translated; a device gone proves nothing (its errors are no faults) */
	const char *gone = v->machine ? dut_gone() : NULL;
	if (gone) {
		report(v->t, false, "%s's DMA not proven translated: %s", bdf, gone);
		bench_teardown(v);
		return false;
	}
	if (v->machine && strcmp(key, proven) == 0)
		return true;
	proven[0] = '\0';
	if (!v->e->caps.writes_ram) {
		if (say)
			printf("    %s's DMA not proven translated by a landing buffer: it writes no RAM\n", bdf);
		return true;
	}
	/* the landing within what the device reaches alone and the unit
	 * maps, at the target's offset in its page, clear of what is reserved */
	uint64_t top = v->bits < 64 ? 1ull << v->bits : 0;
	uint64_t below = v->direct && (!top || v->direct < top) ? v->direct : top;
	struct dmabuf target, land[4];
	size_t nland = 0;
	const char *e = NULL;
	if (!bench_buffer(v, &target, v->len, v->pg)) {
		report(v->t, false, "no memory for the buffer that proves %s's DMA translated", bdf);
		bench_teardown(v);
		return false;
	}
	size_t off = (size_t)(target.phys & (v->pg - 1));
	uint64_t iova = 0;
	for (; nland < 4 && !iova && !v->direct_why[0]; nland++) {
		if (!dmabuf_alloc_in(&land[nland], v->len, off, below, v->pg))
			break;
		uint64_t f = land[nland].phys & ~(v->pg - 1);
		bool clash = (f < target.phys + v->len && target.phys < f + v->pg) || bench_overlaps_own(v, f, v->pg) ||
			     (v->io->ops->reserved && v->io->ops->reserved(v->io, f, v->pg));
		if (!clash)
			iova = land[nland].phys;
	}
	struct dmabuf *l = iova ? &land[nland - 1] : NULL;
	if (!l) {
		/* no landing: an escape is not caught, but a write the unit
		 * refuses still is, at an IOVA as the cases place theirs */
		char none[80];
		snprintf(none, sizeof(none), "no free page below 0x%llx that the unit may map",
			 (unsigned long long)below);
		if (say)
			printf("    %s's DMA not proven translated by a landing buffer: %s; a write through the unit "
			       "instead\n",
			       bdf, v->direct_why[0] ? v->direct_why : none);
		iova = bench_window(v, v->pg, 0) + off;
	}
	uint64_t frame = iova & ~(v->pg - 1);
	e = v->io->ops->map(v->io, frame, target.phys & ~(v->pg - 1), v->pg, IOMMU_RW, v->pg);
	if (e) {
		report(v->t, false, "mapping the page that proves %s's DMA translated: %s", bdf, e);
		goto out;
	}
	const uint32_t seed_land = 0x1a4d1e57, seed_target = 0x7a59e7e1;
	if (l)
		dmabuf_pattern(l, seed_land);
	dmabuf_pattern(&target, seed_target);
	struct dma_result r;
	v->e->transfer(v->e, DMA_FROM_DEVICE, iova, v->len, &r);
	bool escaped = l && (bench_changed(l, seed_land) || dmabuf_guards_damaged(l));
	bool arrived = bench_changed(&target, seed_target);
	if (escaped)
		e = "escaped";
	else if (r.status != DMA_OK || !arrived)
		e = r.status != DMA_OK ? r.error : "the write arrived in neither buffer";
	v->io->ops->unmap(v->io, frame, v->pg);
	bench_invalidate(v, "page", frame, v->pg);
	/* the case starts from an empty domain again: no table the proof's
	 * page needed stands where the case maps a larger leaf */
	const char *again = e ? NULL : bench_translate(v), *foreign = NULL;
	char own[120] = "";
	if (escaped) {
		printf(
		    "    %s's write to IOVA 0x%llx landed at that physical address, in a buffer of ours, not at 0x%llx "
		    "where %s maps it (requester ids given the domain: %s)\n",
		    bdf, (unsigned long long)iova, (unsigned long long)target.phys, v->io->name, rids);
		report(v->t, false,
		       "DMA ESCAPED translation: %s's write to IOVA 0x%llx landed untranslated; no case DMAs "
		       "through it",
		       bdf, (unsigned long long)iova);
	} else if (e && v->machine && (gone = dut_gone()) != NULL) {
		report(v->t, false, "%s's DMA not proven translated: %s", bdf, gone);
	} else if (e && (foreign = bench_foreign_id(v->io, v->e->addr, e, own, sizeof(own))) != NULL) {
		/* every id it carries was translated, yet the unit saw another:
		 * no case can put its DMA through a domain of iommon's */
		test_skip(v->t, SKIP_REFUSED, "%s", foreign);
	} else if (e) {
		/* the unit's words on a line of their own: the verdict's detail
		 * has room for the engine's only */
		if (own[0])
			printf("    %s\n", own);
		report(v->t, false,
		       "%s's DMA not translated as mapped: its write to IOVA 0x%llx (requester ids %s): %s%s%s", bdf,
		       (unsigned long long)iova, rids, e, own[0] ? "; " : "", own);
	} else if (again) {
		report(v->t, false, "attaching %s to an empty domain after the proof: %s", bdf, again);
		e = again;
	}
	if (!e && v->machine)
		snprintf(proven, sizeof(proven), "%s", key);
	if (!e && say)
		printf("    %s's DMA translated (requester ids %s): a write to IOVA 0x%llx, %s, arrived at 0x%llx\n",
		       bdf, rids, (unsigned long long)iova,
		       l ? "the physical address of a buffer of ours" : "no landing behind it",
		       (unsigned long long)target.phys);
out:
	for (size_t i = 0; i < nland; i++)
		dmabuf_free(&land[i]);
	dmabuf_free(&target);
	if (e) {
		bench_teardown(v);
		return false;
	}
	return true;
}
