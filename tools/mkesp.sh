#!/bin/sh
# mkesp.sh FAT SECTORS EFI CFG [EXTRA_FILE=DEST ...]
# A FAT file system of SECTORS 512-byte sectors written at FAT (an mtools
# image spec: a file, or FILE@@OFFSET inside a disk image) holding what every
# iommon medium carries: EFI/BOOT/BOOTX64.EFI (EFI), iommon.cfg, the folder
# iommon/results/ and the extras (EFI/BOOT/BOOTAA64.EFI: each firmware starts
# the file named for its architecture). The GPT stick (mkimage.sh) and the
# ISO's El Torito image (mkiso.sh) are both made by it.
set -eu
fat=$1 sectors=$2 efi=$3 cfg=$4
shift 4
export MTOOLS_SKIP_CHECK=1
# FAT32 for the stick (-F); a small El Torito image is FAT12/16, as mformat picks
fs=""
[ "$sectors" -ge 65536 ] && fs=-F
mformat -i "$fat" $fs -T "$sectors" -h 16 -s 32 -v IOMMON ::
mmd -i "$fat" ::/EFI ::/EFI/BOOT ::/iommon ::/iommon/results
mcopy -i "$fat" "$efi" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$fat" "$cfg" ::/iommon.cfg
for extra in "$@"; do
	mcopy -i "$fat" "${extra%%=*}" "::/${extra#*=}"
done
