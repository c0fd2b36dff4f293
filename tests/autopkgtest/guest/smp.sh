#!/bin/sh
# smp.sh - the guest side of the smp gate (busybox sh): /host/smp N (CPU
# count, pinning, parallel work, kernel work on every CPU), /host/tlbshoot
# (a page one thread unmaps is gone at once for a thread on another CPU),
# then the cpuset controller pins a busy loop to the last CPU, and the
# kernel log must hold no RCU stall or lockup report.  SMP_GATE_OK at the end, with smp's figures.
set -u
n=$1
shoot_secs=${2:-20}
# plant-idle or nothing: passed to /host/smp (a planted fault)
plant=${3:-}

fail() {
	echo "SMP_FAIL $*"
	exit 1
}

# shellcheck disable=SC2086
out=$(/host/smp "$n" $plant) || fail "${out#SMP_FAIL }"
echo "$out"
shoot=$(/host/tlbshoot "$shoot_secs") || fail "${shoot#TLBSHOOT_FAIL }"
echo "$shoot"

# cpuset: a cgroup whose cpuset.cpus is the last CPU keeps its tasks there
cg=/sys/fs/cgroup
[ -e "$cg/cgroup.controllers" ] || mount -t cgroup2 none "$cg" ||
	fail "cannot mount cgroup2 on $cg"
grep -qw cpuset "$cg/cgroup.controllers" ||
	fail "no cpuset controller in $cg/cgroup.controllers: $(cat "$cg/cgroup.controllers")"
echo +cpuset >"$cg/cgroup.subtree_control" || fail "cannot enable +cpuset"
last=$((n - 1))
mkdir -p "$cg/smp-pin"
echo "$last" >"$cg/smp-pin/cpuset.cpus" || fail "cannot write cpuset.cpus"
effective=$(cat "$cg/smp-pin/cpuset.cpus.effective")
[ "$effective" = "$last" ] || fail "cpuset.cpus.effective is '$effective', not $last"
(while :; do :; done) &
spinner=$!
echo "$spinner" >"$cg/smp-pin/cgroup.procs" || fail "cannot move a task into the cpuset"
i=0
while [ "$i" -lt 5 ]; do
	i=$((i + 1))
	sleep 1
	# field 39 of /proc/PID/stat: the CPU the task last ran on
	cpu=$(cut -d' ' -f39 "/proc/$spinner/stat")
	[ "$cpu" = "$last" ] || { kill "$spinner"; fail "a task in cpuset $last ran on CPU $cpu"; }
done
kill "$spinner"
wait "$spinner" 2>/dev/null
rmdir "$cg/smp-pin"

stalls=$(dmesg | grep -E 'rcu: INFO|detected stall|self-detected stall|soft lockup|hung task' | head -n 3)
[ -z "$stalls" ] || fail "the kernel reported: $stalls"
echo "SMP_GATE_OK ncpus=$n cpuset=$last"
