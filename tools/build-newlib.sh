#!/bin/sh
# Builds newlib for the EFI image from Debian's newlib-source into $1 (a
# private prefix). Inputs: the tarball and the flags below; the Makefile
# rebuilds only when either changes (stamp holds their digest).
set -eu
prefix=$1
tarball=$(ls /usr/src/newlib/newlib-*.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "build-newlib: no tarball in /usr/src/newlib (package newlib-source)" >&2; exit 1; }

cflags="-O2 -g0 -ffreestanding -fPIC -fshort-wchar -mno-red-zone -fno-stack-protector -maccumulate-outgoing-args -DMISSING_SYSCALL_NAMES"
conf="--enable-newlib-io-c99-formats --enable-newlib-io-long-long"
want=$( (sha256sum "$tarball"; echo "$cflags $conf") | sha256sum | cut -c1-64)
if [ -f "$prefix/.stamp" ] && [ "$(cat "$prefix/.stamp")" = "$want" ]; then
	exit 0
fi

work=$prefix.work
rm -rf "$work" "$prefix"
mkdir -p "$work/src" "$work/obj"
tar -C "$work/src" -xf "$tarball"
src=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)
echo "newlib: building $(basename "$tarball") (once; cached in $prefix)"
cd "$work/obj"
"$src/configure" --target=x86_64-elf --prefix="$prefix" --disable-multilib \
	--disable-newlib-supplied-syscalls --disable-nls \
	$conf \
	CC_FOR_TARGET=gcc AR_FOR_TARGET=ar AS_FOR_TARGET=as LD_FOR_TARGET=ld \
	RANLIB_FOR_TARGET=ranlib NM_FOR_TARGET=nm OBJDUMP_FOR_TARGET=objdump \
	CFLAGS_FOR_TARGET="$cflags" >configure.log 2>&1 || { tail -20 configure.log; exit 1; }
make -j"$(nproc)" all-target-newlib >build.log 2>&1 || { tail -40 build.log; exit 1; }
make install-target-newlib >install.log 2>&1 || { tail -20 install.log; exit 1; }
cd /
rm -rf "$work"
echo "$want" >"$prefix/.stamp"
