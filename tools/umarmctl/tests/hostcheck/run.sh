#!/bin/sh
# run.sh - umarmctl check on hosts without seccomp filters, without
#	   SECCOMP mode's user notifications or without user namespaces
#	   (fast: part of 'make check')
#
# Usage: tests/hostcheck/run.sh HOSTFILTER
#
# HOSTFILTER is tests/autopkgtest/guest/hostfilter.c built for this host:
# it runs umarmctl check under a seccomp filter that takes one feature
# away.  The verdicts are the lines check prints; its exit status is only
# compared with that of the plain run (a warning must not count).  The
# whole test is skipped if HOSTFILTER cannot install its filter here.

# SC2015: pass() never fails, so "check && pass || fail" is if-then-else.
# shellcheck disable=SC2015

set -u

here=$(cd "$(dirname "$0")" && pwd)
UMARMCTL=${UMARMCTL:-$here/../../umarmctl}
HOSTFILTER=${1:?usage: run.sh HOSTFILTER}
T=$(mktemp -d /tmp/umarm-hostcheck.XXXXXX)
# a kernel check that passes, so only the probes under test can fail
export UMARM_KERNEL=/bin/true UMARM_NO_SYSTEMD=1
fails=0 passes=0

pass() { passes=$((passes + 1)); echo "PASS $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# check NAME [WRAPPER...] - umarmctl check's lines in $T/NAME, status in rc
check() {
	_n=$1
	shift
	"$@" "$UMARMCTL" check >"$T/$_n" 2>&1
	rc=$?
}

if ! "$HOSTFILTER" filter true; then
	skip hostcheck "cannot install a seccomp filter to take features away"
	rm -rf "$T"
	exit 0
fi

# this host as it is: the probes work, unless it lacks what they need
check plain
plain_rc=$rc
if grep -q '^ok  *seccomp mode  *user notifications available' "$T/plain"; then
	pass hostcheck.plain
else
	skip hostcheck.plain "$(grep seccomp "$T/plain" | tr '\n' ' ')"
fi

# no seccomp filters: no mode runs, check fails
check filter "$HOSTFILTER" filter
grep -q '^FAIL  *seccomp  *filters unavailable: .*cannot run on this host in any mode' "$T/filter" &&
	[ "$rc" -ne 0 ] && pass hostcheck.no-filters ||
	fail hostcheck.no-filters "rc=$rc: $(grep seccomp "$T/filter" | tr '\n' ' ')"

# no user notifications: a warning, ptrace mode still runs
check notify "$HOSTFILTER" notify
grep -q '^warn  *seccomp mode  *SECCOMP mode unavailable .*NEW_LISTENER.*seccomp=auto runs ptrace mode' "$T/notify" &&
	grep -q '^ok  *seccomp  *filters available' "$T/notify" &&
	[ "$rc" -eq "$plain_rc" ] && pass hostcheck.no-notifications ||
	fail hostcheck.no-notifications "rc=$rc (plain $plain_rc): $(grep seccomp "$T/notify" | tr '\n' ' ')"

# no user namespaces (a chroot, or turned off): passt cannot isolate itself;
# a warning naming the cause and the way round it, not a failure
check userns env UMARM_PASST=/bin/true "$HOSTFILTER" userns
grep -q '^warn  *passt  *unshare(CLONE_NEWUSER): Operation not permitted: passt isolates itself in a user namespace .*create instances with --network none' "$T/userns" &&
	[ "$rc" -eq "$plain_rc" ] && pass hostcheck.no-userns ||
	fail hostcheck.no-userns "rc=$rc (plain $plain_rc): $(grep passt "$T/userns" | tr '\n' ' ')"

echo "$passes passed, $fails failed"
if [ "$fails" -gt 0 ]; then
	echo "kept $T"
	exit 1
fi
rm -rf "$T"
