#!/bin/sh
# mkimage.sh IMG EFI CFG [EXTRA_FILE=DEST ...]
# A GPT disk image with one FAT32 EFI system partition holding
# EFI/BOOT/BOOTX64.EFI (EFI), iommon.cfg and iommon/results/, and the
# extras (the Makefile adds the aarch64 build as EFI/BOOT/BOOTAA64.EFI: each
# firmware starts the file named for its architecture). No root, no loop
# devices: sgdisk writes the partition table into the file, mtools writes
# the file system at the partition's offset.
set -eu
img=$1 efi=$2 cfg=$3
shift 3

size_mib=64
first=2048                      # 1 MiB: the usual first partition sector
tmp=$img.tmp
rm -f "$tmp"
truncate -s ${size_mib}M "$tmp"
sgdisk -o -n 1:$first:0 -t 1:EF00 -c 1:"iommon" "$tmp" >/dev/null 2>&1 || { echo "mkimage: sgdisk failed" >&2; exit 1; }
# the partition's last sector, as sgdisk placed it
last=$(sgdisk -p "$tmp" | awk '$1 == "1" {print $3}')
sectors=$((last - first + 1))
part="$tmp@@$((first * 512))"
"$(dirname "$0")/mkesp.sh" "$part" $sectors "$efi" "$cfg" "$@"
mv "$tmp" "$img"
echo "mkimage: $img (${size_mib} MiB, GPT, FAT32 ESP at sector $first)"
