# shellcheck shell=sh
# lib.sh - helpers shared by the image recipes; sourced by build.sh
#
# Everything here writes progress to stderr; stdout belongs to build.sh,
# whose last line is the image path.

# Suite that packages extracted for minimal and musl images come from
# (busybox-static for a foreign architecture, musl, musl-dev, libgcc.a).
EXTRACT_SUITE=${EXTRACT_SUITE:-sid}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
# The mirror's sid Release is a frozen snapshot that has expired.
APT_VALID_UNTIL='Acquire::Check-Valid-Until "false"'

log() { echo "images: $*" >&2; }
die() { echo "images: error: $*" >&2; exit 1; }

# arch_triplet ARCH - the GNU CPU name of a Debian architecture
arch_triplet() {
	case $1 in
	arm64) echo aarch64 ;;
	amd64) echo x86_64 ;;
	*) die "unsupported architecture '$1' (arm64 or amd64)" ;;
	esac
}

host_arch() { dpkg --print-architecture; }

# need COMMAND PACKAGE - fail with a hint when COMMAND is not installed
need() {
	command -v "$1" >/dev/null 2>&1 || die "$1 not found: install $2"
}

# elf_arch FILE - the Debian architecture of ELF executable FILE (arm64,
# amd64, or nothing for others), read from its header's e_machine
elf_arch() {
	[ "$(head -c4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ] ||
		return 0
	case $(od -An -tu2 -j18 -N2 "$1" | tr -d ' ') in
	183) echo arm64 ;;
	62) echo amd64 ;;
	esac
}

# run_for ARCH PROG [ARGS...] - run a program built for ARCH on this host,
# through qemu-user when ARCH is foreign (binfmt_misc may be missing or
# hidden by a re-mounted /proc, so qemu is called directly).
run_for() {
	_arch=$1
	shift
	if [ "$_arch" = "$(host_arch)" ]; then
		"$@"
	else
		"qemu-$(arch_triplet "$_arch")-static" "$@"
	fi
}

# hash_files FILE... - one sha256 over the names and contents of FILEs
hash_files() {
	for _f in "$@"; do
		printf '%s %s\n' "$(sha256sum <"$_f" | cut -d' ' -f1)" \
			"${_f#"$IMAGES_DIR"/}"
	done | sha256sum | cut -d' ' -f1
}

# recipe_dir_files DIR - every file under DIR, sorted, one a line
recipe_dir_files() {
	find "$1" -type f ! -name '*~' | LC_ALL=C sort
}

# elapsed SINCE - seconds since the date +%s value SINCE
elapsed() { echo $(($(date +%s) - $1)); }

# ---------------------------------------------------------------------
# Packages extracted from Debian: mmdebstrap --variant=extract, pruned to
# what the recipes use and cached as a directory under $CACHE_DIR/extract.

# extract_key ARCH - the cache key of the extracted files for ARCH; bump
# the version when extract_sysroot() changes what it keeps.
extract_key() {
	printf 'extract v2 %s %s %s\n' "$EXTRACT_SUITE" "$1" "$MIRROR" |
		sha256sum | cut -c1-16
}

# extract_sysroot ARCH - print the directory holding, for ARCH, Debian's
# static busybox (bin/busybox), musl's headers and libraries (include/,
# lib/) and gcc's libgcc.a (lib/libgcc.a); extract it first if needed.
extract_sysroot() {
	_arch=$1
	_dir=$CACHE_DIR/extract/$EXTRACT_SUITE-$_arch-$(extract_key "$_arch")
	if [ -e "$_dir/.done" ]; then
		echo "$_dir"
		return
	fi
	_t=$(arch_triplet "$_arch")
	_tmp=$CACHE_DIR/extract/.tmp.$$
	rm -rf "$_tmp"
	mkdir -p "$_tmp/root" "$_tmp/out/bin" "$_tmp/out/lib"
	log "extracting busybox-static musl musl-dev ($EXTRACT_SUITE $_arch)"
	mmdebstrap --quiet --variant=extract --arch="$_arch" \
		--include=busybox-static,musl,musl-dev \
		--aptopt="$APT_VALID_UNTIL" --skip=cleanup/apt/cache \
		"$EXTRACT_SUITE" "$_tmp/root.tar" "$MIRROR" >&2 ||
		die "mmdebstrap --variant=extract failed"
	tar -C "$_tmp/root" -xf "$_tmp/root.tar" ./usr/bin/busybox \
		"./usr/include/$_t-linux-musl" "./usr/lib/$_t-linux-musl" \
		"./usr/lib/gcc/$_t-linux-gnu" ||
		die "extracted packages lack busybox or musl files"
	cp "$_tmp/root/usr/bin/busybox" "$_tmp/out/bin/"
	cp -a "$_tmp/root/usr/include/$_t-linux-musl" "$_tmp/out/include"
	cp "$_tmp/root/usr/lib/$_t-linux-musl/"*.o \
		"$_tmp/root/usr/lib/$_t-linux-musl/"*.a "$_tmp/out/lib/"
	_libgcc=$(find "$_tmp/root/usr/lib/gcc/$_t-linux-gnu" -name libgcc.a |
		head -n1)
	[ -n "$_libgcc" ] || die "no libgcc.a for $_t in $EXTRACT_SUITE"
	cp "$_libgcc" "$_tmp/out/lib/libgcc.a"
	# variant=extract leaves no dpkg status: take versions from the debs.
	tar -tf "$_tmp/root.tar" | sed -n 's,.*/archives/\([^/]*\)\.deb$,\1,p' |
		sed 's/%3a/:/' | awk -F_ '{ print $1, $2, $3 }' \
		>"$_tmp/out/versions"
	grep -q '^musl ' "$_tmp/out/versions" ||
		die "cannot tell the versions of the extracted packages"
	rm -rf "$_dir"
	mv "$_tmp/out" "$_dir"
	rm -rf "$_tmp"
	touch "$_dir/.done"
	echo "$_dir"
}

# ---------------------------------------------------------------------
# Compiling the C programs statically.

CFLAGS_COMMON="-O2 -Wall -Wextra -static -s"

# cc_glibc_version ARCH - a line naming the compiler cc_glibc uses
cc_glibc_version() {
	if [ "$1" = "$(host_arch)" ]; then
		cc --version | head -n1
	else
		clang-19 --version | head -n1
	fi
}

# cc_glibc ARCH OUT SRC... - a static glibc program for ARCH
cc_glibc() {
	_arch=$1 _out=$2
	shift 2
	if [ "$_arch" = "$(host_arch)" ]; then
		# shellcheck disable=SC2086
		cc $CFLAGS_COMMON -o "$_out" "$@"
	else
		# shellcheck disable=SC2086
		clang-19 --target="$(arch_triplet "$_arch")-linux-gnu" \
			-fuse-ld=lld $CFLAGS_COMMON -o "$_out" "$@"
	fi
}

# cc_musl ARCH SYSROOT OUT SRC... - a static musl program for ARCH, with
# clang and the musl headers and libraries of extract_sysroot().
# libgcc.a provides the soft-float long double helpers arm64 needs.
cc_musl() {
	_arch=$1 _sr=$2 _out=$3
	shift 3
	# shellcheck disable=SC2086
	clang-19 --target="$(arch_triplet "$_arch")-linux-musl" \
		-nostdlibinc -isystem "$_sr/include" -fuse-ld=lld -nostdlib \
		$CFLAGS_COMMON -o "$_out" \
		"$_sr/lib/crt1.o" "$_sr/lib/crti.o" "$@" \
		"$_sr/lib/libc.a" "$_sr/lib/libgcc.a" "$_sr/lib/crtn.o"
}

# ---------------------------------------------------------------------
# Populating a small root file system.

# busybox_for ARCH - print the static busybox to use for ARCH: the host's
# /bin/busybox (busybox-static) for the host architecture, Debian's
# busybox-static extracted from $EXTRACT_SUITE otherwise.
busybox_for() {
	if [ "$1" = "$(host_arch)" ]; then
		_bb=$(command -v busybox) || die "no busybox: install busybox-static"
		need file file
		file -L "$_bb" | grep -q 'statically linked' ||
			die "$_bb is not static: install busybox-static"
		echo "$_bb"
	else
		echo "$(extract_sysroot "$1")/bin/busybox"
	fi
}

# install_busybox ARCH BUSYBOX ROOT - BUSYBOX as ROOT/bin/busybox plus a
# symlink for every applet at its usual place, not replacing existing files
install_busybox() {
	_arch=$1 _bb=$2 _root=$3
	install -D -m 0755 "$_bb" "$_root/bin/busybox"
	run_for "$_arch" "$_bb" --list-full >"$_root/.applets" ||
		die "cannot run $_bb for $_arch"
	while read -r _a; do
		[ -e "$_root/$_a" ] || [ -L "$_root/$_a" ] && continue
		mkdir -p "$_root/${_a%/*}"
		ln -s /bin/busybox "$_root/$_a"
	done <"$_root/.applets"
	rm "$_root/.applets"
}

# install_udhcpc_script ROOT - busybox udhcpc's default event script
# (Debian builds busybox with /etc/udhcpc/default.script), so that "udhcpc
# -i eth0" in the guest, and the umarm.net=dhcp:IF that umarmctl passes
# for an instance with a network, configure the interface passt offers:
# address, default route and resolv.conf from the lease
install_udhcpc_script() {
	mkdir -p "$1/etc/udhcpc"
	cat >"$1/etc/udhcpc/default.script" <<-'EOF'
	#!/bin/sh
	# udhcpc event script: configure $interface from the lease
	case $1 in
	deconfig)
		ip -4 addr flush dev "$interface"
		ip link set "$interface" up
		;;
	bound|renew)
		ip -4 addr flush dev "$interface"
		ip addr add "$ip/${mask:-24}" dev "$interface"
		if [ -n "$router" ]; then
			ip route replace default via "${router%% *}" dev "$interface"
		fi
		if [ -n "$dns" ]; then
			for s in $dns; do echo "nameserver $s"; done >/etc/resolv.conf
		fi
		;;
	esac
	EOF
	chmod 0755 "$1/etc/udhcpc/default.script"
}

# populate_skeleton ROOT - the directories, device nodes and /etc files
# the small images share
populate_skeleton() {
	_root=$1
	mkdir -p "$_root/bin" "$_root/sbin" "$_root/usr/bin" "$_root/usr/sbin" \
		"$_root/etc" "$_root/proc" "$_root/sys" "$_root/dev" \
		"$_root/run" "$_root/host" "$_root/root" "$_root/tmp"
	chmod 1777 "$_root/tmp"
	chmod 0700 "$_root/root"
	# Used only until devtmpfs is mounted over /dev.
	mknod -m 0600 "$_root/dev/console" c 5 1
	mknod -m 0666 "$_root/dev/null" c 1 3
	cat >"$_root/etc/passwd" <<-'EOF'
	root::0:0:root:/root:/bin/sh
	nobody:x:65534:65534:nobody:/nonexistent:/bin/false
	EOF
	cat >"$_root/etc/group" <<-'EOF'
	root:x:0:
	nogroup:x:65534:
	EOF
	echo umarm >"$_root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tumarm\n' >"$_root/etc/hosts"
	install_udhcpc_script "$_root"
	# init mounts a tmpfs on /run: a lease's name servers land there
	# even on a read-only root
	ln -s ../run/resolv.conf "$_root/etc/resolv.conf"
}
