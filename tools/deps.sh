#!/bin/sh
# deps.sh                       install the Debian packages iommon needs (every
#                               architecture), gnu-efi for arm64 and riscv64 and
#                               QEMU 10.0 into build/
# deps.sh gnu-efi-aa64 DEST     only the latter
# deps.sh gnu-efi-rv64 DEST     gnu-efi for riscv64, from Debian 13 (trixie:
#                               Debian 12 has none), unpacked in DEST
# deps.sh qemu10 DEST           Debian 13's QEMU 10.0 as Debian 12's
#                               bookworm-backports builds it, unpacked in DEST
#                               (the system's QEMU and apt are left alone)
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
		-o APT::Architecture=arm64 -o APT::Architectures=arm64 -o APT::Sandbox::User=root
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

# gnu-efi for riscv64: Debian 12 has no riscv64 architecture, Debian 13
# (trixie) does. The same private apt state as arm64's, with a sources list
# naming only trixie (its Release is signed by a key Debian 12's keyring
# holds), the package unpacked in DEST. Only its headers, crt0, linker
# script and static libraries are used: nothing from trixie runs here.
gnu_efi_rv64() {
	case $1 in /*) dest=$1 ;; *) dest=$PWD/$1 ;; esac # apt reads Dir::Etc paths below /etc/apt unless absolute
	[ -f "$dest/.stamp" ] && [ -f "$dest/usr/lib/crt0-efi-riscv64.o" ] && return 0
	apt=$dest.apt
	mirror=$(debian_mirror)
	mirror=${mirror:-http://deb.debian.org/debian}
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$apt/sources.list"
	set -- -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" \
		-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts="$apt/parts" \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$apt/parts" \
		-o APT::Architecture=riscv64 -o APT::Architectures=riscv64 -o APT::Sandbox::User=root
	echo "deps: fetching gnu-efi for riscv64 from $mirror trixie (unpacked into $dest, not installed)"
	if ! apt-get -qq "$@" update || ! (cd "$apt" && rm -f gnu-efi_*_riscv64.deb && apt-get -qq "$@" download gnu-efi:riscv64); then
		echo "deps: could not download gnu-efi:riscv64 from $mirror trixie (network?); run:" >&2
		echo "  tools/deps.sh gnu-efi-rv64 $dest" >&2
		exit 1
	fi
	rm -rf "$dest"
	mkdir -p "$dest"
	deb=$(ls "$apt"/gnu-efi_*_riscv64.deb)
	dpkg-deb -x "$deb" "$dest"
	basename "$deb" >"$dest/.stamp"
}

# The Debian mirror the machine's own apt sources name for bookworm (one-line
# or deb822), else deb.debian.org.
debian_mirror() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
			/^[ \t]*#/ { next }
			/^deb[ \t]/ { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) break
				if ($(i + 1) == "bookworm") { print $i; exit } next }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") found = 1 }
			/^[ \t]*$/ { if (found && uri) { print uri; exit } uri = ""; found = 0 }
			END { if (found && uri) print uri }' "$f"
	done | head -n 1
}

# QEMU 10.0 from bookworm-backports: its .debs through a private apt state
# (a sources list of that one suite, lists and cache beside DEST, no
# preferences), unpacked with dpkg-deb; run by tools/qemu-run.sh with
# QEMU=DEST (its ROMs first, then the system's).
QEMU10_PKGS="qemu-system-x86 qemu-system-arm qemu-system-riscv qemu-system-common qemu-system-data qemu-system-modules-opengl"
qemu10() {
	dest=$1
	[ -f "$dest/.stamp" ] && [ -x "$dest/usr/bin/qemu-system-x86_64" ] && [ -x "$dest/usr/bin/qemu-system-aarch64" ] &&
		[ -x "$dest/usr/bin/qemu-system-riscv64" ] && return 0
	apt=$dest.apt
	mirror=$(debian_mirror)
	mirror=${mirror:-http://deb.debian.org/debian}
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main" >"$apt/sources.list"
	set -- -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" \
		-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts="$apt/parts" \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$apt/parts" -o APT::Sandbox::User=root
	echo "deps: fetching QEMU 10.0 from $mirror bookworm-backports (unpacked into $dest, not installed)"
	# shellcheck disable=SC2086
	if ! apt-get -qq "$@" update || ! (cd "$apt" && rm -f ./*.deb && apt-get -qq "$@" download $QEMU10_PKGS); then
		echo "deps: could not download QEMU 10.0 from $mirror bookworm-backports (network?); run:" >&2
		echo "  tools/deps.sh qemu10 $dest" >&2
		return 1
	fi
	rm -rf "$dest"
	mkdir -p "$dest"
	for deb in "$apt"/*.deb; do
		dpkg-deb -x "$deb" "$dest"
	done
	"$dest/usr/bin/qemu-system-x86_64" --version | head -n 1 >"$dest/.stamp"
	(cd "$apt" && ls ./*.deb) >>"$dest/.stamp"
}

if [ "${1:-}" = gnu-efi-aa64 ]; then
	gnu_efi_aa64 "$2"
	exit 0
fi
if [ "${1:-}" = gnu-efi-rv64 ]; then
	gnu_efi_rv64 "$2"
	exit 0
fi
if [ "${1:-}" = qemu10 ]; then
	qemu10 "$2" || exit 1
	exit 0
fi

pkgs="gcc make binutils gnu-efi newlib-source libcmocka-dev clang libclang-rt-14-dev clang-format-14 \
      qemu-system-x86 ovmf mtools gdisk xorriso xz-utils gnuplot-nox acpica-tools \
      gcc-aarch64-linux-gnu qemu-system-arm qemu-efi-aarch64 \
      gcc-riscv64-linux-gnu u-boot-qemu opensbi \
      python3 python3-yaml perl libxml2-utils chromium \
      lava-dispatcher python3-labgrid python3-pytest python3-serial iproute2"

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
	# the suite runs LAVA jobs with lava-run alone; the worker daemon the
	# package enables would wait for a LAVA server nobody configured
	case " $missing " in
	*" lava-dispatcher "*)
		if [ -d /run/systemd/system ] && systemctl is-enabled -q lava-worker 2>/dev/null; then
			systemctl disable -q --now lava-worker && echo "deps: lava-worker disabled (iommon runs lava-run, no worker)"
		fi
		;;
	esac
fi
gnu_efi_aa64 "$here/build/gnu-efi-aa64"
gnu_efi_rv64 "$here/build/gnu-efi-rv64"
# only make test's second pass needs it: without it make run still runs,
# and make test fails those boots naming the missing QEMU
qemu10 "$here/build/qemu-10.0" || echo "deps: warning: no QEMU 10.0 in build/qemu-10.0: make test's QEMU 10.0 boots will fail" >&2
