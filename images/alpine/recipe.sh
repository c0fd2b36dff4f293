# shellcheck shell=sh
# alpine - a local Alpine minirootfs tarball with our init as /sbin/init
#
# The tarball cannot be downloaded here: pass it as ALPINE_TARBALL=path
# (alpine-minirootfs-*-aarch64.tar.gz or -x86_64 for amd64).  The image
# keeps Alpine's files and adds the C init of the minimal recipe, built
# with musl, as /sbin/init.umarm; /sbin/init points to it, so the same
# kernel command line (init=/sbin/init, umarm.run=, umarm.hostfs=) works
# for every small image.  Alpine's busybox init stays as /sbin/init.alpine.

recipe_describe() {
	echo "ALPINE_TARBALL (Alpine minirootfs) + musl C init, 256 MiB"
}

# alpine_tarball - the tarball, or a clear error naming the variable
alpine_tarball() {
	[ -n "${ALPINE_TARBALL:-}" ] ||
		die "alpine: set ALPINE_TARBALL=/path/to/alpine-minirootfs-VERSION-ARCH.tar.gz (it cannot be downloaded here)"
	[ -f "$ALPINE_TARBALL" ] ||
		die "alpine: ALPINE_TARBALL=$ALPINE_TARBALL is not a file"
	echo "$ALPINE_TARBALL"
}

recipe_image_name() {
	alpine_tarball >/dev/null
	echo "alpine-$1"
}

recipe_size() { echo 256M; }
recipe_sources() { echo "$IMAGES_DIR/minimal/init.c $IMAGES_DIR/minimal/usbip.c"; }

recipe_inputs() {
	echo "tarball $(sha256sum <"$(alpine_tarball)" | cut -c1-64)"
	echo "cc $(clang-19 --version | head -n1)"
	echo "extract $EXTRACT_SUITE $(extract_key "$1")"
}

recipe_prepare() {
	_sr=$(extract_sysroot "$1")
	cc_musl "$1" "$_sr" "$2/init" "$IMAGES_DIR/minimal/init.c" \
		"$IMAGES_DIR/minimal/usbip.c" ||
		die "compiling init.c with musl for $1 failed"
}

# check_alpine_arch ARCH ROOT - the unpacked tarball is for ARCH
check_alpine_arch() {
	case $1 in
	arm64) _want='ARM aarch64' ;;
	amd64) _want='x86-64' ;;
	esac
	[ -f "$2/bin/busybox" ] ||
		die "alpine: $ALPINE_TARBALL has no /bin/busybox: not a minirootfs?"
	file -b "$2/bin/busybox" | grep -q "$_want" ||
		die "alpine: $ALPINE_TARBALL is not for $1: $(file -b "$2/bin/busybox")"
}

recipe_populate() {
	_root=$3
	tar -C "$_root" -xpf "$(alpine_tarball)" --numeric-owner ||
		die "cannot unpack $ALPINE_TARBALL"
	check_alpine_arch "$1" "$_root"
	# Alpine's /sbin/init is a symlink to busybox, which picks the applet
	# by argv[0]: "init.alpine" would not be found, hence a wrapper.
	if [ -L "$_root/sbin/init" ] &&
	   [ "$(basename "$(readlink "$_root/sbin/init")")" = busybox ]; then
		rm "$_root/sbin/init"
		printf '#!/bin/sh\nexec /bin/busybox init "$@"\n' \
			>"$_root/sbin/init.alpine"
		chmod 0755 "$_root/sbin/init.alpine"
	elif [ -e "$_root/sbin/init" ]; then
		mv "$_root/sbin/init" "$_root/sbin/init.alpine"
	fi
	install -m 0755 "$2/init" "$_root/sbin/init.umarm"
	ln -s init.umarm "$_root/sbin/init"
	for _d in proc sys dev run tmp host root; do
		mkdir -p "$_root/$_d"
	done
	chmod 1777 "$_root/tmp"
	[ -e "$_root/dev/console" ] || mknod -m 0600 "$_root/dev/console" c 5 1
	[ -e "$_root/dev/null" ] || mknod -m 0666 "$_root/dev/null" c 1 3
	echo umarm >"$_root/etc/hostname"
}
