#!/bin/sh
# run.sh - umarmctl integration tests against real UML kernels
#
# Usage: tests/integration/run.sh [CASE...]
#
# Drives the umarmctl binary of this tree against a real UML kernel and a
# real guest: create, start, exec, stop, rm, concurrent starts, kill -9 of
# the kernel and of umarmctl in the middle of operations, a corrupt
# configuration, a missing image, a disk in use, networking through passt,
# hot-plugged disks and network interfaces, the minimal and debian images'
# DHCP at boot, the minimal image's usbip against a scripted usbipd, per-user instances run by
# an ordinary user, hostfs rooted at the exchange directory, host folder
# shares (hostfs: read, write, read-only, symlinks out, renames across,
# hot-add, 1000 of them; virtio-fs with a stand-in virtiofsd), a system
# instance run by an unprivileged account as umarm@.service runs it, an
# instance with as many CPUs as the host and one with more (start warns).
#
# Kernel: $UMARM_KERNEL, else the team's dev build
# ~/.cache/linux-uml-arm64/kernel/$(uname -m)/linux, else the packaged
# /usr/lib/uml/linux-uml-arm64/4k/linux.  Without one: exit 77 (skip).
# Guest: $UMARM_TEST_IMAGE, else a busybox image made by mkimage.sh, which
# follows the images/ contract, with the kernel's modules from
# $UMARM_TEST_MODULES, else the lib/modules next to the kernel (a dev
# build's modules/lib/modules, a package's modules), so that a guest on
# vhost-user networking can load virtio_net.  The minimal-net and
# debian-net groups boot the project's own images: $UMARM_MINIMAL_IMAGE and
# $UMARM_DEBIAN_IMAGE, else what images/build.sh of this tree gives (the
# minimal one with ../../minimal-init as its init).  The docker group runs
# only when named ("run.sh docker": a Debian boot and dockerd's start take
# a minute on x86_64, many on an emulated host): README.Debian's
# walk-through, with $UMARM_DOCKER_IMAGE, else the debian-docker image this
# tree's recipe gives (umarmctl create --image debian-docker, by name).
# python3 is optional (the emulated arm64 host has none): JSON, HTTP and sd_notify are checked
# without it.  Network hot-plug needs a passt with --vhost-user:
# $UMARM_PASST, else /usr/bin/passt if it has it (on bookworm, `make deps`
# installs a local backport of trixie's); without one that case prints
# SKIP.  Every case prints PASS, FAIL or SKIP with the reason; the exit
# status is 1 if any case failed, 77 if every case asked for was skipped.
# Failing runs keep their directory (printed at the end).

# SC2015: pass() never fails, so "check && pass || fail" is if-then-else.
# SC2016: single quotes are meant: the guest shell expands those.
# shellcheck disable=SC2015,SC2016

set -u

here=$(cd "$(dirname "$0")" && pwd)
UMARMCTL=${UMARMCTL:-$here/../../umarmctl}
NOTIFY_LISTEN=${NOTIFY_LISTEN:-$here/notify-listen}
arch=$(uname -m)
[ "$arch" = aarch64 ] && arch=arm64

kernel=${UMARM_KERNEL:-}
for k in "$HOME/.cache/linux-uml-arm64/kernel/$arch/linux" \
	 /usr/lib/uml/linux-uml-arm64/4k/linux \
	 /usr/lib/uml/linux-uml-arm64/16k/linux; do
	[ -n "$kernel" ] && break
	[ -x "$k" ] && kernel=$k
done
if [ -z "$kernel" ] || [ ! -x "$kernel" ]; then
	echo "SKIP: no UML kernel (set UMARM_KERNEL, or build one with kernel/build.sh)"
	exit 77
fi
export UMARM_KERNEL="$kernel"
modules=${UMARM_TEST_MODULES:-}
for m in "$(dirname "$kernel")/modules/lib/modules" "$(dirname "$kernel")/modules"; do
	[ -n "$modules" ] && break
	[ -d "$m" ] && modules=$m
done

T=$(mktemp -d /tmp/umarm-it.XXXXXX)
chmod 755 "$T"
export UMARM_CONFIG_DIR="$T/etc" UMARM_STATE_DIR="$T/lib" UMARM_RUNTIME_DIR="$T/run"
export UMARM_NO_SYSTEMD=1
fails=0
passes=0
skips=0

pass() { passes=$((passes + 1)); echo "PASS $1"; }
skipped=
skip() { skips=$((skips + 1)); skipped="$skipped $1"; echo "SKIP $1: $2"; }
fail() { fails=$((fails + 1)); echo "FAIL $1: $2"; }
u() { "$UMARMCTL" "$@"; }
# expect NAME WANT_RC CMD... - run CMD, compare its exit status
expect() {
	_n=$1 _w=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	_rc=$?
	if [ "$_rc" = "$_w" ]; then
		pass "$_n"
	else
		fail "$_n" "exit $_rc, wanted $_w; stderr: $(head -c 300 "$T/err")"
	fi
}
# http_get URL - print the body (python3, curl, wget or busybox wget)
http_get() {
	if command -v python3 >/dev/null; then
		python3 -c 'import urllib.request, sys; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"
	elif command -v curl >/dev/null; then
		curl -sS -m 5 "$1"
	else
		# busybox 1.35's wget -O - crashes (SIGSEGV): via a file
		rm -f "$T/http_get"
		busybox wget -q -T 5 -O "$T/http_get" "$1" && cat "$T/http_get"
	fi
}
# grep_out NAME PATTERN FILE - the verdict is what was printed
grep_out() {
	if grep -q -- "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "no '$2' in $(basename "$3"): $(head -c 300 "$3")"
	fi
}
# running PID - PID is a process that has not exited (a zombie has: the
# PID 1 of a container may reap late)
running() {
	[ -n "$1" ] && [ -r "/proc/$1/status" ] &&
		! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}
# listening PORT - something listens on TCP PORT (any address)
listening() {
	_hex=$(printf ':%04X ' "$1")
	awk 'NR > 1 && $4 == "0A"' /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		grep -q "^ *[0-9]*: [0-9A-F]*$_hex"
}
want() {
	[ -z "$CASES" ] && return 0
	named "$1"
}
# named GROUP - GROUP was asked for by name: the only way to run a group
# too slow for the default run (docker)
named() {
	case " $CASES " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}
CASES="$*"

echo "kernel: $kernel"
echo "modules: ${modules:-none}"
image=${UMARM_TEST_IMAGE:-}
# the minimal image's init, which is also its usbip, for the usbip case
usbip_guest=${UMARM_TEST_USBIP:-$here/../../minimal-init}
if [ -z "$image" ]; then
	if { want usbip || want usb; } && [ -x "$usbip_guest" ]; then
		EXTRA_BINS="${EXTRA_BINS:-} $usbip_guest=/usr/local/sbin/usbip"
		export EXTRA_BINS
	fi
	# busybox has no setfattr/getfattr: the host's (attr), for the
	# xattrs of real virtio-fs shares
	if want virtiofs && [ "${UMARM_VIRTIOFS_REAL:-0}" = 1 ] &&
	   command -v setfattr >/dev/null && command -v getfattr >/dev/null; then
		EXTRA_BINS="${EXTRA_BINS:-} $(command -v setfattr) $(command -v getfattr)"
		export EXTRA_BINS
	fi
	image=$("$here/mkimage.sh" "$T/test.img" ${modules:+"$modules"}) || { echo "FAIL mkimage"; exit 1; }
fi
echo "image:  $image"

t0=$(date +%s)

if want basic; then
	expect create.ok 0 u create a1 --image "$image" --mem 128M
	expect create.dup 5 u create a1 --image "$image"
	expect create.badname 2 u create ../etc --image "$image"
	expect create.longname 2 u create "$(printf 'x%.0s' $(seq 64))" --image "$image"
	expect create.missing_image 1 u create a2 --image "$T/missing.img"
	grep_out create.missing_image.msg "missing.img" "$T/err"
	expect create.bad_mem 2 u create a3 --image "$image" --mem lots
	s=$(date +%s%N)
	expect start.ok 0 u start a1
	e=$(date +%s%N)
	echo "  start-to-READY: $(( (e - s) / 1000000 )) ms"
	expect start.again 0 u start a1
	grep_out start.again.msg "already running" "$T/err"
	u status a1 >"$T/status"
	grep_out status.running "a1 (system instance) - running" "$T/status"
	u list >"$T/list"
	grep_out list.table "^a1 *running" "$T/list"
	u list --json >"$T/json"
	if command -v python3 >/dev/null; then
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[0]["name"]=="a1" and d[0]["state"]=="running"' "$T/json" 2>"$T/err"
	else
		tr -d ' \n' <"$T/json" | grep -q '^\[{"name":"a1",[^}]*"state":"running"[,}]'
	fi && pass list.json || fail list.json "$(cat "$T/json")"
	s=$(date +%s%N)
	u exec a1 -- sh -c 'echo to-stdout; echo to-stderr >&2; exit 42' >"$T/o" 2>"$T/e"
	rc=$?
	e=$(date +%s%N)
	echo "  exec round trip: $(( (e - s) / 1000000 )) ms"
	[ "$rc" = 42 ] && pass exec.status || fail exec.status "exit $rc"
	[ "$(cat "$T/o")" = to-stdout ] && pass exec.stdout || fail exec.stdout "$(cat "$T/o")"
	[ "$(cat "$T/e")" = to-stderr ] && pass exec.stderr || fail exec.stderr "$(cat "$T/e")"
	# the guest shell's umask (the kernel's default 022), not the 077
	# the job's copies are made under
	u exec a1 -- sh -c 'umask; mkdir /tmp/um; stat -c %a /tmp/um' >"$T/o" 2>&1
	[ "$(tr '\n' ' ' <"$T/o")" = "0022 755 " ] && pass exec.umask ||
		fail exec.umask "$(head -c 200 "$T/o")"
	head -c 300000 /dev/urandom >"$T/blob"
	u exec a1 -- cat <"$T/blob" >"$T/blob.out"
	cmp -s "$T/blob" "$T/blob.out" && pass exec.binary_exact || fail exec.binary_exact "output differs ($(wc -c <"$T/blob.out") bytes)"
	u exec a1 -- sh -c 'printf "%s|" "$@"' x 'a b' "it's" '$HOME' >"$T/o"
	[ "$(cat "$T/o")" = "a b|it's|\$HOME|" ] && pass exec.quoting || fail exec.quoting "$(cat "$T/o")"
	# after the command word, every word is the guest's: no global option
	u exec a1 printf '%s|' -v -q --help -o yaml -- x >"$T/o" 2>&1
	[ "$(cat "$T/o")" = "-v|-q|--help|-o|yaml|--|x|" ] && pass exec.guest_options ||
		fail exec.guest_options "$(head -c 300 "$T/o")"
	expect exec.notfound 127 u exec a1 -- /no/such/command
	u exec a1 -- sh -c 'exit 0' & u exec a1 -- sh -c 'exit 3' & u exec a1 -- sh -c 'exit 5'
	r3=$?; wait
	[ "$r3" = 5 ] && pass exec.concurrent || fail exec.concurrent "exit $r3"
	expect mconsole.version 0 u mconsole a1 version
	grep_out mconsole.version.out "Linux" "$T/out"
	expect mconsole.bad 1 u mconsole a1 bogus-verb
	expect pause.ok 0 u pause a1
	u status a1 >"$T/status"
	grep_out pause.status "paused" "$T/status"
	expect resume.ok 0 u resume a1
	expect exec.after_resume 0 u exec a1 -- true
	# reboot: a new kernel boots (a second marker in this run's log),
	# under the same supervisor
	sup=$(sed -n 's/^supervisor=//p' "$T/run/a1/state")
	rt=$(date +%s%3N)
	expect reboot.ok 0 u reboot a1
	# "booted in" is this boot's: at most the time since the reboot
	# began, not the time since the first start
	d=$(( $(date +%s%3N) - rt ))
	u status a1 >"$T/status"
	b=$(sed -n 's/.*; booted in \([0-9.]*\)s$/\1/p' "$T/status")
	awk -v b="$b" -v d="$d" 'BEGIN { exit !(b != "" && b * 1000 <= d + 20) }' &&
		pass reboot.booted_in || fail reboot.booted_in "booted in ${b:-?}s, but the reboot took ${d} ms: $(grep Since "$T/status")"
	# and at least the new kernel's own uptime at its marker: the boot
	# is timed from the request, not from the kernel's first word
	up=$(grep -a -o 'UMARM_BOOT_OK uptime=[0-9.]*' "$T/lib/a1/console.log" | tail -n 1 | cut -d= -f2)
	awk -v b="$b" -v up="$up" 'BEGIN { exit !(b != "" && up != "" && b * 1000 >= up * 1000 - 20) }' &&
		pass reboot.booted_in_whole || fail reboot.booted_in_whole "booted in ${b:-?}s, but the guest's uptime at its marker was ${up:-?}s"
	[ "$(sed -n '/umarmctl: a1 started/,$p' "$T/lib/a1/console.log" | grep -c UMARM_BOOT_OK)" -ge 2 ] &&
		pass reboot.booted_again ||
		fail reboot.booted_again "one boot marker in: $(tail -c 300 "$T/lib/a1/console.log")"
	[ "$(sed -n 's/^supervisor=//p' "$T/run/a1/state")" = "$sup" ] &&
		pass reboot.same_supervisor || fail reboot.same_supervisor "supervisor $sup replaced"
	expect exec.after_reboot 0 u exec a1 -- true
	u logs a1 >"$T/log"
	grep_out logs.boot_marker UMARM_BOOT_OK "$T/log"
	# the guest swaps /host/jobs for a symlink to a host directory while
	# its job runs: the host removes the job through the descriptor it
	# opened, not by a path that now leads into that directory
	mkdir -p "$T/victim2"
	# (8 s, and four exec round trips more: seconds on an emulated host)
	swap_t=$(( 8 + (e - s) / 250000000 ))
	u exec a1 --timeout "$swap_t" -- sh -c 'ls /host/jobs > /host/swap-id; while [ ! -e /host/swap-go ]; do sleep 0.1; done; mv /host/jobs /host/jobs.moved; ln -s '"$T/victim2"' /host/jobs; echo swapped > /host/swap-done; sleep 60' </dev/null >/dev/null 2>&1 &
	ep=$!
	for _ in $(seq $((swap_t * 10))); do
		[ -s "$T/lib/a1/exchange/swap-id" ] && break
		sleep 0.1
	done
	id=$(head -n 1 "$T/lib/a1/exchange/swap-id" 2>/dev/null)
	mkdir -p "$T/victim2/${id:-none}"
	echo precious >"$T/victim2/${id:-none}/precious"
	: >"$T/lib/a1/exchange/swap-go"
	wait "$ep"
	if [ -z "$id" ] || [ ! -e "$T/lib/a1/exchange/swap-done" ]; then
		fail exec.swapped_jobs "the guest did not swap /host/jobs (id '$id')"
	elif [ -f "$T/victim2/$id/precious" ]; then
		pass exec.swapped_jobs
	else
		fail exec.swapped_jobs "the host removed $T/victim2/$id/precious through the guest's symlink"
	fi
	rm -f "$T/lib/a1/exchange/jobs" "$T/lib/a1/exchange/swap-"*
	mv "$T/lib/a1/exchange/jobs.moved" "$T/lib/a1/exchange/jobs"
	# FIFOs in place of the job's out, err and rc: the host reads them
	# without blocking and ends at the exec's timeout as usual
	timeout -k 5 30 "$UMARMCTL" exec a1 --timeout 3 -- sh -c 'for d in /host/jobs/*/; do for f in out err rc; do rm -f "$d$f"; mkfifo "$d$f"; done; done; sleep 10' </dev/null >/dev/null 2>&1
	case $? in
	124|137) fail exec.fifo_files "the host blocked on a FIFO the guest made (still waiting after 30 s)" ;;
	*) pass exec.fifo_files ;;
	esac
	# the guest owns /host: a symlink planted there must not make the
	# host write (or read) elsewhere
	mkdir -p "$T/victim"
	u exec a1 -- sh -c "rm -rf /host/jobs; ln -s $T/victim /host/jobs" >/dev/null 2>&1
	expect exec.symlink_refused 255 u exec a1 -- true
	[ -z "$(ls -A "$T/victim")" ] && pass exec.symlink_no_write || fail exec.symlink_no_write "$(ls "$T/victim")"
	expect rm.running 5 u rm a1
	s=$(date +%s%N)
	expect stop.ok 0 u stop a1
	e=$(date +%s%N)
	echo "  clean stop: $(( (e - s) / 1000000 )) ms"
	u status a1 >"$T/status"
	grep_out stop.status "Last run: stopped" "$T/status"
	expect stop.again 0 u stop a1
	expect exec.stopped 255 u exec a1 -- true
	expect restart.cold 0 u restart a1
	expect kill.ok 0 u kill a1
	expect rm.ok 0 u rm a1
	[ ! -e "$T/lib/a1" ] && [ ! -e "$T/etc/instances/a1.conf" ] && pass rm.clean || fail rm.clean "leftovers"
fi

# cpus: an instance with the host's CPUs boots them all, without a
# warning; one with a CPU more boots too, but start warns and names the
# fix (SMP needs SECCOMP mode: seccomp=on)
if want cpus; then
	n=$(getconf _NPROCESSORS_ONLN)
	expect cpus.create 0 u create c1 --image "$image" --mem 96M --cpus "$n" --cmdline seccomp=on
	expect cpus.start 0 u start c1
	if grep -q "more than this host" "$T/err"; then
		fail cpus.no_warning "$(head -c 300 "$T/err")"
	else
		pass cpus.no_warning
	fi
	[ "$(u exec c1 -- grep -c ^processor /proc/cpuinfo)" = "$n" ] &&
		pass cpus.online || fail cpus.online "not $n CPUs in the guest"
	u kill c1 >/dev/null 2>&1
	sed -i "s/^cpus = .*/cpus = $((n + 1))/" "$T/etc/instances/c1.conf"
	expect cpus.start_over 0 u start c1
	grep_out cpus.warning "cpus = $((n + 1)) is more than this host's $n online CPUs.*set 'cpus = $n' or fewer in $T/etc/instances/c1.conf" "$T/err"
	u kill c1 >/dev/null 2>&1
	u rm c1 >/dev/null 2>&1
fi

if want concurrent; then
	u create c1 --image "$image" --mem 96M >/dev/null 2>&1
	for i in 1 2 3; do (u start c1 >"$T/c$i.out" 2>&1; echo $? >"$T/c$i.rc") & done
	wait
	if [ "$(cat "$T/c1.rc" "$T/c2.rc" "$T/c3.rc" | tr -d '\n')" = 000 ]; then
		pass concurrent.start_all_ok
	else
		fail concurrent.start_all_ok "exit codes $(cat "$T"/c?.rc | tr '\n' ' ')"
	fi
	n=$(grep -lE "already (running|starting)" "$T"/c?.out | wc -l)
	[ "$n" = 2 ] && pass concurrent.one_kernel || fail concurrent.one_kernel "$n of 3 said already running or starting"
	(u stop c1 >/dev/null 2>&1; echo $? >"$T/s1.rc") & (u stop c1 >/dev/null 2>&1; echo $? >"$T/s2.rc") &
	wait
	[ "$(cat "$T/s1.rc" "$T/s2.rc" | tr -d '\n')" = 00 ] && pass concurrent.stop || fail concurrent.stop "$(cat "$T"/s?.rc)"
fi

if want kill9; then
	u create k1 --image "$image" --mem 96M >/dev/null 2>&1
	u start k1 >/dev/null 2>&1
	uml=$(sed -n 's/^uml=//p' "$T/run/k1/state")
	kill -9 "$uml"
	sleep 1
	u status k1 >"$T/status"
	grep_out kill9.uml.status "killed by signal 9" "$T/status"
	expect kill9.uml.restart 0 u start k1
	sup=$(sed -n 's/^supervisor=//p' "$T/run/k1/state")
	kill -9 "$sup"
	# The kernel notices its parent's death (PDEATHSIG) and exits; on a
	# loaded machine that takes more than a second (seen in a cold CI run).
	i=0
	while [ $i -lt 50 ] && pgrep -f "uml_dir=$T/run/k1/" >/dev/null; do
		sleep 0.2
		i=$((i + 1))
	done
	if pgrep -f "uml_dir=$T/run/k1/" >/dev/null; then
		fail kill9.supervisor.kernel_gone "kernel survived its supervisor"
	else
		pass kill9.supervisor.kernel_gone
	fi
	u status k1 >"$T/status"
	grep_out kill9.supervisor.status "died while running" "$T/status"
	expect kill9.supervisor.restart 0 u start k1
	u stop k1 >/dev/null 2>&1
	# kill -9 of "umarmctl start" while the guest boots, then of the
	# supervisor while booting
	u start k1 >/dev/null 2>&1 &
	sp=$!
	sleep 0.05
	kill -9 "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	expect kill9.start_client.next_start 0 u start k1
	expect kill9.start_client.stop 0 u stop k1
	# Only a kill that lands before the guest is ready tells anything: on
	# a loaded machine the state file can appear after the boot, so try
	# again (up to three times) when start was done before the kill.
	for _ in 1 2 3; do
		u start k1 >"$T/o" 2>"$T/e" &
		sp=$!
		sup=
		for _ in $(seq 1 100); do
			sup=$(sed -n 's/^supervisor=//p' "$T/run/k1/state" 2>/dev/null)
			[ -n "$sup" ] && break
			sleep 0.05
		done
		if [ -n "$sup" ] && kill -0 "$sp" 2>/dev/null; then
			kill -9 "$sup"
			wait "$sp"
			rc=$?
			break
		fi
		wait "$sp"
		rc=inconclusive
		u kill k1 >/dev/null 2>&1
	done
	case $rc in
	0) fail kill9.booting.start_fails "start said 0" ;;
	inconclusive) fail kill9.booting.start_fails "the guest was ready before the supervisor could be killed, three times" ;;
	*) pass kill9.booting.start_fails ;;
	esac
	expect kill9.booting.recover 0 u start k1
	expect kill9.booting.exec 0 u exec k1 -- true
	u kill k1 >/dev/null 2>&1
	# state and config files never half-written: parse them all
	for f in "$T"/etc/instances/*.conf; do
		u config "$(basename "$f" .conf)" >/dev/null 2>&1 || fail kill9.config_intact "$f"
	done
	pass kill9.config_intact
fi

if want broken; then
	u create b1 --image "$image" --mem 96M >/dev/null 2>&1
	cp "$T/etc/instances/b1.conf" "$T/b1.conf.good"
	echo "memroy = 1G" >>"$T/etc/instances/b1.conf"
	expect broken.config 4 u start b1
	grep_out broken.config.msg "b1.conf:[0-9]*: unknown key 'memroy'" "$T/err"
	head -c 20 "$T/b1.conf.good" >"$T/etc/instances/b1.conf"
	expect broken.truncated 4 u start b1
	printf 'disk0 = x\n\000\n' >"$T/etc/instances/b1.conf"
	expect broken.binary 4 u start b1
	u list >"$T/list"
	grep_out broken.list "^b1 *broken" "$T/list"
	cp "$T/b1.conf.good" "$T/etc/instances/b1.conf"
	cp "$image" "$T/gone.img"
	u create b2 --image "$T/gone.img" --mem 96M >/dev/null 2>&1
	rm "$T/gone.img"
	expect broken.missing_base 5 u start b2
	grep_out broken.missing_base.msg "base image $T/gone.img: No such file" "$T/err"
	# a base changed under its overlay: said so, not "VFS: Unable to
	# mount root fs" (the panic's notification overtakes the console)
	cp "$image" "$T/changed.img"
	u create b5 --image "$T/changed.img" --mem 96M >/dev/null 2>&1
	u start b5 >/dev/null 2>&1
	u kill b5 >/dev/null 2>&1
	touch -d '1 hour ago' "$T/changed.img"
	expect broken.changed_base 8 u start b5
	grep_out broken.changed_base.msg "base image changed after its copy-on-write overlay" "$T/err"
	u kill b5 >/dev/null 2>&1
	expect broken.missing_kernel 6 env UMARM_KERNEL="$T/missing/linux" "$UMARMCTL" start b1
	grep_out broken.missing_kernel.msg "install linux-uml-arm64" "$T/err"
	# two instances on one writable disk: the second is told who has it
	cp "$image" "$T/shared.img"
	u create s1 --image "$image" --mem 96M >/dev/null 2>&1
	u create s2 --image "$image" --mem 96M >/dev/null 2>&1
	for n in s1 s2; do
		sed -i "s|^disk0 = .*|disk0 = $T/shared.img|" "$T/etc/instances/$n.conf"
	done
	u start s1 >/dev/null 2>&1
	expect disk.in_use 5 u start s2
	grep_out disk.in_use.msg "in use by instance 's1'" "$T/err"
	u stop s1 >/dev/null 2>&1
	expect broken.ok_again 0 u start b1
	u kill b1 >/dev/null 2>&1
	# a guest that never reports booted: start times out, nothing stays
	u create b3 --image "$image" --mem 96M --ready NEVER_PRINTED >/dev/null 2>&1
	sed -i "s/^ready-timeout = .*/ready-timeout = 3/" "$T/etc/instances/b3.conf"
	expect boot.timeout 7 u start b3
	grep_out boot.timeout.msg "did not report booted within 3s" "$T/err"
	sleep 1
	pgrep -f "uml_dir=$T/run/b3/" >/dev/null && fail boot.timeout.cleanup "kernel left running" || pass boot.timeout.cleanup
	# a kernel panic is reported as such
	u create b4 --image "$image" --mem 96M --cmdline "init=/no/such/init" >/dev/null 2>&1
	expect boot.panic 8 u start b4
	grep_out boot.panic.msg "guest kernel panic" "$T/err"
fi

if want console; then
	u create v1 --image "$image" --mem 96M >/dev/null 2>&1
	u start v1 >/dev/null 2>&1
	# console drains until the guest is quiet for 1 s after our EOF; an
	# emulated guest (tests/vm) can be slower than that to answer
	(echo 'echo console-$((6*7))'; sleep 3) | u console v1 >"$T/o" 2>&1
	grep_out console.io "console-42" "$T/o"
	# systemd protocol of "umarmctl run": READY=1 after boot, STOPPING=1;
	# EXTEND_TIMEOUT_USEC= makes the configured timeouts, not the unit's
	# fixed ones, count: at least ready-timeout while booting, and
	# stop-timeout plus halt and kill (5 s each) while stopping
	u stop v1 >/dev/null 2>&1
	sed -i -e 's/^ready-timeout = .*/ready-timeout = 400/' \
		-e 's/^stop-timeout = .*/stop-timeout = 200/' "$T/etc/instances/v1.conf"
	"$NOTIFY_LISTEN" "$T/notify.sock" 60 >"$T/notify.log" 2>&1 &
	lp=$!
	sleep 0.5
	NOTIFY_SOCKET="$T/notify.sock" "$UMARMCTL" run v1 >/dev/null 2>&1 &
	rp=$!
	for _ in $(seq 100); do
		grep -q READY=1 "$T/notify.log" && break
		sleep 0.1
	done
	grep_out notify.ready "READY=1" "$T/notify.log"
	u exec v1 -- true >/dev/null 2>&1 && pass notify.running_exec || fail notify.running_exec "exec failed"
	kill -TERM "$rp"
	wait "$rp"
	rc=$?
	wait "$lp"
	grep_out notify.stopping "STOPPING=1" "$T/notify.log"
	ext_boot=$(sed -n '/READY=1/q; s/.*EXTEND_TIMEOUT_USEC=\([0-9]*\).*/\1/p' "$T/notify.log" | tail -n 1)
	ext_stop=$(sed -n 's/.*STOPPING=1.*EXTEND_TIMEOUT_USEC=\([0-9]*\).*/\1/p' "$T/notify.log")
	[ "${ext_boot:-0}" -ge 400000000 ] && [ "$ext_boot" -le 420000000 ] &&
		pass notify.extend_boot ||
		fail notify.extend_boot "EXTEND_TIMEOUT_USEC '$ext_boot' before READY=1, wanted 400 s to 420 s: $(head -c 300 "$T/notify.log")"
	[ "${ext_stop:-0}" -ge 210000000 ] && [ "$ext_stop" -le 230000000 ] &&
		pass notify.extend_stop ||
		fail notify.extend_stop "EXTEND_TIMEOUT_USEC '$ext_stop' with STOPPING=1, wanted 210 s to 230 s: $(tail -c 300 "$T/notify.log")"
	[ "$rc" = 0 ] && pass notify.clean_exit || fail notify.clean_exit "run exited $rc"
fi

if want manage; then
	u create r1 --image "$image" --mem 96M >/dev/null 2>&1
	u start r1 >/dev/null 2>&1
	u exec r1 -- sh -c 'echo kept > /root/file; sync' >/dev/null 2>&1
	expect disk.add_hotplug 0 u disk add r1 32M
	grep_out disk.add_hotplug.msg "hot-plugged" "$T/out"
	u exec r1 -- cat /proc/partitions >"$T/o" 2>&1
	grep_out disk.guest_sees_it "ubdb" "$T/o"
	u stop r1 >/dev/null 2>&1
	expect rename.ok 0 u rename r1 r2
	expect clone.ok 0 u clone r2 r3
	expect clone.start 0 u start r3
	u exec r3 -- cat /root/file >"$T/o" 2>&1
	grep_out clone.data "kept" "$T/o"
	expect clone.original_free 0 u start r2
	u kill r2 r3 >/dev/null 2>&1
	expect disk.resize_cow 5 u disk resize r2 0 1G
	expect disk.rm 0 u disk rm r2 1
fi

if want network && [ -x /usr/bin/passt ]; then
	u create n1 --image "$image" --mem 96M --network passt --port 18321:80 >/dev/null 2>&1
	expect net.start 0 u start n1
	backend=$(sed -n 's/^net=//p' "$T/run/n1/state")
	echo "  network backend: $backend"
	# vhost-user (passt >= 2024) gives the guest eth0 (virtio_net),
	# the relay vec0 (vector driver)
	u exec n1 -- ip -4 addr >"$T/o" 2>&1
	grep_out net.dhcp_lease "inet .* scope global" "$T/o"
	# guest -> host: passt maps the gateway address to the host's loopback
	mkdir -p "$T/www"
	echo "host-http-ok-$$" >"$T/www/h.txt"
	busybox httpd -f -p 127.0.0.1:18330 -h "$T/www" &
	hp=$!
	u exec n1 --timeout 90 -- sh -c 'gw=$(ip route | awk "/^default/{print \$3; exit}"); wget -q -O /tmp/h.txt http://$gw:18330/h.txt && cat /tmp/h.txt' >"$T/o" 2>&1
	kill "$hp" 2>/dev/null
	wait "$hp" 2>/dev/null
	grep_out net.guest_to_host "host-http-ok-$$" "$T/o"
	u exec n1 -- sh -c 'mkdir -p /www && echo guest-http-ok > /www/index.html && httpd -p 80 -h /www' >/dev/null 2>&1
	http_get http://127.0.0.1:18321/index.html >"$T/o" 2>&1
	grep_out net.port_forward guest-http-ok "$T/o"
	# a forward added with the verb takes effect at the next start
	expect net.port_forward_verb 0 u port-forward n1 18322:80
	expect net.restart 0 u restart n1
	u exec n1 -- sh -c 'mkdir -p /www && echo guest-http-ok2 > /www/index.html && httpd -p 80 -h /www' >/dev/null 2>&1
	http_get http://127.0.0.1:18322/index.html >"$T/o" 2>&1
	grep_out net.port_forward_verb.works guest-http-ok2 "$T/o"
	passt=$(sed -n 's/^passt=//p' "$T/run/n1/state")
	expect net.stop 0 u stop n1
	[ -n "$passt" ] && [ -d "/proc/$passt" ] && fail net.passt_stopped "passt $passt still runs" || pass net.passt_stopped
	# kill -9 of the supervisor: passt (which PR_SET_PDEATHSIG cannot
	# reach) and the kernel go within seconds, and the forward with them
	expect net.kill9.start 0 u start n1
	passt=$(sed -n 's/^passt=//p' "$T/run/n1/state")
	uml=$(sed -n 's/^uml=//p' "$T/run/n1/state")
	sup=$(sed -n 's/^supervisor=//p' "$T/run/n1/state")
	kill -9 "$sup"
	for _ in $(seq 25); do
		running "$passt" || running "$uml" || break
		sleep 0.2
	done
	running "$passt" && fail net.kill9.passt_gone "passt $passt survived its supervisor: $(grep -E 'State|SigBlk' "/proc/$passt/status" | tr '\n' ' ')" ||
		pass net.kill9.passt_gone
	running "$uml" && fail net.kill9.kernel_gone "kernel $uml survived its supervisor" ||
		pass net.kill9.kernel_gone
	listening 18321 && fail net.kill9.port_free "127.0.0.1:18321 still forwarded" ||
		pass net.kill9.port_free
	u kill n1 >/dev/null 2>&1
	# a host without user namespaces (a chroot): passt could not isolate
	# itself, so start refuses before it, naming the cause and the fix
	hostfilter=$here/../hostcheck/hostfilter
	if [ -x "$hostfilter" ] && "$hostfilter" userns true; then
		expect net.no_userns 1 "$hostfilter" userns "$UMARMCTL" start n1
		grep_out net.no_userns.msg "passt isolates itself in a user namespace.*set 'network = none' in" "$T/err"
		u status n1 >"$T/o" 2>&1
		grep_out net.no_userns.stopped "stopped" "$T/o"
		expect net.no_userns.net_add 6 "$hostfilter" userns "$UMARMCTL" net add n1
		grep_out net.no_userns.net_add.msg "passt cannot run here: unshare(CLONE_NEWUSER)" "$T/err"
	else
		skip net.no_userns "no tests/hostcheck/hostfilter (make check builds it), or it cannot install a filter"
	fi
fi

# project_image RECIPE VAR - the image named by $VAR, else the one
# images/build.sh RECIPE of this tree gives for this architecture; nothing
# (and why in $T/RECIPE-image.log) when there is none.  A minimal image
# with this tree's prebuilt init ($UMARM_MINIMAL_INIT) has its own cache:
# in the shared one it would replace the gates' (init.c compiled there),
# and each would rebuild the one file in turn.
project_image() {
	eval "_img=\${$2:-}"
	if [ -n "$_img" ]; then
		[ -f "$_img" ] || echo "$2=$_img is not a file" >"$T/$1-image.log"
		echo "$_img"
		return
	fi
	_build=$here/../../../../images/build.sh
	if [ ! -x "$_build" ]; then
		echo "no $2 and no images/build.sh beside this suite" >"$T/$1-image.log"
		return
	fi
	case $arch in x86_64) _a=amd64 ;; *) _a=$arch ;; esac
	_cache=${UMARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linux-uml-arm64}
	[ "$1" != minimal ] || [ -z "${UMARM_MINIMAL_INIT:-}" ] ||
		_cache=$_cache/umarmctl-tests
	UMARM_CACHE=$_cache "$_build" "$1" "$_a" 2>"$T/$1-image.log" | tail -n 1
}

# check_lease GROUP NAME - right after start, the guest has the address,
# default route and (if the host has one) name server passt's DHCP offers
check_lease() {
	u exec "$2" --timeout 60 -- sh -c 'ip -4 addr; ip route; cat /etc/resolv.conf' >"$T/o" 2>&1
	grep_out "$1.address" "inet .* scope global" "$T/o"
	grep_out "$1.default_route" "^default via " "$T/o"
	if grep -q '^nameserver' /etc/resolv.conf 2>/dev/null; then
		grep_out "$1.resolv_conf" "^nameserver " "$T/o"
	fi
}

# The project's minimal image as umarmctl create gives it (images/minimal,
# with this tree's minimal-init as the prebuilt init): with --network passt
# umarmctl asks its init for DHCP (umarm.net=dhcp:IF), which configures the
# interface before the console shell starts, so the first exec after start
# finds the address, the default route and passt's name server; without a
# network init does nothing of the sort.
if want minimal-net; then
	[ ! -x "$here/../../minimal-init" ] ||
		export UMARM_MINIMAL_INIT="$here/../../minimal-init"
	mimg=$(project_image minimal UMARM_MINIMAL_IMAGE)
	if [ -z "$mimg" ] || [ ! -f "$mimg" ] || [ ! -x /usr/bin/passt ]; then
		skip minimal-net "needs the minimal image ($(tail -n 1 "$T/minimal-image.log" 2>/dev/null)) and passt"
	else
		echo "  minimal image: $mimg"
		u create mn1 --image "$mimg" --mem 96M --network passt >/dev/null 2>&1
		expect minimal-net.start 0 u start mn1
		check_lease minimal-net mn1
		u logs mn1 >"$T/o" 2>&1
		grep_out minimal-net.console "UMARM_NET if=[a-z0-9]* addr=[0-9]" "$T/o"
		if grep -q UMARM_INIT_ERROR "$T/o"; then
			fail minimal-net.no_init_error "$(grep UMARM_INIT_ERROR "$T/o" | head -n 3)"
		else
			pass minimal-net.no_init_error
		fi
		u kill mn1 >/dev/null 2>&1
		u create mn2 --image "$mimg" --mem 96M >/dev/null 2>&1
		expect minimal-net.start_without_network 0 u start mn2
		u exec mn2 -- true >/dev/null 2>&1
		u logs mn2 >"$T/o" 2>&1
		if grep -q 'UMARM_NET\|UMARM_INIT_ERROR' "$T/o"; then
			fail minimal-net.none_without_network "$(grep 'UMARM_NET\|UMARM_INIT_ERROR' "$T/o" | head -n 3)"
		else
			pass minimal-net.none_without_network
		fi
		u kill mn2 >/dev/null 2>&1
	fi
fi

# The same for the debian image (images/debian: umarm-net.service runs
# busybox udhcpc for umarm.net=dhcp:IF before multi-user.target; and its
# share and /host mounts, umarm-shares and umarm-hostfs), when
# UMARM_DEBIAN_IMAGE names one or images/build.sh has one cached or can
# make one (mmdebstrap from the network: minutes).
if want debian-net; then
	dimg=$(project_image debian UMARM_DEBIAN_IMAGE)
	if [ -z "$dimg" ] || [ ! -f "$dimg" ] || [ ! -x /usr/bin/passt ]; then
		skip debian-net "needs the debian image ($(tail -n 1 "$T/debian-image.log" 2>/dev/null)) and passt"
	else
		echo "  debian image: $dimg"
		u create dn1 --image "$dimg" --mem 256M --network passt >/dev/null 2>&1
		mkdir -p "$T/dsh" && echo debian-share >"$T/dsh/f"
		u share add dn1 "$T/dsh" /srv/dsh >/dev/null 2>&1
		expect debian-net.start 0 u start dn1
		check_lease debian-net dn1
		u exec dn1 -- systemctl is-active umarm-net.service >"$T/o" 2>&1
		grep_out debian-net.unit_active "^active$" "$T/o"
		# umarm-shares and umarm-hostfs mount nosuid,nodev, as init.c
		u exec dn1 -- sh -c 'cat /srv/dsh/f; grep -c " /srv/dsh hostfs [^ ]*nosuid,nodev" /proc/mounts; grep -c " /host hostfs [^ ]*nosuid,nodev" /proc/mounts' >"$T/o" 2>&1
		[ "$(tr '\n' ' ' <"$T/o")" = "debian-share 1 1 " ] &&
			pass debian-net.share_nosuid_nodev ||
			fail debian-net.share_nosuid_nodev "$(head -c 300 "$T/o")"
		expect debian-net.stop 0 u stop dn1
	fi
fi

# http_poll URL WANT SECONDS - fetch URL from the host until it serves WANT
# (curl, else http_get); what it served last is left in $T/http_poll
http_poll() {
	_end=$(($(date +%s) + $3))
	while :; do
		if command -v curl >/dev/null; then
			curl -s -m 5 "$1" >"$T/http_poll" 2>&1
		else
			http_get "$1" >"$T/http_poll" 2>&1
		fi
		[ "$(cat "$T/http_poll")" != "$2" ] || return 0
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 1
	done
}

# README.Debian's docker walk-through ("Containers (docker) in the guest"),
# its commands as typed there but for a --timeout and the host port: an
# instance of the debian-docker image with passt and a host port forwarded
# to guest port 8080; in the guest, umarm-busybox-image makes and loads a
# busybox image (no registry needed) and a container serves its page with
# busybox httpd, published on 8080; curl on the host's loopback gets the
# page (the port is checked free first, so that the page comes through
# the forward).  Only when named: see the top.  UMARM_DOCKER_PORT (host
# port, 18380); UMARM_DOCKER_PLANT=port forwards the host port to guest
# port 8081 instead, which must fail docker.host_curl.
if named docker; then
	dkimg=$(project_image debian-docker UMARM_DOCKER_IMAGE)
	if [ -z "$dkimg" ] || [ ! -f "$dkimg" ] || [ ! -x /usr/bin/passt ]; then
		skip docker "needs the debian-docker image ($(tail -n 1 "$T/debian-docker-image.log" 2>/dev/null)) and passt"
	else
		echo "  debian-docker image: $dkimg"
		# by name, as a user types it, when this tree's recipe made it
		dkname=debian-docker
		[ -z "${UMARM_DOCKER_IMAGE:-}" ] || dkname=$dkimg
		port=${UMARM_DOCKER_PORT:-18380}
		guestport=8080
		[ "${UMARM_DOCKER_PLANT:-}" != port ] || guestport=8081
		# umarm-busybox-image's default page, which README.Debian quotes
		page="hello from a container in a UML guest"
		listening "$port" &&
			fail docker.port_free "something listens on $port already (UMARM_DOCKER_PORT)" ||
			pass docker.port_free
		s=$(date +%s)
		expect docker.create 0 u create dk --image "$dkname" --network passt --port "$port:$guestport"
		u config dk >"$T/o" 2>&1
		grep_out docker.create.mem_1G "^memory = 1G$" "$T/o"
		# a loaded host boots Debian with dockerd slowly
		sed -i 's/^ready-timeout = .*/ready-timeout = 900/' "$T/etc/instances/dk.conf"
		expect docker.start 0 u start dk
		echo "  start (boot to multi-user): $(( $(date +%s) - s )) s"
		u exec dk --timeout 300 -- sh -c 'for i in $(seq 300); do systemctl is-active -q docker && exit 0; sleep 1; done; systemctl status docker' >"$T/o" 2>&1 &&
			pass docker.dockerd_active || fail docker.dockerd_active "$(tail -n 5 "$T/o")"
		echo "  dockerd active: $(( $(date +%s) - s )) s after create"
		u shell dk --timeout 300 -- umarm-busybox-image >"$T/o" 2>&1
		grep_out docker.image_load "Loaded image: umarm-busybox:latest" "$T/o"
		u shell dk --timeout 300 -- docker run -d --name site -p 8080:80 \
			umarm-busybox httpd -f -p 80 -h /www >"$T/o" 2>&1 &&
			pass docker.run || fail docker.run "$(tail -n 3 "$T/o")"
		http_poll "http://127.0.0.1:$port/" "$page" 60 &&
			pass docker.host_curl ||
			fail docker.host_curl "http://127.0.0.1:$port/ served \"$(head -c 200 "$T/http_poll")\", not $page"
		echo "  page on the host: $(( $(date +%s) - s )) s after create"
		expect docker.stop 0 u stop dk --timeout 120
		expect docker.rm 0 u rm dk
	fi
fi

# The guest side of USB/IP of the minimal image (images/minimal/usbip.c,
# linked into minimal-init) against fake-usbipd on the host's loopback,
# which passt maps to the guest's gateway: the import exchange, vhci-hcd
# taking the socket over (its first URB reaches the server), detach
# closing it, and the errors.  umarmctl usb attach itself needs a host USB
# device: tests/vm/umarmctl-arm64.sh has dummy_hcd in the emulated host.
if want usbip; then
	if [ -n "${UMARM_TEST_IMAGE:-}" ] || [ ! -x "$usbip_guest" ] ||
	   [ ! -x "$here/fake-usbipd" ] ||
	   [ ! -x /usr/bin/passt ]; then
		skip usbip "needs the mkimage.sh image, ../../minimal-init, fake-usbipd (make check-integration) and passt"
	elif ! { "$here/fake-usbipd" 9-9 >"$T/usbipd.log" 2>&1 & fp=$!; sleep 1;
		 grep -q '^listening' "$T/usbipd.log"; }; then
		skip usbip "fake-usbipd cannot listen: $(cat "$T/usbipd.log")"
	else
		G=/usr/local/sbin/usbip
		u create ub --image "$image" --mem 96M --network passt >/dev/null 2>&1
		expect usbip.start 0 u start ub
		u exec ub --timeout 60 -- sh -c "gw=\$(ip route | awk '/^default/{print \$3; exit}'); $G attach -r \$gw -b 9-9; echo rc=\$?; $G port" >"$T/o" 2>&1
		grep_out usbip.attach "^port [0-9]*: 9-9 1d6b:0104 from " "$T/o"
		grep_out usbip.attach_status "^rc=0$" "$T/o"
		grep_out usbip.import_request "^import 9-9 version=0x0111 code=0x8003" "$T/usbipd.log"
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			grep -q '^urb' "$T/usbipd.log" && break
			sleep 1
		done
		grep_out usbip.vhci_took_socket "^urb command=1$" "$T/usbipd.log"
		u exec ub -- sh -c "$G detach -p 0; echo rc=\$?; grep '^hs  0000 ' /sys/devices/platform/vhci_hcd.0/status" >"$T/o" 2>&1
		grep_out usbip.detach "^port 0 is now detached" "$T/o"
		grep_out usbip.port_freed "^hs  0000 004 " "$T/o"
		sleep 1
		grep_out usbip.detach_closed_socket "^closed$" "$T/usbipd.log"
		u exec ub -- sh -c "gw=\$(ip route | awk '/^default/{print \$3; exit}'); $G attach -r \$gw -b 7-7; echo rc=\$?; $G attach -r 127.0.0.1 -b 9-9; echo rc=\$?; $G attach -r localhost -b 9-9; echo rc=\$?" >"$T/o" 2>&1
		grep_out usbip.unknown_busid "refused 7-7 (status 1)" "$T/o"
		grep_out usbip.no_server "connect to 127.0.0.1 port 3240: Connection refused" "$T/o"
		grep_out usbip.not_an_address "'localhost' is not an IP address" "$T/o"
		[ "$(grep -c '^rc=1$' "$T/o")" = 3 ] && pass usbip.error_status ||
			fail usbip.error_status "not three rc=1: $(cat "$T/o")"
		u kill ub >/dev/null 2>&1
	fi
	[ -z "${fp:-}" ] || kill "$fp" 2>/dev/null
fi

# umarmctl usb attach/detach against a fake device in a fake sysfs
# (UMARM_SYSFS): the host side of the import is umarmctl's own, not
# usbipd: it listens on 127.0.0.1:3240 only while the guest attaches,
# takes the connection of the instance's passt and no other, and leaves
# nothing listening.  A /sbin/usbip in the guest waits 3 s before the
# real one (the minimal image's, as /usr/local/sbin/usbip) to leave time
# to look.  usbip-host itself is not there: the fake usbip_sockfd gets
# the descriptor number, and vhci-hcd in the guest sees the connection
# close after the import.
if want usb; then
	if [ -n "${UMARM_TEST_IMAGE:-}" ] || [ ! -x "$usbip_guest" ] ||
	   [ ! -x /usr/bin/passt ] || [ "$(id -u)" != 0 ]; then
		skip usb "needs root, the mkimage.sh image, ../../minimal-init and passt"
	elif listening 3240; then
		skip usb "something listens on TCP 3240 already"
	else
		d=$T/sys/devices/fake/usb9/9-9
		mkdir -p "$d" "$T/sys/bus/usb/devices" "$T/sys/bus/usb/drivers/usbip-host"
		ln -s "$d" "$T/sys/bus/usb/devices/9-9"
		ln -s "$T/sys/bus/usb/drivers/usbip-host" "$d/driver"
		for kv in idVendor=1d6b idProduct=0104 bcdDevice=0100 busnum=9 devnum=2 \
			  speed=480 bDeviceClass=00 bDeviceSubClass=00 bDeviceProtocol=00 \
			  bConfigurationValue=1 bNumConfigurations=1 bNumInterfaces=' 1' \
			  usbip_status=1 product=Fake manufacturer=umarm; do
			echo "${kv#*=}" >"$d/${kv%%=*}"
		done
		: >"$d/usbip_sockfd"
		us() { UMARM_SYSFS=$T/sys "$UMARMCTL" "$@"; }
		us usb list >"$T/o" 2>&1
		grep_out usb.list "^9-9 *1d6b:0104 exported" "$T/o"
		expect usb.bad_busid 2 us usb attach x "9-9;reboot"
		u create ua --image "$image" --mem 96M --network passt >/dev/null 2>&1
		expect usb.start 0 u start ua
		u exec ua -- sh -c 'printf "#!/bin/sh\nsleep 3\nexec /usr/local/sbin/usbip \"\$@\"\n" > /sbin/usbip; chmod 755 /sbin/usbip' >/dev/null 2>&1
		us usb attach ua 9-9 >"$T/usb.out" 2>"$T/usb.err" &
		ap=$!
		for _ in $(seq 50); do
			listening 3240 && break
			sleep 0.1
		done
		awk 'NR > 1 && $4 == "0A" && $2 ~ /:0CA8$/ {print FILENAME, $2}' \
			/proc/net/tcp /proc/net/tcp6 >"$T/usb.listen"
		# a local process other than the guest's passt asks for it
		printf '\001\021\200\003\000\000\000\0009-9' >"$T/usb.req"
		head -c 29 /dev/zero >>"$T/usb.req"
		timeout 5 busybox nc 127.0.0.1 3240 <"$T/usb.req" >"$T/usb.rep" 2>/dev/null
		wait "$ap"
		rc=$?
		[ "$rc" = 0 ] && pass usb.attach || fail usb.attach "exit $rc: $(head -c 300 "$T/usb.err")"
		if [ -s "$T/usb.listen" ] && ! grep -vq '^/proc/net/tcp 0100007F:0CA8$' "$T/usb.listen"; then
			pass usb.loopback_only
		else
			fail usb.loopback_only "listeners on 3240 while attaching: $(tr '\n' ' ' <"$T/usb.listen")"
		fi
		[ -f "$T/usb.rep" ] && [ ! -s "$T/usb.rep" ] && pass usb.other_peer_refused ||
			fail usb.other_peer_refused "a local client got $(wc -c <"$T/usb.rep") bytes"
		grep_out usb.other_peer_refused.msg "not from the guest's passt" "$T/usb.err"
		grep_out usb.handed_to_usbip_host "^[0-9][0-9]*$" "$d/usbip_sockfd"
		grep_out usb.guest_attached "^port [0-9]*: 9-9 1d6b:0104 from " "$T/usb.out"
		listening 3240 && fail usb.nothing_left "something still listens on 3240" ||
			pass usb.nothing_left
		pgrep -x usbipd >/dev/null && fail usb.no_usbipd "a usbipd runs: $(pgrep -a -x usbipd)" ||
			pass usb.no_usbipd
		expect usb.detach 0 us usb detach ua 9-9
		u kill ua >/dev/null 2>&1
	fi
fi

if want hotplug; then
	# net add/rm: a passt --vhost-user per interface, plugged through
	# mconsole into a running guest; the relay cannot be hot-plugged
	hp_passt=${UMARM_PASST:-}
	if [ -z "$hp_passt" ] && [ -x /usr/bin/passt ] && grep -q -- --vhost-user /usr/bin/passt; then
		hp_passt=/usr/bin/passt
	fi
	uh() { UMARM_PASST=$hp_passt "$UMARMCTL" "$@"; }
	u create h0 --image "$image" --mem 96M --network passt >/dev/null 2>&1
	echo "network-backend = relay" >>"$T/etc/instances/h0.conf"
	expect hotplug.relay_refused 4 u net add h0
	grep_out hotplug.relay_refused.fix "network-backend = auto" "$T/err"
	if [ -x /usr/bin/passt ] && ! grep -q -- --vhost-user /usr/bin/passt; then
		sed -i '/^network-backend/d' "$T/etc/instances/h0.conf"
		expect hotplug.old_passt_refused 6 env UMARM_PASST=/usr/bin/passt "$UMARMCTL" net add h0
		grep_out hotplug.old_passt_refused.fix "network = passt" "$T/err"
	fi
	u rm h0 >/dev/null 2>&1
	if [ -z "$hp_passt" ] || [ ! -x "$hp_passt" ]; then
		skip hotplug "no passt with --vhost-user (passt >= 2024; on bookworm run make deps, which backports trixie's, or set UMARM_PASST)"
	else
		echo "  passt: $hp_passt"
		uh create h1 --image "$image" --mem 96M --network none >/dev/null 2>&1
		expect hotplug.not_running 5 uh net add h1
		expect hotplug.bad_port 2 uh net add h1 --port 99999:80
		uh start h1 >/dev/null 2>&1
		ht0=$(date +%s%N)
		expect hotplug.add 0 uh net add h1 --port 18341:80
		echo "  net add: $(( ($(date +%s%N) - ht0) / 1000000 )) ms"
		grep_out hotplug.add.msg "^net1 virtio-uml.1" "$T/out"
		uh net list h1 >"$T/o" 2>&1
		grep_out hotplug.list "^net1 *vhost-user *virtio-uml.1 .*hotplug *tcp:18341:80" "$T/o"
		p1=$(awk '$1 == "net1" {print $3}' "$T/run/h1/net")
		# the guest: a virtio_net interface under virtio-uml.1, DHCP
		# from passt, then the host's HTTP server through the gateway
		mkdir -p "$T/www"
		echo "hotplug-http-ok-$$" >"$T/www/hp.txt"
		busybox httpd -f -p 127.0.0.1:18332 -h "$T/www" &
		hpid=$!
		uh exec h1 --timeout 30 -- sh -c 'i=$(ls /sys/bus/platform/devices/virtio-uml.1/virtio*/net/); echo "if=$i"; ip link set $i up; udhcpc -i $i -q -n -t 5 -s /etc/udhcpc.script >/dev/null 2>&1; ip -4 addr show $i; gw=$(ip route | awk "/^default/{print \$3; exit}"); wget -q -O - http://$gw:18332/hp.txt' >"$T/o" 2>&1
		kill "$hpid" 2>/dev/null
		wait "$hpid" 2>/dev/null
		grep_out hotplug.guest_if "^if=eth" "$T/o"
		grep_out hotplug.dhcp_lease "inet .* scope global" "$T/o"
		grep_out hotplug.guest_to_host "hotplug-http-ok-$$" "$T/o"
		uh exec h1 -- sh -c 'mkdir -p /www && echo hotplug-guest-ok > /www/index.html && httpd -p 80 -h /www' >/dev/null 2>&1
		http_get http://127.0.0.1:18341/index.html >"$T/o" 2>&1
		grep_out hotplug.port_forward hotplug-guest-ok "$T/o"
		expect hotplug.add_second 0 uh net add h1
		grep_out hotplug.add_second.msg "^net2 virtio-uml.2" "$T/out"
		p2=$(awk '$1 == "net2" {print $3}' "$T/run/h1/net")
		expect hotplug.rm 0 uh --verbose net rm h1 net1
		# mconsole "remove" takes the device away (our kernels); a kernel
		# without it has it unbound in the guest, the device left behind
		uh exec h1 -- sh -c 'ls /sys/bus/platform/devices/virtio-uml.1/ 2>/dev/null | grep -c virtio; ip -o link | grep -c "^[0-9]*: eth"; [ -e /sys/bus/platform/devices/virtio-uml.1 ] && echo unbound || echo removed' >"$T/o" 2>&1
		case $(tr '\n' ' ' <"$T/o") in
		"0 1 removed "|"0 1 unbound ") pass hotplug.rm.guest; echo "  virtio-uml.1: $(tail -n 1 "$T/o")" ;;
		*) fail hotplug.rm.guest "wanted no virtio under virtio-uml.1 and one eth left: $(head -c 200 "$T/o" | tr '\n' ' ')"
		   sed 's/^/  net rm stderr: /' "$T/err"
		   uh exec h1 -- sh -c 'sleep 5; ip -o link; ls /sys/bus/platform/devices/' 2>&1 | sed 's/^/  5 s later: /' ;;
		esac
		[ -n "$p1" ] && [ ! -d "/proc/$p1" ] && pass hotplug.rm.passt_stopped ||
			fail hotplug.rm.passt_stopped "passt '$p1' still runs"
		uh net list h1 >"$T/o" 2>&1
		grep -q "^net1" "$T/o" && fail hotplug.rm.list "net1 still listed" || pass hotplug.rm.list
		expect hotplug.rm_again 2 uh net rm h1 net1
		# kill -9 of the supervisor: its passts die with it
		sup=$(sed -n 's/^supervisor=//p' "$T/run/h1/state")
		kill -9 "$sup"
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			[ -d "/proc/$p2" ] || break
			sleep 0.2
		done
		[ -n "$p2" ] && [ ! -d "/proc/$p2" ] && pass hotplug.supervisor_kill9 ||
			fail hotplug.supervisor_kill9 "passt '$p2' survived its supervisor"
		uh kill h1 >/dev/null 2>&1
		# stop: the hot-plugged passt goes with the instance, and the
		# interface is not saved
		expect hotplug.restart 0 uh start h1
		uh net add h1 >/dev/null 2>&1
		p3=$(awk '$1 == "net1" {print $3}' "$T/run/h1/net")
		expect hotplug.stop 0 uh stop h1
		[ -n "$p3" ] && [ ! -d "/proc/$p3" ] && pass hotplug.stop.passt_stopped ||
			fail hotplug.stop.passt_stopped "passt '$p3' still runs"
		grep -q "^network *= *passt" "$T/etc/instances/h1.conf" &&
			fail hotplug.not_persisted "net add changed h1.conf" || pass hotplug.not_persisted
	fi
fi

# hostfs is rooted at the instance's exchange directory (UML's hostfs=):
# guest root mounting hostfs "/" gets the exchange directory, not the
# host's root.  (Escapes through ".." or symlinks are the kernel's to
# refuse; this checks what umarmctl asks of it.)
if want hostfs; then
	u create hf1 --image "$image" --mem 96M >/dev/null 2>&1
	expect hostfs.start 0 u start hf1
	uml=$(sed -n 's/^uml=//p' "$T/run/hf1/state")
	tr '\0' '\n' <"/proc/$uml/cmdline" >"$T/hf1.cmdline" 2>/dev/null
	grep_out hostfs.cmdline "^hostfs=$T/lib/hf1/exchange\$" "$T/hf1.cmdline"
	grep_out hostfs.init_mounts_root "^umarm.hostfs=/\$" "$T/hf1.cmdline"
	echo hf1 >"$T/lib/hf1/exchange/hostfs-marker"
	u exec hf1 -- sh -c 'mkdir -p /mnt/r && mount -t hostfs none /mnt/r -o / && ls /mnt/r && cat /host/hostfs-marker; [ -e /mnt/r/etc/passwd ] && echo HOST_ROOT_VISIBLE' >"$T/o" 2>&1
	grep_out hostfs.root_is_exchange "^hostfs-marker$" "$T/o"
	grep_out hostfs.host_share "^hf1$" "$T/o"
	grep -q HOST_ROOT_VISIBLE "$T/o" && fail hostfs.no_host_root "the guest sees the host's /etc/passwd" ||
		pass hostfs.no_host_root
	u kill hf1 >/dev/null 2>&1
	u rm hf1 >/dev/null 2>&1
	# UML cuts hostfs= at a ',' (its flags): such a state path is refused
	mkdir -p "$T/st,x"
	UMARM_STATE_DIR="$T/st,x" "$UMARMCTL" create hf2 --image "$image" --mem 96M >/dev/null 2>&1
	expect hostfs.comma_refused 4 env UMARM_STATE_DIR="$T/st,x" "$UMARMCTL" start hf2
	grep_out hostfs.comma_refused.msg "bad state directory" "$T/err"
	grep_out hostfs.comma_refused.log "contains a ','" "$T/st,x/hf2/supervisor.log"
	UMARM_STATE_DIR="$T/st,x" "$UMARMCTL" rm hf2 >/dev/null 2>&1
fi

# A system instance as umarm@.service runs it: the supervisor, UML (and
# passt) as an unprivileged account (here nobody) that owns the state and
# runtime directories, without capabilities; root's umarmctl still
# drives it.  (The unit itself is checked by units/check-system-unit and
# under systemd by debian/tests/umarm-units.)
if want sysacct && [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	acct=65534
	cp "$kernel" "$T/sa-kernel" && cp "$UMARMCTL" "$T/sa-umarmctl" &&
		chmod 755 "$T/sa-kernel" "$T/sa-umarmctl"
	u create sa1 --image "$image" --mem 96M >/dev/null 2>&1
	mkdir -p "$T/run/sa1"
	chown -R "$acct:$acct" "$T/lib/sa1" "$T/run/sa1"
	chmod 700 "$T/lib/sa1" "$T/run/sa1"
	UMARM_KERNEL="$T/sa-kernel" setpriv --reuid="$acct" --regid="$acct" \
		--clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs \
		"$T/sa-umarmctl" --system run sa1 >"$T/sa1.log" 2>&1 &
	sapid=$!
	i=0
	until grep -q '^status=running' "$T/run/sa1/state" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 300 ] && break
		sleep 0.1
	done
	uml=$(sed -n 's/^uml=//p' "$T/run/sa1/state")
	owners=$(for p in "$sapid" "$uml"; do
		awk '/^Uid:/ {print $2}' "/proc/$p/status" 2>/dev/null; done | sort -u | tr '\n' ' ')
	[ "$owners" = "$acct " ] && pass sysacct.runs_as_account ||
		fail sysacct.runs_as_account "supervisor $sapid and UML '$uml' run as uid(s) '$owners'; log: $(head -c 300 "$T/sa1.log")"
	expect sysacct.exec_by_root 0 u exec sa1 -- true
	expect sysacct.disk_add 0 u disk add sa1 8M
	u exec sa1 -- sh -c 'echo x | dd of=/dev/ubdb bs=1 count=1 2>&1 && cat /sys/block/ubdb/ro' >"$T/o" 2>&1
	grep_out sysacct.disk_add_writable "^0$" "$T/o"
	[ "$(stat -c %u "$T/lib/sa1/disk1.img")" = "$acct" ] && pass sysacct.disk_owner ||
		fail sysacct.disk_owner "disk1.img is uid $(stat -c %u "$T/lib/sa1/disk1.img")"
	expect sysacct.stop 0 u stop sa1
	wait "$sapid" 2>/dev/null
	u rm sa1 >/dev/null 2>&1
	# root's "start" without systemd (a container, --no-systemd) drops
	# to the account too (sysacct.c), after handing it the instance
	u create sa2 --image "$image" --mem 96M >/dev/null 2>&1
	expect sysacct.root_start 0 env UMARM_SYSTEM_ACCOUNT=nobody \
		UMARM_KERNEL="$T/sa-kernel" "$UMARMCTL" --no-systemd start sa2
	sup=$(sed -n 's/^supervisor=//p' "$T/run/sa2/state")
	uml=$(sed -n 's/^uml=//p' "$T/run/sa2/state")
	owners=$(for p in "$sup" "$uml"; do
		awk '/^Uid:/ {print $2 "/" $3}' "/proc/$p/status" 2>/dev/null; done | sort -u | tr '\n' ' ')
	[ "$owners" = "$acct/$acct " ] && pass sysacct.root_start_drops ||
		fail sysacct.root_start_drops "supervisor '$sup' and UML '$uml' run as uid(s) '$owners'"
	[ "$(stat -c %u "$T/lib/sa2/root.cow")" = "$acct" ] && pass sysacct.root_start_files ||
		fail sysacct.root_start_files "root.cow is uid $(stat -c %u "$T/lib/sa2/root.cow")"
	expect sysacct.root_start_exec 0 u exec sa2 -- true
	expect sysacct.root_start_stop 0 u stop sa2
	u rm sa2 >/dev/null 2>&1
fi

if want user && [ "$(id -u)" = 0 ] && command -v runuser >/dev/null; then
	id umarmtest >/dev/null 2>&1 || useradd -m umarmtest 2>/dev/null
	if id umarmtest >/dev/null 2>&1; then
		cp "$image" /tmp/umarm-it-user.img && chmod 644 /tmp/umarm-it-user.img
		# the user may not read root's files: give it copies
		cp "$kernel" /tmp/umarm-it-kernel && chmod 755 /tmp/umarm-it-kernel
		ru() { runuser -u umarmtest -- env -u UMARM_CONFIG_DIR -u UMARM_STATE_DIR \
			-u UMARM_RUNTIME_DIR -u XDG_RUNTIME_DIR HOME=/home/umarmtest \
			UMARM_KERNEL=/tmp/umarm-it-kernel UMARM_NO_SYSTEMD=1 "$UMARMCTL" "$@"; }
		cp "$UMARMCTL" /tmp/umarm-it-umarmctl && chmod 755 /tmp/umarm-it-umarmctl
		umarmctl_was=$UMARMCTL
		UMARMCTL=/tmp/umarm-it-umarmctl
		ru rm -f u1 >/dev/null 2>&1
		expect user.create 0 ru create u1 --image /tmp/umarm-it-user.img --mem 96M
		expect user.start 0 ru start u1
		ru exec u1 -- id -u >"$T/o" 2>&1
		grep_out user.exec "^0$" "$T/o"
		ru list >"$T/o" 2>&1
		grep_out user.list "^u1 *running" "$T/o"
		[ -f /home/umarmtest/.config/umarm/instances/u1.conf ] &&
			[ -d /home/umarmtest/.local/state/umarm/u1 ] &&
			pass user.xdg_paths || fail user.xdg_paths "not under XDG dirs"
		expect user.stop 0 ru stop u1
		expect user.rm 0 ru rm u1
		UMARMCTL=$umarmctl_was
		rm -f /tmp/umarm-it-user.img /tmp/umarm-it-umarmctl /tmp/umarm-it-kernel
	else
		echo "SKIP user: cannot create user umarmtest"
	fi
fi

# shares: host folders through hostfs, each bind-mounted in the kernel's
# own mount namespace under the exchange directory; the guest reaches them
# and nothing else of the host
if want shares; then
	S=$T/sh
	mkdir -p "$S/a" "$S/b" "$S/ro" "$S/hot" "$S/many"
	echo from-host >"$S/a/f"
	echo "SECRET-$$" >"$S/secret"
	ln -s "$S/secret" "$S/a/abs"
	ln -s ../secret "$S/a/rel"
	ln -s / "$S/a/root"
	u create sh1 --image "$image" --mem 128M >/dev/null 2>&1
	expect shares.add 0 u share add sh1 "$S/a"
	expect shares.add_ro 0 u share add sh1 "$S/ro" /ro --ro
	expect shares.add_b 0 u share add sh1 "$S/b" /srv/b
	expect shares.add_missing 2 u share add sh1 "$S/nope"
	grep_out shares.add_missing.msg "create the directory first" "$T/err"
	expect shares.add_same_guestdir 2 u share add sh1 "$S/hot" /srv/b
	u -o json share list sh1 >"$T/o" 2>&1
	grep_out shares.list_json "{\"name\":\"ro\",\"host\":\"$S/ro\",\"guest\":\"/ro\",\"ro\":true,\"transport\":\"hostfs\"}" "$T/o"
	umask 022
	expect shares.start 0 u start sh1
	# readable and writable both ways
	u exec sh1 -- sh -c 'cat /mnt/a/f; echo from-guest >/mnt/a/g' >"$T/o" 2>&1
	grep_out shares.read "^from-host$" "$T/o"
	[ "$(cat "$S/a/g" 2>/dev/null)" = from-guest ] && pass shares.write ||
		fail shares.write "no $S/a/g from the guest: $(head -c 300 "$T/o")"
	# --ro: refused in the guest, and by the host's read-only bind once
	# guest root remounts its mount rw or mounts the share again
	u exec sh1 -- sh -c 'echo x >/ro/x; mount -o remount,rw /ro; echo y >/ro/y; mkdir -p /m; mount -t hostfs -o /shares/ro none /m && echo z >/m/z; umount /m' >"$T/o" 2>&1
	if [ -n "$(ls -A "$S/ro")" ]; then
		fail shares.ro "the guest wrote $(ls "$S/ro") into a read-only share"
	else
		grep_out shares.ro "Read-only file system" "$T/o"
	fi
	# symlinks in a share that point out of it resolve in the guest, and
	# mounts through them or through ".." are refused: the host file
	# never shows
	u exec sh1 -- sh -c 'cat /mnt/a/abs /mnt/a/rel; cat /mnt/a/root'"$S"'/secret; mkdir -p /m; for p in /shares/a/abs /shares/a/root /shares/../../.. /../..; do mount -t hostfs -o $p none /m && { cat /m 2>&1; ls /m; cat /m'"$S"'/secret /m/secret; umount /m; }; done; echo symlinks-done' >"$T/o" 2>&1
	if grep -q "SECRET-$$" "$T/o"; then
		fail shares.symlink_out "the guest read the host file $S/secret"
	else
		grep_out shares.symlink_out "symlinks-done" "$T/o"
	fi
	# rename across two shares (EXDEV: mv copies and removes)
	u exec sh1 -- sh -c 'echo moved >/mnt/a/mv && mv /mnt/a/mv /srv/b/mv && echo mv-ok' >"$T/o" 2>&1
	if [ "$(cat "$S/b/mv" 2>/dev/null)" = moved ] && [ ! -e "$S/a/mv" ]; then
		grep_out shares.rename_across "mv-ok" "$T/o"
	else
		fail shares.rename_across "$(find "$S/a" "$S/b" | tr '\n' ' '): $(head -c 300 "$T/o")"
	fi
	# the guest's files get its mode less the umask umarmctl was started
	# with (022 here), not the supervisor's 077; set-ID bits are refused
	u exec sh1 -- sh -c 'umask 022; echo m >/mnt/a/mode; mkdir /mnt/a/dmode; echo s >/mnt/a/suid; chmod 4755 /mnt/a/suid || echo suid-refused; chmod 2755 /mnt/a/dmode || echo sgid-refused' >"$T/o" 2>&1
	m=$(stat -c %a "$S/a/mode" "$S/a/dmode" 2>&1 | tr '\n' ' ')
	[ "$m" = "644 755 " ] && pass shares.umask ||
		fail shares.umask "host modes $m: $(head -c 300 "$T/o")"
	m=$(stat -c %a "$S/a/suid" "$S/a/dmode" 2>&1 | tr '\n' ' ')
	if [ "$m" = "644 755 " ]; then
		grep_out shares.no_setid "suid-refused" "$T/o"
		grep_out shares.no_setgid "sgid-refused" "$T/o"
	else
		fail shares.no_setid "the guest set host modes $m: $(head -c 300 "$T/o")"
	fi
	# no device nodes (this instance runs as root: without the filter
	# mknod would make one on the host), FIFOs are made; a path three
	# directories deep works with openat2() refused to the kernel
	u exec sh1 -- sh -c 'mknod /mnt/a/null c 1 3 || echo chr-refused; mknod /mnt/a/loop b 7 0 || echo blk-refused; mknod /mnt/a/fifo p && echo fifo-made; mkdir -p /mnt/a/d1/d2/d3 && echo deep >/mnt/a/d1/d2/d3/f && cat /mnt/a/d1/d2/d3/f' >"$T/o" 2>&1
	if [ -e "$S/a/null" ] || [ -e "$S/a/loop" ]; then
		fail shares.no_devices "the guest made host device nodes: $(find "$S/a" -maxdepth 1 \( -type b -o -type c \) | tr '\n' ' ')"
	else
		grep_out shares.no_devices "chr-refused" "$T/o"
		grep_out shares.no_devices_block "blk-refused" "$T/o"
	fi
	if [ -p "$S/a/fifo" ]; then
		grep_out shares.fifo "fifo-made" "$T/o"
	else
		fail shares.fifo "no FIFO $S/a/fifo: $(head -c 300 "$T/o")"
	fi
	if [ "$(cat "$S/a/d1/d2/d3/f" 2>/dev/null)" = deep ]; then
		grep_out shares.deep_path "^deep$" "$T/o"
	else
		fail shares.deep_path "$(head -c 300 "$T/o")"
	fi
	# hot-add to the running instance, and away again
	echo hot >"$S/hot/h"
	expect shares.hot_add 0 u share add sh1 "$S/hot" /hot --ro
	u exec sh1 -- sh -c 'cat /hot/h; touch /hot/t' >"$T/o" 2>&1
	grep_out shares.hot_read "^hot$" "$T/o"
	# a host directory's setuid binaries and device nodes give a guest
	# user nothing: hot-added shares are nosuid,nodev, as at boot
	u exec sh1 -- grep " /hot " /proc/mounts >"$T/o" 2>&1
	grep_out shares.hot_nosuid_nodev " /hot hostfs ro,nosuid,nodev[, ]" "$T/o"
	[ ! -e "$S/hot/t" ] && pass shares.hot_ro || fail shares.hot_ro "the guest wrote $S/hot/t"
	expect shares.hot_rm 0 u share rm sh1 /hot
	# the guest unmounts on its own time (seconds under an emulator)
	u exec sh1 -- sh -c 'for i in $(seq 100); do grep -q " /hot " /proc/mounts || break; sleep 0.2; done
		grep -c " /hot " /proc/mounts; grep " /hot " /proc/mounts' >"$T/o" 2>&1
	grep_out shares.hot_rm_unmounted "^0$" "$T/o"
	u kill sh1 >/dev/null 2>&1
	u rm sh1 >/dev/null 2>&1
	# 1000 shares: added one by one, all mounted at boot by the project's
	# minimal image, whose init mounts them itself (the test image's shell
	# init spawns mkdir and mount per share: 2000 processes, over 15
	# minutes in an emulated host); the test image if there is none
	[ ! -x "$here/../../minimal-init" ] ||
		export UMARM_MINIMAL_INIT="$here/../../minimal-init"
	simg=$(project_image minimal UMARM_MINIMAL_IMAGE)
	[ -n "$simg" ] && [ -f "$simg" ] || simg=$image
	echo "  1000 shares on $simg"
	u create sh2 --image "$simg" --mem 128M >/dev/null 2>&1
	n=0
	for i in $(seq 1000); do
		mkdir -p "$S/many/$i" && echo "$i" >"$S/many/$i/v"
		u share add sh2 "$S/many/$i" "/s/$i" --name "m$i" >/dev/null 2>&1 &&
			n=$((n + 1))
	done
	[ "$n" = 1000 ] && pass shares.add_1000 || fail shares.add_1000 "$n added"
	# 1000 mounts at boot: a second natively, longer in an emulated host
	sed -i 's/^ready-timeout = .*/ready-timeout = 900/' "$T/etc/instances/sh2.conf"
	s=$(date +%s%N)
	# under a soft limit of open files below the shares' count (systemd's
	# usual 1024 is just above 1000; the arm64 guest ran out there): the
	# kernel holds one per hostfs mount and must raise its own (child.c);
	# dash and busybox sh know ulimit -S
	# shellcheck disable=SC3045
	nofile=$(ulimit -Sn)
	# shellcheck disable=SC3045
	ulimit -Sn 900
	expect shares.start_1000 0 u start sh2
	# shellcheck disable=SC3045
	ulimit -Sn "$nofile"
	e=$(date +%s%N)
	echo "  start-to-READY with 1000 shares: $(( (e - s) / 1000000 )) ms"
	# a boot that did not get ready: its console's end says where it stood
	[ "$_rc" = 0 ] || u logs sh2 -n 40 2>&1 | sed 's/^/  sh2 console: /'
	u exec sh2 -- sh -c 'grep -c " /s/[0-9]* hostfs " /proc/mounts; cat /s/1/v /s/1000/v' >"$T/o" 2>&1
	if [ "$(tr '\n' ' ' <"$T/o")" = "1000 1 1000 " ]; then
		pass shares.boot_1000
	else
		fail shares.boot_1000 "$(head -c 300 "$T/o")"
	fi
	# the image mounts shares and /host nosuid,nodev: a host directory's
	# set-ID programs or device nodes give no guest user root or a device
	u exec sh2 -- sh -c 'grep -c " /s/[0-9]* hostfs [^ ]*nosuid,nodev" /proc/mounts; grep -c " /host hostfs [^ ]*nosuid,nodev" /proc/mounts' >"$T/o" 2>&1
	[ "$(tr '\n' ' ' <"$T/o")" = "1000 1 " ] && pass shares.nosuid_nodev ||
		fail shares.nosuid_nodev "$(head -c 300 "$T/o")"
	u kill sh2 >/dev/null 2>&1
	u rm sh2 >/dev/null 2>&1
fi

# kernel_has KERNEL OPT - y, m or n as the configuration next to KERNEL
# says (n without one)
kernel_has() {
	_c=$(dirname "$1")/config
	[ -f "$_c" ] || _c=$(dirname "$1")/.config
	sed -n "s/^CONFIG_$2=\\([ym]\\)$/\\1/p" "$_c" 2>/dev/null | grep . || echo n
}

# virtiofs_real_checks - what virtio-fs is chosen for, on instance vf1's
# real share $V/boot on /vboot: writes land on the host as the instance's
# account, POSIX modes and user xattrs go both ways, a rename stays inside,
# and symlinks the host or the guest plants never lead the guest out of
# the share (the guest resolves them in its own tree)
virtiofs_real_checks() {
	echo outside-secret >"$V/outside"
	ln -s "$V/outside" "$V/boot/abs"
	ln -s ../outside "$V/boot/rel"
	u exec vf1 -- sh -c 'echo w >/vboot/w && chmod 640 /vboot/w &&
		mv /vboot/w /vboot/w2 && ln -s /etc/passwd /vboot/gl &&
		cat /vboot/abs /vboot/rel; echo end' >"$T/o" 2>&1
	[ "$(cat "$V/boot/w2" 2>/dev/null)" = w ] && [ ! -e "$V/boot/w" ] &&
		[ "$(stat -c %a:%u "$V/boot/w2")" = "640:$(id -u)" ] &&
		pass virtiofs.write_mode_owner ||
		fail virtiofs.write_mode_owner "w2: $(stat -c %a:%u "$V/boot/w2" 2>&1) $(cat "$T/o")"
	grep -q outside-secret "$T/o" &&
		fail virtiofs.symlink_out "the guest read $V/outside through a link" ||
		pass virtiofs.symlink_out
	[ "$(readlink "$V/boot/gl")" = /etc/passwd ] && pass virtiofs.guest_symlink ||
		fail virtiofs.guest_symlink "gl: $(readlink "$V/boot/gl" 2>&1)"
	chmod 604 "$V/boot/f"
	setfattr -n user.umarm -v fromhost "$V/boot/f" 2>/dev/null || :
	sleep 2	# past the guest's attribute cache (1 s, virtiofsd's cache=auto)
	# getfattr -n prints NAME="VALUE" as attr's and busybox's do
	u exec vf1 -- sh -c 'stat -c %a /vboot/f; getfattr -n user.umarm /vboot/f;
		setfattr -n user.guest -v fromguest /vboot/f' >"$T/o" 2>&1
	[ "$(head -n 1 "$T/o")" = 604 ] && pass virtiofs.host_mode ||
		fail virtiofs.host_mode "$(head -c 200 "$T/o")"
	if ! command -v getfattr >/dev/null; then
		skip virtiofs.xattr "no getfattr on this host (apt install attr)"
	elif grep -q '^user.umarm="fromhost"$' "$T/o" &&
	     [ "$(getfattr -n user.guest --only-values "$V/boot/f" 2>/dev/null)" = fromguest ]; then
		pass virtiofs.xattr
	else
		fail virtiofs.xattr "guest: $(head -c 200 "$T/o" | tr '\n' ' ')"
	fi
}

# virtiofs: the supervisor's side of virtio-fs shares.  Debian 12 has no
# virtiofsd and our kernels no CONFIG_VIRTIO_FS, so a stand-in serves the
# vhost-user socket (passt --vhost-user: the handshake virtio_uml makes is
# the same for every device type) and the guest is checked for a virtio
# device of type 26 (VIRTIO_ID_FS), plugged at boot and hot-plugged; a
# real mount only with $UMARM_VIRTIOFS_REAL=1 (a virtiofsd and a kernel
# with virtio-fs).
if want virtiofs; then
	V=$T/vfs
	mkdir -p "$V/boot" "$V/hot" "$V/vk"
	echo data >"$V/boot/f"
	if [ "${UMARM_VIRTIOFS_REAL:-0}" = 1 ]; then
		vk=$kernel vfsd=${UMARM_VIRTIOFSD:-/usr/libexec/virtiofsd}
	else
		cat >"$V/virtiofsd" <<'EOS'
#!/bin/sh
# stand-in for virtiofsd: a vhost-user backend on --socket-path
for a; do case $a in --socket-path=*) s=${a#--socket-path=} ;; esac; done
exec passt --foreground --quiet --vhost-user --socket "$s" --one-off
EOS
		chmod 755 "$V/virtiofsd"
		# share add checks the kernel's configuration for virtio-fs
		ln -s "$kernel" "$V/vk/linux"
		printf '\nCONFIG_VIRTIO_UML=y\nCONFIG_VIRTIO_FS=y\n' >"$V/vk/config"
		vk=$V/vk/linux vfsd=$V/virtiofsd
	fi
	# shellcheck disable=SC2317 # called through expect
	uv() { UMARM_KERNEL=$vk UMARM_VIRTIOFSD=$vfsd "$UMARMCTL" "$@"; }
	u create vf1 --image "$image" --mem 128M >/dev/null 2>&1
	expect virtiofs.no_virtiofsd 6 env UMARM_VIRTIOFSD="$V/none" "$UMARMCTL" share add vf1 "$V/boot" --transport virtiofs
	grep_out virtiofs.no_virtiofsd.msg "apt install virtiofsd" "$T/err"
	if [ "$(kernel_has "$kernel" VIRTIO_FS)" = n ]; then
		expect virtiofs.kernel_refused 6 env UMARM_KERNEL="$kernel" UMARM_VIRTIOFSD=/bin/true "$UMARMCTL" share add vf1 "$V/boot" --transport virtiofs
		grep_out virtiofs.kernel_refused.msg "has no CONFIG_VIRTIO_FS, so the guest cannot mount virtio-fs: share with --transport hostfs" "$T/err"
	fi
	if ! command -v passt >/dev/null && [ "${UMARM_VIRTIOFS_REAL:-0}" != 1 ]; then
		skip virtiofs "no passt for the stand-in virtiofsd"
	else
		expect virtiofs.add 0 uv share add vf1 "$V/boot" /vboot --transport virtiofs
		expect virtiofs.start 0 uv start vf1
		pgrep -f -- "--socket $T/run/vf1/fs-boot.sock" >/dev/null 2>&1 ||
			pgrep -f -- "--socket-path=$T/run/vf1/fs-boot.sock" >/dev/null 2>&1 &&
			pass virtiofs.daemon || fail virtiofs.daemon "no virtiofsd on $T/run/vf1/fs-boot.sock"
		u exec vf1 -- sh -c 'cat /sys/bus/virtio/devices/*/device' >"$T/o" 2>&1
		[ "$(grep -c '^0x001a$' "$T/o")" = 1 ] && pass virtiofs.boot_device ||
			fail virtiofs.boot_device "virtio devices: $(tr '\n' ' ' <"$T/o")"
		if [ "${UMARM_VIRTIOFS_REAL:-0}" = 1 ]; then
			expect virtiofs.hot_add 0 uv share add vf1 "$V/hot" /vhot --transport virtiofs --ro
			u exec vf1 -- sh -c 'cat /vboot/f; touch /vhot/x' >"$T/o" 2>&1
			grep_out virtiofs.read "^data$" "$T/o"
			u exec vf1 -- grep " /vhot " /proc/mounts >"$T/o" 2>&1
			grep_out virtiofs.hot_nosuid_nodev " /vhot virtiofs ro,nosuid,nodev[, ]" "$T/o"
			[ ! -e "$V/hot/x" ] && pass virtiofs.ro || fail virtiofs.ro "wrote $V/hot/x"
			virtiofs_real_checks
		else
			# plugged; the guest kernel has no virtiofs to mount it
			expect virtiofs.hot_add 1 uv share add vf1 "$V/hot" /vhot --transport virtiofs --ro
			grep_out virtiofs.hot_add.msg "the guest did not mount it on /vhot" "$T/err"
		fi
		# the guest probes a hot-plugged device asynchronously
		u exec vf1 -- sh -c 'for i in $(seq 50); do [ "$(grep -lx 0x001a /sys/bus/virtio/devices/*/device | wc -l)" = 2 ] && break; sleep 0.1; done; cat /sys/bus/virtio/devices/*/device' >"$T/o" 2>&1
		[ "$(grep -c '^0x001a$' "$T/o")" = 2 ] && pass virtiofs.hot_device ||
			fail virtiofs.hot_device "virtio devices: $(tr '\n' ' ' <"$T/o")"
		expect virtiofs.stop 0 u stop vf1
		pgrep -f -- "$T/run/vf1/fs-" >/dev/null 2>&1 &&
			fail virtiofs.daemons_gone "a virtiofsd outlived its instance" ||
			pass virtiofs.daemons_gone
	fi
	u rm vf1 >/dev/null 2>&1
fi

# guest-text: what a guest writes to /proc/mconsole reaches the state files
# and status: it must add no "key=" line, no terminal escape, no invalid JSON
if want guest-text; then
	u create gt --image "$image" --mem 128M >/dev/null 2>&1
	expect guest_text.start 0 u start gt
	# shellcheck disable=SC2016
	u exec gt -- sh -c 'printf "Kernel panic - not syncing: x\nstatus=running\nexit=\033]0;pwned\007\377\n" >/proc/mconsole' >/dev/null 2>&1
	u stop gt >/dev/null 2>&1
	u status gt >"$T/status" 2>&1
	u list --json >"$T/json" 2>&1
	if ! grep -q "Last run: failed (gt: guest kernel panic" "$T/status"; then
		fail guest_text.status "$(head -c 300 "$T/status")"
	elif grep -q "$(printf '\033')" "$T/status"; then
		fail guest_text.status "an escape sequence reached the terminal"
	else
		pass guest_text.status
	fi
	if grep -q "$(printf '[\033\377]')" "$T/json"; then
		fail guest_text.json "raw control or non-UTF-8 bytes: $(head -c 300 "$T/json")"
	elif command -v python3 >/dev/null &&
	     ! python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$T/json" 2>"$T/err"; then
		fail guest_text.json "$(cat "$T/err")"
	else
		pass guest_text.json
	fi
	u rm gt >/dev/null 2>&1
fi

# Leave nothing running
for f in "$T"/etc/instances/*.conf; do
	[ -e "$f" ] && u kill "$(basename "$f" .conf)" >/dev/null 2>&1
done
echo "$passes passed, $fails failed, $skips skipped in $(( $(date +%s) - t0 ))s"
if [ "$fails" -gt 0 ]; then
	echo "artifacts kept in $T"
	exit 1
fi
rm -rf "$T"
# only skipped cases asked for (e.g. "run.sh hotplug" without passt)
if [ -n "$CASES" ]; then
	for c in $CASES; do
		case " $skipped " in
		*" $c "*) ;;
		*) exit 0 ;;
		esac
	done
	exit 77
fi
[ "$passes" = 0 ] && [ "$skips" -gt 0 ] && exit 77
exit 0
