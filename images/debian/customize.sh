# shellcheck shell=sh
# customize.sh - make an extracted Debian rootfs boot under UML
#
# Sourced by recipe.sh; runs on the host (as root or under fakeroot) on
# the unpacked tree, without a chroot, so it is the same for every ARCH.

# unit_path ROOT UNIT - the unit file's path inside the image
unit_path() {
	for _d in /usr/lib/systemd/system /lib/systemd/system; do
		if [ -e "$1$_d/$2" ]; then
			echo "$_d/$2"
			return
		fi
	done
	die "no unit $2 in the rootfs"
}

# enable_unit ROOT TARGET UNIT - what systemctl enable does for WantedBy=
enable_unit() {
	mkdir -p "$1/etc/systemd/system/$2.wants"
	ln -sfn "$3" "$1/etc/systemd/system/$2.wants/${3##*/}"
}

# mask_unit ROOT UNIT
mask_unit() {
	rm -f "$1/etc/systemd/system/"*.wants/"$2"
	ln -sfn /dev/null "$1/etc/systemd/system/$2"
}

# customize ROOT - overlay, accounts, fstab and units
customize() {
	_root=$1
	tar -C "$IMAGES_DIR/debian/overlay" --owner=0 --group=0 -cf - . |
		tar -C "$_root" -xf -

	# Root logs in without a password.
	sed -i 's/^root:[^:]*:/root::/' "$_root/etc/shadow"
	echo umarm >"$_root/etc/hostname"
	chmod 0644 "$_root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tumarm\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
		>"$_root/etc/hosts"
	echo '/dev/ubda / ext4 defaults 0 1' >"$_root/etc/fstab"
	mkdir -p "$_root/host"

	enable_unit "$_root" multi-user.target \
		/etc/systemd/system/umarm-multi-user.service
	enable_unit "$_root" multi-user.target \
		/etc/systemd/system/umarm-gate.service
	enable_unit "$_root" local-fs.target \
		/etc/systemd/system/umarm-hostfs.service
	enable_unit "$_root" local-fs.target \
		/etc/systemd/system/umarm-shares.service
	enable_unit "$_root" sysinit.target \
		/etc/systemd/system/umarm-diag.service
	enable_unit "$_root" multi-user.target \
		/etc/systemd/system/umarm-net.service
	install_udhcpc_script "$_root"
	# The UML console is /dev/console (tty0); tty1... are other UML
	# channels, usually con=null, where a getty would only spin.
	enable_unit "$_root" getty.target \
		"$(unit_path "$_root" console-getty.service)"
	mask_unit "$_root" getty@tty1.service
	# Mark /etc and /var as up to date with /usr, so that the
	# ConditionNeedsUpdate= units (ldconfig, journal catalog, ...) do not
	# run on every boot of a copy-on-write image.
	touch "$_root/etc/.updated" "$_root/var/.updated"
	# An empty /etc/machine-id would count as a first boot, whose
	# systemd-firstboot prompts on the console for locale and timezone.
	mask_unit "$_root" systemd-firstboot.service
	# e2scrub checks LVM snapshots of ext4 volumes; a guest on ubd has
	# none.  e2scrub_reap runs at CPUSchedulingPolicy=idle, so on a slow
	# host it holds multi-user.target back for as long as anything else
	# wants the CPU (40 minutes of an emulated arm64 boot).
	mask_unit "$_root" e2scrub_reap.service
	mask_unit "$_root" e2scrub_all.timer
}
