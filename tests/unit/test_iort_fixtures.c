/* The IORT and GTDT parsers against tables iasl compiled (acpica-tools
 * 20200925; tests/unit/data/regen.sh): every field the parsers decode must
 * agree, offset, name and value, with iasl's own decode of the same bytes
 * (the .dsl beside each .bin), in the style of tools/acpi-fixtures.sh; and
 * each table draws exactly the problems it should. iasl's templates
 * (`iasl -T IORT`, `iasl -T GTDT`) are among them as they come: their
 * zero addresses and dangling references are what the checks are for. */
#include "unit.h"

#include "core/tables/gtdt.h"
#include "core/tables/iort.h"
#include "core/tables/mcfg.h"

#define MAX_FIELDS 512

struct field {
	unsigned off;
	char name[48];
	char value[48]; /* hex digits, or a quoted string */
};

static struct field ours[MAX_FIELDS], ref[MAX_FIELDS];
static size_t nours, nref;

static void emit_str(unsigned off, const char *name, const char *value)
{
	assert_true(nours < MAX_FIELDS);
	struct field *f = &ours[nours++];
	f->off = off;
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->value, sizeof(f->value), "%s", value);
}
static void emit(unsigned off, const char *name, unsigned long long v)
{
	char hex[24];
	snprintf(hex, sizeof(hex), "%llX", v);
	emit_str(off, name, hex);
}

static void iort_fields(const struct iort *t)
{
	emit(8, "Revision", t->revision);
	emit(36, "Node Count", t->node_count);
	emit(40, "Node Offset", t->node_array);
	for (size_t i = 0; i < t->n; i++) {
		const struct iort_node *n = &t->node[i];
		unsigned o = n->offset;
		emit(o, "Type", n->type), emit(o + 1, "Length", n->length), emit(o + 3, "Revision", n->revision);
		emit(o + 8, "Mapping Count", n->nmaps_field), emit(o + 12, "Mapping Offset", n->maps_ref);
		switch (n->type) {
		case IORT_ITS_GROUP:
			emit(o + 16, "ItsCount", n->its_count);
			break;
		case IORT_NAMED_COMPONENT: {
			emit(o + 16, "Node Flags", n->flags);
			emit(o + 20, "Cache Coherency", n->cca), emit(o + 24, "Hints (decoded below)", n->ah);
			emit(o + 27, "Memory Flags (decoded below)", n->maf),
			    emit(o + 28, "Memory Size Limit", n->addr_limit);
			char q[70];
			snprintf(q, sizeof(q), "\"%s\"", n->name);
			emit_str(o + 29, "Device Name", q);
			break;
		}
		case IORT_ROOT_COMPLEX:
			emit(o + 16, "Cache Coherency", n->cca), emit(o + 20, "Hints (decoded below)", n->ah);
			emit(o + 23, "Memory Flags (decoded below)", n->maf);
			emit(o + 24, "ATS Attribute", n->ats), emit(o + 28, "PCI Segment Number", n->segment);
			emit(o + 32, "Memory Size Limit", n->addr_limit);
			break;
		case IORT_SMMU_V1V2:
			emit(o + 16, "Base Address", n->base), emit(o + 24, "Span", n->span);
			emit(o + 32, "Model", n->model), emit(o + 36, "Flags (decoded below)", n->flags);
			emit(o + 44, "Context Interrupt Count", n->ctx_irqs),
			    emit(o + 52, "PMU Interrupt Count", n->pmu_irqs);
			break;
		case IORT_SMMU_V3: {
			const struct iort_smmu *s = &t->smmu[n->smmu];
			emit(o + 16, "Base Address", s->base), emit(o + 24, "Flags (decoded below)", s->flags);
			emit(o + 32, "VATOS Address", s->vatos), emit(o + 40, "Model", s->model);
			emit(o + 44, "Event GSIV", s->gsiv_event), emit(o + 48, "PRI GSIV", s->gsiv_pri);
			emit(o + 52, "GERR GSIV", s->gsiv_gerr), emit(o + 56, "Sync GSIV", s->gsiv_sync);
			emit(o + 60, "Proximity Domain", s->proximity);
			emit(o + 64, "Device ID Mapping Index", s->deviceid_index);
			break;
		}
		case IORT_PMCG:
			emit(o + 16, "Page 0 Base Address", n->base), emit(o + 24, "Overflow Interrupt GSIV", n->gsiv);
			emit(o + 28, "Node Reference", n->node_ref), emit(o + 32, "Page 1 Base Address", n->page1);
			break;
		}
		for (size_t k = 0; k < n->nmaps; k++) {
			const struct iort_map *m = &t->map[n->first_map + k];
			emit(m->offset, "Input base", m->input_base), emit(m->offset + 4, "ID Count", m->num_ids);
			emit(m->offset + 8, "Output Base", m->output_base);
			emit(m->offset + 12, "Output Reference", m->output_ref);
			emit(m->offset + 16, "Flags (decoded below)", m->flags);
		}
	}
}

static const char *const iort_names[] = { "Revision",
					  "Node Count",
					  "Node Offset",
					  "Type",
					  "Length",
					  "Mapping Count",
					  "Mapping Offset",
					  "ItsCount",
					  "Node Flags",
					  "Cache Coherency",
					  "Hints (decoded below)",
					  "Memory Flags (decoded below)",
					  "Memory Size Limit",
					  "Device Name",
					  "ATS Attribute",
					  "PCI Segment Number",
					  "Base Address",
					  "Span",
					  "Model",
					  "Flags (decoded below)",
					  "Context Interrupt Count",
					  "PMU Interrupt Count",
					  "VATOS Address",
					  "Event GSIV",
					  "PRI GSIV",
					  "GERR GSIV",
					  "Sync GSIV",
					  "Proximity Domain",
					  "Device ID Mapping Index",
					  "Page 0 Base Address",
					  "Overflow Interrupt GSIV",
					  "Node Reference",
					  "Page 1 Base Address",
					  "Input base",
					  "ID Count",
					  "Output Base",
					  "Output Reference",
					  NULL };

static void gtdt_fields(const struct gtdt *g)
{
	static const char *const irq[] = { "Secure EL1 Interrupt", "Non-Secure EL1 Interrupt",
					   "Virtual Timer Interrupt", "Non-Secure EL2 Interrupt" };
	static const char *const flags[] = { "EL1 Flags (decoded below)", "NEL1 Flags (decoded below)",
					     "VT Flags (decoded below)", "NEL2 Flags (decoded below)" };
	emit(8, "Revision", g->revision);
	emit(36, "Counter Block Address", g->cnt_control_base);
	for (unsigned i = 0; i < 4; i++)
		emit(48 + 8 * i, irq[i], g->timer[i].gsiv), emit(52 + 8 * i, flags[i], g->timer[i].flags);
	emit(80, "Counter Read Block Address", g->cnt_read_base);
	emit(88, "Platform Timer Count", g->platform_count), emit(92, "Platform Timer Offset", g->platform_offset);
	if (g->have_virtual_el2) {
		emit(96, "Virtual EL2 Timer GSIV", g->timer[GTDT_VIRTUAL_EL2].gsiv);
		emit(100, "Virtual EL2 Timer Flags", g->timer[GTDT_VIRTUAL_EL2].flags);
	}
	for (size_t i = 0; i < g->nplatform; i++) {
		const struct gtdt_platform *p = &g->platform[i];
		unsigned o = p->offset;
		emit(o, "Subtable Type", p->type), emit(o + 1, "Length", p->length);
		if (p->type == 1) {
			emit(o + 4, "Refresh Frame Address", p->base),
			    emit(o + 12, "Control Frame Address", p->control);
			emit(o + 20, "Timer Interrupt", p->irq.gsiv),
			    emit(o + 24, "Timer Flags (decoded below)", p->irq.flags);
			continue;
		}
		emit(o + 4, "Block Address", p->base), emit(o + 12, "Timer Count", p->nframes);
		emit(o + 16, "Timer Offset", p->frames_at);
		for (size_t k = 0; k < p->nframes; k++) {
			const struct gtdt_frame *f = &p->frame[k];
			unsigned fo = o + p->frames_at + 40 * (unsigned)k;
			emit(fo, "Frame Number", f->number), emit(fo + 4, "Base Address", f->cntbase);
			emit(fo + 12, "EL0 Base Address", f->cntel0base);
			emit(fo + 20, "Timer Interrupt", f->physical.gsiv);
			emit(fo + 24, "Timer Flags (decoded below)", f->physical.flags);
			emit(fo + 28, "Virtual Timer Interrupt", f->virtual.gsiv);
			emit(fo + 32, "Virtual Timer Flags (decoded below)", f->virtual.flags);
			emit(fo + 36, "Common Flags (decoded below)", f->common_flags);
		}
	}
}

static const char *const gtdt_names[] = { "Revision",
					  "Counter Block Address",
					  "Secure EL1 Interrupt",
					  "EL1 Flags (decoded below)",
					  "Non-Secure EL1 Interrupt",
					  "NEL1 Flags (decoded below)",
					  "Virtual Timer Interrupt",
					  "VT Flags (decoded below)",
					  "Non-Secure EL2 Interrupt",
					  "NEL2 Flags (decoded below)",
					  "Counter Read Block Address",
					  "Platform Timer Count",
					  "Platform Timer Offset",
					  "Virtual EL2 Timer GSIV",
					  "Virtual EL2 Timer Flags",
					  "Subtable Type",
					  "Length",
					  "Refresh Frame Address",
					  "Control Frame Address",
					  "Timer Interrupt",
					  "Timer Flags (decoded below)",
					  "Block Address",
					  "Timer Count",
					  "Timer Offset",
					  "Frame Number",
					  "Base Address",
					  "EL0 Base Address",
					  "Virtual Timer Flags (decoded below)",
					  "Common Flags (decoded below)",
					  NULL };

static bool wanted(const char *name, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(name, *names) == 0)
			return true;
	return false;
}

/* iasl's decode lines: "[OFFh DEC LEN]   Name : Value ...", the value's
 * first word (hex digits) or its quoted string. Only fields named in
 * `names` are kept: the ones the parser must decode. */
static void read_dsl(const char *path, const char *const *names)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[256];
	nref = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned off;
		char *close = strchr(line, ']'), *sep = strstr(line, " : ");
		if (line[0] != '[' || !close || !sep || sscanf(line + 1, "%xh", &off) != 1)
			continue;
		char *name = close + 1;
		while (*name == ' ')
			name++;
		*sep = '\0';
		char *value = sep + 3;
		value[strcspn(value, value[0] == '"' ? "\n" : " \n")] = '\0';
		if (value[0] == '"')
			value[strcspn(value, "\t")] = '\0';
		if (!wanted(name, names))
			continue;
		assert_true(nref < MAX_FIELDS);
		struct field *r = &ref[nref++];
		r->off = off;
		snprintf(r->name, sizeof(r->name), "%s", name);
		if (value[0] == '"') {
			value[strlen(value)] = '\0';
			char *end = strrchr(value + 1, '"');
			if (end)
				end[1] = '\0';
			snprintf(r->value, sizeof(r->value), "%s", value);
		} else {
			snprintf(r->value, sizeof(r->value), "%llX", strtoull(value, NULL, 16));
		}
	}
	fclose(f);
}

static int by_place(const void *a, const void *b)
{
	const struct field *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Both lists sorted by (offset, name) must be the same, value for value. */
static void compare(const char *what)
{
	qsort(ours, nours, sizeof(ours[0]), by_place);
	qsort(ref, nref, sizeof(ref[0]), by_place);
	for (size_t i = 0; i < nours && i < nref; i++)
		if (ours[i].off != ref[i].off || strcmp(ours[i].name, ref[i].name) ||
		    strcmp(ours[i].value, ref[i].value))
			fail_msg("%s: at 0x%x %s = %s, iasl: at 0x%x %s = %s", what, ours[i].off, ours[i].name,
				 ours[i].value, ref[i].off, ref[i].name, ref[i].value);
	assert_int_equal(nours, nref);
	assert_true(nref > 10);
}

static const char *data_dir;

static uint8_t *load(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", data_dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("no fixture %s (run from the top of the tree)", path);
	static uint8_t buf[8192];
	*len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return buf;
}

static void iort_fixture(const char *stem, uint64_t problems)
{
	char name[128];
	size_t len;
	snprintf(name, sizeof(name), "iort/%s.bin", stem);
	uint8_t *buf = load(name, &len);
	struct iort t;
	assert_int_equal(iort_parse(buf, len, &t), 0);
	if (t.problems != problems) {
		for (size_t i = 0; i < t.diag.n; i++)
			print_message("  %s\n", t.diag.msg[i].text);
		fail_msg("iort/%s: problems 0x%llx, expected 0x%llx", stem, (unsigned long long)t.problems,
			 (unsigned long long)problems);
	}
	nours = 0;
	iort_fields(&t);
	iort_free(&t);
	snprintf(name, sizeof(name), "%s/iort/%s.dsl", data_dir, stem);
	read_dsl(name, iort_names);
	compare(name);
}

/* `stop`: where the parser rightly stopped reading (0: it read it all);
 * iasl's decode past it is not compared. */
static void gtdt_fixture(const char *stem, unsigned errors, unsigned warnings, unsigned stop)
{
	char name[128];
	size_t len;
	snprintf(name, sizeof(name), "gtdt/%s.bin", stem);
	uint8_t *buf = load(name, &len);
	struct gtdt g;
	assert_int_equal(gtdt_parse(buf, len, &g), 0);
	for (size_t i = 0; i < g.diag.n && (g.diag.errors != errors || g.diag.warnings != warnings); i++)
		print_message("  %s\n", g.diag.msg[i].text);
	assert_int_equal(g.diag.errors, errors);
	assert_int_equal(g.diag.warnings, warnings);
	nours = 0;
	gtdt_fields(&g);
	snprintf(name, sizeof(name), "%s/gtdt/%s.dsl", data_dir, stem);
	read_dsl(name, gtdt_names);
	while (stop && nref && ref[nref - 1].off >= stop)
		nref--;
	compare(name);
}

#define P(x) (1ull << IORT_P_##x)

static void iort_qemu_virt(void **state)
{
	(void)state;
	iort_fixture("qemu-virt", 0);
}

static void iort_multi(void **state)
{
	(void)state;
	iort_fixture("multi", 0);
}

/* The table qemu-system-aarch64 7.2 really publishes (capture-qemu.sh):
 * the root complex sends bus 0 to the SMMUv3 and the rest to the ITS, its
 * "ID Count" written as the count (0x100), so the two ranges share RID
 * 0x100: a warning, and the table is used. */
static void iort_qemu_real(void **state)
{
	(void)state;
	iort_fixture("qemu-virt-real", P(MAP_OFF_BY_ONE));
	size_t len, smmu;
	uint32_t sid;
	uint8_t *buf = load("iort/qemu-virt-real.bin", &len);
	struct iort t;
	iort_parse(buf, len, &t);
	assert_int_equal(t.diag.errors, 0);
	assert_true(iort_map_rid(&t, 0, 0x0018, &smmu, &sid)); /* 00:03.0 */
	assert_int_equal(sid, 0x18);
	assert_false(iort_map_rid(&t, 0, 0x0200, &smmu, &sid)); /* bus 2: the ITS only */
	assert_int_equal(t.smmu[0].gsiv_gerr, 109);
	iort_free(&t);
}

/* iasl's template: every base 0, every output reference 0 (no node
 * there), the SMMUv1/v2 and SMMUv3 both at 0 (so overlapping). */
static void iort_template(void **state)
{
	(void)state;
	iort_fixture("template", P(MAP_TARGET) | P(SMMU_BASE_ZERO) | P(FIELD));
}

static void gtdt_qemu_virt(void **state)
{
	(void)state;
	gtdt_fixture("qemu-virt", 0, 0, 0);
}

static void gtdt_qemu_real(void **state)
{
	(void)state;
	gtdt_fixture("qemu-virt-real", 0, 0, 0);
}

static void gtdt_platform(void **state)
{
	(void)state;
	gtdt_fixture("platform", 0, 0, 0);
}

/* iasl 20200925's template says its platform timers start at 0x60, where
 * its own revision 3 virtual EL2 fields are (they really start at 0x68);
 * its virtual EL2 timer is INTID 67, an SPI, with reserved bit 5 set in
 * its flags. */
static void gtdt_template(void **state)
{
	(void)state;
	gtdt_fixture("template", 1, 2, 0x68);
}

/* MCFG is the same table on Arm: QEMU virt's (captured) gives one ECAM
 * region, segment 0, buses 0-255, above 4 GiB, as iasl reads it too. */
static void mcfg_qemu_real(void **state)
{
	(void)state;
	size_t len;
	uint8_t *buf = load("mcfg/qemu-virt-real.bin", &len);
	struct mcfg m;
	assert_int_equal(mcfg_parse(buf, len, &m), 0);
	assert_int_equal(m.n, 1);
	nours = 0;
	emit(44, "Base Address", m.r[0].base), emit(52, "Segment Group Number", m.r[0].segment);
	emit(54, "Start Bus Number", m.r[0].start_bus), emit(55, "End Bus Number", m.r[0].end_bus);
	static const char *const names[] = { "Base Address", "Segment Group Number", "Start Bus Number",
					     "End Bus Number", NULL };
	char path[512];
	snprintf(path, sizeof(path), "%s/mcfg/qemu-virt-real.dsl", data_dir);
	read_dsl(path, names);
	qsort(ours, nours, sizeof(ours[0]), by_place);
	assert_int_equal(nref, 4);
	for (size_t i = 0; i < nref; i++)
		assert_string_equal(ours[i].value, ref[i].value);
	assert_int_equal(m.r[0].base, 0x4010000000ull);
}

int main(int argc, char **argv)
{
	(void)argc;
	/* the fixtures beside the sources: from the top of the tree, or found
	 * from the binary's place (build/host/unit/) */
	static char dir[512];
	data_dir = "tests/unit/data";
	if (access("tests/unit/data/iort", R_OK) != 0) {
		snprintf(dir, sizeof(dir), "%s/../../../tests/unit/data", argv[0][0] ? argv[0] : ".");
		char *slash = strrchr(argv[0], '/');
		if (slash)
			snprintf(dir, sizeof(dir), "%.*s/../../../tests/unit/data", (int)(slash - argv[0]), argv[0]);
		data_dir = dir;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(iort_qemu_virt), cmocka_unit_test(iort_multi),	    cmocka_unit_test(iort_qemu_real),
		cmocka_unit_test(iort_template),  cmocka_unit_test(gtdt_qemu_virt), cmocka_unit_test(gtdt_platform),
		cmocka_unit_test(gtdt_qemu_real), cmocka_unit_test(mcfg_qemu_real), cmocka_unit_test(gtdt_template),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
