#!/bin/sh
# abi.sh - the guest side of the guest-abi gate: each program prints its
# own verdict; ABI_OK only when all of them passed
set -u

rc=0
/host/sigsys || rc=1
/host/siginfo || rc=1
# arm64 only: the registers of a core dump
[ ! -e /host/coredump ] || /host/coredump || rc=1
# the vDSO's time; on arm64 from the host's counter without a syscall
# (x86_64 UML's vDSO makes the syscall).  The test hosts' counters are
# cheap to read: a kernel that did not take them is a failure (the UML
# console says why, "Checking that the host's virtual counter...").
# The gate puts vdso-fallback into the share for a boot with cntvct=off.
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
case $(uname -m) in
aarch64)
	if [ -e /host/vdso-fallback ]; then
		# booted with cntvct=off: the vDSO's syscall fallback, right
		if grep -qx cntvct "$cs"; then
			echo "VDSO_FAIL cntvct=off, but the clocksource is cntvct"
			rc=1
		else
			/host/vdso || rc=1
		fi
	elif grep -qx cntvct "$cs"; then
		/host/vdso --no-syscalls || rc=1
	else
		echo "VDSO_FAIL the clocksource is $(cat "$cs"), not cntvct"
		rc=1
	fi ;;
*) /host/vdso || rc=1 ;;
esac
# the time of user code is user time (ru_utime, ITIMER_VIRTUAL)
/host/cputime || rc=1
[ "$rc" -ne 0 ] || echo ABI_OK
exit "$rc"
