#include "mcfg.h"

#include <string.h>

#include "acpi.h"
#include "bytes.h"
#include "range.h"

#define MCFG_HEADER_LEN 44 /* ACPI header + 8 reserved */
#define MCFG_ENTRY_LEN 16

int mcfg_parse(const uint8_t *buf, size_t len, struct mcfg *m)
{
	memset(m, 0, sizeof(*m));
	uint32_t tlen = acpi_table_header(buf, len, "MCFG", MCFG_HEADER_LEN, NULL, &m->diag);
	if (!tlen)
		return -1;
	if ((tlen - MCFG_HEADER_LEN) % MCFG_ENTRY_LEN)
		diag_add(&m->diag, DIAG_ERROR, "MCFG: %u bytes after the header are not whole 16-byte entries",
			 tlen - MCFG_HEADER_LEN);
	for (uint32_t off = MCFG_HEADER_LEN; tlen - off >= MCFG_ENTRY_LEN; off += MCFG_ENTRY_LEN) {
		const uint8_t *p = buf + off;
		struct mcfg_region r = {
			.base = get64(p), .segment = get16(p + 8), .start_bus = p[10], .end_bus = p[11]
		};
		/* the buses, then the ECAM window from bus 0 (where base points)
		 * to the end of the last bus: 1 MiB each */
		struct range buses, window;
		enum range_fault f = range_from_limit(r.start_bus, r.end_bus, &buses);
		const char *what = "bus range";
		if (f == RANGE_OK) {
			f = range_from_length(r.base, ((uint64_t)r.end_bus + 1) << 20, &window);
			what = "ECAM window";
		}
		const char *why = f != RANGE_OK	       ? range_fault_text(f)
				  : r.base == 0	       ? "has base 0"
				  : (r.base & 0xfffff) ? "is not 1 MiB aligned"
						       : NULL;
		if (why) {
			diag_add(&m->diag, DIAG_ERROR,
				 "MCFG: entry at 0x%x (segment %u, buses %02x-%02x, base 0x%llx): %s %s; not used", off,
				 r.segment, r.start_bus, r.end_bus, (unsigned long long)r.base, what, why);
			continue;
		}
		if (m->n == MCFG_MAX) {
			diag_add(&m->diag, DIAG_ERROR, "MCFG: more than %d entries; the rest ignored", MCFG_MAX);
			break;
		}
		m->r[m->n++] = r;
	}
	return 0;
}
