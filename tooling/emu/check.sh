#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The emulated CXL box in one short boot (a step of make check): builds
# the plugin, boots with VM_SLOWMEM=1 VM_SAMPLER=1 (KBUILD as set by the
# caller) and runs tooling/emu/guest-check.sh. Last line:
# "emu: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

start=$(date +%s)
# The known upstream report at boot (vm.sh exit 128) proves nothing: boot
# again, at most twice, as make check's other boots do.
for try in 1 2 3; do
	VMDIR=${VMDIR:-$OUT/vm-emu} VM_SLOWMEM=1 VM_SAMPLER=1 \
		"$TOP/tooling/vm.sh" tooling/emu/guest-check.sh 2>&1 | tee "$OUT/check-emu.log"
	rc=${PIPESTATUS[0]}
	[ "$rc" = 128 ] && [ $try -lt 3 ] || break
	log "emu check: the known upstream report at boot; booting again"
done
line=$(grep -E '^emu: [0-9]+ passed' "$OUT/check-emu.log" | tail -1)
log "emu check: ${line:-no result} (vm rc $rc) in $(( $(date +%s) - start )) s"
[ "$rc" = 0 ] && [ -n "$line" ]
