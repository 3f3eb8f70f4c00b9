#include "backend.h"

#include <string.h>

const struct iommu_backend *iommu_backend_at(size_t i)
{
	for (size_t k = 0; iommu_registry[k]; k++)
		if (k == i)
			return iommu_registry[k]->backend;
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
	for (size_t k = 0; iommu_registry[k]; k++)
		if (iommu_registry[k]->group && n < max)
			out[n++] = iommu_registry[k]->group;
	return n;
}

const struct model_family *iommu_registry_model(size_t i)
{
	for (size_t k = 0; iommu_registry[k]; k++)
		if (iommu_registry[k]->models && i-- == 0)
			return iommu_registry[k]->models;
	return NULL;
}

bool iommu_backend_holds(struct iommu *io, const char *name, const char **why)
{
	*why = NULL;
	if (io->taken && strcmp(io->name, name) == 0)
		return true;
	*why = io->ops ? io->ops->give_back(io) : NULL;
	return false;
}

void iommu_backends_settings(void)
{
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		if (b->settings)
			b->settings();
}
