#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: the whole suite. Static checks on this repository's kernel
# files, the kernel build, then one boot of the tiered VM in which the
# built-in KUnit suites run at boot (parsed from the console with kunit.py)
# and the pghot kselftests run as root. Ends with "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
phase() { log "[$(( $(date +%s) - start ))s] $*"; }

phase "tree";		"$TOP/tooling/assemble.sh" || exit 1
phase "static checks";	"$TOP/tooling/static-checks.sh" || exit 1
phase "kernel";		"$TOP/tooling/build.sh" || exit 1
phase "selftests";	"$TOP/tooling/build-selftests.sh" || exit 1
phase "VM: KUnit at boot + kselftests"
"$TOP/tooling/vm.sh" "tooling/guest-tests.sh" | tee "$OUT/check-selftests.log"
vm_rc=${PIPESTATUS[0]}

console=$OUT/vm/console.log
ku_pass=0 ku_fail=0
if grep -q 'KTAP version' "$console"; then
	kout=$(python3 "$LINUX/tools/testing/kunit/kunit.py" parse "$console" 2>&1)
	ku_rc=$?
	echo "$kout" | grep -E '\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete|^\s+#|Expected|but' | tail -60
	line=$(echo "$kout" | sed 's/\x1b\[[0-9;]*m//g' | grep 'Testing complete' | tail -1)
	ku_pass=$(echo "$line" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
	ku_fail=$(echo "$line" | sed -n 's/.*failed: \([0-9]*\).*/\1/p')
	ku_crash=$(echo "$line" | sed -n 's/.*crashed: \([0-9]*\).*/\1/p')
	ku_pass=${ku_pass:-0}
	ku_fail=$(( ${ku_fail:-0} + ${ku_crash:-0} ))
	[ $ku_rc = 0 ] || [ $ku_fail -gt 0 ] || ku_fail=1
	phase "KUnit: $ku_pass passed, $ku_fail failed"
elif grep -q '^CONFIG_PGHOT_KUNIT_TEST=y' "${KBUILD:-$OUT/build}/.config" 2>/dev/null; then
	log "KUnit suites are configured but printed nothing"; ku_fail=1
else
	phase "KUnit: no suites configured"
fi

sl=$(grep -E '^selftests: [0-9]+ passed' "$OUT/check-selftests.log" | tail -1)
st_pass=$(echo "$sl" | sed -n 's/selftests: \([0-9]*\) passed.*/\1/p')
st_fail=$(echo "$sl" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
st_pass=${st_pass:-0}
st_fail=${st_fail:-0}
[ "$vm_rc" = 0 ] || [ "$st_fail" -gt 0 ] || st_fail=1

phase "done in $(( $(date +%s) - start ))s"
echo "check: $((ku_pass + st_pass)) passed, $((ku_fail + st_fail)) failed"
[ $((ku_fail + st_fail)) = 0 ]
