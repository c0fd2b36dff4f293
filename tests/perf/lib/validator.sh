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

# judged_round LABEL ROUND KEEP DIR ROUNDFN [ARG...] - ROUNDFN ARG..., which
# leaves the round's rows in DIR/rows.tsv, until its validator samples agree
# with the reference (MAX_DRIFT, MAX_RETRIES, RETRY_PAUSE above; SETTLE
# in await_speed); voided tries keep their artifacts in DIR.voidTRY and
# their rows in samples.tsv as round vROUND.TRY.  KEEP is keep, or discard
# for a warm-up round, whose samples only start the reference.  Shared by
# tests/perf/run and tests/perf/boot.  Needs say, die, out, validator_pb,
# validator_args.
judged_round() {
	local label=$1 r=$2 keep=$3 dir=$4 try drift
	shift 4
	for try in $(seq 0 "${MAX_RETRIES:-3}"); do
		await_speed "$label" "$r"
		"$@"
		drift=$(round_drift "$dir/rows.tsv")
		if [ "$keep" != keep ] || drift_within "$drift" ||
			[ "$try" -ge "${MAX_RETRIES:-3}" ]; then
			break
		fi
		say "round $r of $label: the machine's compute moved ${drift}% from the run's (limit ${MAX_DRIFT:-4}%): voided, running it again${RETRY_PAUSE:+ in $RETRY_PAUSE s}"
		round_voided "$dir/rows.tsv" "$r" "$try" >>"$out/samples.tsv"
		mv "$dir" "$dir.void$try"
		[ ! -e "$dir.verdict" ] || mv "$dir.verdict" "$dir.void$try.verdict"
		sleep "${RETRY_PAUSE:-0}"
	done
	[ "$keep" != keep ] || drift_within "$drift" ||
		say "round $r of $label: kept as measured after $try retries (${drift}% from the run's compute): the table's validator decides"
	round_accept "$dir/rows.tsv"
	[ "$keep" != keep ] || cat "$dir/rows.tsv" >>"$out/samples.tsv"
}

# await_speed LABEL ROUND - with SETTLE seconds (0: off), wait before a
# round until the machine's compute is back within MAX_DRIFT of the
# reference, sampling it every 2 s, SETTLE seconds at most; then the round
# runs whatever the machine does (its own samples are judged as ever).
# The emulated host's slow phases begin seconds after a UML boot and last
# seconds to a minute (tests/perf/README.md): a retry that starts inside
# one is voided again, and after the last retry a slow round is kept and
# refuses the table.  Waiting measures nothing: its samples are only in
# OUT/settle.log.
await_speed() {
	local label=$1 r=$2 start=$SECONDS drift rows
	case ${SETTLE:-0} in
	*[!0-9]*) die "SETTLE=$SETTLE: give the most seconds to wait, e.g. 60 (0: do not wait)" ;;
	esac
	[ "${SETTLE:-0}" -gt 0 ] && [ -s "$out/reference.txt" ] || return 0
	rows=$out/raw/settle.tsv
	while :; do
		validator_sample "$validator_pb" settle 0 "$out/raw/settle" keep "" \
			"${validator_args[@]}" >"$rows"
		drift=$(round_drift "$rows")
		echo "$(date +%T) before round $r of $label: ${drift:-?}% off" >>"$out/settle.log"
		drift_within "$drift" && return 0
		if [ $((SECONDS - start)) -ge "$SETTLE" ]; then
			say "round $r of $label: the machine is still ${drift}% off after $((SECONDS - start)) s (SETTLE): measuring anyway"
			return 0
		fi
		sleep 2
	done
}
