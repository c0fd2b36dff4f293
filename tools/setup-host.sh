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

# Packages every host needs (golang-go: the go-tls gate's guest program,
# tests/autopkgtest/guest/gotls; bookworm's Go 1.19 is enough; apt-utils:
# apt-ftparchive for tests/package/install-alone.sh; licensecheck: the
# package group's check of debian/copyright, which skips without it).
BASE_PKGS="make bc bison flex cpio xz-utils zstd kmod libssl-dev libelf-dev
	python3 perl rsync quilt ccache git e2fsprogs fakeroot
	debhelper devscripts lintian licensecheck dpkg-dev build-essential
	autopkgtest mmdebstrap arch-test eatmydata usbip passt proot apt-utils
	busybox-static file shellcheck uml-utilities golang-go"
# Taken from bookworm-backports on bookworm: QEMU 10 emulates FEAT_FPAC,
# bookworm's 7.2 does not; mmdebstrap 1.5 handles sid's usrmerge.
BPO_PKGS="qemu-system-arm qemu-system-common qemu-system-data qemu-user
	qemu-user-static qemu-user-binfmt qemu-utils mmdebstrap libbrlapi0.8"
# Taken from sid on bookworm: the kernel source this project builds.
SID_PKGS="linux-source-7.2"
# bookworm's passt (2023) has no --vhost-user, umarmctl's default network
# backend and what "umarmctl net add" needs: on bookworm it is rebuilt from
# bookworm-backports' or trixie's source with this version suffix (lower than
# the source's own, so a dist-upgrade replaces it).  Bump it when the recipe in
# passt_backport() changes: the cached .deb is keyed by it.
PASST_BPO_SUFFIX="~bpo12+umarm1"
UMARM_CACHE=${UMARM_CACHE:-${HOME:-/root}/.cache/linux-uml-arm64}

die() { echo "setup-host: $*" >&2; exit 1; }

# Whether /usr/bin/passt knows --vhost-user; the string is in the binary
# (like tools/umarmctl/helpers.c passt_has_vhost_user(): --help goes to syslog).
passt_has_vhost_user() {
	[ -x /usr/bin/passt ] && grep -q -- vhost-user /usr/bin/passt
}

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
	passt_has_vhost_user || m="$m passt(--vhost-user)"
	[ -z "$m" ] || { echo "missing:" $m; exit 1; }
	echo "all build and test dependencies are installed"
	exit 0
fi

# The cache is the invoking user's: create it as that user, and carry its
# path through sudo, which resets HOME.
if [ "$(id -u)" != 0 ]; then
	mkdir -p "$UMARM_CACHE/passt"
	exec sudo -- env UMARM_CACHE="$UMARM_CACHE" "$0" "$@"
fi

export DEBIAN_FRONTEND=noninteractive
APT="apt-get -y -q -o Dpkg::Use-Pty=0 -o APT::Install-Recommends=false"

# passt_backport - on bookworm, give /usr/bin/passt --vhost-user the Debian
# way: a local backport of bookworm-backports' (if it has passt) or trixie's
# source package, built against bookworm and installed as a .deb.  trixie's
# binary needs libc6 2.38, and the host's libc never moves.  The .deb is kept
# in $UMARM_CACHE/passt/ under its source version, so later runs, and other
# clones on the machine, only install it.  Nothing to do if passt already has
# --vhost-user (trixie, sid, or an earlier run).
passt_backport() {
	passt_has_vhost_user && return 0
	pv="" suite=""
	for s in bookworm-backports trixie; do
		pv=$(apt-cache madison passt |
			awk -v s="$s/main" '$6 == s { print $3; exit }')
		[ -z "$pv" ] || { suite=$s; break; }
	done
	[ -n "$pv" ] ||
		die "passt lacks --vhost-user and neither bookworm-backports nor trixie has passt in $APT_LIST; fix the mirror (MIRROR=http://deb.debian.org/debian) or set UMARM_PASST for umarmctl"
	pv=${pv%+b[0-9]*}	# a binNMU is not a source version
	bv=$pv$PASST_BPO_SUFFIX
	# An epoch is not part of file names.
	deb=$UMARM_CACHE/passt/passt_${bv#*:}_${host_arch}.deb
	if [ -s "$deb" ]; then
		echo "setup-host: passt lacks --vhost-user: installing the cached backport $deb"
	else
		echo "setup-host: passt lacks --vhost-user: backporting passt $pv from $suite (takes a minute, once)"
		passt_build "$suite" "$pv" "$bv" "$deb"
	fi
	$APT install "$deb"
	passt_has_vhost_user ||
		die "installed $deb but /usr/bin/passt still has no --vhost-user"
	echo "setup-host: passt $(dpkg-query -W -f '${Version}' passt) with --vhost-user installed"
}

# passt_build SUITE SOURCE_VERSION BACKPORT_VERSION DEB - build the passt
# backport into DEB.  The source comes through a private apt configuration
# (deb-src for SUITE only, its own lists and caches), so the host's sources,
# lists and pinning are left alone; apt checks the Sources index against the
# suite's signed Release and apt-helper checks every file against it.
passt_build() {
	work=$(mktemp -d /tmp/linux-uml-arm64-passt.XXXXXX)
	mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial"
	cat >"$work/parts/src.sources" <<EOT
Types: deb-src
URIs: $MIRROR
Suites: $1
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	srcapt="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$work/parts
		-o Dir::State::Lists=$work/lists -o Dir::Cache=$work/cache"
	# shellcheck disable=SC2086
	apt-get -q $srcapt update >"$work/update.log" 2>&1 ||
		die "cannot fetch $1's Sources from $MIRROR (see $work/update.log); fix the mirror or set UMARM_PASST for umarmctl"
	# The stanza of that version: its pool directory, format and files
	# shellcheck disable=SC2086
	apt-cache $srcapt showsrc passt | awk -v v="$2" '
		/^$/ { p = 0 } /^Package: / { p = 0 } /^Version: / { p = ($2 == v) }
		p' >"$work/stanza"
	dir=$(sed -n 's/^Directory: //p' "$work/stanza")
	{ grep -qx 'Format: 3.0 (quilt)' "$work/stanza" && [ -n "$dir" ]; } ||
		die "no passt $2 in 3.0 (quilt) format in $1's Sources (see $work/stanza)"
	sed -n '/^Checksums-Sha256:/,/^[^ ]/s/^ \([0-9a-f]\{64\}\) [0-9]* \(.*\)/\1 \2/p' \
		"$work/stanza" >"$work/files"
	while read -r sum f; do
		# The .dsc is optional: some mirrors (this project's CI proxy)
		# serve the tarballs but not it, and the Sources index already
		# vouches for the tarballs.
		if ! /usr/lib/apt/apt-helper download-file "$MIRROR/$dir/$f" \
				"$work/$f" "SHA256:$sum" >>"$work/download.log" 2>&1; then
			case $f in
			*.dsc) rm -f "$work/$f" ;;
			*) die "cannot download $MIRROR/$dir/$f (see $work/download.log); fix the mirror or set UMARM_PASST for umarmctl" ;;
			esac
		fi
	done <"$work/files"
	v=${2#*:} src=$work/passt-${2#*:}
	src=${src%-*}
	if [ -e "$work/passt_$v.dsc" ]; then
		dpkg-source --skip-patches -x "$work/passt_$v.dsc" "$src" >"$work/unpack.log"
	else
		# What dpkg-source -x does for 3.0 (quilt), patches left out:
		# dpkg-buildpackage applies them.
		mkdir "$src"
		tar -C "$src" --strip-components=1 -xf "$work"/passt_*.orig.tar.*
		tar -C "$src" -xf "$work"/passt_*.debian.tar.*
	fi
	# The one change for bookworm: trixie's update moves the AppArmor
	# profiles to ABI 4.0 with a "userns" rule (#1124801), which
	# bookworm's AppArmor 3.0 cannot parse; under ABI 3.0 user namespaces
	# are allowed implicitly, so leaving the patch out is what bookworm needs.
	ch="Rebuild for bookworm by linux-uml-arm64's tools/setup-host.sh: umarmctl needs --vhost-user."
	if grep -q 'apparmor-Upgrade-ABI-version-to-4.0' "$src/debian/patches/series"; then
		sed -i '/apparmor-Upgrade-ABI-version-to-4.0/d' "$src/debian/patches/series"
		ch2="Drop the AppArmor ABI 4.0 patch: bookworm has AppArmor 3.0."
	else
		ch2=
	fi
	# A backport version sorts below the source's own: --force-bad-version.
	(cd "$src" &&
	 export DEBFULLNAME="linux-uml-arm64 setup-host" DEBEMAIL="root@localhost" &&
	 dch --newversion "$3" --force-bad-version --distribution bookworm-backports \
		--force-distribution --check-dirname-level 0 "$ch" &&
	 { [ -z "$ch2" ] || dch --append --check-dirname-level 0 "$ch2"; }) \
		>"$work/dch.log" 2>&1 || die "dch failed in $src (see $work/dch.log)"
	# Build-Depends from bookworm (the pinning keeps the other suites out);
	# the caller checks that libc6 did not move.
	$APT build-dep "$src" >"$work/build-dep.log" 2>&1 ||
		die "cannot install passt's Build-Depends from bookworm (see $work/build-dep.log); bookworm-backports may have them: add them to BPO_PKGS"
	echo "setup-host: building passt $3 in $src"
	(cd "$src" && DEB_BUILD_OPTIONS="nocheck" \
	 nice dpkg-buildpackage -b -uc -us >"$work/build.log" 2>&1) ||
		die "building passt $3 failed (see $work/build.log); set UMARM_PASST for umarmctl to a passt with --vhost-user meanwhile"
	built=$work/passt_${3#*:}_$host_arch.deb
	[ -s "$built" ] || die "the build made no $built (see $work/build.log)"
	mkdir -p "${4%/*}"
	cp "$built" "$4.tmp"
	mv "$4.tmp" "$4"
	# The cache belongs to whoever ran "make deps" through sudo.
	[ -z "${SUDO_UID:-}" ] || chown "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$4"
	echo "setup-host: cached $4"
	rm -rf "$work"
}

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
	# the host's own libc: libc6:arm64 (the cross build's) is new on a
	# fresh host, and a bare "libc6" would list both
	libc=libc6:$(dpkg --print-architecture)
	libc_before=$(dpkg-query -W -f '${Version}' "$libc")
	# shellcheck disable=SC2086
	m=$(missing $BASE_PKGS $TOOLCHAIN $BPO_PKGS $SID_PKGS)
	# shellcheck disable=SC2086
	[ -z "$m" ] || $APT install $m
	passt_backport
	[ "$(dpkg-query -W -f '${Version}' "$libc")" = "$libc_before" ] ||
		die "$libc changed version: the pinning in $APT_PREFS is wrong"
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
