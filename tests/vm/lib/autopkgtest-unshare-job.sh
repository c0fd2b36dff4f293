#!/bin/sh
# autopkgtest-unshare-job.sh - the job of autopkgtest-unshare.sh in the
# emulated arm64 host (vm.sh run; on an arm64 machine, that machine):
# the network up, autopkgtest installed, the suite run in an unshare
# testbed made from the bundle's tarball
#
# The bundle (in CI_WORK): pkgs/ (.debs, .dsc and its files), options
# (autopkgtest options, one per line), suite, test-timeout, testbed.tar.
# Results go to CI_OUT/results.  Exit status: autopkgtest's.
set -u
cd "$CI_WORK" || exit 1

# in_vm - true in vm.sh's emulated host (its init takes ci.mode=), where
# this job may configure the network and install packages
in_vm() { grep -qw 'ci.mode=run' /proc/cmdline; }

# net_up - qemu's user network: the interface, its fixed address, routes
# and resolver (10.0.2.15, gateway .2, DNS .3); no DHCP client needed
net_up() {
	modprobe virtio_net 2>/dev/null
	dev=
	for d in /sys/class/net/*; do
		[ "${d##*/}" = lo ] || { dev=${d##*/}; break; }
	done
	[ -n "$dev" ] || { echo "no network interface in the VM (VM_NET=1?)"; return 1; }
	ip link set lo up && ip link set "$dev" up &&
		ip addr add 10.0.2.15/24 dev "$dev" &&
		ip route add default via 10.0.2.2 || return 1
	echo 'nameserver 10.0.2.3' >/etc/resolv.conf
}

# install_tools - autopkgtest, and newuidmap for unshare's --map-auto
install_tools() {
	export DEBIAN_FRONTEND=noninteractive
	apt-get -q -o Acquire::Check-Valid-Until=false update &&
		apt-get -q -y --no-install-recommends install autopkgtest uidmap
}

# subids - the subordinate ids unshare maps the testbed's users to
subids() {
	for f in /etc/subuid /etc/subgid; do
		grep -q '^root:' "$f" 2>/dev/null || echo 'root:100000:65536' >>"$f"
	done
}

if in_vm; then
	net_up || exit 1
	install_tools || { echo "cannot install autopkgtest in the VM"; exit 1; }
fi
command -v autopkgtest >/dev/null || { echo "no autopkgtest on this host (apt install autopkgtest uidmap)"; exit 1; }
subids
echo "autopkgtest $(dpkg-query -W -f '${Version}' autopkgtest) in $(uname -r), $(nproc) CPUs"

set --
while IFS= read -r o; do
	set -- "$@" "$o"
done <options
mkdir -p "$CI_OUT" unpack
# The testbed's resolver is the host's (unshare keeps the network
# namespace); mmdebstrap left the tarball no package lists
autopkgtest --output-dir "$CI_OUT/results" --timeout-test "$(cat test-timeout)" \
	--copy=/etc/resolv.conf:/etc/resolv.conf \
	--setup-commands='apt-get -q update' "$@" pkgs/*.deb pkgs/*.dsc -- \
	unshare --arch arm64 --release "$(cat suite)" --tarball "$CI_WORK/testbed.tar" \
	--unpack-dir "$CI_WORK/unpack/root"
rc=$?
echo "autopkgtest exit status $rc"
cat "$CI_OUT/results/summary" 2>/dev/null
exit "$rc"
