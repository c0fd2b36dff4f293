#!/bin/bash
# vm.sh - an emulated arm64 Debian host for testing linux-uml-arm64
#
# Usage: tests/vm/vm.sh COMMAND [OPTIONS] [ARGS...]
#
#   deps                check the host tools (qemu-system-aarch64 >= 8, ...)
#   rootfs              build (or find cached) the arm64 Debian root filesystem
#   image               rootfs -> ext4 image, both kernels, a host-built initrd
#                       per kernel (runs rootfs first)
#   run [--kernel 4k|16k|va39] [--smp N] [--timeout S] [--disk FILE.tar]
#       [--out DIR] SCRIPT [ARGS...]
#                       boot a VM, run SCRIPT in it, print its output and exit
#                       with its rc (99: no trustworthy rc, see below)
#   start [--kernel 4k|16k|va39] [--smp N]
#                       boot a persistent VM that waits for jobs
#                       (4k, 16k: Debian's kernels; va39: a 39-bit VA
#                       kernel built by host-kernel.sh)
#   exec [--timeout S] SCRIPT [ARGS...]
#                       run SCRIPT in the persistent VM (same contract as run)
#   cp HOSTPATH...      copy files/dirs into the persistent VM (/mnt/host/files)
#   stop                power the persistent VM off
#   status              say whether a persistent VM is running
#   probe-gate [4k] [16k]
#                       build tests/autopkgtest/probes/hostprobe.c, run the
#                       tests/autopkgtest/host-probe gate in a VM of each
#                       kernel (default both) with EXPECT_PAGE_SIZE 4096 /
#                       16384 and scan the console for kernel bugs; prints
#                       "verdict=PASS|FAIL kernel_bugs=N artifacts=DIR" per
#                       kernel, exits 0 only if all pass
#
# In the guest the job runs as root with the cwd /work and these variables:
#   CI_SHARE  the 9p share (/mnt/host): small files, written through to the host
#   CI_WORK   /work; a --disk tar is extracted there before the job starts
#   CI_OUT    a directory whose contents come back to the host (bulk, via a
#             raw disk holding a tar) into OUT/files
# OUT (--out, default $UMARM_CACHE/vm/runs/NAME) keeps console.log, out/job.log,
# out/rc, files/ and the job (job/).  The rc is trusted only when the console
# line "CI_DONE rc=N" and out/rc both exist and agree; otherwise it is 99
# (qemu exits 0 after a guest panic).
#
# On an arm64 host run/exec execute SCRIPT on the host itself, same contract.
#
# Environment: UMARM_CACHE (cache root, default ~/.cache/linux-uml-arm64),
# SUITE (sid|trixie, default sid), MIRROR, VM_LOGLEVEL (4), VM_MEM (2048),
# VM_NATIVE (1: run jobs on this host as on arm64, 0: always emulate),
# VM_CPU (max), VM_NET (0; 1: a virtio NIC on qemu's user network, which
# the job configures itself: 10.0.2.15/24, gateway .2, resolver .3), QEMU
# (qemu-system-aarch64), ARTIFACTS (probe-gate output goes to
# $ARTIFACTS/probe-gate, default $UMARM_CACHE/artifacts/probe-gate-DATE),
# CC (probe-gate on arm64, may carry flags), PROBE_GATE_PAGE_SIZE (force
# the page size probe-gate expects: a negative control).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
prog=tests/vm/vm.sh

UMARM_CACHE=${UMARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linux-uml-arm64}
VMC=$UMARM_CACHE/vm
SUITE=${SUITE:-sid}
QEMU=${QEMU:-qemu-system-aarch64}
VM_LOGLEVEL=${VM_LOGLEVEL:-4}
VM_MEM=${VM_MEM:-2048}
VM_CPU=${VM_CPU:-max}
RUNDIR=$VMC/run

# What goes into the guest.  Changing this list (or SUITE, or ROOTFS_REV when
# the hooks below change) invalidates the cached rootfs tarball.
ROOTFS_PKGS="linux-image-arm64 linux-image-arm64-16k initramfs-tools
	busybox-static strace linux-perf gdb kmod procps udev usbip iproute2 passt
	virtiofsd attr e2fsprogs zstd xz-utils"
ROOTFS_REV=1
# Modules the host-built initrd loads (with their modules.dep dependencies);
# the optional ones are taken where the kernel has them as modules.
# ext4 has a soft dependency on crc32c that modules.dep does not list (6.12).
INITRD_MODS="virtio_blk ext4 9pnet_virtio 9p"
INITRD_OPT_MODS="crc32c_generic crc32c_arm64 crc32c-arm64 libcrc32c crc32c_cryptoapi"
IMAGE_SIZE=4G

die() { echo "vm.sh: $*" >&2; exit 1; }
log() { echo "vm.sh: $*" >&2; }
# usage() - print the command summary of the header comment, exit 2
usage() {
	sed -n '3,/^# In the guest/s/^#\( \|$\)//p' "$0" | sed '$d' >&2
	exit 2
}

# is_arm64_host() - run jobs natively?  VM_NATIVE=1|0 overrides uname -m
is_arm64_host() {
	case "${VM_NATIVE:-}" in
	1) return 0 ;;
	0) return 1 ;;
	esac
	[ "$(uname -m)" = aarch64 ]
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------- deps

cmd_deps() {
	local v t missing=
	command -v "$QEMU" >/dev/null ||
		die "$QEMU not found: run 'make deps' (tools/setup-host.sh)"
	v=$("$QEMU" --version | sed -n '1s/.*version \([0-9]*\)\..*/\1/p')
	if [ -z "$v" ] || [ "$v" -lt 8 ]; then
		die "$QEMU is version ${v:-?}, need >= 8 (FEAT_FPAC): run 'make deps'"
	fi
	for t in mmdebstrap mkfs.ext4 zstd cpio flock timeout xz; do
		command -v "$t" >/dev/null || missing="$missing $t"
	done
	if ! is_arm64_host; then
		command -v arch-test >/dev/null || missing="$missing arch-test"
		[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
			missing="$missing binfmt(qemu-aarch64)"
	fi
	[ -z "$missing" ] || die "missing:$missing: run 'make deps'"
	log "deps ok ($("$QEMU" --version | head -n1))"
}

# ---------------------------------------------------------------- rootfs

mirror() {
	local m=${MIRROR:-}
	if [ -z "$m" ]; then
		m=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/* *$/\1/p' \
			/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
	fi
	echo "${m:-http://deb.debian.org/debian}"
}

rootfs_key() {
	# shellcheck disable=SC2086,SC2116 # normalise the whitespace
	printf 'suite=%s\nrev=%s\npkgs=%s\n' "$SUITE" "$ROOTFS_REV" \
		"$(echo $ROOTFS_PKGS)"
}

cmd_rootfs() {
	local tarball=$VMC/rootfs-$SUITE.tar.zst keyf=$VMC/rootfs-$SUITE.key
	local t0 tmp rc=0
	t0=$(now)
	mkdir -p "$VMC"
	exec 8>"$VMC/rootfs.lock"
	flock 8
	if [ -s "$tarball" ] && [ "$(cat "$keyf" 2>/dev/null)" = "$(rootfs_key)" ]; then
		log "rootfs: cached $tarball ($(elapsed "$t0") s)"
		exec 8>&-
		return 0
	fi
	is_arm64_host || [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
		die "qemu-aarch64 binfmt is not registered: run 'make deps'"
	# Left by an interrupted build; nobody else builds while we hold the lock.
	rm -rf "$VMC/rootfs-$SUITE.tmp."*
	tmp=$(mktemp -d "$VMC/rootfs-$SUITE.tmp.XXXXXX")
	log "rootfs: mmdebstrap $SUITE into $tmp/root (about 3 min)"
	# update-initramfs is diverted to a no-op while the kernels install:
	# running mkinitramfs under qemu-user costs about 100 s per kernel and
	# the VM boots with a host-built initrd anyway.
	# The hooks are run by mmdebstrap with the chroot as $1.
	# shellcheck disable=SC2016
	mmdebstrap --mode=root --arch=arm64 --variant=minbase \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--hook-dir=/usr/share/mmdebstrap/hooks/eatmydata \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-include=/usr/share/locale/locale.alias' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--include="$(echo "$ROOTFS_PKGS" | tr -s ' \t\n' ',,,' | sed 's/,$//')" \
		--essential-hook='chroot "$1" dpkg-divert --quiet --local --rename --add /usr/sbin/update-initramfs && printf "#!/bin/sh\nexit 0\n" >"$1/usr/sbin/update-initramfs" && chmod 755 "$1/usr/sbin/update-initramfs"' \
		--customize-hook='rm -f "$1/usr/sbin/update-initramfs" && chroot "$1" dpkg-divert --quiet --local --rename --remove /usr/sbin/update-initramfs' \
		--customize-hook='chroot "$1" passwd -d root && echo umarm-vm >"$1/etc/hostname" && mkdir -p "$1/work" "$1/mnt/host"' \
		"$SUITE" "$tmp/root" "$(mirror)" >"$tmp/mmdebstrap.log" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		tail -n 30 "$tmp/mmdebstrap.log" >&2
		cp "$tmp/mmdebstrap.log" "$VMC/rootfs-$SUITE.failed.log" || :
		rm -rf "$tmp"
		die "rootfs: mmdebstrap failed (rc $rc), log in $VMC/rootfs-$SUITE.failed.log"
	fi
	log "rootfs: mmdebstrap done ($(elapsed "$t0") s), packing"
	tar --numeric-owner -C "$tmp/root" -cf - . | zstd -q -T0 -3 >"$tmp/rootfs.tar.zst"
	rootfs_key >"$tmp/key"
	# Key first, then the tarball: a reader never sees a new tarball with
	# an old key.  rename(2) makes each step atomic.
	rm -f "$keyf"
	mv "$tmp/rootfs.tar.zst" "$tarball"
	mv "$tmp/key" "$keyf"
	rm -rf "$tmp"
	log "rootfs: $tarball $(du -h "$tarball" | cut -f1) ($(elapsed "$t0") s)"
	exec 8>&-
}

# ---------------------------------------------------------------- image

imgdir() { echo "$VMC/image-$SUITE"; }

image_key() {
	rootfs_key
	printf 'size=%s\nmods=%s %s\n' "$IMAGE_SIZE" "$INITRD_MODS" "$INITRD_OPT_MODS"
	cat "$here/ci-init" "$here/initrd-init"
	sed -n '/^build_initrd()/,/^}/p' "$0"
}

# mod_path() - print the modules.dep path of module NAME of KDIR, or nothing
mod_path() {
	local kdir=$1 n
	n=$(echo "$2" | tr - _)
	awk -F: -v n="$n" '{
		b = $1; sub(/.*\//, "", b); sub(/\.ko(\.[a-z]+)?$/, "", b)
		gsub(/-/, "_", b)
		if (b == n) { print $1; exit }
	}' "$kdir/modules.dep"
}

# mod_closure() - print the modules.dep paths needed for the given modules,
# dependencies before their users
mod_closure() {
	local kdir=$1 p
	shift
	for m in "$@"; do
		p=$(mod_path "$kdir" "$m")
		[ -n "$p" ] && echo "$p"
	done | awk -F': *' -v dep="$kdir/modules.dep" '
		BEGIN { while ((getline l < dep) > 0) {
			split(l, f, /: */); d[f[1]] = f[2] } }
		function visit(p,   n, a, i) {
			if (p in seen) return
			seen[p] = 1
			n = split(d[p], a, / +/)
			for (i = n; i >= 1; i--) if (a[i] != "") visit(a[i])
			print p
		}
		{ visit($1) }'
}

# build_initrd() - a small initrd for kernel KVER of ROOT, written to OUT
build_initrd() {
	local root=$1 kver=$2 out=$3 kdir stage p n
	kdir=$root/usr/lib/modules/$kver
	[ -d "$kdir" ] || kdir=$root/lib/modules/$kver
	stage=$(mktemp -d "$VMC/initrd.XXXXXX")
	mkdir -p "$stage/bin" "$stage/dev" "$stage/proc" "$stage/sys" \
		"$stage/newroot" "$stage/lib/modules"
	cp "$root/usr/bin/busybox" "$stage/bin/busybox"
	cp "$here/initrd-init" "$stage/init"
	chmod 755 "$stage/init"
	mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || :
	: >"$stage/modules"
	local opt=
	for m in $INITRD_OPT_MODS; do
		[ -n "$(mod_path "$kdir" "$m")" ] && opt="$opt $m"
	done
	# shellcheck disable=SC2086
	for p in $(mod_closure "$kdir" $opt $INITRD_MODS); do
		n=${p##*/}
		n=${n%%.ko*}
		case "$p" in
		*.ko.xz) xz -dc "$kdir/$p" >"$stage/lib/modules/$n.ko" ;;
		*.ko.zst) zstd -qdc "$kdir/$p" >"$stage/lib/modules/$n.ko" ;;
		*.ko.gz) gzip -dc "$kdir/$p" >"$stage/lib/modules/$n.ko" ;;
		*) cp "$kdir/$p" "$stage/lib/modules/$n.ko" ;;
		esac
		echo "$n" >>"$stage/modules"
	done
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
		gzip -1 >"$out"
	log "image: initrd $kver: $(tr '\n' ' ' <"$stage/modules")"
	rm -rf "$stage"
}

cmd_image() {
	local d t0 tmp key kver f
	cmd_rootfs
	t0=$(now)
	d=$(imgdir)
	key=$(image_key | sha256sum | cut -d' ' -f1)
	key="$key $(stat -c %Y "$VMC/rootfs-$SUITE.tar.zst")"
	exec 8>"$VMC/image.lock"
	flock 8
	if [ -s "$d/rootfs.img" ] && [ "$(cat "$d/key" 2>/dev/null)" = "$key" ]; then
		log "image: cached $d ($(elapsed "$t0") s)"
		exec 8>&-
		return 0
	fi
	rm -rf "$VMC/image-$SUITE.tmp."*
	tmp=$(mktemp -d "$VMC/image-$SUITE.tmp.XXXXXX")
	mkdir "$tmp/root" "$tmp/img"
	zstd -qdc "$VMC/rootfs-$SUITE.tar.zst" | tar --numeric-owner -C "$tmp/root" -xf -
	install -m 755 "$here/ci-init" "$tmp/root/usr/local/sbin/ci-init"
	for f in "$tmp"/root/boot/vmlinuz-*; do
		kver=${f##*/vmlinuz-}
		case "$kver" in
		*-arm64) cp "$f" "$tmp/img/vmlinuz-4k"
			build_initrd "$tmp/root" "$kver" "$tmp/img/initrd-4k.gz"
			echo "$kver" >"$tmp/img/kver-4k" ;;
		*-arm64-16k) cp "$f" "$tmp/img/vmlinuz-16k"
			build_initrd "$tmp/root" "$kver" "$tmp/img/initrd-16k.gz"
			echo "$kver" >"$tmp/img/kver-16k" ;;
		esac
	done
	if [ ! -s "$tmp/img/vmlinuz-4k" ] || [ ! -s "$tmp/img/vmlinuz-16k" ]; then
		rm -rf "$tmp"
		die "image: the rootfs lacks a 4k or a 16k kernel"
	fi
	truncate -s "$IMAGE_SIZE" "$tmp/img/rootfs.img"
	mkfs.ext4 -q -F -L root -d "$tmp/root" "$tmp/img/rootfs.img"
	echo "$key" >"$tmp/img/key"
	rm -rf "$tmp/root"
	rm -rf "$d.old"
	[ ! -d "$d" ] || mv "$d" "$d.old"
	mv "$tmp/img" "$d"
	rm -rf "$tmp" "$d.old"
	log "image: $d ($(elapsed "$t0") s)"
	exec 8>&-
}

# ---------------------------------------------------------------- qemu

# check_kernel K - 4k and 16k are Debian's kernels in the image; any other
# K names a kernel built by host-kernel.sh from tests/vm/K.config (va39)
check_kernel() {
	case $1 in
	4k|16k) return 0 ;;
	''|*[!a-z0-9]*) ;;
	*) [ ! -f "$here/$1.config" ] || return 0 ;;
	esac
	local f names=''
	for f in "$here"/*.config; do
		[ -f "$f" ] && f=${f##*/} && names="$names ${f%.config}"
	done
	die "--kernel $1: use 4k, 16k or a kernel host-kernel.sh builds:$names"
}

# qemu_args() - fill the global array QARGS for kernel K, smp N, share DIR,
# input tar IN (may be empty), output disk OUTIMG (may be empty), console
# file CONSOLE and ci-init mode MODE
qemu_args() {
	local k=$1 smp=$2 share=$3 in=$4 outimg=$5 console=$6 mode=$7 d
	local vmlinuz initrd
	d=$(imgdir)
	vmlinuz=$d/vmlinuz-$k initrd=$d/initrd-$k.gz
	case $k in
	4k|16k) ;;
	*)	# all built in: the 4K initrd's insmods fail harmlessly
		vmlinuz=$("$here/host-kernel.sh" build "$k") ||
			die "host-kernel.sh build $k failed"
		initrd=$d/initrd-4k.gz ;;
	esac
	# shellcheck disable=SC2054 # the commas are qemu's
	QARGS=(-M virt -cpu "$VM_CPU" -accel tcg,thread=multi -smp "$smp"
		-m "$VM_MEM" -display none -no-reboot -nodefaults
		-chardev "file,id=con,path=$console" -serial chardev:con
		-monitor none
		-kernel "$vmlinuz" -initrd "$initrd"
		-append "root=/dev/vda rw console=ttyAMA0 init=/usr/local/sbin/ci-init panic=-1 loglevel=$VM_LOGLEVEL ci.mode=$mode"
		-drive "file=$d/rootfs.img,format=raw,if=none,id=hd0,snapshot=on"
		-device virtio-blk-pci,drive=hd0,serial=ciroot
		-virtfs "local,path=$share,mount_tag=hostshare,security_model=none,id=hs"
		-device virtio-rng-pci)
	# a user-mode network (qemu's NAT: the guest is 10.0.2.15, the
	# host's resolver 10.0.2.3) for jobs that need the archive
	# (no firmware here, so the NIC needs no PXE ROM: romfile= is empty)
	# shellcheck disable=SC2054
	[ "${VM_NET:-0}" = 0 ] ||
		QARGS+=(-netdev user,id=net0 -device virtio-net-pci,netdev=net0,romfile=)
	# shellcheck disable=SC2054
	if [ -n "$in" ]; then
		QARGS+=(-drive "file=$in,format=raw,if=none,id=hd1,readonly=on"
			-device virtio-blk-pci,drive=hd1,serial=ciin)
	fi
	# shellcheck disable=SC2054
	if [ -n "$outimg" ]; then
		QARGS+=(-drive "file=$outimg,format=raw,if=none,id=hd2"
			-device virtio-blk-pci,drive=hd2,serial=ciout)
	fi
}

# write_job() - put SCRIPT and its ARGS into DIR (the job/ of a share); with
# JOB_DEADLINE set (seconds of guest uptime), the job is stopped then, so
# that ci-init still writes its files out before qemu's own timeout kills
# the VM and a failing run keeps its artifacts
write_job() {
	local dir=$1 script=$2 a
	shift 2
	[ -f "$script" ] || die "no such job script: $script"
	mkdir -p "$dir"
	cp "$script" "$dir/script"
	chmod 755 "$dir/script"
	{
		echo '#!/bin/sh'
		# shellcheck disable=SC2016 # expanded by the guest
		if [ -n "${JOB_DEADLINE:-}" ]; then
			printf 'left=$((%s - $(cut -d. -f1 /proc/uptime)))\n' "$JOB_DEADLINE"
			printf '[ "$left" -gt 0 ] || left=1\n'
			printf 'timeout -k 10 "$left" "$(dirname "$0")/script"'
		else
			printf 'exec "$(dirname "$0")/script"'
		fi
		for a in "$@"; do
			printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"
		done
		echo
		# shellcheck disable=SC2016
		[ -z "${JOB_DEADLINE:-}" ] || printf 'rc=$?\n[ "$rc" != 124 ] || echo "vm.sh: the job was stopped at its deadline (%s s of uptime)"\nexit "$rc"\n' "$JOB_DEADLINE"
	} >"$dir/run"
	chmod 755 "$dir/run"
}

# verdict() - the trusted rc of a job: console marker MARKER and rc file agree
verdict() {
	local console=$1 rcfile=$2 marker=$3 m r
	m=$(tr -d '\r' <"$console" 2>/dev/null | sed -n "s/^.*$marker\([0-9]*\)\$/\1/p" | tail -n1)
	r=$(cat "$rcfile" 2>/dev/null || :)
	if [ -n "$m" ] && [ -n "$r" ] && [ "$m" = "$r" ]; then
		echo "$m"
	else
		log "no trustworthy rc (console marker '${m:-none}', rc file '${r:-none}'): 99"
		echo 99
	fi
}

# run_native() - run_job on this (arm64) host: OUT DISK(may be empty) SCRIPT..
run_native() {
	local out=$1 disk=$2 script=$3 rc=0
	shift 3
	rm -rf "$out/out" "$out/job" "$out/files" "$out/work"
	mkdir -p "$out/out" "$out/files" "$out/job" "$out/work"
	write_job "$out/job" "$script" "$@"
	[ -z "$disk" ] || tar -xf "$disk" -C "$out/work"
	(cd "$out/work" && CI_SHARE=$out CI_WORK=$out/work CI_OUT=$out/files \
		"$out/job/run" >"$out/out/job.log" 2>&1) || rc=$?
	echo "$rc" >"$out/out/rc"
	cat "$out/out/job.log"
	log "native run: rc=$rc out=$out"
	return "$rc"
}

# default_out() - a new OUT directory under $UMARM_CACHE/vm/runs
default_out() {
	mkdir -p "$VMC/runs"
	mktemp -d "$VMC/runs/$(date +%Y%m%d-%H%M%S).XXXX"
}

cmd_run() {
	local kernel=4k smp=1 tmo=600 disk='' out='' t0 rc qrc=0 deadline
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) kernel=$2; shift 2 ;;
		--smp) smp=$2; shift 2 ;;
		--timeout) tmo=$2; shift 2 ;;
		--disk) disk=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--) shift; break ;;
		-*) usage ;;
		*) break ;;
		esac
	done
	[ $# -ge 1 ] || usage
	[ -z "$disk" ] || [ -f "$disk" ] || die "no such disk tar: $disk"
	[ -n "$out" ] || out=$(default_out)
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	if is_arm64_host; then
		run_native "$out" "$disk" "$@"
		return
	fi
	check_kernel "$kernel"
	cmd_image
	rm -rf "$out/out" "$out/job" "$out/files"
	mkdir -p "$out/out" "$out/files"
	# the job stops a minute (a tenth of a long run) before qemu is killed
	deadline=$((tmo - (tmo / 10 > 60 ? tmo / 10 : 60)))
	[ "$deadline" -gt 0 ] || deadline=$((tmo / 2))
	JOB_DEADLINE=$deadline write_job "$out/job" "$@"
	rm -f "$out/console.log" "$out/outdisk.img"
	truncate -s 8G "$out/outdisk.img"
	[ -z "$disk" ] || disk=$(cd "$(dirname "$disk")" && pwd)/$(basename "$disk")
	qemu_args "$kernel" "$smp" "$out" "$disk" "$out/outdisk.img" \
		"$out/console.log" run
	printf '%q ' "$QEMU" "${QARGS[@]}" >"$out/qemu.cmd"
	t0=$(now)
	timeout --foreground -k 10 "$tmo" "$QEMU" "${QARGS[@]}" </dev/null \
		>"$out/qemu.log" 2>&1 || qrc=$?
	[ "$qrc" != 124 ] || log "timeout after $tmo s"
	rc=$(verdict "$out/console.log" "$out/out/rc" "CI_DONE rc=")
	tar -xf "$out/outdisk.img" -C "$out/files" 2>/dev/null || :
	rm -f "$out/outdisk.img"
	cat "$out/out/job.log" 2>/dev/null || :
	log "run: kernel=$kernel rc=$rc qemu_rc=$qrc $(sed -n 's/.*\(CI_BOOTED uptime=[0-9.]*\).*/\1/p' "$out/console.log" | head -n1) wall=$(elapsed "$t0") s out=$out"
	return "$rc"
}

# ---------------------------------------------------------------- persistent

# state_pid() - the pid of the persistent VM's qemu, or nothing
state_pid() { cat "$RUNDIR/pid" 2>/dev/null || :; }

# vm_alive() - is the persistent VM's qemu still running (not a zombie)?
vm_alive() {
	local pid
	pid=$(state_pid)
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
		grep -q qemu "/proc/$pid/cmdline" 2>/dev/null
}

# lock_run() - take the persistent VM's lock (fd 9) until this script exits
lock_run() {
	mkdir -p "$RUNDIR"
	exec 9>"$RUNDIR/../run.lock"
	flock -w 600 9 || die "could not lock $RUNDIR"
}

cmd_start() {
	local kernel=4k smp=1 t0 i
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) kernel=$2; shift 2 ;;
		--smp) smp=$2; shift 2 ;;
		*) usage ;;
		esac
	done
	check_kernel "$kernel"
	is_arm64_host && { log "arm64 host: jobs run natively, nothing to start"; return 0; }
	cmd_image
	lock_run
	if vm_alive; then
		die "a VM is already running (pid $(state_pid), kernel $(cat "$RUNDIR/kernel")): '$prog stop' first"
	fi
	[ -z "$(state_pid)" ] || log "stale VM state (pid $(state_pid) is gone): cleaning up"
	rm -rf "$RUNDIR"
	mkdir -p "$RUNDIR/share/jobs" "$RUNDIR/share/files"
	echo "$kernel" >"$RUNDIR/kernel"
	qemu_args "$kernel" "$smp" "$RUNDIR/share" "" "" "$RUNDIR/console.log" agent
	printf '%q ' "$QEMU" "${QARGS[@]}" >"$RUNDIR/qemu.cmd"
	t0=$(now)
	# fd 9 (the lock) must not live on in qemu
	setsid "$QEMU" "${QARGS[@]}" </dev/null >"$RUNDIR/qemu.log" 2>&1 9>&- &
	echo $! >"$RUNDIR/pid"
	for i in $(seq 1 1200); do
		grep -q CI_AGENT_READY "$RUNDIR/console.log" 2>/dev/null && break
		vm_alive || { tail -n 20 "$RUNDIR/console.log" >&2; die "VM died while booting (console: $RUNDIR/console.log)"; }
		[ "$i" != 1200 ] || die "VM did not become ready in 120 s (console: $RUNDIR/console.log)"
		sleep 0.1
	done
	log "started: pid $(state_pid) kernel=$kernel ready after $(elapsed "$t0") s ($RUNDIR)"
}

cmd_exec() {
	local tmo=600 id j rc t0 n=0 out
	while [ $# -gt 0 ]; do
		case "$1" in
		--timeout) tmo=$2; shift 2 ;;
		--) shift; break ;;
		-*) usage ;;
		*) break ;;
		esac
	done
	[ $# -ge 1 ] || usage
	if is_arm64_host; then
		run_native "$(default_out)" "" "$@"
		return
	fi
	lock_run
	vm_alive || die "no VM running: '$prog start' first"
	id=$(date +%s)-$$
	j=$RUNDIR/share/jobs/$id
	write_job "$j" "$@"
	mkdir -p "$j/out"
	t0=$(now)
	touch "$j/ready"
	while ! grep -q "CI_DONE job=$id rc=" "$RUNDIR/console.log"; do
		if ! vm_alive; then
			log "the VM died during the job (console: $RUNDIR/console.log)"
			break
		fi
		n=$((n + 1))
		if [ "$n" -gt $((tmo * 10)) ]; then
			log "timeout after $tmo s; the VM is left running ('$prog stop')"
			break
		fi
		sleep 0.1
	done
	rc=$(verdict "$RUNDIR/console.log" "$j/out/rc" "CI_DONE job=$id rc=")
	cat "$j/out/job.log" 2>/dev/null || :
	out=$j
	log "exec: rc=$rc wall=$(elapsed "$t0") s out=$out"
	return "$rc"
}

cmd_cp() {
	local p
	[ $# -ge 1 ] || usage
	if is_arm64_host; then
		log "arm64 host: nothing to copy, jobs run natively"
		return 0
	fi
	vm_alive || die "no VM running: '$prog start' first"
	for p in "$@"; do
		cp -a "$p" "$RUNDIR/share/files/"
		log "cp: $p -> guest /mnt/host/files/$(basename "$p")"
	done
}

cmd_stop() {
	local pid i
	lock_run
	pid=$(state_pid)
	if [ -z "$pid" ]; then
		log "no VM state"
		return 0
	fi
	if vm_alive; then
		touch "$RUNDIR/share/poweroff"
		for i in $(seq 1 100); do
			vm_alive || break
			sleep 0.1
		done
		if vm_alive; then
			log "the VM did not power off: killing pid $pid"
			kill "$pid" 2>/dev/null || :
			sleep 1
		fi
		log "stopped pid $pid"
	else
		log "stale VM state (pid $pid is gone): cleaned up"
	fi
	rm -rf "$RUNDIR"
}

cmd_status() {
	if vm_alive; then
		echo "running pid=$(state_pid) kernel=$(cat "$RUNDIR/kernel") dir=$RUNDIR"
	elif [ -n "$(state_pid)" ]; then
		echo "stale pid=$(state_pid) dir=$RUNDIR"
		return 1
	else
		echo "stopped"
		return 1
	fi
}

# ---------------------------------------------------------------- probe gate

# build_probe() - cross-build (or build) the host probe into OUT
build_probe() {
	local out=$1 src=$top/tests/autopkgtest/probes/hostprobe.c
	local cflags="-O2 -Wall -Wextra -Werror"
	if is_arm64_host; then
		# shellcheck disable=SC2086 # CC may carry flags
		${CC:-cc} $cflags -o "$out" "$src"
	elif command -v clang-19 >/dev/null; then
		# shellcheck disable=SC2086
		clang-19 --target=aarch64-linux-gnu -fuse-ld=lld -static \
			$cflags -o "$out" "$src"
	else
		# shellcheck disable=SC2086
		aarch64-linux-gnu-gcc -static $cflags -o "$out" "$src"
	fi
}

# bug_count() - count kernel bug reports in a log FILE (0 if it is missing)
bug_count() {
	if [ -e "$1" ]; then
		grep -caE 'BUG:|WARNING:|Oops|Kernel panic|Bad rss-counter' "$1" || :
	else
		echo 0
	fi
}

# kernel_bugs() - kernel bug reports of run DIR: the console shows only what
# is above loglevel= (not WARN splats at loglevel 4) and the dmesg saved after
# the job misses a panic, so take the larger count of the two
kernel_bugs() {
	local c d
	c=$(bug_count "$1/console.log")
	d=$(bug_count "$1/out/dmesg.txt")
	echo $((c > d ? c : d))
}

cmd_probe_gate() {
	local art t0 k ps dir rc bugs v overall=0 kernels="${*:-4k 16k}"
	t0=$(now)
	if [ -n "${ARTIFACTS:-}" ]; then
		art=$ARTIFACTS/probe-gate
	else
		art=$UMARM_CACHE/artifacts/probe-gate-$(date +%Y%m%d-%H%M%S)
	fi
	rm -rf "$art"
	mkdir -p "$art/input"
	art=$(cd "$art" && pwd)
	build_probe "$art/input/hostprobe"
	cp "$top/tests/autopkgtest/host-probe" "$art/input/host-probe"
	tar -C "$art/input" -cf "$art/input.tar" hostprobe host-probe
	cat >"$art/job.sh" <<'EOF'
#!/bin/sh
# Runs in the VM: the gate as autopkgtest would run it on an arm64 host.
set -eu
HOSTPROBE=$CI_WORK/hostprobe EXPECT_PAGE_SIZE=${1:-} \
	AUTOPKGTEST_ARTIFACTS=$CI_OUT/host-probe sh "$CI_WORK/host-probe"
EOF
	# On an arm64 host the gate runs once, on the host's own kernel, with
	# no expected page size unless PROBE_GATE_PAGE_SIZE gives one.
	is_arm64_host && kernels=native
	for k in $kernels; do
		case "$k" in
		4k) ps=4096 ;;
		16k) ps=16384 ;;
		native) ps= ;;
		*) die "probe-gate: kernel '$k' is not 4k or 16k" ;;
		esac
		# A negative control: a wrong page size must make the gate fail.
		ps=${PROBE_GATE_PAGE_SIZE:-$ps}
		dir=$art/$k
		rc=0
		"$0" run --kernel "$k" --timeout 300 --disk "$art/input.tar" \
			--out "$dir" "$art/job.sh" "$ps" >"$art/$k.log" 2>&1 || rc=$?
		bugs=$(kernel_bugs "$dir")
		v=$(grep '^verdict=' "$dir/out/job.log" 2>/dev/null | tail -n1 || :)
		if [ "$rc" = 0 ] && [ "$bugs" = 0 ] &&
		   [ "${v%% *}" = verdict=PASS ]; then
			echo "verdict=PASS kernel_bugs=0 artifacts=$dir"
		else
			echo "verdict=FAIL kernel_bugs=$bugs artifacts=$dir"
			overall=1
			log "probe-gate $k: rc=$rc probe '${v:-no verdict}', see $art/$k.log"
		fi
	done
	log "probe-gate: $(elapsed "$t0") s, artifacts $art"
	return "$overall"
}

# ---------------------------------------------------------------- main

# main() - dispatch COMMAND
main() {
	local cmd
	[ $# -ge 1 ] || usage
	cmd=$1
	shift
	case "$cmd" in
	deps) cmd_deps ;;
	rootfs) cmd_rootfs ;;
	image) cmd_image ;;
	run) cmd_run "$@" ;;
	start) cmd_start "$@" ;;
	exec) cmd_exec "$@" ;;
	cp) cmd_cp "$@" ;;
	stop) cmd_stop ;;
	status) cmd_status ;;
	probe-gate) cmd_probe_gate "$@" ;;
	*) usage ;;
	esac
}

# On one line, so that bash has read it all before running it: editing this
# file while it runs (e.g. a persistent VM's exec) cannot derail it.
main "$@"; exit $?
