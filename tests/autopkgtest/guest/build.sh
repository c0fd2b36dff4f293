#!/bin/sh
# build.sh - build the guest test programs statically for a guest architecture
#
# Usage: tests/autopkgtest/guest/build.sh ARCH OUTDIR [PROGRAM...]
#
# ARCH is arm64 or amd64.  On a host of that architecture the native cc is
# used; from x86_64 for arm64, clang-19 --target=aarch64-linux-gnu (with the
# libc6-dev-arm64-cross sysroot).  Programs that only make sense on one
# architecture (regtorture, pacfork, fpsimd, sigframe, stubcall, coredump:
# aarch64 registers, pointer authentication and code) are built only there: a
# PROGRAM named for the other one is left out.  mcsend and hostfilter run on
# the host, not in the guest (mcsend with umarmctl's mconsole client).  Without PROGRAMs every program of ARCH is built, the Go one
# (gotls, from gotls/ with golang-go: CGO_ENABLED=0, GOPROXY=off, its
# GOCACHE and GOPATH under $UMARM_CACHE/go) included; a gate names the ones
# it runs, so only go-tls needs golang-go.
# GUEST_PREBUILT=DIR copies the programs from DIR instead (a test host
# without a compiler, e.g. the emulated arm64 host).
set -eu

die() { echo "build.sh: $*" >&2; exit 2; }

[ $# -ge 2 ] || { sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; }
arch=$1 out=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
umarmctl=$src/../../../tools/umarmctl

case $arch in
arm64) all="regtorture pacfork fpsimd tlsthreads threads ptracer addrspace escape sigframe stubcall stubreport mapcount forklimit sigsys siginfo coredump vdso cputime sigstorm hostfilter smp tlbshoot thp gotls mcsend"; triple=aarch64-linux-gnu ;;
amd64) all="tlsthreads threads ptracer addrspace escape stubreport mapcount forklimit sigsys siginfo vdso cputime sigstorm hostfilter smp tlbshoot thp gotls mcsend"; triple=x86_64-linux-gnu ;;
*) die "unknown architecture '$arch' (arm64 or amd64)" ;;
esac

# the PROGRAMs asked for that exist for ARCH, in the order given
progs=
for p in "$@"; do
	case " $all regtorture pacfork fpsimd sigframe stubcall coredump hostfilter " in
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

# build_go OUT - gotls for ARCH, static (no cgo), offline (GOPROXY=off: the
# module has no dependencies), its caches under UMARM_CACHE
build_go() {
	command -v go >/dev/null ||
		die "gotls needs the Go compiler: install golang-go (apt-get install golang-go, or make deps)"
	cache=${UMARM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/linux-uml-arm64}/go
	mkdir -p "$cache" 2>/dev/null || cache=$(mktemp -d)
	(cd "$src/gotls" &&
		env CGO_ENABLED=0 GOOS=linux GOARCH="$arch" GOPROXY=off GOFLAGS= \
			GOTOOLCHAIN=local GOCACHE="$cache/build" GOPATH="$cache/path" \
			go build -trimpath -buildvcs=false -o "$1" .)
}

for p in $progs; do
	if [ -n "${GUEST_PREBUILT:-}" ]; then
		cp "$GUEST_PREBUILT/$p" "$out/$p"
		continue
	fi
	if [ "$p" = gotls ]; then
		build_go "$(cd "$out" && pwd)/$p"
		continue
	fi
	# pacfork must be built as Debian builds arm64 userspace (PAC, BTI)
	flags=
	[ "$p" != pacfork ] || flags=-mbranch-protection=standard
	# mcsend is umarmctl's mconsole client behind a main()
	extra=
	[ "$p" != mcsend ] || extra="-I$umarmctl $umarmctl/mconsole.c $umarmctl/util.c"
	# shellcheck disable=SC2086
	$cc -static -O2 -pthread -Wall -Wextra -Werror $flags -o "$out/$p" "$src/$p.c" $extra
done
echo "$out"
