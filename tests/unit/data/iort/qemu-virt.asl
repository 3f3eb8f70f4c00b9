/*
 * QEMU 7.2 virt,iommu=smmuv3 as shared/specs/qemu-iommus.md section 3 and
 * hw/arm/virt-acpi-build.c describe it: revision 3; an ITS group; an SMMUv3
 * at 0x09050000 (SPIs 74-77: event 106, PRI 107, sync 108, GERR 109) whose
 * IDs go on to the ITS; the root complex of segment 0 mapping every RID to
 * the SMMU. (The table QEMU 7.2 really builds, iort/qemu-virt-real.bin from
 * capture-qemu.sh, maps only the buses the firmware numbered below pcie.0,
 * writing ID Count as the count rather than count - 1, and sends the rest
 * of the RIDs to the ITS; this one is the idealised form.)
 */
[0004]                          Signature : "IORT"    [IO Remapping Table]
[0004]                       Table Length : 00000000
[0001]                           Revision : 03
[0001]                           Checksum : 00
[0006]                             Oem ID : "BOCHS "
[0008]                       Oem Table ID : "BXPC    "
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "BXPC"
[0004]              Asl Compiler Revision : 00000001

[0004]                         Node Count : 00000003
[0004]                        Node Offset : 00000030
[0004]                           Reserved : 00000000

[0001]                               Type : 00
[0002]                             Length : 0018
[0001]                           Revision : 01
[0004]                           Reserved : 00000000
[0004]                      Mapping Count : 00000000
[0004]                     Mapping Offset : 00000000

[0004]                           ItsCount : 00000001
[0004]                        Identifiers : 00000000

[0001]                               Type : 04
[0002]                             Length : 0058
[0001]                           Revision : 04
[0004]                           Reserved : 00000000
[0004]                      Mapping Count : 00000001
[0004]                     Mapping Offset : 00000044

[0008]                       Base Address : 0000000009050000
[0004]              Flags (decoded below) : 00000001
                          COHACC Override : 1
                            HTTU Override : 0
                   Proximity Domain Valid : 0
[0004]                           Reserved : 00000000
[0008]                      VATOS Address : 0000000000000000
[0004]                              Model : 00000000
[0004]                         Event GSIV : 0000006A
[0004]                           PRI GSIV : 0000006B
[0004]                          GERR GSIV : 0000006D
[0004]                          Sync GSIV : 0000006C
[0004]                   Proximity Domain : 00000000
[0004]            Device ID Mapping Index : 00000000

[0004]                         Input base : 00000000
[0004]                           ID Count : 0000FFFF
[0004]                        Output Base : 00000000
[0004]                   Output Reference : 00000030
[0004]              Flags (decoded below) : 00000000
                           Single Mapping : 0

[0001]                               Type : 02
[0002]                             Length : 0038
[0001]                           Revision : 03
[0004]                           Reserved : 00000000
[0004]                      Mapping Count : 00000001
[0004]                     Mapping Offset : 00000024

[0008]                  Memory Properties : [IORT Memory Access Properties]
[0004]                    Cache Coherency : 00000001
[0001]              Hints (decoded below) : 00
                                Transient : 0
                           Write Allocate : 0
                            Read Allocate : 0
                                 Override : 0
[0002]                           Reserved : 0000
[0001]       Memory Flags (decoded below) : 03
                                Coherency : 1
                         Device Attribute : 1
[0004]                      ATS Attribute : 00000000
[0004]                 PCI Segment Number : 00000000
[0001]                  Memory Size Limit : 40
[0003]                           Reserved : 000000

[0004]                         Input base : 00000000
[0004]                           ID Count : 0000FFFF
[0004]                        Output Base : 00000000
[0004]                   Output Reference : 00000048
[0004]              Flags (decoded below) : 00000000
                           Single Mapping : 0
