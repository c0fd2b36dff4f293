# shellcheck shell=sh
# musl - the minimal image's contract with musl userspace (Alpine stand-in)

recipe_describe() {
	echo "static musl init + musltest (threads/TLS/signals) + busybox, 64 MiB"
}

recipe_image_name() { echo "musl-$1"; }
recipe_size() { echo 64M; }
recipe_sources() { echo "$IMAGES_DIR/minimal/init.c $IMAGES_DIR/minimal/usbip.c"; }

recipe_inputs() {
	echo "cc $(clang-19 --version | head -n1)"
	echo "extract $EXTRACT_SUITE $(extract_key "$1")"
	if [ "$1" = "$(host_arch)" ]; then
		echo "busybox $(sha256sum <"$(busybox_for "$1")" | cut -c1-64)"
	fi
}

recipe_prepare() {
	_sr=$(extract_sysroot "$1")
	cc_musl "$1" "$_sr" "$2/init" "$IMAGES_DIR/minimal/init.c" \
		"$IMAGES_DIR/minimal/usbip.c" ||
		die "compiling init.c with musl for $1 failed"
	cc_musl "$1" "$_sr" "$2/musltest" "$IMAGES_DIR/musl/musltest.c" ||
		die "compiling musltest.c for $1 failed"
	# Check the program before it goes into an image: under qemu-user for
	# a foreign architecture, which implements TLS and signals itself.
	run_for "$1" "$2/musltest" | grep -q '^UMARM_MUSL_OK' ||
		die "musltest fails on the build host"
	busybox_for "$1" >"$2/busybox.path"
	grep musl "$_sr/versions" >"$2/musl.versions"
}

recipe_populate() {
	_root=$3
	populate_skeleton "$_root"
	install_busybox "$1" "$(cat "$2/busybox.path")" "$_root"
	rm -f "$_root/sbin/init"
	install -m 0755 "$2/init" "$_root/sbin/init"
	ln -s init "$_root/sbin/usbip"
	install -m 0755 "$2/musltest" "$_root/bin/musltest"
	install -D -m 0644 "$2/musl.versions" "$_root/etc/umarm-musl-versions"
}
