#!/bin/sh
# build.sh - build the guest test programs statically for a guest architecture
#
# Usage: tests/autopkgtest/guest/build.sh ARCH OUTDIR [PROGRAM...]
#
# ARCH is arm64 or amd64.  On a host of that architecture the native cc is
# used; from x86_64 for arm64, clang-19 --target=aarch64-linux-gnu (with the
# libc6-dev-arm64-cross sysroot).  Programs that only make sense on one
# architecture (regtorture, pacfork, fpsimd: aarch64 registers and pointer
# authentication) are built only there: a PROGRAM named for the other one is
# left out.  Without PROGRAMs every program of ARCH is built; a gate names
# the ones it runs.
# GUEST_PREBUILT=DIR copies the programs from DIR instead (a test host
# without a compiler, e.g. the emulated arm64 host).
set -eu

die() { echo "build.sh: $*" >&2; exit 2; }

[ $# -ge 2 ] || { sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; }
arch=$1 out=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)

case $arch in
arm64) all="regtorture pacfork fpsimd tlsthreads threads ptracer addrspace escape sigframe nopacprctl"; triple=aarch64-linux-gnu ;;
amd64) all="tlsthreads threads ptracer addrspace escape"; triple=x86_64-linux-gnu ;;
*) die "unknown architecture '$arch' (arm64 or amd64)" ;;
esac

# the PROGRAMs asked for that exist for ARCH, in the order given
progs=
for p in "$@"; do
	case " $all regtorture pacfork fpsimd sigframe nopacprctl " in
	*" $p "*) ;;
	*) die "unknown program '$p' (one of: $all)" ;;
	esac
	case " $all " in *" $p "*) progs="$progs $p" ;; esac
done
[ $# -gt 0 ] || progs=$all
mkdir -p "$out"

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
