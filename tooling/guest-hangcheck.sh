#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM at the end of a boot (tooling/guest-tests.sh calls
# it): promotion must have come to rest. Two results, in the form
# guest-tests.sh prints:
#	hangcheck/kmigrated-not-stuck   no kmigrated thread sits in D state
#	                                through HANG_SAMPLE_S of samples
#	hangcheck/ready-queues-drained  every "node<N> ... queued <Q> deferred
#	                                <D>" line of the pghot stats reads Q=0
#	                                and D=0 within DRAIN_WAIT_S, with NUMA
#	                                balancing off
#	hangcheck/kmigrated-at-rest     then no kmigrated thread uses more than
#	                                REST_MAX_TICKS of CPU time in REST_S
# The kernel's own watchdogs (soft lockup, hung task, workqueue stall,
# RCU stall) report on the console, which tooling/vm.sh checks.
set -uo pipefail
STATS=/sys/kernel/debug/pghot/stats
HANG_SAMPLE_S=${HANG_SAMPLE_S:-5}
DRAIN_WAIT_S=${DRAIN_WAIT_S:-60}
REST_S=${REST_S:-3}
REST_MAX_TICKS=${REST_MAX_TICKS:-2}

result() {
	local line="result: $1 $2"

	[ -z "${3:-}" ] || line+=" # $3"
	echo "$line"
}

# "pid comm state" of every kmigrated thread.
kmigrated_states() {
	local stat comm rest

	for stat in /proc/[0-9]*/stat; do
		# A task may exit between the glob and the read.
		{ IFS= read -r rest < "$stat"; } 2>/dev/null || continue
		comm=${rest#*(}; comm=${comm%%)*}
		case "$comm" in kmigrated[0-9]*) ;; *) continue ;; esac
		rest=${rest##*) }
		echo "$(basename "$(dirname "$stat")") $comm ${rest%% *}"
	done
}

if [ ! -r "$STATS" ]; then
	result FAIL hangcheck/kmigrated-not-stuck "$STATS missing: pghot is not running"
	result FAIL hangcheck/ready-queues-drained "$STATS missing: pghot is not running"
	exit 1
fi

# Stuck: in D state in every sample, twice a second.
declare -A always_d=()
first=1
for _ in $(seq $((HANG_SAMPLE_S * 2))); do
	declare -A now_d=()
	while read -r pid comm state; do
		[ "$state" = D ] && now_d[$pid]=$comm
	done <<< "$(kmigrated_states)"
	if [ $first = 1 ]; then
		for pid in "${!now_d[@]}"; do always_d[$pid]=${now_d[$pid]}; done
		first=0
	else
		for pid in "${!always_d[@]}"; do
			[ -n "${now_d[$pid]:-}" ] || unset "always_d[$pid]"
		done
	fi
	unset now_d
	sleep 0.5
done
threads=$(kmigrated_states | awk '{print $2 "(" $3 ")"}' | tr '\n' ' ')
if [ -z "$threads" ]; then
	result FAIL hangcheck/kmigrated-not-stuck "no kmigrated thread at all"
elif [ ${#always_d[@]} -gt 0 ]; then
	for pid in "${!always_d[@]}"; do
		echo "# ${always_d[$pid]} (pid $pid) stuck in D state; its stack:"
		sed 's/^/#   /' "/proc/$pid/stack" 2>/dev/null
	done
	result FAIL hangcheck/kmigrated-not-stuck "in D state for ${HANG_SAMPLE_S}s: ${always_d[*]}"
else
	result PASS hangcheck/kmigrated-not-stuck "$threads"
fi

# Nothing new becomes ready without hint faults; what is queued must go.
echo 0 > /proc/sys/kernel/numa_balancing 2>/dev/null
t0=$(date +%s)
while :; do
	queued=$(sed -nE 's/^(node[0-9]+) .*queued ([0-9]+) deferred ([0-9]+).*/\1=\2+\3/p' "$STATS" |
		grep -v '=0+0$' | tr '\n' ' ')
	[ -n "$queued" ] || break
	[ $(( $(date +%s) - t0 )) -lt "$DRAIN_WAIT_S" ] || break
	sleep 1
done
nodes=$(grep -cE '^node[0-9]+ .*queued [0-9]+ deferred' "$STATS")
if [ "$nodes" = 0 ]; then
	result FAIL hangcheck/ready-queues-drained "no node<N> ... queued <Q> deferred <D> line in $STATS"
elif [ -n "$queued" ]; then
	sed 's/^/#   /' "$STATS"
	result FAIL hangcheck/ready-queues-drained "still queued+deferred after ${DRAIN_WAIT_S}s: $queued"
else
	result PASS hangcheck/ready-queues-drained \
		"$nodes nodes, drained in $(( $(date +%s) - t0 ))s"
fi

# At rest a kmigrated sleeps: a thread that spins (R state, polling a queue
# or a flag that never clears) would pass the checks above.
cpu_ticks() {
	local pid rest

	for pid in $(kmigrated_states | awk '{print $1}'); do
		{ IFS= read -r rest < "/proc/$pid/stat"; } 2>/dev/null || continue
		rest=${rest##*) }
		# utime and stime: fields 14 and 15, 12 and 13 after the comm.
		echo "$pid $(echo "$rest" | awk '{print $12 + $13}')"
	done
}
declare -A t0_ticks=()
while read -r pid ticks; do
	[ -n "$pid" ] && t0_ticks[$pid]=$ticks
done <<< "$(cpu_ticks)"
sleep "$REST_S"
busy=
while read -r pid ticks; do
	[ -n "$pid" ] && [ -n "${t0_ticks[$pid]:-}" ] || continue
	used=$((ticks - t0_ticks[$pid]))
	[ "$used" -le "$REST_MAX_TICKS" ] || busy+="pid $pid: $used ticks "
done <<< "$(cpu_ticks)"
if [ -n "$busy" ]; then
	result FAIL hangcheck/kmigrated-at-rest "CPU time in ${REST_S}s at rest: $busy"
else
	result PASS hangcheck/kmigrated-at-rest "${#t0_ticks[@]} threads idle for ${REST_S}s"
fi
