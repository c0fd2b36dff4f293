#!/bin/bash
# build.sh - build a linux-uml-arm64 kernel flavour out of tree
#
# Usage: kernel/build.sh [prepare|config|build|path|clean] FLAVOUR
#
#   FLAVOUR   arm64-4k, arm64-16k or x86_64
#   prepare   unpack /usr/src/linux-source-7.2.tar.xz once, apply the quilt
#             series in kernel/patches (re-applied when the series changes)
#   config    prepare, then .config = subarch defconfig + kernel/config fragments
#   build     config, then build linux and the modules (the default)
#   path      print the output directory of FLAVOUR
#   clean     remove the build directory of FLAVOUR
#
# Results of "build" (OUT = $UMARM_CACHE/kernel/FLAVOUR by default):
#   OUT/linux                 the UML kernel (an executable for the host)
#   OUT/vmlinux               the same with symbols, for addr2line and gdb
#   OUT/.config               the configuration it was built with
#   OUT/modules/lib/modules/VERSION/   the modules (make modules_install)
#
# Environment:
#   UMARM_CACHE  cache root (default ~/.cache/linux-uml-arm64)
#   KSRC         kernel tree to use instead of the cached one (e.g. the tree
#                debian/rules unpacked); it is patched in place with quilt
#   KOUT         build directory instead of $UMARM_CACHE/kernel/FLAVOUR
#   LLVM         passed to kbuild (default -19 where clang-19 exists, else 1)
#   JOBS         parallel jobs (default: number of CPUs)
#   NO_CCACHE=1  do not use ccache
#   EXTRA_CONFIG additional config fragments (paths), merged last
set -eu

here=$(cd "$(dirname "$0")" && pwd)
patches=$here/patches
configs=$here/config

UMARM_CACHE=${UMARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linux-uml-arm64}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-7.2.tar.xz}
JOBS=${JOBS:-$(nproc)}

die() { echo "kernel/build.sh: $*" >&2; exit 1; }
log() { echo "kernel/build.sh: $*" >&2; }

usage() {
	sed -n '3,4p' "$0" | sed 's/^# //' >&2
	exit 2
}

# flavour_vars FLAVOUR - set SUBARCH, fragments and the expected host machine
flavour_vars() {
	case $1 in
	arm64-4k)  SUBARCH=arm64; PAGE=4k;  ELF_MACHINE=aarch64 ;;
	arm64-16k) SUBARCH=arm64; PAGE=16k; ELF_MACHINE=aarch64 ;;
	x86_64)    SUBARCH=x86; PAGE=4k;  ELF_MACHINE=x86-64 ;;
	*) die "unknown flavour '$1': use arm64-4k, arm64-16k or x86_64" ;;
	esac
	FRAGMENTS="$configs/common.config $configs/containers.config"
	[ ! -f "$configs/$SUBARCH.config" ] || FRAGMENTS="$FRAGMENTS $configs/$SUBARCH.config"
	FRAGMENTS="$FRAGMENTS $configs/$PAGE.config"
	for f in ${EXTRA_CONFIG:-}; do
		[ -f "$f" ] || die "EXTRA_CONFIG names $f, which does not exist"
		FRAGMENTS="$FRAGMENTS $f"
	done
}

pick_llvm() {
	if [ -n "${LLVM:-}" ]; then
		return
	fi
	if command -v clang-19 >/dev/null; then
		LLVM=-19
	else
		LLVM=1
	fi
	command -v "clang${LLVM#1}" >/dev/null ||
		die "clang${LLVM#1} not found: run 'make deps' (tools/setup-host.sh)"
}

# series_hash - one hash over the series file and every patch it lists
series_hash() {
	{
		cat "$patches/series"
		grep -v '^[[:space:]]*\(#\|$\)' "$patches/series" | awk '{print $1}' |
			while read -r p; do
				[ -f "$patches/$p" ] || die "series lists $p, which does not exist"
				cat "$patches/$p"
			done
	} | sha256sum | cut -d' ' -f1
}

# prepare_tree - unpack the source once and bring the quilt series up to date
prepare_tree() {
	if [ -z "${KSRC_GIVEN:-}" ]; then
		[ -f "$tarball" ] ||
			die "$tarball is missing: install linux-source-7.2 ('make deps')"
		KSRC=$UMARM_CACHE/src/linux-source-7.2
		if [ ! -f "$KSRC/.umarm-unpacked" ] ||
		   [ "$(cat "$KSRC/.umarm-unpacked")" != "$(stat -c %s.%Y "$tarball")" ]; then
			log "unpacking $tarball"
			rm -rf "$KSRC" "$UMARM_CACHE/src/.unpack"
			mkdir -p "$UMARM_CACHE/src/.unpack"
			tar -C "$UMARM_CACHE/src/.unpack" -xf "$tarball"
			mv "$UMARM_CACHE/src/.unpack/linux-source-7.2" "$KSRC"
			rmdir "$UMARM_CACHE/src/.unpack"
			stat -c %s.%Y "$tarball" >"$KSRC/.umarm-unpacked"
		fi
	fi
	[ -f "$KSRC/Makefile" ] || die "KSRC=$KSRC is not a kernel tree"

	want=$(series_hash)
	have=$(cat "$KSRC/.umarm-series" 2>/dev/null || true)
	[ "$want" = "$have" ] && return 0

	log "applying kernel/patches/series to $KSRC"
	rm -f "$KSRC/.umarm-series"
	export QUILT_PATCHES=$patches QUILT_PC=.pc
	# -f: restore from quilt's own backups even when the patch files have
	# changed since they were pushed (another checkout sharing this cache).
	if [ -d "$KSRC/.pc" ] &&
	   ! (cd "$KSRC" && quilt pop -a -f -q >/dev/null); then
		[ -n "${KSRC_GIVEN:-}" ] &&
			die "quilt pop -a failed in $KSRC; remove it to start over"
		log "quilt pop -a failed: unpacking $tarball again"
		rm -f "$KSRC/.umarm-unpacked"
		prepare_tree
		return
	fi
	# quilt keeps the patches directory of the first push in .pc and
	# prefers it to QUILT_PATCHES: a tree first patched from another
	# checkout would be patched from that checkout's series again
	rm -f "$KSRC/.pc/.quilt_patches" "$KSRC/.pc/.quilt_series"
	if grep -q '^[[:space:]]*[^#[:space:]]' "$patches/series"; then
		if ! (cd "$KSRC" && quilt push -a -q --fuzz=0); then
			die "a patch of kernel/patches/series does not apply (see above)"
		fi
	fi
	echo "$want" >"$KSRC/.umarm-series"
}

kmake() {
	local cc="clang${LLVM#1}"
	# ccache's direct mode misses a new header that shadows an old one
	# earlier in the include path (an overlay in arch/arm64/um/asm): it
	# reused stale objects once; hash the preprocessed source instead.
	export CCACHE_NODIRECT=1
	[ "$LLVM" = 1 ] && cc=clang
	if [ -z "${NO_CCACHE:-}" ] && command -v ccache >/dev/null; then
		set -- CC="ccache $cc" HOSTCC="ccache $cc" "$@"
	fi
	make -C "$KSRC" O="$KOUT" ARCH=um SUBARCH="$SUBARCH" LLVM="$LLVM" \
		-j"$JOBS" "$@"
}

do_config() {
	mkdir -p "$KOUT"
	# Keep the old .config (and its mtime) when the result is the same, so
	# that a build with nothing to do does not resync and relink.
	[ ! -f "$KOUT/.config" ] || cp -p "$KOUT/.config" "$KOUT/.config.prev"
	kmake -s defconfig >/dev/null ||
		die "$FLAVOUR: 'make ARCH=um SUBARCH=$SUBARCH defconfig' failed; for arm64 the subarch patches of kernel/patches must provide arch/arm64/Makefile.um and arch/um/configs/arm64_defconfig"
	# shellcheck disable=SC2086
	(cd "$KOUT" && "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOUT" \
		.config $FRAGMENTS >/dev/null)
	kmake -s olddefconfig
	if [ -f "$KOUT/.config.prev" ] && cmp -s "$KOUT/.config" "$KOUT/.config.prev"; then
		mv "$KOUT/.config.prev" "$KOUT/.config"
	else
		rm -f "$KOUT/.config.prev"
	fi
	check_fragments
}

# check_fragments - every "CONFIG_X=y|m" a fragment asks for must survive,
# unless a later fragment asks otherwise (arm64.config builds in what
# common.config makes modules); the page size defines the flavour, so a
# kernel without it is an error
check_fragments() {
	local bad='' line sym
	local -A want=()
	grep -qx "CONFIG_PAGE_SIZE_${PAGE%k}KB=y" "$KOUT/.config" ||
		die "$FLAVOUR: the series does not offer ${PAGE} pages for SUBARCH=$SUBARCH (CONFIG_PAGE_SIZE_${PAGE%k}KB is not set): the subarch Kconfig must select HAVE_PAGE_SIZE_${PAGE%k}KB"
	for f in $FRAGMENTS; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=*) want[${line%%=*}]=$line ;;
			"# CONFIG_"*" is not set")
				sym=${line#\# }
				unset "want[${sym%% *}]" ;;
			esac
		done <"$f"
	done
	for sym in "${!want[@]}"; do
		grep -qxF "${want[$sym]}" "$KOUT/.config" || bad="$bad ${want[$sym]}"
	done
	[ -z "$bad" ] || log "$FLAVOUR: not set as the fragments ask (unmet dependencies?):$bad"
}

# check_machine FILE - the object must be built for the flavour's host CPU
check_machine() {
	local what
	what=$(file -b "$1")
	case $what in
	*"$ELF_MACHINE"*) ;;
	*) die "$FLAVOUR: $1 is '$what', not $ELF_MACHINE: clang's --target does not reach UML's user objects, stub or link (port-plan 1.2)" ;;
	esac
}

do_build() {
	kmake linux modules
	[ -x "$KOUT/linux" ] || die "$FLAVOUR: no $KOUT/linux after the build"
	check_machine "$KOUT/linux"
	for o in "$KOUT"/arch/um/os-Linux/main.o "$KOUT"/arch/um/kernel/skas/stub_exe; do
		[ -e "$o" ] && check_machine "$o"
	done
	rm -rf "$KOUT/modules"
	kmake -s modules_install INSTALL_MOD_PATH="$KOUT/modules" \
		INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod >/dev/null
	log "$FLAVOUR: $KOUT/linux ($(kmake -s kernelrelease))"
}

[ $# -ge 1 ] || usage
if [ $# -eq 1 ]; then
	cmd=build
	FLAVOUR=$1
else
	cmd=$1
	FLAVOUR=$2
fi
flavour_vars "$FLAVOUR"
KOUT=${KOUT:-$UMARM_CACHE/kernel/$FLAVOUR}
[ -z "${KSRC:-}" ] || KSRC_GIVEN=1

case $cmd in
path)
	echo "$KOUT"
	exit 0 ;;
clean)
	rm -rf "$KOUT"
	exit 0 ;;
prepare|config|build) ;;
*) usage ;;
esac

pick_llvm
mkdir -p "$UMARM_CACHE"
# One tree, one build at a time: the series may be re-applied underneath.
exec 9>"$UMARM_CACHE/kernel.lock"
flock 9

prepare_tree
[ "$cmd" = prepare ] && exit 0
do_config
[ "$cmd" = config ] && exit 0
do_build
