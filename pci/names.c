/* Names for class codes and capability ids (PCI Code and ID Assignment
 * Specification 1.x). */
#include "core/base/macros.h"
#include "pci.h"

const char *pci_class_name(uint32_t class)
{
	static const struct {
		uint32_t code, mask;
		const char *name;
	} t[] = {
		{ 0x010802, 0xffffff, "NVMe controller" },
		{ 0x010601, 0xffffff, "SATA controller (AHCI)" },
		{ 0x0c0330, 0xffffff, "USB controller (xHCI)" },
		{ 0x0c0320, 0xffffff, "USB controller (EHCI)" },
		{ 0x0c0310, 0xffffff, "USB controller (OHCI)" },
		{ 0x0c0300, 0xffffff, "USB controller (UHCI)" },
		{ 0x070002, 0xffffff, "serial controller (16550)" },
		{ 0x060400, 0xffff00, "PCI bridge" },
		{ 0x060000, 0xffff00, "host bridge" },
		{ 0x060100, 0xffff00, "ISA bridge" },
		{ 0x060900, 0xffff00, "semi-transparent PCI bridge" },
		{ 0x080600, 0xffff00, "IOMMU" },
		{ 0x010000, 0xffff00, "SCSI controller" },
		{ 0x010100, 0xffff00, "IDE controller" },
		{ 0x010400, 0xffff00, "RAID controller" },
		{ 0x010700, 0xffff00, "SAS controller" },
		{ 0x010800, 0xffff00, "non-volatile memory controller" },
		{ 0x010600, 0xffff00, "SATA controller" },
		{ 0x020000, 0xffff00, "Ethernet controller" },
		{ 0x020700, 0xffff00, "InfiniBand controller" },
		{ 0x030000, 0xffff00, "VGA controller" },
		{ 0x040300, 0xffff00, "audio device" },
		{ 0x050000, 0xffff00, "RAM controller" },
		{ 0x058000, 0xffff00, "memory controller" },
		{ 0x070000, 0xffff00, "serial controller" },
		{ 0x080000, 0xffff00, "interrupt controller" },
		{ 0x080500, 0xffff00, "SD host controller" },
		{ 0x088000, 0xffff00, "system peripheral" },
		{ 0x0c0300, 0xffff00, "USB controller" },
		{ 0x0c0500, 0xffff00, "SMBus controller" },
		{ 0x0c0400, 0xffff00, "Fibre Channel controller" },
		{ 0x100000, 0xff0000, "encryption controller" },
		{ 0x110000, 0xff0000, "signal processing controller" },
		{ 0x120000, 0xff0000, "processing accelerator" },
		{ 0x000000, 0xff0000, "unclassified device" },
		{ 0x010000, 0xff0000, "mass storage controller" },
		{ 0x020000, 0xff0000, "network controller" },
		{ 0x030000, 0xff0000, "display controller" },
		{ 0x040000, 0xff0000, "multimedia controller" },
		{ 0x050000, 0xff0000, "memory controller" },
		{ 0x060000, 0xff0000, "bridge" },
		{ 0x070000, 0xff0000, "communication controller" },
		{ 0x080000, 0xff0000, "system peripheral" },
		{ 0x090000, 0xff0000, "input device" },
		{ 0x0b0000, 0xff0000, "processor" },
		{ 0x0c0000, 0xff0000, "serial bus controller" },
		{ 0x0d0000, 0xff0000, "wireless controller" },
		{ 0xff0000, 0xff0000, "vendor-specific" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if ((class & t[i].mask) == t[i].code)
			return t[i].name;
	return "other";
}

const char *pci_cap_name(uint16_t id, bool ext)
{
	static const char *const std[] = {
		[0x01] = "PM",	    [0x02] = "AGP",	[0x03] = "VPD",	  [0x04] = "SlotID", [0x05] = "MSI",
		[0x06] = "HotSwap", [0x07] = "PCI-X",	[0x08] = "HT",	  [0x09] = "Vendor", [0x0a] = "Debug",
		[0x0b] = "CPCI",    [0x0c] = "HotPlug", [0x0d] = "SSVID", [0x0e] = "AGP8x",  [0x0f] = "SecureDev",
		[0x10] = "PCIe",    [0x11] = "MSI-X",	[0x12] = "SATA",  [0x13] = "AF",     [0x14] = "EA",
	};
	static const char *const extn[] = {
		[0x01] = "AER",
		[0x02] = "VC",
		[0x03] = "DSN",
		[0x04] = "PowerBudget",
		[0x05] = "RCLink",
		[0x06] = "RCInternal",
		[0x07] = "RCEC",
		[0x08] = "MFVC",
		[0x09] = "VC9",
		[0x0a] = "RCRB",
		[0x0b] = "VSEC",
		[0x0c] = "CAC",
		[0x0d] = "ACS",
		[0x0e] = "ARI",
		[0x0f] = "ATS",
		[0x10] = "SR-IOV",
		[0x11] = "MR-IOV",
		[0x12] = "Multicast",
		[0x13] = "PRI",
		[0x15] = "ResizableBAR",
		[0x16] = "DPA",
		[0x17] = "TPH",
		[0x18] = "LTR",
		[0x19] = "SecondaryPCIe",
		[0x1a] = "PMUX",
		[0x1b] = "PASID",
		[0x1c] = "LNR",
		[0x1d] = "DPC",
		[0x1e] = "L1PM",
		[0x1f] = "PTM",
		[0x20] = "M-PCIe",
		[0x21] = "FRS",
		[0x22] = "RTR",
		[0x23] = "DVSEC",
		[0x24] = "VFResizableBAR",
		[0x25] = "DLF",
		[0x26] = "PL16GT",
		[0x27] = "LaneMargining",
		[0x28] = "HierarchyID",
		[0x29] = "NPEM",
		[0x2a] = "PL32GT",
		[0x2b] = "AltProtocol",
		[0x2c] = "SFI",
		[0x2e] = "DOE",
		[0x30] = "IDE",
		[0x31] = "PL64GT",
	};
	const char *const *t = ext ? extn : std;
	size_t n = ext ? ARRAY_SIZE(extn) : ARRAY_SIZE(std);
	return id < n && t[id] ? t[id] : "?";
}
