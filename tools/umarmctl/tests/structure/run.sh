#!/bin/sh
# run.sh - the layout issue 19 asks of umarmctl, read off its sources
#	   (part of 'make check'; nothing is compiled)
#
# Usage: tests/structure/run.sh [DIR]	(DIR: the sources, default ../..)
#
# - funclen: no function is longer than 80 lines ("{" to "}").
# - down: calls go down (README.md, "three layers").  The verbs (the files
#   of README.md's verb table, umarmctl.c, verbs.c) and the model
#   (instance.c, runctl.c, attach.c, exec.c) include none of the
#   supervisor's headers, except runctl.c supervise.h: it starts the
#   supervisor.  Every other file, the supervisor's and the library's,
#   includes neither inst.h nor cmd.h, nor verbs.h.
# - map: README.md names every C file, so a reader finds each in one step.
#
# Each case prints PASS, or FAIL with what is at fault; the last line is
# "N passed, N failed"; the exit status is 1 if any case failed.

set -u

here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$here/../..}
fails=0 passes=0
MAX_LINES=80
MODEL="instance.c runctl.c attach.c exec.c"
SUP_HEADERS="sup.h supervise.h sharens.h vfsd.h net.h"
UP_HEADERS="inst.h cmd.h verbs.h"

pass() { passes=$((passes + 1)); echo "PASS $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1: $2"; }

# verdict NAME WHAT BAD - PASS, or FAIL with the lines at fault
verdict() {
	if [ -z "$3" ]; then
		pass "$1"
	else
		fail "$1" "$2:
$3"
	fi
}

# verb_files - the first C file of each row of README.md's verb table
verb_files() {
	sed -n '/^## Verbs/,/^## /p' "$dir/README.md" |
		awk -F'|' 'NF > 3 { split($3, w, " "); if (w[1] ~ /\.c$/) print w[1] }' |
		sort -u
}

# includes FILE - the project headers FILE includes, one a line
includes() {
	sed -n 's/^#include "\(.*\)".*/\1/p' "$dir/$1"
}

# case_funclen - functions of at most MAX_LINES lines
case_funclen() {
	bad=$(cd "$dir" && awk -v max="$MAX_LINES" '
		FNR == 1 { start = 0 }
		/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { sig = $0 }
		/^\{/ { start = FNR; name = sig
			sub(/\(.*/, "", name); sub(/.*[ *]/, "", name) }
		/^\}/ && start {
			if (FNR - start + 1 > max)
				printf "  %s:%d: %s() is %d lines\n", FILENAME,
				       start, name, FNR - start + 1
			start = 0
		}' ./*.c)
	verdict funclen "longer than $MAX_LINES lines; split it in steps" "$bad"
}

# case_down - verbs and the model include no supervisor header, and
# nothing below them includes theirs
case_down() {
	verbs=$(verb_files)
	[ -n "$verbs" ] || { fail down "no verb table in README.md"; return; }
	above=" umarmctl.c verbs.c $MODEL $(printf '%s\n' "$verbs" | tr '\n' ' ')"
	bad=
	for f in "$dir"/*.c; do
		f=${f##*/}
		for h in $(includes "$f"); do
			case "$above" in
			*" $f "*)
				case " $SUP_HEADERS " in *" $h "*) ;; *) continue;; esac
				[ "$f $h" = "runctl.c supervise.h" ] && continue
				bad="$bad  $f (verbs or model) includes $h, the supervisor's
" ;;
			*)
				case " $UP_HEADERS " in *" $h "*) ;; *) continue;; esac
				bad="$bad  $f (supervisor or library) includes $h, a layer above it
" ;;
			esac
		done
	done
	verdict down "calls that go up, or past the model into the supervisor's parts" "$bad"
}

# case_map - README.md names every C file
case_map() {
	bad=
	for f in "$dir"/*.c; do
		f=${f##*/}
		re=$(printf '%s' "$f" | sed 's/\./\\./g')
		grep -q "[ (,|]${re}[ ),|]" "$dir/README.md" ||
			bad="$bad  $f
"
	done
	verdict map "not in README.md's map; add it to the verb or concern table" "$bad"
}

case_funclen
case_down
case_map
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
