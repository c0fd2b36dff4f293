# census.sh - host syscalls, ptrace requests, futex calls and context
# switches of a UML guest's processes per guest operation (sourced by
# tests/perf/run --census; bash)
#
# Counts, unlike times, do not depend on the load of the machine (timer
# ticks aside), so they are what the kernel work is steered by under
# emulation.  The guest runs perfbench in marker mode (perfbench/marker.c):
# for each case a tracer counts the UML process group between BEGIN and END
# and again over an idle window of the same length; the idle counts are
# subtracted and the difference divided by the operations.
#
# Tracers (CENSUS_TOOL, default perf when `perf stat` can count syscall
# tracepoints here, else strace):
#   perf    perf stat on every process of the group, children created
#           during the window included (inherited counters)
#   strace  strace -c on every process of the group that it can attach to
#           (not ptrace-mode stubs: the UML kernel already traces them,
#           and they make no host syscalls of their own for a guest
#           syscall); no -f, which would steal the stubs UML creates;
#           context switches from /proc/PID/status
# CENSUS_BY_NAME=1 adds a second table: each host syscall by name, per guest
# operation (perf: one counter per syscall tracepoint; strace names them
# anyway), which says where a cost comes from, not only how large it is.
# Needs: top, out, conditions, die.
# shellcheck shell=bash disable=SC2154 # out, top, perf_args: set by tests/perf/run

CENSUS_EVENTS="raw_syscalls:sys_enter syscalls:sys_enter_ptrace syscalls:sys_enter_futex syscalls:sys_enter_wait4 syscalls:sys_enter_timer_settime context-switches"
[ "${CENSUS_BY_NAME:-0}" = 0 ] || CENSUS_EVENTS="$CENSUS_EVENTS syscalls:sys_enter_*"

# census_tool - the tracer to use, or die naming what to install
census_tool() {
	local t=${CENSUS_TOOL:-}
	if [ -z "$t" ]; then
		if perf stat -x, -e raw_syscalls:sys_enter true >/dev/null 2>&1; then
			t=perf
		elif command -v strace >/dev/null; then
			t=strace
		else
			die "--census needs perf (linux-perf, with tracepoints readable) or strace"
		fi
	fi
	case $t in
	perf|strace) command -v "$t" >/dev/null || die "CENSUS_TOOL=$t is not installed" ;;
	*) die "CENSUS_TOOL=$t: perf or strace" ;;
	esac
	echo "$t"
}

# uml_pgid DIR - the process group of the UML booted with artifacts DIR
# (run-gate starts it with setsid: its pid is the group's id)
uml_pgid() {
	local f pid
	for f in /proc/[0-9]*/cmdline; do
		tr '\0' ' ' 2>/dev/null <"$f" | grep -qF "uml_dir=$1/uml " || continue
		pid=${f#/proc/}
		pid=${pid%/cmdline}
		[ "$(group_of "$pid")" = "$pid" ] && { echo "$pid"; return 0; }
	done
	return 1
}

# group_of PID - the process group of PID (field 5 of stat, after comm)
group_of() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- $s
	echo "$3"
}

# group_pids PGID - every process of the group, one per line
group_pids() {
	local f pid
	for f in /proc/[0-9]*/stat; do
		pid=${f#/proc/}
		pid=${pid%/stat}
		[ "$(group_of "$pid" 2>/dev/null)" = "$1" ] && echo "$pid"
	done
	return 0
}

# ctx_switches PID... - voluntary + involuntary context switches, summed
ctx_switches() {
	local p n=0 v
	for p in "$@"; do
		v=$(awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s + 0 }' \
			"/proc/$p/status" 2>/dev/null) || v=0
		n=$((n + v))
	done
	echo "$n"
}

# wait_for_lines FILE PATTERN N - until N lines of FILE match PATTERN
# (30 s at most)
wait_for_lines() {
	local _
	for _ in $(seq 300); do
		[ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# perf_start FILE PIDS - perf stat on PIDS (and their future children),
# created disabled and enabled through its control FIFO: perf's "ack"
# says the counters run, before the guest is told to go.  Fails (perf
# gone, no ack) when one of PIDS exited before perf found its threads:
# the group's membership changes while the guest runs (tracer_start lists
# it again)
perf_start() {
	local file=$1 pids=$2 ack _
	rm -f "$file.ctl" "$file.ack"
	mkfifo "$file.ctl" "$file.ack"
	# shellcheck disable=SC2046,SC2086 # the events are words
	perf stat -x, -o "$file" -D -1 --control "fifo:$file.ctl,$file.ack" \
		$(printf -- '-e %s ' $CENSUS_EVENTS) \
		-p "$(echo "$pids" | paste -sd,)" 2>"$file.err" &
	tracer_pid=$!
	# read-write opens: neither blocks nor raises SIGPIPE when perf has
	# already gone; its end is watched instead of an end of file
	exec 8<>"$file.ctl" 9<>"$file.ack"
	echo enable >&8
	for _ in $(seq 300); do
		read -r -t 0.1 ack <&9 && [ "$ack" = ack ] && return 0
		kill -0 "$tracer_pid" 2>/dev/null || break
	done
	exec 8>&- 9<&-
	kill -INT "$tracer_pid" 2>/dev/null || true
	wait "$tracer_pid" || true
	tracer_pid=
	return 1
}

# strace_start FILE PIDS - strace -c on each of PIDS it can attach to;
# waits until each attached or was refused
strace_start() {
	local file=$1 pids=$2 p args=()
	for p in $pids; do
		args+=(-p "$p")
	done
	# shellcheck disable=SC2086
	ctx_switches $pids >"$file.ctx0"
	strace -c -o "$file" "${args[@]}" 2>"$file.err" &
	tracer_pid=$!
	wait_for_lines "$file.err" 'attached\|PTRACE_SEIZE' "$(echo "$pids" | wc -l)" ||
		die "census: strace did not attach ($file.err)"
	grep -q 'attached' "$file.err" || die "census: strace attached to nothing ($file.err)"
}

# tracer_start FILE PGID - count the group into FILE; sets tracer_pid.
# A process that exits between the listing and the tracer's start (a
# guest process ending, a stub replaced) makes perf refuse the list:
# list again, a few times
tracer_start() {
	local file=$1 pids try
	for try in 1 2 3 4 5; do
		pids=$(group_pids "$2")
		[ -n "$pids" ] || die "census: the UML process group $2 is gone"
		echo "$pids" >"$file.pids"
		"${tool}_start" "$file" "$pids" && return 0
		echo "census: try $try: the tracer did not start ($file.err): listing the group again" >&2
		cp "$file.err" "$file.err.$try" 2>/dev/null || true
	done
	die "census: the tracer did not start counting in 5 tries ($file.err)"
}

# tracer_stop FILE - stop counting; FILE.counts gets "METRIC COUNT" lines
tracer_stop() {
	local file=$1
	# (a tracer whose processes all exited has stopped by itself)
	kill -INT "$tracer_pid" 2>/dev/null || true
	wait "$tracer_pid" || true
	tracer_pid=
	if [ "$tool" = perf ]; then
		exec 8>&- 9<&-
		awk -F, '$3 == "raw_syscalls:sys_enter" { print "total", $1 }
			$3 ~ /^syscalls:sys_enter_/ { print substr($3, 20), $1 }
			$3 == "context-switches" { print "ctxsw", $1 }' "$file" |
			census_counts >"$file.counts"
	else
		# shellcheck disable=SC2046
		echo "ctxsw $(( $(ctx_switches $(cat "$file.pids")) - $(cat "$file.ctx0") ))" >"$file.ctx"
		awk '$NF ~ /^[a-z0-9_]+$/ && $4 ~ /^[0-9]+$/ { print $NF, $4 }' "$file" |
			cat - "$file.ctx" | census_counts >"$file.counts"
	fi
}

# census_counts - "NAME COUNT" lines of one window (each host syscall,
# "total", "ctxsw"), whichever tracer counted them, into the census's
# metrics; with CENSUS_BY_NAME=1 also "sys.NAME COUNT" for each syscall seen
census_counts() {
	awk '{ n[$1] = $2 }
		END {
			print "syscalls", n["total"] + 0
			print "ptrace", n["ptrace"] + 0
			print "futex", n["futex"] + 0
			print "wait4", n["wait4"] + 0
			print "ticks", n["timer_settime"] + 0
			print "ctxsw", n["ctxsw"] + 0
			if (by_name)
				for (s in n)
					if (s != "total" && s != "ctxsw" && n[s] > 0)
						print "sys." s, n[s]
		}' by_name="${CENSUS_BY_NAME:-0}"
}

# census_rows LABEL CASE OPS DIR - census.tsv rows of one case: window
# count, idle count and (window - idle) / OPS for each metric
census_rows() {
	awk -v cond="$1" -v k="$2" -v ops="$3" 'BEGIN { OFS = "\t" }
		FNR == NR { idle[$1] = $2; next }
		{ printf "%s\t%s\t%d\t%s\t%d\t%d\t%.2f\n", cond, k, ops, $1, $2, idle[$1], ($2 - idle[$1]) / ops }' \
		"$4/$2.idle.counts" "$4/$2.run.counts" >>"$out/census.tsv"
}

# census_event LINE DIR SHARE LABEL - act on one marker line of the console
census_event() {
	local line=$1 dir=$2 share=$3 label=$4 word k
	read -r word k _ <<<"$line"
	# the guest wrote this line: its case name becomes a host file name,
	# its ops a divisor
	case $word in PERFBENCH-BEGIN|PERFBENCH-END|PERFBENCH-IDLE-BEGIN|PERFBENCH-IDLE-END)
		[[ $k =~ ^[a-z0-9_][a-z0-9_-]*$ ]] || die "census: $label printed a bad case name: ${line//[^[:print:]]/?}" ;;
	esac
	case $word in
	PERFBENCH-BEGIN)
		ops=${line##*ops=}
		[[ $ops =~ ^[1-9][0-9]*$ ]] || die "census: $label printed a bad ops count: ${line//[^[:print:]]/?}"
		[ -n "$pgid" ] || pgid=$(uml_pgid "$dir/boot") || die "census: cannot find the UML process of $dir/boot"
		tracer_start "$dir/$k.run" "$pgid"
		touch "$share/ack/$k.go" ;;
	PERFBENCH-END)
		tracer_stop "$dir/$k.run" ;;
	PERFBENCH-IDLE-BEGIN)
		tracer_start "$dir/$k.idle" "$pgid"
		touch "$share/ack/$k.idle" ;;
	PERFBENCH-IDLE-END)
		tracer_stop "$dir/$k.idle"
		touch "$share/ack/$k.done"
		census_rows "$label" "$k" "$ops" "$dir"
		echo "census: $label $k: $(awk -v k="$k" -v c="$label" '$1 == c && $2 == k && $4 !~ /^sys\./ { printf "%s=%s ", $4, $7 }' "$out/census.tsv")" >&2 ;;
	PERFBENCH-ERROR*)
		echo "census: $label: ${line//[^[:print:]]/?}" >&2 ;;
	esac
}

# census_cleanup - on an early exit: stop the tracer, the guest and its gate
census_cleanup() {
	[ -z "${tracer_pid:-}" ] || kill -INT "$tracer_pid" 2>/dev/null || true
	[ -z "${pgid:-}" ] || kill -KILL -- "-$pgid" 2>/dev/null || true
	kill "${census_gate_pid:-}" 2>/dev/null || true
}

# census_condition COND - boot COND once with perfbench in marker mode and
# count every case
census_condition() {
	local c=$1 label dir share gate_pid line rc=0
	label=$(cond_label "$c")
	dir=$out/census/$label
	mkdir -p "$dir"
	share=$(prepare_share "$c" "${perf_args[@]}" -m /host/ack -p "${CENSUS_PAUSE_MS:-500}")
	rm -rf "$share/ack"
	mkdir -p "$share/ack"
	run_guest "$c" "$share" "$dir/boot" &
	gate_pid=$!
	census_gate_pid=$gate_pid
	pgid=''
	trap census_cleanup EXIT
	# the console, line by line, while the guest runs
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in PERFBENCH-*) census_event "$line" "$dir" "$share" "$label" ;; esac
	done < <(tail -s 0.2 -n +1 -F --pid="$gate_pid" "$dir/boot/console.log" 2>/dev/null)
	wait "$gate_pid" || rc=$?
	trap - EXIT
	[ "$rc" -eq 0 ] || die "census boot of $label failed: $(tail -n 1 "$dir/boot.verdict")"
}

# census_by_name - with CENSUS_BY_NAME=1, per condition and case the host
# syscalls by name that cost at least 0.05 per guest operation, dearest first
census_by_name() {
	[ "${CENSUS_BY_NAME:-0}" != 0 ] || return 0
	echo
	printf '%-12s %-16s %-20s %9s\n' condition case "host syscall" per_op
	awk -F'\t' '$4 ~ /^sys\./ && $7 >= 0.05 { printf "%s\t%s\t%s\t%s\n", $1, $2, substr($4, 5), $7 }' \
		"$out/census.tsv" | sort -t"$(printf '\t')" -k1,1 -k2,2 -k4,4gr |
		awk -F'\t' '{ printf "%-12s %-16s %-20s %9s\n", $1, $2, $3, $4 }'
}

# census_table - per condition, the per-operation counts of every case.
# "ticks" are the kernel's timer reprogrammings (timer_settime: about one
# per tick of a busy CPU): they grow with the time an operation takes, so
# with the load of the machine, and each brings the host syscalls of a
# timer interrupt with it.  A census is the operation's own cost where its
# ticks per op are near 0 (an idle machine); a row with ticks is inflated
# by them, and says so.
census_table() {
	awk -F'\t' '$1 == "condition" { next }
		!(($1, $2) in seen) { seen[$1, $2] = 1; order[++n] = $1 SUBSEP $2 }
		{ v[$1, $2, $4] = $7; ops[$1, $2] = $3 }
		END {
			printf "%-12s %-16s %7s %9s %9s %9s %9s %9s %7s\n", "condition", "case", "ops",
				"syscalls", "ptrace", "futex", "wait4", "ctxsw", "ticks"
			for (i = 1; i <= n; i++) {
				split(order[i], p, SUBSEP)
				printf "%-12s %-16s %7d %9s %9s %9s %9s %9s %7s\n", p[1], p[2], ops[p[1], p[2]],
					v[p[1], p[2], "syscalls"], v[p[1], p[2], "ptrace"],
					v[p[1], p[2], "futex"], v[p[1], p[2], "wait4"], v[p[1], p[2], "ctxsw"],
					v[p[1], p[2], "ticks"]
			}
		}' "$out/census.tsv"
}

# run_census - every guest condition once, then the table (per guest op)
run_census() {
	local c
	tool=$(census_tool)
	echo "census_tool: $tool ($($tool --version 2>&1 | head -n 1))" >>"$out/manifest.txt"
	printf 'condition\tcase\tops\tmetric\twindow\tidle\tper_op\n' >"$out/census.tsv"
	for c in "${conditions[@]}"; do
		if ! is_guest "$c"; then
			echo "census: $(cond_label "$c") is not a guest; left out" >&2
			continue
		fi
		echo "census: booting $(cond_label "$c")" >&2
		census_condition "$c"
	done
	{ census_table; census_by_name; } | tee "$out/census.txt"
}
