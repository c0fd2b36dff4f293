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

# hostfs_swap_probe - in the directory /host/swapped (the caller's cwd,
# which holds its dentry), after that directory was replaced on the host by
# a symlink to a host directory outside the share: read, list, create
hostfs_swap_probe() {
	mv /mnt/hostfs-probe/swapped /mnt/hostfs-probe/swapped.old &&
		ln -s "$1" /mnt/hostfs-probe/swapped || return 2
	if cat secret 2>/dev/null; then
		return 1
	fi
	listed=$(ls -A . 2>/dev/null)
	if [ -n "$listed" ]; then
		echo "listed: $listed"
		return 1
	fi
	if echo planted 2>/dev/null >made-by-guest; then
		return 1
	fi
	return 0
}

# hostfs_no_host_symlinks - a second mount of the share (any guest root can
# make one) does not see the first one's dentries change, so a directory
# the guest holds there can be replaced on the host by a symlink out of the
# share; the host must not follow it (hostfs resolves every path below the
# mount's root without host symlinks).  hostfs-secret.conf names a host
# directory outside the share with one file, "secret"; the gate checks on
# the host that nothing was made there and that its text never reached
# the console.
hostfs_no_host_symlinks() {
	secret_dir=$(cat /host/hostfs-secret.conf)
	mount -t hostfs none /mnt/hostfs-probe -o / ||
		{ echo "HOSTFS_FAIL a second mount of the share failed"; return 1; }
	mkdir /host/swapped
	got=$(cd /host/swapped && hostfs_swap_probe "$secret_dir")
	probe=$?
	rm -f /mnt/hostfs-probe/swapped
	rmdir /mnt/hostfs-probe/swapped.old /host/swapped 2>/dev/null
	umount /mnt/hostfs-probe
	case $probe in
	0) echo "HOSTFS_NO_SYMLINK_OK" ;;
	2) echo "HOSTFS_FAIL could not replace the directory through the second mount"
	   return 1 ;;
	*) echo "HOSTFS_FAIL the host followed a symlink out of the share: $got"
	   return 1 ;;
	esac
}

rc=0
# (hostfs= is UML's own option: /proc/cmdline does not show it)
hostfs_confined || rc=1
hostfs_no_host_symlinks || rc=1
/host/escape || rc=1
# sigframe and stubcall are built for arm64 guests only
if [ -x /host/sigframe ]; then
	/host/sigframe || rc=1
fi
if [ -x /host/stubcall ]; then
	/host/stubcall || rc=1
fi
/host/stubreport || rc=1
[ "$rc" -ne 0 ] || echo ISOLATION_OK
exit "$rc"
