# shellcheck shell=sh
# debian-docker - the debian image plus Debian's docker.io, for containers
#
# The same mmdebstrap run and UML customisation as the debian recipe
# (sourced from images/debian/, not copied), with debian-docker/packages
# added to debian/packages: a rootfs tarball of its own,
# debian-docker-SUITE-ARCH.tar.zst, whose key hashes both lists.  Then
# customize.sh's changes, and the docker ones of docker.sh.

SUITE=${SUITE:-sid}
ROOTFS_NAME=debian-docker
ROOTFS_PACKAGES="$IMAGES_DIR/debian/packages $IMAGES_DIR/debian-docker/packages"

# shellcheck source=images/debian/recipe.sh
. "$IMAGES_DIR/debian/recipe.sh"
# shellcheck source=images/debian-docker/docker.sh
. "$IMAGES_DIR/debian-docker/docker.sh"

recipe_describe() {
	echo "Debian SUITE=sid|trixie|bookworm minbase + systemd + docker.io, 4 GiB sparse"
}

recipe_image_name() {
	case $SUITE in
	sid|trixie|bookworm) ;;
	*) die "SUITE=$SUITE: use sid, trixie or bookworm" ;;
	esac
	echo "debian-docker-$SUITE-$1"
}

# Room for /var/lib/docker on the instance's disk: images and containers'
# layers live there, on the root ext4 file system.
recipe_size() { echo 4G; }

# The debian recipe's files (customize.sh, the overlay, recipe.sh): a
# change there makes a new image of this recipe too.
recipe_sources() { recipe_dir_files "$IMAGES_DIR/debian"; }

recipe_populate() {
	unpack_rootfs "$(cat "$2/rootfs.path")" "$3"
	customize "$3"
	customize_docker "$3"
}
