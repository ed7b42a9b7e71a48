#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make upstream-compare: the upstream tests make check runs for regressions
# (mm/migration, memory-hotplug/mem-on-off-test.sh) on the base kernel
# (built by make series-check from the unpatched tree) and on the patched
# kernel (the series' last step in out/series-check/build, same config; or
# out/build if there is none), in the same VM shape, side by side.
# Fails if the patched kernel fails a test the base kernel passes.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TESTS='upstream/migration upstream/mem-on-off-test.sh'
base=$OUT/series-check/base-bzImage
patched=$OUT/series-check/build/arch/x86/boot/bzImage
[ -f "$patched" ] || patched=$OUT/build/arch/x86/boot/bzImage
[ -f "$base" ] || die "no base kernel at $base; run 'make series-check'"
[ -f "$patched" ] || die "no patched kernel at $patched; run 'make kernel'"
"$TOP/tooling/build-selftests.sh" || exit 1

declare -A result
for k in base patched; do
	kernel=$base
	[ $k = patched ] && kernel=$patched
	log "upstream tests on the $k kernel"
	NODE_CPUS=2 KERNEL=$kernel VMDIR=$OUT/vm-upstream-$k "$TOP/tooling/vm.sh" \
		"PGHOT_TESTS='$TESTS' tooling/guest-tests.sh" > "$OUT/upstream-$k.log" 2>&1
	echo "vm exit status $?" >> "$OUT/upstream-$k.log"
	grep -E '^(ok|not ok) [0-9]+ |exited with' "$OUT/upstream-$k.log" |
		sort -u > "$OUT/upstream-$k.results"
	result[$k]=$(grep -E '^selftests:' "$OUT/upstream-$k.log" | tail -1)
done
echo "base:    ${result[base]:-no summary (see $OUT/upstream-base.log)}"
echo "patched: ${result[patched]:-no summary (see $OUT/upstream-patched.log)}"
diff -u "$OUT/upstream-base.results" "$OUT/upstream-patched.results"
# A test that fails on the patched kernel and passes on the base one.
regressed=$(sed -n 's/^not ok [0-9]* //p' "$OUT/upstream-patched.results" |
	while read -r t; do
		grep -qE "^ok [0-9]+ $t\$" "$OUT/upstream-base.results" && echo "$t"
	done)
[ -z "$regressed" ] || die "the patched kernel fails where the base one passes: $regressed"
log "no test fails on the patched kernel that passes on the base one"
