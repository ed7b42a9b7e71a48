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
# Kernel lockdown (integrity or confidentiality; Secure Boot turns it on in
# most distributions) refuses every open of a writable debugfs file with
# EPERM, and pghot's knobs are debugfs files: nothing here can be armed.
lockdown=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/security/lockdown 2>/dev/null)
if [ -n "$lockdown" ] && [ "$lockdown" != none ]; then
	die "the kernel is locked down ($lockdown, /sys/kernel/security/lockdown):
debugfs files that can be written cannot be opened, so pghot's knobs
cannot be set. This is not a perf or IBS problem. Boot with lockdown off
(Secure Boot off, or the distribution's way of lifting it, e.g. mokutil
--disable-validation with shim) on a test box; see
Documentation/admin-guide/mm/pghot.rst, 'Kernel lockdown'."
fi
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
rate_before=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
toolong() { dmesg 2>/dev/null | grep -c 'perf: interrupt took too long'; }
toolong_before=$(toolong)
if ! err=$( (echo 1 > "$IBS/enabled") 2>&1); then
	echo "enabling IBS sampling failed: ${err##*: }; the kernel said:" >&2
	dmesg | grep pghot_ibs | tail -3 >&2
	if [[ $err == *busy* ]]; then
		# Who has perf events open (any PMU: perf does not say which).
		users=$(for f in /proc/[0-9]*/fd/*; do
			[ "$(readlink "$f" 2>/dev/null)" = "anon_inode:[perf_event]" ] &&
				echo "${f#/proc/}" | cut -d/ -f1
		done | sort -un | while read -r pid; do
			echo "$pid ($(cat /proc/"$pid"/comm 2>/dev/null))"
		done | head -5 | paste -sd' ')
		echo "processes with perf events open: ${users:-none}" >&2
		die "a perf event is open on ibs_op (perf record, perf mem, perf c2c," \
		    "cycles:pp): stop it first; see 'Coexistence with perf' in" \
		    "Documentation/admin-guide/mm/pghot.rst"
	fi
	die "see Documentation/admin-guide/mm/pghot.rst, 'Hardware hints'"
fi
say "armed; from $PGHOT/stats:"
grep -E '^(hwhint_|ibs_op)' "$PGHOT/stats" | sed 's/^/   /'

# Performance-monitoring interrupts per CPU: every IBS NMI, those the
# driver's own filter drops (kernel ops under user_only=1 on CPUs without
# the hardware RIP filter, Zen 2-4) included, which pghot never sees.
pmis() {
	awk '$1 == "PMI:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) print $i }' \
		/proc/interrupts
}
pmi_before=$(pmis)
for c in "${counters[@]}"; do before[$c]=$(vm "$c"); done
t0=$(date +%s%N)
"$bench" --cpu-node "$cpu_node" --mem-node "$mem_node" --hot-mb "$hot_mb" \
	--threads "$threads" --duration-s "$duration" --label ibs-firstrun \
	--json /tmp/pghot-ibs-firstrun.json
rc=$?
t1=$(date +%s%N)
for c in "${counters[@]}"; do after[$c]=$(vm "$c"); done
pmi_after=$(pmis)
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
# The cost where it is paid: on the CPUs that ran code (a CPU with at least
# a tenth of the busiest CPU's interrupts), from every NMI taken.
paste <(echo "$pmi_before") <(echo "$pmi_after") |
awk -v s="$secs" -v us="$SAMPLE_US" -v t="$total" '
NF == 2 { d[NR] = $2 - $1; if (d[NR] > max) max = d[NR]; all += d[NR]; n = NR }
END {
	if (!n) { print "   PMIs: no PMI line in /proc/interrupts"; exit }
	for (i = 1; i <= n; i++) if (max && d[i] >= max / 10) { busy++; bsum += d[i] }
	printf "   PMIs                %d on %d CPUs (pghot saw %d of them as samples)\n", all, n, t
	if (busy)
		printf "   busy CPUs           %d: %.0f PMIs/s each, ~%.3f%% of each at %d us\n",
			busy, bsum / busy / s, bsum / busy / s * us / 1e4, us
}'
if [ -r "$IBS/stats" ]; then
	echo "   per-CPU outcome ($IBS/stats, since arming):"
	grep '^total' "$IBS/stats" | sed 's/^/     /'
	grep -E '^cpu[0-9]+ (stopped|error|off|inactive|failed)' "$IBS/stats" |
		head -4 | sed 's/^/     not sampling: /'
fi
rate_after=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
echo "   perf_event_max_sample_rate $rate_before -> $rate_after," \
	"'interrupt took too long' messages +$(( $(toolong) - toolong_before ))"
[ "$rate_after" -lt "$rate_before" ] &&
	echo "   perf lowered the sample rate limit: NMIs took too long; raise $IBS/period" >&2
echo "   reported $(d pghot_reported_hwhints), recorded $(d pghot_recorded_hwhints)," \
	"ignored: top tier $(d pghot_ignored_toptier), offline $(d pghot_ignored_offline)"
echo "   became hot $(d pghot_ready), promoted $(d pgpromote_success) pages" \
	"(hot set: $((hot_mb * 256)) pages); details in /tmp/pghot-ibs-firstrun.json"
# How long a run must be to see the whole hot set promoted at this rate:
# freq_threshold samples per page (regions may need fewer).
awk -v r="$(d pghot_recorded_hwhints)" -v s="$secs" -v p=$((hot_mb * 256)) \
    -v t="$(cat "$PGHOT/freq_threshold")" 'BEGIN {
	if (r > 0)
		printf "   at %.0f recorded samples/s, %d samples per page of a %d-page" \
			" hot set take ~%.0f s\n", r / s, t, p, t * p / (r / s)
}'

if [ "$total" = 0 ]; then
	echo "verdict: armed, but no samples arrived; check 'ibs_op cpuN' in $PGHOT/stats" >&2
	exit 3
elif [ "$useful" = 0 ]; then
	echo "verdict: samples, none useful: no DRAM/CXL loads or L3-missing stores" \
		"to user pages on a lower-tier node seen (is the hot set on that node?)" >&2
	exit 3
fi
echo "verdict: IBS hints flow; tune $IBS/period (cost ~ 1/period) and $PGHOT/freq_threshold"
