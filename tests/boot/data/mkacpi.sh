#!/bin/sh
# mkacpi.sh NAME: writes the ACPI table NAME to standard output, byte for
# byte, for QEMU's -acpitable. Each table is sound (lengths, checksum) but
# for the one address under test, so a refusal can only be about that
# address. POSIX sh, od and awk only. `sh mkacpi.sh all` rewrites the
# .dat files here (the tables below that name fixed addresses); tools/test.sh
# checks that the committed files match.
#
#   drhd-in-ram     DMAR: one INCLUDE_PCI_ALL DRHD whose registers are at
#                   16 MiB, conventional RAM in a 1 GiB guest
#   spcr-in-ram     SPCR: a 16550 in system memory at 16 MiB
#   spcr-com1       SPCR: the 16550 at I/O port 0x3f8, OVMF's own console
#   hpet-noncanon   HPET: event timer block at 0x800000000000, not canonical
#   mcfg-in-ram     MCFG: segment 0, buses 0-0, ECAM at 16 MiB
#   ivrs-absent     IVRS: an IVHD whose IOMMU function (00:05.0) and one
#                   selected device (00:06.0) are not on the machine, with
#                   registers at 16 MiB (RAM), and an IVMD for 00:07.0 (not
#                   there either) whose range runs past 2^64 (an error: the
#                   table is not used)
#
# These name addresses the firmware chose: where it put ECAM and the
# largest 32-bit BAR differs by firmware (OVMF 2022.11: ECAM 0xb0000000,
# edu's BAR0 0xc0000000; 2025.02: elsewhere). They are written for the
# machine in hand: ECAM=0x... BAR=0x... sh mkacpi.sh NAME, the two read off
# that machine by tools/boottest.sh's `layout` probe; nothing of them is
# committed.
#
#  =drhd-in-ecam    DMAR: dmar0 at 0xfed90000 (no scope) and an
#                   INCLUDE_PCI_ALL dmar1 on 00:01.0's configuration header
#                   in ECAM (ECAM + 0x8000)
#  =ivhd-in-ecam    IVRS: an IVHD selecting every device, its registers on
#                   00:01.0's configuration header in ECAM, and one whose
#                   registers are dmar0's
#  =hpet-in-bar     HPET: event timer block at BAR (edu's 1 MiB BAR0, the
#                   largest 32-bit BAR of the machine)
#  =spcr-in-ecam    SPCR: a 16550 in system memory on 00:01.0's
#                   configuration header in ECAM
set -eu
RAM=0x1000000
FIXED="drhd-in-ram spcr-in-ram spcr-com1 hpet-noncanon mcfg-in-ram ivrs-absent"

layout() { # the firmware's addresses a layout table needs, from the environment
	case ${ECAM:-}:${BAR:-} in
	0x*:0x*) ;;
	*) echo "mkacpi.sh: $1 names the firmware's layout: ECAM=0x... BAR=0x... (tools/boottest.sh's layout probe reads them off the machine)" >&2; exit 1 ;;
	esac
	CFG01=$(printf '0x%x' $((ECAM + 0x8000))) # 00:01.0's configuration header
}

bytes="" # the table so far: hex pairs separated by spaces

u() { # u WIDTH VALUE: little-endian
	i=0
	while [ "$i" -lt "$1" ]; do
		bytes="$bytes $(printf '%02x' $(( ($2 >> (8 * i)) & 255 )))"
		i=$((i + 1))
	done
}

ascii() { # ascii WIDTH TEXT: padded with spaces
	t=$2
	i=0
	while [ "$i" -lt "$1" ]; do
		c=${t%"${t#?}"}
		t=${t#?}
		if [ -n "$c" ]; then
			bytes="$bytes $(printf '%s' "$c" | od -An -tx1 | tr -d ' \n')"
		else
			bytes="$bytes 20"
		fi
		i=$((i + 1))
	done
}

zeros() {
	i=0
	while [ "$i" -lt "$1" ]; do
		bytes="$bytes 00"
		i=$((i + 1))
	done
}

header() { # header SIG LENGTH REVISION OEM_TABLE_ID (checksum filled in by out)
	ascii 4 "$1"
	u 4 "$2"
	u 1 "$3"
	u 1 0
	ascii 6 IOMMON
	ascii 8 "$4"
	u 4 1
	ascii 4 IOMN
	u 4 1
}

gas() { # gas SPACE WIDTH ACCESS ADDRESS (ACPI 6.5, 5.2.3.2)
	u 1 "$1"
	u 1 "$2"
	u 1 0
	u 1 "$3"
	u 8 "$4"
}

spcr16550() { # spcr16550 SPACE ADDRESS: an SPCR's body naming a 16550, 115200
	u 1 0 # 16550
	zeros 3
	gas "$1" 8 1 "$2"
	u 1 0 # no interrupt
	u 1 0
	u 4 0
	u 1 7 # 115200
	u 1 0
	u 1 1
	u 1 0
	u 1 0
	u 1 0
	u 2 0xffff # not a PCI device
	u 2 0xffff
	zeros 3
	u 4 0
	u 1 0
	u 4 0
}

out() { # the bytes, with the checksum at offset 9 making the sum zero
	printf '%s\n' "$bytes" | awk '
	function hex(s,  d) { d = index("0123456789abcdef", substr(s, 1, 1)) - 1; return d * 16 + index("0123456789abcdef", substr(s, 2, 1)) - 1 }
	{ for (i = 1; i <= NF; i++) { b[i] = hex($i); if (i != 10) sum += b[i] } n = NF }
	END {
		b[10] = (256 - sum % 256) % 256
		for (i = 1; i <= n; i++) printf "\\%03o", b[i]
		printf "\n"
	}' | { read -r esc; printf "$esc"; }
}

table() {
	bytes=""
	case $1 in
	drhd-in-ram)
		header DMAR 64 1 DRHDRAM
		u 1 38 # host address width - 1
		u 1 1  # flags: INTR_REMAP
		zeros 10
		u 2 0	 # DRHD
		u 2 16	 # its length: no scopes
		u 1 1	 # INCLUDE_PCI_ALL
		u 1 0	 # size: one page
		u 2 0	 # segment
		u 8 $RAM # register base
		;;
	spcr-in-ram)
		header SPCR 80 2 SPCRRAM
		spcr16550 0 $RAM
		;;
	spcr-com1)
		header SPCR 80 2 SPCRCOM1
		spcr16550 1 0x3f8
		;;
	hpet-noncanon)
		header HPET 56 1 HPETNCAN
		u 4 0x8086a201 # event timer block id
		gas 0 64 0 0x800000000000
		u 1 0
		u 2 0x80
		u 1 0
		;;
	hpet-in-bar)
		layout "$1"
		header HPET 56 1 HPETBAR
		u 4 0x8086a201 # event timer block id
		gas 0 64 0 "$BAR"
		u 1 0
		u 2 0x80
		u 1 0
		;;
	spcr-in-ecam)
		layout "$1"
		header SPCR 80 2 SPCRECAM
		spcr16550 0 "$CFG01"
		;;
	mcfg-in-ram)
		header MCFG 60 1 MCFGRAM
		zeros 8
		u 8 $RAM
		u 2 0 # segment
		u 1 0 # buses 0-0
		u 1 0
		u 4 0
		;;
	ivrs-absent)
		header IVRS 112 2 IVRSABS
		u 4 0x00203040 # IVinfo: 64-bit VA, 48-bit PA, 48-bit GVA
		zeros 8
		u 1 0x10       # IVHD 10h at 0x30
		u 1 0
		u 2 32
		u 2 0x0028     # the IOMMU: 00:05.0
		u 2 0x40       # its capability
		u 8 $RAM       # register base
		u 2 0          # segment
		u 2 0          # IOMMU info
		u 4 0          # feature reporting
		u 1 2          # select 00:06.0 (at 0x48)
		u 2 0x0030
		u 1 0
		u 1 2          # select 00:00.0
		u 2 0
		u 1 0
		u 1 0x21       # IVMD 21h at 0x50: unity, 00:07.0
		u 1 1
		u 2 32
		u 2 0x0038
		u 2 0
		zeros 8
		u 4 0xfffff000 # start 0xfffffffffffff000 (sh arithmetic is signed 64-bit)
		u 4 0xffffffff
		u 8 0x2000
		;;
	drhd-in-ecam)
		layout "$1"
		header DMAR 80 1 DRHDECAM
		u 1 38 # host address width - 1
		u 1 0  # flags
		zeros 10
		u 2 0          # DRHD at 0x30: dmar0, no scope
		u 2 16
		u 1 0
		u 1 0
		u 2 0
		u 8 0xfed90000
		u 2 0          # DRHD at 0x40: dmar1, INCLUDE_PCI_ALL, in ECAM
		u 2 16
		u 1 1
		u 1 0
		u 2 0
		u 8 "$CFG01"
		;;
	ivhd-in-ecam)
		layout "$1"
		header IVRS 104 2 IVHDECAM
		u 4 0x00203040 # IVinfo: 64-bit VA, 48-bit PA, 48-bit GVA
		zeros 8
		u 1 0x10       # IVHD 10h at 0x30: amdvi0
		u 1 0
		u 2 28
		u 2 0x0018     # the IOMMU: 00:03.0 (what the firmware claims)
		u 2 0x40
		u 8 "$CFG01" # register base: 00:01.0's configuration header (the USB stick's xHCI)
		u 2 0
		u 2 0
		u 4 0
		u 1 1          # all devices
		u 2 0
		u 1 0
		u 1 0x10       # IVHD 10h at 0x4c: amdvi1, on dmar0's window
		u 1 0
		u 2 28
		u 2 0x0020     # the IOMMU: 00:04.0
		u 2 0x40
		u 8 0xfed90000
		u 2 0
		u 2 0
		u 4 0
		u 1 2          # select 00:1f.0
		u 2 0x00f8
		u 1 0
		;;
	*)
		echo "mkacpi.sh: unknown table $1" >&2
		exit 1
		;;
	esac
	out
}

if [ "$1" = all ]; then
	cd "$(dirname "$0")"
	for t in $FIXED; do
		sh "$0" "$t" >"$t.dat"
	done
	exit 0
fi
if [ "$1" = fixed ]; then # the tables committed beside this script
	echo $FIXED
	exit 0
fi
table "$1"
