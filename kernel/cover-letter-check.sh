#!/bin/sh
# cover-letter-check.sh - every patch of the series is named in the cover
# letter, so that a reviewer reading it meets every change
#
# Usage: kernel/cover-letter-check.sh [PATCHES_DIR]
#
# PATCHES_DIR (default kernel/patches) holds series, the patches and
# 0000-cover-letter.txt.  A patch is named when its subject (the Subject:
# header without "[PATCH] ", folded lines joined) appears in the letter,
# spaces and line breaks counting as one space.  Prints each patch whose
# subject is missing and exits 1; exits 0 when none is.
set -eu

dir=${1:-$(cd "$(dirname "$0")" && pwd)/patches}
letter=$dir/0000-cover-letter.txt
[ -f "$dir/series" ] || { echo "cover-letter-check: no series in $dir" >&2; exit 2; }
[ -f "$letter" ] || { echo "cover-letter-check: no $letter" >&2; exit 2; }

# subject PATCH - the patch's subject on one line, runs of spaces as one
subject() {
	awk '/^Subject: / { sub(/^Subject: (\[PATCH[^]]*\] )?/, ""); s = $0; on = 1; next }
		on && /^[ \t]/ { s = s $0; next }
		on { exit }
		END { gsub(/[ \t]+/, " ", s); print s }' "$1"
}

# the letter on one line, runs of white space as one space
flat=$(tr -s ' \t\n' '   ' <"$letter")

# names PATCH... - print each PATCH whose subject the letter lacks
names() {
	for p in "$@"; do
		s=$(subject "$dir/$p")
		case $flat in
		*"$s"*) ;;
		*) echo "cover-letter-check: $p ($s) is not in 0000-cover-letter.txt" ;;
		esac
	done
}

# shellcheck disable=SC2046 # series: one file name per line, no spaces
lacking=$(names $(grep -v '^#' "$dir/series"))
[ -z "$lacking" ] || { echo "$lacking"; exit 1; }
