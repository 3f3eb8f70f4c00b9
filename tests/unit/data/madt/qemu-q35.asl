/*
 * QEMU 7.2 q35's MADT with one CPU (hw/i386/acpi-common.c pc_madt_cpu_entry,
 * build_madt): the local APICs' window at 0xfee00000, PC-AT compatible; the
 * I/O APIC (ACPI_BUILD_IOAPIC_ID 0) at 0xfec00000 from GSI 0; IRQ 0 on GSI 2;
 * the PCI IRQs 5, 9, 10 and 11 level, active high; LINT1 the NMI.
 */
[0004]                          Signature : "APIC"    [Multiple APIC Description Table (MADT)]
[0004]                       Table Length : 00000000
[0001]                           Revision : 01
[0001]                           Checksum : 00
[0006]                             Oem ID : "BOCHS "
[0008]                       Oem Table ID : "BXPC    "
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "BXPC"
[0004]              Asl Compiler Revision : 00000001

[0004]                 Local Apic Address : FEE00000
[0004]              Flags (decoded below) : 00000001
                      PC-AT Compatibility : 1

[0001]                      Subtable Type : 00 [Processor Local APIC]
[0001]                             Length : 08
[0001]                       Processor ID : 00
[0001]                      Local Apic ID : 00
[0004]              Flags (decoded below) : 00000001
                        Processor Enabled : 1
                   Runtime Online Capable : 0

[0001]                      Subtable Type : 01 [I/O APIC]
[0001]                             Length : 0C
[0001]                        I/O Apic ID : 00
[0001]                           Reserved : 00
[0004]                            Address : FEC00000
[0004]                          Interrupt : 00000000

[0001]                      Subtable Type : 02 [Interrupt Source Override]
[0001]                             Length : 0A
[0001]                                Bus : 00
[0001]                             Source : 00
[0004]                          Interrupt : 00000002
[0002]              Flags (decoded below) : 0000
                                 Polarity : 0
                             Trigger Mode : 0

[0001]                      Subtable Type : 02 [Interrupt Source Override]
[0001]                             Length : 0A
[0001]                                Bus : 00
[0001]                             Source : 05
[0004]                          Interrupt : 00000005
[0002]              Flags (decoded below) : 000D
                                 Polarity : 1
                             Trigger Mode : 3

[0001]                      Subtable Type : 02 [Interrupt Source Override]
[0001]                             Length : 0A
[0001]                                Bus : 00
[0001]                             Source : 09
[0004]                          Interrupt : 00000009
[0002]              Flags (decoded below) : 000D
                                 Polarity : 1
                             Trigger Mode : 3

[0001]                      Subtable Type : 02 [Interrupt Source Override]
[0001]                             Length : 0A
[0001]                                Bus : 00
[0001]                             Source : 0A
[0004]                          Interrupt : 0000000A
[0002]              Flags (decoded below) : 000D
                                 Polarity : 1
                             Trigger Mode : 3

[0001]                      Subtable Type : 02 [Interrupt Source Override]
[0001]                             Length : 0A
[0001]                                Bus : 00
[0001]                             Source : 0B
[0004]                          Interrupt : 0000000B
[0002]              Flags (decoded below) : 000D
                                 Polarity : 1
                             Trigger Mode : 3

[0001]                      Subtable Type : 04 [Local APIC NMI]
[0001]                             Length : 06
[0001]                       Processor ID : FF
[0002]              Flags (decoded below) : 0000
                                 Polarity : 0
                             Trigger Mode : 0
[0001]               Interrupt Input LINT : 01
