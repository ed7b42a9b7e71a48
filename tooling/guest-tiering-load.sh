#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM (tooling/guest-tests.sh calls it when
# PGHOT_BACKGROUND names it): NUMA balancing in tiering mode and a
# promotion load beside other tests, so that the tests run against the
# patched fault path (mm/memory.c, kernel/sched/fair.c), mm/migrate.c and
# kmigrated doing their work, not against a kernel at rest.
#
#	guest-tiering-load.sh start	tiering mode on; pghot-bench runs of
#					LOAD_MB on the first lower-tier node,
#					one after the other, in the background
#	guest-tiering-load.sh stop	ends them and prints one result
#
# The result, in the form guest-tests.sh prints:
#	result: PASS|FAIL load/tiering-reached # <figures>
# It passes only if the load was promoted while the tests ran, through
# both paths that the patches change: hint faults taken (numa_hint_faults),
# pages promoted by kmigrated (pghot_promoted) and where they landed read
# with move_pages() by pghot-bench (a run whose hot set reached 95% on the
# top tier). Every run is counted in the message; a run that could not
# place its set (exit 2, e.g. while a hotplug test had a block of the node
# offline) is only counted, any other failed run (a usage error, killed)
# fails the result.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
SELFTESTS=${SELFTESTS:-$OUT/selftests}
BENCH=$SELFTESTS/pghot-bench
LOAD_MB=${LOAD_MB:-64}
LOAD_RUN_S=${LOAD_RUN_S:-20}
STATE=/tmp/pghot-tiering-load
VMSTAT_KEYS='numa_hint_faults pgpromote_success pghot_promoted'

vmstat_of() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$2"; }

start() {
	rm -rf "$STATE"
	mkdir -p "$STATE"
	if [ ! -x "$BENCH" ]; then
		echo "no $BENCH" > "$STATE/setup-error"
		return
	fi
	cat /proc/sys/kernel/numa_balancing > "$STATE/numa_balancing"
	echo 2 > /proc/sys/kernel/numa_balancing
	cp /proc/vmstat "$STATE/vmstat.start"
	(
		n=0
		while [ ! -e "$STATE/stop" ]; do
			n=$((n + 1))
			"$BENCH" --hot-mb "$LOAD_MB" --duration-s "$LOAD_RUN_S" \
				--label "load-$n" --json "$STATE/run-$n.json" \
				2> "$STATE/run-$n.err" > /dev/null
			echo "$n $?" >> "$STATE/runs"
		done
	) &
	echo $! > "$STATE/pid"
	echo "# tiering load: numa_balancing 2, pghot-bench --hot-mb $LOAD_MB runs of $LOAD_RUN_S s in the background"
}

stop() {
	local runs=0 ok=0 setup=0 failed=0 settled=0 n rc why d k
	local -A delta

	if [ -e "$STATE/setup-error" ]; then
		echo "result: FAIL load/tiering-reached # $(cat "$STATE/setup-error")"
		return
	fi
	[ -e "$STATE/pid" ] || {
		echo "result: FAIL load/tiering-reached # the load was never started"
		return
	}
	touch "$STATE/stop"
	wait_for_pid "$(cat "$STATE/pid")"
	cp /proc/vmstat "$STATE/vmstat.end"
	cat "$STATE/numa_balancing" > /proc/sys/kernel/numa_balancing
	for k in $VMSTAT_KEYS; do
		delta[$k]=$(( $(vmstat_of "$k" "$STATE/vmstat.end") - $(vmstat_of "$k" "$STATE/vmstat.start") ))
	done
	while read -r n rc; do
		runs=$((runs + 1))
		case $rc in
		0) ok=$((ok + 1))
		   grep -q '"seconds_to_95pct": [0-9]' "$STATE/run-$n.json" && settled=$((settled + 1)) ;;
		2) setup=$((setup + 1)) ;;
		*) failed=$((failed + 1)) ;;
		esac
		sed 's/^/# /' "$STATE/run-$n.err"
	done < <(cat "$STATE/runs" 2>/dev/null)
	why="$runs runs: $ok done ($settled with 95% of the hot set on the top tier by move_pages), $setup could not place their set, $failed failed"
	for k in $VMSTAT_KEYS; do
		why+=", $k +${delta[$k]}"
	done
	d=PASS
	if [ "$failed" != 0 ] || [ "$settled" = 0 ] || [ "${delta[numa_hint_faults]}" -le 0 ] ||
	   [ "${delta[pghot_promoted]}" -le 0 ]; then
		d=FAIL
	fi
	echo "result: $d load/tiering-reached # $why"
}

# The background loop is not this shell's child when stop runs in a new
# shell: wait by polling, for at most a run's length and a minute.
wait_for_pid() {
	local pid=$1 t

	for ((t = 0; t < LOAD_RUN_S + 60; t++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 1
	done
	echo "# the load did not end in $((LOAD_RUN_S + 60)) s; killing it"
	pkill -f "$BENCH" 2>/dev/null
	kill "$pid" 2>/dev/null
	sleep 2
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop" >&2; exit 1 ;;
esac
