#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: the whole suite. Static checks on this repository's kernel
# files, the kernel build, then boots of the tiered VM in which the
# built-in KUnit suites run at boot (parsed from the console with kunit.py)
# and the pghot kselftests run as root: one boot in the default record
# mode with every selftest, one in precise mode (same kernel binary) with
# the pghot ones, and one with more CPUs for the upstream migration and
# memory-hotplug tests; then make series and make series-check, which
# count as one more test. Ends with "check: N passed, N failed".
#
# The kernel under test is a debug kernel (tooling/kconfig/debug.config:
# KASAN, lockdep, DEBUG_VM, DEBUG_ATOMIC_SLEEP, ...) built in out/build-debug;
# any report from it fails the boot. make demo builds the plain one.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

export KBUILD=${KBUILD:-$OUT/build-debug}
export FRAGMENTS=${FRAGMENTS:-"$TOP/tooling/kconfig/pghot.config $TOP/tooling/kconfig/debug.config"}

start=$(date +%s)
phase() { log "[$(( $(date +%s) - start ))s] $*"; }
pass=0 fail=0

# KUnit results from a boot's console; adds to pass/fail.
kunit_results() {
	local console=$1 kout line p f c rc

	if ! grep -q 'KTAP version' "$console"; then
		log "no KUnit output on $console"; fail=$((fail + 1)); return
	fi
	# The stack-depth reports of exiting tasks (CONFIG_DEBUG_STACK_USAGE)
	# can land inside KTAP output and break kunit.py's nesting.
	grep -v 'used greatest stack depth' "$console" > "$console.ktap"
	kout=$(python3 "$LINUX/tools/testing/kunit/kunit.py" parse "$console.ktap" 2>&1)
	rc=$?
	echo "$kout" | sed 's/\x1b\[[0-9;]*m//g' |
		grep -E '\[(FAILED|CRASHED|SKIPPED)\]|Testing complete|Expected|but|median' | tail -40
	line=$(echo "$kout" | sed 's/\x1b\[[0-9;]*m//g' | grep 'Testing complete' | tail -1)
	p=$(echo "$line" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
	f=$(echo "$line" | sed -n 's/.*failed: \([0-9]*\).*/\1/p')
	c=$(echo "$line" | sed -n 's/.*crashed: \([0-9]*\).*/\1/p')
	f=$(( ${f:-0} + ${c:-0} ))
	[ $rc = 0 ] || [ $f -gt 0 ] || f=1
	phase "KUnit ($(basename "$(dirname "$console")")): ${p:-0} passed, $f failed"
	pass=$((pass + ${p:-0})) fail=$((fail + f))
}

# One boot: KUnit at boot (unless $4 is nokunit), then the selftests
# matching $2. $3: extra kernel arguments. Environment for vm.sh may be set
# by the caller (NODE_CPUS).
boot() {
	local name=$1 tests=$2 append=$3 kunit=1 log=$OUT/check-$1.log rc sl sp sf

	[ "${4:-}" != nokunit ] || kunit=0
	phase "VM ($name): $([ $kunit = 1 ] && echo 'KUnit at boot + ')kselftests $tests"
	KUNIT=$kunit VMDIR=$OUT/vm-$name VM_APPEND="$append" \
		"$TOP/tooling/vm.sh" "PGHOT_TESTS='$tests' tooling/guest-tests.sh" | tee "$log"
	rc=${PIPESTATUS[0]}
	[ $kunit = 0 ] || kunit_results "$OUT/vm-$name/console.log"
	sl=$(grep -E '^selftests: [0-9]+ passed' "$log" | tail -1)
	sp=$(echo "$sl" | sed -n 's/selftests: \([0-9]*\) passed.*/\1/p')
	sf=$(echo "$sl" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	sf=${sf:-0}
	[ "$rc" = 0 ] || [ "$sf" -gt 0 ] || sf=1
	pass=$((pass + ${sp:-0})) fail=$((fail + sf))
}

phase "tree";		"$TOP/tooling/assemble.sh" || exit 1
phase "static checks";	"$TOP/tooling/static-checks.sh" || exit 1
phase "kernel";		"$TOP/tooling/build.sh" || exit 1
phase "selftests";	"$TOP/tooling/build-selftests.sh" || exit 1
boot default 'pghot_*' ''
boot precise 'pghot_promote pghot_hotplug pghot_hwhint' 'pghot_mode=precise'
# The upstream migration and memory-hotplug tests must pass on the patched
# kernel too; mm/migration wants two CPUs more than the nodes it migrates
# between, so this boot has two CPUs on each of nodes 0 and 1.
NODE_CPUS=2 boot upstream 'upstream/migration upstream/mem-on-off-test.sh' '' nokunit

# The emulated CXL box (tooling/emu): the plugin builds and loads, slows
# node 2 by the configured ratio and its samples reach pghot.
phase "VM (emu): emulated CXL box, tooling/emu/guest-check.sh"
"$TOP/tooling/emu/check.sh"
erc=$?
el=$(grep -E '^emu: [0-9]+ passed' "$OUT/check-emu.log" 2>/dev/null | tail -1)
ep=$(echo "$el" | sed -n 's/emu: \([0-9]*\) passed.*/\1/p')
ef=$(echo "$el" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
ef=${ef:-0}
[ "$erc" = 0 ] || [ "$ef" -gt 0 ] || ef=1
pass=$((pass + ${ep:-0})) fail=$((fail + ef))

# The series as it would be posted: every patch checkpatch-clean and
# building on its own (plain config, out/series-check).
phase "series: make series + make series-check"
if "$TOP/tooling/series.sh" > "$OUT/check-series.log" 2>&1 &&
   "$TOP/tooling/series-check.sh" >> "$OUT/check-series.log" 2>&1; then
	grep -E '^pghot: (series|0[0-9]+-)' "$OUT/check-series.log" | tail -13
	pass=$((pass + 1))
else
	tail -30 "$OUT/check-series.log"
	log "series: failed (log: $OUT/check-series.log)"
	fail=$((fail + 1))
fi

phase "done in $(( $(date +%s) - start ))s"
echo "check: $pass passed, $fail failed"
[ $fail = 0 ]
