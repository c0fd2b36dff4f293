# conditions.sh - what a benchmark condition is and how one round of it runs
# (sourced by tests/perf/run; bash)
#
# A condition is LABEL:KIND[:ARG...] or just native / proot:
#   KIND  native | proot | a UML kernel: x86_64, arm64-4k, arm64-16k
#         (kernel/build.sh path FLAVOUR) or a path to a `linux` binary
#   ARG   a kernel argument for a guest (seccomp=on, nosysemu, nocancel,
#         prefault=0 ...), or env.NAME=VALUE: an environment variable for
#         perfbench in any kind (PERFBENCH_PLANT_COMPUTE_PCT=20 plants a
#         slower validator, for the validator's own test)
# Needs: top, out, perf_args (array: perfbench's options for one round).
# shellcheck shell=bash disable=SC2154 # out, top, perf_args: set by tests/perf/run

# cond_label COND - the label (column name, sample key)
cond_label() { echo "${1%%:*}"; }

# cond_kind COND - native, proot or the kernel
cond_kind() {
	case $1 in
	*:*) local rest=${1#*:}; echo "${rest%%:*}" ;;
	*) echo "$1" ;;
	esac
}

# cond_args COND - the ARGs, one per line
cond_args() {
	local rest
	case $1 in *:*:*) ;; *) return 0 ;; esac
	rest=${1#*:}
	rest=${rest#*:}
	printf '%s\n' "$rest" | tr ':' '\n'
}

# cond_kernel_args COND - the ARGs that go to the kernel, space-separated
cond_kernel_args() { cond_args "$1" | grep -v '^env\.' | tr '\n' ' '; }

# cond_env COND - the env.NAME=VALUE ARGs as NAME=VALUE, one per line
cond_env() { cond_args "$1" | sed -n 's/^env\.//p'; }

# cond_kernel COND - the kernel binary of a guest condition: a path as
# given; a flavour from KERNEL_X86_64, KERNEL_4K or KERNEL_16K when set (the
# emulated host gets its kernels that way, without kernel/build.sh), else
# from kernel/build.sh
cond_kernel() {
	local kind given=
	kind=$(cond_kind "$1")
	case $kind in
	*/*) echo "$kind"; return ;;
	x86_64) given=${KERNEL_X86_64:-} ;;
	arm64-4k) given=${KERNEL_4K:-} ;;
	arm64-16k) given=${KERNEL_16K:-} ;;
	esac
	if [ -n "$given" ]; then
		echo "$given"
	else
		echo "$("$top/kernel/build.sh" path "$kind")/linux"
	fi
}

# is_guest COND - whether COND boots a UML kernel
is_guest() {
	case $(cond_kind "$1") in native|proot) return 1 ;; esac
}

# elf_arch FILE - amd64 or arm64 from the ELF header's e_machine
elf_arch() {
	case $(od -An -tx1 -j18 -N2 "$1" | tr -d ' ') in
	b700) echo arm64 ;;
	3e00) echo amd64 ;;
	*) die "cannot tell the architecture of $1 (not an aarch64 or x86-64 ELF file)" ;;
	esac
}

# cond_arch COND - the architecture perfbench must be built for
cond_arch() {
	if is_guest "$1"; then
		elf_arch "$(cond_kernel "$1")"
	else
		dpkg --print-architecture
	fi
}

# check_condition COND - die with the fix when COND cannot run here
check_condition() {
	local c=$1 label kind k
	label=$(cond_label "$c")
	kind=$(cond_kind "$c")
	case $label in
	''|*[!A-Za-z0-9_.+-]*) die "condition '$c': the label '$label' must be letters, digits and _.+-" ;;
	esac
	case $kind in
	native) ;;
	proot) command -v proot >/dev/null ||
		die "condition '$c' needs proot: apt-get install proot, or leave the condition out" ;;
	*) k=$(cond_kernel "$c")
	   [ -x "$k" ] || die "condition '$c': no kernel at $k (build it: kernel/build.sh $kind)" ;;
	esac
}

# write_run_script COND SHARE ARGS... - SHARE/run.sh: perfbench with ARGS
# and the condition's environment, for the guest's umarm.run (or natively)
write_run_script() {
	local c=$1 share=$2 v
	shift 2
	{
		echo '#!/bin/sh'
		cond_env "$c" | while read -r v; do
			printf 'export %q\n' "$v"
		done
		# shellcheck disable=SC2016 # expanded by run.sh, not here
		printf 'exec "$(dirname "$0")/perfbench"'
		printf ' %q' "$@"
		printf '\n'
	} >"$share/run.sh"
	chmod +x "$share/run.sh"
}

# prepare_share COND ARGS... - OUT/share/LABEL with perfbench and run.sh
# (perfbench ARGS); prints the directory
prepare_share() {
	local c=$1 share
	shift
	share=$out/share/$(cond_label "$c")
	mkdir -p "$share"
	cp "$out/bin/$(cond_arch "$c")/perfbench" "$share/perfbench"
	write_run_script "$c" "$share" "$@"
	echo "$share"
}

# memfile_dir - the directory for a guest's memory file (run-gate --tmpdir):
# MEMFILE_DIR if set, else /dev/shm where it is a tmpfs that allows exec
# (what UML picks for a user without TMPDIR), else nothing (the artifacts,
# run-gate's default).  On a disk, first touches of guest memory cost more
# (tests/perf/README.md, "The runner").
memfile_dir() {
	if [ -n "${MEMFILE_DIR:-}" ]; then
		echo "$MEMFILE_DIR"
	elif [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
	     [ -w /dev/shm ] &&
	     ! findmnt -n -o OPTIONS /dev/shm | tr , '\n' | grep -qx noexec; then
		echo /dev/shm
	fi
}

# memfile_args - run-gate's --tmpdir option for memfile_dir, if any
memfile_args() {
	local d
	d=$(memfile_dir)
	[ -z "$d" ] || printf '%s\n' --tmpdir "$d"
}

# memfile_where - for the manifest: where the guests' memory files go, and
# the file system there
memfile_where() {
	local d
	d=$(memfile_dir)
	if [ -n "$d" ]; then
		echo "$d ($(stat -f -c %T "$d"))"
	else
		echo "tmp/ in each boot's artifacts ($(stat -f -c %T "$out"))"
	fi
}

# run_guest COND SHARE DIR [MARKER] - boot the condition's kernel with the
# minimal image, SHARE on /host and /host/run.sh as umarm.run, the console
# in DIR; run-gate judges it by perfbench's last line and by kernel bugs
run_guest() {
	local c=$1 share=$2 dir=$3 args memfile
	args=$(cond_kernel_args "$c")
	mapfile -t memfile < <(memfile_args)
	# shellcheck disable=SC2086 # the kernel arguments are words
	"$top/tests/autopkgtest/lib/run-gate" --name perf --artifacts "$dir" \
		"${memfile[@]}" --kernel "$(cond_kernel "$c")" --image "$(guest_image "$c")" \
		--hostfs "$share" --run /host/run.sh --mem "${MEM:-1024M}" \
		--marker "PERFBENCH-DONE rc=" --timeout "${PERF_TIMEOUT:-900}" \
		-- $args >"$dir.verdict" 2>&1
}

# guest_image COND - the minimal image for the kernel's architecture
# (IMAGE overrides it: a prebuilt image, e.g. in the emulated host); built
# or found once per architecture by prime_guest_images
declare -A guest_images
guest_image() {
	local a
	if [ -n "${IMAGE:-}" ]; then
		echo "$IMAGE"
		return
	fi
	a=$(cond_arch "$1")
	[ -n "${guest_images[$a]:-}" ] ||
		guest_images[$a]=$("$top/images/build.sh" minimal "$a" | tail -n 1)
	echo "${guest_images[$a]}"
}

# prime_guest_images COND... - find (or build) each guest architecture's
# image once, in this shell, so that rounds do not ask images/build.sh again
prime_guest_images() {
	local c
	for c in "$@"; do
		is_guest "$c" || continue
		guest_images[$(cond_arch "$c")]=$(guest_image "$c")
	done
}

# run_round COND ROUND - one round of COND: the validator's sample
# natively before and after it (lib/validator.sh, perfbench with the
# run's validator_args), and perfbench once (a fresh boot for a guest), its
# output in OUT/raw/LABEL-rROUND/console.log; all the round's rows, with
# the condition's own compute as "compute-inside", in
# OUT/raw/LABEL-rROUND/rows.tsv for the caller to keep or void.  Dies when
# the round failed.
run_round() {
	local c=$1 r=$2 label dir share log
	label=$(cond_label "$c")
	dir=$out/raw/$label-r$r
	log=$dir/console.log
	share=$out/share/$label
	validator_sample "$validator_pb" "$label" "$r" "$dir/before" keep "$c" \
		"${validator_args[@]}" >"$dir.rows"
	case $(cond_kind "$c") in
	native) "$share/run.sh" >"$log" 2>&1 || true ;;
	proot) proot "$share/run.sh" >"$log" 2>&1 || true ;;
	*) run_guest "$c" "$share" "$dir" ||
		die "round $r of $label failed: $(tail -n 1 "$dir.verdict")" ;;
	esac
	grep -q '^PERFBENCH-DONE rc=' "$log" ||
		die "round $r of $label: perfbench did not finish (see $log)"
	grep '^PERFBENCH-SKIP' "$log" | sed "s/^/run: $label: /" >&2 || true
	validator_sample "$validator_pb" "$label" "$r" "$dir/after" keep "$c" \
		"${validator_args[@]}" >>"$dir.rows"
	awk -v cond="$label" -v round="$r" -v compute_as=compute-inside \
		-f "$top/tests/perf/lib/samples.awk" "$log" >>"$dir.rows"
	mv "$dir.rows" "$dir/rows.tsv"
}
