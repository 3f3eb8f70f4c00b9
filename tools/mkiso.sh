#!/bin/sh
# mkiso.sh ISO EFI CFG [EXTRA_FILE=DEST ...]
# An El Torito UEFI-bootable ISO 9660 image for a BMC's virtual CD (most
# take ISO files only). UEFI firmware boots a CD from its El Torito boot
# image (platform id 0xEF, no emulation) and reads no ISO 9660 itself, so the
# boot image is a FAT file system holding what the stick holds (mkesp.sh):
# EFI/BOOT/BOOTX64.EFI, the extras (BOOTAA64.EFI), and iommon.cfg, the plan
# the monitor runs. The same files stand in the ISO 9660 tree too, for a
# person or a tool that opens the CD; the firmware and the monitor read the
# FAT image only. A CD takes no results: they go to the console.
set -eu
iso=$1 efi=$2 cfg=$3
shift 3
here=$(dirname "$0")
tree=$(mktemp -d "${TMPDIR:-/tmp}/iommon-iso.XXXXXX")
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/EFI/BOOT" "$tree/boot"
cp "$efi" "$tree/EFI/BOOT/BOOTX64.EFI"
cp "$cfg" "$tree/iommon.cfg"
bytes=$(stat -c %s "$efi" "$cfg" | awk '{ s += $1 } END { print s }')
for extra in "$@"; do
	mkdir -p "$tree/$(dirname "${extra#*=}")"
	cp "${extra%%=*}" "$tree/${extra#*=}"
	bytes=$((bytes + $(stat -c %s "${extra%%=*}")))
done
# the files, a quarter more and 512 KiB for the FAT's own tables, in
# whole 2048-byte CD sectors (El Torito counts the image in those)
sectors=$(((bytes + bytes / 4 + 524288 + 2047) / 2048 * 4))
truncate -s $((sectors * 512)) "$tree/boot/efi.img"
"$here/mkesp.sh" "$tree/boot/efi.img" $sectors "$efi" "$cfg" "$@"
rm -f "$iso.tmp"
xorriso -as mkisofs -quiet -o "$iso.tmp" -R -J -V IOMMON -e boot/efi.img -no-emul-boot "$tree" ||
	{ echo "mkiso: xorriso failed" >&2; exit 1; }
mv "$iso.tmp" "$iso"
echo "mkiso: $iso ($(($(stat -c %s "$iso") / 1024)) KiB, El Torito EFI boot image of $((sectors / 2)) KiB)"
