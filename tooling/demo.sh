#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build what is missing, boot the tiered VM, replay the
# reference benchmarks side by side on that one kernel (see
# tooling/guest-demo.sh for scenarios and configurations), and print the
# tables; results.json and residency plots go to out/demo/.
#
#   DEMO_SCENARIOS='promotion precision overcommit coldhog scale-256
#                   scale-1024 scale-2048 sampled latency'
#   DEMO_REPS=3  DEMO_DURATION=20 (seconds per run)  DEMO_HOT_MB=256 (promotion)
#   DEMO_PRECISION_MB=64 (hot and cold set, precision)
#   DEMO_HOG_LOCKED=1 (overcommit: 0 lets reclaim demote the hog)
#   DEMO_SCALE_DURATION=60 (seconds per scale run)
#   sampled (the emulator's sampler feeds the promotion and precision
#   shapes): DEMO_SAMPLED_DENSITIES='0.07 0.0175 0.28' (samples per hot
#   page per s; the first is the reference), DEMO_SAMPLED_PAGE_DENSITIES=
#   0.07 (where the rows to compare, P1/P2, L1/L2 and A1/A2, run too),
#   DEMO_SAMPLED_OTHER_REPS (runs at the other densities, default
#   DEMO_REPS), DEMO_SAMPLED_CONFIGS ('P1 P2 L1 L2 A1 A2 S1 S2'),
#   DEMO_SAMPLED_MB=64,
#   DEMO_WARM_RATIO=10, DEMO_SAMPLED_DURATION=60, DEMO_SAMPLED_BLOCKS=1
#   (each set in 2 MiB blocks of its own; 0: as the allocator places it),
#   DEMO_SAMPLED_LAYOUTS='interleave sparse alloc skewed' (pghot-bench
#   --layout, skewed: --zipf DEMO_SAMPLED_ZIPF=1; each its own scenario,
#   at the first density) with
#   DEMO_SAMPLED_LAYOUT_CONFIGS='P1 P2 L1 L2 S1 S2'
#   latency (emulated CXL box): DEMO_LATENCY_DURATION=30
#   DEMO_LATENCY_DENSITIES='0.07 0.28' (sampler: samples per hot page per s)
#   DEMO_SAMPLER_ARGS ('pghot-emu feed' options, default --slow-only)
#   DEMO_LATENCY_SCAN='1000 1000 60000 256' (NUMA balancing scan delay,
#   period min and max in ms, size in MB: the kernel's defaults),
#   DEMO_TICK_HZ=0 (pghot-emu tick: wake a process on every CPU this
#   often, the same emulated-TLB flushes in every row; 0: none)
# The scale scenarios need a larger VM (DEMO_SCALE_NODE0_MB=4096,
# DEMO_SCALE_NODE2_MB=3072), the sampled scenario the emulator's sampler
# and the latency scenario the emulated CXL box (tooling/emu/README): each
# group runs in a boot of its own of the same kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
"$TOP/tooling/assemble.sh"
"$TOP/tooling/build.sh"
"$TOP/tooling/build-selftests.sh"
DEMO_OUT=${DEMO_OUT:-$OUT/demo}
rm -rf "$DEMO_OUT"
mkdir -p "$DEMO_OUT/raw"
scenarios=${DEMO_SCENARIOS:-promotion precision overcommit coldhog scale-256 scale-1024 scale-2048 sampled latency}
small="" scale="" sampled="" latency=""
for s in $scenarios; do
	case $s in
	scale-*) scale="$scale $s" ;;
	sampled) sampled=" sampled" ;;
	latency) latency=" latency" ;;
	*) small="$small $s" ;;
	esac
done
# The commit the figures come from, for the cover letter.
commit=$(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)
git -C "$TOP" diff --quiet HEAD 2>/dev/null || commit="$commit-dirty"
echo "$commit" > "$DEMO_OUT/commit"

# The known upstream report at boot (tooling/known-reports.awk, vm.sh exit
# 128) stops the guest before the scenarios: boot again, at most twice, as
# check.sh does.
demo_boot() {	# scenarios vmdir [vm.sh environment...]
	local list=$1 vmdir=$2 try rc
	shift 2
	for try in 1 2 3; do
		rc=0
		demo_boot_once "$list" "$vmdir" "$@" || rc=$?
		[ $rc = 128 ] && [ $try -lt 3 ] || return $rc
		cp "$vmdir/console.log" "$vmdir/console-known-report-$try.log"
		log "the known upstream report at boot; booting again"
	done
}

demo_boot_once() {	# scenarios vmdir [vm.sh environment...]
	local list=$1 vmdir=$2
	shift 2
	log "running$list in the VM (progress below)"
	env "$@" VM_TIMEOUT="${VM_TIMEOUT:-7200}" VMDIR="$vmdir" "$TOP/tooling/vm.sh" \
		"DEMO_OUT=$DEMO_OUT DEMO_REPS=${DEMO_REPS:-3} DEMO_DURATION=${DEMO_DURATION:-20} \
		 DEMO_HOT_MB=${DEMO_HOT_MB:-256} DEMO_PRECISION_MB=${DEMO_PRECISION_MB:-64} \
		 DEMO_HOG_LOCKED=${DEMO_HOG_LOCKED:-1} DEMO_SCALE_DURATION=${DEMO_SCALE_DURATION:-60} \
		 DEMO_LATENCY_DURATION=${DEMO_LATENCY_DURATION:-30} DEMO_TICK_HZ=${DEMO_TICK_HZ:-0} \
		 DEMO_LATENCY_DENSITIES='${DEMO_LATENCY_DENSITIES:-0.07 0.28}' \
		 DEMO_SAMPLER_ARGS='${DEMO_SAMPLER_ARGS:---slow-only}' \
		 DEMO_LATENCY_SCAN='${DEMO_LATENCY_SCAN:-1000 1000 60000 256}' \
		 DEMO_SAMPLED_DENSITIES='${DEMO_SAMPLED_DENSITIES:-0.07 0.0175 0.28}' \
		 DEMO_SAMPLED_PAGE_DENSITIES='${DEMO_SAMPLED_PAGE_DENSITIES:-0.07}' \
		 DEMO_SAMPLED_OTHER_REPS=${DEMO_SAMPLED_OTHER_REPS:-${DEMO_REPS:-3}} \
		 DEMO_SAMPLED_CONFIGS='${DEMO_SAMPLED_CONFIGS:-P1 P2 L1 L2 A1 A2 S1 S2}' \
		 DEMO_SAMPLED_MB=${DEMO_SAMPLED_MB:-64} DEMO_WARM_RATIO=${DEMO_WARM_RATIO:-10} \
		 DEMO_SAMPLED_DURATION=${DEMO_SAMPLED_DURATION:-60} \
		 DEMO_SAMPLED_BLOCKS=${DEMO_SAMPLED_BLOCKS:-1} \
		 DEMO_SAMPLED_LAYOUTS='${DEMO_SAMPLED_LAYOUTS-interleave sparse alloc skewed}' \
		 DEMO_SAMPLED_ZIPF=${DEMO_SAMPLED_ZIPF:-1} \
		 DEMO_SAMPLED_LAYOUT_CONFIGS='${DEMO_SAMPLED_LAYOUT_CONFIGS:-P1 P2 L1 L2 S1 S2}' \
		 DEMO_SCENARIOS='$list' tooling/guest-demo.sh"
}
[ -z "$small" ] || demo_boot "$small" "$OUT/vm-demo"
[ -z "$scale" ] || demo_boot "$scale" "$OUT/vm-demo-scale" \
	NODE0_MB="${DEMO_SCALE_NODE0_MB:-4096}" NODE2_MB="${DEMO_SCALE_NODE2_MB:-3072}"
[ -z "$sampled" ] || demo_boot "$sampled" "$OUT/vm-demo-sampled" VM_SAMPLER=1
[ -z "$latency" ] || demo_boot "$latency" "$OUT/vm-demo-latency" VM_SLOWMEM=1 VM_SAMPLER=1
DEMO_COMMIT=$commit python3 "$TOP/tooling/demo-report.py" "$DEMO_OUT"
log "demo done in $(( $(date +%s) - start )) s. Outside the latency scenario the VM's memory is equally fast on every node: those runs show what moves, when and at what cost, not a latency gain."
