#!/bin/sh
# build-newlib.sh LINK [x86_64|aarch64|riscv64]
# newlib for the EFI image of one architecture, from Debian's newlib-source,
# built once per digest of its inputs (the tarball, the target, the flags
# below and the compiler and assembler that build it) into
# CACHE/newlib-ARCH-DIGEST, a private prefix; LINK becomes a symbolic link
# to it and LINK.stamp holds its path (rewritten only when that changes:
# the Makefile's objects depend on it).
# CACHE: $IOMMON_CACHE (default ~/.cache/iommon), outside the
# checkout, so neither make clean nor a fresh clone builds it again. Two
# builds of the same digest at once: the second waits for the first (flock)
# and takes its folder; a build cut short leaves only its work folder, the
# finished one renamed into place at the end.
set -eu
link=$1
arch=${2:-x86_64}
cache=${IOMMON_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/iommon}
case $cache in /*) ;; *) cache=$PWD/$cache ;; esac
tarball=$(ls /usr/src/newlib/newlib-*.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "build-newlib: no tarball in /usr/src/newlib (package newlib-source)" >&2; exit 1; }

conf="--enable-newlib-io-c99-formats --enable-newlib-io-long-long"
case $arch in
x86_64)
	cflags="-O2 -g0 -ffreestanding -fPIC -fshort-wchar -mno-red-zone -fno-stack-protector -maccumulate-outgoing-args -DMISSING_SYSCALL_NAMES"
	tool="" target=x86_64-elf ;;
aarch64)
	# -mstrict-align: the image's own code may also touch device memory,
	# where an unaligned access faults (same flags as the monitor's objects)
	cflags="-O2 -g0 -ffreestanding -fPIC -fshort-wchar -fno-stack-protector -mstrict-align -DMISSING_SYSCALL_NAMES"
	tool="aarch64-linux-gnu-" target=aarch64-elf ;;
riscv64)
	# medany: the image is placed anywhere in the address space; lp64d:
	# the firmware's calling convention (the monitor turns the FPU on
	# before its first floating-point instruction)
	cflags="-O2 -g0 -ffreestanding -fPIC -fshort-wchar -fno-stack-protector -march=rv64gc -mabi=lp64d -mcmodel=medany -DMISSING_SYSCALL_NAMES"
	tool="riscv64-linux-gnu-" target=riscv64-elf ;;
*) echo "build-newlib: unknown target $arch (x86_64, aarch64 or riscv64)" >&2; exit 1 ;;
esac
command -v "${tool}gcc" >/dev/null || { echo "build-newlib: no ${tool}gcc (make deps)" >&2; exit 1; }

# Debian's first lines name the package's version: a new gcc or binutils
# from an update is a new digest
compilers="$("${tool}gcc" --version | head -n 1); $("${tool}as" --version | head -n 1)"
digest=$( (sha256sum "$tarball" | cut -d' ' -f1; echo "$target $cflags $conf"; echo "$compilers") | sha256sum | cut -c1-16)
dir=$cache/newlib-$arch-$digest

mkdir -p "$cache"
exec 9>"$dir.lock"
flock 9
if [ -f "$dir/.stamp" ]; then
	echo "newlib $arch: from the cache at $dir"
else
	work=$(mktemp -d "$dir.work.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	trap 'exit 1' INT TERM HUP
	mkdir -p "$work/src" "$work/obj"
	tar -C "$work/src" -xf "$tarball"
	src=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	echo "newlib $arch: building $(basename "$tarball") for $target (once, into the cache at $dir)"
	cd "$work/obj"
	# the prefix is only where make install puts it: nothing built
	# remembers it, so the folder may be renamed after
	"$src/configure" --target=$target --prefix="$work/prefix" --disable-multilib \
		--disable-newlib-supplied-syscalls --disable-nls \
		$conf \
		CC_FOR_TARGET=${tool}gcc AR_FOR_TARGET=${tool}ar AS_FOR_TARGET=${tool}as LD_FOR_TARGET=${tool}ld \
		RANLIB_FOR_TARGET=${tool}ranlib NM_FOR_TARGET=${tool}nm OBJDUMP_FOR_TARGET=${tool}objdump \
		CFLAGS_FOR_TARGET="$cflags" >configure.log 2>&1 || { tail -20 configure.log; exit 1; }
	make -j"$(nproc)" all-target-newlib >build.log 2>&1 || { tail -40 build.log; exit 1; }
	make install-target-newlib >install.log 2>&1 || { tail -20 install.log; exit 1; }
	cd /
	printf '%s\n%s\n%s\n' "$(basename "$tarball")" "$target $cflags $conf" "$compilers" >"$work/prefix/.stamp"
	# what a cut-short build left there (no stamp) goes first
	rm -rf "$dir"
	mv -T "$work/prefix" "$dir"
fi
exec 9>&-

# a real folder here is newlib as builds before the cache made it
[ -L "$link" ] || rm -rf "$link"
mkdir -p "$(dirname "$link")"
ln -sfn "$dir" "$link"
[ "$(cat "$link.stamp" 2>/dev/null)" = "$dir" ] || echo "$dir" >"$link.stamp"
