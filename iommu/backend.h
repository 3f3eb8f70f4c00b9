/* The backend registry: every IOMMU family the monitor drives, what finds
 * its units (an ACPI table, a PCI id, a register-level model), how one of
 * those units is opened, the settings it reads and the catalogue group of
 * its own cases. The table itself is part of the composition root
 * (tests/catalogue/catalogue.c), one line a backend, so that adding a
 * backend is its own files plus that line; this file only looks it up. */
#ifndef IOMMON_BACKEND_H
#define IOMMON_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iommu.h"
#include "units.h"

struct test_group;

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

/* One line of the registry: a backend and its own catalogue cases. */
struct iommu_registry_entry {
	const struct iommu_backend *backend;
	const struct test_group *group;
};

/* The composition root hands the table over (NULL-terminated by a NULL
 * backend) before discovery. */
void iommu_registry_set(const struct iommu_registry_entry *table);
/* The i-th backend, or NULL past the last. */
const struct iommu_backend *iommu_backend_at(size_t i);
const struct iommu_backend *iommu_backend_named(const char *name);
/* The backend that drives units of type `t`, or NULL. */
const struct iommu_backend *iommu_backend_for_type(enum iommu_type t);
/* The backend that drives the model kind `kind`, or NULL. */
const struct iommu_backend *iommu_backend_for_model(const char *kind);
/* The registered backends' catalogue groups, in table order. */
size_t iommu_registry_groups(const struct test_group **out, size_t max);
/* Every backend's settings (for the subsystem that owns the registry). */
void iommu_backends_settings(void);

#endif
