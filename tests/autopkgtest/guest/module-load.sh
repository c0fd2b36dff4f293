#!/bin/sh
# module-load.sh - run in the guest by the module-load gate (busybox sh)
#
# /host/modules is the kernel's module tree.  Every module in it is loaded
# with modprobe (dependencies first, from modules.dep), isofs must then have
# registered iso9660 and nbd its block devices, and every module is
# unloaded again, last loaded first.  The torture tests (locktorture,
# rcutorture, torture) are left to the smp-torture gate: loaded, they run
# for as long as they stay loaded.
# Prints MODLOAD_OK modules=N on success, MODLOAD_FAIL ... for each failure.
set -u

rel=$(uname -r)
mkdir -p /lib/modules
ln -sfn /host/modules "/lib/modules/$rel"

mods=$(cd /host/modules && find . -name '*.ko' | sed 's|.*/||; s|\.ko$||' |
	grep -v 'torture$' | sort)
[ -n "$mods" ] || { echo "MODLOAD_FAIL no modules under /host/modules"; exit 1; }
fail=0 n=0
for m in $mods; do
	if modprobe "$m"; then
		n=$((n + 1))
	else
		echo "MODLOAD_FAIL load $m"
		fail=1
	fi
done
echo "module-load: $n modules loaded, $(grep -c . /proc/modules) in /proc/modules"
cat /proc/modules
# What two of them registered with the kernel when their init ran
if echo "$mods" | grep -qx isofs; then
	grep -qw iso9660 /proc/filesystems ||
		{ echo "MODLOAD_FAIL isofs loaded, but iso9660 is not in /proc/filesystems"; fail=1; }
fi
if echo "$mods" | grep -qx nbd; then
	[ -e /sys/block/nbd0 ] ||
		{ echo "MODLOAD_FAIL nbd loaded, but there is no /sys/block/nbd0"; fail=1; }
fi

# Unload: /proc/modules lists the last loaded first, and a module in use
# by another goes after it.  Repeat while that makes progress.
left=$(grep -c . /proc/modules)
while [ "$left" -gt 0 ]; do
	cut -d' ' -f1 /proc/modules >/tmp/module-load.list
	while read -r m; do
		rmmod "$m" 2>/dev/null
	done </tmp/module-load.list
	now=$(grep -c . /proc/modules)
	[ "$now" -lt "$left" ] || break
	left=$now
done
if [ "$left" -gt 0 ]; then
	echo "MODLOAD_FAIL $left modules would not unload:"
	cat /proc/modules
	fail=1
fi
[ "$fail" -eq 0 ] || exit 1
echo "MODLOAD_OK modules=$n"
