# shellcheck shell=sh
# mmdebstrap.sh - the Debian rootfs tarball the debian images start from
#
# Sourced by recipe.sh, and by the recipes of other Debian images (e.g.
# debian-docker), which set before calling:
#
#   ROOTFS_NAME      the tarball's name, ROOTFS_NAME-SUITE-ARCH.tar.zst
#                    (default debian)
#   ROOTFS_PACKAGES  the package lists to install, files with one package
#                    a line (default debian/packages)
#
# Changing this file or a package list makes a new tarball (minutes); the
# overlay and customize.sh only make a new image from the cached tarball
# (seconds).

ROOTFS_NAME=${ROOTFS_NAME:-debian}
ROOTFS_PACKAGES=${ROOTFS_PACKAGES:-$IMAGES_DIR/debian/packages}

# rootfs_key SUITE ARCH - the tarball's cache key: the package lists are
# hashed, so a package added to any of them makes a new tarball
rootfs_key() {
	{
		echo "$ROOTFS_NAME rootfs $1 $2 $MIRROR"
		# shellcheck disable=SC2086 # ROOTFS_PACKAGES: a list of files
		hash_files "$IMAGES_DIR/debian/mmdebstrap.sh" $ROOTFS_PACKAGES
	} | sha256sum | cut -c1-16
}

# rootfs_mode - mmdebstrap's mode: unshare (no root needed) when user
# namespaces work here, root mode as root otherwise
rootfs_mode() {
	if unshare --user --map-root-user true 2>/dev/null; then
		echo unshare
	elif [ "$(id -u)" = 0 ]; then
		echo root
	else
		die "mmdebstrap needs user namespaces (unshare mode) or root"
	fi
}

# rootfs_tarball SUITE ARCH - print the path of the rootfs tarball for
# SUITE and ARCH, running mmdebstrap first if it is missing or stale
rootfs_tarball() {
	_suite=$1 _arch=$2
	_key=$(rootfs_key "$_suite" "$_arch")
	_tar=$CACHE_DIR/rootfs/$ROOTFS_NAME-$_suite-$_arch.tar.zst
	if [ -f "$_tar" ] && [ "$(cat "$_tar.key" 2>/dev/null)" = "$_key" ]; then
		echo "$_tar"
		return
	fi
	# mmdebstrap compresses the .tar.zst with zstd, and fails late
	# (after the downloads) without it
	need zstd zstd
	need mmdebstrap mmdebstrap
	mkdir -p "$CACHE_DIR/rootfs"
	# shellcheck disable=SC2086 # ROOTFS_PACKAGES: a list of files
	_incl=$(cat $ROOTFS_PACKAGES | grep -v -e '^#' -e '^$' | paste -sd, -)
	_mode=$(rootfs_mode)
	if [ "$_mode" = unshare ] && [ "$(id -u)" != 0 ]; then
		# a user's unshare mode maps the image's uids through these
		need newuidmap uidmap
		grep -q "^$(id -un):" /etc/subuid 2>/dev/null ||
			die "$(id -un) has no subordinate uids in /etc/subuid, which mmdebstrap's" \
				"unshare mode needs: sudo usermod --add-subuids 100000-165535" \
				"--add-subgids 100000-165535 $(id -un)"
	fi
	_t0=$(date +%s)
	log "mmdebstrap $ROOTFS_NAME $_suite $_arch ($_mode mode; several minutes for arm64)"
	# Docs, man pages and locales are left out, and the dpkg options stay
	# in the image (/etc/dpkg/dpkg.cfg.d/99mmdebstrap) for later installs.
	mmdebstrap --mode="$_mode" --variant=minbase --arch="$_arch" \
		--include="$_incl" \
		--aptopt="$APT_VALID_UNTIL" \
		--hook-dir=/usr/share/mmdebstrap/hooks/eatmydata \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-include=/usr/share/locale/locale.alias' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		"$_suite" "$_tar.tmp.tar.zst" "$MIRROR" >&2 ||
		{ rm -f "$_tar.tmp.tar.zst"; die "mmdebstrap $_suite $_arch failed"; }
	mv "$_tar.tmp.tar.zst" "$_tar"
	echo "$_key" >"$_tar.key"
	log "rootfs tarball $(du -h "$_tar" | cut -f1) in $(elapsed "$_t0") s"
	echo "$_tar"
}

# unpack_rootfs TARBALL ROOT - unpack the rootfs tarball into ROOT, owners
# and modes as recorded (as root, or under fakeroot for a user's build)
unpack_rootfs() {
	zstd -dc "$1" | tar -C "$2" -xpf - --numeric-owner ||
		die "cannot unpack $1"
}
