/* libFuzzer: units_build (DMAR and IVRS units, every device's covering
 * unit) and DMAR device-scope resolution against a fuzzed PCI topology.
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
#include "iommu/units.h"

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
	units_build(&u, ivrs ? NULL : table, ivrs ? 0 : size, ivrs ? table : NULL, ivrs ? size : 0, &l);
	for (size_t i = 0; i < n; i++)
		if (l.d[i].iommu < -1 || l.d[i].iommu >= (int)u.n)
			abort();
	for (size_t i = 0; !ivrs && i < u.dmar.nscopes; i++) {
		int d = dmar_scope_device(&u.dmar.scopes[i], 0, &l);
		if (d < -1 || d >= (int)n)
			abort();
	}
	units_free(&u);
	free(table);
	free(l.d);
	return 0;
}
