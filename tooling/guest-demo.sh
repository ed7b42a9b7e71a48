#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM (tooling/demo.sh boots it): the reference
# benchmarks side by side on this one kernel, every configuration
# DEMO_REPS times, raw JSON to $DEMO_OUT/raw/.
#
#   C1  numa_balancing=0                          no promotion
#   C2  numa_balancing=2, pghot sources 0x0       today's NUMAB2 (legacy)
#   C4  numa_balancing=2, pghot sources 0x1       hint faults through pghot,
#       pghot's default knobs (freq_threshold 2)
#   C4-t1  the same at freq_threshold 1 (promotion, overcommit, coldhog,
#       latency: where one hint fault per page is all a run may see)
#   C5  numa_balancing=0, sources 0x2, threshold 1  oracle hardware hints
#   C6  numa_balancing=0, sources 0x2, threshold 2  oracle hardware hints
#
# C5/C6's injector is an oracle: it reports every hot page every second,
# which no sampler does. The nodes are the benchmark's own choice (the first
# top-tier node with CPUs, the first lower-tier node with memory). A run
# that fails leaves <label>.failed beside the JSON of the others.
# Scenario latency (emulated CXL box, tooling/emu/README) adds
#   C0  numa_balancing=0, hot set on node 0       the ideal
#   S1/S2  numa_balancing=0, sources 0x2, threshold 1/2, hints from the
#       plugin's sampler at DEMO_LATENCY_DENSITIES samples/hot page/s
# Scenario sampled (a boot with the emulator's sampler, VM_SAMPLER=1) runs
# the promotion and precision scenarios' S1/S2 rows: hardware hints as IBS
# would deliver them (the page of every N-th access to node 2), at
# DEMO_SAMPLED_DENSITIES samples per hot page per second (S3, threshold 3,
# where DEMO_SAMPLED_CONFIGS and DEMO_SAMPLED_LAYOUT_CONFIGS name it: the
# setting for a 120-s horizon on mixed layouts). The precision
# shape's warm set is accessed by the same threads, DEMO_WARM_RATIO times
# less often per page than the hot set, so the sampler sees it as it is.
#   P1/P2  the same, regions off (hwhint_region_ms=0): each page judged on
#       its own samples, the rule of the published IBS results; at
#       DEMO_SAMPLED_PAGE_DENSITIES only
#   L1/L2  P1/P2 with a page window as long as the region window
#       (promote_window_ms=60000): each page on its own samples of the
#       last minute, the fair baseline for S1/S2; where P1/P2 run
#   A1/A2  the same, regions on but no reference (hwhint_region_ref=0):
#       the absolute bar only, to compare; where P1/P2 run
# Densities other than the first of DEMO_SAMPLED_DENSITIES run
# DEMO_SAMPLED_OTHER_REPS times (default DEMO_REPS); DEMO_SAMPLED_CONFIGS
# (default 'P1 P2 L1 L2 A1 A2 S1 S2') picks configurations. The sets are placed
# in 2 MiB blocks of their own, as on memory nothing used before (the
# layout of the published runs' fresh allocations); the runs before would
# otherwise decide how the hot and warm sets share regions (measured: 3%
# of the warm set in the first precision run of a boot, 39-92% later).
# DEMO_SAMPLED_BLOCKS=0 leaves the placement to the allocator.
# DEMO_SAMPLED_LAYOUTS (default 'interleave sparse alloc skewed') adds the
# layouts a rule that judges 2 MiB regions was not built for, each shape
# under its own scenario name (precision-interleave, ...), at the first
# density only, configurations DEMO_SAMPLED_LAYOUT_CONFIGS (default
# 'P1 P2 L1 L2 S1 S2'); skewed: a Zipf-like hot set (DEMO_SAMPLED_ZIPF=1).
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$TOP/out/selftests/pghot-bench
D=/sys/kernel/debug/pghot
SCHED=/sys/kernel/debug/sched/numa_balancing
DEMO_OUT=${DEMO_OUT:-$TOP/out/demo}
DEMO_REPS=${DEMO_REPS:-3}
DEMO_DURATION=${DEMO_DURATION:-20}
DEMO_SCENARIOS=${DEMO_SCENARIOS:-promotion precision overcommit}
HOT_MB=${DEMO_HOT_MB:-256}
PRECISION_MB=${DEMO_PRECISION_MB:-64}
HOG_LOCKED=${DEMO_HOG_LOCKED:-1}
SCALE_DURATION=${DEMO_SCALE_DURATION:-60}
mkdir -p "$DEMO_OUT/raw"

w() { echo "$2" > "$1" || { echo "cannot write $2 to $1" >&2; exit 1; }; }

# Fast scans, as in the selftests: a hint fault per page per pass.
w $SCHED/scan_delay_ms 0
w $SCHED/scan_period_min_ms 100
w $SCHED/scan_period_max_ms 200
w $SCHED/scan_size_mb 1024
w /sys/kernel/mm/numa/demotion_enabled 1

config() {	# name [freq_threshold]
	local ft=${2:-}
	if [ -z "$ft" ]; then
		# pghot's default (2) for C4 and C6, 1 where the name says so.
		case $1 in C4|C6) ft=2 ;; *) ft=1 ;; esac
	fi
	w $D/promote_window_ms 4000
	w $D/freq_threshold "$ft"
	# Regions for hardware hints at their default, except for P1/P2
	# (regions off) and A1/A2 (no reference).
	[ ! -e $D/hwhint_region_ms ] || w $D/hwhint_region_ms 60000
	[ ! -e $D/hwhint_region_ref ] || w $D/hwhint_region_ref 2
	case $1 in
	C1) w /proc/sys/kernel/numa_balancing 0; w $D/enabled_sources 0 ;;
	C2) w /proc/sys/kernel/numa_balancing 2; w $D/enabled_sources 0 ;;
	C4|C4-t1) w /proc/sys/kernel/numa_balancing 2; w $D/enabled_sources 0x1 ;;
	C5|C6) w /proc/sys/kernel/numa_balancing 0; w $D/enabled_sources 0x2 ;;
	esac
}

run() {		# scenario config rep [bench args...]
	local s=$1 c=$2 r=$3 extra=()
	shift 3
	case $c in C5|C6) extra=(--inject-rounds 1000 --inject-interval-ms 1000) ;; esac
	sync; echo 3 > /proc/sys/vm/drop_caches
	printf 'demo: %-10s %s run %d/%d ...\n' "$s" "$c" "$r" "$DEMO_REPS" >&2
	if ! "$BENCH" --label "$s/$c/$r" --threads 1 --duration-s "$DEMO_DURATION" \
		--sample-ms 250 "${extra[@]}" "$@" \
		--json "$DEMO_OUT/raw/$s-$c-$r.json"; then
		echo "demo: $s $c run $r failed" >&2
		echo "$s/$c/$r" > "$DEMO_OUT/raw/$s-$c-$r.failed"
		rm -f "$DEMO_OUT/raw/$s-$c-$r.json"
	fi
}

# The sampled scenario: its sets, run length, the sampler's first period
# and calibration rate (samples per second of the benchmark CPU's user
# time).
SAMPLED_MB=${DEMO_SAMPLED_MB:-64}
WARM_RATIO=${DEMO_WARM_RATIO:-10}
SAMPLED_DURATION=${DEMO_SAMPLED_DURATION:-60}
SAMPLED_P0=1000
SAMPLED_R0=2000
SAMPLED_DENSITIES=${DEMO_SAMPLED_DENSITIES:-0.07 0.0175 0.28}
SAMPLED_PAGE_DENSITIES=${DEMO_SAMPLED_PAGE_DENSITIES:-0.07}
SAMPLED_OTHER_REPS=${DEMO_SAMPLED_OTHER_REPS:-$DEMO_REPS}
SAMPLED_CONFIGS=${DEMO_SAMPLED_CONFIGS:-P1 P2 L1 L2 A1 A2 S1 S2}
# Each set in 2 MiB blocks of its own (pghot-bench --layout blocks), the
# same in every run; 0: wherever the free lists left by the runs before
# put them (--layout alloc).
SAMPLED_BLOCKS=${DEMO_SAMPLED_BLOCKS:-1}
# The other layouts (pghot-bench --layout), each shape its own scenario
# (promotion-sparse, precision-interleave, ...), at the first density,
# with SAMPLED_LAYOUT_CONFIGS. interleave needs the warm set: precision
# only; skewed is the promotion shape in blocks with a Zipf-like hot set
# (pghot-bench --zipf SAMPLED_ZIPF).
SAMPLED_LAYOUTS=${DEMO_SAMPLED_LAYOUTS-interleave sparse alloc skewed}
SAMPLED_ZIPF=${DEMO_SAMPLED_ZIPF:-1}
# L1/L2: the page window as long as the region window S1/S2 run with.
SAMPLED_LONG_WINDOW_MS=60000
SAMPLED_LAYOUT_CONFIGS=${DEMO_SAMPLED_LAYOUT_CONFIGS:-P1 P2 L1 L2 S1 S2}

# The sampled shapes: promotion and precision in 2 MiB blocks, then each
# of SAMPLED_LAYOUTS.
sampled_shapes() {
	local l
	echo promotion precision
	for l in $SAMPLED_LAYOUTS; do
		case $l in
		interleave) echo "precision-$l" ;;
		skewed) echo "skewed-blocks" ;;
		*) echo "promotion-$l precision-$l" ;;
		esac
	done
}

sampled_shape() {	# shape[-layout]: the benchmark's set options
	local layout=blocks
	[ "$SAMPLED_BLOCKS" = 1 ] || layout=alloc
	case $1 in *-*) layout=${1#*-} ;; esac
	case ${1%%-*} in
	promotion) echo "--hot-mb $SAMPLED_MB --layout $layout" ;;
	skewed) echo "--hot-mb $SAMPLED_MB --layout $layout --zipf $SAMPLED_ZIPF" ;;
	precision) echo "--hot-mb $SAMPLED_MB --cold-mb $SAMPLED_MB --warm-ratio $WARM_RATIO --layout $layout" ;;
	latency) echo "--hot-mb $HOT_MB" ;;	# the latency scenario's set
	esac
}

# One run with the plugin's sampler feeding pghot from the moment the sets
# are in place: shape config rep rate duration. The sampler takes rate
# samples per second of the benchmark CPU's user time, whatever the
# emulator's speed (pghot-emu feed --rate; a CPU's IBS rate does not fall
# when TCG flushes its TLB), and only node-2 ones are sent, as an L3-miss
# filter would pass the benchmark's and not the feeder's own. The feeder
# does not run on the benchmark's CPU (node 0's).
sampled_run() {
	local shape=$1 c=$2 r=$3 rate=$4 dur=$5 feed rc=0
	rm -f /tmp/ready
	( while [ ! -e /tmp/ready ]; do sleep 0.05; done
	  exec numactl --cpunodebind=1 -- "$PGHOT_EMU" feed --period "$SAMPLED_P0" \
		--rate "$rate" ${DEMO_SAMPLER_ARGS:---slow-only} \
		--json "$DEMO_OUT/raw/$shape-$c-$r.feed" \
		--pfn-log "$DEMO_OUT/raw/$shape-$c-$r.pfnlog" ) &
	feed=$!
	# shellcheck disable=SC2046
	DEMO_DURATION=$dur run "$shape" "$c" "$r" $(sampled_shape "$shape") \
		--ready-file /tmp/ready \
		--pfns-out "$DEMO_OUT/raw/$shape-$c-$r.sets" || rc=1
	touch /tmp/ready; sleep 0.2; kill "$feed" 2>/dev/null; wait "$feed"
	[ -e "$DEMO_OUT/raw/$shape-$c-$r.json" ] || rc=1
	return $rc
}

# Density at rate SAMPLED_R0 with nothing moving (C1: no promotion, the
# samples go nowhere): samples per hot page per second, counted by the
# feeder over the run, hot share of the accesses from the shape.
sampled_calibrate() {	# shape
	local shape=$1 d0
	config C1
	sampled_run "$shape" calib 1 "$SAMPLED_R0" 15 || {
		echo "sampled: calibration of $shape failed" >&2; return 1; }
	# Samples per hot page-second on the lower tier: the hot set's own
	# samples (the feeder's PFN log), as demo-report.py measures every
	# run.
	d0=$(python3 "$TOP/tooling/demo-report.py" --density \
		"$DEMO_OUT/raw/$shape-calib-1.feed" "$DEMO_OUT/raw/$shape-calib-1.json") || return 1
	echo "$d0" > "$DEMO_OUT/sampled-$shape-d0"
	mv "$DEMO_OUT/raw/$shape-calib-1.feed" "$DEMO_OUT/sampled-$shape-calib.feed"
	mv "$DEMO_OUT/raw/$shape-calib-1.json" "$DEMO_OUT/sampled-$shape-calib.json"
	rm -f "$DEMO_OUT/raw/$shape-calib-1.pfnlog" "$DEMO_OUT/raw/$shape-calib-1.sets"
	echo "sampled: $shape: $d0 samples per hot page per s at $SAMPLED_R0 samples/s" >&2
}

for s in $DEMO_SCENARIOS; do
	for r in $(seq 1 "$DEMO_REPS"); do
		case $s in
		promotion)
			for c in C1 C2 C4 C4-t1 C5 C6; do
				config $c; run $s $c $r --hot-mb "$HOT_MB"
			done ;;
		precision)
			# Cold pages touched once every two windows: warm, not hot.
			# Sets as in the freq_filter selftest: under TCG, NUMA
			# balancing needs seconds per pass over larger ones, so no
			# page would see two hint faults in a window.
			for c in C2 C4 C6; do
				config $c 2; w $D/promote_window_ms 1000
				run $s $c $r --hot-mb "$PRECISION_MB" \
					--cold-mb "$PRECISION_MB" --cold-interval-ms 2000
			done ;;
		overcommit|coldhog)
			# The top node mostly taken by a hog: the hot set does not
			# fit in what is left. overcommit: the hog is mlocked, so
			# reclaim cannot demote it and every promotion beyond the
			# free space demotes another hot page (ping-pong bait).
			# coldhog: the hog is idle and demotable, cold data in the
			# way that promotion should exchange for hot pages.
			# DEMO_HOG_LOCKED=0 makes overcommit the same as coldhog.
			lock=(); [ $s = overcommit ] && [ "$HOG_LOCKED" = 1 ] &&
				lock=(--hog-locked)
			for c in C1 C2 C4 C4-t1; do
				config $c
				run $s $c $r --hot-mb 1536 --hog-mb 1400 "${lock[@]}"
			done ;;
		scale-*)
			# Default pghot knobs against legacy NUMAB2, hot sets up
			# to 2 GiB: a page sees one hint fault per scan pass, and
			# a pass over a large set takes longer than the window.
			for c in C2 C4; do
				config $c 2
				DEMO_DURATION=$SCALE_DURATION run $s $c $r \
					--hot-mb "${s#scale-}"
			done ;;
		latency)
			# The emulated CXL box (demo.sh boots it for this
			# scenario): node 2 really is slower, so ops/s show
			# what promotion buys. C0: the hot set on node 0.
			[ -n "${PGHOT_EMU:-}" ] || { echo "latency: not in the emulated box" >&2; exit 1; }
			lat_dur=${DEMO_LATENCY_DURATION:-30}
			# NUMA balancing scans at the kernel's defaults here:
			# in the box every hint fault costs time, as on a real
			# one. (delay, period min, max in ms, size in MB)
			read -r sd smin smax ssz <<< "${DEMO_LATENCY_SCAN:-1000 1000 60000 256}"
			w $SCHED/scan_delay_ms "$sd"; w $SCHED/scan_period_min_ms "$smin"
			w $SCHED/scan_period_max_ms "$smax"; w $SCHED/scan_size_mb "$ssz"
			if [ "$r" = 1 ]; then
				cp "$(dirname "$PGHOT_EMU_STATS")/emu-calib.json" "$DEMO_OUT/"
				for n in 0 2; do "$PGHOT_EMU" probe -n $n; done > "$DEMO_OUT/latency-probe.json"
			fi
			# The same emulated-TLB flushes in every row (pghot-emu
			# tick): TCG resizes a vCPU's TLB only at a flush, so a
			# row whose pages migrate would otherwise run with a
			# larger TLB than C0's.
			tick=
			if [ "${DEMO_TICK_HZ:-0}" != 0 ]; then
				"$PGHOT_EMU" tick --hz "$DEMO_TICK_HZ" & tick=$!
			fi
			for c in C0 C1 C2 C4 C4-t1; do
				config ${c/C0/C1}
				node=2; [ $c = C0 ] && node=0
				DEMO_DURATION=$lat_dur run $s $c $r --hot-mb "$HOT_MB" \
					--mem-node $node
			done
			# D: DAMON-based tiering (tooling/guest-damon.sh, as
			# samples/damon/mtier.c) with NUMA balancing and pghot's
			# sources off; its own counts beside the run.
			if [ "${DEMO_DAMON:-1}" = 1 ]; then
				config C1
				mkdir -p "$DEMO_OUT/damon"
				if "$TOP/tooling/guest-damon.sh" start; then
					DEMO_DURATION=$lat_dur run $s D $r \
						--hot-mb "$HOT_MB" --mem-node 2
					"$TOP/tooling/guest-damon.sh" stats \
						> "$DEMO_OUT/damon/$s-D-$r.json" || true
					"$TOP/tooling/guest-damon.sh" stop
				else
					echo "demo: $s D run $r failed: DAMON did not start" >&2
					echo "$s/D/$r" > "$DEMO_OUT/raw/$s-D-$r.failed"
				fi
			fi
			# The sampler in rate mode, as in the sampled scenario:
			# samples per second of the benchmark CPU's user time,
			# calibrated once (C1, nothing moving) to the hot set's
			# density asked, whatever the emulator's speed.
			[ "$r" = 1 ] && { sampled_calibrate latency || exit 1; }
			d0=$(cat "$DEMO_OUT/sampled-latency-d0")
			for dens in ${DEMO_LATENCY_DENSITIES:-0.07 0.28}; do
				rate=$(python3 -c 'import sys
print(max(1, round(float(sys.argv[1]) * float(sys.argv[3]) / float(sys.argv[2]))))' \
					"$SAMPLED_R0" "$d0" "$dens")
				for c in S1 S2; do
					config C5 ${c#S}
					sampled_run latency "$c-d$dens" "$r" "$rate" "$lat_dur"
				done
			done
			[ -z "$tick" ] || { kill "$tick"; wait "$tick" || true; }
			echo "${DEMO_TICK_HZ:-0}" > "$DEMO_OUT/latency-tick-hz"
			w $SCHED/scan_delay_ms 0; w $SCHED/scan_period_min_ms 100
			w $SCHED/scan_period_max_ms 200; w $SCHED/scan_size_mb 1024 ;;
		sampled)
			[ -n "${PGHOT_EMU:-}" ] || { echo "sampled: not in the emulated box" >&2; exit 1; }
			if [ "$r" = 1 ]; then
				# Samples per hot page per second at a known
				# rate, nothing moving (C1), for each shape.
				for shape in $(sampled_shapes); do
					sampled_calibrate $shape || exit 1
				done
			fi
			for shape in $(sampled_shapes); do
				d0=$(cat "$DEMO_OUT/sampled-$shape-d0")
				first=1
				for dens in $SAMPLED_DENSITIES; do
					# The first density is the reference; the
					# other layouts run at it alone.
					[ $first = 1 ] || [ "$r" -le "$SAMPLED_OTHER_REPS" ] || continue
					[ $first = 1 ] || [ "$shape" = "${shape%%-*}" ] || continue
					first=0
					rate=$(python3 -c 'import sys
print(max(1, round(float(sys.argv[1]) * float(sys.argv[3]) / float(sys.argv[2]))))' \
						"$SAMPLED_R0" "$d0" "$dens")
					configs="S1 S2"
					case " $SAMPLED_PAGE_DENSITIES " in
					*" $dens "*) configs="P1 P2 L1 L2 A1 A2 S1 S2" ;;
					esac
					[ "$shape" = "${shape%%-*}" ] ||
						configs=$SAMPLED_LAYOUT_CONFIGS
					for c in $configs; do
						case " $SAMPLED_CONFIGS " in
						*" $c "*) ;;
						*) continue ;;
						esac
						config C5 ${c#?}
						case $c in
						P?) w $D/hwhint_region_ms 0 ;;
						L?) w $D/hwhint_region_ms 0
						    w $D/promote_window_ms "$SAMPLED_LONG_WINDOW_MS" ;;
						A?) w $D/hwhint_region_ref 0 ;;
						esac
						sampled_run $shape "$c-d$dens" "$r" "$rate" \
							"${SAMPLED_DURATION}" || true
					done
				done
			done ;;
		*) echo "unknown scenario $s" >&2; exit 1 ;;
		esac
	done
done
w /proc/sys/kernel/numa_balancing 0
