#!/bin/sh
# smp-torture.sh - the guest side of the smp-torture gate (busybox sh):
# the kernel's own RCU and lock torture tests, from the module tree that
# /host/modules holds, one after the other: rcutorture (of RCU_TYPE: rcu,
# or busted, a deliberately broken RCU that must fail) for SECONDS, then
# locktorture's spin_lock for SECONDS, rw_lock and mutex_lock for a minute
# each.  Each must end with "End of test: SUCCESS", and the kernel log must
# hold no RCU stall or lockup report.  SMP_TORTURE_OK at the end.
set -u
secs=$1
rcu_type=${2:-rcu}

fail() {
	echo "SMP_TORTURE_FAIL $*"
	exit 1
}

mkdir -p /lib/modules
ln -sfn /host/modules "/lib/modules/$(uname -r)"

# ended NAME - the run just unloaded ended with SUCCESS, and the kernel
# reported no RCU stall or lockup during it; the log is cleared after it
# (rcutorture fills the ring buffer, which would lose an earlier verdict)
ended() {
	end=$(dmesg | grep 'End of test' | tail -n 1)
	stalls=$(dmesg | grep -E 'rcu: INFO|detected stall|self-detected stall|soft lockup|hung task' | head -n 3)
	echo "$1: $end"
	case $end in
	*'End of test: SUCCESS'*) ;;
	*) fail "$1 did not end with SUCCESS: ${end:-no verdict}" ;;
	esac
	[ -z "$stalls" ] || fail "the kernel reported during $1: $stalls"
	dmesg -C
}

# lock_torture TYPE SECONDS - one locktorture run of TYPE
lock_torture() {
	modprobe locktorture torture_type="$1" stat_interval=60 ||
		fail "cannot load locktorture torture_type=$1"
	sleep "$2"
	rmmod locktorture || fail "cannot unload locktorture ($1)"
	ended "locktorture $1"
}

dmesg -C
# One torture test at a time (the torture framework refuses a second).
# No CPU hotplug (onoff_interval=0): UML cannot take a CPU offline.
modprobe rcutorture torture_type="$rcu_type" onoff_interval=0 stat_interval=60 ||
	fail "cannot load rcutorture"
sleep "$secs"
rmmod rcutorture || fail "cannot unload rcutorture"
ended "rcutorture $rcu_type"
lock_torture spin_lock "$secs"
lock_torture rw_lock 60
lock_torture mutex_lock 60
rmmod torture 2>/dev/null
echo "SMP_TORTURE_OK seconds=$secs"
