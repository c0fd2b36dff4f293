#!/bin/sh
# setup-host.sh - install what building and testing linux-uml-arm64 needs
#
# Usage: tools/setup-host.sh [--check]
#
# Idempotent; run as root (or through sudo).  On a Debian 12 (bookworm) host
# the suites beyond bookworm are added with apt pinning at priority 1, and only
# the packages named below are raised from them, so the host's libc and the rest
# of the system never move.  On an arm64 Debian sid/trixie host everything comes
# from the host's own suite.
#
# --check only reports what is missing and exits 1 if anything is.

set -eu

MIRROR=${MIRROR:-}
APT_PREFS=/etc/apt/preferences.d/linux-uml-arm64.pref
APT_LIST=/etc/apt/sources.list.d/linux-uml-arm64.sources

# Packages every host needs.
BASE_PKGS="make bc bison flex cpio xz-utils zstd kmod libssl-dev libelf-dev
	python3 perl rsync quilt ccache git e2fsprogs fakeroot
	debhelper devscripts lintian dpkg-dev build-essential
	autopkgtest mmdebstrap arch-test eatmydata usbip passt proot
	busybox-static file shellcheck"
# Taken from bookworm-backports on bookworm: QEMU 10 emulates FEAT_FPAC,
# bookworm's 7.2 does not; mmdebstrap 1.5 handles sid's usrmerge.
BPO_PKGS="qemu-system-arm qemu-system-common qemu-system-data qemu-user
	qemu-user-static qemu-user-binfmt qemu-utils mmdebstrap libbrlapi0.8"
# Taken from sid on bookworm: the kernel source this project builds.
SID_PKGS="linux-source-7.2"

die() { echo "setup-host: $*" >&2; exit 1; }

host_arch=$(dpkg --print-architecture)
. /etc/os-release
codename=${VERSION_CODENAME:-sid}

if [ "$host_arch" = amd64 ]; then
	# crossbuild-essential-arm64 and libc6-dev:arm64: the cross build of
	# the Debian packages (dpkg-buildpackage -a arm64 -Pcross,nocheck)
	TOOLCHAIN="clang-19 lld-19 llvm-19 libclang-rt-19-dev libc6-dev-arm64-cross
		libgcc-12-dev-arm64-cross gcc-aarch64-linux-gnu
		crossbuild-essential-arm64 libc6-dev:arm64"
else
	TOOLCHAIN="clang lld llvm"
fi

missing() {
	for p in "$@"; do
		dpkg-query -W -f '${db:Status-Status}\n' "$p" 2>/dev/null |
			grep -qx installed || echo "$p"
	done
}

check_only=
[ "${1:-}" = --check ] && check_only=1

if [ -n "$check_only" ]; then
	# shellcheck disable=SC2086
	m=$(missing $BASE_PKGS $TOOLCHAIN $SID_PKGS qemu-system-arm)
	[ -z "$m" ] || { echo "missing:" $m; exit 1; }
	echo "all build and test dependencies are installed"
	exit 0
fi

[ "$(id -u)" = 0 ] || exec sudo -- "$0" "$@"

export DEBIAN_FRONTEND=noninteractive
APT="apt-get -y -q -o Dpkg::Use-Pty=0 -o APT::Install-Recommends=false"

# The cross build installs arm64 build dependencies (libc6-dev:arm64).
foreign_added=
if [ "$host_arch" = amd64 ] &&
   ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	foreign_added=1
fi

if [ "$codename" = bookworm ]; then
	if [ -z "$MIRROR" ]; then
		MIRROR=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/* *$/\1/p' \
			/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
		[ -n "$MIRROR" ] || MIRROR=http://deb.debian.org/debian
	fi
	want=$(cat <<EOT
# linux-uml-arm64: extra suites, pinned down; see $APT_PREFS
Types: deb
URIs: $MIRROR
Suites: bookworm-backports trixie sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
)
	prefs=$(cat <<EOT
# linux-uml-arm64: nothing is taken from these suites unless named below.
Package: *
Pin: release n=bookworm-backports
Pin-Priority: 1

Package: *
Pin: release n=trixie
Pin-Priority: 1

Package: *
Pin: release n=sid
Pin-Priority: 1

Package: $(echo $BPO_PKGS)
Pin: release n=bookworm-backports
Pin-Priority: 500

Package: $(echo $SID_PKGS)
Pin: release n=sid
Pin-Priority: 500
EOT
)
	changed=$foreign_added
	if [ "$(cat "$APT_LIST" 2>/dev/null)" != "$want" ]; then
		printf '%s\n' "$want" >"$APT_LIST"
		changed=1
	fi
	if [ "$(cat "$APT_PREFS" 2>/dev/null)" != "$prefs" ]; then
		printf '%s\n' "$prefs" >"$APT_PREFS"
		changed=1
	fi
	# sid on this mirror is a frozen snapshot whose Release has expired.
	echo 'Acquire::Check-Valid-Until "false";' \
		>/etc/apt/apt.conf.d/99linux-uml-arm64-valid-until
	stamp=/var/lib/apt/lists/.linux-uml-arm64-updated
	if [ -n "$changed" ] || [ ! -e "$stamp" ] ||
	   [ -n "$(find "$stamp" -mmin +1440)" ]; then
		$APT update
		touch "$stamp"
	fi
	libc_before=$(dpkg-query -W -f '${Version}' libc6)
	# shellcheck disable=SC2086
	m=$(missing $BASE_PKGS $TOOLCHAIN $BPO_PKGS $SID_PKGS)
	# shellcheck disable=SC2086
	[ -z "$m" ] || $APT install $m
	[ "$(dpkg-query -W -f '${Version}' libc6)" = "$libc_before" ] ||
		die "libc6 changed version: the pinning in $APT_PREFS is wrong"
	qv=$(dpkg-query -W -f '${Version}' qemu-system-arm)
	dpkg --compare-versions "$qv" ge 1:8 ||
		die "qemu-system-arm $qv is older than 8: bookworm-backports missing?"
else
	# shellcheck disable=SC2086
	m=$(missing $BASE_PKGS $TOOLCHAIN $SID_PKGS qemu-system-arm qemu-user-static)
	if [ -n "$m" ] || [ -n "$foreign_added" ]; then
		$APT update
		# shellcheck disable=SC2086
		$APT install $m
	fi
fi

# binfmt_misc for building foreign root filesystems.  Test for the register
# file, not the mount: a re-mounted /proc hides it while mountpoint(1) still
# says "mounted".
if [ "$host_arch" != arm64 ]; then
	if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
	fi
	if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
		/usr/lib/systemd/systemd-binfmt /usr/lib/binfmt.d/qemu-aarch64.conf
	fi
	[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
		die "qemu-aarch64 is not registered with binfmt_misc"
fi

echo "setup-host: ready ($codename $host_arch)"
