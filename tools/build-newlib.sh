#!/bin/sh
# build-newlib.sh PREFIX [x86_64|aarch64|riscv64]
# Builds newlib for the EFI image of one architecture from Debian's
# newlib-source into PREFIX (a private prefix). Inputs: the tarball, the
# target and the flags below; the Makefile rebuilds only when any of them
# changes (the stamp holds their digest).
set -eu
prefix=$1
arch=${2:-x86_64}
tarball=$(ls /usr/src/newlib/newlib-*.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "build-newlib: no tarball in /usr/src/newlib (package newlib-source)" >&2; exit 1; }

conf="--enable-newlib-io-c99-formats --enable-newlib-io-long-long"
case $arch in
x86_64)
	cflags="-O2 -g0 -ffreestanding -fPIC -fshort-wchar -mno-red-zone -fno-stack-protector -maccumulate-outgoing-args -DMISSING_SYSCALL_NAMES"
	tool="" target=x86_64-elf
	# the x86_64 digest stays what it was before aarch64 existed: no rebuild
	key="$cflags $conf" ;;
aarch64)
	# -mstrict-align: the image's own code may also touch device memory,
	# where an unaligned access faults (same flags as the monitor's objects)
	cflags="-O2 -g0 -ffreestanding -fPIC -fshort-wchar -fno-stack-protector -mstrict-align -DMISSING_SYSCALL_NAMES"
	tool="aarch64-linux-gnu-" target=aarch64-elf
	key="$arch $cflags $conf" ;;
riscv64)
	# medany: the image is placed anywhere in the address space; lp64d:
	# the firmware's calling convention (the monitor turns the FPU on
	# before its first floating-point instruction)
	cflags="-O2 -g0 -ffreestanding -fPIC -fshort-wchar -fno-stack-protector -march=rv64gc -mabi=lp64d -mcmodel=medany -DMISSING_SYSCALL_NAMES"
	tool="riscv64-linux-gnu-" target=riscv64-elf
	key="$arch $cflags $conf" ;;
*) echo "build-newlib: unknown target $arch (x86_64, aarch64 or riscv64)" >&2; exit 1 ;;
esac
command -v "${tool}gcc" >/dev/null || { echo "build-newlib: no ${tool}gcc (make deps)" >&2; exit 1; }

want=$( (sha256sum "$tarball"; echo "$key") | sha256sum | cut -c1-64)
if [ -f "$prefix/.stamp" ] && [ "$(cat "$prefix/.stamp")" = "$want" ]; then
	exit 0
fi

work=$prefix.work
rm -rf "$work" "$prefix"
mkdir -p "$work/src" "$work/obj"
tar -C "$work/src" -xf "$tarball"
src=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)
echo "newlib: building $(basename "$tarball") for $target (once; cached in $prefix)"
cd "$work/obj"
"$src/configure" --target=$target --prefix="$prefix" --disable-multilib \
	--disable-newlib-supplied-syscalls --disable-nls \
	$conf \
	CC_FOR_TARGET=${tool}gcc AR_FOR_TARGET=${tool}ar AS_FOR_TARGET=${tool}as LD_FOR_TARGET=${tool}ld \
	RANLIB_FOR_TARGET=${tool}ranlib NM_FOR_TARGET=${tool}nm OBJDUMP_FOR_TARGET=${tool}objdump \
	CFLAGS_FOR_TARGET="$cflags" >configure.log 2>&1 || { tail -20 configure.log; exit 1; }
make -j"$(nproc)" all-target-newlib >build.log 2>&1 || { tail -40 build.log; exit 1; }
make install-target-newlib >install.log 2>&1 || { tail -20 install.log; exit 1; }
cd /
rm -rf "$work"
echo "$want" >"$prefix/.stamp"
