#include "dut.h"

#include <stdio.h>
#include <string.h>

#include "core/monitor/monitor.h"
#include "core/monitor/runner.h"
#include "core/monitor/settings.h"

static struct {
	struct pci_cfg *cfg;
	const struct pci_list *pci;
	struct dma_engine *engine;
	char gone[112]; /* why the engine open is gone, or "" */
} dut;

void dut_bind(struct pci_cfg *cfg, const struct pci_list *pci)
{
	dut_close();
	dut.cfg = cfg;
	dut.pci = pci;
}

/* "nvme 0000:01:00.0 removed: its configuration space reads all ones" */
static void say_gone(char *out, size_t n, const char *kind, struct pci_addr a)
{
	char bdf[16];
	pci_addr_str(a, bdf, sizeof(bdf));
	snprintf(out, n, "%s%s%s removed: its configuration space reads all ones", kind ? kind : "", kind ? " " : "",
		 bdf);
}

const char *dut_gone(void)
{
	if (!dut.engine || !dut.cfg)
		return NULL;
	if (!dut.gone[0] && !pci_answers(dut.cfg, dut.engine->addr))
		say_gone(dut.gone, sizeof(dut.gone), dut.engine->kind, dut.engine->addr);
	return dut.gone[0] ? dut.gone : NULL;
}

/* The running test is told it uses the device under test */
static void dut_used(void)
{
	char bdf[16];
	pci_addr_str(dut.engine->addr, bdf, sizeof(bdf));
	test_uses_device(bdf, dut_gone);
}

struct dma_engine *dut_current(void)
{
	if (dut.engine)
		dut_used();
	return dut.engine;
}

void dut_close(void)
{
	if (dut.engine)
		dut.engine->close(dut.engine);
	dut.engine = NULL;
	dut.gone[0] = '\0';
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

/* The function's engine opened, unless it no longer answers; an open
 * that failed because it went meanwhile says so before the driver's words. */
static struct dma_engine *open_one(const struct pci_dev *d, const char **why)
{
	static char gone[sizeof(dut.gone) + 104];
	bool was_there = !dut.cfg || pci_answers(dut.cfg, d->addr);
	struct dma_engine *e = was_there ? dma_open(dut.cfg, d, why) : NULL;
	if (e || !dut.cfg || pci_answers(dut.cfg, d->addr))
		return e;
	say_gone(gone, sizeof(dut.gone), NULL, d->addr);
	if (was_there) {
		size_t n = strlen(gone);
		snprintf(gone + n, sizeof(gone) - n, " (%.96s)", *why);
	}
	*why = gone;
	return NULL;
}

struct dma_engine *dut_engine(const char **why)
{
	if (dut.engine) {
		/* gone: kept open (nothing of it answers to be put back) until
		 * `set device` or exit closes it, and used no more */
		const char *gone = dut_gone();
		if (gone) {
			*why = gone;
			dut_used();
			return NULL;
		}
		return dut_current();
	}
	const char *want = setting_get("device");
	int i = pick(want, why);
	if (i < 0)
		return NULL;
	dut.engine = open_one(&dut.pci->d[i], why);
	/* auto: a device that refuses (the boot disk) gives way to the next */
	for (size_t k = 0; !dut.engine && strcmp(want, "auto") == 0 && k < dut.pci->n; k++) {
		if (k == (size_t)i || !dma_has_driver(&dut.pci->d[k]))
			continue;
		char bdf[16];
		pci_addr_str(dut.pci->d[i].addr, bdf, sizeof(bdf));
		printf("    %s: %s; trying the next device\n", bdf, *why);
		i = (int)k;
		dut.engine = open_one(&dut.pci->d[k], why);
	}
	return dut.engine ? dut_current() : NULL;
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
