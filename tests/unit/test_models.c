/* The models `model` attaches, through the family table (iommu/models/models.c):
 * every kind's driver walks its tables where the model's DMA goes, every
 * injected fault fails the first operation it breaks with its code, and
 * the table refuses what no family offers. */
#include "unit.h"

#include "core/base/macros.h"
#include "core/base/timing.h"
#include "iommu/backend.h"
#include "iommu/models/models.h"
#include "iommu/vtd/model.h"
#include "tests/host/platform_host.h"

static bool fault_offered(const struct model_family *f, const char *name)
{
	for (const struct model_fault *x = f->faults; x->name; x++)
		if (strcmp(x->name, name) == 0)
			return true;
	return false;
}

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

/* The attached kind taken over, the engine's device in a domain. */
static struct iommu *open_kind(const char *kind, const char *fault, struct model_engine **m)
{
	assert_null(model_attach(kind, fault));
	struct dma_engine *e;
	struct iommu *io = model_unit(&e);
	assert_non_null(io);
	*m = container_of(e, struct model_engine, e);
	return io;
}

/* iova_to_phys walks the tables as the hardware does: where it says a DMA
 * lands, with which permissions, the model's DMA lands there too (a DART
 * entry has no permission bits: read and write alike). */
static void walk_matches_dma(void **state)
{
	(void)state;
	for (size_t k = 0; model_kind_at(k); k++) {
		struct model_engine *m;
		struct iommu *io = open_kind(model_kind_at(k), "none", &m);
		assert_null(io->ops->take(io));
		assert_null(io->ops->attach(io, m->e.addr, IOMMU_TRANSLATE));
		uint64_t pg = io->page_sizes & -io->page_sizes, base = 16ull << 20;
		static const unsigned perms[] = { IOMMU_RW, IOMMU_R, IOMMU_W, IOMMU_RW };
		for (unsigned i = 0; i < 4; i++) {
			const char *e = io->ops->map(io, base + i * pg, 0x40000000ull + i * pg, pg, perms[i], pg);
			/* write-only where the entries cannot say it (RISC-V: W
			 * without R is reserved): refused, and nothing mapped */
			if (e && perms[i] == IOMMU_W && io->err == IOMMU_ERR_UNSUPPORTED)
				continue;
			assert_null(e);
		}
		assert_null(io->ops->unmap(io, base + 3 * pg, pg));
		assert_null(io->ops->invalidate(io, 0, base, 4 * pg));
		const uint64_t iovas[] = { base + 0x10, base + pg + pg - 8, base + 2 * pg, base + 3 * pg,
					   base + 9 * pg };
		for (size_t i = 0; i < ARRAY_SIZE(iovas); i++) {
			uint64_t phys = 0, page = 0, rd = 0, wr = 0;
			unsigned perm = 0;
			bool walked = io->ops->iova_to_phys(io, iovas[i], &phys, &perm, &page);
			bool r = m->translate(m->model, iovas[i], false, &rd);
			bool w = m->translate(m->model, iovas[i], true, &wr);
			assert_int_equal(walked, r || w);
			if (!walked)
				continue;
			assert_int_equal(perm, (r ? IOMMU_R : 0u) | (w ? IOMMU_W : 0u));
			assert_int_equal(phys, r ? rd : wr);
			assert_int_equal(page, pg);
		}
		struct iommu_fault f[4];
		bool ovf;
		io->ops->faults(io, f, 4, &ovf); /* the refused DMAs' records */
		assert_null(io->ops->give_back(io));
		assert_false(io->ops->iova_to_phys(io, base, &(uint64_t){ 0 }, &(unsigned){ 0 }, &(uint64_t){ 0 }));
		char what[160];
		if (model_violations(what, sizeof(what)))
			fail_msg("%s: the model saw %s", model_kind_at(k), what);
		model_detach();
	}
}

/* Every fault each family offers, on every kind it applies to, and the
 * all-ones window every family takes: it attaches, and the first
 * operation it breaks (take, attach, an invalidation) fails with the code
 * the family says its driver gives. */
static void check_fault(const char *kind, const struct model_fault *x)
{
	struct model_engine *m;
	struct iommu *io = open_kind(kind, x->name, &m);
	io->err = IOMMU_OK;
	const char *why = io->ops->take(io);
	if (io->err != x->at_take)
		fail_msg("%s with %s: take-over code %d, the family says %d", kind, x->name, io->err, x->at_take);
	if (!why) {
		why = io->ops->attach(io, m->e.addr, IOMMU_TRANSLATE);
		if (!why)
			why = io->ops->invalidate(io, 0, 0, 0);
		if (io->err != x->after)
			fail_msg("%s with %s: code %d after take-over, the family says %d", kind, x->name, io->err,
				 x->after);
	}
	assert_int_equal(why != NULL, x->at_take || x->after);
	model_detach();
}

static void faults_give_their_codes(void **state)
{
	(void)state;
	static const struct model_fault all_ones = { "all-ones", "", NULL, NULL, IOMMU_ERR_UNUSABLE, IOMMU_OK };
	size_t checked = 0;
	const struct model_family *f;
	for (size_t i = 0; (f = iommu_registry_model(i)) != NULL; i++)
		for (const char *const *kind = f->kinds; *kind; kind++) {
			check_fault(*kind, &all_ones);
			checked++;
			for (const struct model_fault *x = f->faults; x->name; x++)
				if (!x->only || strcmp(x->only, *kind) == 0)
					check_fault(*kind, x), checked++;
		}
	assert_true(checked >= 10);
}

/* The family of `kind`, and one that is not. */
static const struct model_family *family_of(const char *kind, const struct model_family **other)
{
	const struct model_family *f, *mine = NULL;
	*other = NULL;
	for (size_t i = 0; (f = iommu_registry_model(i)) != NULL; i++) {
		bool has = false;
		for (const char *const *k = f->kinds; *k; k++)
			has |= strcmp(*k, kind) == 0;
		if (has)
			mine = f;
		else
			*other = f;
	}
	return mine;
}

/* The table: the kinds it lists (every family's), and what it refuses. */
static void table_lookups(void **state)
{
	(void)state;
	size_t n = 0, listed = 0;
	while (model_kind_at(n))
		n++;
	const struct model_family *f;
	for (size_t i = 0; (f = iommu_registry_model(i)) != NULL; i++)
		for (const char *const *k = f->kinds; *k; k++)
			listed++;
	assert_int_equal(n, listed);
	assert_true(n >= 2);
	assert_non_null(model_attach(model_kind_at(0), "no-such-fault"));
	assert_non_null(model_attach("no-such-model", "none"));
	assert_null(model_attached_kind());
	/* a fault only one kind takes is refused on its family's other kinds */
	for (size_t i = 0; (f = iommu_registry_model(i)) != NULL; i++)
		for (const struct model_fault *x = f->faults; x->name; x++)
			for (const char *const *k = f->kinds; x->only && *k; k++)
				if (strcmp(*k, x->only) != 0)
					assert_non_null(model_attach(*k, x->name));
	const char *last = model_kind_at(n - 1);
	const struct model_family *other, *mine = family_of(last, &other);
	assert_non_null(mine);
	assert_null(model_attach(last, "none"));
	assert_string_equal(model_attached_kind(), last);
	assert_non_null(model_attached_state(mine, false));
	assert_non_null(model_attached_state(mine, true));
	if (other) {
		assert_null(model_attached_state(other, false));
		/* another family's own fault does not apply to this kind */
		for (const struct model_fault *x = other->faults; x->name; x++)
			if (!fault_offered(mine, x->name))
				assert_non_null(model_attach(last, x->name));
	}
	assert_null(model_attach("none", "none")); /* detaches */
	assert_null(model_attached_kind());
	assert_null(model_attached_state(mine, false));
}

/* ---- the engine's own MSI through the model's interrupt path --------------- */

/* Raises the engine's MSI `msg` once (on the host the handler runs before
 * msi_raise returns). */
static void raise_once(struct model_engine *m, const struct msi_message *msg)
{
	uint64_t t0 = 0;
	assert_null(m->e.msi_program(&m->e, msg));
	assert_null(m->e.msi_raise(&m->e, &t0));
}

/* The faults recorded since the last read: exactly one, of `kind`, from
 * the engine. */
static void one_fault(struct iommu *io, const struct model_engine *m, enum iommu_fault_kind kind)
{
	struct iommu_fault f[4];
	bool ovf = false;
	size_t n = io->ops->faults(io, f, 4, &ovf);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].kind, kind);
	assert_true(f[0].sid_known);
	assert_int_equal(f[0].sid, pci_rid(m->e.addr));
}

/* Every family whose engine sends its own MSI (VT-d, AMD-Vi): unremapped
 * it reaches the handler of its vector (the host platform's irq_send, as
 * a local APIC would); remapped it reaches the entry's vector, not the one
 * the device was told; an entry not present drops it with the model's
 * record; a changed entry is used only after its invalidation. */
static void engine_msi_through_the_model(void **state)
{
	(void)state;
	size_t families = 0;
	for (size_t k = 0; model_kind_at(k); k++) {
		struct model_engine *m;
		struct iommu *io = open_kind(model_kind_at(k), "none", &m);
		/* remapping by table entry to a vector; RISC-V's MSI is a memory
		 * write through its MSI page table (test_riscv) */
		if (!m->e.msi_raise || !io->ops->ir_enable) {
			model_detach();
			continue;
		}
		families++;
		struct msi_catch real, decoy;
		assert_null(msi_catch_install(&real));
		assert_null(msi_catch_install(&decoy));
		assert_null(io->ops->take(io));
		struct msi_message direct = msi_catch_message(&real);
		raise_once(m, &direct);
		assert_int_equal(real.count, 1);
		uint16_t sid = pci_rid(m->e.addr);
		unsigned index =
		    (unsigned)decoy.vector; /* the decoy's vector: the data an untranslated message carries */
		assert_null(io->ops->ir_enable(io, true, 256));
		const struct iommu_irte to_real = { true, (uint8_t)real.vector, real.apic_id, sid, true };
		assert_null(io->ops->ir_set(io, sid, index, &to_real));
		assert_null(io->ops->ir_invalidate(io, 0, sid, -1));
		struct msi_message msg;
		assert_null(io->ops->ir_msi(io, sid, index, &msg));
		raise_once(m, &msg);
		assert_int_equal(real.count, 2);
		assert_int_equal(decoy.count, 0);
		/* repointed without invalidation: the cached entry still serves */
		const struct iommu_irte to_decoy = { true, (uint8_t)decoy.vector, decoy.apic_id, sid, true };
		assert_null(io->ops->ir_set(io, sid, index, &to_decoy));
		raise_once(m, &msg);
		assert_int_equal(real.count, 3);
		assert_null(io->ops->ir_invalidate(io, 0, sid, -1));
		raise_once(m, &msg);
		assert_int_equal(decoy.count, 1);
		/* not present: dropped, recorded */
		const struct iommu_irte absent = { .source_id = sid, .sid_check = true };
		assert_null(io->ops->ir_set(io, sid, index, &absent));
		assert_null(io->ops->ir_invalidate(io, 0, sid, -1));
		unsigned blocked = m->msi_blocked;
		raise_once(m, &msg);
		assert_int_equal(real.count + decoy.count, 4);
		assert_int_equal(m->msi_blocked, blocked + 1);
		one_fault(io, m, IOMMU_FAULT_IR_NOT_PRESENT);
		/* off and as found: the message as sent again */
		m->e.msi_off(&m->e);
		uint64_t t0;
		assert_non_null(m->e.msi_raise(&m->e, &t0)); /* not programmed: nothing sent */
		assert_null(io->ops->ir_enable(io, false, 0));
		assert_null(io->ops->give_back(io));
		msi_catch_remove(&real);
		msi_catch_remove(&decoy);
		char what[160];
		if (model_violations(what, sizeof(what)))
			fail_msg("%s: the model saw %s", model_kind_at(k), what);
		model_detach();
	}
	assert_int_equal(families, 4); /* vtd, vtd-sm (its legacy mode), vtd-pmr and amdvi */
}

/* The VT-d model: compatibility format blocked with reason 25h once CFI is
 * off (and passed with it on); with the unit ignoring CFI (QEMU 7.2) the
 * driver refuses to block it by name and the message passes; the queue
 * refused meets remapping's enable, which needs it; the fault event
 * interrupt sent to the driver's handler. */
static void vtd_compat_and_queue(void **state)
{
	(void)state;
	static const char *const faults[] = { "none", "cfi-ignored" };
	for (size_t i = 0; i < 2; i++) {
		struct model_engine *m;
		struct iommu *io = open_kind("vtd", faults[i], &m);
		struct msi_catch c;
		assert_null(msi_catch_install(&c));
		assert_null(io->ops->take(io));
		assert_null(io->ops->ir_enable(io, true, 16));
		struct msi_message compat = msi_catch_message(&c);
		raise_once(m, &compat); /* CFI set by ir_enable: passes */
		assert_int_equal(c.count, 1);
		const char *e = io->ops->ir_compat(io, false);
		if (i == 1) {
			assert_non_null(e);
			assert_int_equal(io->err, IOMMU_ERR_UNSUPPORTED);
			raise_once(m, &compat);
			assert_int_equal(c.count, 2);
		} else {
			assert_null(e);
			raise_once(m, &compat);
			assert_int_equal(c.count, 1);
			struct iommu_fault f[4];
			bool ovf;
			assert_int_equal(io->ops->faults(io, f, 4, &ovf), 1);
			assert_int_equal(f[0].kind, IOMMU_FAULT_IR_COMPAT);
			assert_int_equal(f[0].reason, 0x25);
			assert_int_equal(f[0].addr, 0); /* no index in a compatibility-format request */
			assert_true(model_vtd()->fault_events >= 1);
		}
		assert_null(io->ops->ir_enable(io, false, 0));
		assert_null(io->ops->give_back(io));
		msi_catch_remove(&c);
		model_detach();
	}
	struct model_engine *m;
	struct iommu *io = open_kind("vtd", "queue-refused", &m);
	assert_null(io->ops->take(io));
	assert_non_null(io->ops->ir_enable(io, true, 16));
	assert_int_equal(io->err, IOMMU_ERR_ABANDONED); /* each retry refused too */
	io->ops->give_back(io);
	model_detach();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk_matches_dma),	cmocka_unit_test(faults_give_their_codes),
		cmocka_unit_test(table_lookups),	cmocka_unit_test(engine_msi_through_the_model),
		cmocka_unit_test(vtd_compat_and_queue),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
