#!/bin/bash
# bench-arm64.sh - tests/perf/run inside the emulated arm64 host
#
# Usage: tests/vm/bench-arm64.sh HOSTKERNEL OUTDIR [RUN ARGS...]
#
# HOSTKERNEL is 4k or 16k (the Debian host kernel of tests/vm); RUN ARGS go
# to tests/perf/run unchanged (-r 5, --census, conditions ...; without
# conditions: native, proot and seccomp/sysemu/nosysemu/nocancel for each flavour
# that fits the host's pages).  Into the VM go, as one tar: tests/perf and
# run-gate, perfbench built here for arm64, the arm64-4k and arm64-16k
# kernels (kernel/build.sh; ARM64_KERNEL_4K / ARM64_KERNEL_16K name others),
# the minimal arm64 image, and Debian's proot with libtalloc2 for arm64
# (apt-get download; the VM has no network), installed there with dpkg.
# The VM has linux-perf: --census counts with perf stat.  The run's
# directory comes back as OUTDIR/vm/files/bench; the table is printed.  The manifest gets
# this machine's git HEAD and QEMU version (the VM cannot know them).
# On an arm64 machine vm.sh runs the job on the host itself, same contract.
# BENCH=shares runs tests/perf/shares instead (RUN ARGS are its options;
# umarmctl is cross-built into the bundle; the flavour is the host's: on
# the 16K host the 16k kernel): the cost of 1000 shares against proot's
# bindings, and the transfers through hostfs, virtio-fs (sid's virtiofsd
# is in the VM) and ubd.
# BENCH=boot runs tests/perf/boot (RUN ARGS: its conditions and -w) once
# per emulated host boot, BOOT_VMS (3) times: each VM is one round, with the
# host's own boot to userspace (--host-boot dmesg) as the table's base; the
# rounds are merged into OUTDIR/boot (samples.tsv, manifests, table.txt)
# and judged there, as one run (--samples-only in each VM).
# The debian arm64 image (images/build.sh) goes in when a condition has
# image=debian.
# TIMEOUT (7200 s) is the VM's limit, VM_SMP its CPUs (1: less noise);
# CENSUS_TOOL goes to the run in the VM (strace: counts by syscall name),
# and CENSUS_BY_NAME (1: the census's table by host syscall name); so do
# the validator's MAX_DRIFT, MAX_RETRIES, RETRY_PAUSE, SETTLE (tests/perf/run),
# the table's MAX_SPREAD, MAX_JITTER and MEMFILE_DIR (lib/conditions.sh).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/vm/lib/umarmctl-cross.sh
. "$top/tests/vm/lib/umarmctl-cross.sh"
die() { echo "bench-arm64.sh: $*" >&2; exit 2; }

[ $# -ge 2 ] || { sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; }
host=$1 out=$2
shift 2
case $host in 4k|16k) ;; *) die "HOSTKERNEL '$host' is not 4k or 16k" ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)

# bundle_kernel FLAVOUR DIR - the flavour's kernel into DIR/FLAVOUR/linux
bundle_kernel() {
	local f=$1 k
	k=$(eval echo "\${ARM64_KERNEL_$(echo "$f" | tr k K):-}")
	[ -n "$k" ] || k=$("$top/kernel/build.sh" path "arm64-$f")/linux
	[ -x "$k" ] || die "no $k: build it with kernel/build.sh arm64-$f"
	mkdir -p "$2/$f"
	cp "$k" "$2/$f/linux"
}

# bundle_umarmctl DIR - umarmctl cross-built for arm64 into DIR (the shares
# benchmark runs instances), as tests/vm/umarmctl-arm64.sh builds it
bundle_umarmctl() {
	local src=$out/umarmctl-build
	umarmctl_cross_build "$top" "$src" "$out/umarmctl-build.log" umarmctl ||
		die "cross-building umarmctl failed: see $out/umarmctl-build.log"
	mkdir -p "$1"
	cp "$src/umarmctl" "$1/"
	rm -rf "$src"
}

# merge_boot_rounds - OUTDIR/boot from the VMs' rounds: one samples.tsv,
# their manifests one after the other, the table (exit status: the table's)
merge_boot_rounds() {
	local m=$out/boot r
	rm -rf "$m"
	mkdir -p "$m"
	head -n 1 "$out/vm-r1/files/boot/samples.tsv" >"$m/samples.tsv"
	for r in $(seq 1 "$boot_vms"); do
		tail -n +2 "$out/vm-r$r/files/boot/samples.tsv" >>"$m/samples.tsv"
		{ echo "# VM $r"; cat "$out/vm-r$r/files/boot/manifest.txt"; } >>"$m/manifest.txt"
	done
	TABLE_UNIT=s "$top/tests/perf/table" "$m" >"$m/table.txt" 2>&1
}

bench=${BENCH:-run}
case $bench in run|shares|boot) ;; *) die "BENCH=$bench: use run, shares or boot" ;; esac
boot_vms=${BOOT_VMS:-3}
case $boot_vms in ''|*[!0-9]*|0) die "BOOT_VMS=$boot_vms: a positive number" ;; esac
bundle=$out/bundle
rm -rf "$bundle"
mkdir -p "$bundle/tests/autopkgtest" "$bundle/k" "$bundle/debs"
cp -r "$top/tests/perf" "$bundle/tests/"
cp -r "$top/tests/autopkgtest/lib" "$bundle/tests/autopkgtest/"
"$top/tests/perf/build.sh" arm64 "$bundle/bin" >/dev/null
bundle_kernel 4k "$bundle/k"
bundle_kernel 16k "$bundle/k"
cp "$("$top/images/build.sh" minimal arm64 | tail -n 1)" "$bundle/minimal.ext4"
case " $* " in *:image=debian[:\ ]*)
	cp --sparse=always "$("$top/images/build.sh" debian arm64 | tail -n 1)" \
		"$bundle/debian.ext4" ;;
esac
# the VM's suite's proot (bookworm's 5.1.0 cannot even run /bin/true on
# sid's 7.2 kernel there: SIGSEGV in the tracee)
(cd "$bundle/debs" && apt-get download "proot:arm64/${SUITE:-sid}" \
	"libtalloc2:arm64/${SUITE:-sid}") >&2 ||
	die "could not download proot:arm64 (dpkg --add-architecture arm64; apt-get update)"
[ "$bench" = run ] || bundle_umarmctl "$bundle/tools/umarmctl"
tar --sparse -C "$bundle" -cf "$out/bundle.tar" .
rm -rf "$bundle"

{
	echo '#!/bin/bash'
	printf 'export GIT_HEAD=%q QEMU_VERSION=%q\n' \
		"$(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)" \
		"$(${QEMU:-qemu-system-aarch64} --version 2>/dev/null | head -n 1 || echo unknown)"
	[ -z "${CENSUS_TOOL:-}" ] || printf 'export CENSUS_TOOL=%q\n' "$CENSUS_TOOL"
	[ -z "${CENSUS_BY_NAME:-}" ] || printf 'export CENSUS_BY_NAME=%q\n' "$CENSUS_BY_NAME"
	for v in MAX_DRIFT MAX_RETRIES RETRY_PAUSE SETTLE MAX_SPREAD MAX_JITTER MEMFILE_DIR; do
		[ -z "${!v:-}" ] || printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf 'bench=%q host=%q\n' "$bench" "$host"
	cat <<'EOF'
# Runs in the arm64 host: proot from the bundle, then the benchmark.
set -eu
dpkg -i "$CI_WORK"/debs/*.deb >"$CI_OUT/dpkg.log" 2>&1
export UMARM_CACHE=/tmp/umarm-cache IMAGE=$CI_WORK/minimal.ext4 \
	PERFBENCH_PREBUILT=$CI_WORK/bin/perfbench \
	KERNEL_4K=$CI_WORK/k/4k/linux KERNEL_16K=$CI_WORK/k/16k/linux
rc=0
if [ "$bench" = shares ]; then
	UMARM_KERNEL=$CI_WORK/k/$host/linux "$CI_WORK/tests/perf/shares" \
		-o "$CI_OUT/bench" "$@" || rc=$?
elif [ "$bench" = boot ]; then
	IMAGE_MINIMAL=$CI_WORK/minimal.ext4 IMAGE_DEBIAN=$CI_WORK/debian.ext4 \
		"$CI_WORK/tests/perf/boot" -o "$CI_OUT/boot" --host-boot dmesg \
		--samples-only "$@" || rc=$?
else
	"$CI_WORK/tests/perf/run" -o "$CI_OUT/bench" "$@" || rc=$?
fi
echo "BENCH_DONE rc=$rc"
EOF
} >"$out/job.sh"
chmod +x "$out/job.sh"

rc=0
if [ "$bench" = boot ]; then
	for r in $(seq 1 "$boot_vms"); do
		"$top/tests/vm/vm.sh" run --kernel "$host" --smp "${VM_SMP:-1}" \
			--timeout "${TIMEOUT:-7200}" --disk "$out/bundle.tar" \
			--out "$out/vm-r$r" "$out/job.sh" -r 1 --first-round "$r" "$@" \
			>"$out/vm-r$r-output.txt" 2>&1 || rc=$?
		grep -q '^BENCH_DONE rc=0' "$out/vm-r$r-output.txt" ||
			die "VM $r of $boot_vms did not finish its round (vm.sh rc=$rc): see $out/vm-r$r-output.txt"
	done
	rm -f "$out/bundle.tar"
	rc=0
	merge_boot_rounds || rc=$?
	cat "$out/boot/table.txt"
	echo "results: $out/boot"
	exit "$rc"
fi
"$top/tests/vm/vm.sh" run --kernel "$host" --smp "${VM_SMP:-1}" \
	--timeout "${TIMEOUT:-7200}" --disk "$out/bundle.tar" --out "$out/vm" \
	"$out/job.sh" "$@" >"$out/vm-output.txt" 2>&1 || rc=$?
rm -f "$out/bundle.tar"
grep -q '^BENCH_DONE rc=' "$out/vm-output.txt" ||
	die "the job did not finish (vm.sh rc=$rc): see $out/vm-output.txt"
res=$out/vm/files/bench
[ -f "$res/table.txt" ] && cat "$res/table.txt"
[ -f "$res/census.txt" ] && cat "$res/census.txt"
echo "results: $res"
exit "$rc"
