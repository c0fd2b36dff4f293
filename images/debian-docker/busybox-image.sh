#!/bin/sh
# busybox-image.sh - a small docker image made from the guest's busybox,
# for when no registry is reachable
#
# Usage: umarm-busybox-image [-t TAG] [-p PAGE] [-o FILE]
#
# Runs in the debian-docker guest, where the recipe installs it as
# /usr/local/bin/umarm-busybox-image (docker.sh); the containers gate and
# umarmctl's integration test run this same file.  It makes a
# docker-archive (what "docker save" writes: manifest.json, a config and
# one layer) with the static busybox of busybox-static, a symlink per
# applet, /www/index.html holding PAGE, /etc/passwd and /etc/group, tagged
# TAG (default umarm-busybox:latest), and loads it with "docker load"; with
# -o it writes the archive to FILE instead (the gate times the load
# itself).  Then, for example:
#
#   docker run --rm umarm-busybox echo hello
#   docker run -d -p 8080:80 umarm-busybox httpd -f -p 80 -h /www
set -eu

tag=umarm-busybox:latest
page="hello from a container in a UML guest"
out=

# usage - how to call this, on stderr; exit 2
usage() {
	echo "usage: ${0##*/} [-t TAG] [-p PAGE] [-o FILE]" >&2
	exit 2
}

# die MESSAGE - say what went wrong and stop
die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# make_layer DIR - the image's one file system tree, in DIR: the busybox
# binary, a symbolic link per applet, the web page, a root user
make_layer() {
	mkdir -p "$1/bin" "$1/www" "$1/tmp" "$1/etc"
	chmod 1777 "$1/tmp"
	cp "$busybox" "$1/bin/busybox"
	for _a in $("$1/bin/busybox" --list); do
		[ "$_a" = busybox ] || ln -s busybox "$1/bin/$_a"
	done
	printf '%s\n' "$page" >"$1/www/index.html"
	echo 'root:x:0:0:root:/:/bin/sh' >"$1/etc/passwd"
	echo 'root:x:0:' >"$1/etc/group"
}

# make_archive LAYER DIR FILE - the docker-archive of the tree LAYER in
# FILE, put together in DIR: the layer's tar named by its digest, a
# config naming that digest, a manifest naming the config and tagging it
make_archive() {
	mkdir -p "$2/layer"
	tar --numeric-owner --owner=0 --group=0 -C "$1" -cf "$2/layer/layer.tar" . ||
		die "cannot tar the layer"
	_diff_id=$(sha256sum "$2/layer/layer.tar" | cut -d' ' -f1)
	mv "$2/layer" "$2/$_diff_id"
	_created=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	printf '{"architecture":"%s","os":"linux","created":"%s","config":{"Env":["PATH=/bin"],"Cmd":["sh"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"%s","created_by":"umarm-busybox-image"}]}\n' \
		"$(dpkg --print-architecture)" "$_created" "$_diff_id" "$_created" \
		>"$2/config.json"
	_config=$(sha256sum "$2/config.json" | cut -d' ' -f1).json
	mv "$2/config.json" "$2/$_config"
	printf '[{"Config":"%s","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]\n' \
		"$_config" "$tag" "$_diff_id" >"$2/manifest.json"
	tar -C "$2" -cf "$3" manifest.json "$_config" "$_diff_id/layer.tar" ||
		die "cannot write $3"
}

while getopts t:p:o: opt; do
	case $opt in
	t) tag=$OPTARG ;;
	p) page=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $tag in
*:*) ;;
*) tag=$tag:latest ;;
esac

busybox=$(command -v busybox) ||
	die "no busybox here: install busybox-static (apt install busybox-static)"
work=$(mktemp -d "${TMPDIR:-/tmp}/umarm-busybox-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
make_layer "$work/layer"
make_archive "$work/layer" "$work/archive" "$work/image.tar"
if [ -n "$out" ]; then
	cp "$work/image.tar" "$out" || die "cannot write $out"
	exit 0
fi
docker load -i "$work/image.tar" ||
	die "docker load failed: is dockerd running (systemctl status docker)?"
