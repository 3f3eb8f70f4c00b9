#!/bin/sh
# check-relocs.sh SO: gnu-efi's self-relocators apply RELATIVE relocations
# only (R_X86_64_RELATIVE, R_AARCH64_RELATIVE, R_RISCV_RELATIVE): any other dynamic
# relocation in the .so would crash the image at start.
set -eu
case $(readelf -hW "$1" | awk -F: '/Machine:/ {print $2}') in
*X86-64*) arch=X86_64 ;;
*AArch64*) arch=AARCH64 ;;
*RISC-V*) arch=RISCV ;;
*) echo "check-relocs: $1 is not x86-64, AArch64 or RISC-V" >&2; exit 1 ;;
esac
bad=$(readelf -rW "$1" | awk -v a="R_${arch}_" '$3 ~ "^" a && $3 != a "RELATIVE" && $3 != a "NONE" {print $3}' | sort | uniq -c)
if [ -n "$bad" ]; then
	echo "check-relocs: $1 has relocations the EFI self-relocator cannot apply:" >&2
	echo "$bad" >&2
	exit 1
fi
n=$(readelf -rW "$1" | grep -c "R_${arch}_RELATIVE" || true)
echo "check-relocs: $1: $n RELATIVE relocations, nothing else"
