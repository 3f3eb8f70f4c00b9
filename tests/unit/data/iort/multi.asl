/*
 * A two-socket-like IORT: two SMMUv3s (proximity domains 0 and 1), one
 * SMMUv2 (MMU-500) for a named component, root complexes of segments 0
 * and 1 (segment 1's upper half straight to the ITS), a PMCG counting for
 * the first SMMUv3. Compiled by tests/unit/data/regen.sh.
 */
[0004]                          Signature : "IORT"    [IO Remapping Table]
[0004]                       Table Length : 00000000
[0001]                           Revision : 03
[0001]                           Checksum : 00
[0006]                             Oem ID : "IOMMON"
[0008]                       Oem Table ID : "MULTI   "
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0004]                         Node Count : 00000008
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

[0008]                       Base Address : 0000000100000000
[0004]              Flags (decoded below) : 00000009
                                COHACC Override : 1
                                  HTTU Override : 0
                         Proximity Domain Valid : 1
[0004]                           Reserved : 00000000
[0008]                      VATOS Address : 0000000000000000
[0004]                              Model : 00000000
[0004]                         Event GSIV : 000000C8
[0004]                           PRI GSIV : 000000C9
[0004]                          GERR GSIV : 000000CB
[0004]                          Sync GSIV : 000000CA
[0004]                   Proximity Domain : 00000000
[0004]            Device ID Mapping Index : 00000000

[0004]                         Input base : 00000000
[0004]                           ID Count : 0000FFFF
[0004]                        Output Base : 00000000
[0004]                   Output Reference : 00000030
[0004]              Flags (decoded below) : 00000000
                                 Single Mapping : 0

[0001]                               Type : 04
[0002]                             Length : 0058
[0001]                           Revision : 04
[0004]                           Reserved : 00000000
[0004]                      Mapping Count : 00000001
[0004]                     Mapping Offset : 00000044

[0008]                       Base Address : 0000000200000000
[0004]              Flags (decoded below) : 00000009
                                COHACC Override : 1
                                  HTTU Override : 0
                         Proximity Domain Valid : 1
[0004]                           Reserved : 00000000
[0008]                      VATOS Address : 0000000000000000
[0004]                              Model : 00000000
[0004]                         Event GSIV : 000000D2
[0004]                           PRI GSIV : 000000D3
[0004]                          GERR GSIV : 000000D5
[0004]                          Sync GSIV : 000000D4
[0004]                   Proximity Domain : 00000001
[0004]            Device ID Mapping Index : 00000000

[0004]                         Input base : 00000000
[0004]                           ID Count : 0001FFFF
[0004]                        Output Base : 00010000
[0004]                   Output Reference : 00000030
[0004]              Flags (decoded below) : 00000000
                                 Single Mapping : 0

[0001]                               Type : 03
[0002]                             Length : 0060
[0001]                           Revision : 01
[0004]                           Reserved : 00000000
[0004]                      Mapping Count : 00000001
[0004]                     Mapping Offset : 0000004C

[0008]                       Base Address : 000000002B400000
[0008]                               Span : 0000000000010000
[0004]                              Model : 00000003
[0004]              Flags (decoded below) : 00000002
                                  DVM Supported : 0
                                  Coherent Walk : 1
[0004]            Global Interrupt Offset : 0000003C
[0004]            Context Interrupt Count : 00000000
[0004]           Context Interrupt Offset : 0000004C
[0004]                PMU Interrupt Count : 00000000
[0004]               PMU Interrupt Offset : 0000004C

[0004]                            NSgIrpt : 00000064
[0004]      NSgIrpt Flags (decoded below) : 00000000
                                 Edge Triggered : 0
[0004]                         NSgCfgIrpt : 00000065
[0004]   NSgCfgIrpt Flags (decoded below) : 00000000
                                 Edge Triggered : 0

[0004]                         Input base : 00000000
[0004]                           ID Count : 000000FF
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
[0004]                      ATS Attribute : 00000001
[0004]                 PCI Segment Number : 00000000
[0001]                  Memory Size Limit : 30
[0003]                           Reserved : 000000

[0004]                         Input base : 00000000
[0004]                           ID Count : 0000FFFF
[0004]                        Output Base : 00000000
[0004]                   Output Reference : 00000048
[0004]              Flags (decoded below) : 00000000
                                 Single Mapping : 0

[0001]                               Type : 02
[0002]                             Length : 004C
[0001]                           Revision : 03
[0004]                           Reserved : 00000000
[0004]                      Mapping Count : 00000002
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
[0004]                      ATS Attribute : 00000001
[0004]                 PCI Segment Number : 00000001
[0001]                  Memory Size Limit : 30
[0003]                           Reserved : 000000

[0004]                         Input base : 00000000
[0004]                           ID Count : 00007FFF
[0004]                        Output Base : 00010000
[0004]                   Output Reference : 000000A0
[0004]              Flags (decoded below) : 00000000
                                 Single Mapping : 0

[0004]                         Input base : 00008000
[0004]                           ID Count : 00007FFF
[0004]                        Output Base : 00018000
[0004]                   Output Reference : 00000030
[0004]              Flags (decoded below) : 00000000
                                 Single Mapping : 0

[0001]                               Type : 01
[0002]                             Length : 0080
[0001]                           Revision : 00
[0004]                           Reserved : 00000000
[0004]                      Mapping Count : 00000001
[0004]                     Mapping Offset : 0000006C

[0004]                         Node Flags : 00000000
[0008]                  Memory Properties : [IORT Memory Access Properties]
[0004]                    Cache Coherency : 00000000
[0001]              Hints (decoded below) : 00
                                      Transient : 0
                                 Write Allocate : 0
                                  Read Allocate : 0
                                       Override : 0
[0002]                           Reserved : 0000
[0001]       Memory Flags (decoded below) : 00
                                      Coherency : 0
                               Device Attribute : 0
[0001]                  Memory Size Limit : 28
[0015]                        Device Name : "\_SB.PCI0.DEV0"
[0064]                            Padding : \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 


[0004]                         Input base : 00000000
[0004]                           ID Count : 00000000
[0004]                        Output Base : 00000020
[0004]                   Output Reference : 000000F8
[0004]              Flags (decoded below) : 00000001
                                 Single Mapping : 1

[0001]                               Type : 05
[0002]                             Length : 003C
[0001]                           Revision : 01
[0004]                           Reserved : 00000000
[0004]                      Mapping Count : 00000001
[0004]                     Mapping Offset : 00000028

[0008]                Page 0 Base Address : 0000000100030000
[0004]            Overflow Interrupt GSIV : 000000DC
[0004]                     Node Reference : 00000048
[0008]                Page 1 Base Address : 0000000100040000

[0004]                         Input base : 00000000
[0004]                           ID Count : 00000000
[0004]                        Output Base : 00000030
[0004]                   Output Reference : 00000030
[0004]              Flags (decoded below) : 00000001
                                 Single Mapping : 1
