/* SMBIOS: QEMU 7.2's own tables (q35, OVMF; tests/unit/data/smbios/README
 * says how they were captured) decode to the values given on QEMU's command
 * line, through the 32-bit and the 64-bit entry point; each malformed
 * variant is refused with its own problem name; the file-name rule. */
#include "unit.h"

#include "core/base/json.h"
#include "core/base/macros.h"
#include "core/monitor/identity.h"
#include "core/tables/smbios.h"

static const char *data_dir;

struct blob {
	uint8_t b[4096];
	size_t n;
};

static void load(const char *name, struct blob *out)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/smbios/%s", data_dir, name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	out->n = fread(out->b, 1, sizeof(out->b), f);
	fclose(f);
	assert_true(out->n > 0);
}

/* The entry point's checksum byte set so that its bytes sum to 0 again
 * after an edit (`at` is the checksum's offset, n the bytes summed). */
static void fix_sum(uint8_t *p, size_t n, size_t at)
{
	uint8_t sum = 0;
	p[at] = 0;
	for (size_t i = 0; i < n; i++)
		sum = (uint8_t)(sum + p[i]);
	p[at] = (uint8_t)-sum;
}

static void expect_qemu_fields(const struct smbios *s)
{
	assert_string_equal(s->bios_vendor, "TestBIOS");
	assert_string_equal(s->bios_version, "1.2.3");
	assert_string_equal(s->bios_date, "01/02/2026");
	assert_string_equal(s->manufacturer, "Acme");
	assert_string_equal(s->product, "Rack+Server/9000");
	assert_string_equal(s->serial, "SN-0042");
	/* QEMU was given uuid=12345678-9abc-def0-1122-334455667788 */
	assert_string_equal(s->uuid, "12345678-9abc-def0-1122-334455667788");
	assert_string_equal(s->board_manufacturer, "AcmeBoards");
	assert_string_equal(s->board_product, "BB-7");
	assert_string_equal(s->board_serial, "BSN-7");
	assert_string_equal(s->processor_version, "pc-q35-7.2"); /* what QEMU 7.2 puts in type 4 */
}

static void parse21(struct smbios *s, struct blob *ep, struct blob *tab)
{
	load("qemu-q35-21-entry.bin", ep);
	load("qemu-q35-21-table.bin", tab);
	assert_int_equal(smbios_entry_parse(ep->b, ep->n, s), 0);
}

static void qemu_32bit_entry(void **state)
{
	(void)state;
	struct smbios s;
	struct blob ep, tab;
	parse21(&s, &ep, &tab);
	assert_false(s.ep64);
	assert_int_equal(s.major, 2);
	assert_int_equal(s.minor, 8);
	assert_int_equal(s.table_len, tab.n);
	assert_int_equal(s.table_addr, 0x3f51f000);
	smbios_walk(tab.b, tab.n, &s);
	assert_int_equal(s.problems, 0);
	assert_int_equal(s.diag.n, 0);
	assert_int_equal(s.nstructs, s.nstructs_field);
	expect_qemu_fields(&s);
}

static void qemu_64bit_entry(void **state)
{
	(void)state;
	struct smbios s;
	struct blob ep, tab;
	load("qemu-q35-30-entry.bin", &ep);
	load("qemu-q35-30-table.bin", &tab);
	assert_int_equal(smbios_entry_parse(ep.b, ep.n, &s), 0);
	assert_true(s.ep64);
	assert_int_equal(s.major, 3);
	assert_int_equal(s.table_addr, 0x3f51d000);
	smbios_walk(tab.b, tab.n, &s);
	assert_int_equal(s.problems, 0);
	expect_qemu_fields(&s);
}

/* The record carries every field, under the names the README gives. */
static void record_fields(void **state)
{
	(void)state;
	struct smbios s;
	struct blob ep, tab;
	parse21(&s, &ep, &tab);
	smbios_walk(tab.b, tab.n, &s);
	char buf[2048];
	struct json j;
	json_begin(&j, buf, sizeof(buf));
	identity_json(&j, &s);
	const char *line = json_end(&j);
	assert_non_null(line);
	static const char *const want[] = {
		"\"smbios\":\"2.8\"",
		"\"bios_vendor\":\"TestBIOS\"",
		"\"bios_version\":\"1.2.3\"",
		"\"bios_date\":\"01/02/2026\"",
		"\"system_manufacturer\":\"Acme\"",
		"\"system_product\":\"Rack+Server/9000\"",
		"\"system_serial\":\"SN-0042\"",
		"\"system_uuid\":\"12345678-9abc-def0-1122-334455667788\"",
		"\"board_manufacturer\":\"AcmeBoards\"",
		"\"board_product\":\"BB-7\"",
		"\"board_serial\":\"BSN-7\"",
		"\"processor_version\":\"pc-q35-7.2\"",
		"\"smbios_errors\":0",
	};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_non_null(strstr(line, want[i]));
	/* no table: only the version word */
	memset(&s, 0, sizeof(s));
	json_begin(&j, buf, sizeof(buf));
	identity_json(&j, &s);
	assert_string_equal(json_end(&j), "{\"smbios\":\"none\"}");
}

/* Before SMBIOS 2.6 the UUID is in network order throughout. */
static void uuid_order_before_26(void **state)
{
	(void)state;
	struct smbios s;
	struct blob ep, tab;
	parse21(&s, &ep, &tab);
	s.minor = 5;
	smbios_walk(tab.b, tab.n, &s);
	assert_string_equal(s.uuid, "78563412-bc9a-f0de-1122-334455667788");
}

static void entry_refused(void **state)
{
	(void)state;
	struct smbios s;
	struct blob ep, tab;
	parse21(&s, &ep, &tab);

	struct blob bad = ep;
	bad.b[1] = 'X'; /* "_XM_" */
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_ANCHOR));
	assert_false(s.entry_ok);

	bad = ep;
	bad.b[0x18]++; /* the table address, checksums left as they were */
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_EP_CHECKSUM));

	bad = ep;
	bad.b[0x18]++;
	fix_sum(bad.b, bad.b[5], 4); /* the whole is right again, its "_DMI_" part is not */
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_EP_CHECKSUM));
	fix_sum(bad.b + 0x10, 15, 5);
	fix_sum(bad.b, bad.b[5], 4);
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), 0); /* both sums right: believed */

	bad = ep;
	bad.b[0x10] = '-'; /* "-DMI_" */
	fix_sum(bad.b, bad.b[5], 4);
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_ANCHOR));

	assert_int_equal(smbios_entry_parse(ep.b, 20, &s), -1); /* fewer bytes than its length says */
	assert_true(smbios_has(&s, SMBIOS_P_EP_LENGTH));
	bad = ep;
	bad.b[5] = 0x10;
	fix_sum(bad.b, 0x10, 4);
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_EP_LENGTH));

	/* 2.1 firmware that says 0x1e: the structure is 0x1f bytes all the
	 * same, so it is believed with 31 bytes there and refused with 30
	 * (its "_DMI_" part ends at byte 0x1e: never read past the bytes) */
	bad = ep;
	bad.b[5] = 0x1e;
	fix_sum(bad.b, 0x1e, 4);
	assert_int_equal(smbios_entry_parse(bad.b, 0x1f, &s), 0);
	uint8_t *cut = malloc(0x1e);
	assert_non_null(cut);
	memcpy(cut, bad.b, 0x1e);
	assert_int_equal(smbios_entry_parse(cut, 0x1e, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_EP_LENGTH));
	free(cut);

	bad = ep;
	bad.b[6] =
	    3; /* a 3.x version through the 32-bit entry point: allowed (DSP0134 3.0 5.2.1), EDK II and U-Boot write it */
	fix_sum(bad.b, bad.b[5], 4);
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), 0);
	assert_int_equal(s.major, 3);
	bad = ep;
	bad.b[6] = 1; /* older than the 2.1 entry point itself */
	fix_sum(bad.b, bad.b[5], 4);
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_VERSION));

	bad = ep;
	bad.b[0x16] = bad.b[0x17] = 0; /* a table of no bytes */
	fix_sum(bad.b + 0x10, 15, 5);
	fix_sum(bad.b, bad.b[5], 4);
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_TABLE_LENGTH));

	struct blob ep3;
	load("qemu-q35-30-entry.bin", &ep3);
	bad = ep3;
	bad.b[7] = 2; /* a 2.x version through the 64-bit entry point */
	fix_sum(bad.b, bad.b[6], 5);
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_VERSION));
	bad = ep3;
	bad.b[12] = 0xff, bad.b[15] = 0x7f; /* a maximum size of 2 GiB */
	fix_sum(bad.b, bad.b[6], 5);
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_TABLE_LENGTH));
	bad = ep3;
	bad.b[16] ^= 0x10;
	assert_int_equal(smbios_entry_parse(bad.b, bad.n, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_EP_CHECKSUM));
	assert_int_equal(smbios_entry_parse(NULL, 0, &s), -1);
	assert_true(smbios_has(&s, SMBIOS_P_ANCHOR));
}

/* The QEMU table's layout (xxd tests/unit/data/smbios/qemu-q35-21-table.bin):
 * type 0 at 0x00 (formatted 0x18), type 1 at 0x33 (formatted 0x1b, strings
 * from 0x4e), type 2 at 0x78. */
#define T1_AT 0x33
#define T1_STRINGS 0x4e
#define T2_AT 0x78

static void walk_cut(size_t declared, size_t given, struct smbios *s, const struct blob *tab, bool ep64)
{
	memset(s, 0, sizeof(*s));
	s->entry_ok = true;
	s->ep64 = ep64;
	s->major = ep64 ? 3 : 2, s->minor = 8;
	s->table_len = (uint32_t)declared;
	s->nstructs_field = 10; /* as QEMU's entry point says */
	smbios_walk(tab->b, given, s);
}

static void table_refused(void **state)
{
	(void)state;
	struct smbios s;
	struct blob ep, tab;
	parse21(&s, &ep, &tab);
	assert_int_equal(tab.b[T1_AT], 1);
	assert_int_equal(tab.b[T2_AT], 2);

	/* a structure's formatted area past the declared length */
	walk_cut(T1_AT + 0x10, tab.n, &s, &tab, false);
	assert_true(smbios_has(&s, SMBIOS_P_TRUNCATED));
	assert_string_equal(s.bios_vendor, "TestBIOS"); /* what came before stays */
	assert_string_equal(s.product, "");
	/* ... or its string set */
	walk_cut(T1_STRINGS + 6, tab.n, &s, &tab, false);
	assert_true(smbios_has(&s, SMBIOS_P_STRINGS));
	assert_false(smbios_has(&s, SMBIOS_P_TRUNCATED));
	assert_string_equal(s.product, "");
	/* a header too short to be one */
	walk_cut(T1_AT + 2, tab.n, &s, &tab, false);
	assert_true(smbios_has(&s, SMBIOS_P_TRUNCATED));
	struct blob bad = tab;
	bad.b[T1_AT + 1] = 2; /* a formatted length below the 4-byte header */
	walk_cut(tab.n, tab.n, &s, &bad, false);
	assert_true(smbios_has(&s, SMBIOS_P_TRUNCATED));
	/* fewer bytes given than the entry point declares */
	walk_cut(tab.n, tab.n - 50, &s, &tab, false);
	assert_true(smbios_has(&s, SMBIOS_P_TABLE_LENGTH));

	/* the table ends on a structure's end without type 127: an error under
	 * 3.x, where the end structure is the only end; 2.x has its count too */
	walk_cut(T2_AT, tab.n, &s, &tab, true);
	assert_true(smbios_has(&s, SMBIOS_P_NO_END));
	assert_int_equal(s.diag.errors, 1);
	assert_string_equal(s.serial, "SN-0042");
	walk_cut(T2_AT, tab.n, &s, &tab, false);
	assert_true(smbios_has(&s, SMBIOS_P_NO_END));
	assert_true(smbios_has(&s, SMBIOS_P_COUNT));
	assert_int_equal(s.diag.errors, 0); /* warnings */

	/* a string number past the set: that field only is left empty */
	bad = tab;
	bad.b[T1_AT + 7] = 9; /* serial number: string 9 of 4 */
	walk_cut(tab.n, tab.n, &s, &bad, false);
	assert_true(smbios_has(&s, SMBIOS_P_STRING_INDEX));
	assert_string_equal(s.serial, "");
	assert_string_equal(s.product, "Rack+Server/9000");
	assert_string_equal(s.board_serial, "BSN-7");

	/* a processor structure shorter than SMBIOS 2.0's: no version read */
	size_t t4 = 0;
	for (size_t off = 0; off + 1 < tab.n && tab.b[off] != 4;) {
		size_t k = off + tab.b[off + 1];
		while (k + 1 < tab.n && !(tab.b[k] == 0 && tab.b[k + 1] == 0))
			k++;
		off = k + 2;
		t4 = off;
	}
	assert_int_equal(tab.b[t4], 4);
	bad = tab;
	bad.b[t4 + 1] = 0x10;
	walk_cut(tab.n, tab.n, &s, &bad, false);
	assert_true(smbios_has(&s, SMBIOS_P_SHORT));
	assert_string_equal(s.processor_version, "");
	/* a raw byte in a string: kept as '?' */
	bad = tab;
	bad.b[T1_STRINGS] = 0xc9; /* "Acme" -> "?cme" */
	walk_cut(tab.n, tab.n, &s, &bad, false);
	assert_string_equal(s.manufacturer, "?cme");
	assert_int_equal(s.problems, 0);
}

static void file_names(void **state)
{
	(void)state;
	char out[SMBIOS_NAME_MAX + 1];
	assert_true(smbios_file_name("Rack+Server/9000", out, sizeof(out)));
	assert_string_equal(out, "Rack-Server-9000");
	assert_true(smbios_file_name("Standard PC (Q35 + ICH9, 2009)", out, sizeof(out)));
	assert_string_equal(out, "Standard-PC-Q35-ICH9-2009");
	assert_true(smbios_file_name("..PowerEdge R750.", out, sizeof(out)));
	assert_string_equal(out, "PowerEdge-R750");
	assert_true(smbios_file_name("SN_0042-a.b", out, sizeof(out)));
	assert_string_equal(out, "SN_0042-a.b");
	assert_true(smbios_file_name("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdef", out, sizeof(out)));
	assert_int_equal(strlen(out), SMBIOS_NAME_MAX);
	assert_false(smbios_file_name("To Be Filled By O.E.M.", out, sizeof(out)));
	assert_string_equal(out, "");
	assert_false(smbios_file_name("Default String", out, sizeof(out)));
	assert_false(smbios_file_name("System Serial Number", out, sizeof(out)));
	assert_false(smbios_file_name("", out, sizeof(out)));
	assert_false(smbios_file_name(" ()/ ", out, sizeof(out)));
	assert_false(smbios_file_name("..", out, sizeof(out)));
}

int main(int argc, char **argv)
{
	(void)argc;
	/* the fixtures beside the sources: from the top of the tree, or found
	 * from the binary's place (build/host/unit/) */
	static char dir[512];
	data_dir = "tests/unit/data";
	if (access("tests/unit/data/smbios", R_OK) != 0) {
		char *slash = strrchr(argv[0], '/');
		snprintf(dir, sizeof(dir), "%.*s/../../../tests/unit/data", slash ? (int)(slash - argv[0]) : 1,
			 slash ? argv[0] : ".");
		data_dir = dir;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(qemu_32bit_entry), cmocka_unit_test(qemu_64bit_entry),
		cmocka_unit_test(record_fields),    cmocka_unit_test(uuid_order_before_26),
		cmocka_unit_test(entry_refused),    cmocka_unit_test(table_refused),
		cmocka_unit_test(file_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
