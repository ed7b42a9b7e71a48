# SPDX-License-Identifier: GPL-2.0
# pghot development driver. This is not the kernel's Makefile: the kernel
# tree is assembled under out/linux from Debian's linux-source-7.3, the new
# files of this repository and patches/ (see README.md).

SHELL := /bin/bash
T := tooling

.PHONY: all setup tree kernel selftests vm check static demo refresh \
	vm-soak vm-soak-debug measure-core series series-check upstream-compare \
	clean distclean emu

all: kernel

setup:
	@$(T)/setup.sh

tree: setup
	@$(T)/assemble.sh

kernel: tree
	@$(T)/build.sh

selftests: tree
	@$(T)/build-selftests.sh

# make vm CMD='numactl -H'
vm: kernel selftests
	@$(T)/vm.sh "$(if $(CMD),$(CMD),true)"

# The emulated CXL box's QEMU plugin and guest helper (tooling/emu/README).
emu: setup
	@$(T)/emu/build.sh

# The whole test suite: static checks, KUnit and the kselftests in the VM.
check: setup
	@$(T)/check.sh

static: tree
	@$(T)/static-checks.sh

demo: setup
	@$(T)/demo.sh

# The series as git format-patch output with a cover letter: out/series/.
series: tree
	@$(T)/series.sh

# git am the series on a clean base tree: checkpatch and a build per patch.
series-check: series
	@$(T)/series-check.sh

# Upstream migration/hotplug tests on the base and the patched kernel.
upstream-compare: setup
	@$(T)/upstream-compare.sh

# Save edits made under out/linux back into the repository.
refresh:
	@$(T)/refresh.sh

# Record memory per page, idle kmigrated CPU time, record update cost.
measure-core: kernel
	@$(T)/measure-core.sh

# N consecutive boots of the test VM.
vm-soak: kernel
	@$(T)/vm-soak.sh $(or $(N),50)

# The same with make check's debug kernel (KUNIT=1: its suites at boot too).
DEBUG_ENV = KBUILD=$(CURDIR)/out/build-debug \
	FRAGMENTS="$(CURDIR)/tooling/kconfig/pghot.config $(CURDIR)/tooling/kconfig/debug.config"
vm-soak-debug: tree
	@$(DEBUG_ENV) $(T)/build.sh
	@$(DEBUG_ENV) $(T)/vm-soak.sh $(or $(N),30)

clean:
	rm -rf out/vm out/selftests out/stage

distclean:
	rm -rf out
