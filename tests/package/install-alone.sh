#!/bin/bash
# tests/package/install-alone.sh - each binary package installed on its own,
# as "apt install PACKAGE" would, into a fresh arm64 sid system
#
# Usage: tests/package/install-alone.sh DEBDIR OUTDIR [PACKAGE...]
#
# DEBDIR holds a build's .debs (dbgsym packages are left out); they become
# a flat apt repository (OUTDIR/repo, apt-ftparchive) beside Debian's sid.
# For each package (all of DEBDIR without PACKAGE arguments), mmdebstrap
# makes a fresh sid arm64 system (variant apt, under qemu-user on a foreign
# host) with `--include=PACKAGE` and apt's default of installing
# Recommends, then records in OUTDIR/PACKAGE.installed which of this
# source's packages came in, and fails the package when apt cannot install
# it, `dpkg --audit` finds a half-installed package or PACKAGE is not "ii".
# Issue 20: "installation of each package alone in a fresh arm64 testbed".
# Prints INSTALL-ALONE-OK / INSTALL-ALONE-FAIL per package, and exits 1 if
# any failed.  Needs mmdebstrap, apt-ftparchive (apt-utils), and on a
# non-arm64 host arch-test and qemu-user-binfmt.  MIRROR (deb.debian.org)
# and SUITE (sid) as for the project's other sid systems.
set -u
export LC_ALL=C

die() { echo "install-alone: $*" >&2; exit 2; }

[ $# -ge 2 ] || { sed -n '5p' "$0" | sed 's/^# //' >&2; exit 2; }
debdir=$(cd "$1" 2>/dev/null && pwd) || die "$1 is not a directory"
mkdir -p "$2" || die "cannot create $2"
out=$(cd "$2" && pwd)
shift 2
mirror=${MIRROR:-http://deb.debian.org/debian}
suite=${SUITE:-sid}

# make_repo - OUTDIR/repo: the non-dbgsym .debs and their Packages index
make_repo() {
	local d
	rm -rf "$out/repo"
	mkdir -p "$out/repo"
	for d in "$debdir"/*.deb; do
		[[ $d == *-dbgsym_* ]] || cp "$d" "$out/repo/"
	done
	ls "$out/repo"/*.deb >/dev/null 2>&1 || die "no .deb in $debdir"
	(cd "$out/repo" && apt-ftparchive packages . >Packages) ||
		die "apt-ftparchive failed in $out/repo"
}

# ours - the names of this source's packages in the repository
ours() {
	sed -n 's/^Package: //p' "$out/repo/Packages" | sort -u
}

# release_repo_mounts - when apt fails during mmdebstrap's setup, the
# file-mirror-automount hook's bind mount of OUTDIR/repo stays in
# mmdebstrap's temporary directory: unmount it, then remove that directory
# (nothing else is mounted there by then)
release_repo_mounts() {
	local m dir
	awk -v r="$out/repo" '$2 ~ "^/tmp/mmdebstrap[.]" && substr($2, length($2) - length(r) + 1) == r { print $2 }' \
		/proc/mounts | while read -r m; do
		umount "$m" || continue
		dir=${m%"$out/repo"}
		grep -q " $dir/" /proc/mounts || rm -rf "$dir"
	done
}

# install_one PACKAGE - a fresh system with PACKAGE; 0 when it is installed
# (pattern: ours, as an extended regular expression's alternatives)
install_one() {
	local p=$1 rc=0
	mmdebstrap --variant=apt --arch=arm64 \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--aptopt='APT::Install-Recommends "true"' \
		--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
		--include="$p" \
		--customize-hook="chroot \"\$1\" dpkg-query -W -f '\${db:Status-Abbrev} \${Package} \${Version}\n' | grep -E ' ($pattern) ' >'$out/$p.installed'" \
		--customize-hook="chroot \"\$1\" dpkg --audit >'$out/$p.audit' 2>&1" \
		"$suite" /dev/null "$mirror" "deb [trusted=yes] file://$out/repo ./" \
		>"$out/$p.log" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		release_repo_mounts
		echo "INSTALL-ALONE-FAIL $p: mmdebstrap exited with $rc (see $out/$p.log)"
		return 1
	fi
	if [ -s "$out/$p.audit" ]; then
		echo "INSTALL-ALONE-FAIL $p: dpkg --audit: $(head -n 3 "$out/$p.audit" | tr '\n' ' ')"
		return 1
	fi
	if ! grep -q "^ii  $p " "$out/$p.installed"; then
		echo "INSTALL-ALONE-FAIL $p: not installed ($(tr '\n' ';' <"$out/$p.installed"))"
		return 1
	fi
	echo "INSTALL-ALONE-OK $p: $(awk -v p="$p" '$2 != p { w = w " " $2 }
		END { print w == "" ? "no other package of this source" : "with" w }' "$out/$p.installed")"
}

make_repo
pattern=$(ours | paste -sd'|')
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || mapfile -t pkgs < <(ours)
rc=0
for p in "${pkgs[@]}"; do
	ours | grep -qx "$p" || die "$p is not a package of $debdir"
	install_one "$p" || rc=1
done
exit "$rc"
