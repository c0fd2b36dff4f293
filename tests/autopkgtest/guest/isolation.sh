#!/bin/sh
# isolation.sh - the guest side of the guest-isolation gate: each check
# prints its own verdict; ISOLATION_OK only when all of them passed
set -u

# hostfs_confined - the kernel runs with hostfs=SHARE (the gate's share,
# mounted on /host): no mount may reach above it, through ".." or through
# a symlink the guest makes on the host
hostfs_confined() {
	mkdir -p /mnt/hostfs-probe
	for p in .. /.. /../.. etc/../.. /escape-link /escape-link/etc; do
		[ "$p" != /escape-link ] || ln -s / /host/escape-link
		if mount -t hostfs none /mnt/hostfs-probe -o "$p" 2>/dev/null; then
			echo "HOSTFS_FAIL mount -o $p was allowed: it holds $(ls /mnt/hostfs-probe | head -n 5 | tr '\n' ' ')"
			umount /mnt/hostfs-probe
			return 1
		fi
	done
	rm -f /host/escape-link
	mount -t hostfs none /mnt/hostfs-probe -o / ||
		{ echo "HOSTFS_FAIL mount -o / (the share itself) failed"; return 1; }
	if [ ! -f /mnt/hostfs-probe/escape.conf ]; then
		echo "HOSTFS_FAIL mount -o / is not the share"
		umount /mnt/hostfs-probe
		return 1
	fi
	umount /mnt/hostfs-probe
	echo "HOSTFS_CONFINED_OK"
}

rc=0
# (hostfs= is UML's own option: /proc/cmdline does not show it)
hostfs_confined || rc=1
/host/escape || rc=1
# sigframe and stubcall are built for arm64 guests only
if [ -x /host/sigframe ]; then
	/host/sigframe || rc=1
fi
if [ -x /host/stubcall ]; then
	/host/stubcall || rc=1
fi
[ "$rc" -ne 0 ] || echo ISOLATION_OK
exit "$rc"
