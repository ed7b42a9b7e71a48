#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make measure-core: the core's cost as the lower tier grows. One boot per
# node-2 size (MEASURE_NODE2_MB, default 2, 6 and 12 GiB) and record mode
# (default, precise, and off for the reference) on the same kernel binary:
#  - record memory as pghot reports it (stats), as the allocator handed it
#    out (kmalloc/kfree trace events and vmallocinfo, by pghot call site),
#    and the MemFree difference against the boot with pghot_mode=off;
#  - kmigrated's CPU time promoting a 256 MiB hot set, and per minute
#    while 1 GiB sits idle on the lower tier;
#  - the median cost of one record update (KUnit, on a private table).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

sizes=${MEASURE_NODE2_MB:-2048 6144 12288}
M=$OUT/measure
mkdir -p "$M"
for size in $sizes; do
	for mode in off default precise; do
		log "node 2 $size MiB, pghot_mode=$mode"
		kunit=0 filter=""
		if [ "$mode" != off ]; then
			kunit=1 filter="kunit.filter_glob=pghot-record.pghot_test_record_cost"
		fi
		KUNIT=$kunit NODE2_MB=$size NODE2_DIMM_MB=0 VMDIR=$M/vm-$size-$mode \
			VM_APPEND="pghot_mode=$mode $filter trace_event=kmem:kmalloc,kmem:kfree trace_buf_size=64M" \
			"$TOP/tooling/vm.sh" tooling/guest-measure-core.sh > "$M/$size-$mode.txt"
		grep -o 'record update: median [0-9]* ns' "$M/vm-$size-$mode/console.log" |
			sed 's/record update: median \([0-9]*\) ns/update_ns \1/' >> "$M/$size-$mode.txt" || true
	done
done
python3 - "$M" $sizes <<'PY'
import sys
M, sizes = sys.argv[1], sys.argv[2:]
def load(size, mode):
    d = {}
    with open(f"{M}/{size}-{mode}.txt") as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            d[k] = v
    return d
print("node 2   mode      pages     self-reported  allocated      agree   "
      "B/page  MemFree vs off  kmigrated: promote 256M  idle/min  update")
for size in sizes:
    off = load(size, "off")
    for mode in ("default", "precise"):
        d = load(size, mode)
        self_b = int(d["self_bytes"])
        alloc = int(d["alloc_kmalloc_bytes"]) + int(d["alloc_vmalloc_bytes"])
        pages = int(d["tracked_pages"])
        delta = (int(off["memfree_kb"]) - int(d["memfree_kb"])) * 1024
        print(f"{int(size) >> 10:3} GiB  {mode:8} {pages:9,} {self_b:13,} B "
              f"{alloc:11,} B {100.0 * (self_b - alloc) / alloc:+6.2f}%  "
              f"{alloc / pages:5.3f}  {delta:12,} B  "
              f"{d.get('promote_kmigrated_ms', '?'):>12} ms  "
              f"{d.get('idle_kmigrated_ms_per_min', '?'):>6} ms  "
              f"{d.get('update_ns', '?'):>4} ns")
print("(allocated: kmalloc'd and vmalloc'd by pghot's store and not freed, from"
      " the allocator's trace events; MemFree vs off: MemFree of the boot with"
      " pghot_mode=off minus this boot's, which also holds kmigrated and its"
      " queue)")
PY
