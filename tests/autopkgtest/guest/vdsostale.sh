#!/bin/sh
# vdsostale.sh - the guest side of the vdso-stale gate: read how long the
# vDSO's data may go without an update (the kernel's "cntvct: ... goes
# stale after S s" line), then read the vDSO's clock without a syscall for
# twice that and a minute more while the host stops the kernel for longer
# than S; VDSOSTALE_OK only when the program passed and the host says it
# stopped the kernel meanwhile (stop-done in the share)
set -u

stale=$(dmesg | sed -n 's/.*cntvct: .* goes stale after \([0-9][0-9]*\) s.*/\1/p' | tail -n 1)
if [ -z "$stale" ]; then
	echo "VDSO_FAIL the kernel registered no cntvct clocksource (no 'goes stale' line)"
	exit 1
fi
echo "vdsostale.sh: the vDSO's data goes stale after $stale s"
/host/vdso --stale $((stale * 2 + 60)) || exit 1
if [ ! -e /host/stop-done ]; then
	echo "VDSO_FAIL the host did not stop the kernel while the vDSO was read"
	exit 1
fi
echo VDSOSTALE_OK
