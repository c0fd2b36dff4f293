#!/bin/sh
# stubstop.sh - the guest side of the stub-stop gate: fork and exec
# without pause (every one a report and vetted mmap()s of the SECCOMP-mode
# stub) while the host stops and continues the stubs, until the host says
# it is done (/host/stops-done), and for 20 rounds at least; STUBSTOP_OK at
# the end, which a kernel that lost a stub's report never reaches.  A loop
# that reached its cap of 100000 rounds before the host was done did not
# overlap the stops: a failure.
# A second process spins without a syscall meanwhile, so that a stop
# catches a stub running user code, whose timer signals the kernel counts.
set -u

# spin - count without a syscall until killed
spin() {
	n=0
	while :; do n=$((n + 1)); done
}

spin &
spinner=$!
echo STUBSTOP_BUSY
i=0
while [ "$i" -lt 100000 ] && { [ "$i" -lt 20 ] || [ ! -e /host/stops-done ]; }; do
	i=$((i + 1))
	/bin/true || { echo "STUBSTOP_FAIL true failed at round $i"; exit 1; }
done
kill "$spinner"
wait "$spinner" 2>/dev/null
[ -e /host/stops-done ] || { echo "STUBSTOP_FAIL $i rounds ended before the host's stops"; exit 1; }
echo STUBSTOP_OK rounds=$i
