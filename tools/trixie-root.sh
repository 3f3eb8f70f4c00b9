#!/bin/sh
# trixie-root.sh: a Debian 13 (trixie) root as a tool of the suite: QEMU 11.1
# from trixie-backports with trixie's firmware (edk2 2025.02, OpenSBI 1.6,
# U-Boot 2025.01), and trixie's toolchain, which builds the monitor there.
# QEMU 11.1 needs trixie's glibc; it runs inside the root, never installed
# on the host.
#
#   trixie-root.sh path        print where the root is (made or not)
#   trixie-root.sh status      exit 0 when the root is made and current, else
#                              say why and how to make it (exit 1)
#   trixie-root.sh make        make it (debootstrap, as root), or bring it up
#                              to date when its package list changed
#   trixie-root.sh run [--bind DIR]... [--] CMD [ARG]...
#                              run CMD in the root, in a mount namespace of
#                              its own (nothing leaks to the host): /proc,
#                              /dev, /sys, this checkout, the working folder,
#                              /tmp and each DIR bound at the same paths;
#                              CMD runs in the same working folder. The
#                              process keeps its PID (exec all the way), so
#                              timeout and kill reach CMD itself.
#
# Where: $IOMMON_CACHE/trixie-root (default ~/.cache/iommon): outside the
# checkout, so neither make clean nor a fresh clone pays for it again
# (debootstrap about 25 s, the packages about 1.3 GB).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${IOMMON_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/iommon}
root=$cache/trixie-root

# What the root holds. From trixie-backports: QEMU 11.1 (riscv64 has its
# own package there). From trixie: its firmware, and what `make` needs to
# build the three monitors and their image (tools/deps.sh's build half).
QEMU_PKGS="qemu-system-x86 qemu-system-arm qemu-system-riscv"
MAIN_PKGS="ovmf qemu-efi-aarch64 qemu-efi-riscv64 opensbi u-boot-qemu \
gcc libc6-dev make binutils ccache gnu-efi newlib-source gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu \
mtools gdisk xorriso xz-utils ca-certificates"
want=$(printf '%s\n' "v1" "$QEMU_PKGS" "$MAIN_PKGS" | sha256sum | cut -c1-16)

status() {
	if [ ! -x "$root/usr/bin/qemu-system-x86_64" ] || [ ! -f "$root/.iommon-stamp" ]; then
		echo "no Debian 13 root at $root (make it, as root: tools/trixie-root.sh make)"
		return 1
	fi
	if [ "$(cat "$root/.iommon-stamp")" != "$want" ]; then
		echo "the Debian 13 root at $root holds an older package list (as root: tools/trixie-root.sh make)"
		return 1
	fi
	return 0
}

# in the root, as it stands: no namespace (for make's apt-get only)
in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}

make_root() {
	[ "$(id -u)" = 0 ] || { echo "trixie-root: making the root needs root (debootstrap, chroot)" >&2; exit 1; }
	status >/dev/null && return 0
	command -v debootstrap >/dev/null || { echo "trixie-root: no debootstrap (apt-get install debootstrap)" >&2; exit 1; }
	mirror=$("$here/tools/deps.sh" mirror)
	if [ ! -x "$root/usr/bin/apt-get" ]; then
		echo "trixie-root: debootstrap --variant=minbase trixie $root $mirror"
		rm -rf "$root.new"
		mkdir -p "$cache"
		if ! debootstrap --variant=minbase trixie "$root.new" "$mirror" >"$cache/debootstrap.log" 2>&1; then
			echo "trixie-root: debootstrap failed; its log: $cache/debootstrap.log" >&2
			tail -n 5 "$cache/debootstrap.log" >&2
			exit 1
		fi
		rm -rf "$root"
		mv "$root.new" "$root"
	fi
	printf 'Types: deb\nURIs: %s\nSuites: trixie trixie-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$mirror" >"$root/etc/apt/sources.list.d/trixie.sources"
	rm -f "$root/etc/apt/sources.list"
	echo "trixie-root: installing QEMU 11.1 (trixie-backports), firmware and toolchain (trixie) in $root"
	mounted=""
	trap 'for m in $mounted; do umount -l "$m" 2>/dev/null || true; done' EXIT
	mount --bind /proc "$root/proc" && mounted="$root/proc"
	mount --rbind /dev "$root/dev" && mounted="$root/dev $mounted"
	in_root apt-get update -qq
	# shellcheck disable=SC2086
	in_root apt-get install -y -qq --no-install-recommends $MAIN_PKGS >/dev/null
	# shellcheck disable=SC2086
	in_root apt-get install -y -qq --no-install-recommends -t trixie-backports $QEMU_PKGS >/dev/null
	in_root apt-get clean
	echo "$want" >"$root/.iommon-stamp"
	echo "trixie-root: ready: $(in_root qemu-system-x86_64 --version | head -n 1), $(du -shx "$root" 2>/dev/null | cut -f1)"
}

run() {
	binds=""
	while [ $# -gt 0 ]; do
		case $1 in
		# the folder itself, not a link to it: build/'s links into the
		# cache (tools/deps.sh) resolve in the root to the same path
		--bind) binds="$binds $(cd "$2" && pwd -P)"; shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || { echo "trixie-root: run: no command" >&2; exit 2; }
	status >&2 || exit 2
	[ "$(id -u)" = 0 ] || { echo "trixie-root: run needs root (a mount namespace and chroot)" >&2; exit 2; }
	cwd=$(pwd)
	# unshare makes every mount private in its new namespace by default,
	# which needs / to be a mount point: in a chroot (a Debian root the
	# suite itself runs in) it is not, and the mounts are taken as they
	# are, which leaks nothing to the parent only where none is shared
	prop=""
	if ! mountpoint -q / 2>/dev/null; then
		if grep -q ' shared:' /proc/self/mountinfo 2>/dev/null; then
			echo "trixie-root: run: in a chroot whose mounts are shared: a mount namespace here would leak its mounts" >&2
			exit 2
		fi
		prop="--propagation unchanged"
	fi
	# shellcheck disable=SC2016,SC2086
	exec unshare -m $prop sh -c '
		root=$1 cwd=$2
		shift 2
		mount --bind /proc "$root/proc"
		mount --rbind /dev "$root/dev"
		mount --rbind /sys "$root/sys"
		while [ "$1" != -- ]; do
			mkdir -p "$root$1"
			mount --bind "$1" "$root$1"
			shift
		done
		shift
		exec chroot "$root" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
	' sh "$root" "$cwd" "$here" "$cwd" /tmp $binds -- "$@"
}

case ${1:-} in
path) echo "$root" ;;
status) status ;;
make) make_root ;;
run) shift; run "$@" ;;
*) echo "usage: trixie-root.sh path|status|make|run [--bind DIR]... CMD..." >&2; exit 2 ;;
esac
