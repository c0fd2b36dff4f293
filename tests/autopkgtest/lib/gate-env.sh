# gate-env.sh - shared defaults for the boot gates (sourced, POSIX sh)
#
# gate_kernel   sets KERNEL: $KERNEL if given, else the installed flavour
#               whose page size fits the host (16k on 16K hosts, 4k otherwise)
# gate_image N  sets IMAGE: $IMAGE if given, else builds image N with images/
#               for the kernel's architecture
# gate_modules  sets MODULES: $MODULES if given, else the module tree next to
#               the kernel; exits 77 where there is none
# gate_share_modules DIR
#               copies MODULES to DIR/modules for a guest to mount

UMARM_LIBDIR=${UMARM_LIBDIR:-/usr/lib/uml/linux-uml-arm64}

gate_die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

gate_kernel() {
	if [ -z "${KERNEL:-}" ]; then
		case $(getconf PAGESIZE) in
		4096) KERNEL=$UMARM_LIBDIR/4k/linux ;;
		16384) KERNEL=$UMARM_LIBDIR/16k/linux ;;
		*) echo "$(basename "$0"): host page size $(getconf PAGESIZE) has no flavour" >&2
		   exit 77 ;;
		esac
	fi
	[ -x "$KERNEL" ] ||
		gate_die "no UML kernel at $KERNEL: install linux-uml-arm64 or set KERNEL"
	export KERNEL
}

# gate_arch - the Debian architecture the kernel runs on, from the ELF
# header's e_machine (little endian at offset 18; file(1) is not on every
# test host)
gate_arch() {
	case $(od -An -tx1 -j18 -N2 "$KERNEL" | tr -d ' ') in
	b700) echo arm64 ;;
	3e00) echo amd64 ;;
	*) gate_die "cannot tell the architecture of $KERNEL (not an aarch64 or x86-64 ELF file)" ;;
	esac
}

gate_image() {
	if [ -z "${IMAGE:-}" ]; then
		# top: the source tree, set by the sourcing gate
		# shellcheck disable=SC2154
		IMAGE=$("$top/images/build.sh" "$1" "$(gate_arch)" | tail -n 1)
	fi
	[ -f "$IMAGE" ] || gate_die "image $IMAGE does not exist"
	export IMAGE
}

# gate_modules - the kernel's module tree (the directory with modules.dep):
# OUT/modules/lib/modules/VERSION for kernel/build.sh, FLAVOUR/modules/
# VERSION for the packages; a gate without one is skipped (77)
gate_modules() {
	if [ -z "${MODULES:-}" ]; then
		MODULES=$(find "$(dirname "$KERNEL")/modules" -maxdepth 4 -name modules.dep \
			2>/dev/null | head -n 1)
		MODULES=${MODULES%/modules.dep}
	fi
	if [ -z "$MODULES" ] || [ ! -f "$MODULES/modules.dep" ]; then
		echo "$(basename "$0"): no module tree (modules.dep) next to $KERNEL; set MODULES" >&2
		exit 77
	fi
	export MODULES
}

# gate_share_modules DIR - MODULES as DIR/modules, for the guest over hostfs,
# without build and source: symlinks to the kernel's build tree or headers
gate_share_modules() {
	cp -r "$MODULES" "$1/modules"
	rm -f "$1/modules/build" "$1/modules/source"
}

# gate_artifact_dir NAME - make and print run-gate's own choice of artifact
# directory for a gate called NAME, for gates that must find their UML
# process (pgrep on its COW file) while it runs
gate_artifact_dir() {
	gate_art=${AUTOPKGTEST_ARTIFACTS:-${ARTIFACTS:-${UMARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/linux-uml-arm64}/artifacts}}
	gate_art=$gate_art/$1-$(date +%Y%m%d-%H%M%S)-$$
	mkdir -p "$gate_art"
	(cd "$gate_art" && pwd)
}
