#!/bin/sh
# gnu-efi's self-relocator applies R_X86_64_RELATIVE only: any other
# dynamic relocation in the .so would crash the image at start.
set -eu
bad=$(readelf -rW "$1" | awk '/^[0-9a-f]+ +[0-9a-f]+ R_X86_64_/ && $3 != "R_X86_64_RELATIVE" && $3 != "R_X86_64_NONE" {print $3}' | sort | uniq -c)
if [ -n "$bad" ]; then
	echo "check-relocs: $1 has relocations the EFI self-relocator cannot apply:" >&2
	echo "$bad" >&2
	exit 1
fi
n=$(readelf -rW "$1" | grep -c R_X86_64_RELATIVE || true)
echo "check-relocs: $1: $n RELATIVE relocations, nothing else"
