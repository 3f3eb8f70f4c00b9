/* The composition root and the backend registry: every backend has its
 * group in the catalogue, every model kind a backend that drives it, every
 * setting and command one owner, and the held unit is opened by the
 * backend its type names (or refused with the reason). */
#include "unit.h"

#include "core/monitor/monitor.h"
#include "core/monitor/settings.h"
#include "iommu/backend.h"
#include "iommu/backends.h"
#include "iommu/found_regs.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "iommu/session.h"
#include "iommu/vtd/vtd.h"
#include "tests/catalogue/catalogue.h"
#include "tests/host/platform_host.h"

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	iommon_catalogue();
	return 0;
}

static int group_index(const struct test_group *const *cat, const char *name)
{
	for (int i = 0; cat[i]; i++)
		if (strcmp(cat[i]->name, name) == 0)
			return i;
	return -1;
}

/* A backend's group sits between the machine-wide groups and the price of
 * safety, in registry order, under the backend's name. */
static void groups_follow_the_registry(void **state)
{
	(void)state;
	const struct test_group *const *cat = iommon_catalogue();
	int dma = group_index(cat, "dma"), price = group_index(cat, "price"), last = dma;
	assert_true(dma >= 0 && price > dma);
	const struct iommu_backend *b;
	size_t n = 0;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++, n++) {
		int g = group_index(cat, b->name);
		assert_true(g > last);
		assert_true(g < price);
		last = g;
		assert_ptr_equal(iommu_backend_named(b->name), b);
		assert_non_null(b->title);
	}
#define ONE(name) +1
	assert_int_equal(n, 0 IOMMU_BACKENDS(ONE)); /* one descriptor a name of the list */
	assert_true(n >= 1);
	assert_int_equal(price, last + 1);
	assert_null(iommu_backend_named("no-such-backend"));
}

/* Every kind `model` attaches is driven by the backend that claims it. */
static void every_model_has_its_backend(void **state)
{
	(void)state;
	for (size_t k = 0; model_kind_at(k); k++) {
		const struct iommu_backend *b = iommu_backend_for_model(model_kind_at(k));
		assert_non_null(b);
		assert_null(model_attach(model_kind_at(k), "none"));
		struct dma_engine *e = NULL;
		struct iommu *io = model_unit(&e);
		assert_non_null(io);
		assert_non_null(e);
		assert_string_equal(io->backend, b->name);
		assert_true(io->model);
		/* what a neutral catalogue needs of every backend */
		assert_non_null(io->ops->iova_to_phys);
		assert_true(io->page_sizes != 0);
		for (size_t i = 0; i < io->nkinds; i++)
			assert_true(io->kinds[i].name && io->kinds[i].granularity && io->kinds[i].interface);
		model_detach();
	}
	assert_null(iommu_backend_for_model("no-such-model"));
}

/* A backend whose discovery finds units opens them; VT-d's are the DMAR's. */
static void units_by_backend(void **state)
{
	(void)state;
	assert_non_null(vtd_backend.discovery);
	assert_string_equal(vtd_backend.discovery->table, "DMAR");
	assert_non_null(vtd_backend.open);
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		if (b->discovery && b->discovery->find)
			assert_non_null(b->open);
}

/* What a discovery lists for the replay folder is what it saves: every
 * register fits a unit's slots (SMMUv3's EVENTQ_CONS, its 25th, did not
 * when they were 24), and each list names a register once. */
static void saved_registers_fit(void **state)
{
	(void)state;
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++) {
		const struct iommu_discovery *d = b->discovery;
		if (!d)
			continue;
		assert_true(d->nregs <= FOUND_REGS_MAX);
		for (size_t k = 0; k < d->nregs; k++)
			for (size_t m = k + 1; m < d->nregs; m++)
				assert_true(d->regs[k].off != d->regs[m].off);
	}
}

struct owner {
	const char *name;
	const char *keys[32];
	size_t n;
};

static void collect(struct owner *o, void (*settings)(void))
{
	settings_init();
	size_t before = 0;
	while (setting_key(before))
		before++;
	settings();
	for (size_t i = before; setting_key(i) && o->n < 32; i++)
		o->keys[o->n++] = setting_key(i);
}

/* No key is registered by two owners (setting_add would silently let the
 * second one win), and none shadows a core key. */
static void every_setting_has_one_owner(void **state)
{
	(void)state;
	static struct owner owners[40];
	size_t n = 0;
	const struct test_group *const *cat = iommon_catalogue();
	for (size_t i = 0; cat[i] && n < 40; i++)
		if (cat[i]->settings)
			owners[n].name = cat[i]->name, collect(&owners[n++], cat[i]->settings);
	for (size_t i = 0; subsystems[i] && n < 40; i++)
		if (subsystems[i]->settings)
			owners[n].name = subsystems[i]->name, collect(&owners[n++], subsystems[i]->settings);
	settings_init();
	size_t total = 0;
	for (size_t a = 0; a < n; a++) {
		total += owners[a].n;
		for (size_t k = 0; k < owners[a].n; k++) {
			for (size_t core = 0; setting_key(core); core++)
				if (strcmp(setting_key(core), owners[a].keys[k]) == 0)
					fail_msg("%s registers the core key %s", owners[a].name, owners[a].keys[k]);
			for (size_t b = a + 1; b < n; b++)
				for (size_t m = 0; m < owners[b].n; m++)
					if (strcmp(owners[a].keys[k], owners[b].keys[m]) == 0)
						fail_msg("%s and %s both register %s", owners[a].name, owners[b].name,
							 owners[a].keys[k]);
		}
	}
	assert_true(total >= 10); /* device, nvme.scratch, dma.samples, vtd.*, price.*, calgary.fence */
	/* and all of them at once, as monitor_main registers them */
	settings_init();
	size_t core = 0;
	while (setting_key(core))
		core++;
	monitor_settings(cat, subsystems);
	size_t all = 0;
	while (setting_key(all))
		all++;
	assert_int_equal(all, core + total);
}

/* Command names are unique across the subsystems. */
static void every_command_has_one_owner(void **state)
{
	(void)state;
	size_t seen = 0;
	for (size_t a = 0; subsystems[a]; a++)
		for (size_t i = 0; i < subsystems[a]->ncommands; i++, seen++)
			for (size_t b = a; subsystems[b]; b++)
				for (size_t k = b == a ? i + 1 : 0; k < subsystems[b]->ncommands; k++)
					if (strcmp(subsystems[a]->commands[i].name, subsystems[b]->commands[k].name) ==
					    0)
						fail_msg("%s: command %s twice", subsystems[b]->name,
							 subsystems[b]->commands[k].name);
	assert_true(seen >= 4); /* pci, acpi, iommu, model */
}

/* The held unit: none covering the device, a refused window (the unit
 * named before why) and a type no backend drives are each refused with
 * the reason, and nothing is opened. */
static void device_without_a_usable_unit(void **state)
{
	(void)state;
	struct pci_dev dev[2] = { 0 };
	dev[0].addr = (struct pci_addr){ 0, 1, 0, 0 };
	dev[0].iommu = -1;
	dev[1].addr = (struct pci_addr){ 0, 2, 0, 0 };
	dev[1].iommu = 0;
	memset(&machine, 0, sizeof(machine));
	machine.pci.d = dev;
	machine.pci.n = 2;
	machine.units.n = 1;
	struct iommu_unit *u = &machine.units.u[0];
	snprintf(u->name, sizeof(u->name), "unit0");
	const char *why = NULL;

	assert_null(iommu_for_device(dev[0].addr, &why));
	assert_non_null(why);
	why = NULL;
	assert_null(iommu_for_device((struct pci_addr){ 0, 9, 0, 0 }, &why)); /* not a function */
	assert_non_null(why);

	u->backend = &vtd_backend;
	snprintf(u->refused, sizeof(u->refused), "the memory map says RAM there");
	why = NULL;
	assert_null(iommu_for_device(dev[1].addr, &why));
	assert_string_equal(why, "unit0 refused: the memory map says RAM there"); /* the unit named */

	u->refused[0] = '\0';
	static const struct iommu_backend undriven = { .name = "undriven" };
	u->backend = &undriven;
	why = NULL;
	assert_null(iommu_for_device(dev[1].addr, &why));
	assert_non_null(why);
	assert_non_null(strstr(why, "no backend drives it yet"));
	assert_null(iommu_give_back_held());
	memset(&machine, 0, sizeof(machine));
}

static void run_iommu(void *arg)
{
	(void)arg;
	char *argv[] = { "iommu", NULL };
	iommu_subsystem.commands[0].fn(1, argv);
}

/* `iommu` asks each backend what finds its units: a PCI function with a
 * backend's id is listed with what drives it, and its absence says which
 * ids were looked for; model-only families say how to attach a model. */
static void iommu_command_asks_the_backends(void **state)
{
	(void)state;
	struct pci_dev d[2] = { { .addr = { 0, 0x10, 0, 0 }, .vendor = 0x1014, .device = 0x0308, .iommu = -1 },
				{ .addr = { 0, 0x20, 0, 0 }, .vendor = 0x8086, .device = 0x1234, .iommu = -1 } };
	memset(&machine, 0, sizeof(machine));
	machine.pci.d = d;
	machine.pci.n = 2;
	settings_init();
	assert_null(setting_set("wide", "on")); /* each sentence on one line, as these look for it */
	const char *out = capture_stdout(run_iommu, NULL);
	assert_non_null(strstr(out, "  CalIOC2 at 0000:10:00.0\n"));
	assert_non_null(strstr(out, "on its model only; 'model calgary' or 'model calioc2' attaches"));
	assert_null(strstr(out, "no IBM Calgary"));
	assert_non_null(strstr(out, "'model dart-u3' or 'model dart-u4'"));
	machine.pci.d = &d[1];
	machine.pci.n = 1;
	out = capture_stdout(run_iommu, NULL);
	assert_null(strstr(out, "CalIOC2 at"));
	assert_non_null(strstr(out, "no PCI function 1014:02a1 or 1014:0308;"));
	assert_non_null(strstr(out, "no RISC-V IOMMU: no PCI function 1b36:0014;"));
	/* a platform unit of the device tree (QEMU's virt,iommu-sys=on): the
	 * backend found one, so its missing PCI function is no absence */
	const struct iommu_backend *rv = iommu_backend_named("riscv");
	assert_non_null(rv);
	machine.units.u[0] =
	    (struct iommu_unit){ .name = "riscv0", .backend = rv, .base = 0x3010000, .refused = "a test's unit" };
	machine.units.n = 1;
	out = capture_stdout(run_iommu, NULL);
	assert_null(strstr(out, "no RISC-V IOMMU"));
	assert_non_null(strstr(out, "  riscv0  riscv  segment 0 base 0x3010000, 0 devices\n"));
	assert_non_null(strstr(out, "no PCI function 1014:02a1 or 1014:0308;"));
	memset(&machine, 0, sizeof(machine));
}

/* A unit found by its PCI id, as a RISC-V IOMMU's will be, is driven like
 * the ACPI-described ones: a backend of the test's own (registered
 * nowhere) finds it among the PCI functions, claims the devices on its
 * bus, and opens it when a device it covers is asked for. Nothing here
 * knows the backend but its descriptor. */
#define PCITEST_VENDOR 0x1234
#define PCITEST_DEVICE 0xbeef

static const struct iommu_backend pcitest_backend;
static struct iommu pcitest_io;
static void *pcitest_regs;

static void pcitest_find(struct iommu_units *u, const struct iommu_backend *self, void *state,
			 const struct pci_list *pci)
{
	assert_ptr_equal(self, &pcitest_backend);
	assert_null(state); /* it has no ACPI table */
	for (size_t i = 0; i < pci->n; i++) {
		const struct pci_dev *d = &pci->d[i];
		if (d->vendor != PCITEST_VENDOR || d->device != PCITEST_DEVICE)
			continue;
		struct iommu_unit unit = { .backend = &pcitest_backend,
					   .segment = d->addr.seg,
					   .base = (uintptr_t)pcitest_regs,
					   .size = 4096,
					   .src = i };
		snprintf(unit.name, sizeof(unit.name), "pcitest%zu", units_of(u, &pcitest_backend));
		pci_addr_str(d->addr, unit.source, sizeof(unit.source));
		units_add(u, &unit, NULL);
	}
}

/* the functions on its own bus, but itself */
static void pcitest_claim(struct iommu_units *u, const struct iommu_backend *self, void *state, struct pci_list *pci)
{
	(void)state;
	for (size_t k = 0; k < u->n; k++) {
		if (u->u[k].backend != self)
			continue;
		const struct pci_dev *self = &pci->d[u->u[k].src];
		for (size_t i = 0; i < pci->n; i++)
			if (pci->d[i].iommu < 0 && i != u->u[k].src && pci->d[i].addr.bus == self->addr.bus)
				units_cover(u, pci, i, k);
	}
}

static struct iommu *pcitest_open(const struct iommu_unit *u, const struct iommu_units *all, const struct pci_list *pci,
				  const char **why)
{
	(void)all, (void)pci;
	*why = NULL;
	snprintf(pcitest_io.name, sizeof(pcitest_io.name), "%s", u->name);
	pcitest_io.backend = pcitest_backend.name;
	return &pcitest_io;
}

static const struct iommu_discovery pcitest_discovery = { .find = pcitest_find, .claim = pcitest_claim };
static const struct iommu_backend pcitest_backend = {
	.name = "pcitest", .title = "a PCI-found IOMMU", .discovery = &pcitest_discovery, .open = pcitest_open
};

static void unit_found_by_pci_id_is_driven(void **state)
{
	(void)state;
	host_set_phys_bits(52);
	pcitest_regs = platform->alloc_pages(1, 0);
	assert_non_null(pcitest_regs);
	static struct pci_dev d[3] = {
		{ .addr = { 0, 0, 2, 0 }, .vendor = PCITEST_VENDOR, .device = PCITEST_DEVICE, .parent = -1 },
		{ .addr = { 0, 0, 3, 0 }, .vendor = 0x1b36, .device = 0x0010, .class = 0x010802, .parent = -1 },
		{ .addr = { 0, 1, 0, 0 }, .vendor = 0x1b36, .device = 0x0010, .class = 0x010802, .parent = -1 },
	};
	memset(&machine, 0, sizeof(machine));
	machine.pci.d = d;
	machine.pci.n = 3;
	const struct iommu_backend *list[] = { &pcitest_backend };
	units_adopt(&machine.units, list, NULL, 1, &machine.pci);
	assert_int_equal(machine.units.n, 1);
	const struct iommu_unit *u = &machine.units.u[0];
	assert_string_equal(u->name, "pcitest0");
	assert_ptr_equal(u->backend, &pcitest_backend);
	assert_string_equal(u->refused, "");
	assert_int_equal(d[1].iommu, 0);
	assert_int_equal(d[0].iommu, -1);
	assert_int_equal(d[2].iommu, -1); /* another bus */
	assert_int_equal(u->ndevices, 1);

	const char *why = "unset";
	struct iommu *io = iommu_for_device(d[1].addr, &why);
	assert_ptr_equal(io, &pcitest_io);
	assert_string_equal(io->name, "pcitest0");
	assert_int_equal(io->alias_rid, pci_rid(d[1].addr));
	why = NULL;
	assert_null(iommu_for_device(d[2].addr, &why));
	assert_string_equal(why, "no IOMMU unit covers the device under test");

	const char *out = capture_stdout(run_iommu, NULL);
	assert_non_null(strstr(out, "  pcitest0 pcitest segment 0 base 0x"));
	assert_non_null(strstr(out, "1 devices\n      0000:00:03.0 "));
	units_free(&machine.units);
	memset(&machine, 0, sizeof(machine));
	host_set_phys_bits(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(groups_follow_the_registry),
		cmocka_unit_test(every_model_has_its_backend),
		cmocka_unit_test(units_by_backend),
		cmocka_unit_test(saved_registers_fit),
		cmocka_unit_test(every_setting_has_one_owner),
		cmocka_unit_test(every_command_has_one_owner),
		cmocka_unit_test(device_without_a_usable_unit),
		cmocka_unit_test(iommu_command_asks_the_backends),
		cmocka_unit_test(unit_found_by_pci_id_is_driven),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
