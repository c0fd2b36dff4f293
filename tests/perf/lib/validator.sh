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
# planted drift reaches it), as LABEL's validator samples of ROUND (its
# output in DIR/compute.log); ARGs are perfbench's -r and -n.  Perfbench's
# first round is dropped: a process's first pass through the loop was
# measured 30-80% slower than the next ones in the emulated host (the code
# is translated then) and up to 10% natively.  KEEP discard: warm-up.
validator_sample() {
	local pb=$1 label=$2 round=$3 dir=$4 keep=$5 c=$6 envs=()
	shift 6
	[ -z "$c" ] || mapfile -t envs < <(cond_env "$c")
	mkdir -p "$dir"
	env "${envs[@]}" "$pb" -c compute "$@" >"$dir/compute.log" 2>&1 ||
		die "perfbench compute failed: see $dir/compute.log"
	[ "$keep" = keep ] || return 0
	awk -F '\t' '$1 != "PB" || $3 != 1' "$dir/compute.log" |
		awk -v cond="$label" -v round="$round" -f "$top/tests/perf/lib/samples.awk" \
		>>"$out/samples.tsv"
}
