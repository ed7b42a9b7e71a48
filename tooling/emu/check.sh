#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The emulated CXL box in one short boot (a step of make check): builds
# the plugin, boots with VM_SLOWMEM=1 VM_SAMPLER=1 (KBUILD as set by the
# caller) and runs tooling/emu/guest-check.sh. Last line:
# "emu: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

start=$(date +%s)
VMDIR=${VMDIR:-$OUT/vm-emu} VM_SLOWMEM=1 VM_SAMPLER=1 \
	"$TOP/tooling/vm.sh" tooling/emu/guest-check.sh | tee "$OUT/check-emu.log"
rc=${PIPESTATUS[0]}
line=$(grep -E '^emu: [0-9]+ passed' "$OUT/check-emu.log" | tail -1)
log "emu check: ${line:-no result} (vm rc $rc) in $(( $(date +%s) - start )) s"
[ "$rc" = 0 ] && [ -n "$line" ]
