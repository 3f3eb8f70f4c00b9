[000h 0000   4]                    Signature : "IORT"    [IO Remapping Table]
[004h 0004   4]                 Table Length : 00000298
[008h 0008   1]                     Revision : 03
[009h 0009   1]                     Checksum : 0C
[00Ah 0010   6]                       Oem ID : "IOMMON"
[010h 0016   8]                 Oem Table ID : "MULTI   "
[018h 0024   4]                 Oem Revision : 00000001
[01Ch 0028   4]              Asl Compiler ID : "INTL"
[020h 0032   4]        Asl Compiler Revision : 20200925

[024h 0036   4]                   Node Count : 00000008
[028h 0040   4]                  Node Offset : 00000030
[02Ch 0044   4]                     Reserved : 00000000

[030h 0048   1]                         Type : 00
[031h 0049   2]                       Length : 0018
[033h 0051   1]                     Revision : 01
[034h 0052   4]                     Reserved : 00000000
[038h 0056   4]                Mapping Count : 00000000
[03Ch 0060   4]               Mapping Offset : 00000000

[040h 0064   4]                     ItsCount : 00000001
[044h 0068   4]                  Identifiers : 00000000

[048h 0072   1]                         Type : 04
[049h 0073   2]                       Length : 0058
[04Bh 0075   1]                     Revision : 04
[04Ch 0076   4]                     Reserved : 00000000
[050h 0080   4]                Mapping Count : 00000001
[054h 0084   4]               Mapping Offset : 00000044

[058h 0088   8]                 Base Address : 0000000100000000
[060h 0096   4]        Flags (decoded below) : 00000009
                             COHACC Override : 1
                               HTTU Override : 0
                      Proximity Domain Valid : 1
[064h 0100   4]                     Reserved : 00000000
[068h 0104   8]                VATOS Address : 0000000000000000
[070h 0112   4]                        Model : 00000000
[074h 0116   4]                   Event GSIV : 000000C8
[078h 0120   4]                     PRI GSIV : 000000C9
[07Ch 0124   4]                    GERR GSIV : 000000CB
[080h 0128   4]                    Sync GSIV : 000000CA
[084h 0132   4]             Proximity Domain : 00000000
[088h 0136   4]      Device ID Mapping Index : 00000000

[08Ch 0140   4]                   Input base : 00000000
[090h 0144   4]                     ID Count : 0000FFFF
[094h 0148   4]                  Output Base : 00000000
[098h 0152   4]             Output Reference : 00000030
[09Ch 0156   4]        Flags (decoded below) : 00000000
                              Single Mapping : 0

[0A0h 0160   1]                         Type : 04
[0A1h 0161   2]                       Length : 0058
[0A3h 0163   1]                     Revision : 04
[0A4h 0164   4]                     Reserved : 00000000
[0A8h 0168   4]                Mapping Count : 00000001
[0ACh 0172   4]               Mapping Offset : 00000044

[0B0h 0176   8]                 Base Address : 0000000200000000
[0B8h 0184   4]        Flags (decoded below) : 00000009
                             COHACC Override : 1
                               HTTU Override : 0
                      Proximity Domain Valid : 1
[0BCh 0188   4]                     Reserved : 00000000
[0C0h 0192   8]                VATOS Address : 0000000000000000
[0C8h 0200   4]                        Model : 00000000
[0CCh 0204   4]                   Event GSIV : 000000D2
[0D0h 0208   4]                     PRI GSIV : 000000D3
[0D4h 0212   4]                    GERR GSIV : 000000D5
[0D8h 0216   4]                    Sync GSIV : 000000D4
[0DCh 0220   4]             Proximity Domain : 00000001
[0E0h 0224   4]      Device ID Mapping Index : 00000000

[0E4h 0228   4]                   Input base : 00000000
[0E8h 0232   4]                     ID Count : 0001FFFF
[0ECh 0236   4]                  Output Base : 00010000
[0F0h 0240   4]             Output Reference : 00000030
[0F4h 0244   4]        Flags (decoded below) : 00000000
                              Single Mapping : 0

[0F8h 0248   1]                         Type : 03
[0F9h 0249   2]                       Length : 0060
[0FBh 0251   1]                     Revision : 01
[0FCh 0252   4]                     Reserved : 00000000
[100h 0256   4]                Mapping Count : 00000001
[104h 0260   4]               Mapping Offset : 0000004C

[108h 0264   8]                 Base Address : 000000002B400000
[110h 0272   8]                         Span : 0000000000010000
[118h 0280   4]                        Model : 00000003
[11Ch 0284   4]        Flags (decoded below) : 00000002
                               DVM Supported : 0
                               Coherent Walk : 1
[120h 0288   4]      Global Interrupt Offset : 0000003C
[124h 0292   4]      Context Interrupt Count : 00000000
[128h 0296   4]     Context Interrupt Offset : 0000004C
[12Ch 0300   4]          PMU Interrupt Count : 00000000
[130h 0304   4]         PMU Interrupt Offset : 0000004C

[134h 0308   4]                      NSgIrpt : 00000064
[138h 0312   4] NSgIrpt Flags (decoded below) : 00000000
                              Edge Triggered : 0
[13Ch 0316   4]                   NSgCfgIrpt : 00000065
[140h 0320   4] NSgCfgIrpt Flags (decoded below) : 00000000
                              Edge Triggered : 0

[144h 0324   4]                   Input base : 00000000
[148h 0328   4]                     ID Count : 000000FF
[14Ch 0332   4]                  Output Base : 00000000
[150h 0336   4]             Output Reference : 00000030
[154h 0340   4]        Flags (decoded below) : 00000000
                              Single Mapping : 0

[158h 0344   1]                         Type : 02
[159h 0345   2]                       Length : 0038
[15Bh 0347   1]                     Revision : 03
[15Ch 0348   4]                     Reserved : 00000000
[160h 0352   4]                Mapping Count : 00000001
[164h 0356   4]               Mapping Offset : 00000024

[168h 0360   8]            Memory Properties : [IORT Memory Access Properties]
[168h 0360   4]              Cache Coherency : 00000001
[16Ch 0364   1]        Hints (decoded below) : 00
                                   Transient : 0
                              Write Allocate : 0
                               Read Allocate : 0
                                    Override : 0
[16Dh 0365   2]                     Reserved : 0000
[16Fh 0367   1] Memory Flags (decoded below) : 03
                                   Coherency : 1
                            Device Attribute : 1
[170h 0368   4]                ATS Attribute : 00000001
[174h 0372   4]           PCI Segment Number : 00000000
[178h 0376   1]            Memory Size Limit : 30
[179h 0377   3]                     Reserved : 000000

[17Ch 0380   4]                   Input base : 00000000
[180h 0384   4]                     ID Count : 0000FFFF
[184h 0388   4]                  Output Base : 00000000
[188h 0392   4]             Output Reference : 00000048
[18Ch 0396   4]        Flags (decoded below) : 00000000
                              Single Mapping : 0

[190h 0400   1]                         Type : 02
[191h 0401   2]                       Length : 004C
[193h 0403   1]                     Revision : 03
[194h 0404   4]                     Reserved : 00000000
[198h 0408   4]                Mapping Count : 00000002
[19Ch 0412   4]               Mapping Offset : 00000024

[1A0h 0416   8]            Memory Properties : [IORT Memory Access Properties]
[1A0h 0416   4]              Cache Coherency : 00000001
[1A4h 0420   1]        Hints (decoded below) : 00
                                   Transient : 0
                              Write Allocate : 0
                               Read Allocate : 0
                                    Override : 0
[1A5h 0421   2]                     Reserved : 0000
[1A7h 0423   1] Memory Flags (decoded below) : 03
                                   Coherency : 1
                            Device Attribute : 1
[1A8h 0424   4]                ATS Attribute : 00000001
[1ACh 0428   4]           PCI Segment Number : 00000001
[1B0h 0432   1]            Memory Size Limit : 30
[1B1h 0433   3]                     Reserved : 000000

[1B4h 0436   4]                   Input base : 00000000
[1B8h 0440   4]                     ID Count : 00007FFF
[1BCh 0444   4]                  Output Base : 00010000
[1C0h 0448   4]             Output Reference : 000000A0
[1C4h 0452   4]        Flags (decoded below) : 00000000
                              Single Mapping : 0

[1C8h 0456   4]                   Input base : 00008000
[1CCh 0460   4]                     ID Count : 00007FFF
[1D0h 0464   4]                  Output Base : 00018000
[1D4h 0468   4]             Output Reference : 00000030
[1D8h 0472   4]        Flags (decoded below) : 00000000
                              Single Mapping : 0

[1DCh 0476   1]                         Type : 01
[1DDh 0477   2]                       Length : 0080
[1DFh 0479   1]                     Revision : 00
[1E0h 0480   4]                     Reserved : 00000000
[1E4h 0484   4]                Mapping Count : 00000001
[1E8h 0488   4]               Mapping Offset : 0000006C

[1ECh 0492   4]                   Node Flags : 00000000
[1F0h 0496   8]            Memory Properties : [IORT Memory Access Properties]
[1F0h 0496   4]              Cache Coherency : 00000000
[1F4h 0500   1]        Hints (decoded below) : 00
                                   Transient : 0
                              Write Allocate : 0
                               Read Allocate : 0
                                    Override : 0
[1F5h 0501   2]                     Reserved : 0000
[1F7h 0503   1] Memory Flags (decoded below) : 00
                                   Coherency : 0
                            Device Attribute : 0
[1F8h 0504   1]            Memory Size Limit : 28
[1F9h 0505  15]                  Device Name : "\_SB.PCI0.DEV0"
[208h 0520  64]                      Padding : \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 

[248h 0584   4]                   Input base : 00000000
[24Ch 0588   4]                     ID Count : 00000000
[250h 0592   4]                  Output Base : 00000020
[254h 0596   4]             Output Reference : 000000F8
[258h 0600   4]        Flags (decoded below) : 00000001
                              Single Mapping : 1

[25Ch 0604   1]                         Type : 05
[25Dh 0605   2]                       Length : 003C
[25Fh 0607   1]                     Revision : 01
[260h 0608   4]                     Reserved : 00000000
[264h 0612   4]                Mapping Count : 00000001
[268h 0616   4]               Mapping Offset : 00000028

[26Ch 0620   8]          Page 0 Base Address : 0000000100030000
[274h 0628   4]      Overflow Interrupt GSIV : 000000DC
[278h 0632   4]               Node Reference : 00000048
[27Ch 0636   8]          Page 1 Base Address : 0000000100040000

[284h 0644   4]                   Input base : 00000000
[288h 0648   4]                     ID Count : 00000000
[28Ch 0652   4]                  Output Base : 00000030
[290h 0656   4]             Output Reference : 00000030
[294h 0660   4]        Flags (decoded below) : 00000001
                              Single Mapping : 1

Raw Table Data: Length 664 (0x298)

    0000: 49 4F 52 54 98 02 00 00 03 0C 49 4F 4D 4D 4F 4E  // IORT......IOMMON
    0010: 4D 55 4C 54 49 20 20 20 01 00 00 00 49 4E 54 4C  // MULTI   ....INTL
    0020: 25 09 20 20 08 00 00 00 30 00 00 00 00 00 00 00  // %.  ....0.......
    0030: 00 18 00 01 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0040: 01 00 00 00 00 00 00 00 04 58 00 04 00 00 00 00  // .........X......
    0050: 01 00 00 00 44 00 00 00 00 00 00 00 01 00 00 00  // ....D...........
    0060: 09 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0070: 00 00 00 00 C8 00 00 00 C9 00 00 00 CB 00 00 00  // ................
    0080: CA 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0090: FF FF 00 00 00 00 00 00 30 00 00 00 00 00 00 00  // ........0.......
    00A0: 04 58 00 04 00 00 00 00 01 00 00 00 44 00 00 00  // .X..........D...
    00B0: 00 00 00 00 02 00 00 00 09 00 00 00 00 00 00 00  // ................
    00C0: 00 00 00 00 00 00 00 00 00 00 00 00 D2 00 00 00  // ................
    00D0: D3 00 00 00 D5 00 00 00 D4 00 00 00 01 00 00 00  // ................
    00E0: 00 00 00 00 00 00 00 00 FF FF 01 00 00 00 01 00  // ................
    00F0: 30 00 00 00 00 00 00 00 03 60 00 01 00 00 00 00  // 0........`......
    0100: 01 00 00 00 4C 00 00 00 00 00 40 2B 00 00 00 00  // ....L.....@+....
    0110: 00 00 01 00 00 00 00 00 03 00 00 00 02 00 00 00  // ................
    0120: 3C 00 00 00 00 00 00 00 4C 00 00 00 00 00 00 00  // <.......L.......
    0130: 4C 00 00 00 64 00 00 00 00 00 00 00 65 00 00 00  // L...d.......e...
    0140: 00 00 00 00 00 00 00 00 FF 00 00 00 00 00 00 00  // ................
    0150: 30 00 00 00 00 00 00 00 02 38 00 03 00 00 00 00  // 0........8......
    0160: 01 00 00 00 24 00 00 00 01 00 00 00 00 00 00 03  // ....$...........
    0170: 01 00 00 00 00 00 00 00 30 00 00 00 00 00 00 00  // ........0.......
    0180: FF FF 00 00 00 00 00 00 48 00 00 00 00 00 00 00  // ........H.......
    0190: 02 4C 00 03 00 00 00 00 02 00 00 00 24 00 00 00  // .L..........$...
    01A0: 01 00 00 00 00 00 00 03 01 00 00 00 01 00 00 00  // ................
    01B0: 30 00 00 00 00 00 00 00 FF 7F 00 00 00 00 01 00  // 0...............
    01C0: A0 00 00 00 00 00 00 00 00 80 00 00 FF 7F 00 00  // ................
    01D0: 00 80 01 00 30 00 00 00 00 00 00 00 01 80 00 00  // ....0...........
    01E0: 00 00 00 00 01 00 00 00 6C 00 00 00 00 00 00 00  // ........l.......
    01F0: 00 00 00 00 00 00 00 00 28 5C 5F 53 42 2E 50 43  // ........(\_SB.PC
    0200: 49 30 2E 44 45 56 30 00 00 00 00 00 00 00 00 00  // I0.DEV0.........
    0210: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0220: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0230: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0240: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0250: 20 00 00 00 F8 00 00 00 01 00 00 00 05 3C 00 01  //  ............<..
    0260: 00 00 00 00 01 00 00 00 28 00 00 00 00 00 03 00  // ........(.......
    0270: 01 00 00 00 DC 00 00 00 48 00 00 00 00 00 04 00  // ........H.......
    0280: 01 00 00 00 00 00 00 00 00 00 00 00 30 00 00 00  // ............0...
    0290: 30 00 00 00 01 00 00 00                          // 0.......
