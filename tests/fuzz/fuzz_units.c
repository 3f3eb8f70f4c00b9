/* libFuzzer: units_build with the VT-d or the AMD-Vi backend's discovery
 * (DMAR and IVRS units, every device's covering unit), the two of them the
 * fuzzer's whole registry (backends of its own on the real discoveries, so
 * that no driver is linked in) and DMAR device-scope resolution against a fuzzed PCI topology.
 * The input's first byte is the number of functions (up to 64); then 8
 * bytes per function: bus, device/function, header type, secondary and
 * subordinate bus, and a parent index taken as is (-1 when it is 0xff,
 * else modulo the count: loops among the parents included, which
 * pci_enumerate never makes but the walk must survive); the rest is a
 * DMAR table, or an IVRS one when the byte after the functions is odd.
 * No memory map is described: every unit's window check runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_platform.h"
#include "iommu/amdvi/discover.h"
#include "iommu/units.h"
#include "iommu/vtd/discover.h"

static const struct iommu_backend vtd = { .name = "vtd", .discovery = &vtd_discovery },
				  amdvi = { .name = "amdvi", .discovery = &amdvi_discovery };

const struct iommu_backend *iommu_backend_at(size_t i)
{
	return i == 0 ? &vtd : i == 1 ? &amdvi : NULL;
}

const struct iommu_backend *iommu_backend_named(const char *name)
{
	return strcmp(name, "vtd") == 0 ? &vtd : strcmp(name, "amdvi") == 0 ? &amdvi : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t n = data[0] % 65;
	data++, size--;
	if (size < n * 8 + 1)
		return 0;
	struct pci_list l = { .n = n };
	l.d = calloc(n ? n : 1, sizeof(*l.d));
	for (size_t i = 0; i < n; i++) {
		const uint8_t *f = data + 8 * i;
		struct pci_dev *d = &l.d[i];
		d->addr = (struct pci_addr){ 0, f[0], (uint8_t)(f[1] >> 3), (uint8_t)(f[1] & 7) };
		d->header_type = f[2];
		d->sec_bus = f[3];
		d->sub_bus = f[4];
		d->parent = f[5] == 0xff ? -1 : (int)(f[5] % n);
		d->iommu = -1;
	}
	data += n * 8, size -= n * 8;
	bool ivrs = data[0] & 1;
	data++, size--;
	uint8_t *table = malloc(size ? size : 1); /* exactly its bytes, for ASan */
	memcpy(table, data, size);
	static struct iommu_units u;
	units_build(&u, &(struct units_table){ ivrs ? &amdvi : &vtd, table, size }, 1, &l);
	for (size_t i = 0; i < n; i++)
		if (l.d[i].iommu < -1 || l.d[i].iommu >= (int)u.n)
			abort();
	const struct dmar *dmar = ivrs ? NULL : units_state(&u, &vtd);
	for (size_t i = 0; dmar && i < dmar->nscopes; i++) {
		int d = dmar_scope_device(&dmar->scopes[i], 0, &l);
		if (d < -1 || d >= (int)n)
			abort();
	}
	units_free(&u);
	free(table);
	free(l.d);
	return 0;
}
