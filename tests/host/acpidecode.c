/* acpidecode: the monitor's DMAR and IVRS parsers on a table file.
 *
 *   acpidecode FILE            the decode people read (as `acpi dmar`)
 *   acpidecode --fields FILE   one "OFFSET|Name|Value" line per decoded
 *                              field, named and formatted as iasl prints
 *                              them, to compare with a reference decode
 *   acpidecode --diag FILE     the parser's diagnostics only
 * Exit status 0 when the parser reported no error, 1 otherwise. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tables/dmar.h"
#include "core/tables/ivrs.h"

static void field(unsigned off, const char *name, unsigned width, unsigned long long v)
{
	printf("%04X|%s|%0*llX\n", off, name, (int)width * 2, v);
}

static void dmar_fields(const struct dmar *d)
{
	field(0x24, "Host Address Width", 1, d->host_addr_width);
	field(0x25, "Flags", 1, d->flags);
	for (size_t i = 0; i < d->n; i++) {
		const struct dmar_struct *s = &d->s[i];
		unsigned o = s->offset;
		field(o, "Subtable Type", 2, s->type);
		field(o + 2, "Length", 2, s->length);
		switch (s->type) {
		case DMAR_DRHD:
			field(o + 4, "Flags", 1, s->flags);
			field(o + 6, "PCI Segment Number", 2, s->segment);
			field(o + 8, "Register Base Address", 8, s->base);
			break;
		case DMAR_RMRR:
			field(o + 6, "PCI Segment Number", 2, s->segment);
			field(o + 8, "Base Address", 8, s->base);
			field(o + 16, "End Address (limit)", 8, s->limit);
			break;
		case DMAR_ATSR:
		case DMAR_SATC:
			field(o + 4, "Flags", 1, s->flags);
			field(o + 6, "PCI Segment Number", 2, s->segment);
			break;
		case DMAR_RHSA:
			field(o + 8, "Base Address", 8, s->base);
			field(o + 16, "Proximity Domain", 4, s->proximity);
			break;
		case DMAR_ANDD:
			field(o + 7, "Device Number", 1, s->device_number);
			printf("%04X|Device Name|\"%s\"\n", o + 8, s->name);
			break;
		}
		for (size_t k = 0; k < s->nscopes; k++) {
			const struct dmar_scope *sc = &d->scopes[s->first_scope + k];
			field(sc->offset, "Device Scope Type", 1, sc->type);
			field(sc->offset + 1, "Entry Length", 1, sc->length);
			field(sc->offset + 4, "Enumeration ID", 1, sc->enum_id);
			field(sc->offset + 5, "PCI Bus Number", 1, sc->start_bus);
			for (unsigned h = 0; h < sc->npath; h++)
				printf("%04X|PCI Path|%02X,%02X\n", sc->offset + 6 + 2 * h, sc->path[h].dev,
				       sc->path[h].fn);
		}
	}
}

static void ivrs_fields(const struct ivrs *v)
{
	field(0x24, "Virtualization Info", 4, v->ivinfo);
	for (size_t i = 0; i < v->n; i++) {
		const struct ivrs_block *b = &v->b[i];
		unsigned o = b->offset;
		field(o, "Subtable Type", 1, b->type);
		field(o + 1, "Flags", 1, b->flags);
		field(o + 2, "Length", 2, b->length);
		field(o + 4, "DeviceId", 2, b->devid);
		if (ivrs_is_ivmd(b->type)) {
			field(o + 6, "Auxiliary Data", 2, b->aux);
			field(o + 16, "Start Address", 8, b->start);
			field(o + 24, "Memory Length", 8, b->size);
			continue;
		}
		field(o + 6, "Capability Offset", 2, b->cap_offset);
		field(o + 8, "Base Address", 8, b->base);
		field(o + 16, "PCI Segment Group", 2, b->segment);
		field(o + 18, "Virtualization Info", 2, b->info);
		if (b->type == 0x10) {
			field(o + 20, "Feature Reporting", 4, b->feature);
		} else {
			field(o + 20, "Attributes", 4, b->attributes);
			field(o + 24, "EFR Image", 8, b->efr);
		}
		for (size_t k = 0; k < b->nentries; k++) {
			const struct ivrs_entry *e = &v->e[b->first_entry + k];
			field(e->offset, "Entry Type", 1, e->type);
			field(e->offset + 1, "Device ID", 2, e->devid);
			field(e->offset + 3, "Data Setting", 1, e->setting);
			if (e->type == IVHD_ALIAS_SELECT || e->type == IVHD_ALIAS_RANGE) {
				field(e->offset + 5, "Source Used Device ID", 2, e->source);
			} else if (e->type == IVHD_SPECIAL) {
				field(e->offset + 4, "Handle", 1, e->handle);
				field(e->offset + 5, "Source Used Device ID", 2, e->source);
				field(e->offset + 7, "Variety", 1, e->variety);
			}
		}
	}
}

static void print_diag(const struct diag *d)
{
	for (size_t i = 0; i < d->n; i++)
		printf("%s: %s\n", d->msg[i].level == DIAG_ERROR ? "error" : "warning", d->msg[i].text);
}

int main(int argc, char **argv)
{
	const char *mode = argc == 3 ? argv[1] : "";
	const char *path = argv[argc - 1];
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: acpidecode [--fields|--diag] FILE\n");
		return 2;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 2;
	}
	static uint8_t buf[1 << 20];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	int errors;
	if (len >= 4 && memcmp(buf, "IVRS", 4) == 0) {
		struct ivrs v;
		ivrs_parse(buf, len, &v);
		if (strcmp(mode, "--fields") == 0)
			ivrs_fields(&v);
		else if (strcmp(mode, "--diag") == 0)
			print_diag(&v.diag);
		else
			ivrs_print(&v);
		errors = v.diag.errors;
		ivrs_free(&v);
	} else {
		struct dmar d;
		dmar_parse(buf, len, &d);
		if (strcmp(mode, "--fields") == 0)
			dmar_fields(&d);
		else if (strcmp(mode, "--diag") == 0)
			print_diag(&d.diag);
		else
			dmar_print(&d);
		errors = d.diag.errors;
		dmar_free(&d);
	}
	return errors ? 1 : 0;
}
