#!/bin/bash
# tests/package/native-arm64.sh - the native arm64 build path: the binary
# packages built by dpkg-buildpackage -B inside an arm64 sid system, as an
# arm64 buildd builds them
#
# Usage: tests/package/native-arm64.sh OUTDIR [reduced|full|chroot]
#
# OUTDIR/chroot is made once by mmdebstrap (variant buildd, arm64, sid)
# with the build dependencies of debian/control (apt-get build-dep, no
# profile: the kernels' too).  The committed tree (git archive HEAD) is
# built there by dpkg-buildpackage -B with DEB_BUILD_OPTIONS="nocheck
# parallel=N" (N: NATIVE_JOBS, default the CPUs): no HEADERS_TARGET, the
# kbuild programs of the headers built by the build machine's compiler,
# sid's clang, libc headers and debhelper.  The log is OUTDIR/build.log.
#
# On an x86_64 machine the arm64 system runs under qemu-user (binfmt),
# where clang takes 30 times as long for a C file: clang, ld.lld and the
# llvm tools there run as the amd64 programs of the same Debian version
# (OUTDIR/x86, an amd64 sid system bind-mounted at /x86) behind wrappers
# in /usr/local/bin that give clang aarch64-linux-gnu as its default
# target, as it is on arm64.  Make, the shell, the kbuild programs,
# binutils, dpkg and debhelper stay arm64.  NATIVE_COMPILERS=emulated keeps
# the arm64 compilers.
#
# Modes: "reduced" (the default) builds both flavours with a last config
# fragment (reduced_config below: no containers, networking, USB, SCSI,
# ext4 or debug information; modules stay), which still runs every rule
# and staging step; "full" with the packages' configuration; "chroot" only
# makes the system.  Then checked: each arm64 package of debian/control has
# its .deb, the kernels and the headers' kbuild programs are aarch64
# executables, each headers tree links into the -common tree.  Prints
# NATIVE-OK or NATIVE-FAIL lines; exit 1 on a failure, 2 on a setup error.
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/../.." && pwd)
mirror=${MIRROR:-http://deb.debian.org/debian}

die() { echo "native-arm64: $*" >&2; exit 2; }

# fail MESSAGE - a failed check
fail() { echo "NATIVE-FAIL $*"; failed=1; }

case $# in
1|2) ;;
*) sed -n '6p' "$0" | sed 's/^# //' >&2; exit 2 ;;
esac
mkdir -p "$1" || die "cannot create $1"
out=$(cd "$1" && pwd)
mode=${2:-reduced}
case $mode in
reduced|full|chroot) ;;
*) die "$mode: the second argument is reduced, full or chroot" ;;
esac
root=$out/chroot
failed=0

# make_chroot - OUTDIR/chroot with the build dependencies (once)
make_chroot() {
	[ -f "$root/.build-deps-done" ] && return
	rm -rf "$root"
	mmdebstrap --variant=buildd --arch=arm64 \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		sid "$root" "$mirror" >"$out/mmdebstrap.log" 2>&1 ||
		die "mmdebstrap failed: see $out/mmdebstrap.log"
	mkdir -p "$root/build/deps/debian"
	cp "$top/debian/control" "$top/debian/changelog" "$root/build/deps/debian/"
	in_chroot sh -c 'cd /build/deps && apt-get update && apt-get -y build-dep ./' >"$out/build-deps.log" 2>&1 ||
		die "apt-get build-dep failed: see $out/build-deps.log"
	touch "$root/.build-deps-done"
}

# in_chroot CMD... - CMD in the arm64 system, with /proc, /sys and /dev
# (and /x86, the amd64 compilers, when there are)
in_chroot() {
	local rc=0 m
	for m in proc sys dev; do
		mountpoint -q "$root/$m" || mount --bind "/$m" "$root/$m"
	done
	if [ -d "$root/x86" ] && [ -f "$out/x86/.done" ]; then
		mountpoint -q "$root/x86" || mount --bind "$out/x86" "$root/x86"
	fi
	chroot "$root" "$@" || rc=$?
	for m in x86 dev sys proc; do
		! mountpoint -q "$root/$m" || umount "$root/$m"
	done
	return "$rc"
}

# llvm_major - the LLVM major version of the arm64 system's clang
llvm_major() {
	readlink -f "$root/usr/bin/clang" | sed -n 's|.*/llvm-\([0-9]*\)/.*|\1|p'
}

# make_x86_tools V - OUTDIR/x86: an amd64 sid system with clang-V, lld-V and
# llvm-V of exactly the arm64 system's version (once)
make_x86_tools() {
	local v=$1 ver
	[ -f "$out/x86/.done" ] && [ "$(cat "$out/x86/.done")" = "$v" ] && return
	# shellcheck disable=SC2016 # dpkg-query's format
	ver=$(chroot "$root" dpkg-query -W -f '${Version}' "clang-$v") ||
		die "the arm64 system has no clang-$v"
	rm -rf "$out/x86"
	mmdebstrap --variant=apt --arch=amd64 \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--include="clang-$v=$ver,lld-$v=$ver,llvm-$v=$ver" \
		sid "$out/x86" "$mirror" >"$out/x86.log" 2>&1 ||
		die "mmdebstrap of the amd64 compilers failed: see $out/x86.log"
	echo "$v" >"$out/x86/.done"
}

# install_wrappers V - /usr/local/bin/{clang,ld.lld,llvm-*} of the arm64
# system run the amd64 tools of /x86 (clang with --target=aarch64-linux-gnu,
# its default there); their own loader is /lib64's, their libraries /x86's
install_wrappers() {
	local v=$1 t w
	mkdir -p "$root/x86" "$root/lib64" "$root/usr/local/bin"
	ln -sfn /x86/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$root/lib64/ld-linux-x86-64.so.2"
	for t in clang clang++ ld.lld llvm-ar llvm-nm llvm-objcopy llvm-objdump \
		llvm-readelf llvm-strip llvm-ranlib; do
		w=$root/usr/local/bin/$t
		{
			echo "#!/bin/sh"
			echo "# tests/package/native-arm64.sh: amd64 $t of LLVM $v"
			echo "LD_LIBRARY_PATH=/x86/usr/lib/x86_64-linux-gnu:/x86/usr/lib/llvm-$v/lib"
			echo "export LD_LIBRARY_PATH"
			case $t in
			clang*) echo "case \" \$* \" in *\" --target=\"*) ;; *) set -- --target=aarch64-linux-gnu \"\$@\" ;; esac" ;;
			esac
			echo "exec /x86/usr/lib/llvm-$v/bin/$t \"\$@\""
		} >"$w"
		chmod 0755 "$w"
	done
}

# use_x86_compilers - on an x86_64 machine, the compilers run as amd64
# programs of the same version (NATIVE_COMPILERS=emulated: not)
use_x86_compilers() {
	local v
	[ "$(uname -m)" = x86_64 ] && [ "${NATIVE_COMPILERS:-x86}" != emulated ] || return 0
	v=$(llvm_major)
	[ -n "$v" ] || die "cannot tell the LLVM version of the arm64 system's clang"
	make_x86_tools "$v"
	install_wrappers "$v"
	in_chroot sh -c 'clang --version | head -n 1; echo "int main(void) { return 0; }" >/tmp/t.c && clang -o /tmp/t /tmp/t.c && /tmp/t && file -b /tmp/t' \
		>"$out/compilers.log" 2>&1 || die "the amd64 compilers do not work there: see $out/compilers.log"
}

# reduced_config - a last fragment that turns off what makes the kernels
# big: every option kernel/config/containers.config asks for, networking,
# USB, SCSI, ext4 and FUSE of common.config and arm64.config, and the debug
# information; modules (virtio_blk, the torture tests) stay
reduced_config() {
	echo "# tests/package/native-arm64.sh: a reduced kernel for the native path"
	sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=[ym]$/# \1 is not set/p' "$top/kernel/config/containers.config"
	grep -hE '^CONFIG_(USB|SCSI|BLK_DEV_SD|UML_NET|VIRTIO_NET|VIRTIO_FS|FUSE|EXT4|UNIX|INET|IPV6|PACKET|TUN|DUMMY)[A-Z0-9_]*=[ym]$' \
		"$top/kernel/config/common.config" "$top/kernel/config/arm64.config" |
		sed 's/^\(CONFIG_[A-Z0-9_]*\)=.*/# \1 is not set/' | awk '!seen[$0]++'
	echo "# CONFIG_NET is not set"
	echo "# CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT is not set"
	echo "CONFIG_DEBUG_INFO_NONE=y"
}

# build - the committed tree built with dpkg-buildpackage -B in the chroot
build() {
	rm -rf "$root/build/src" "$root/build"/*.deb "$root/build"/*.changes "$root/build"/*.buildinfo
	mkdir -p "$root/build/src"
	git -C "$top" archive HEAD | tar -x -C "$root/build/src" || die "git archive failed"
	[ "$mode" = full ] || reduced_config >>"$root/build/src/debian/kernel.config"
	in_chroot env DEB_BUILD_OPTIONS="nocheck parallel=${NATIVE_JOBS:-$(nproc)}" \
		sh -c 'cd /build/src && dpkg-buildpackage -B -us -uc' >"$out/build.log" 2>&1 ||
		fail "dpkg-buildpackage -B failed: see $out/build.log (tail: $(tail -n 3 "$out/build.log" | tr '\n' ' '))"
}

# check_debs - each arm64 package of debian/control has its .deb
check_debs() {
	local p
	while read -r p; do
		ls "$root/build/${p}_"*_arm64.deb >/dev/null 2>&1 || fail "no .deb of $p"
	done < <(awk '/^Package:/ { p = $2 } /^Architecture: arm64/ { print p }' "$top/debian/control")
}

# check_machine WHAT FILE... - each FILE is an aarch64 ELF executable
check_machine() {
	local what=$1 f
	shift
	for f in "$@"; do
		file -b "$f" | grep -q 'ELF 64-bit LSB.*ARM aarch64' ||
			fail "$what $f is not an aarch64 executable: $(file -b "$f")"
	done
}

# check_contents - kernels and the headers' kbuild programs are aarch64,
# the headers trees link into -common
check_contents() {
	local x=$out/extract d
	rm -rf "$x"
	mkdir -p "$x"
	for d in "$root/build"/linux-uml-arm64-{4k,16k,headers}_*_arm64.deb; do
		dpkg-deb -x "$d" "$x" || fail "cannot extract $d"
	done
	check_machine kernel "$x"/usr/lib/uml/linux-uml-arm64/{4k,16k}/linux
	check_machine "kbuild program" "$x"/usr/src/linux-uml-arm64-headers-*-{4k,16k}/scripts/basic/fixdep \
		"$x"/usr/src/linux-uml-arm64-headers-*-{4k,16k}/scripts/mod/modpost
	for d in "$x"/usr/src/linux-uml-arm64-headers-*-{4k,16k}; do
		find "$d" -type l -lname '*-common/*' | grep -q . ||
			fail "$d links nothing into the -common tree"
	done
}

make_chroot
[ "$mode" != chroot ] || exit 0
use_x86_compilers
build
if [ "$failed" = 0 ]; then
	check_debs
	check_contents
fi
if [ "$failed" = 0 ]; then
	echo "NATIVE-OK $(find "$root/build" -maxdepth 1 -name '*.deb' -printf '%f\n' | sort | tr '\n' ' ')($mode configuration)"
fi
exit "$failed"
