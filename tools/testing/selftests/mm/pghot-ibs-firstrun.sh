#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pghot-ibs-firstrun.sh: the first thing to run on an AMD Zen box with CXL
# (or other lower-tier) memory and a pghot kernel. It checks that IBS op
# sampling is there, arms pghot's IBS provider with hardware hints as the
# only source, runs pghot-bench with its hot set on the lower-tier node,
# and prints what flowed: samples per second and their estimated cost,
# the useful share, the DRAM/CXL split, and what got promoted. It puts
# every knob back as it was when it exits.
#
# It is not a kselftest (it has no pass/fail of its own and needs IBS
# hardware): it measures and explains. Run it as root:
#
#	./pghot-ibs-firstrun.sh [--mem-node N] [--cpu-node N] [--hot-mb MB]
#		[--threads N] [--duration S] [--period N] [--bench PATH]
#
# Exit status: 0 samples flowed, 1 bad option, 2 the box cannot run it (no
# IBS, no pghot, no lower tier, ...), 3 armed but no useful samples.
set -uo pipefail

PGHOT=/sys/kernel/debug/pghot
IBS=$PGHOT/ibs
IBS_PMU=/sys/bus/event_source/devices/ibs_op
TIERS=/sys/devices/virtual/memory_tiering
SAMPLE_US=2	# cost of one sample the provider's default period assumes

mem_node='' cpu_node='' hot_mb=1024 threads='' duration=30 period='' bench=''
here=$(cd "$(dirname "$0")" && pwd)

usage() {
	sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-1}"
}
die() { echo "pghot-ibs-firstrun: $*" >&2; exit 2; }
say() { echo "== $*"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--mem-node) mem_node=$2; shift 2 ;;
	--cpu-node) cpu_node=$2; shift 2 ;;
	--hot-mb) hot_mb=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--period) period=$2; shift 2 ;;
	--bench) bench=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "unknown option $1" >&2; usage 1 ;;
	esac
done
for v in "$hot_mb" "$duration" ${mem_node:+"$mem_node"} ${cpu_node:+"$cpu_node"} \
	 ${threads:+"$threads"} ${period:+"$period"}; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "not a number: $v" >&2; usage 1; }
done

# ---- Is everything there?
[ "$(id -u)" = 0 ] || die "run me as root"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	die "cannot mount debugfs"
[ -d "$PGHOT" ] || die "no $PGHOT: this kernel has no pghot (CONFIG_PGHOT)"
if [ ! -d "$IBS_PMU" ]; then
	if grep -qw ibs /proc/cpuinfo; then
		cpuflag="the CPU has the ibs flag"
	else
		cpuflag="the CPU does not report the ibs flag"
	fi
	die "no IBS op PMU ($IBS_PMU); $cpuflag. On bare metal check the BIOS
(IBS or 'Instruction Based Sampling' may be disabled); in a virtual machine
the hypervisor must expose IBS to the guest, which is rare."
fi
[ -d "$IBS" ] ||
	die "$IBS_PMU exists, but $IBS does not: a kernel without CONFIG_PGHOT_IBS"
say "IBS: $(dmesg 2>/dev/null | grep -m1 'AMD IBS detected' || echo "$IBS_PMU")"

# The memory tiers with nodes, fastest (smallest abstract distance) first.
tier_dirs() {
	local t
	for t in "$TIERS"/memory_tier*; do
		[ -r "$t/nodelist" ] && [ -n "$(cat "$t/nodelist")" ] && echo "$t"
	done | sort -V
}
expand() {	# "0-2,4" -> "0 1 2 4"
	local r
	for r in ${1//,/ }; do
		if [[ $r == *-* ]]; then seq "${r%-*}" "${r#*-}"; else echo "$r"; fi
	done
}
[ "$(tier_dirs | wc -l)" -ge 2 ] ||
	die "one memory tier only ($TIERS): no lower tier to promote from"
if [ -z "$mem_node" ]; then
	mem_node=$(expand "$(cat "$(tier_dirs | tail -1)/nodelist")" | head -1)
fi
if [ -z "$cpu_node" ]; then
	for n in $(expand "$(cat /sys/devices/system/node/has_cpu)"); do
		cpu_node=$n; break
	done
fi
cpus=$(expand "$(cat /sys/devices/system/node/node"$cpu_node"/cpulist)" | wc -l)
threads=${threads:-$cpus}
say "hot set: $hot_mb MiB on node $mem_node, $threads threads on node $cpu_node ($cpus CPUs)"

if [ -z "$bench" ]; then
	for b in "$here/pghot-bench" "$(command -v pghot-bench 2>/dev/null)"; do
		[ -x "$b" ] && { bench=$b; break; }
	done
fi
if [ -z "$bench" ] || [ ! -x "$bench" ]; then
	die "no pghot-bench beside this script (give --bench): build it with" \
	    "'gcc -O2 -o pghot-bench pghot-bench.c -lnuma -lpthread -lm'"
fi

# ---- Save the knobs, put them back on exit.
knobs=("$PGHOT/enabled_sources" "$PGHOT/freq_threshold" "$IBS/period"
       "$IBS/l3miss_only" "$IBS/user_only" /proc/sys/kernel/numa_balancing)
declare -A saved=()
for k in "${knobs[@]}"; do saved[$k]=$(cat "$k"); done
restore() {
	echo 0 > "$IBS/enabled" 2>/dev/null
	for k in "${knobs[@]}"; do echo "${saved[$k]}" > "$k" 2>/dev/null; done
}
trap restore EXIT

vm() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat; }
counters=(hwhint_total_events hwhint_useful_events hwhint_dram_accesses
	  hwhint_extmem_accesses hwhint_dropped_events pghot_reported_hwhints
	  pghot_recorded_hwhints pghot_ignored_toptier pghot_ignored_offline
	  pghot_ready pgpromote_success)
declare -A before=() after=()

# ---- Arm: hardware hints only, no NUMA hint faults on the way.
echo 0 > /proc/sys/kernel/numa_balancing
echo 0x2 > "$PGHOT/enabled_sources"
[ -n "$period" ] && { echo "$period" > "$IBS/period" || die "period $period refused"; }
if ! echo 1 > "$IBS/enabled" 2>/dev/null; then
	echo "enabling IBS sampling failed; the kernel said:" >&2
	dmesg | grep pghot_ibs | tail -3 >&2
	die "if perf holds ibs_op, see 'Coexistence with perf' in" \
	    "Documentation/admin-guide/mm/pghot.rst"
fi
say "armed; from $PGHOT/stats:"
grep -E '^(hwhint_|ibs_op)' "$PGHOT/stats" | sed 's/^/   /'

for c in "${counters[@]}"; do before[$c]=$(vm "$c"); done
t0=$(date +%s%N)
"$bench" --cpu-node "$cpu_node" --mem-node "$mem_node" --hot-mb "$hot_mb" \
	--threads "$threads" --duration-s "$duration" --label ibs-firstrun \
	--json /tmp/pghot-ibs-firstrun.json
rc=$?
t1=$(date +%s%N)
for c in "${counters[@]}"; do after[$c]=$(vm "$c"); done
[ $rc = 0 ] || die "pghot-bench failed ($rc)"

# ---- What flowed.
d() { echo $(( ${after[$1]} - ${before[$1]} )); }
online=$(expand "$(cat /sys/devices/system/cpu/online)" | wc -l)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
total=$(d hwhint_total_events) useful=$(d hwhint_useful_events)
dram=$(d hwhint_dram_accesses) ext=$(d hwhint_extmem_accesses)
say "results over $(printf %.1f "$secs") s (all $online CPUs sample; the workload ran on $threads):"
awk -v t="$total" -v u="$useful" -v dr="$dram" -v ex="$ext" -v s="$secs" \
    -v n="$online" -v us="$SAMPLE_US" -v drop="$(d hwhint_dropped_events)" '
function pc(a, b) { return b ? sprintf("%.1f%%", 100 * a / b) : "-" }
BEGIN {
	printf "   samples             %d (%.0f/s, %.0f/s per CPU, ", t, t / s, t / s / n
	printf "~%.3f%% of a CPU at %d us each)\n", t / s / n * us / 1e4, us
	printf "   useful              %d (%s of samples)\n", u, pc(u, t)
	printf "   DRAM loads          %d, CXL loads %d (CXL share %s)\n", dr, ex, pc(ex, dr + ex)
	printf "   dropped (ring full) %d\n", drop
}'
echo "   reported $(d pghot_reported_hwhints), recorded $(d pghot_recorded_hwhints)," \
	"ignored: top tier $(d pghot_ignored_toptier), offline $(d pghot_ignored_offline)"
echo "   became hot $(d pghot_ready), promoted $(d pgpromote_success) pages" \
	"(hot set: $((hot_mb * 256)) pages); details in /tmp/pghot-ibs-firstrun.json"

if [ "$total" = 0 ]; then
	echo "verdict: armed, but no samples arrived; check 'ibs_op cpuN' in $PGHOT/stats" >&2
	exit 3
elif [ "$useful" = 0 ]; then
	echo "verdict: samples, none useful: no DRAM/CXL loads to user memory seen" >&2
	exit 3
fi
echo "verdict: IBS hints flow; tune $IBS/period (cost ~ 1/period) and $PGHOT/freq_threshold"
