#!/bin/bash
# devtree.sh - edit kernel/patches as git commits
#
# Usage: kernel/devtree.sh import DIR    series -> git tree in DIR
#        kernel/devtree.sh export DIR    git tree in DIR -> series
#
# import unpacks the pristine /usr/src/linux-source-7.2.tar.xz into DIR, commits
# it as the base (tagged umarm-base) and applies every patch of
# kernel/patches/series with "git am", one commit per patch.  Edit, rebase,
# add commits there (every commit: Signed-off-by, one change).
#
# export writes the commits umarm-base..HEAD back as kernel/patches/*.patch
# (git format-patch, file names without numbers) and regenerates series in
# commit order; patches that are no longer part of the series are removed.
# Each file gets a "Forwarded: no" header (DEP-3; none is posted yet).
# Other files there (0000-cover-letter.txt) are left alone.
#
# Notes for reviewers go below a "---" line after the Signed-off-by of the
# commit message; format-patch writes them below the "---" of the patch,
# where "git am" and quilt ignore them.  git am drops them from the commit,
# so import puts them back, and they survive import and export.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
patches=$here/patches
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-7.2.tar.xz}

die() { echo "kernel/devtree.sh: $*" >&2; exit 1; }

# notes_of PATCH: the reviewer notes of a format-patch file, the lines
# between the first "---" line and the last one before the diff (the one
# format-patch writes before the diffstat); nothing if there are none.
notes_of() {
	awk '
	/^diff --git / { exit }
	seen && /^---[[:space:]]*$/ { last = n }
	seen { line[++n] = $0; next }
	/^---[[:space:]]*$/ { seen = 1 }
	END { for (i = 1; i <= last; i++) print line[i] }
	' "$1"
}

# restore_notes DIR PATCH: git am cuts the commit message at the first
# "---"; append the notes of PATCH to the commit it just made at HEAD.
restore_notes() {
	local dir=$1 patch=$2 notes message
	notes=$(notes_of "$patch")
	[ -n "$notes" ] || return 0
	message=$(git -C "$dir" log -1 --format=%B)
	printf '%s\n---\n%s\n' "$message" "$notes" |
		git -C "$dir" commit -q --amend --no-verify --cleanup=verbatim -F -
}

usage() {
	sed -n '3,4p' "$0" | sed 's/^# //' >&2
	exit 2
}

git_id() {
	git -C "$1" config user.email >/dev/null ||
		git -C "$1" config user.email "dev@linux-uml-arm64.invalid"
	git -C "$1" config user.name >/dev/null ||
		git -C "$1" config user.name "linux-uml-arm64 developer"
}

do_import() {
	local dir=$1
	[ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] ||
		die "$dir exists and is not empty: pick a new directory"
	[ -f "$tarball" ] || die "$tarball is missing: run 'make deps'"
	mkdir -p "$dir"
	tar -C "$dir" --strip-components=1 -xf "$tarball"
	# Debian's tree ignores everything ("/*" in .gitignore); git must not.
	rm -f "$dir/.gitignore"
	git -C "$dir" init -q -b umarm
	git_id "$dir"
	git -C "$dir" add -A -f .
	git -C "$dir" commit -q -m "linux-source-7.2 $(dpkg-query -W -f '${Version}' linux-source-7.2 2>/dev/null || echo unknown)"
	git -C "$dir" tag umarm-base
	grep -v '^[[:space:]]*\(#\|$\)' "$patches/series" | awk '{print $1}' |
		while read -r p; do
			git -C "$dir" am -q --keep-cr "$patches/$p" ||
				die "git am $p failed; the tree is left in $dir"
			restore_notes "$dir" "$patches/$p"
		done
	echo "$dir: $(git -C "$dir" rev-list --count umarm-base..HEAD) patches on umarm-base"
}

do_export() {
	local dir=$1 n
	git -C "$dir" rev-parse -q --verify umarm-base >/dev/null ||
		die "$dir has no umarm-base tag: create it with 'import'"
	[ -z "$(git -C "$dir" status --porcelain --untracked-files=no)" ] ||
		die "$dir has uncommitted changes: commit them first"
	# global: the EXIT trap runs after this function has returned
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# --abbrev=9: the index lines' hash length must not depend on whether
	# the tree's objects are packed yet (7 digits in a fresh import)
	# "Forwarded: no" makes each file a DEP-3 patch header (From is its
	# Author, Subject and body its Description); git am and quilt ignore
	# it.
	git -C "$dir" format-patch -q --no-signature --zero-commit \
		--no-numbered --abbrev=9 --add-header="Forwarded: no" \
		-o "$tmp" umarm-base..HEAD
	: >"$tmp/series.new"
	for f in "$tmp"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -e "$f" ] || continue
		n=$(basename "$f" | sed 's/^[0-9]\{4\}-//')
		[ ! -e "$tmp/$n" ] || die "two commits give the same file name $n"
		mv "$f" "$tmp/$n"
		echo "$n" >>"$tmp/series.new"
	done
	rm -f "$patches"/*.patch
	if [ -s "$tmp/series.new" ]; then
		mv "$tmp"/*.patch "$patches/"
	fi
	mv "$tmp/series.new" "$patches/series"
	echo "kernel/patches: $(wc -l <"$patches/series") patches exported from $dir"
}

[ $# -eq 2 ] || usage
case $1 in
import) do_import "$2" ;;
export) do_export "$2" ;;
*) usage ;;
esac
