/* The composition root and the backend registry: every backend has its
 * group in the catalogue, every model kind a backend that drives it, every
 * setting and command one owner, and the held unit is opened by the
 * backend its type names (or refused with the reason). */
#include "unit.h"

#include "core/monitor/monitor.h"
#include "core/monitor/settings.h"
#include "iommu/backend.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "iommu/session.h"
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
	size_t entries = 0;
	while (iommu_registry[entries])
		entries++;
	assert_int_equal(n, entries); /* every entry has a backend */
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

/* Units by type: VT-d's DMAR units have a backend that opens them. */
static void units_by_type(void **state)
{
	(void)state;
	const struct iommu_backend *b = iommu_backend_for_type(IOMMU_VTD);
	assert_non_null(b);
	assert_non_null(b->open);
	assert_true(b->unit_types & 1u << IOMMU_VTD);
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		if (b->unit_types)
			assert_non_null(b->open); /* a backend that claims ACPI units opens them */
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

/* The held unit: none covering the device, a refused window and a type no
 * backend drives are each refused with the reason, and nothing is opened. */
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

	u->type = IOMMU_VTD;
	snprintf(u->refused, sizeof(u->refused), "the memory map says RAM there");
	why = NULL;
	assert_null(iommu_for_device(dev[1].addr, &why));
	assert_ptr_equal(why, u->refused);

	u->refused[0] = '\0';
	u->type = IOMMU_AMDVI;
	why = NULL;
	bool driven = iommu_backend_for_type(IOMMU_AMDVI) != NULL;
	struct iommu *io = iommu_for_device(dev[1].addr, &why);
	if (!driven) {
		assert_null(io);
		assert_non_null(why);
	}
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
	memset(&machine, 0, sizeof(machine));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(groups_follow_the_registry),
		cmocka_unit_test(every_model_has_its_backend),
		cmocka_unit_test(units_by_type),
		cmocka_unit_test(every_setting_has_one_owner),
		cmocka_unit_test(every_command_has_one_owner),
		cmocka_unit_test(device_without_a_usable_unit),
		cmocka_unit_test(iommu_command_asks_the_backends),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
