# shellcheck shell=sh
# debian-boot.sh - the kernel arguments of a gate that boots a Debian image
# with systemd (sourced, POSIX sh; boot-debian and containers use it)
#
# debian_boot_args TIMEOUT - print the arguments that let systemd wait as
# long as the gate does: no unit start, service watchdog or udev event in
# the guest times out before the gate's own TIMEOUT (seconds).
# systemd.default_timeout_start_sec= and udev.event_timeout= are TIMEOUT,
# and the units that carry their own TimeoutSec=90s or WatchdogSec=3min
# get a drop-in with TimeoutStartSec=TIMEOUT and WatchdogSec=0, passed as
# systemd.unit-dropin credentials (systemd-debug-generator writes them; a
# credential cannot name all services at once, and an extra generator in
# the image would add to the generators' own fixed 90 s limit).  On a slow
# host (the emulated arm64 test host under load is 20-100 times slower
# than hardware) those limits killed journald, udevd, dbus, systemd-sysctl
# and systemd-journal-flush mid-start, and each restart redid the work
# (udevd's coldplug) that had run out of time.  Whether the boot gets
# there is decided by the gate's own timeout and marker, as for every
# gate.  TERM=dumb stops systemd's colour codes and terminal queries on
# the console.
debian_boot_args() {
	_dropin=$(printf '[Service]\nTimeoutStartSec=%s\nWatchdogSec=0\n' "$1" | base64 -w0)
	printf '%s\n' TERM=dumb "systemd.default_timeout_start_sec=$1" \
		"udev.event_timeout=$1"
	for _u in systemd-journal-flush systemd-modules-load systemd-sysctl \
		systemd-sysusers systemd-binfmt systemd-machine-id-commit \
		systemd-journald systemd-udevd systemd-logind systemd-networkd \
		systemd-hostnamed systemd-localed systemd-timedated; do
		echo "systemd.set_credential_binary=systemd.unit-dropin.$_u.service~umarm-gate:$_dropin"
	done
}
