#!/bin/sh
# build.sh - build the guest test programs statically for a guest architecture
#
# Usage: tests/autopkgtest/guest/build.sh ARCH OUTDIR
#
# ARCH is arm64 or amd64.  On a host of that architecture the native cc is
# used; from x86_64 for arm64, clang-19 --target=aarch64-linux-gnu (with the
# libc6-dev-arm64-cross sysroot).  Programs that only make sense on one
# architecture (regtorture, pacfork, fpsimd: aarch64 registers and pointer
# authentication) are built only there.
# GUEST_PREBUILT=DIR copies the programs from DIR instead (a test host
# without a compiler, e.g. the emulated arm64 host).
set -eu

[ $# -eq 2 ] || { sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; }
arch=$1 out=$2
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

case $arch in
arm64) progs="regtorture pacfork fpsimd tlsthreads threads ptracer addrspace escape sigframe nopacprctl"; triple=aarch64-linux-gnu ;;
amd64) progs="tlsthreads threads ptracer addrspace escape"; triple=x86_64-linux-gnu ;;
*) echo "build.sh: unknown architecture '$arch' (arm64 or amd64)" >&2; exit 2 ;;
esac

if [ "$(dpkg --print-architecture)" = "$arch" ]; then
	cc=${CC:-cc}
else
	cc="${CLANG:-clang-19} --target=$triple -fuse-ld=lld"
fi

for p in $progs; do
	if [ -n "${GUEST_PREBUILT:-}" ]; then
		cp "$GUEST_PREBUILT/$p" "$out/$p"
		continue
	fi
	# pacfork must be built as Debian builds arm64 userspace (PAC, BTI)
	flags=
	[ "$p" != pacfork ] || flags=-mbranch-protection=standard
	# shellcheck disable=SC2086
	$cc -static -O2 -pthread -Wall -Wextra -Werror $flags -o "$out/$p" "$src/$p.c"
done
echo "$out"
