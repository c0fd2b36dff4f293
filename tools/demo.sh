#!/bin/sh
# demo.sh - the main job: build what is needed, start a UML instance with the
# default image through umarmctl, show that it works, stop it.
#
# Usage: tools/demo.sh          (make demo runs it after make deps)
#
# On x86_64 machines this uses the x86_64 UML built from kernel/patches (the
# arm64 kernel needs an arm64 host; see README.md).  The instance "demo" is a
# per-user instance (XDG directories); it is left created, stopped, so that
# "umarmctl start demo; umarmctl shell demo" works afterwards.
# Environment: IMAGE (default debian), NAME (default demo).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
image=${IMAGE:-debian}
name=${NAME:-demo}

case $(uname -m) in
x86_64) flavour=x86_64 ;;
aarch64)
	if [ "$(getconf PAGESIZE)" = 4096 ]; then
		flavour=arm64-4k
	else
		flavour=arm64-16k
	fi ;;
*) echo "demo.sh: no flavour for $(uname -m)" >&2; exit 1 ;;
esac

say() { printf '\n== %s\n' "$*"; }

say "kernel: building flavour $flavour (kernel/build.sh, cached)"
"$top/kernel/build.sh" "$flavour"
UMARM_KERNEL=$("$top/kernel/build.sh" path "$flavour")/linux
export UMARM_KERNEL

say "umarmctl: building"
make -s -C "$top/tools/umarmctl"
ctl="$top/tools/umarmctl/umarmctl"
export UMARM_SRCDIR="$top"

# (status exits non-zero for a stopped instance; config only if it exists)
if "$ctl" --user config "$name" >/dev/null 2>&1; then
	say "instance $name exists; (re)starting it"
	"$ctl" --user stop "$name" >/dev/null 2>&1 || true
else
	say "umarmctl create $name --image $image"
	"$ctl" --user create "$name" --image "$image"
fi

say "umarmctl start $name"
"$ctl" --user start "$name"
"$ctl" --user status "$name"

say "inside the guest: umarmctl exec $name -- ..."
"$ctl" --user exec "$name" -- uname -a
# shellcheck disable=SC2016 # expanded in the guest
"$ctl" --user exec "$name" -- sh -c '. /etc/os-release; echo "$PRETTY_NAME"; systemctl is-system-running || true; ps -e | wc -l'

say "umarmctl list"
"$ctl" --user list

say "umarmctl stop $name"
"$ctl" --user stop "$name"
"$ctl" --user list
echo
echo "demo: done. Again by hand: $ctl --user start $name && $ctl --user shell $name"
