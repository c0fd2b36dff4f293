# linux-uml-arm64 - top-level entry points (see README.md)
#
#   make deps                 install build and test dependencies (root/sudo)
#   make kernel FLAVOUR=F     build flavour F: arm64-4k, arm64-16k or x86_64
#   make kernels              all three flavours
#   make image IMAGE=N        build guest image N (minimal, debian, musl)
#   make umarmctl             build tools/umarmctl
#   make demo                 start an instance with the default image and use it
#   make check                the whole test suite (tests/run); CI runs this
#   make check-package        cross-build the .debs, lintian, autopkgtest in
#                             the emulated arm64 testbed (tests/run package)
#   make bench [BENCH_ARGS=]  perfbench in interleaved rounds: native, proot,
#                             the UML guests (tests/perf/run; README there)
#   make devtree DIR=D        kernel/patches as a git tree in D (git am)
#   make export DIR=D         the git tree in D back to kernel/patches

FLAVOUR ?= $(if $(filter aarch64,$(shell uname -m)),arm64-4k,x86_64)
IMAGE ?= minimal
ARCH_IMAGE ?= $(if $(filter aarch64,$(shell uname -m)),arm64,amd64)

.PHONY: all deps kernel kernels image umarmctl demo check check-package bench devtree export

all: kernel

deps:
	tools/setup-host.sh

kernel:
	kernel/build.sh $(FLAVOUR)

kernels:
	kernel/build.sh x86_64
	kernel/build.sh arm64-4k
	kernel/build.sh arm64-16k

image:
	images/build.sh $(IMAGE) $(ARCH_IMAGE)

umarmctl:
	$(MAKE) -C tools/umarmctl

demo: deps
	tools/demo.sh

check: deps
	tests/run

check-package: deps
	tests/run package

bench:
	tests/perf/run $(BENCH_ARGS)

devtree:
	@test -n "$(DIR)" || { echo "make devtree DIR=/path/to/new/tree" >&2; exit 2; }
	kernel/devtree.sh import $(DIR)

export:
	@test -n "$(DIR)" || { echo "make export DIR=/path/to/tree" >&2; exit 2; }
	kernel/devtree.sh export $(DIR)
