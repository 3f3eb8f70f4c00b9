/* SMBIOS (DMTF DSP0134): which machine and which firmware a run came from.
 * The firmware publishes an entry point (the 64-bit "_SM3_" one of SMBIOS
 * 3.x, the 32-bit "_SM_" one of 2.x, or both) that names a table of
 * structures; the monitor reads BIOS information (type 0), system
 * information (type 1), the baseboard (type 2) and the first processor
 * (type 4).
 *
 * Bounded like the ACPI parsers: the entry point's checksums and lengths
 * are checked before it is believed, and every structure's formatted area
 * and string set are checked against the table's declared length before
 * they are read. Each problem found has a name (enum smbios_problem) as
 * well as a line in `diag`, so a caller (and a test) can tell which check
 * fired. */
#ifndef IOMMON_SMBIOS_H
#define IOMMON_SMBIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* What can be wrong, one name per check. */
enum smbios_problem {
	SMBIOS_P_ANCHOR,	/* no "_SM3_" / "_SM_" (or no "_DMI_" inside a 2.x entry point) */
	SMBIOS_P_EP_LENGTH,	/* the entry point's length field, or fewer bytes than it says */
	SMBIOS_P_EP_CHECKSUM,	/* the entry point (or its 2.x intermediate part) does not sum to 0 */
	SMBIOS_P_VERSION,	/* a major version the entry point cannot carry, or EP revision unknown */
	SMBIOS_P_TABLE_LENGTH,	/* the table's length is 0, past SMBIOS_TABLE_MAX or past the bytes given */
	SMBIOS_P_TABLE_ADDRESS, /* the table's address may not be read (memory map) */
	SMBIOS_P_TRUNCATED,	/* a structure's header or formatted area runs past the table's length */
	SMBIOS_P_STRINGS,	/* a string set without its double NUL before the table's length */
	SMBIOS_P_STRING_INDEX,	/* a field names string N of a set holding fewer */
	SMBIOS_P_SHORT,		/* a structure shorter than its type's first version (fields absent) */
	SMBIOS_P_NO_END,	/* no end-of-table structure (type 127) within the table's length */
	SMBIOS_P_COUNT,		/* a 2.x table holds another count of structures than its entry point says */
	SMBIOS_NPROBLEMS
};

/* Strings are kept up to this many characters (DSP0134 sets no limit; 64
 * holds every name seen in practice), bytes outside printable ASCII as '?'. */
#define SMBIOS_STR_MAX 64
/* Largest table believed: more is a corrupt length field. */
#define SMBIOS_TABLE_MAX (1u << 20)

struct smbios {
	bool entry_ok; /* an entry point was believed */
	bool walked;   /* and its table was read */
	bool ep64;     /* the 64-bit (3.x) entry point */
	uint8_t major, minor, docrev;
	uint64_t entry_addr; /* where the entry point was read (smbios_read) */
	uint64_t table_addr;
	uint32_t table_len;	 /* 2.x: its length; 3.x: its maximum size */
	uint16_t nstructs_field; /* 2.x: the structure count the entry point gives */
	unsigned nstructs;	 /* structures walked, the end-of-table one included */
	char bios_vendor[SMBIOS_STR_MAX + 1], bios_version[SMBIOS_STR_MAX + 1], bios_date[SMBIOS_STR_MAX + 1];
	char manufacturer[SMBIOS_STR_MAX + 1], product[SMBIOS_STR_MAX + 1], serial[SMBIOS_STR_MAX + 1];
	char uuid[37]; /* "" when absent (all 00 or all FF) */
	char board_manufacturer[SMBIOS_STR_MAX + 1], board_product[SMBIOS_STR_MAX + 1],
	    board_serial[SMBIOS_STR_MAX + 1];
	char processor_version[SMBIOS_STR_MAX + 1];
	uint32_t problems; /* 1 << enum smbios_problem for each found */
	struct diag diag;
};

static inline bool smbios_has(const struct smbios *s, enum smbios_problem p)
{
	return (s->problems >> p) & 1;
}
const char *smbios_problem_name(enum smbios_problem p);

/* Reads an entry point from `len` bytes (its own length field must fit):
 * 0 when it is believed (version, table address and length set), -1 when
 * not. Clears *s first. */
int smbios_entry_parse(const uint8_t *buf, size_t len, struct smbios *s);
/* Walks the table the entry point described (s->table_len, s->ep64), given
 * as `len` bytes (at least s->table_len, or the walk stops short there),
 * and takes the fields. */
void smbios_walk(const uint8_t *table, size_t len, struct smbios *s);

/* The firmware's table: the 64-bit entry point `ep3` first, then the 32-bit
 * `ep2` (either NULL when absent). Every address is checked against the
 * memory map (memmap_read_refusal) before it is read. */
void smbios_read(struct smbios *s, const void *ep3, const void *ep2);

/* A string as a file or folder name: runs of characters other than
 * [A-Za-z0-9._-] become one '-', '-' and '.' are trimmed from both ends, at
 * most 32 characters are kept. False (and out "") when nothing usable is
 * left, or the string is a placeholder firmware leaves unfilled ("To Be
 * Filled By O.E.M.", "Default string", "Not Specified", ...). */
bool smbios_file_name(const char *in, char *out, size_t cap);
#define SMBIOS_NAME_MAX 32

/* The version as the records say it: "3.7", or "refused" when an entry
 * point was found but not believed, "none" when there was none. */
void smbios_version(const struct smbios *s, char *out, size_t cap);
/* The `info` lines (the `platform` record's fields are the monitor's:
 * identity_json, core/monitor/identity.h). */
void smbios_print(const struct smbios *s);

#endif
