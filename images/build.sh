#!/bin/sh
# build.sh - build a guest root file system image for UML, cached
#
# Usage: images/build.sh NAME [ARCH]
#        images/build.sh --list
#
# NAME is a recipe (a directory next to this script with a recipe.sh),
# ARCH is arm64 (default) or amd64.  The image is an ext4 file made with
# mkfs.ext4 -d (no loop mounts), kept in $UMARM_CACHE/images/ (default
# ${XDG_CACHE_HOME:-~/.cache}/linux-uml-arm64/images/).  It is rebuilt only when its key
# changes: a hash of build.sh, lib.sh, the recipe's files and its inputs
# (compiler and package versions, suite, tarball), stored next to the image
# as IMAGE.key.  A new image is built into a temporary file and renamed.
#
# Progress goes to stderr; the last line on stdout is the image's absolute
# path.  Environment: UMARM_CACHE, SUITE (debian), ALPINE_TARBALL (alpine),
# MIRROR (Debian mirror), EXTRACT_SUITE (where minimal/musl take Debian
# packages from, default sid), UMARM_MINIMAL_INIT (minimal: a prebuilt
# static init instead of compiling init.c).  Runs as root, or as a user
# under fakeroot (the debian recipe then needs mmdebstrap's unshare mode).
#
# The same files are installed by the umarmctl package as
# /usr/share/umarm/images/ (without alpine), where umarmctl runs them.

set -eu

IMAGES_DIR=$(cd "$(dirname "$0")" && pwd)
CACHE_DIR=${UMARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linux-uml-arm64}
# mkfs.ext4, mknod: a user's PATH on Debian has no sbin directories.
PATH=$PATH:/usr/sbin:/sbin
export PATH
IMG_DIR=$CACHE_DIR/images
export IMAGES_DIR CACHE_DIR IMG_DIR

# shellcheck source=images/lib.sh
. "$IMAGES_DIR/lib.sh"

usage() {
	echo "usage: $0 NAME [arm64|amd64]   (NAME: $(recipes | tr '\n' ' '))" >&2
	echo "       $0 --list" >&2
	exit 2
}

# recipes - the recipe names, one a line
recipes() {
	for _r in "$IMAGES_DIR"/*/recipe.sh; do
		_r=${_r%/recipe.sh}
		echo "${_r##*/}"
	done
}

# load_recipe NAME - source NAME's recipe.sh, which defines:
#   recipe_describe          one line for --list
#   recipe_image_name ARCH   image file name without .ext4
#   recipe_size              mkfs.ext4 size (sparse)
#   recipe_sources           files outside the recipe directory it uses
#   recipe_inputs ARCH       lines naming its inputs, for the key (cheap)
#   recipe_prepare ARCH WORK what needs no root: fetch, compile into WORK
#   recipe_populate ARCH WORK ROOT   fill ROOT (as root or under fakeroot)
load_recipe() {
	[ -f "$IMAGES_DIR/$1/recipe.sh" ] || usage
	RECIPE=$1
	RECIPE_DIR=$IMAGES_DIR/$1
	# shellcheck source=/dev/null
	. "$RECIPE_DIR/recipe.sh"
}

# recipe_key ARCH - the image key: recipe files and inputs, hashed
recipe_key() {
	{
		echo "recipe $RECIPE $1"
		# shellcheck disable=SC2046
		hash_files "$IMAGES_DIR/build.sh" "$IMAGES_DIR/lib.sh" \
			$(recipe_dir_files "$RECIPE_DIR") $(recipe_sources)
		recipe_inputs "$1"
	} | sha256sum | cut -d' ' -f1
}

list() {
	for _n in $(recipes); do
		(load_recipe "$_n" && printf '%-8s %s\n' "$_n" "$(recipe_describe)")
	done
}

# assemble ARCH WORK ROOT OUT SIZE - populate ROOT and make the image OUT
assemble() {
	recipe_populate "$1" "$2" "$3"
	# Under fakeroot (a user's build) the files are really the user's,
	# with the modes the image is to record: one that is 0000 there (sid's
	# /etc/gshadow-) is unreadable for mkfs.ext4 -d ("Permission denied
	# while opening gshadow- to copy").  Give the user access below
	# fakeroot (chmod without its LD_PRELOAD), so its database, and so the
	# image, keep the original mode.  One chmod per node, as find reaches
	# it: a 0000 directory must be opened before find descends into it.
	if [ -n "${FAKEROOTKEY:-}" ]; then
		find "$3" \( \( -type f ! -perm -u=r \) -o \( -type d ! -perm -u=rx \) \) \
			-exec env -u LD_PRELOAD chmod u+rX {} \; ||
			die "cannot make $3 readable for mkfs.ext4"
	fi
	mkfs.ext4 -q -F -L "umarm-$RECIPE" -d "$3" "$4" "$5" >&2 ||
		die "mkfs.ext4 -d $3 failed"
}

main() {
	[ $# -ge 1 ] || usage
	case $1 in
	--list) list; exit 0 ;;
	--assemble)
		# Internal: the root-needing half, re-run under fakeroot.
		shift
		load_recipe "$1"
		shift
		assemble "$@"
		exit 0 ;;
	-h|--help) usage ;;
	esac
	[ $# -le 2 ] || usage
	load_recipe "$1"
	arch=${2:-arm64}
	arch_triplet "$arch" >/dev/null

	name=$(recipe_image_name "$arch")
	img=$IMG_DIR/$name.ext4
	mkdir -p "$IMG_DIR"
	exec 9>"$IMG_DIR/.$name.lock"
	flock 9

	key=$(recipe_key "$arch")
	if [ -f "$img" ] && [ "$(head -n1 "$img.key" 2>/dev/null)" = "$key" ]
	then
		log "$name is up to date"
		echo "$img"
		exit 0
	fi

	need mkfs.ext4 e2fsprogs
	[ "$(id -u)" = 0 ] || need fakeroot fakeroot
	start=$(date +%s)
	work=$(mktemp -d "$IMG_DIR/.work-$name.XXXXXX")
	# shellcheck disable=SC2154 # rc is set inside the trap
	trap 'rc=$?; rm -rf "$work"; [ $rc = 0 ] || log "$name: FAILED"' EXIT
	trap 'exit 1' INT TERM HUP
	log "building $name ($(recipe_describe))"
	recipe_prepare "$arch" "$work"
	mkdir "$work/root"
	if [ "$(id -u)" = 0 ]; then
		assemble "$arch" "$work" "$work/root" "$work/image" \
			"$(recipe_size)"
	else
		fakeroot -- "$IMAGES_DIR/build.sh" --assemble "$RECIPE" \
			"$arch" "$work" "$work/root" "$work/image" \
			"$(recipe_size)"
	fi
	{ echo "$key"; recipe_inputs "$arch"; } >"$work/key"
	mv "$work/image" "$img"
	mv "$work/key" "$img.key"
	log "$name built in $(elapsed "$start") s:" \
		"$(du -h "$img" | cut -f1) used of $(du -h --apparent-size "$img" |
		cut -f1)"
	echo "$img"
}

main "$@"
