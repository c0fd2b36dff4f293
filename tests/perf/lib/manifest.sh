# manifest.sh - what a benchmark run ran on, so that its figures can be
# placed later (sourced by tests/perf/run; bash)
#
# Needs: top, out, conditions (array).
# shellcheck shell=bash disable=SC2154 # out, top, perf_args: set by tests/perf/run

# cpu_model - the CPU as /proc/cpuinfo names it (x86: model name; arm64:
# implementer, part and variant of each distinct core type)
cpu_model() {
	local m
	m=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sort -u | tr '\n' ';')
	[ -n "$m" ] || m=$(awk -F': ' '/^CPU implementer/ { i = $2 } /^CPU variant/ { v = $2 }
		/^CPU part/ { print "implementer " i " part " $2 " variant " v }' /proc/cpuinfo |
		sort | uniq -c | sed 's/^ *//' | tr '\n' ';')
	echo "${m:-unknown}"
}

# virt_info - whether this host is a virtual machine and, if QEMU, which:
# systemd-detect-virt where installed, the firmware's DMI strings, and
# QEMU_VERSION as the caller (tests/vm/bench-arm64.sh) knows it
virt_info() {
	local f
	echo "virt: $(systemd-detect-virt 2>/dev/null || echo "unknown (no systemd-detect-virt, or none)")"
	for f in sys_vendor product_name product_version bios_version; do
		[ -r "/sys/class/dmi/id/$f" ] && echo "dmi_$f: $(cat "/sys/class/dmi/id/$f")"
	done
	echo "qemu_version: ${QEMU_VERSION:-not given (set QEMU_VERSION when emulated)}"
}

# hash_line FILE - "sha256 FILE"
hash_line() {
	echo "sha256: $(sha256sum "$1" | cut -d' ' -f1) $1"
}

# write_manifest - OUT/manifest.txt
write_manifest() {
	local c k
	{
		echo "command: $0 ${run_argv[*]}"
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		# GIT_HEAD: given by whoever copied the tree (tests/vm/bench-arm64.sh)
		echo "git_head: ${GIT_HEAD:-$(git -C "$top" rev-parse HEAD 2>/dev/null || echo "not a git tree")}"
		echo "git_dirty_files: $(git -C "$top" status --porcelain 2>/dev/null | wc -l)"
		echo "host_kernel: $(uname -srvm)"
		echo "page_size: $(getconf PAGESIZE)"
		echo "cpus: $(nproc)"
		echo "cpu_model: $(cpu_model)"
		echo "memory_file_dir: $(memfile_where)"
		virt_info
		echo "loadavg_start: $(cat /proc/loadavg)"
		echo "rounds: $rounds"
		echo "perfbench_args: ${perf_args[*]}"
		for c in "${conditions[@]}"; do
			echo "condition: $c"
		done
		for k in "$out"/bin/*/perfbench; do
			hash_line "$k"
		done
		for c in "${conditions[@]}"; do
			case $(cond_kind "$c") in
			native) ;;
			proot) hash_line "$(command -v proot)"
			       echo "proot_version: $(proot --version 2>&1 | grep -o '[0-9][0-9]*\.[0-9][0-9.]*' | head -n 1)"
			       echo "proot_$(proot --version 2>&1 | grep -m1 'accelerators' || echo 'accelerators: unknown')"
			       echo "proot_package: $(dpkg-query -W -f '${Version}' proot 2>/dev/null || echo unknown)" ;;
			*) hash_line "$(cond_kernel "$c")"
			   hash_line "$(guest_image "$c")" ;;
			esac
		done | sort -u
	} >"$out/manifest.txt"
}

# close_manifest - the end of the run: load, and when it ended
close_manifest() {
	{
		echo "loadavg_end: $(cat /proc/loadavg)"
		echo "ended: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} >>"$out/manifest.txt"
}
