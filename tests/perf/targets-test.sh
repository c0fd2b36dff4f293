#!/bin/bash
# tests/perf/targets-test.sh - tests/perf/targets on fabricated runs, and on
# copies of its awk program with planted faults
#
# Usage: tests/perf/targets-test.sh [TARGETS_AWK]
#
# A fabricated timing run (native, proot, a SECCOMP guest "sc" and a ptrace
# guest "pt", three rounds each, a steady validator) whose medians put each
# target on a known side of its limit, and a census run of the same "sc".
# Checked: each verdict; that SECCOMP targets are judged only for "sc";
# that a census which ran "sc" as another condition is not used; that a
# drifting validator leaves nothing judged (exit 1).
#
# Without TARGETS_AWK: the checks must pass on tests/perf/lib/targets.awk
# and fail on each planted fault.  Exit status 0 when both hold.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)

# fail MESSAGE - one failed check, for the log
fail() { echo "FAIL: $*"; return 1; }

# sample LABEL CASE US [US_PER_MIB] - three rounds of one case at US µs/op
sample() {
	local r mb=-
	for r in 1 2 3; do
		[ -z "${4:-}" ] || mb=$(( $4 * 1000 ))
		printf '%s\t%s\t%s\t100\t0\t%s\t4096\t%s\n' "$1" "$r" "$2" $(( $3 * 1000 )) "$mb"
	done
}

# fabricate DIR - DIR/run (timing), DIR/census, DIR/other (census of
# another "sc") and DIR/drift (a refused run)
fabricate() {
	local d=$1 c
	mkdir -p "$d/run" "$d/census" "$d/other" "$d/drift"
	printf 'condition: %s\n' native proot sc:arm64-4k:seccomp=on pt:arm64-4k:seccomp=off \
		>"$d/run/manifest.txt"
	{
		printf 'condition\tround\tcase\tops\tns_total\tns_per_op\tpage_size\tns_per_mb\n'
		for c in native proot sc pt; do sample "$c" compute 2; done
		sample native sigtrap 10; sample native openat 10
		sample native fault 1 100; sample proot forkexec 1000
		# sc: getppid 14 (1.4x: met), openat 16 (1.6x: not met),
		# fault 120/MiB (1.2x: met), forkexec 900 (met)
		sample sc syscall 14; sample sc openat 16
		sample sc fault 5 120; sample sc forkexec 900
		# pt: getppid 100 (no SECCOMP target), openat 15 (met), fault
		# 140/MiB (not met), forkexec 1100 (not met)
		sample pt syscall 100; sample pt openat 15
		sample pt fault 5 140; sample pt forkexec 1100
	} >"$d/run/samples.tsv"
	cp "$d/run/manifest.txt" "$d/census/manifest.txt"
	printf 'condition\tcase\tops\tmetric\twindow\tidle\tper_op\nsc\tsyscall\t100\tfutex\t150\t30\t1.20\n' \
		>"$d/census/census.tsv"
	sed 's/^condition: sc:.*/condition: sc:arm64-16k:seccomp=on/' "$d/run/manifest.txt" \
		>"$d/other/manifest.txt"
	cp "$d/census/census.tsv" "$d/other/census.tsv"
	cp "$d/run/manifest.txt" "$d/drift/manifest.txt"
	sed 's/^\(sc\t[123]\tcompute\t100\t0\t\)2000/\13000/' "$d/run/samples.tsv" >"$d/drift/samples.tsv"
}

# expect OUT PATTERN... - each pattern (grep -E) matches a line of OUT
expect() {
	local out=$1 p
	shift
	for p in "$@"; do
		grep -Eq -- "$p" "$out" || fail "no line matches '$p' in $out" || return
	done
}

# checks DIR TARGETS - run the checks with the targets script given
checks() {
	local d=$1 t=$2 rc
	"$t" "$d/run" "$d/census" >"$d/out" 2>&1; rc=$?
	[ "$rc" = 1 ] || fail "exit $rc with unmet targets (want 1)" || return
	expect "$d/out" \
		'^getppid <= 1.5x host seccomp trap +sc .*1\.40x.*[)] +MET$' \
		'^host futex per guest syscall <= 1 +sc +1\.20 .* NOT MET$' \
		'^openat <= 1.5x native +sc .*1\.60x.* NOT MET$' \
		'^anonymous fault per MiB <= 1.3x native +sc .*1\.20x.*[)] +MET$' \
		'^fork\+exec <= proot +sc .*0\.90x.*[)] +MET$' \
		'^openat <= 1.5x native +pt .*1\.50x.*[)] +MET$' \
		'^anonymous fault per MiB <= 1.3x native +pt .*1\.40x.* NOT MET$' \
		'^fork\+exec <= proot +pt .*1\.10x.* NOT MET$' \
		'^targets: 8 judged, 4 not met$' || return
	! grep -q ' pt .*seccomp\|^getppid.* pt ' "$d/out" ||
		fail "a SECCOMP target judged for the ptrace guest" || return
	"$t" "$d/run" "$d/other" >"$d/out2" 2>&1
	expect "$d/out2" '^host futex per guest syscall <= 1 +sc +not measured: the census ran sc as' || return
	"$t" "$d/run" >"$d/out3" 2>&1
	expect "$d/out3" '^host futex per guest syscall <= 1 +sc +not measured: no census' || return
	"$t" "$d/drift" >"$d/out4" 2>&1; rc=$?
	[ "$rc" = 1 ] || fail "exit $rc on a drifting validator (want 1)" || return
	! grep -q 'MET' "$d/out4" || fail "targets judged on a refused run" || return
	echo "ok: all checks pass"
}

# with_awk DIR AWK - a copy of tests/perf with AWK as its targets.awk
with_awk() {
	mkdir -p "$1/perf/lib"
	cp "$here/targets" "$here/table" "$1/perf/"
	cp "$here/lib/"*.awk "$1/perf/lib/"
	cp "$2" "$1/perf/lib/targets.awk"
	echo "$1/perf/targets"
}

# The planted faults: NAME|sed expression that makes the fault
plants=(
	'limit inverted|s/(value <= limit) ? "MET"/(value >= limit) ? "MET"/'
	'every guest SECCOMP|s/if (c in seccomp)/if (1)/'
	'census of any condition|s/census_spec\[c\] != timing_spec\[c\]/0/'
	'per op for per MiB|s/med_mb(c, "fault"), med_mb("native", "fault")/med(c, "fault"), med("native", "fault")/'
)

# check_plant NAME EXPR - the checks must fail on the awk with the fault
check_plant() {
	local d
	d=$(mktemp -d)
	sed -e "$2" "$here/lib/targets.awk" >"$d/t.awk"
	if cmp -s "$d/t.awk" "$here/lib/targets.awk"; then
		echo "FAIL: plant '$1' changes nothing in targets.awk (was it changed?)"
		return 1
	fi
	fabricate "$d"
	if checks "$d" "$(with_awk "$d" "$d/t.awk")" >"$d/log" 2>&1; then
		echo "FAIL: plant '$1' was not detected"
		return 1
	fi
	echo "ok: plant '$1' detected: $(grep -m1 '^FAIL' "$d/log" || tail -n 1 "$d/log")"
	rm -rf "$d"
}

d=$(mktemp -d)
fabricate "$d"
if [ $# -eq 1 ]; then
	checks "$d" "$(with_awk "$d" "$1")"
	exit
fi
rc=0
checks "$d" "$here/targets" || rc=1
rm -rf "$d"
for p in "${plants[@]}"; do
	check_plant "${p%%|*}" "${p#*|}" || rc=1
done
exit "$rc"
