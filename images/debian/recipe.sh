# shellcheck shell=sh
# debian - Debian minbase + systemd, for UML; SUITE=sid|trixie|bookworm

SUITE=${SUITE:-sid}

# shellcheck source=images/debian/mmdebstrap.sh
. "$IMAGES_DIR/debian/mmdebstrap.sh"
# shellcheck source=images/debian/customize.sh
. "$IMAGES_DIR/debian/customize.sh"

recipe_describe() {
	echo "Debian SUITE=sid|trixie|bookworm minbase + systemd, 2 GiB sparse"
}

recipe_image_name() {
	case $SUITE in
	sid|trixie|bookworm) ;;
	*) die "SUITE=$SUITE: use sid, trixie or bookworm" ;;
	esac
	echo "debian-$SUITE-$1"
}

recipe_size() { echo 2G; }
recipe_sources() { :; }

recipe_inputs() {
	echo "rootfs $SUITE $1 $(rootfs_key "$SUITE" "$1")"
}

recipe_prepare() {
	rootfs_tarball "$SUITE" "$1" >"$2/rootfs.path"
}

recipe_populate() {
	unpack_rootfs "$(cat "$2/rootfs.path")" "$3"
	customize "$3"
}
