#!/bin/sh
# mkimage.sh - build a throwaway busybox guest image for the umarmctl tests
#
# Usage: mkimage.sh OUTPUT.img [MODULES]
#
# The image follows the contract of the project's images/ recipes, so the
# tests exercise umarmctl the way real images will be used:
#   - init prints UMARM_BOOT_OK on the console once booted;
#   - umarm.hostfs=DIR on the kernel command line mounts DIR on /host;
#   - umarm.shares=DIR: hostfs DIR/table lists the shares (umarmctl
#     share), "NAME hostfs|virtiofs ro|rw GUESTDIR" a line, each mounted
#     on GUESTDIR (hostfs DIR/NAME, or the virtio-fs tag NAME);
#   - umarm.run=PATH runs PATH, prints "UMARM_RUN_DONE rc=N", powers off;
#   - otherwise a root shell runs on the console (busybox init respawns
#     it), and ctrl-alt-del (mconsole cad) powers off cleanly;
#   - a vec0 (vector, the relay) or eth0 (virtio_net, vhost-user)
#     interface, if any, is configured with DHCP.
# MODULES, a kernel's lib/modules directory (of "make modules_install"),
# goes into the image as /lib/modules, and init loads virtio_net from it
# (the kernels build it as a module).  BUSYBOX names the busybox to use
# (default: the one in PATH; it must be static and of the kernel's
# architecture).  EXTRA_BINS, a list of host programs of the kernel's
# architecture, go into the image with the shared libraries ldd names
# (e.g. the host's usbip for the USB/IP import); PATH=GUESTPATH puts one
# elsewhere in the guest.  Needs busybox-static and
# e2fsprogs; no root.

set -eu

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 OUTPUT.img [MODULES]" >&2; exit 2; }
out=$1
mods=${2:-}
bb=${BUSYBOX:-$(command -v busybox || true)}
[ -n "$bb" ] || { echo "$0: busybox (busybox-static) is not installed" >&2; exit 1; }
# file(1) is not everywhere (the emulated arm64 host has none); ldd says
# "not a dynamic executable" for a static one.
if command -v file >/dev/null; then
	file -L "$bb" | grep -q 'statically linked'
else
	! ldd "$bb" >/dev/null 2>&1
fi || { echo "$0: $bb is not static: apt install busybox-static" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/sbin" "$root/etc" "$root/proc" "$root/sys" \
	"$root/dev" "$root/host" "$root/tmp" "$root/root" "$root/usr/bin" \
	"$root/usr/sbin" "$root/var/run"
cp "$bb" "$root/bin/busybox"
if [ -n "$mods" ]; then
	# not the build/source links (a dev build's build link is cyclic)
	mkdir -p "$root/lib/modules"
	cp -r "$mods/." "$root/lib/modules/"
	rm -f "$root"/lib/modules/*/build "$root"/lib/modules/*/source
fi
for bin in ${EXTRA_BINS:-}; do
	dst=${bin#*=}
	bin=${bin%%=*}
	[ -x "$bin" ] || { echo "$0: EXTRA_BINS: $bin is not an executable" >&2; exit 1; }
	mkdir -p "$root${dst%/*}"
	cp -L "$bin" "$root$dst"
	for lib in $(ldd "$bin" 2>/dev/null | sed -n 's|.*[ 	]\(/[^ ]*\) (0x.*|\1|p'); do
		mkdir -p "$root${lib%/*}"
		cp -L "$lib" "$root$lib"
	done
done
for app in $("$bb" --list-full); do
	[ -e "$root/$app" ] || ln -s /bin/busybox "$root/$app"
done

cat > "$root/etc/inittab" <<'EOT'
::sysinit:/etc/rc.sysinit
::respawn:-/bin/cttyhack /bin/sh
::ctrlaltdel:/sbin/poweroff
::shutdown:/bin/umount -a -r
EOT

cat > "$root/etc/rc.sysinit" <<'EOT'
#!/bin/sh
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
mount -o remount,rw /
run= hfs= name= shares=
for a in $(cat /proc/cmdline); do
	case $a in
	umarm.run=*) run=${a#umarm.run=} ;;
	umarm.hostfs=*) hfs=${a#umarm.hostfs=} ;;
	umarm.name=*) name=${a#umarm.name=} ;;
	umarm.shares=*) shares=${a#umarm.shares=} ;;
	esac
done
[ -n "$name" ] && hostname "$name"
[ -n "$hfs" ] && mount -t hostfs -o "nosuid,nodev,$hfs" hostfs /host
if [ -n "$shares" ] && mkdir -p /tmp/.shares &&
   mount -r -t hostfs -o "$shares" hostfs /tmp/.shares; then
	while read -r sn sfs smode sdir; do
		ro=
		[ "$smode" = ro ] && ro=-r
		mkdir -p "$sdir"
		if [ "$sfs" = virtiofs ]; then
			mount -t virtiofs -o nosuid,nodev $ro "$sn" "$sdir"
		else
			mount -t hostfs $ro -o "nosuid,nodev,$shares/$sn" hostfs "$sdir"
		fi || echo "UMARM_SHARE_ERROR $sn on $sdir"
	done < /tmp/.shares/table
	umount /tmp/.shares
fi
# vhost-user networking: a virtio device; its driver is a module
if [ -d /lib/modules ] && grep -q '^virtio:d00000001v' /sys/bus/virtio/devices/*/modalias 2>/dev/null; then
	modprobe virtio_net || echo "UMARM_TEST_WARN modprobe virtio_net failed"
fi
ip link set lo up
for i in vec0 eth0; do
	[ -e /sys/class/net/$i ] || continue
	ip link set $i up
	udhcpc -i $i -q -n -t 5 -s /etc/udhcpc.script >/dev/null 2>&1 ||
		echo "UMARM_TEST_WARN no DHCP lease on $i"
done
read -r up _ </proc/uptime
echo "UMARM_BOOT_OK uptime=$up"
if [ -n "$run" ]; then
	sh "$run"
	echo "UMARM_RUN_DONE rc=$?"
	sync
	poweroff -f
fi
EOT

cat > "$root/etc/udhcpc.script" <<'EOT'
#!/bin/sh
case $1 in
bound|renew)
	ip addr add "$ip/${mask:-24}" dev "$interface"
	for r in $router; do ip route add default via "$r"; break; done
	: > /etc/resolv.conf
	for d in $dns; do echo "nameserver $d" >> /etc/resolv.conf; done
	;;
esac
EOT
chmod 755 "$root/etc/rc.sysinit" "$root/etc/udhcpc.script"
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"

rm -f "$out"
mkfs.ext4 -q -F -L umarm-test -d "$root" "$out" 32M >&2
echo "$out"
