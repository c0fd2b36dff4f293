# validator.sh - the compute validator's samples: perfbench's compute case
# run natively beside every round of every condition (sourced by
# tests/perf/run and tests/perf/boot; bash)
#
# The validator asks whether the machine kept its speed through a run.
# It must therefore measure the machine, the same way for every condition,
# and not what a condition adds: arithmetic inside a guest also pays the
# guest's timer ticks, which cost some percent natively but 20-70% in the
# emulated arm64 host (tests/perf/README.md), so a guest's own compute
# cannot be held to 5% of native there.  The condition's own compute is
# kept as the case "compute-inside" (its ratio to native: a guest's tick
# tax), judged by nobody.
# Needs: top, out, die, cond_env.
# shellcheck shell=bash disable=SC2154 # top, out: set by the sourcing script

# validator_sample PERFBENCH LABEL ROUND DIR KEEP COND [ARG...] - perfbench
# PERFBENCH's compute case natively now, with COND's env.NAME=VALUE (so a
# planted drift reaches it), as LABEL's validator rows of ROUND on stdout
# (none when KEEP is discard: warm-up; perfbench's output in
# DIR/compute.log); ARGs are perfbench's -r and -n.  Perfbench's first
# round is dropped: a process's first pass through the loop was measured
# 30-80% slower than the next ones in the emulated host (the code is
# translated then) and up to 10% natively.
validator_sample() {
	local pb=$1 label=$2 round=$3 dir=$4 keep=$5 c=$6 envs=()
	shift 6
	[ -z "$c" ] || mapfile -t envs < <(cond_env "$c")
	mkdir -p "$dir"
	env "${envs[@]}" "$pb" -c compute "$@" >"$dir/compute.log" 2>&1 ||
		die "perfbench compute failed: see $dir/compute.log"
	[ "$keep" = keep ] || return 0
	awk -F '\t' '$1 != "PB" || $3 != 1' "$dir/compute.log" |
		awk -v cond="$label" -v round="$round" -f "$top/tests/perf/lib/samples.awk"
}

# Rounds measured while the machine moved (tests/perf/run).  The machine
# under the emulated host changes speed by 25-50% for seconds to minutes
# on its own (tests/perf/README.md); a round whose validator samples
# (taken before and after it) lie more than MAX_DRIFT percent (4: half the
# table's jitter limit) from the reference, the median of the samples of
# the rounds kept so far (warm-up included), is voided and run again,
# MAX_RETRIES (3) times at most; its rows stay in samples.tsv under the
# round "vROUND.TRY", which the table counts as voided and does not use.
# After the last retry the round is kept as measured: the table's
# validator then decides.  The run's first round has no reference and is
# kept.  Needs: out.

# round_drift ROWS - the farthest of ROWS' validator samples from the
# reference, in percent; nothing while there is no reference yet
round_drift() {
	[ -s "$out/reference.txt" ] || return 0
	awk -F '\t' -f "$top/tests/perf/lib/median.awk" \
		-f "$top/tests/perf/lib/drift.awk" "$out/reference.txt" "$1"
}

# round_accept ROWS - ROWS' validator samples join the reference (a kept
# round's, also one kept after its last retry: the median outvotes it)
round_accept() {
	awk -F '\t' '$3 == "compute" { print $6 }' "$1" >>"$out/reference.txt"
}

# round_voided ROWS ROUND TRY - ROWS as voided rows: round "vROUND.TRY"
round_voided() {
	awk -F '\t' -v OFS='\t' -v r="v$2.$3" '{ $2 = r; print }' "$1"
}

# drift_within DRIFT - whether DRIFT (percent, or nothing) is acceptable
drift_within() {
	[ -z "$1" ] || awk -v d="$1" -v m="${MAX_DRIFT:-4}" 'BEGIN { exit !(d <= m) }'
}
