#!/bin/sh
# Installs the Debian packages iommon needs, and nothing else.
# As root: apt-get installs what is missing. Otherwise: print the command, fail.
set -eu

pkgs="gcc make binutils gnu-efi newlib-source libcmocka-dev clang libclang-rt-14-dev clang-format-14 \
      qemu-system-x86 ovmf mtools gdisk xz-utils gnuplot-nox acpica-tools"

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

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
