#!/bin/bash
# check-containers.sh - does a kernel .config have what docker needs?
#
# Usage: tests/kernel-config/check-containers.sh [-c CHECK_CONFIG] [-o OUT] CONFIG
#
# Runs the check-config.sh that Debian's docker.io ships on CONFIG (a
# flavour's .config, e.g. "$(kernel/build.sh path arm64-4k)/.config") and
# fails when an option of its "Generally Necessary" section is missing.
# Its "Optional Features" are shown, not judged: kernel/config/
# containers.config says which of them are left out and why.
#
#   -c CHECK_CONFIG  docker.io's check-config.sh; default: the installed
#                    /usr/share/docker.io/contrib/check-config.sh, else the
#                    one of the newest docker.io apt knows, downloaded with
#                    apt-get download (docker.io itself is not installed)
#   -o OUT           also keep check-config.sh's output in OUT (an artifact)
#
# The lines of check-config.sh that look at the running system (cgroup
# hierarchy, AppArmor, keys limit) describe the machine that runs this
# script, not CONFIG: they are shown, not judged.  Exit status: 0 if no
# necessary option is missing, 1 if one is, 2 on a usage or setup error.
set -eu

installed=/usr/share/docker.io/contrib/check-config.sh

die() { echo "check-containers.sh: $*" >&2; exit 2; }

usage() {
	sed -n '4p' "$0" | sed 's/^# //' >&2
	exit 2
}

# fetch_check_config DIR - print the path of the newest docker.io's
# check-config.sh, unpacked in DIR; apt-get download leaves the host's
# packages alone
fetch_check_config() {
	local dir=$1 version
	version=$(apt-cache madison docker.io 2>/dev/null | awk 'NR == 1 { print $3 }')
	[ -n "$version" ] ||
		die "apt knows no docker.io: run 'apt-get update', or give -c PATH"
	(cd "$dir" && apt-get download -q "docker.io=$version" >/dev/null 2>&1) ||
		die "apt-get download docker.io=$version failed: give -c PATH to a check-config.sh"
	echo "check-containers.sh: check-config.sh of docker.io $version" >&2
	dpkg-deb -x "$dir"/docker.io_*.deb "$dir/root"
	[ -f "$dir/root$installed" ] ||
		die "docker.io $version has no $installed: give -c PATH"
	echo "$dir/root$installed"
}

# necessary_missing REPORT - the CONFIG_ options that the "Generally
# Necessary" section of a check-config.sh report calls missing
necessary_missing() {
	sed -n '/^Generally Necessary:/,/^Optional Features:/p' "$1" |
		sed -n 's/^- \(CONFIG_[A-Z0-9_]*\): missing$/\1/p' | sort -u
}

check_config='' out=''
while getopts c:o: opt; do
	case $opt in
	c) check_config=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
config=$1
[ -f "$config" ] || die "$config does not exist: give a kernel .config (kernel/build.sh config FLAVOUR makes one)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$check_config" ]; then
	if [ -f "$installed" ]; then
		check_config=$installed
	else
		check_config=$(fetch_check_config "$tmp")
	fi
fi
[ -f "$check_config" ] || die "$check_config does not exist: give -c PATH to docker.io's check-config.sh"

# check-config.sh fails on any missing optional feature and on the host's
# own state, so its status says nothing here; the colour codes of older
# versions (which ignore NO_COLOR) are stripped
NO_COLOR=1 bash "$check_config" "$config" 2>&1 </dev/null |
	sed 's/\x1b\[[0-9;]*m//g' >"$tmp/report" || true
[ -z "$out" ] || cp "$tmp/report" "$out"
cat "$tmp/report"
echo

grep -q '^- CONFIG_[A-Z0-9_]*: ' "$tmp/report" ||
	die "$check_config printed no CONFIG_ line: not docker.io's check-config.sh, or its format changed"
grep -q '^Generally Necessary:' "$tmp/report" ||
	die "$check_config printed no 'Generally Necessary:' section: its format changed"

missing=''
for sym in $(necessary_missing "$tmp/report"); do
	missing="$missing $sym"
done
if [ -n "$missing" ]; then
	echo "FAIL: $config lacks options docker calls generally necessary:$missing"
	echo "  add them to kernel/config/containers.config (or say there why not)"
	exit 1
fi
echo "OK: $config has every option docker calls generally necessary"
