#!/bin/sh
# run.sh - the Makefile compiles every C file with the caller's CPPFLAGS
#	   (dpkg-buildflags: its fortify level, -Wdate-time), and with a
#	   fortify level of its own only when none is given (part of
#	   'make check'; a dry run, nothing is compiled)
#
# Usage: tests/buildflags/run.sh
#
# Each case prints PASS or FAIL with the compile lines at fault; the last
# line is "N passed, N failed"; the exit status is 1 if any case failed.

set -u

here=$(cd "$(dirname "$0")" && pwd)
dir=$here/../..
fails=0 passes=0
# What make check builds from C sources, with umarmctl's own objects
TARGETS="umarmctl minimal-init tests/unit/unit tests/hostcheck/hostfilter"

pass() { passes=$((passes + 1)); echo "PASS $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1: $2"; }

# compile_lines [VAR=VALUE...] - the compiler lines of a dry run that take
# a C source (continued lines joined), with the caller's flags (and a
# parent make's) out of the way
compile_lines() {
	# TARGETS is a list of make targets, split on purpose
	# shellcheck disable=SC2086
	env -u CPPFLAGS -u CFLAGS -u LDFLAGS -u MAKEFLAGS -u MFLAGS \
		-u MAKELEVEL make -s -n -B -C "$dir" "$@" $TARGETS |
		sed -e ':a' -e '/\\$/N' -e 's/\\\n[[:space:]]*/ /' -e 'ta' |
		grep -E '\.c( |$)'
}

# lines_without WORD - the lines of stdin that lack WORD
lines_without() {
	grep -v -e " $1 " -e " $1\$"
}

# verdict NAME WHAT BAD - PASS, or FAIL with how many lines are at fault
# and the first of them
verdict() {
	if [ -z "$3" ]; then
		pass "$1"
	else
		fail "$1" "$2 in $(printf '%s\n' "$3" | wc -l) compile lines, e.g. $(printf '%s\n' "$3" | head -n 1)"
	fi
}

# case_default - a plain "make" fortifies at level 2 with a stack protector
case_default() {
	out=$(compile_lines) || { fail default "make -n printed no compile line"; return; }
	bad=$(printf '%s\n' "$out" | lines_without -D_FORTIFY_SOURCE=2
	      printf '%s\n' "$out" | lines_without -fstack-protector-strong)
	verdict default "no -D_FORTIFY_SOURCE=2 or -fstack-protector-strong without CPPFLAGS and CFLAGS" "$bad"
}

# case_cppflags - CPPFLAGS reach every compile line and nothing overrides
# their fortify level
case_cppflags() {
	out=$(compile_lines CPPFLAGS="-Wdate-time -D_FORTIFY_SOURCE=3") ||
		{ fail cppflags "make -n printed no compile line"; return; }
	bad=$(printf '%s\n' "$out" | lines_without -Wdate-time
	      printf '%s\n' "$out" | lines_without -D_FORTIFY_SOURCE=3
	      printf '%s\n' "$out" | grep -e '-D_FORTIFY_SOURCE=2')
	verdict cppflags "CPPFLAGS=\"-Wdate-time -D_FORTIFY_SOURCE=3\" not honoured" "$bad"
}

case_default
case_cppflags
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
