#!/bin/bash
# check-series.sh - build every prefix of the kernel/patches series
#
# Usage: kernel/check-series.sh [-f FIRST] [-l LAST] [-a ARCHES] [-m] [-b]
#
#   -f FIRST   first patch to build (number in series, 1-based; default 1)
#   -l LAST    last patch to build (default: the last one)
#   -a ARCHES  comma-separated subset of x86_64,arm64 (default: both)
#   -m         also build the modules, not only linux
#   -b         boot every x86_64 build natively: the minimal image
#              (images/build.sh minimal amd64) through the boot-minimal
#              gate, in ptrace mode; "boot=OK|FAIL" joins the line
#
# The series is applied with quilt, one patch at a time, to a scratch copy
# of /usr/src/linux-source-7.2.tar.xz ($UMARM_CACHE/check/src).  After each
# push, linux is built for x86_64 and, from the first patch that provides
# arch/um/configs/arm64_defconfig, for arm64 (4 KiB pages), each in its own
# build directory ($UMARM_CACHE/check/ARCH), incrementally and with ccache.
# Every build takes $UMARM_CACHE/kernel.lock, like kernel/build.sh.
#
# Prints one line per patch: "NN name x86_64=OK|FAIL arm64=OK|FAIL|not-yet|-"
# and a summary.  The arm64 subarch is added over several patches and links
# only once complete: until its first successful build a failure is
# "not-yet" (not counted), from then on every patch must build.  A range
# that starts after the patch adding arm64_defconfig counts every arm64
# failure.  The log of each build is kept in $UMARM_CACHE/check/logs.
# Exits 1 if any build failed, 2 on usage errors.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
patches=$here/patches
configs=$here/config
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-7.2.tar.xz}
UMARM_CACHE=${UMARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linux-uml-arm64}
JOBS=${JOBS:-$(nproc)}
work=$UMARM_CACHE/check
src=$work/src
logs=$work/logs

die() { echo "kernel/check-series.sh: $*" >&2; exit 2; }

usage() {
	sed -n '3,3p' "$0" | sed 's/^# //' >&2
	exit 2
}

first=1
last=
arches=x86_64,arm64
modules=
boot=
while getopts "f:l:a:mb" opt; do
	case $opt in
	f) first=$OPTARG ;;
	l) last=$OPTARG ;;
	a) arches=$OPTARG ;;
	m) modules=modules ;;
	b) boot=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage

mapfile -t series < <(grep -v '^[[:space:]]*\(#\|$\)' "$patches/series" |
			awk '{print $1}')
[ ${#series[@]} -gt 0 ] || die "kernel/patches/series is empty"
[ -n "$last" ] || last=${#series[@]}
if [ "$first" -lt 1 ] || [ "$last" -gt ${#series[@]} ] ||
   [ "$first" -gt "$last" ]; then
	die "patch range $first..$last is outside 1..${#series[@]}"
fi

if command -v clang-19 >/dev/null; then
	LLVM=${LLVM:--19}
else
	LLVM=${LLVM:-1}
fi
cc="clang${LLVM#1}"
[ "$LLVM" = 1 ] && cc=clang
if command -v ccache >/dev/null; then
	cc="ccache $cc"
fi

mkdir -p "$work" "$logs"

# A scratch tree: unpacked once, then only quilt moves in it.
if [ ! -f "$src/Makefile" ]; then
	[ -f "$tarball" ] || die "$tarball is missing: install linux-source-7.2"
	rm -rf "$src" "$work/.unpack"
	mkdir -p "$work/.unpack"
	tar -C "$work/.unpack" -xf "$tarball"
	mv "$work/.unpack/linux-source-7.2" "$src"
	rmdir "$work/.unpack"
fi

export QUILT_PATCHES=$patches QUILT_PC=.pc
if [ -d "$src/.pc" ]; then
	# quilt prefers the patches directory it recorded at the last push,
	# which may be a checkout that is gone; -f: restore from quilt's own
	# backups even where the patches changed since.
	rm -f "$src/.pc/.quilt_patches" "$src/.pc/.quilt_series"
	(cd "$src" && quilt pop -a -f -q >/dev/null) ||
		die "quilt pop -a failed in $src; remove it to start over"
fi

# kmake SUBARCH OUT ARGS... - make in the scratch tree, under the lock
kmake() {
	local subarch=$1 out=$2
	shift 2
	flock "$UMARM_CACHE/kernel.lock" \
		make -C "$src" O="$out" ARCH=um SUBARCH="$subarch" LLVM="$LLVM" \
		CC="$cc" HOSTCC="$cc" -j"$JOBS" "$@"
}

# build ARCH LOG - configure (once) and build linux for ARCH; 0 on success
build() {
	local arch=$1 log=$2 subarch out fragments
	case $arch in
	x86_64) subarch=x86 ;;
	arm64) subarch=arm64 ;;
	*) die "unknown arch $arch" ;;
	esac
	out=$work/$arch
	mkdir -p "$out"
	fragments=("$configs/common.config" "$configs/containers.config")
	[ ! -f "$configs/$subarch.config" ] || fragments+=("$configs/$subarch.config")
	fragments+=("$configs/4k.config")
	{
		# Configured at every patch, so that options a patch makes
		# available (USB once the iomem emulation exists) are built
		# from that patch on; an unchanged result rebuilds nothing.
		kmake "$subarch" "$out" -s defconfig &&
		(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m \
			-O "$out" .config "${fragments[@]}" >/dev/null) &&
		kmake "$subarch" "$out" -s olddefconfig &&
		kmake "$subarch" "$out" linux $modules
	} >"$log" 2>&1
}

# boot_x86 LOG - the boot-minimal gate with the x86_64 linux just built;
# it passes only on the marker its init prints, with no kernel bug line
boot_x86() {
	env KERNEL="$work/x86_64/linux" IMAGE="$minimal_image" BOOT_ARGS=seccomp=off \
		GATE_NAME="check-series" ARTIFACTS="$work/boots" \
		"$here/../tests/autopkgtest/boot-minimal" >"$1" 2>&1
}

want() {
	case ",$arches," in
	*",$1,"*) return 0 ;;
	*) return 1 ;;
	esac
}

if [ -n "$boot" ]; then
	minimal_image=$("$here/../images/build.sh" minimal amd64 | tail -n 1) ||
		die "cannot build the minimal amd64 image for -b"
fi

failed=0
built=0
arm64_from=
arm64_before=
for i in "${!series[@]}"; do
	n=$((i + 1))
	p=${series[$i]}
	(cd "$src" && quilt push -q --fuzz=0 >/dev/null) ||
		die "$p does not apply (patch $n)"
	if [ "$n" -lt "$first" ]; then
		# The subarch began before the range: it must build throughout.
		[ ! -f "$src/arch/um/configs/arm64_defconfig" ] || arm64_before=1
		continue
	fi
	[ "$n" -le "$last" ] || break

	line=$(printf '%02d %s' "$n" "${p%.patch}")
	for arch in x86_64 arm64; do
		if ! want "$arch"; then
			line="$line $arch=-"
			continue
		fi
		if [ "$arch" = arm64 ] &&
		   [ ! -f "$src/arch/um/configs/arm64_defconfig" ]; then
			line="$line $arch=-"
			continue
		fi
		log=$logs/$(printf '%02d' "$n")-${p%.patch}.$arch.log
		if build "$arch" "$log"; then
			line="$line $arch=OK"
			[ "$arch" != arm64 ] || [ -n "$arm64_from" ] || arm64_from=$n
			if [ -n "$boot" ] && [ "$arch" = x86_64 ]; then
				if boot_x86 "$log.boot"; then
					line="$line boot=OK"
				else
					line="$line boot=FAIL"
					failed=$((failed + 1))
				fi
			fi
		elif [ "$arch" = arm64 ] && [ -z "$arm64_from" ] && [ -z "$arm64_before" ]; then
			# The subarch grows patch by patch; it links once
			# complete, and must build from then on.
			line="$line $arch=not-yet"
		else
			line="$line $arch=FAIL"
			failed=$((failed + 1))
		fi
		built=$((built + 1))
	done
	echo "$line"
done

[ -z "$arm64_from" ] || echo "arm64 builds from patch $arm64_from on"
echo "$built builds, $failed failed (logs: $logs)"
[ "$failed" -eq 0 ]
