#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM (tooling/measure-core.sh boots it, once per node-2
# size and record mode): record memory as pghot reports it and as the
# allocator handed it out (kmalloc/kfree trace events and vmallocinfo, by
# call site), MemFree at the start, kmigrated's CPU time promoting a 256 MiB
# hot set and then idle with it and 1 GiB more resident on the lower tier.
# Prints "key value" lines for the host to tabulate.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
D=/sys/kernel/debug/pghot
T=/sys/kernel/tracing
IDLE_S=${IDLE_S:-30}

sync
echo 3 > /proc/sys/vm/drop_caches
echo "memfree_kb $(awk '/^MemFree/ { print $2 }' /proc/meminfo)"
echo "memtotal_kb $(awk '/^MemTotal/ { print $2 }' /proc/meminfo)"
# pghot_mode=off: no stats (the pghot directory may still hold inject).
if [ ! -r $D/stats ]; then
	echo "mode off"
	exit 0
fi
stat() { awk -v k="$1" '$1 == k { print $2 }' $D/stats; }
echo "mode $(stat mode)"
echo "self_bytes $(stat record_memory_bytes)"
echo "tracked_pages $(stat tracked_pages)"

# What the allocator handed out for pghot's records, headers and tables:
# every kmalloc from pghot's store not freed again, plus vmalloc areas.
echo 0 > $T/tracing_on
awk '
	/ kmalloc: / && /call_site=pghot_(sections_add|table_cover)/ {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^ptr=/) p = substr($i, 5)
			if ($i ~ /^bytes_alloc=/) b = substr($i, 13)
		}
		live[p] = b
	}
	/ kfree: / {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^ptr=/) delete live[substr($i, 5)]
	}
	END { s = 0; for (p in live) s += live[p]; print "alloc_kmalloc_bytes", s }
' $T/trace
awk '$3 ~ /pghot_(sections_add|table_cover)/ { s += $2 } END { print "alloc_vmalloc_bytes", s + 0 }' /proc/vmallocinfo

# A 256 MiB hot set promoted by pghot, then 1 GiB more that nobody touches.
W=$TOP/out/selftests/pghot-bench
lower=$(awk '$1 ~ /^node[0-9]+$/ && $2 == "target" { sub("node", "", $1); print $1; exit }' $D/stats)
pid=$(pgrep -x "kmigrated$lower")
ticks() { awk '{ print $14 + $15 }' /proc/"$pid"/stat; }
echo 2 > /proc/sys/kernel/numa_balancing
echo 0x1 > $D/enabled_sources
t0=$(ticks)
"$W" --mem-node "$lower" --hot-mb 256 --duration-s 30 --sample-ms 1000 \
	--json /tmp/promote.json 2>/tmp/promote.err
t1=$(ticks)
echo "promote_summary $(tail -1 /tmp/promote.err)"
echo "promote_kmigrated_ms $(( (t1 - t0) * 1000 / $(getconf CLK_TCK) ))"
# The idle part: 1 GiB with the default policy, so NUMA balancing scans
# it, held by a task that only ever touches 1 MiB of its own.
python3 -c '
b = bytearray(1 << 30)
s = bytearray(1 << 20)
while True:
    for i in range(0, len(s), 4096):
        s[i] = (s[i] + 1) & 255
' &
holder=$!
sleep 8
migratepages $holder all "$lower" >/dev/null
sleep 15	# let the touched part be promoted
t0=$(ticks)
sleep "$IDLE_S"
t1=$(ticks)
kill $holder
echo "idle_kmigrated_ms_per_min $(( (t1 - t0) * 1000 * 60 / $(getconf CLK_TCK) / IDLE_S ))"
echo 0 > /proc/sys/kernel/numa_balancing
