#!/bin/sh
# stubstop.sh - the guest side of the stub-stop gate: fork and exec
# without pause (every one a report and vetted mmap()s of the SECCOMP-mode
# stub) while the host stops and continues the stubs, until the host says
# it is done (/host/stops-done) or after at most 3000 rounds; STUBSTOP_OK at
# the end, which a kernel that lost a stub's report never reaches.  Fewer
# than 20 rounds means the stops did not overlap the loop: a failure.
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
while [ "$i" -lt 3000 ] && [ ! -e /host/stops-done ]; do
	i=$((i + 1))
	/bin/true || { echo "STUBSTOP_FAIL true failed at round $i"; exit 1; }
done
kill "$spinner"
wait "$spinner" 2>/dev/null
[ "$i" -ge 20 ] || { echo "STUBSTOP_FAIL only $i rounds while the stubs were stopped"; exit 1; }
echo STUBSTOP_OK rounds=$i
