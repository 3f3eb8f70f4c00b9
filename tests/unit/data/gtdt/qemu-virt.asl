/*
 * QEMU 7.2 virt's GTDT (hw/arm/virt-acpi-build.c build_gtdt): revision 2,
 * timers at INTIDs 29, 30, 27, 26, level, the non-secure EL1 one always-on;
 * no memory-mapped counter; no platform timers.
 */
[0004]                          Signature : "GTDT"    [Generic Timer Description Table]
[0004]                       Table Length : 000000E8
[0001]                           Revision : 02
[0001]                           Checksum : 5D
[0006]                             Oem ID : "BOCHS "
[0008]                       Oem Table ID : "BXPC    "
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20190108

[0008]              Counter Block Address : FFFFFFFFFFFFFFFF
[0004]                           Reserved : 00000000

[0004]               Secure EL1 Interrupt : 0000001D
[0004]          EL1 Flags (decoded below) : 00000000
                             Trigger Mode : 0
                                 Polarity : 0
                                Always On : 0

[0004]           Non-Secure EL1 Interrupt : 0000001E
[0004]         NEL1 Flags (decoded below) : 00000004
                             Trigger Mode : 0
                                 Polarity : 0
                                Always On : 1

[0004]            Virtual Timer Interrupt : 0000001B
[0004]           VT Flags (decoded below) : 00000000
                             Trigger Mode : 0
                                 Polarity : 0
                                Always On : 0

[0004]           Non-Secure EL2 Interrupt : 0000001A
[0004]         NEL2 Flags (decoded below) : 00000000
                             Trigger Mode : 0
                                 Polarity : 0
                                Always On : 0
[0008]         Counter Read Block Address : FFFFFFFFFFFFFFFF

[0004]               Platform Timer Count : 00000000
[0004]              Platform Timer Offset : 00000000
