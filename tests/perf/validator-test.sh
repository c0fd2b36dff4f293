#!/bin/bash
# tests/perf/validator-test.sh - the validator's round judging
# (lib/validator.sh: judged_round, await_speed) on a fabricated machine
#
# Usage: tests/perf/validator-test.sh
#
# A fake perfbench prints the compute case at the speed a script of the
# machine gives, one value per call (the last one repeats); a fake round
# takes one validator sample, as tests/perf/run's rounds do.  Checked:
# a round whose sample drifted 10% is voided, kept in samples.tsv as
# round v2.0 and run again; a round that drifts in every try is kept after
# MAX_RETRIES; with SETTLE, a round begun in a slow phase waits for the
# machine instead of being voided, and gives up after SETTLE seconds.
# Then the same checks must fail with each of two planted faults: voiding
# off (drift_within accepts anything), waiting off (await_speed returns at
# once).  Exit status 0 when the checks pass and each fault is caught.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fail MESSAGE - one failed check, for the log
fail() { echo "FAIL: $*"; return 1; }

# fake_perfbench FILE - a perfbench whose compute case takes the next
# ns/op of FILE's script (one per line; the last one repeats)
fake_perfbench() {
	cat >"$1" <<'EOF'
#!/bin/sh
# fake perfbench: the compute case at the machine's scripted speed
script=${0%/*}/speeds calls=${0%/*}/calls
n=$(( $(cat "$calls" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$calls"
ns=$(sed -n "${n}p" "$script")
[ -n "$ns" ] || ns=$(tail -n 1 "$script")
printf 'PB\tcompute\t1\t1000\t0\t%s\t4096\t-\n' "$ns"
printf 'PB\tcompute\t2\t1000\t0\t%s\t4096\t-\n' "$ns"
EOF
	chmod +x "$1"
}

# judge NAME SPEEDS... - a fresh run in $tmp/NAME whose machine runs at
# SPEEDS (ns/op, one per perfbench call): one reference round, then
# round 2 judged; its messages in NAME/log
judge() {
	local name=$1
	shift
	out=$tmp/$name
	rm -rf "$out"
	mkdir -p "$out/raw"
	validator_pb=$out/perfbench validator_args=(-r 2)
	fake_perfbench "$validator_pb"
	printf '%s\n' "$@" >"$out/speeds"
	: >"$out/samples.tsv"
	{
		judged_round m 1 keep "$out/raw/m-r1" fake_round m 1 "$out/raw/m-r1"
		judged_round m 2 keep "$out/raw/m-r2" fake_round m 2 "$out/raw/m-r2"
	} 2>"$out/log"
}

# fake_round LABEL ROUND DIR - one validator sample as the round's rows
# shellcheck disable=SC2317 # called through judged_round
fake_round() {
	validator_sample "$validator_pb" "$1" "$2" "$3" keep "" "${validator_args[@]}" >"$3.rows"
	mv "$3.rows" "$3/rows.tsv"
}

# rounds_of NAME - the round column of NAME's samples.tsv, space-separated
rounds_of() { cut -f 2 "$tmp/$1/samples.tsv" | tr '\n' ' '; }

# checks - every check; the number failed is the status
checks() {
	local bad=0 r
	MAX_RETRIES=3 RETRY_PAUSE=0 SETTLE=0
	judge void 1000 1100 1000
	r=$(rounds_of void)
	[ "$r" = "1 v2.0 2 " ] ||
		{ fail "a 10% drift was not voided and run again (rounds: $r)"; bad=$((bad + 1)); }
	judge retries 1000 1200 1200 1200 1200
	r=$(rounds_of retries)
	[ "$r" = "1 v2.0 v2.1 v2.2 2 " ] ||
		{ fail "a round drifting in every try was not kept after 3 retries (rounds: $r)"; bad=$((bad + 1)); }
	grep -q 'kept as measured after 3 retries' "$tmp/retries/log" ||
		{ fail "the kept drifting round was not reported"; bad=$((bad + 1)); }
	SETTLE=10
	judge settle 1000 1150 1150 1000 1000
	r=$(rounds_of settle)
	if [ "$r" != "1 2 " ] || [ "$(grep -c 'before round 2' "$tmp/settle/settle.log")" != 3 ]; then
		fail "SETTLE did not wait out a slow phase (rounds: $r)"
		bad=$((bad + 1))
	fi
	SETTLE=1 MAX_RETRIES=0
	judge settle-gives-up 1000 1150
	grep -q 'still 15.0% off after [0-9]* s (SETTLE): measuring anyway' "$tmp/settle-gives-up/log" ||
		{ fail "SETTLE did not give up on a machine that stays slow"; bad=$((bad + 1)); }
	return "$bad"
}

# say MESSAGE - the validator's messages (tests/perf/run's say)
say() { echo "run: $*" >&2; }
# die MESSAGE - as tests/perf/run's
die() { echo "run: $*" >&2; exit 2; }

# shellcheck source=tests/perf/lib/validator.sh
. "$top/tests/perf/lib/validator.sh"

rc=0
checks || rc=1
[ "$rc" = 0 ] && echo "validator-test: the checks pass"

# the planted faults: each must make a check fail
(
	drift_within() { return 0; }
	checks | sed 's/^/planted fault (voiding off): /'
	exit "${PIPESTATUS[0]}"
) && { echo "FAIL: voiding off (drift_within accepts all) went unnoticed"; rc=1; }
(
	await_speed() { return 0; }
	checks | sed 's/^/planted fault (waiting off): /'
	exit "${PIPESTATUS[0]}"
) && { echo "FAIL: waiting off (await_speed returns at once) went unnoticed"; rc=1; }
[ "$rc" = 0 ] && echo "validator-test: each planted fault is caught"
exit "$rc"
