/* The PCI functions a live run enumerated, as text (a replay folder's
 * pci.txt, core/monitor/replay.h) and back: what the table checks need of each
 * function (address, ids, class, header type, bus range, parent,
 * capabilities), so that a replay resolves the units' scopes against the
 * machine's devices. BARs are not kept: a replay sizes nothing. */
#ifndef IOMMON_PCI_SAVED_H
#define IOMMON_PCI_SAVED_H

#include <stddef.h>

#include "pci.h"

#define PCI_SAVED_FILE "pci.txt"

/* The list as text, malloc'd; NULL when empty (or no memory). */
char *pci_saved_text(const struct pci_list *l, size_t *len);
/* Keeps the functions of a pci.txt for pci_saved_take: each line that is
 * not understood is named (file:line) and left out. Returns how many. */
size_t pci_saved_load(const char *text, size_t len, const char *file);
/* Hands the kept functions over (the list then owns them). False when
 * none were loaded: not a replay with a pci.txt. */
bool pci_saved_take(struct pci_list *out);

#endif
