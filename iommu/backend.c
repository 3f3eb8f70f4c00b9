#include "backend.h"

#include <stdio.h>
#include <string.h>

#include "backends.h"
#include "core/base/macros.h"
#include "iommu/models/models.h"

#define DECLARE(name) extern const struct iommu_backend name##_backend;
#define ENTRY(name) &name##_backend,
IOMMU_BACKENDS(DECLARE)
static const struct iommu_backend *const registry[] = { IOMMU_BACKENDS(ENTRY) NULL };

const struct iommu_backend *iommu_backend_at(size_t i)
{
	return i < ARRAY_SIZE(registry) ? registry[i] : NULL;
}

const struct iommu_backend *iommu_backend_named(const char *name)
{
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}

const char *const *iommu_backend_models(const struct iommu_backend *b)
{
	return b->family ? b->family->kinds : NULL;
}

const struct iommu_backend *iommu_backend_for_model(const char *kind)
{
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		for (const char *const *m = iommu_backend_models(b); m && *m; m++)
			if (strcmp(*m, kind) == 0)
				return b;
	return NULL;
}

const struct model_family *iommu_registry_model(size_t i)
{
	const struct iommu_backend *b;
	for (size_t k = 0; (b = iommu_backend_at(k)) != NULL; k++)
		if (b->family && i-- == 0)
			return b->family;
	return NULL;
}

const char *iommu_backend_tables(void)
{
	static char out[64];
	const struct iommu_backend *b;
	size_t n = 0, k = 0, t = 0;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		n += b->discovery && b->discovery->table;
	out[0] = '\0';
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL && k < sizeof(out); i++)
		if (b->discovery && b->discovery->table) {
			t++;
			k += (size_t)snprintf(out + k, sizeof(out) - k, "%s%s",
					      t == 1  ? ""
					      : t < n ? ", "
						      : " or ",
					      b->discovery->table);
		}
	return out;
}

bool iommu_backend_holds(struct iommu *io, const char *name, const char **why)
{
	*why = NULL;
	if (io->taken && strcmp(io->name, name) == 0)
		return true;
	*why = io->ops ? io->ops->give_back(io) : NULL;
	return false;
}

void iommu_backends_release(void)
{
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		if (b->release)
			b->release();
}

void iommu_backends_settings(void)
{
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		if (b->settings)
			b->settings();
}
