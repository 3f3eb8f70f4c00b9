#include "backend.h"

#include <string.h>

static const struct iommu_registry_entry *registry;

void iommu_registry_set(const struct iommu_registry_entry *table)
{
	registry = table;
}

const struct iommu_backend *iommu_backend_at(size_t i)
{
	for (size_t k = 0; registry && registry[k].backend; k++)
		if (k == i)
			return registry[k].backend;
	return NULL;
}

const struct iommu_backend *iommu_backend_named(const char *name)
{
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}

const struct iommu_backend *iommu_backend_for_type(enum iommu_type t)
{
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		if (b->open && (b->unit_types & 1u << t))
			return b;
	return NULL;
}

const struct iommu_backend *iommu_backend_for_model(const char *kind)
{
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		for (const char *const *m = b->models; m && *m; m++)
			if (strcmp(*m, kind) == 0)
				return b;
	return NULL;
}

size_t iommu_registry_groups(const struct test_group **out, size_t max)
{
	size_t n = 0;
	for (size_t k = 0; registry && registry[k].backend; k++)
		if (registry[k].group && n < max)
			out[n++] = registry[k].group;
	return n;
}

void iommu_backends_settings(void)
{
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		if (b->settings)
			b->settings();
}
