#!/bin/bash
# umarmctl-arm64.sh - umarmctl against the arm64 UML kernel in the emulated arm64 host
#
# Usage: tests/vm/umarmctl-arm64.sh OUTDIR
#
# Cross-builds tools/umarmctl for arm64 (aarch64-linux-gnu-gcc, else
# clang-19 --target=aarch64-linux-gnu), bundles it with the arm64 4K UML
# kernel and its modules (kernel/build.sh path arm64-4k, or ARM64_KERNEL_4K
# naming a kernel built elsewhere, with modules/lib/modules next to it) and
# the minimal arm64 image (images/build.sh), and runs in ONE VM
# (tests/vm/vm.sh run --kernel 4k):
#
#   it.*        tools/umarmctl/tests/integration/run.sh, one CASE per check,
#               against the arm64 kernel (the busybox image it builds in the
#               VM with mkimage.sh and the kernel's modules);
#   it.summary  its "N passed, 0 failed" line;
#   net.*       passt networking, vhost-user (the default with sid's passt)
#               and the relay: backend in use, guest interface and driver,
#               DHCP lease, guest -> host through passt, a port forward;
#   minimal.*   an instance of the project's minimal image: exec, status;
#   usb.*       USB/IP with a dummy_hcd + configfs SourceSink gadget on the
#               emulated host: usb list, usb attach (host export: usbip-host,
#               umarmctl's one-shot import answer, nothing left listening),
#               the gadget seen in the guest through its vhci-hcd (with the
#               host's usbip copied into the guest image); for a kernel
#               without USBIP_VHCI_HCD, the guest import SKIP;
#               usb detach; then the same with an instance of the
#               project's minimal image, whose init is its usbip
#               (usb.minimal.*).
#   apparmor.*  (last: it installs apparmor in the VM, from .debs of the
#               suite's archive that the host downloads once with apt-get
#               into $UMARM_CACHE/vm/debs-SUITE, and loads profiles) with
#               passt's own profile loaded: a system instance's start
#               fails with the error naming AppArmor and the fix, the
#               kernel's DENIED line, no change_onexec denial (umarmctl
#               looks first), "check" warns; then with
#               apparmor/umarm-passt loaded as the package does: check,
#               start, passt confined by umarm-passt, DHCP lease, a
#               hot-plugged interface, no denials; a per-user instance
#               ($XDG_RUNTIME_DIR/umarm, started with no_new_privs as
#               its unit does) the same.  SKIP outside the emulated host.
#
# Prints one line per check:
#
#   CASE NAME verdict=PASS|FAIL|SKIP [detail]
#
# Verdicts come from what the commands printed (markers, files, the
# integration log), never from exit statuses alone; a check that printed
# nothing is FAIL.  Exit status 0 only if no check is FAIL.  Artifacts:
# OUTDIR/vm (console.log, out/job.log) and OUTDIR/vm/umarm (the
# job's logs, written through 9p, so they survive a VM that dies); a
# passing run keeps them too, they are small.  Environment: TIMEOUT (VM
# run, default 3000 s), IT_TIMEOUT (the integration suite, 1800 s),
# ARM64_KERNEL_4K, PARTS (which of "net minimal usb it apparmor" to run,
# default all), UMARM_IT_CASES (integration case groups, default all).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/vm/lib/umarmctl-cross.sh
. "$top/tests/vm/lib/umarmctl-cross.sh"
[ $# -eq 1 ] || { sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; }
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
t0=$(date +%s)

bundle=$out/bundle
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/k" "$bundle/img" "$bundle/it" "$bundle/aa"

# umarmctl for arm64, built in a copy of the tree
src=$out/build
umarmctl_cross_build "$top" "$src" "$out/build.log" umarmctl \
	tests/integration/notify-listen minimal-init \
	tests/integration/fake-usbipd \
	INIT_SRC="$top/images/minimal/init.c $top/images/minimal/usbip.c" ||
	{ echo "umarmctl-arm64.sh: cross-build failed, see $out/build.log" >&2; exit 1; }
cp "$src/umarmctl" "$src/tests/integration/notify-listen" "$src/minimal-init" "$bundle/bin/"
cp "$src/tests/integration/run.sh" "$src/tests/integration/mkimage.sh" \
	"$src/tests/integration/fake-usbipd" "$bundle/it/"

k=${ARM64_KERNEL_4K:-}
[ -n "$k" ] || k=$("$top/kernel/build.sh" path arm64-4k)/linux
[ -x "$k" ] || { echo "umarmctl-arm64.sh: no $k: build it with kernel/build.sh arm64-4k" >&2; exit 1; }
kd=$(dirname "$k")
cp "$k" "$bundle/k/linux"
[ -f "$kd/.config" ] && cp "$kd/.config" "$bundle/k/config"
if [ -d "$kd/modules/lib/modules" ]; then
	mkdir -p "$bundle/k/modules"
	cp -r "$kd/modules/lib/modules/." "$bundle/k/modules/"
	rm -f "$bundle"/k/modules/*/build "$bundle"/k/modules/*/source
fi
cp "$("$top/images/build.sh" minimal arm64 | tail -n 1)" "$bundle/img/minimal-arm64.ext4"
# apparmor.*: umarmctl's profile, and the apparmor package, which the
# emulated host's rootfs lacks (and it has no network to fetch it)
cp "$top/tools/umarmctl/apparmor/umarm-passt" "$bundle/aa/"
debs=${UMARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linux-uml-arm64}/vm/debs-${SUITE:-sid}
if ! ls "$debs"/apparmor_*_arm64.deb "$debs"/libapparmor1_*_arm64.deb >/dev/null 2>&1; then
	mkdir -p "$debs"
	# -o APT::Sandbox::User: _apt may not write into root's cache
	(cd "$debs" && apt-get -q -o APT::Sandbox::User=root download \
		"apparmor:arm64/${SUITE:-sid}" "libapparmor1:arm64/${SUITE:-sid}") \
		>>"$out/build.log" 2>&1 ||
		echo "umarmctl-arm64.sh: apt-get download apparmor:arm64 failed (see $out/build.log): apparmor.* will SKIP" >&2
fi
cp "$debs"/apparmor_*_arm64.deb "$debs"/libapparmor1_*_arm64.deb "$bundle/aa/" 2>/dev/null || :
tar -C "$bundle" -cf "$out/bundle.tar" .
rm -rf "$bundle" "$src"
tb=$(date +%s)

cat >"$out/job.sh" <<'EOF'
#!/bin/bash
# Runs in the emulated arm64 host as root.  Every check prints
# "CASE NAME verdict=..." on stdout; logs go to $CI_OUT.
set -u
# logs on the 9p share: they reach the host even if the VM dies
W=$CI_WORK O=$CI_SHARE/umarm
mkdir -p "$O"
U=$W/bin/umarmctl
# $1: the parts to run, $2: integration case groups, $3: its timeout
parts=" $1 " it_cases=${2:-} it_timeout=${3:-1800}
part() { case $parts in *" $1 "*) return 0 ;; esac; return 1; }
case_() { echo "CASE $*"; }
# check NAME FILE PATTERN [detail] - PASS if PATTERN is in FILE
check() {
	if grep -q -- "$3" "$2" 2>/dev/null; then
		case_ "$1 verdict=PASS ${4:-}"
	else
		case_ "$1 verdict=FAIL no '$3' in $(basename "$2"): $(head -c 200 "$2" 2>/dev/null | tr '\n' ' ')"
	fi
}
echo "host: $(uname -r) page_size=$(getconf PAGESIZE) cpus=$(nproc) passt=$(dpkg-query -W -f='${Version}' passt 2>/dev/null)"

# -- networking: vhost-user and relay ----------------------------------
export UMARM_KERNEL=$W/k/linux UMARM_NO_SYSTEMD=1
$U check >"$O/check.txt" 2>&1
echo "rc=$?" >>"$O/check.txt"
if grep -q '^FAIL' "$O/check.txt" || ! grep -q '^rc=0$' "$O/check.txt"; then
	case_ "check.host verdict=FAIL $(grep '^FAIL' "$O/check.txt" | tr '\n' ' ')"
else
	check check.host "$O/check.txt" "^ok *ptrace" "(umarmctl check: all ok)"
fi
check check.passt_vhost_user "$O/check.txt" "^ok *passt .*(vhost-user"
T=/tmp/umarm-net
mods=
[ -d "$W/k/modules" ] && mods=$W/k/modules
rm -rf $T
mkdir -p $T/www
export UMARM_CONFIG_DIR=$T/etc UMARM_STATE_DIR=$T/lib UMARM_RUNTIME_DIR=$T/run
# with the host's usbip (and its libraries) for the guest side of usb attach
EXTRA_BINS=$(command -v usbip || true) \
	"$W/it/mkimage.sh" $T/img $mods >/dev/null 2>"$O/mkimage.log"
echo "host-says-$$" >$T/www/h.txt
busybox httpd -f -p 127.0.0.1:18330 -h $T/www &
hp=$!
part net &&
for b in vhost-user relay; do
	n=net-$b p=$([ $b = relay ] && echo 18402 || echo 18401)
	$U create $n --image $T/img --mem 128M --network passt --port $p:80 >"$O/$n.create" 2>&1
	echo "network-backend = $b" >>$T/etc/instances/$n.conf
	s=$(date +%s%N)
	$U start $n >"$O/$n.start" 2>&1
	echo "timing: $n start-to-READY $(( ($(date +%s%N) - s) / 1000000 )) ms"
	cp $T/run/$n/state "$O/$n.state" 2>/dev/null
	check net.$b.start "$O/$n.state" "^status=running\$" "$(tr '\n' ' ' <"$O/$n.start")"
	check net.$b.backend "$O/$n.state" "^net=$b\$" "(state file)"
	$U exec $n -- sh -c 'ls /sys/class/net; for i in /sys/class/net/*/device/driver; do echo "$i -> $(readlink $i)"; done; ip -4 addr; ip route' >"$O/$n.ip" 2>&1
	if [ $b = vhost-user ]; then
		check net.$b.virtio_net "$O/$n.ip" "eth0/device/driver -> .*virtio_net"
		check net.$b.dhcp_lease "$O/$n.ip" "inet .* scope global eth0"
	else
		check net.$b.dhcp_lease "$O/$n.ip" "inet .* scope global vec0"
	fi
	$U exec $n --timeout 60 -- sh -c 'gw=$(ip route | awk "/^default/{print \$3; exit}"); wget -q -O /tmp/h http://$gw:18330/h.txt && cat /tmp/h' >"$O/$n.g2h" 2>&1
	check net.$b.guest_to_host "$O/$n.g2h" "host-says-$$"
	$U exec $n -- sh -c "mkdir -p /www && echo guest-says-$b > /www/index.html && httpd -p 80 -h /www" >/dev/null 2>&1
	rm -f $T/dl
	timeout 60 busybox wget -q -O $T/dl http://127.0.0.1:$p/index.html >"$O/$n.h2g" 2>&1
	cat $T/dl >>"$O/$n.h2g" 2>/dev/null
	check net.$b.port_forward "$O/$n.h2g" "guest-says-$b" "(host 127.0.0.1:$p -> guest :80)"
	passt=$(sed -n 's/^passt=//p' $T/run/$n/state)
	$U stop $n >"$O/$n.stop" 2>&1
	if [ -n "$passt" ] && [ "$passt" != 0 ] && [ ! -d /proc/$passt ]; then
		case_ "net.$b.passt_stopped verdict=PASS"
	else
		case_ "net.$b.passt_stopped verdict=FAIL passt pid '$passt' still there or unknown"
	fi
	cp $T/lib/$n/passt.log "$O/$n.passt.log" 2>/dev/null
	$U logs $n >"$O/$n.console" 2>&1
done

# network-backend = auto: vhost-user only with virtio_net built in
if part net; then
vn=$(sed -n 's/^CONFIG_VIRTIO_NET=//p' "$W/k/config" 2>/dev/null)
want=$([ "${vn:-y}" = y ] && echo vhost-user || echo relay)
$U create net-auto --image $T/img --mem 128M --network passt >/dev/null 2>&1
$U start net-auto >"$O/net-auto.start" 2>&1
cp $T/run/net-auto/state "$O/net-auto.state" 2>/dev/null
check net.auto.backend "$O/net-auto.state" "^net=$want\$" "(CONFIG_VIRTIO_NET=${vn:-?} -> $want)"
$U exec net-auto -- ip -4 addr >"$O/net-auto.ip" 2>&1
check net.auto.dhcp_lease "$O/net-auto.ip" "inet .* scope global"
$U kill net-auto >/dev/null 2>&1
fi

# -- the project's minimal image ---------------------------------------
if part minimal; then
$U create minimal1 --image "$W/img/minimal-arm64.ext4" --mem 128M >"$O/minimal.create" 2>&1
s=$(date +%s%N)
$U start minimal1 >"$O/minimal.start" 2>&1
echo "timing: minimal start-to-READY $(( ($(date +%s%N) - s) / 1000000 )) ms"
$U status minimal1 >"$O/minimal.status" 2>&1
check minimal.status "$O/minimal.status" "minimal1 (system instance) - running"
$U exec minimal1 -- sh -c 'uname -m; getconf PAGESIZE 2>/dev/null || true; exit 42' >"$O/minimal.exec" 2>&1
echo "exec_rc=$?" >>"$O/minimal.exec"
check minimal.exec_arch "$O/minimal.exec" "^aarch64$"
check minimal.exec_status "$O/minimal.exec" "^exec_rc=42$"
$U stop minimal1 >"$O/minimal.stop" 2>&1
$U status minimal1 >"$O/minimal.status2" 2>&1
check minimal.stop "$O/minimal.status2" "Last run: stopped"
$U logs minimal1 >"$O/minimal.console" 2>&1
fi

# -- USB/IP -------------------------------------------------------------
# A SourceSink gadget on dummy_hcd: a USB device without hardware
if part usb; then
{
	modprobe dummy_hcd && modprobe libcomposite && modprobe usb_f_ss_lb
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	g=/sys/kernel/config/usb_gadget/umarm
	mkdir -p $g/strings/0x409 $g/configs/c.1/strings/0x409 $g/functions/SourceSink.0
	echo 0x1d6b >$g/idVendor
	echo 0x0104 >$g/idProduct
	echo umarm-test >$g/strings/0x409/manufacturer
	echo sourcesink >$g/strings/0x409/product
	echo ss >$g/configs/c.1/strings/0x409/configuration
	ln -s $g/functions/SourceSink.0 $g/configs/c.1/
	ls /sys/class/udc
	echo "$(ls /sys/class/udc | head -n 1)" >$g/UDC
	sleep 2
} >"$O/usb.gadget" 2>&1
busid=
for d in /sys/bus/usb/devices/*; do
	[ "$(cat $d/idVendor 2>/dev/null)" = 1d6b ] &&
		[ "$(cat $d/idProduct 2>/dev/null)" = 0104 ] && busid=${d##*/}
done
echo "busid=$busid" >>"$O/usb.gadget"
if [ -z "$busid" ]; then
	case_ "usb.gadget verdict=FAIL no 1d6b:0104 device on dummy_hcd: $(tail -c 300 "$O/usb.gadget" | tr '\n' ' ')"
else
	case_ "usb.gadget verdict=PASS busid=$busid"
	$U usb list >"$O/usb.list" 2>&1
	check usb.list "$O/usb.list" "^$busid *1d6b:0104 *host *umarm-test sourcesink"
	$U create usb1 --image $T/img --mem 128M --network passt >/dev/null 2>&1
	$U start usb1 >"$O/usb.start" 2>&1
	$U usb attach usb1 "$busid" >"$O/usb.attach" 2>&1
	echo "rc=$?" >>"$O/usb.attach"
	{
		echo "driver: $(readlink /sys/bus/usb/devices/$busid/driver)"
		echo "listen: $(grep -c ':0CA8 .* 0A ' /proc/net/tcp /proc/net/tcp6 | tr '\n' ' ')"
		usbip list -l
	} >"$O/usb.export" 2>&1
	check usb.export_bound "$O/usb.export" "driver: .*usbip-host"
	# umarmctl answers the import itself and keeps nothing listening
	check usb.nothing_listening "$O/usb.export" "listen: /proc/net/tcp:0 /proc/net/tcp6:0"
	if grep -q '^CONFIG_USBIP_VHCI_HCD=[ym]' "$W/k/config" 2>/dev/null; then
		$U exec usb1 -- sh -c 'for d in /sys/bus/usb/devices/*; do echo "dev: ${d##*/} $(cat $d/idVendor 2>/dev/null):$(cat $d/idProduct 2>/dev/null)"; done' >"$O/usb.guest" 2>&1
		check usb.guest_attach "$O/usb.guest" "dev: .* 1d6b:0104"
	else
		# no guest import, and no usbipd for another importer
		case_ "usb.guest_attach verdict=SKIP the UML kernel has no CONFIG_USBIP_VHCI_HCD (its .config); umarmctl said: $(grep -m1 error "$O/usb.attach")"
	fi
	$U usb detach usb1 "$busid" >"$O/usb.detach" 2>&1
	echo "driver: $(readlink /sys/bus/usb/devices/$busid/driver)" >>"$O/usb.detach"
	check usb.detach_returns_device "$O/usb.detach" "driver: .*/usb$"
	$U kill usb1 >/dev/null 2>&1
	# The project's minimal image as a user gets it: no Debian usbip in
	# it, its init answers as /sbin/usbip (images/minimal/usbip.c).
	if grep -q '^CONFIG_USBIP_VHCI_HCD=[ym]' "$W/k/config" 2>/dev/null; then
		$U create usbm --image "$W/img/minimal-arm64.ext4" --mem 128M --network passt >/dev/null 2>&1
		$U start usbm >"$O/usbm.start" 2>&1
		# no udhcpc: init took a lease at boot (umarm.net=dhcp:IF)
		$U exec usbm --timeout 60 -- sh -c 'ip -4 addr; ip route' >"$O/usbm.dhcp" 2>&1
		check usb.minimal.dhcp_at_boot "$O/usbm.dhcp" "^default via "
		$U usb attach usbm "$busid" >"$O/usbm.attach" 2>&1
		echo "rc=$?" >>"$O/usbm.attach"
		check usb.minimal.attach "$O/usbm.attach" "^rc=0$" "$(head -c 200 "$O/usbm.attach" | tr '\n' ' ')"
		$U exec usbm -- sh -c 'readlink /sbin/usbip; usbip port; for d in /sys/bus/usb/devices/*; do echo "dev: ${d##*/} $(cat $d/idVendor 2>/dev/null):$(cat $d/idProduct 2>/dev/null) $(cat $d/product 2>/dev/null)"; done' >"$O/usbm.guest" 2>&1
		check usb.minimal.guest_sees_device "$O/usbm.guest" "dev: .* 1d6b:0104 sourcesink"
		check usb.minimal.port "$O/usbm.guest" "-> usbip://.*:3240/$busid\$"
		$U usb detach usbm "$busid" >"$O/usbm.detach" 2>&1
		$U exec usbm -- sh -c 'usbip port; cat /sys/bus/usb/devices/*/idProduct' >>"$O/usbm.detach" 2>&1
		echo "driver: $(readlink /sys/bus/usb/devices/$busid/driver)" >>"$O/usbm.detach"
		if grep -q '^0104$' "$O/usbm.detach"; then
			case_ "usb.minimal.detach verdict=FAIL the guest still has 1d6b:0104: $(tr '\n' ' ' <"$O/usbm.detach" | head -c 300)"
		else
			check usb.minimal.detach "$O/usbm.detach" "driver: .*/usb$"
		fi
		$U logs usbm >"$O/usbm.console" 2>&1
		$U kill usbm >/dev/null 2>&1
	fi
fi
fi
kill $hp 2>/dev/null
for f in $T/etc/instances/*.conf; do $U kill "$(basename "$f" .conf)" >/dev/null 2>&1; done

# -- the integration suite ---------------------------------------------
if part it; then
s=$(date +%s)
# Debian's virtiofsd (sid has it; bookworm, the x86_64 machines, does not)
# and a kernel with virtio-fs: the virtiofs group mounts real shares
vfs_real=0
[ -x /usr/libexec/virtiofsd ] && grep -q '^CONFIG_VIRTIO_FS=y' "$W/k/config" 2>/dev/null &&
	vfs_real=1
echo "integration: virtio-fs with Debian's virtiofsd: $([ $vfs_real = 1 ] && echo yes || echo 'no (stand-in)')"
env -u UMARM_CONFIG_DIR -u UMARM_STATE_DIR -u UMARM_RUNTIME_DIR \
	UMARM_VIRTIOFS_REAL=$vfs_real \
	UMARM_KERNEL=$W/k/linux UMARM_TEST_MODULES=$mods UMARMCTL=$U \
	NOTIFY_LISTEN=$W/bin/notify-listen UMARM_TEST_USBIP=$W/bin/minimal-init \
	UMARM_MINIMAL_IMAGE=$W/img/minimal-arm64.ext4 \
	timeout -k 10 "$it_timeout" "$W/it/run.sh" $it_cases \
	>"$O/integration.log" 2>&1
echo "integration: rc=$? in $(( $(date +%s) - s ))s"
sed -n 's/^PASS \([^ ]*\).*/CASE it.\1 verdict=PASS/p; s/^FAIL \([^:]*\): \(.*\)/CASE it.\1 verdict=FAIL \2/p' "$O/integration.log"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$O/integration.log" | tail -n 1)
case $line in
*" passed, 0 failed"*) case_ "it.summary verdict=PASS $line" ;;
*) case_ "it.summary verdict=FAIL ${line:-no summary line}" ;;
esac
grep -E '^  ' "$O/integration.log" | sed 's/^ */timing: /'
fi

# -- AppArmor: passt's own profile, then umarm-passt ---------------------
# Last: it installs apparmor and loads profiles, which nothing above expects.
if part apparmor; then
A=$O/aa
mkdir -p $A
# ua: system instances in their real directories (/run/umarm/NAME)
ua() { env -u UMARM_CONFIG_DIR -u UMARM_STATE_DIR -u UMARM_RUNTIME_DIR "$U" "$@"; }
# mark NAME: a marker in the kernel log; since NAME: the log after it
# (dmesg -C would lose host-dmesg.txt).  The kernel prints audit records
# rate-limited (10 per 5 s, then "kauditd_printk_skb: N callbacks
# suppressed"): installing apparmor prints ~150, and a DENIED line right
# after them was dropped, so wait for a fresh window first.
mark() { sleep 6; echo "umarmctl-arm64: $1" >/dev/kmsg; }
since() { dmesg | sed -n "/umarmctl-arm64: $1\$/,\$p"; }
# no_denials NAME FILE: PASS if FILE has no DENIED line of umarm-passt
# and no audit records were suppressed in it (a "suppressed" line counts
# the records dropped before the one it precedes: the window's first one
# speaks of the time before the mark)
no_denials() {
	local lost
	lost=$(awk '/audit: /{seen=1; next} seen && /kauditd_printk_skb: .* suppressed/{print; exit}' "$2")
	if grep 'apparmor="DENIED"' "$2" | grep -q 'profile="umarm-passt"'; then
		case_ "$1 verdict=FAIL $(denied "$2" 'profile="umarm-passt"')"
	elif [ -n "$lost" ]; then
		case_ "$1 verdict=FAIL audit records were suppressed: ${lost#*] }"
	else
		case_ "$1 verdict=PASS ($(grep -c 'apparmor=' "$2") apparmor lines, none DENIED for umarm-passt)"
	fi
}
# denied FILE PATTERN - the first DENIED line of FILE matching PATTERN
denied() { grep 'apparmor="DENIED"' "$1" | grep -m1 -- "$2" | sed 's/.*audit: //' | head -c 400; }
# addr EXEC... - the guest's IPv4 addresses; a guest under TCG may be slow
# to pick up the first exec after READY (15 s), so try three times
addr() {
	local i
	for i in 1 2 3; do
		echo "attempt $i" >>"$A/addr.log"
		"$@" -- ip -4 addr 2>&1 | tee -a "$A/addr.log" | grep -q 'scope global' && break
		sleep 5
	done
	"$@" -- ip -4 addr 2>&1
}
if [ ! -x /usr/local/sbin/ci-init ]; then
	case_ "apparmor.install verdict=SKIP not the emulated host: this would install apparmor and load profiles on the real one"
elif ! ls $W/aa/apparmor_*.deb >/dev/null 2>&1; then
	case_ "apparmor.install verdict=SKIP the host could not download apparmor:arm64 (apt-get download)"
else
	mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
	s=$(date +%s)
	dpkg -i $W/aa/*.deb >$A/dpkg.log 2>&1
	echo "rc=$? in $(( $(date +%s) - s ))s" >>$A/dpkg.log
	check apparmor.install $A/dpkg.log "^rc=0 " "($(tail -n 1 $A/dpkg.log); $(dpkg-query -W -f='apparmor ${Version}' apparmor))"
	cat /sys/module/apparmor/parameters/enabled >$A/enabled 2>&1
	check apparmor.enabled $A/enabled "^Y$" "(/sys/module/apparmor/parameters/enabled)"
	# passt's own profile, as the apparmor service loads it at boot
	grep -q '^passt ' /sys/kernel/security/apparmor/profiles ||
		apparmor_parser -r /etc/apparmor.d/usr.bin.passt >$A/passt-load.log 2>&1
	cp /sys/kernel/security/apparmor/profiles $A/profiles-passt
	check apparmor.passt_profile $A/profiles-passt "^passt (enforce)$"

	# without umarm-passt: passt's profile keeps it out of /run/umarm
	ua check >$A/check-without.txt 2>&1
	check apparmor.without.check_warns $A/check-without.txt "^warn *apparmor .*apparmor_parser -r /etc/apparmor.d/umarm-passt"
	ua create aa1 --image $T/img --mem 128M --network passt >$A/create.log 2>&1
	mark without
	ua start aa1 >$A/start-without.txt 2>&1
	echo "rc=$?" >>$A/start-without.txt
	since without >$A/dmesg-without.txt
	if grep -q '^rc=0$' $A/start-without.txt; then
		case_ "apparmor.without.start_fails verdict=FAIL started: $(tr '\n' ' ' <$A/start-without.txt)"
	else
		check apparmor.without.start_fails $A/start-without.txt "passt may not create /run/umarm/aa1/passt.sock under AppArmor.*apparmor_parser -r /etc/apparmor.d/umarm-passt" "$(grep -m1 error $A/start-without.txt)"
	fi
	check apparmor.without.denied $A/dmesg-without.txt 'apparmor="DENIED".*profile="passt".*name="/run/umarm/aa1/passt.sock"' "$(denied $A/dmesg-without.txt 'profile="passt"')"
	# umarmctl looks before it asks for a profile that is not loaded
	if grep -q 'operation="change_onexec"' $A/dmesg-without.txt; then
		case_ "apparmor.without.no_onexec_denial verdict=FAIL $(denied $A/dmesg-without.txt change_onexec)"
	else
		case_ "apparmor.without.no_onexec_denial verdict=PASS"
	fi
	cp /var/lib/umarm/aa1/passt.log $A/passt-without.log 2>/dev/null

	# umarm-passt, loaded as the package's postinst does
	install -m 644 $W/aa/umarm-passt /etc/apparmor.d/umarm-passt
	s=$(date +%s%N)
	apparmor_parser -r -T -W /etc/apparmor.d/umarm-passt >$A/load.log 2>&1
	echo "rc=$? in $(( ($(date +%s%N) - s) / 1000000 )) ms" >>$A/load.log
	check apparmor.profile_loads $A/load.log "^rc=0 " "$(tr '\n' ' ' <$A/load.log)"
	cp /sys/kernel/security/apparmor/profiles $A/profiles-umarm
	check apparmor.profile_enforced $A/profiles-umarm "^umarm-passt (enforce)$"
	ua check -v >$A/check-with.txt 2>&1
	check apparmor.with.check_ok $A/check-with.txt "^ok *apparmor *passt runs under profile umarm-passt"
	mark with
	ua start aa1 >$A/start-with.txt 2>&1
	cp /run/umarm/aa1/state $A/state-with 2>/dev/null
	check apparmor.with.start $A/state-with "^status=running\$" "$(tr '\n' ' ' <$A/start-with.txt)"
	p=$(sed -n 's/^passt=//p' /run/umarm/aa1/state 2>/dev/null)
	cat /proc/${p:-0}/attr/apparmor/current >$A/label-with 2>&1
	check apparmor.with.passt_confined $A/label-with "^umarm-passt (enforce)$" "(passt $p)"
	addr ua exec aa1 >$A/ip-with
	check apparmor.with.dhcp_lease $A/ip-with "inet .* scope global"
	ua net add aa1 >$A/netadd-with 2>&1
	p=$(sed -n 's/.*(passt \([0-9]*\);.*/\1/p' $A/netadd-with)
	echo "label: $(cat /proc/${p:-0}/attr/apparmor/current 2>&1)" >>$A/netadd-with
	ls -l /run/umarm/aa1/ >>$A/netadd-with 2>&1
	check apparmor.with.net_add $A/netadd-with "^label: umarm-passt (enforce)$" "($(grep -m1 '^net1 ' $A/netadd-with | cut -d';' -f1); $(grep -c 'sock' $A/netadd-with) sockets in /run/umarm/aa1)"
	ua stop aa1 >/dev/null 2>&1
	ua logs aa1 >$A/console-with.txt 2>&1
	since with >$A/dmesg-with.txt
	no_denials apparmor.with.no_denials $A/dmesg-with.txt

	# a per-user instance in $XDG_RUNTIME_DIR/umarm, with no_new_privs
	# as under its unit (NoNewPrivileges=yes)
	id umarmaa >/dev/null 2>&1 || useradd -m umarmaa
	uid=$(id -u umarmaa)
	mkdir -p /run/user/$uid && chown umarmaa: /run/user/$uid && chmod 700 /run/user/$uid
	cp $T/img /tmp/aa-user.img && chmod 644 /tmp/aa-user.img
	cp $W/k/linux /tmp/aa-kernel && chmod 755 /tmp/aa-kernel
	cp $U /tmp/aa-umarmctl && chmod 755 /tmp/aa-umarmctl
	ru() { runuser -u umarmaa -- env -u UMARM_CONFIG_DIR -u UMARM_STATE_DIR \
		-u UMARM_RUNTIME_DIR HOME=/home/umarmaa XDG_RUNTIME_DIR=/run/user/$uid \
		UMARM_KERNEL=/tmp/aa-kernel UMARM_NO_SYSTEMD=1 \
		setpriv --no-new-privs /tmp/aa-umarmctl "$@"; }
	mark user
	ru create au1 --image /tmp/aa-user.img --mem 128M --network passt >$A/user-create.txt 2>&1
	ru start au1 >$A/user-start.txt 2>&1
	cp /run/user/$uid/umarm/au1/state $A/user-state 2>/dev/null
	check apparmor.user.start $A/user-state "^status=running\$" "$(tr '\n' ' ' <$A/user-start.txt)"
	p=$(sed -n 's/^passt=//p' /run/user/$uid/umarm/au1/state 2>/dev/null)
	{ cat /proc/${p:-0}/attr/apparmor/current; grep NoNewPrivs /proc/${p:-0}/status; } >$A/user-label 2>&1
	check apparmor.user.passt_confined $A/user-label "^umarm-passt (enforce)$" "(passt $p, $(grep NoNewPrivs $A/user-label | tr '\t' ' '))"
	addr ru exec au1 >$A/user-ip
	check apparmor.user.dhcp_lease $A/user-ip "inet .* scope global"
	ru stop au1 >/dev/null 2>&1
	ru logs au1 >$A/console-user.txt 2>&1
	since user >$A/dmesg-user.txt
	no_denials apparmor.user.no_denials $A/dmesg-user.txt
	ua rm aa1 >/dev/null 2>&1
	ru rm au1 >/dev/null 2>&1
fi
fi

dmesg >"$O/host-dmesg.txt"
echo JOB_DONE
EOF
chmod +x "$out/job.sh"

log=$out/vm-output.txt
rc=0
"$top/tests/vm/vm.sh" run --kernel 4k --smp 2 --timeout "${TIMEOUT:-3000}" \
	--disk "$out/bundle.tar" --out "$out/vm" "$out/job.sh" \
	"${PARTS:-net minimal usb it apparmor}" "${UMARM_IT_CASES:-}" "${IT_TIMEOUT:-1800}" \
	>"$log" 2>&1 || rc=$?
rm -f "$out/bundle.tar"
t1=$(date +%s)
failed=0 n=0
while read -r line; do
	echo "$line"
	n=$((n + 1))
	case $line in *" verdict=PASS"*|*" verdict=SKIP"*) ;; *) failed=1 ;; esac
done < <(grep -h '^CASE ' "$log" 2>/dev/null || grep -h '^CASE ' "$out/vm/out/job.log" 2>/dev/null)
# a VM that died or timed out in the integration suite: what its log got to
itlog=$out/vm/umarm/integration.log
if ! grep -q '^CASE it\.' "$log" && [ -f "$itlog" ]; then
	while read -r line; do
		echo "$line (from $itlog, the suite did not finish)"
		n=$((n + 1))
		case $line in *" verdict=PASS") ;; *) failed=1 ;; esac
	done < <(sed -n 's/^PASS \([^ ]*\).*/CASE it.\1 verdict=PASS/p; s/^FAIL \([^:]*\): \(.*\)/CASE it.\1 verdict=FAIL \2/p' "$itlog")
fi
if ! grep -q '^JOB_DONE' "$log"; then
	echo "CASE job.complete verdict=FAIL vm.sh rc=$rc, no JOB_DONE (see $log)"
	failed=1
fi
[ "$n" -gt 0 ] || failed=1
grep '^timing:\|^integration:\|^host:' "$log" | sed 's/^/# /'
echo "# $n checks; bundle $((tb - t0))s, VM $((t1 - tb))s; artifacts=$out/vm/umarm (vm.sh rc=$rc)"
exit "$failed"
