#!/bin/bash
# arm64-gates.sh - run the arm64 boot gates inside the emulated arm64 host
#
# Usage: tests/vm/arm64-gates.sh HOSTKERNEL OUTDIR CASE...
#
# HOSTKERNEL is 4k or 16k (the Debian host kernel of tests/vm); each CASE is
# FLAVOUR:GATE[:BOOTARG...], e.g. 4k:boot-minimal:nosysemu,
# 16k:register-torture, 4k:refused (a 4K kernel on this host must refuse to
# boot with a message naming both page sizes), 4k:seccomp-fallback and
# 4k:seccomp-required (on a host where SECCOMP userspace cannot be set up,
# made by guest/hostfilter.c tsync, seccomp=auto boots in ptrace mode and says
# so, seccomp=on stops with a message), 4k:pac-unavailable (on a host whose stubs cannot turn pointer
# authentication off, made by guest/hostfilter.c pac, the boot says so),
# 4k:seccomp-default (without a seccomp= option the boot must run userspace
# in SECCOMP mode), 4k:smp-refused (ptrace mode must refuse ncpus=2).  The UML kernels come from
# kernel/build.sh (arm64-4k, arm64-16k), the images from images/build.sh
# (minimal, debian for boot-debian cases, debian-docker for containers
# cases, for arm64; ARM64_KERNEL_4K and ARM64_KERNEL_16K name
# kernels built elsewhere), the guest programs from
# tests/autopkgtest/guest/build.sh; all go into the VM as one tar on a raw
# disk.  Prints one line per case:
#
#   CASE FLAVOUR:GATE[:ARGS] verdict=... kernel_bugs=N artifacts=DIR
#
# with DIR on this machine (under OUTDIR/files).  A case whose gate printed no
# verdict gets verdict=FAIL.  Exit status: 0 when every case passed.
# LOOP=N runs the whole list N times in the one VM boot and prints per case
#
#   CASE FLAVOUR:GATE[:ARGS] verdict=... runs=R/N passed=P [first_failure: ...]
#
# (PASS only if all N runs passed with kernel_bugs=0).
# GATE_ENV="NAME=VALUE ..." is exported to every gate (REGTORTURE_BUDGET=60).
# PARALLEL=1 runs the cases of each round at once (give the VM VM_SMP CPUs);
# GATE_TIMEOUT=S is each gate's timeout (boot-debian under TCG needs
# about 2400 s, containers is given 3600 s by tests/run containers: the
# Debian boot, dockerd's start and seven docker runs); the VM's limit
# grows to fit them unless TIMEOUT=S names it.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 3 ] || { sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; }
host=$1 out=$2
shift 2
# GATE_ENV="NAME=VALUE ...": variables for the gates themselves (e.g.
# REGTORTURE_BUDGET=60 for a shorter register-torture in a long loop)
gate_env_bad() {
	echo "arm64-gates.sh: GATE_ENV: '$1' is not NAME=VALUE (a VALUE of letters, digits and _.,/-)" >&2
	exit 2
}
for v in ${GATE_ENV:-}; do
	case $v in *=*) ;; *) gate_env_bad "$v" ;; esac
	case ${v%%=*} in ''|[0-9]*|*[!A-Za-z0-9_]*) gate_env_bad "$v" ;; esac
	case ${v#*=} in *[!A-Za-z0-9_.,/-]*) gate_env_bad "$v" ;; esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

bundle=$out/bundle
rm -rf "$bundle"
mkdir -p "$bundle/k" "$bundle/img" "$bundle/guest" "$bundle/tests"
need_debian='' need_docker=''
for c in "$@"; do
	f=${c%%:*}
	case $c in *:boot-debian*) need_debian=1 ;; esac
	case $c in *:containers*) need_docker=1 ;; esac
	[ -e "$bundle/k/$f/linux" ] && continue
	# ARM64_KERNEL_4K / ARM64_KERNEL_16K: a kernel built elsewhere (devtree)
	k=$(eval echo "\${ARM64_KERNEL_$(echo "$f" | tr k K):-}")
	[ -n "$k" ] || k=$("$top/kernel/build.sh" path "arm64-$f")/linux
	[ -x "$k" ] || { echo "arm64-gates.sh: no $k: build it with kernel/build.sh arm64-$f" >&2; exit 1; }
	mkdir -p "$bundle/k/$f"
	cp "$k" "$bundle/k/$f/linux"
	# the module tree next to it, for module-load
	[ ! -d "$(dirname "$k")/modules" ] || cp -r "$(dirname "$k")/modules" "$bundle/k/$f/"
done
cp "$("$top/images/build.sh" minimal arm64 | tail -n 1)" "$bundle/img/minimal.ext4"
debian_img=
if [ -n "$need_debian" ]; then
	debian_img=$("$top/images/build.sh" debian arm64 | tail -n 1)
	cp --sparse=always "$debian_img" "$bundle/img/debian.ext4"
fi
docker_img=
if [ -n "$need_docker" ]; then
	docker_img=$("$top/images/build.sh" debian-docker arm64 | tail -n 1)
	cp --sparse=always "$docker_img" "$bundle/img/debian-docker.ext4"
	# the gate copies the tree's busybox image builder into the guest
	mkdir -p "$bundle/images/debian-docker"
	cp "$top/images/debian-docker/busybox-image.sh" "$bundle/images/debian-docker/"
fi
"$top/tests/autopkgtest/guest/build.sh" arm64 "$bundle/guest" >/dev/null
cp -r "$top/tests/autopkgtest" "$bundle/tests/"
tar --sparse -C "$bundle" -cf "$out/bundle.tar" .
rm -rf "$bundle"

loop=${LOOP:-1}
case $loop in ''|*[!0-9]*|0) echo "arm64-gates.sh: LOOP=$loop is not a positive number" >&2; exit 2 ;; esac
gate_timeout=${GATE_TIMEOUT:-}
case $gate_timeout in *[!0-9]*) echo "arm64-gates.sh: GATE_TIMEOUT=$gate_timeout is not a number of seconds" >&2; exit 2 ;; esac
# The VM's own limit (TIMEOUT, default 3000 s) must leave every gate its
# GATE_TIMEOUT: once it cut a run of three Debian boots in the second.
vm_timeout=${TIMEOUT:-3000}
if [ -n "$gate_timeout" ] && [ -z "${TIMEOUT:-}" ]; then
	rounds=$#
	[ "${PARALLEL:-0}" != 1 ] || rounds=1
	rounds=$((rounds * loop))
	[ $((rounds * gate_timeout + 600)) -le "$vm_timeout" ] ||
		vm_timeout=$((rounds * gate_timeout + 600))
fi
{
	echo '#!/bin/sh'
	echo "loop=$loop parallel=${PARALLEL:-0} gate_timeout=$gate_timeout"
	[ -z "${GATE_ENV:-}" ] || echo "export $GATE_ENV"
	cat <<'EOF'
# Runs in the arm64 host: the gates named by the arguments, $loop times over
# (all at once with parallel=1), artifacts into $CI_OUT.
export UMARM_CACHE=/tmp/umarm-cache GUEST_PREBUILT=$CI_WORK/guest
[ -z "$gate_timeout" ] || export TIMEOUT=$gate_timeout
gates=$CI_WORK/tests/autopkgtest

# run_case CASE - run one gate, print its CASE line
run_case() {
	c=$1
	flavour=${c%%:*}
	rest=${c#*:}
	gate=${rest%%:*}
	args=
	[ "$rest" = "$gate" ] || args=$(echo "${rest#*:}" | tr ':' ' ')
	name=$(echo "$c" | tr ':=' '__')
	export KERNEL=$CI_WORK/k/$flavour/linux BOOT_ARGS="$args" \
		GATE_NAME=$name ARTIFACTS=$CI_OUT
	case $gate in
	boot-debian) export IMAGE=$CI_WORK/img/debian.ext4 ;;
	containers) export IMAGE=$CI_WORK/img/debian-docker.ext4 ;;
	*) export IMAGE=$CI_WORK/img/minimal.ext4 ;;
	esac
	if [ "$gate" = refused ]; then
		# A kernel whose pages are smaller than the host's must say so.
		line=$("$gates/lib/run-gate" --name "$name" --kernel "$KERNEL" \
			--image "$CI_WORK/img/minimal.ext4" --timeout 60 \
			--marker "Host pages ($(getconf PAGESIZE) bytes) are larger" \
			--artifacts "$CI_OUT/$name" 2>&1 | tail -n 1)
	elif [ "$gate" = seccomp-fallback ] || [ "$gate" = seccomp-required ]; then
		# A host where the SECCOMP-mode probe fails (seccomp() with
		# TSYNC refused by guest/hostfilter.c tsync): seccomp=auto must
		# boot in ptrace mode and say so, seccomp=on must stop.
		printf '#!/bin/sh\nexec %s tsync %s "$@"\n' "$GUEST_PREBUILT/hostfilter" \
			"$KERNEL" >"/tmp/$name-linux"
		chmod +x "/tmp/$name-linux"
		if [ "$gate" = seccomp-fallback ]; then
			set -- "Userspace mode: ptrace (seccomp=auto)" seccomp=auto
		else
			set -- "SECCOMP userspace requested but not functional" seccomp=on
		fi
		line=$("$gates/lib/run-gate" --name "$name" --kernel "/tmp/$name-linux" \
			--image "$CI_WORK/img/minimal.ext4" --timeout 300 --run /bin/true \
			--marker "$1" --artifacts "$CI_OUT/$name" -- "$2" 2>&1 | tail -n 1)
	elif [ "$gate" = smp-refused ]; then
		# SMP needs SECCOMP mode: ptrace mode must refuse ncpus=2.
		line=$("$gates/lib/run-gate" --name "$name" --kernel "$KERNEL" \
			--image "$CI_WORK/img/minimal.ext4" --timeout 300 --run /bin/true \
			--marker "SMP is not supported with PTRACE userspace" \
			--artifacts "$CI_OUT/$name" -- seccomp=off ncpus=2 2>&1 | tail -n 1)
	elif [ "$gate" = seccomp-default ]; then
		# arm64 kernels default to seccomp=auto: SECCOMP mode here.
		line=$("$gates/lib/run-gate" --name "$name" --kernel "$KERNEL" \
			--image "$CI_WORK/img/minimal.ext4" --timeout 300 --run /bin/true \
			--marker "Userspace mode: SECCOMP (seccomp=auto)" \
			--artifacts "$CI_OUT/$name" 2>&1 | tail -n 1)
	elif [ "$gate" = pac-unavailable ]; then
		# A host with pointer authentication but without
		# PR_PAC_SET_ENABLED_KEYS (5.0-5.12), made by a seccomp filter
		# (guest/hostfilter.c pac): the boot must say what that means.
		printf '#!/bin/sh\nexec %s pac %s "$@"\n' "$GUEST_PREBUILT/hostfilter" \
			"$KERNEL" >"/tmp/$name-linux"
		chmod +x "/tmp/$name-linux"
		line=$("$gates/lib/run-gate" --name "$name" --kernel "/tmp/$name-linux" \
			--image "$CI_WORK/img/minimal.ext4" --timeout 300 --run /bin/true \
			--marker "cannot turn it off per process" \
			--artifacts "$CI_OUT/$name" 2>&1 | tail -n 1)
	else
		line=$("$gates/$gate" 2>&1 | tail -n 1)
	fi
	case $line in
	verdict=*) ;;
	*) line="verdict=FAIL kernel_bugs=0 artifacts=none ($line)" ;;
	esac
	echo "CASE $c $line"
}

for i in $(seq 1 "$loop"); do
	if [ "$parallel" = 1 ]; then
		n=0
		for c in "$@"; do
			n=$((n + 1))
			run_case "$c" >"/tmp/case-$i-$n" &
		done
		wait
		cat /tmp/case-"$i"-*
	else
		for c in "$@"; do
			run_case "$c"
		done
	fi
done
# A failed Debian case keeps its guest's copy-on-write disk: sparse, but as
# large as the image, and ci-init's plain tar of CI_OUT writes it out whole
# (three of them overflowed the output disk).  Keep them as sparse tars.
for f in "$CI_OUT"/*/root.cow; do
	[ -f "$f" ] || continue
	tar --sparse -cf "$f.tar" -C "${f%/*}" root.cow && rm -f "$f"
done
EOF
} >"$out/job.sh"
chmod +x "$out/job.sh"

log=$out/vm-output.txt
rc=0
"$top/tests/vm/vm.sh" run --kernel "$host" --smp "${VM_SMP:-1}" \
	--timeout "$vm_timeout" \
	--disk "$out/bundle.tar" --out "$out/vm" "$out/job.sh" "$@" >"$log" 2>&1 ||
	rc=$?
rm -f "$out/bundle.tar"
# the failed cases' COW disks, which the job packed as sparse tars
for t in "$out"/vm/files/*/root.cow.tar; do
	[ -f "$t" ] || continue
	tar -xf "$t" -C "${t%/*}" && rm -f "$t"
done

# guest_journal CASE LINE - a failed Debian case kept its guest's disk: write
# the guest's systemd journal next to it (journal.txt), read back with
# tests/autopkgtest/lib/guest-journal from the image the bundle copied
guest_journal() {
	local a=${2##*artifacts=} img
	a=${a%% *}
	case $1 in
	*:boot-debian*) img=$debian_img ;;
	*:containers*) img=$docker_img ;;
	*) return 0 ;;
	esac
	[ -f "$a/root.cow" ] && [ -n "$img" ] || return 0
	"$top/tests/autopkgtest/lib/guest-journal" "$a" "$img" \
		>"$a/journal.txt" 2>&1 || true
}

failed=0
for c in "$@"; do
	if [ "$loop" -gt 1 ]; then
		# LOOP=N: the tally of all runs, and the first failure if any.
		runs=$(grep -cF "CASE $c verdict=" "$log" || true)
		pass=$(grep -cF "CASE $c verdict=PASS kernel_bugs=0 " "$log" || true)
		first=$(grep -F "CASE $c verdict=" "$log" |
			grep -vF "verdict=PASS kernel_bugs=0 " | head -n 1 | cut -d' ' -f3-)
		first=${first//artifacts=\/work\/ci-out/artifacts=$out\/vm\/files}
		v=PASS
		[ "$runs" -eq "$loop" ] && [ "$pass" -eq "$loop" ] || v=FAIL
		echo "CASE $c verdict=$v runs=$runs/$loop passed=$pass${first:+ first_failure: $first}"
		[ "$v" = PASS ] || failed=1
		continue
	fi
	line=$(grep -F "CASE $c " "$log" | tail -n 1 | cut -d' ' -f3-)
	[ -n "$line" ] || line="verdict=FAIL kernel_bugs=0 artifacts=none (vm.sh rc=$rc, see $log)"
	# Artifacts written to CI_OUT in the guest come back under vm/files.
	# (/work/ci-out in the emulated host; the host's own path when native)
	line=${line//artifacts=\/work\/ci-out/artifacts=$out\/vm\/files}
	echo "CASE $c $line"
	case $line in verdict=PASS*) ;; *) failed=1; guest_journal "$c" "$line" ;; esac
done
exit "$failed"
