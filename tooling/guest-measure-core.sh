#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM (tooling/measure-core.sh boots it): record memory
# per lower-tier page, and kmigrated's CPU time over 60 s with 1 GiB
# resident on node 2 that nobody touches.
set -euo pipefail
D=/sys/kernel/debug/pghot
IDLE_S=${IDLE_S:-60}

stat() { awk -v k="$1" '$1 == k { print $2 }' $D/stats; }
echo "mode: $(stat mode)"
echo "MemFree at start: $(awk '/^MemFree/ { print $2 }' /proc/meminfo) kB"
bytes=$(stat record_memory_bytes) pages=$(stat tracked_pages)
awk -v b="$bytes" -v p="$pages" 'BEGIN {
	printf "record memory: %d bytes for %d lower-tier pages = %.4f bytes/page\n", b, p, b / p }'

echo 2 > /proc/sys/kernel/numa_balancing
# 1 GiB on node 2 with the default policy, so NUMA balancing scans it, held
# by a task that keeps running on node 0 but only ever touches 1 MiB: once
# that MiB (and the interpreter) has been promoted, the scanner keeps
# protecting the idle GiB and nothing faults.
numactl --cpunodebind=0 python3 -c '
b = bytearray(1 << 30)
s = bytearray(1 << 20)
while True:
    for i in range(0, len(s), 4096):
        s[i] = (s[i] + 1) & 255
' &
holder=$!
sleep 8
migratepages $holder 0,1 2 >/dev/null
sleep 15	# let the touched part be promoted
node2_kb=$(awk '/^Node 2 .*MemUsed/ { print $4 }' /sys/devices/system/node/node2/meminfo)
echo "node 2 MemUsed after placing 1 GiB: $node2_kb kB"

pid=$(pgrep -x kmigrated2)
ticks() { awk '{ print $14 + $15 }' /proc/$pid/stat; }
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
t0=$(ticks) a0=$(vm pghot_recorded_accesses) s0=$(vm numa_pte_updates)
sleep "$IDLE_S"
t1=$(ticks) a1=$(vm pghot_recorded_accesses) s1=$(vm numa_pte_updates)
echo "kmigrated2 CPU time over ${IDLE_S} s, 1 GiB idle on node 2:" \
     "$((t1 - t0)) ticks ($(( (t1 - t0) * 1000 / $(getconf CLK_TCK) )) ms);" \
     "PTEs scanned meanwhile: $((s1 - s0)), accesses recorded: $((a1 - a0))"
kill $holder
