#!/bin/bash
# devtree-test.sh - kernel/devtree.sh keeps reviewer notes and the cover letter
#
# Usage: kernel/devtree-test.sh        (DEVTREE=script tests another copy)
#
# Imports a one-patch series into a scratch git tree and exports it again,
# on a tiny stand-in for the linux-source tarball, and checks that
#  - the notes below the patch's "---" are in the imported commit message,
#    below a "---" line after the Signed-off-by,
#  - the exported patch is byte-identical to the one imported (with the
#    DEP-3 "Forwarded: no" header export writes),
#  - export leaves kernel/patches/0000-cover-letter.txt in place.
# Exits 0 if all hold, 1 naming the first that does not.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
devtree=${DEVTREE:-$here/devtree.sh}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "devtree-test: FAIL: $*" >&2; exit 1; }

# the_patch: what git format-patch writes for a commit whose message has
# notes below a "---" line (the second "---" is format-patch's own)
the_patch() {
	cat <<'EOF'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Dev <dev@example.invalid>
Date: Tue, 1 Dec 2026 10:00:00 +0000
Subject: [PATCH] um: Add a second line
Forwarded: no

Body of the change.

Signed-off-by: Dev <dev@example.invalid>
---
checkpatch: a note for reviewers, not for the changelog.

A second paragraph of notes.
---
 f | 1 +
 1 file changed, 1 insertion(+)

diff --git a/f b/f
index d00491fd7..1191247b6 100644
--- a/f
+++ b/f
@@ -1 +1,2 @@
 1
+2
EOF
}

# setup: a copy of the script under test next to a patches/ directory, and
# a tarball holding one file, in the layout of linux-source's
setup() {
	mkdir -p "$tmp/kernel/patches" "$tmp/src/linux-source-7.2"
	cp "$devtree" "$tmp/kernel/devtree.sh"
	the_patch >"$tmp/kernel/patches/um-Add-a-second-line.patch"
	cp "$tmp/kernel/patches/um-Add-a-second-line.patch" "$tmp/original.patch"
	echo um-Add-a-second-line.patch >"$tmp/kernel/patches/series"
	echo "cover letter" >"$tmp/kernel/patches/0000-cover-letter.txt"
	echo 1 >"$tmp/src/linux-source-7.2/f"
	tar -C "$tmp/src" -cJf "$tmp/linux.tar.xz" linux-source-7.2
}

setup
export KERNEL_TARBALL=$tmp/linux.tar.xz
bash "$tmp/kernel/devtree.sh" import "$tmp/tree" >/dev/null
message=$(git -C "$tmp/tree" log -1 --format=%B)
expected=$(sed -n '/^Subject: \[PATCH\] /,/^---$/p' "$tmp/original.patch" |
	sed 's/^Subject: \[PATCH\] //; /^Forwarded: /d')
expected=$expected$'\n'$(sed -n '/^---$/,/^---$/p' "$tmp/original.patch" |
	sed '1d;$d')
[ "$message" = "$expected" ] ||
	fail "import lost the notes below '---'; the commit message is:
$message"
bash "$tmp/kernel/devtree.sh" export "$tmp/tree" >/dev/null
cmp -s "$tmp/original.patch" "$tmp/kernel/patches/um-Add-a-second-line.patch" ||
	fail "export did not give the imported patch back:
$(diff -u "$tmp/original.patch" "$tmp/kernel/patches/um-Add-a-second-line.patch")"
[ -f "$tmp/kernel/patches/0000-cover-letter.txt" ] ||
	fail "export removed 0000-cover-letter.txt"
echo "devtree-test: PASS (notes kept through import and export, cover letter kept)"
