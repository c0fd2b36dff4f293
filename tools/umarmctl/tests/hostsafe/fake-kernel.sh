#!/bin/sh
# fake-kernel.sh - stands in for UML where a supervisor must run
#
# Usage: UMARM_KERNEL=tests/hostsafe/fake-kernel.sh umarmctl start NAME
#
# Started by the supervisor in the instance's state directory, with the
# console on stdout: creates root.cow there as UML creates its overlay,
# prints the readiness marker (after FAKE_BOOT_DELAY seconds), writes its cwd and open descriptors to
# fake-kernel.env, and sleeps until the supervisor kills it.
: >>root.cow
ls -l /proc/$$/fd >fake-kernel.env 2>&1
# a guest that takes a while to boot
sleep "${FAKE_BOOT_DELAY:-0}"
echo UMARM_BOOT_OK
exec sleep 120
