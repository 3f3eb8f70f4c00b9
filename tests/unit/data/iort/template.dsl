[000h 0000   4]                    Signature : "IORT"    [IO Remapping Table]
[004h 0004   4]                 Table Length : 000001F8
[008h 0008   1]                     Revision : 00
[009h 0009   1]                     Checksum : 52
[00Ah 0010   6]                       Oem ID : "INTEL "
[010h 0016   8]                 Oem Table ID : "Template"
[018h 0024   4]                 Oem Revision : 00000000
[01Ch 0028   4]              Asl Compiler ID : "INTL"
[020h 0032   4]        Asl Compiler Revision : 20200925

[024h 0036   4]                   Node Count : 00000006
[028h 0040   4]                  Node Offset : 00000034
[02Ch 0044   4]                     Reserved : 00000000
[030h 0048   4]             Optional Padding : 00 00 00 00 

[034h 0052   1]                         Type : 00
[035h 0053   2]                       Length : 0018
[037h 0055   1]                     Revision : 00
[038h 0056   4]                     Reserved : 00000000
[03Ch 0060   4]                Mapping Count : 00000000
[040h 0064   4]               Mapping Offset : 00000000

[044h 0068   4]                     ItsCount : 00000001
[048h 0072   4]                  Identifiers : 00000000

[04Ch 0076   1]                         Type : 01
[04Dh 0077   2]                       Length : 0080
[04Fh 0079   1]                     Revision : 00
[050h 0080   4]                     Reserved : 00000000
[054h 0084   4]                Mapping Count : 00000001
[058h 0088   4]               Mapping Offset : 0000006C

[05Ch 0092   4]                   Node Flags : 00000000
[060h 0096   8]            Memory Properties : [IORT Memory Access Properties]
[060h 0096   4]              Cache Coherency : 00000000
[064h 0100   1]        Hints (decoded below) : 00
                                   Transient : 0
                              Write Allocate : 0
                               Read Allocate : 0
                                    Override : 0
[065h 0101   2]                     Reserved : 0000
[067h 0103   1] Memory Flags (decoded below) : 00
                                   Coherency : 0
                            Device Attribute : 0
[068h 0104   1]            Memory Size Limit : 00
[069h 0105  15]                  Device Name : "\_SB.PCI0.DEV0"
[078h 0120  64]                      Padding : \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 

[0B8h 0184   4]                   Input base : 00000000
[0BCh 0188   4]                     ID Count : 00000000
[0C0h 0192   4]                  Output Base : 00000000
[0C4h 0196   4]             Output Reference : 00000000
[0C8h 0200   4]        Flags (decoded below) : 00000000
                              Single Mapping : 0

[0CCh 0204   1]                         Type : 02
[0CDh 0205   2]                       Length : 0038
[0CFh 0207   1]                     Revision : 00
[0D0h 0208   4]                     Reserved : 00000000
[0D4h 0212   4]                Mapping Count : 00000001
[0D8h 0216   4]               Mapping Offset : 00000024

[0DCh 0220   8]            Memory Properties : [IORT Memory Access Properties]
[0DCh 0220   4]              Cache Coherency : 00000000
[0E0h 0224   1]        Hints (decoded below) : 00
                                   Transient : 0
                              Write Allocate : 0
                               Read Allocate : 0
                                    Override : 0
[0E1h 0225   2]                     Reserved : 0000
[0E3h 0227   1] Memory Flags (decoded below) : 00
                                   Coherency : 0
                            Device Attribute : 0
[0E4h 0228   4]                ATS Attribute : 00000000
[0E8h 0232   4]           PCI Segment Number : 00000000
[0ECh 0236   1]            Memory Size Limit : 00
[0EDh 0237   3]                     Reserved : 000000

[0F0h 0240   4]                   Input base : 00000000
[0F4h 0244   4]                     ID Count : 00000000
[0F8h 0248   4]                  Output Base : 00000000
[0FCh 0252   4]             Output Reference : 00000000
[100h 0256   4]        Flags (decoded below) : 00000000
                              Single Mapping : 0

[104h 0260   1]                         Type : 03
[105h 0261   2]                       Length : 0060
[107h 0263   1]                     Revision : 01
[108h 0264   4]                     Reserved : 00000000
[10Ch 0268   4]                Mapping Count : 00000001
[110h 0272   4]               Mapping Offset : 0000004C

[114h 0276   8]                 Base Address : 0000000000000000
[11Ch 0284   8]                         Span : 0000000000000000
[124h 0292   4]                        Model : 00000000
[128h 0296   4]        Flags (decoded below) : 00000000
                               DVM Supported : 0
                               Coherent Walk : 0
[12Ch 0300   4]      Global Interrupt Offset : 0000003C
[130h 0304   4]      Context Interrupt Count : 00000000
[134h 0308   4]     Context Interrupt Offset : 0000004C
[138h 0312   4]          PMU Interrupt Count : 00000000
[13Ch 0316   4]         PMU Interrupt Offset : 0000004C

[140h 0320   4]                      NSgIrpt : 00000000
[144h 0324   4] NSgIrpt Flags (decoded below) : 00000000
                              Edge Triggered : 0
[148h 0328   4]                   NSgCfgIrpt : 00000000
[14Ch 0332   4] NSgCfgIrpt Flags (decoded below) : 00000000
                              Edge Triggered : 0

[150h 0336   4]                   Input base : 00000000
[154h 0340   4]                     ID Count : 00000000
[158h 0344   4]                  Output Base : 00000000
[15Ch 0348   4]             Output Reference : 00000000
[160h 0352   4]        Flags (decoded below) : 00000000
                              Single Mapping : 0

[164h 0356   1]                         Type : 04
[165h 0357   2]                       Length : 0058
[167h 0359   1]                     Revision : 01
[168h 0360   4]                     Reserved : 00000000
[16Ch 0364   4]                Mapping Count : 00000001
[170h 0368   4]               Mapping Offset : 00000044

[174h 0372   8]                 Base Address : 0000000000000000
[17Ch 0380   4]        Flags (decoded below) : 00000000
                             COHACC Override : 0
                               HTTU Override : 0
                      Proximity Domain Valid : 0
[180h 0384   4]                     Reserved : 00000000
[184h 0388   8]                VATOS Address : 0000000000000000
[18Ch 0396   4]                        Model : 00000000
[190h 0400   4]                   Event GSIV : 00000000
[194h 0404   4]                     PRI GSIV : 00000000
[198h 0408   4]                    GERR GSIV : 00000000
[19Ch 0412   4]                    Sync GSIV : 00000000
[1A0h 0416   4]             Proximity Domain : 00000000
[1A4h 0420   4]      Device ID Mapping Index : 00000000

[1A8h 0424   4]                   Input base : 00000000
[1ACh 0428   4]                     ID Count : 00000000
[1B0h 0432   4]                  Output Base : 00000000
[1B4h 0436   4]             Output Reference : 00000000
[1B8h 0440   4]        Flags (decoded below) : 00000000
                              Single Mapping : 0

[1BCh 0444   1]                         Type : 05
[1BDh 0445   2]                       Length : 003C
[1BFh 0447   1]                     Revision : 01
[1C0h 0448   4]                     Reserved : 00000000
[1C4h 0452   4]                Mapping Count : 00000001
[1C8h 0456   4]               Mapping Offset : 00000028

[1CCh 0460   8]          Page 0 Base Address : 0000000000000000
[1D4h 0468   4]      Overflow Interrupt GSIV : 00000000
[1D8h 0472   4]               Node Reference : 00000000
[1DCh 0476   8]          Page 1 Base Address : 0000000000000000

[1E4h 0484   4]                   Input base : 00000000
[1E8h 0488   4]                     ID Count : 00000000
[1ECh 0492   4]                  Output Base : 00000000
[1F0h 0496   4]             Output Reference : 00000000
[1F4h 0500   4]        Flags (decoded below) : 00000001
                              Single Mapping : 1

Raw Table Data: Length 504 (0x1F8)

    0000: 49 4F 52 54 F8 01 00 00 00 52 49 4E 54 45 4C 20  // IORT.....RINTEL 
    0010: 54 65 6D 70 6C 61 74 65 00 00 00 00 49 4E 54 4C  // Template....INTL
    0020: 25 09 20 20 06 00 00 00 34 00 00 00 00 00 00 00  // %.  ....4.......
    0030: 00 00 00 00 00 18 00 00 00 00 00 00 00 00 00 00  // ................
    0040: 00 00 00 00 01 00 00 00 00 00 00 00 01 80 00 00  // ................
    0050: 00 00 00 00 01 00 00 00 6C 00 00 00 00 00 00 00  // ........l.......
    0060: 00 00 00 00 00 00 00 00 00 5C 5F 53 42 2E 50 43  // .........\_SB.PC
    0070: 49 30 2E 44 45 56 30 00 00 00 00 00 00 00 00 00  // I0.DEV0.........
    0080: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0090: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    00A0: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    00B0: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    00C0: 00 00 00 00 00 00 00 00 00 00 00 00 02 38 00 00  // .............8..
    00D0: 00 00 00 00 01 00 00 00 24 00 00 00 00 00 00 00  // ........$.......
    00E0: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    00F0: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0100: 00 00 00 00 03 60 00 01 00 00 00 00 01 00 00 00  // .....`..........
    0110: 4C 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // L...............
    0120: 00 00 00 00 00 00 00 00 00 00 00 00 3C 00 00 00  // ............<...
    0130: 00 00 00 00 4C 00 00 00 00 00 00 00 4C 00 00 00  // ....L.......L...
    0140: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0150: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0160: 00 00 00 00 04 58 00 01 00 00 00 00 01 00 00 00  // .....X..........
    0170: 44 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // D...............
    0180: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    0190: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    01A0: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    01B0: 00 00 00 00 00 00 00 00 00 00 00 00 05 3C 00 01  // .............<..
    01C0: 00 00 00 00 01 00 00 00 28 00 00 00 00 00 00 00  // ........(.......
    01D0: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    01E0: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  // ................
    01F0: 00 00 00 00 01 00 00 00                          // ........
