#!/bin/sh
# autopkgtest-unshare.sh - the package's autopkgtest suite in a container
# on an arm64 host, as Debian's CI runs arm64 tests (lxc there; here
# autopkgtest's unshare backend, which needs no container manager), on the
# emulated arm64 Debian host of vm.sh
#
# Usage: tests/vm/autopkgtest-unshare.sh 4k|16k OUTDIR [AUTOPKGTEST OPTIONS...] DEB... DSC
#
# The testbed is a sid arm64 tarball (mmdebstrap --variant=apt, made on
# this machine through binfmt's qemu-aarch64 and cached in
# $UMARM_CACHE/autopkgtest/unshare-SUITE-arm64.tar); the .debs, the source
# (DSC and the files it lists) and the tarball travel into one VM (vm.sh
# run --kernel 4k|16k, with a network: the testbed installs the tests'
# dependencies from the archive), which installs autopkgtest and uidmap
# and runs
#
#   autopkgtest OPTIONS... DEBS... DSC -- unshare -t TARBALL
#
# as root (unshare maps root to the subordinate ids it is given).  Tests
# that need isolation-container or isolation-machine are skipped by
# autopkgtest, as on a container testbed.  Results (summary, logs) land in
# OUTDIR/results; the last line is "N passed, N failed, N skipped" from
# autopkgtest's summary.  Exit status: autopkgtest's (0 all passed, 2 some
# skipped, 4 some failed, ...), 99 when the VM gave no trustworthy one.
#
# Environment: UMARM_CACHE, SUITE (sid), MIRROR (the host's), TIMEOUT (the
# VM run, 10800 s), TEST_TIMEOUT (autopkgtest's per test, 6000 s), VM_MEM
# (3072), VM_SMP (2).  Needs root (mmdebstrap, vm.sh).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
prog=tests/vm/autopkgtest-unshare.sh
UMARM_CACHE=${UMARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linux-uml-arm64}
SUITE=${SUITE:-sid}
TIMEOUT=${TIMEOUT:-10800}
TEST_TIMEOUT=${TEST_TIMEOUT:-6000}

die() { echo "$prog: $*" >&2; exit 1; }
log() { echo "$prog: $*" >&2; }
usage() { sed -n '7s/^# \{0,1\}//p' "$0" >&2; exit 2; }

mirror() {
	m=${MIRROR:-}
	[ -n "$m" ] || m=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/* *$/\1/p' \
		/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
	echo "${m:-http://deb.debian.org/debian}"
}

# Bump when testbed_tarball builds a different tarball.
TARBALL_REV=1

# testbed_tarball - print the path of the cached sid arm64 tarball, made
# first if missing or made for another suite or mirror
testbed_tarball() {
	tb=$UMARM_CACHE/autopkgtest/unshare-$SUITE-arm64.tar
	key=$(printf '%s\n' "$TARBALL_REV" "$SUITE" "$(mirror)" | sha256sum | cut -c1-16)
	if [ -s "$tb" ] && [ "$(cat "$tb.key" 2>/dev/null)" = "$key" ]; then
		echo "$tb"
		return 0
	fi
	mkdir -p "$(dirname "$tb")"
	log "testbed: mmdebstrap $SUITE arm64 --variant=apt (a few minutes)"
	mmdebstrap --mode=root --arch=arm64 --variant=apt --format=tar \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		"$SUITE" "$tb.tmp" "$(mirror)" >"$tb.log" 2>&1 ||
		{ tail -n 20 "$tb.log" >&2; rm -f "$tb.tmp"; die "mmdebstrap failed: $tb.log"; }
	mv "$tb.tmp" "$tb"
	echo "$key" >"$tb.key"
	echo "$tb"
}

# dsc_files DSC - the DSC and the files its Files: field lists, as paths
dsc_files() {
	echo "$1"
	awk '/^Files:/ { f = 1; next } /^[^ ]/ { f = 0 } f && NF == 3 { print $3 }' "$1" |
		while read -r f; do echo "$(dirname "$1")/$f"; done
}

[ $# -ge 3 ] || usage
flavour=$1 out=$2
shift 2
case $flavour in 4k|16k) ;; *) usage ;; esac
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap --mode=root, vm.sh)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Sort the arguments: options stay in order, packages go into the bundle
bundle=$out/bundle
rm -rf "$bundle" "$out/results"
mkdir -p "$bundle/pkgs"
: >"$bundle/options"
for a in "$@"; do
	case $a in
	*.deb) cp "$a" "$bundle/pkgs/" || die "cannot copy $a" ;;
	# (a here-document, not a pipe: die must end this shell)
	*.dsc) while read -r f; do
			cp "$f" "$bundle/pkgs/" || die "cannot copy $f (listed in $a)"
		done <<-EOF
		$(dsc_files "$a")
		EOF
		;;
	*) printf '%s\n' "$a" >>"$bundle/options" ;;
	esac
done
ls "$bundle"/pkgs/*.dsc >/dev/null 2>&1 || die "no .dsc among the arguments"
echo "$TEST_TIMEOUT" >"$bundle/test-timeout"
cp "$(testbed_tarball)" "$bundle/testbed.tar"
echo "$SUITE" >"$bundle/suite"
tar -C "$bundle" -cf "$out/bundle.tar" .
rm -rf "$bundle"

rc=0
VM_NET=1 VM_MEM=${VM_MEM:-3072} "$top/tests/vm/vm.sh" run --kernel "$flavour" \
	--smp "${VM_SMP:-2}" --timeout "$TIMEOUT" --disk "$out/bundle.tar" \
	--out "$out/vm" "$top/tests/vm/lib/autopkgtest-unshare-job.sh" \
	>"$out/job.log" 2>&1 || rc=$?
rm -f "$out/bundle.tar"
if [ -d "$out/vm/files/results" ]; then
	mv "$out/vm/files/results" "$out/results"
fi
log "results in $out/results (exit status $rc; the VM's log: $out/job.log)"
[ -f "$out/results/summary" ] || { tail -n 30 "$out/job.log" >&2; exit 99; }
cat "$out/results/summary"
awk '$2 == "PASS" { p++ } $2 == "FAIL" { f++ } $2 == "SKIP" { s++ }
	END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' "$out/results/summary"
exit "$rc"
