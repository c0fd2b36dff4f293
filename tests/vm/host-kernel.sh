#!/bin/bash
# host-kernel.sh - build a host kernel for the emulated arm64 host that
# Debian does not ship
#
# Usage: tests/vm/host-kernel.sh build|path NAME
#
# NAME is a config fragment tests/vm/NAME.config applied to allnoconfig:
#
#   va39  4 KiB pages, 39-bit user virtual addresses, 3-level tables: the
#         layout of most 4 KiB Android kernels, where UML's TASK_SIZE and
#         everything it places at the top of the address space must fit
#         under 512 GiB.  Debian's arm64 kernels have 48 bits (4K) and
#         47 bits (16K).
#
# Everything is built in (the initrd's insmod of Debian's modules fails
# harmlessly).  The kernel is ARCH=arm64 LLVM=-19 from the pristine
# /usr/src/linux-source-7.2.tar.xz, out of tree in
# $UMARM_CACHE/vm/host-NAME, rebuilt only when the fragment or the source
# changed; build prints the Image's path (its only line on stdout), path
# prints it (exit 1 if it was not built).  ccache is used if installed.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
UMARM_CACHE=${UMARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linux-uml-arm64}
KSRC_TAR=${KSRC_TAR:-/usr/src/linux-source-7.2.tar.xz}

die() { echo "host-kernel.sh: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: host-kernel.sh build|path NAME"
cmd=$1 name=$2
case $name in ''|*[!a-z0-9]*) die "'$name' is not a fragment name" ;; esac
frag=$here/$name.config
[ -f "$frag" ] || die "no $frag"
dir=$UMARM_CACHE/vm/host-$name
image=$dir/build/arch/arm64/boot/Image

# the source tarball's identity, and the key of a build: fragment + source
tarball_id=$(stat -c '%s %Y' "$KSRC_TAR" 2>/dev/null || true)
k=$({ cat "$frag"; echo "$tarball_id"; } | sha256sum | cut -c1-64)
built() { [ -f "$image" ] && [ "$(cat "$dir/key" 2>/dev/null)" = "$k" ]; }

case $cmd in
path)
	built || die "$name is not built: tests/vm/host-kernel.sh build $name"
	echo "$image"
	exit 0
	;;
build) ;;
*) die "usage: host-kernel.sh build|path NAME" ;;
esac

[ -f "$KSRC_TAR" ] || die "no $KSRC_TAR: apt install linux-source-7.2"
if built; then
	echo "$image"
	exit 0
fi
mkdir -p "$dir"
exec 9>"$dir/lock"
flock 9
src=$dir/src
if [ ! -f "$src/Makefile" ] || [ "$(cat "$dir/src.key" 2>/dev/null)" != "$tarball_id" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	tar -xf "$KSRC_TAR" -C "$src" --strip-components=1
	echo "$tarball_id" >"$dir/src.key"
fi
cc=clang-19
command -v ccache >/dev/null && cc="ccache clang-19"
m=(make -C "$src" O="$dir/build" ARCH=arm64 LLVM=-19 CC="$cc")
t0=$(date +%s)
"${m[@]}" KCONFIG_ALLCONFIG="$frag" allnoconfig >"$dir/build.log" 2>&1 ||
	die "allnoconfig failed, see $dir/build.log"
# every line of the fragment must have survived Kconfig
missing=$(grep '^CONFIG_' "$frag" | while read -r l; do
	grep -qx "$l" "$dir/build/.config" || echo "$l"
done)
[ -z "$missing" ] || die "Kconfig did not take: $missing"
"${m[@]}" -j"$(nproc)" Image >>"$dir/build.log" 2>&1 ||
	die "the build failed, see $dir/build.log"
echo "$k" >"$dir/key"
echo "host-kernel.sh: $name built in $(($(date +%s) - t0)) s" >&2
echo "$image"
