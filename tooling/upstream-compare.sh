#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make upstream-compare: the upstream tests make check runs for regressions
# (UPSTREAM_TESTS in tooling/lib.sh: mm/migration,
# memory-hotplug/mem-on-off-test.sh) on the base kernel (built by make
# series-check from the unpatched tree) and on the patched kernel (the
# series' last step, same config, out/series-check/patched-bzImage; or
# out/build if there is none), in the same VM shape and with the same kernel arguments,
# side by side.
#
# Fails if either kernel's VM crashed, timed out or reported a kernel
# problem (two that crash alike prove nothing), if the patched one's tests
# exited with an error where the base one's did not, or if any test case
# the base kernel passes is not a pass on the patched kernel (failed,
# skipped or missing from its results).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

base=$OUT/series-check/base-bzImage
patched=$OUT/series-check/patched-bzImage
[ -f "$patched" ] || patched=$OUT/build/arch/x86/boot/bzImage
[ -f "$base" ] || die "no base kernel at $base; run 'make series-check'"
[ -f "$patched" ] || die "no patched kernel at $patched; run 'make kernel'"
"$TOP/tooling/build-selftests.sh" || exit 1

declare -A vmrc=() summary=()
for k in base patched; do
	kernel=$base
	[ $k = patched ] && kernel=$patched
	log "upstream tests on the $k kernel"
	NODE_CPUS=2 NODE0_MB=$UPSTREAM_NODE_MB NODE2_MB=$UPSTREAM_NODE_MB \
		KERNEL=$kernel VMDIR=$OUT/vm-upstream-$k VM_APPEND="$UPSTREAM_APPEND" \
		"$TOP/tooling/vm.sh" \
		"PGHOT_BOOT=upstream PGHOT_HANGCHECK=0 PGHOT_TESTS='$UPSTREAM_TESTS' tooling/guest-tests.sh" \
		> "$OUT/upstream-$k.log" 2>&1
	vmrc[$k]=$?
	echo "vm exit status ${vmrc[$k]}" >> "$OUT/upstream-$k.log"
	# "STATUS id", one per test case, sorted by id.
	sed -n 's/\r$//; s/^result: \([A-Z]*\) \([^ ]*\).*/\2 \1/p' "$OUT/upstream-$k.log" |
		LC_ALL=C sort > "$OUT/upstream-$k.results"
	summary[$k]=$(grep -E '^selftests:' "$OUT/upstream-$k.log" | tail -1)
done
echo "base:    ${summary[base]:-no summary} (vm exit status ${vmrc[base]}; $OUT/upstream-base.log)"
echo "patched: ${summary[patched]:-no summary} (vm exit status ${vmrc[patched]}; $OUT/upstream-patched.log)"
LC_ALL=C join -a1 -a2 -e '-' -o 0,1.2,2.2 "$OUT/upstream-base.results" "$OUT/upstream-patched.results" |
	awk '{ printf "  %-60s base %-5s patched %s\n", $1, $2, $3 }'

bad=0
# A test the base kernel passes must pass on the patched kernel too.
lost=$(LC_ALL=C join -a1 -e MISSING -o 0,1.2,2.2 "$OUT/upstream-base.results" "$OUT/upstream-patched.results" |
	awk '$2 == "PASS" && $3 != "PASS" { print $1 " (" $3 ")" }')
if [ -n "$lost" ]; then
	log "passes on the base kernel, not on the patched one:"
	echo "$lost" | sed 's/^/pghot:   /' >&2
	bad=1
fi
vm_why() {
	case $1 in
	125) echo "timed out" ;;
	126) echo "the guest kernel reported a problem" ;;
	127) echo "the guest did not finish (crash or panic)" ;;
	*) echo "the tests exited with $1" ;;
	esac
}
# A VM that crashed, timed out or reported a kernel problem proves
# nothing, on either kernel: two that crash alike are no match.
for k in base patched; do
	case ${vmrc[$k]} in
	125|126|127)
		log "the $k kernel's VM: $(vm_why "${vmrc[$k]}") (console: $OUT/vm-upstream-$k/console.log)"
		bad=1 ;;
	esac
done
# The patched VM's tests must end as well as the base one's did.
case ${vmrc[patched]} in
0|125|126|127|"${vmrc[base]}") ;;
*)	log "the patched kernel's VM: $(vm_why "${vmrc[patched]}") (base: exit status ${vmrc[base]})"
	bad=1 ;;
esac
[ -s "$OUT/upstream-base.results" ] || { log "the base kernel produced no results"; bad=1; }
[ $bad = 0 ] || die "the patched kernel regresses on the upstream tests"
log "every upstream test the base kernel passes passes on the patched kernel"
