#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build what is missing, boot the tiered VM once, replay the
# reference benchmarks side by side on that one kernel (see
# tooling/guest-demo.sh for scenarios and configurations), and print the
# tables; results.json and residency plots go to out/demo/.
#
#   DEMO_SCENARIOS='promotion precision overcommit'  DEMO_REPS=3
#   DEMO_DURATION=20 (seconds per run)  DEMO_HOT_MB=256 (promotion)
#   DEMO_PRECISION_MB=64 (hot and cold set, precision)
#   DEMO_HOG_LOCKED=1 (overcommit: 0 lets reclaim demote the hog)
#   latency (emulated CXL box): DEMO_LATENCY_DURATION=30
#   DEMO_LATENCY_DENSITIES='0.07 0.28' (sampler: samples per hot page per s)
#   DEMO_SAMPLER_ARGS ('pghot-emu feed' options, default --slow-only)
#   DEMO_LATENCY_SCAN='1000 1000 60000 256' (NUMA balancing scan delay,
#   period min and max in ms, size in MB: the kernel's defaults)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
"$TOP/tooling/assemble.sh"
"$TOP/tooling/build.sh"
"$TOP/tooling/build-selftests.sh"
DEMO_OUT=${DEMO_OUT:-$OUT/demo}
rm -rf "$DEMO_OUT"
mkdir -p "$DEMO_OUT/raw"
# The latency scenario runs in the emulated CXL box (tooling/emu/README):
# a boot of its own with slow node-2 memory and the plugin's sampler.
DEMO_SCENARIOS=${DEMO_SCENARIOS:-promotion precision overcommit latency}
demo_latency=0
case " $DEMO_SCENARIOS " in *" latency "*)
	demo_latency=1
	DEMO_SCENARIOS=$(echo " $DEMO_SCENARIOS " | sed 's/ latency / /; s/^ *//; s/ *$//')
	DEMO_SCENARIOS=${DEMO_SCENARIOS:- } ;;	# blank: nothing in this boot
esac
log "running the benchmarks in the VM (progress below)"
VM_TIMEOUT=${VM_TIMEOUT:-5400} VMDIR=$OUT/vm-demo "$TOP/tooling/vm.sh" \
	"DEMO_OUT=$DEMO_OUT DEMO_REPS=${DEMO_REPS:-3} DEMO_DURATION=${DEMO_DURATION:-20} \
	 DEMO_HOT_MB=${DEMO_HOT_MB:-256} DEMO_PRECISION_MB=${DEMO_PRECISION_MB:-64} \
	 DEMO_HOG_LOCKED=${DEMO_HOG_LOCKED:-1} \
	 DEMO_SCENARIOS='${DEMO_SCENARIOS:-promotion precision overcommit}' \
	 tooling/guest-demo.sh"
if [ $demo_latency = 1 ]; then
	log "latency scenario: booting the emulated CXL box"
	VM_SLOWMEM=1 VM_SAMPLER=1 VM_TIMEOUT=${VM_TIMEOUT:-5400} VMDIR=$OUT/vm-demo-latency \
		"$TOP/tooling/vm.sh" \
		"DEMO_OUT=$DEMO_OUT DEMO_REPS=${DEMO_REPS:-3} DEMO_HOT_MB=${DEMO_HOT_MB:-256} \
		 DEMO_LATENCY_DURATION=${DEMO_LATENCY_DURATION:-30} \
		 DEMO_LATENCY_DENSITIES='${DEMO_LATENCY_DENSITIES:-0.07 0.28}' \
		 DEMO_SAMPLER_ARGS='${DEMO_SAMPLER_ARGS:---slow-only}' \
		 DEMO_LATENCY_SCAN='${DEMO_LATENCY_SCAN:-1000 1000 60000 256}' DEMO_SCENARIOS=latency \
		 tooling/guest-demo.sh"
fi
python3 "$TOP/tooling/demo-report.py" "$DEMO_OUT"
log "demo done in $(( $(date +%s) - start )) s. The VM's memory is equally fast on every node: these runs show what moves, when and at what cost, not a latency gain."
