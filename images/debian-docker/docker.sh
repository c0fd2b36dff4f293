# shellcheck shell=sh
# docker.sh - what the debian-docker image changes after customize.sh
#
# Sourced by recipe.sh; runs on the host on the unpacked tree, like
# customize.sh.

# customize_docker ROOT - check that docker.io's maintainer scripts
# enabled its units (dockerd starts at boot, as on any Debian system with
# docker.io): a rootfs without them would boot a guest where "docker"
# finds no daemon, which is better stopped here
customize_docker() {
	for _u in multi-user.target.wants/docker.service \
		sockets.target.wants/docker.socket \
		multi-user.target.wants/containerd.service; do
		[ -L "$1/etc/systemd/system/$_u" ] ||
			die "docker.io's postinst did not enable $_u in the rootfs: rebuild the debian-docker rootfs (rm $CACHE_DIR/rootfs/$ROOTFS_NAME-*)"
	done
	install_busybox_image "$1"
}

# install_busybox_image ROOT - umarm-busybox-image (busybox-image.sh) in
# /usr/local/bin: a first container needs an image, and a guest without a
# registry in reach can make one from its own busybox
install_busybox_image() {
	install -D -m 0755 "$IMAGES_DIR/debian-docker/busybox-image.sh" \
		"$1/usr/local/bin/umarm-busybox-image" ||
		die "cannot install umarm-busybox-image in $1"
}
