#!/bin/sh
# build.sh - build perfbench statically for amd64 or arm64
#
# Usage: tests/perf/build.sh ARCH OUTDIR
#
# Prints OUTDIR/perfbench.  On a host of ARCH the native cc is used (CC may
# override it); from x86_64 for arm64, clang-19 --target=aarch64-linux-gnu
# -fuse-ld=lld with the libc6-dev-arm64-cross sysroot, as
# tests/autopkgtest/guest/build.sh does.  PERFBENCH_PREBUILT=FILE copies FILE
# instead (a test host without a compiler, e.g. the emulated arm64 host).
set -eu

die() { echo "build.sh: $*" >&2; exit 2; }

[ $# -eq 2 ] || { sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; }
arch=$1 out=$2
src=$(cd "$(dirname "$0")/perfbench" && pwd)
case $arch in
arm64) triple=aarch64-linux-gnu ;;
amd64) triple=x86_64-linux-gnu ;;
*) die "unknown architecture '$arch' (arm64 or amd64)" ;;
esac
mkdir -p "$out"

if [ -n "${PERFBENCH_PREBUILT:-}" ]; then
	[ -x "$PERFBENCH_PREBUILT" ] || die "PERFBENCH_PREBUILT=$PERFBENCH_PREBUILT is not an executable"
	cp "$PERFBENCH_PREBUILT" "$out/perfbench"
	echo "$out/perfbench"
	exit 0
fi
if [ "$(dpkg --print-architecture)" = "$arch" ]; then
	cc=${CC:-cc}
else
	cc="${CLANG:-clang-19} --target=$triple -fuse-ld=lld"
fi
# shellcheck disable=SC2086
$cc -static -O2 -pthread -Wall -Wextra -Werror -o "$out/perfbench" "$src"/*.c
echo "$out/perfbench"
