#include "dut.h"

#include <stdio.h>
#include <string.h>

#include "core/monitor/monitor.h"
#include "core/monitor/settings.h"

static struct {
	struct pci_cfg *cfg;
	const struct pci_list *pci;
	struct dma_engine *engine;
} dut;

void dut_bind(struct pci_cfg *cfg, const struct pci_list *pci)
{
	dut_close();
	dut.cfg = cfg;
	dut.pci = pci;
}

struct dma_engine *dut_current(void)
{
	return dut.engine;
}

void dut_close(void)
{
	if (dut.engine)
		dut.engine->close(dut.engine);
	dut.engine = NULL;
}

static void (*closer)(void);

void dut_set_closer(void (*close)(void))
{
	closer = close;
}

/* a setting changed: the next DMA opens the device anew */
static void close_for_change(void)
{
	if (dut.engine && closer)
		closer();
	dut_close();
}

/* "auto": the first NVMe controller with a driver, else the first edu */
static int pick(const char *want, const char **why)
{
	const struct pci_list *l = dut.pci;
	if (!l) {
		*why = "PCI has not been enumerated";
		return -1;
	}
	if (strcmp(want, "auto") != 0) {
		struct pci_addr a;
		pci_parse_addr(want, &a);
		int i = pci_find(l, a);
		if (i < 0)
			*why = "no PCI function there";
		else if (!dma_has_driver(&l->d[i]))
			*why = "no DMA engine driver for that function (edu and NVMe have one)";
		return i >= 0 && dma_has_driver(&l->d[i]) ? i : -1;
	}
	int edu = -1;
	for (size_t i = 0; i < l->n; i++) {
		if (!dma_has_driver(&l->d[i]))
			continue;
		if (l->d[i].class == 0x010802)
			return (int)i;
		if (edu < 0)
			edu = (int)i;
	}
	if (edu < 0)
		*why = "no function with a DMA engine driver (edu, NVMe) on this machine";
	return edu;
}

struct dma_engine *dut_engine(const char **why)
{
	if (dut.engine)
		return dut.engine;
	const char *want = setting_get("device");
	int i = pick(want, why);
	if (i < 0)
		return NULL;
	dut.engine = dma_open(dut.cfg, &dut.pci->d[i], why);
	/* auto: a device that refuses (the boot disk) gives way to the next */
	for (size_t k = 0; !dut.engine && strcmp(want, "auto") == 0 && k < dut.pci->n; k++) {
		if (k == (size_t)i || !dma_has_driver(&dut.pci->d[k]))
			continue;
		char bdf[16];
		pci_addr_str(dut.pci->d[i].addr, bdf, sizeof(bdf));
		printf("    %s: %s; trying the next device\n", bdf, *why);
		i = (int)k;
		dut.engine = dma_open(dut.cfg, &dut.pci->d[k], why);
	}
	return dut.engine;
}

bool dut_candidate(struct pci_addr *out)
{
	const char *why;
	int i = pick(setting_get("device"), &why);
	if (i < 0)
		return false;
	*out = dut.pci->d[i].addr;
	return true;
}

static const char *check_device(const char *v)
{
	static char msg[160];
	struct pci_addr a;
	const char *why = strcmp(v, "auto") == 0 ? NULL : pci_parse_addr_why(v, &a);
	if (why)
		snprintf(msg, sizeof(msg), "%s; must be auto or a PCI address (0000:01:00.0)", why);
	return why ? msg : NULL;
}

static const char *apply_device(const char *v)
{
	static const char *why;
	why = NULL;
	if (pick(v, &why) < 0)
		return why ? why : "no such device";
	close_for_change(); /* the next DMA opens the new one */
	return NULL;
}

/* "none", or "BDF,SERIAL": the address and the serial number the engine
 * line shows, so a config moved to another server cannot write there. */
static const char *check_scratch(const char *v)
{
	if (strcmp(v, "none") == 0)
		return NULL;
	const char *comma = strchr(v, ',');
	char bdf[24];
	struct pci_addr a;
	if (!comma || comma == v || (size_t)(comma - v) >= sizeof(bdf) || !comma[1])
		return "must be none, or ADDRESS,SERIAL (the serial 'run dma' shows for the controller)";
	memcpy(bdf, v, (size_t)(comma - v));
	bdf[comma - v] = '\0';
	static char msg[160];
	const char *why = pci_parse_addr_why(bdf, &a);
	if (why)
		snprintf(msg, sizeof(msg), "the address before the comma: %s", why);
	else if (strlen(comma + 1) > 20) /* NVMe Identify Controller SN: 20 ASCII characters */
		return "the serial after the comma is longer than an NVMe serial number (20 characters)";
	return why ? msg : NULL;
}

static const char *apply_scratch(const char *v)
{
	(void)v;
	close_for_change(); /* reopened with the new permission */
	return NULL;
}

static void dut_settings(void)
{
	setting_add("device", "auto", "device under test for DMA: auto (first NVMe, else edu) or a PCI address",
		    check_device, apply_device);
	setting_add("nvme.scratch", "none",
		    "ADDRESS,SERIAL of an NVMe controller whose LBA 0 may be overwritten (DMA to it uses Write)",
		    check_scratch, apply_scratch);
}

const struct subsystem dut_subsystem = {
	.name = "dut",
	.settings = dut_settings,
	.release = dut_close,
};
