#!/bin/sh
# debian-workload.sh - what the boot-debian gate runs inside a booted Debian
# guest: package database queries, fork/exec storms, threads, signals, pipes
# and /proc.  Prints UMARM_WORKLOAD_OK when every step passed, or
# UMARM_WORKLOAD_FAIL step=NAME at the first failure.
set -u

fail() {
	echo "UMARM_WORKLOAD_FAIL step=$1 ${2:-}"
	exit 1
}
# each step with the guest's uptime, to see where a slow host spends it
step() { echo "workload: $1 (uptime $(cut -d' ' -f1 /proc/uptime))"; }

step "systemd state"
# The gate unit is itself part of the boot transaction, so the manager
# still says "starting": ask for the target and for failed units instead.
systemctl is-active --quiet multi-user.target ||
	fail systemd "multi-user.target is $(systemctl is-active multi-user.target)"
nfailed=$(systemctl --failed --no-legend --plain | wc -l)
if [ "$nfailed" -gt 0 ]; then
	systemctl --failed --no-legend --plain | sed 's/^/workload: failed unit: /'
	fail systemd "$nfailed failed units"
fi
state=$(systemctl is-system-running 2>/dev/null || true)

step "dpkg and apt queries"
n=$(dpkg-query -W -f '${Package}\n' | wc -l)
[ "$n" -gt 50 ] || fail dpkg "only $n packages"
dpkg -s systemd >/dev/null || fail dpkg-status
apt-cache policy apt >/dev/null 2>&1 || fail apt-cache
apt-get -s -q install --no-download hello >/dev/null 2>&1 ||
	apt-get check >/dev/null 2>&1 || fail apt-get-check

step "fork/exec storm"
i=0
while [ $i -lt 300 ]; do
	/bin/true || fail fork-exec "iteration $i"
	i=$((i + 1))
done
out=$(seq 1 2000 | sort -rn | head -n 1)
[ "$out" = 2000 ] || fail pipe-sort "$out"

step "parallel children"
pids=
for _ in 1 2 3 4 5 6 7 8; do
	(k=0; while [ $k -lt 50 ]; do /bin/true; k=$((k + 1)); done) &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p" || fail parallel "child $p"
done

step "pipes"
sum=$(head -c 4000000 /dev/zero | tr '\0' 'a' | wc -c)
[ "$sum" = 4000000 ] || fail pipe-bytes "$sum"
echo abc | md5sum | grep -q 0bee89b07a248e27c83fc3d5951213c1 || fail pipe-md5

step "signals"
sleep 30 &
sp=$!
kill -TERM "$sp"
wait "$sp"
rc=$?
[ "$rc" -eq 143 ] || fail signal "sleep killed with status $rc"
trap 'got_usr1=1' USR1
got_usr1=0
kill -USR1 $$
[ "$got_usr1" = 1 ] || fail signal-trap

step "threads"
if [ -x /host/threads ]; then
	/host/threads || fail threads
fi
nthreads=$(awk '/^Threads:/ {print $2}' /proc/1/status)
[ -n "$nthreads" ] || fail proc-status

step "/proc"
grep -q '^MemTotal:' /proc/meminfo || fail proc-meminfo
[ -r /proc/self/maps ] || fail proc-maps
ps -e >/dev/null 2>&1 || fail ps
[ "$(readlink /proc/self/exe)" = /usr/bin/readlink ] ||
	[ "$(readlink /proc/self/exe)" = /bin/readlink ] || fail proc-exe

step "uname"
uname -a
echo "UMARM_WORKLOAD_OK packages=$n state=$state uptime=$(cut -d" " -f1 /proc/uptime)"
