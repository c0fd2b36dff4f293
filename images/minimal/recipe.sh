# shellcheck shell=sh
# minimal - static C init + static busybox: the fastest boot gate

recipe_describe() {
	echo "static C init (init.c, glibc) + static busybox, 64 MiB"
}

recipe_image_name() { echo "minimal-$1"; }
recipe_size() { echo 64M; }
recipe_sources() { :; }

recipe_inputs() {
	echo "cc $(cc_glibc_version "$1")"
	if [ "$1" = "$(host_arch)" ]; then
		echo "busybox $(sha256sum <"$(busybox_for "$1")" | cut -c1-64)"
	else
		echo "extract $EXTRACT_SUITE $(extract_key "$1")"
	fi
}

recipe_prepare() {
	cc_glibc "$1" "$2/init" "$IMAGES_DIR/minimal/init.c" ||
		die "compiling init.c for $1 failed"
	busybox_for "$1" >"$2/busybox.path"
}

recipe_populate() {
	_root=$3
	populate_skeleton "$_root"
	install_busybox "$1" "$(cat "$2/busybox.path")" "$_root"
	rm -f "$_root/sbin/init"
	install -m 0755 "$2/init" "$_root/sbin/init"
}
