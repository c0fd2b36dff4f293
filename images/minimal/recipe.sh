# shellcheck shell=sh
# minimal - static C init + static busybox: the fastest boot gate
#
# /sbin/init is init.c, compiled here with cc_glibc, unless a prebuilt
# static init for ARCH is at hand: $UMARM_MINIMAL_INIT when set (set it
# empty to always compile), else init.prebuilt next to this file.  The
# umarmctl package builds init.c when it is built and links init.prebuilt
# to /usr/lib/umarm/minimal-init, so installed recipes need no compiler.
# The prebuilt file's hash is part of the image key.

recipe_describe() {
	echo "static C init (init.c, glibc) + static busybox, 64 MiB"
}

recipe_image_name() { echo "minimal-$1"; }
recipe_size() { echo 64M; }
recipe_sources() { :; }

# minimal_prebuilt ARCH - print the prebuilt init for ARCH, if there is one
minimal_prebuilt() {
	_p=${UMARM_MINIMAL_INIT-$IMAGES_DIR/minimal/init.prebuilt}
	[ -n "$_p" ] || return 0
	if [ ! -f "$_p" ]; then
		[ -z "${UMARM_MINIMAL_INIT-}" ] ||
			die "UMARM_MINIMAL_INIT=$_p is not a file"
		return 0
	fi
	# A prebuilt init for another architecture is not an error: images
	# for a foreign ARCH are compiled as before.
	[ "$(elf_arch "$_p")" = "$1" ] && echo "$_p"
	return 0
}

recipe_inputs() {
	_pre=$(minimal_prebuilt "$1")
	if [ -n "$_pre" ]; then
		echo "init prebuilt $(sha256sum <"$_pre" | cut -c1-64)"
	else
		echo "cc $(cc_glibc_version "$1")"
	fi
	if [ "$1" = "$(host_arch)" ]; then
		echo "busybox $(sha256sum <"$(busybox_for "$1")" | cut -c1-64)"
	else
		echo "extract $EXTRACT_SUITE $(extract_key "$1")"
	fi
}

recipe_prepare() {
	_pre=$(minimal_prebuilt "$1")
	if [ -n "$_pre" ]; then
		log "init: prebuilt $_pre"
		cp "$_pre" "$2/init"
	else
		[ "$1" != "$(host_arch)" ] ||
			need cc "gcc (or set UMARM_MINIMAL_INIT to a static init)"
		cc_glibc "$1" "$2/init" "$IMAGES_DIR/minimal/init.c" \
			"$IMAGES_DIR/minimal/usbip.c" ||
			die "compiling init.c for $1 failed"
	fi
	busybox_for "$1" >"$2/busybox.path"
}

recipe_populate() {
	_root=$3
	populate_skeleton "$_root"
	install_busybox "$1" "$(cat "$2/busybox.path")" "$_root"
	rm -f "$_root/sbin/init"
	install -m 0755 "$2/init" "$_root/sbin/init"
	# init is also the guest side of USB/IP (umarmctl usb attach)
	ln -s init "$_root/sbin/usbip"
}
