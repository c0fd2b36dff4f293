# shellcheck shell=bash
# umarmctl-cross.sh - build tools/umarmctl for arm64 on this machine
#
# Sourced by the scripts that bundle umarmctl into the emulated arm64 host
# (umarmctl-arm64.sh, bench-arm64.sh): one place that says which cross
# compiler builds it and which built files never travel into the copy.

# umarmctl_cross_cc - the arm64 C compiler: Debian's cross gcc where it is
# installed, else clang, which targets arm64 without a cross package
umarmctl_cross_cc() {
	if command -v aarch64-linux-gnu-gcc >/dev/null; then
		echo aarch64-linux-gnu-gcc
	else
		echo "clang-19 --target=aarch64-linux-gnu -fuse-ld=lld"
	fi
}

# umarmctl_cross_build TOP DIR LOG TARGET... - make TARGET... for arm64 in
# DIR, a fresh copy of TOP/tools/umarmctl's sources (the x86_64 objects of
# the checkout stay as they are); make's output goes to LOG.  Extra make
# variables may be given as TARGETs (VAR=value).  Returns make's status.
umarmctl_cross_build() {
	local top=$1 dir=$2 log=$3
	shift 3
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$top/tools/umarmctl" && tar -cf - --exclude='*.o' \
		--exclude=umarmctl --exclude=fuzz --exclude=tests/unit/unit \
		--exclude=tests/integration/notify-listen \
		--exclude=minimal-init \
		--exclude=tests/integration/fake-usbipd .) | tar -xf - -C "$dir"
	make -s -C "$dir" CC="$(umarmctl_cross_cc)" "$@" >"$log" 2>&1
}
