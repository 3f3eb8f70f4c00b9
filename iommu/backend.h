/* The backend registry: every IOMMU family the monitor drives, how it
 * finds its units (its ACPI table or its PCI functions, parsed by itself),
 * which devices they cover, the registers it saves for a replay and what
 * it says of them, how one of its units is opened, the settings it reads
 * and its register-level model. Each backend defines its descriptor in its
 * own folder (iommu/<folder>/backend.c); the registry is the one list of
 * names in iommu/backends.h. Shared code loops over the descriptors and
 * never asks which family a unit is. */
#ifndef IOMMON_BACKEND_H
#define IOMMON_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/base/regwin.h"
#include "iommu.h"
#include "units.h"

struct iommu_backend;
struct json;
struct model_family;

struct iommu_pci_id {
	uint16_t vendor, device;
	const char *name; /* "CalIOC2" */
};

/* A register a backend saves at discovery, before any take-over (the
 * replay folder's iommu.txt, found_regs.h). */
struct iommu_found_reg {
	uint32_t off;
	uint8_t width; /* bytes: 4 or 8 */
	const char *name;
};

/* How a backend finds its units and what it says of them. Every hook may
 * be NULL; `state` is what its parse returned for its table (NULL when it
 * has no table, or none was usable). */
struct iommu_discovery {
	/* The ACPI table its units are described by ("DMAR"), or NULL. The
	 * first instance that parses without an error is used; a corrupt one
	 * is reported and not used. table_checked: the acpi group checks
	 * every instance (`run acpi.dmar`); else `acpi <table>` decodes them. */
	const char *table;
	bool table_checked;
	/* Parses `len` bytes of its table into a new state (malloc'd),
	 * *errors set to how many errors it found; NULL when out of memory.
	 * forget frees a state. */
	void *(*parse)(const uint8_t *t, size_t len, unsigned *errors);
	void (*forget)(void *state);
	/* Adds its units (units_add), from its table or its PCI functions,
	 * as units of `self` (the descriptor it was found through). */
	void (*find)(struct iommu_units *u, const struct iommu_backend *self, void *state, const struct pci_list *pci);
	/* Each function not yet covered (iommu < 0) that one of the units of
	 * `self` covers: units_cover. Backends claim in registry order. */
	void (*claim)(struct iommu_units *u, const struct iommu_backend *self, void *state, struct pci_list *pci);
	/* The registers saved for a replay, `nregs` of them, in the order
	 * iommu.txt lists them. */
	const struct iommu_found_reg *regs;
	size_t nregs;
	/* Reads its identity registers through `w` (units_read_regs); false
	 * when nothing answers (they read all ones). */
	bool (*identity)(struct regwin *w, struct unit_regs *r);
	/* Prints them decoded, indented, for `iommu`. */
	void (*print_regs)(const struct unit_regs *r);
	/* A unit's `info` record, after its base, include_all and refused:
	 * its own fields and, when they were read (r not NULL), its
	 * identity registers'. */
	void (*unit_info)(struct json *j, const struct iommu_unit *u, const void *state, const struct unit_regs *r);
	/* A PCI function's `info` record, after the unit covering it: what
	 * the unit knows the function as (an SMMUv3's stream id). */
	void (*device_info)(struct json *j, const struct iommu_unit *u, const void *state, const struct pci_dev *d);
	/* Records of its own after the units' (the IORT's). */
	void (*info)(const void *state);
	/* The requester ids beyond the topology's that DMA from function `i`
	 * reaches unit `u` with (IVRS alias entries): pci_alias_add to `out`. */
	void (*dma_aliases)(const struct iommu_unit *u, const void *state, const struct pci_list *pci, size_t i,
			    struct pci_aliases *out);
	/* `acpi <table>`: its table decoded, with what it resolves to. */
	void (*acpi_show)(const void *state, const struct pci_list *pci);
};

/* A discovery's parse and forget (name##_parse, name##_forget) for a
 * table that `parse_fn(bytes, len, &table)` parses into a struct `type`
 * with its diag, and `free_fn` frees: the state is the parsed table, its
 * errors the diag's. */
#define IOMMU_TABLE_STATE(name, type, parse_fn, free_fn)                              \
	static void *name##_parse(const uint8_t *bytes, size_t len, unsigned *errors) \
	{                                                                             \
		type *table = malloc(sizeof(*table));                                 \
		if (!table)                                                           \
			return NULL;                                                  \
		parse_fn(bytes, len, table);                                          \
		*errors = table->diag.errors;                                         \
		return table;                                                         \
	}                                                                             \
	static void name##_forget(void *table)                                        \
	{                                                                             \
		free_fn(table);                                                       \
		free(table);                                                          \
	}

struct iommu_backend {
	const char *name;  /* "vtd": its records' `backend`, its catalogue group */
	const char *title; /* "Intel VT-d" */
	/* How its units are found and described; NULL: it finds none. */
	const struct iommu_discovery *discovery;
	/* PCI functions that are its hardware, listed by `iommu` (ends with a
	 * 0 vendor); NULL: none. */
	const struct iommu_pci_id *pci_ids;
	/* Its register-level model (what `model KIND` attaches); NULL: none. */
	const struct model_family *family;
	/* How its units are found where there is none, for `iommu` ("DARTs are
	 * described by a device tree, not by ACPI"); NULL: nothing to say. */
	const char *found_by;
	/* Opens (does not take over) its unit `u`, with the backend's
	 * settings; the returned unit stays valid until the next open. NULL
	 * with *why when it cannot be driven. NULL for a backend that drives
	 * no discovered unit (only its model). */
	struct iommu *(*open)(const struct iommu_unit *u, const struct iommu_units *all, const struct pci_list *pci,
			      const char **why);
	/* Prints, indented, what the machine has of this family beyond its
	 * units (a Calgary's register windows from the EBDA); may be NULL. */
	void (*describe)(const struct pci_list *pci);
	/* setting_add for each key it owns ("vtd.levels"); may be NULL. */
	void (*settings)(void);
	/* Before exit, after every unit was given back and compared: puts
	 * back what its discovery changed on the machine; may be NULL. */
	void (*release)(void);
};

/* Each backend's release, in registry order (session.c, before exit). */
void iommu_backends_release(void);
/* The i-th backend of the registry (iommu/backends.h), or NULL past the last. */
const struct iommu_backend *iommu_backend_at(size_t i);
const struct iommu_backend *iommu_backend_named(const char *name);
/* The backend that drives the model kind `kind`, or NULL. */
const struct iommu_backend *iommu_backend_for_model(const char *kind);
/* The model kinds of `b`, NULL-terminated, or NULL when it has no model. */
const char *const *iommu_backend_models(const struct iommu_backend *b);
/* The i-th registered model family, or NULL past the last. */
const struct model_family *iommu_registry_model(size_t i);
/* The tables the backends find their units in, for people: "DMAR, IVRS
 * or IORT". */
const char *iommu_backend_tables(void);
/* For a backend's open, which holds one unit at a time (`io`): true when
 * `io` is the unit `name` and still taken (hand it out as it is); else
 * the unit held is given back so that another may be set up (false), and
 * *why says what could not be put back, or is NULL. */
bool iommu_backend_holds(struct iommu *io, const char *name, const char **why);
/* Every backend's settings (for the subsystem that owns the registry). */
void iommu_backends_settings(void);

#endif
