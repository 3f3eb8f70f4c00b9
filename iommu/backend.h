/* The backend registry: every IOMMU family the monitor drives, what finds
 * its units (an ACPI table, a PCI id, a register-level model), how one of
 * those units is opened, the settings it reads, the catalogue group of its
 * own cases and its register-level model. Each backend defines its entry
 * in its own catalogue file (tests/catalogue/iommu/<name>.c, the one place
 * that sees its driver, its cases and its model); the table of entries is
 * one line in the composition root (tests/catalogue/catalogue.c), so that
 * adding a backend is its own files plus a name on that line. This file
 * only looks the table up. */
#ifndef IOMMON_BACKEND_H
#define IOMMON_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iommu.h"
#include "units.h"

struct test_group;
struct model_family;

struct iommu_pci_id {
	uint16_t vendor, device;
	const char *name; /* "CalIOC2" */
};

struct iommu_backend {
	const char *name;  /* "vtd": its records' `backend`, its catalogue group */
	const char *title; /* "Intel VT-d" */
	/* What finds its units: bit n set for enum iommu_type n (DMAR, IVRS,
	 * IORT units); PCI functions (ids ends with a 0 vendor); model kinds
	 * (`model KIND`, NULL-terminated). Any may be empty. */
	unsigned unit_types;
	const struct iommu_pci_id *pci_ids;
	const char *const *models;
	/* How its units are found where there is none, for `iommu` ("DARTs are
	 * described by a device tree, not by ACPI"); NULL: nothing to say. */
	const char *found_by;
	/* Opens (does not take over) the ACPI-described unit `u`, with the
	 * backend's settings; the returned unit stays valid until the next
	 * open. NULL with *why when it cannot be driven. NULL for a backend
	 * that drives no ACPI unit. */
	struct iommu *(*open)(const struct iommu_unit *u, const struct iommu_units *all, const struct pci_list *pci,
			      const char **why);
	/* Prints, indented, what the machine has of this family beyond the
	 * ACPI units (a Calgary's register windows from the EBDA); may be NULL. */
	void (*describe)(const struct pci_list *pci);
	/* setting_add for each key it owns ("vtd.levels"); may be NULL. */
	void (*settings)(void);
};

/* A backend's entry: its descriptor, its own catalogue cases and the
 * register-level model `model` attaches for it (NULL: none). */
struct iommu_registry_entry {
	const struct iommu_backend *backend;
	const struct test_group *group;
	const struct model_family *models;
};

/* The table, NULL-terminated, defined by the composition root. */
extern const struct iommu_registry_entry *const iommu_registry[];

/* The i-th backend, or NULL past the last. */
const struct iommu_backend *iommu_backend_at(size_t i);
const struct iommu_backend *iommu_backend_named(const char *name);
/* The backend that drives units of type `t`, or NULL. */
const struct iommu_backend *iommu_backend_for_type(enum iommu_type t);
/* The backend that drives the model kind `kind`, or NULL. */
const struct iommu_backend *iommu_backend_for_model(const char *kind);
/* The registered backends' catalogue groups, in table order. */
size_t iommu_registry_groups(const struct test_group **out, size_t max);
/* The i-th registered model family, or NULL past the last. */
const struct model_family *iommu_registry_model(size_t i);
/* For a backend's open, which holds one unit at a time (`io`): true when
 * `io` is the unit `name` and still taken (hand it out as it is); else
 * the unit held is given back so that another may be set up (false), and
 * *why says what could not be put back, or is NULL. */
bool iommu_backend_holds(struct iommu *io, const char *name, const char **why);
/* Every backend's settings (for the subsystem that owns the registry). */
void iommu_backends_settings(void);

#endif
