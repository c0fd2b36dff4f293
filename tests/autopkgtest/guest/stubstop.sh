#!/bin/sh
# stubstop.sh - the guest side of the stub-stop gate: fork and exec
# without pause (every one a report and vetted mmap()s of the SECCOMP-mode
# stub) while the host stops and continues the stubs; STUBSTOP_OK at the
# end, which a kernel that lost a stub's report never reaches
set -u

echo STUBSTOP_BUSY
i=0
while [ "$i" -lt "${1:-3000}" ]; do
	i=$((i + 1))
	/bin/true || { echo "STUBSTOP_FAIL true failed at round $i"; exit 1; }
done
echo STUBSTOP_OK rounds=$i
