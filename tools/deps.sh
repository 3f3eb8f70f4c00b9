#!/bin/sh
# deps.sh                       install the Debian packages iommon needs (both
#                               architectures), and gnu-efi for arm64 into build/
# deps.sh gnu-efi-aa64 DEST     only the latter
# As root: apt-get installs what is missing. Otherwise: print the command, fail.
# gnu-efi:arm64 is never installed: it is not Multi-Arch: same, and dpkg
# would remove the x86_64 gnu-efi for it. Its .deb is downloaded through a
# private apt state (lists and cache beside DEST, arm64 as the only
# architecture), without touching dpkg's architectures, and unpacked in DEST.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)

gnu_efi_aa64() {
	dest=$1
	[ -f "$dest/.stamp" ] && [ -f "$dest/usr/lib/crt0-efi-aarch64.o" ] && return 0
	apt=$dest.apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	set -- -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" \
		-o APT::Architecture=arm64 -o APT::Architectures=arm64
	echo "deps: fetching gnu-efi for arm64 (unpacked into $dest, not installed)"
	if ! apt-get -qq "$@" update || ! (cd "$apt" && rm -f gnu-efi_*_arm64.deb && apt-get -qq "$@" download gnu-efi:arm64); then
		echo "deps: could not download gnu-efi:arm64 from the Debian archive (network?); run:" >&2
		echo "  tools/deps.sh gnu-efi-aa64 $dest" >&2
		exit 1
	fi
	rm -rf "$dest"
	mkdir -p "$dest"
	deb=$(ls "$apt"/gnu-efi_*_arm64.deb)
	dpkg-deb -x "$deb" "$dest"
	basename "$deb" >"$dest/.stamp"
}

if [ "${1:-}" = gnu-efi-aa64 ]; then
	gnu_efi_aa64 "$2"
	exit 0
fi

pkgs="gcc make binutils gnu-efi newlib-source libcmocka-dev clang libclang-rt-14-dev clang-format-14 \
      qemu-system-x86 ovmf mtools gdisk xorriso xz-utils gnuplot-nox acpica-tools \
      gcc-aarch64-linux-gnu qemu-system-arm qemu-efi-aarch64 \
      python3 python3-yaml perl libxml2-utils"

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
if [ -n "$missing" ]; then
	cmd="apt-get install -y --no-install-recommends$missing"
	if [ "$(id -u)" != 0 ]; then
		echo "iommon needs these Debian packages:$missing" >&2
		echo "run as root:  apt-get update && $cmd" >&2
		exit 1
	fi
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
gnu_efi_aa64 "$here/build/gnu-efi-aa64"
