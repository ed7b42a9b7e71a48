#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM of the cxl shape (tooling/vm.sh VM_SHAPE=cxl):
# give the empty CXL node its first memory the way an operator does on a
# real box with a CXL memory expander, through the CXL sysfs ABI (what
# `cxl create-region -t ram` does): the endpoint decoder of the memory
# device gets its capacity in ram mode, a ram region in the root decoder
# (the fixed memory window) takes it, and once committed and bound to the
# region driver the region's dax device is bound to dax/kmem, which adds the memory and onlines it
# (memhp_default_state=online_movable).
#
# Results, in the form tooling/guest-tests.sh prints:
#	cxl/region-online         the region is committed and its memory
#	                          online, on a node that had none at boot
#	cxl/node-gains-memory     that node is now in a lower memory tier,
#	                          has a kmigrated thread and a stats line
# Exits non-zero if either failed.
set -uo pipefail
CXL=/sys/bus/cxl/devices
STATS=/sys/kernel/debug/pghot/stats
WAIT_S=${CXL_WAIT_S:-30}

result() {
	local line="result: $1 $2"

	[ -z "${3:-}" ] || line+=" # $3"
	echo "$line"
}
fail() {
	result FAIL cxl/region-online "$1"
	result FAIL cxl/node-gains-memory "no region"
	exit 1
}
w() {
	echo "$2" > "$1" 2>/dev/null ||
		fail "writing '$2' to ${1#"$CXL"/} failed: $(cat "$1" 2>/dev/null)"
}
# Wait until command $@ succeeds, up to WAIT_S seconds.
wait_for() {
	local t0

	t0=$(date +%s)
	until "$@"; do
		[ $(( $(date +%s) - t0 )) -lt "$WAIT_S" ] || return 1
		sleep 0.5
	done
}

nodes_with_memory() { cat /sys/devices/system/node/has_memory; }

# The driver probes asynchronously: wait for a memory device and a root
# decoder that can hold ram.
have_mem() { ls -d "$CXL"/mem[0-9]* >/dev/null 2>&1; }
wait_for have_mem || fail "no CXL memory device under $CXL"
root=
have_root() {
	local d

	for d in "$CXL"/decoder0.*; do
		[ "$(cat "$d/cap_ram" 2>/dev/null)" = 1 ] && { root=$d; return 0; }
	done
	return 1
}
wait_for have_root || fail "no root decoder with cap_ram under $CXL"

mem=$(ls -d "$CXL"/mem[0-9]* | head -1)
ep=
have_ep() {
	local d

	# The endpoint port of mem<N> is endpoint<M>, a child of its parent
	# port; its decoders are decoder<M>.<k>.
	for d in "$CXL"/endpoint[0-9]*; do
		[ "$(readlink -f "$d/uport")" = "$(readlink -f "$mem")" ] || continue
		ep=$(ls -d "$d"/decoder[0-9]*.0 2>/dev/null | head -1)
		[ -n "$ep" ] && return 0
	done
	return 1
}
wait_for have_ep || fail "no endpoint decoder for $(basename "$mem")"
size=$(cat "$mem/ram/size")
[ -n "$size" ] && [ $((size)) -gt 0 ] || fail "$(basename "$mem") has no ram capacity"
before=$(nodes_with_memory)
echo "# CXL: $(basename "$mem"), $((size >> 20)) MiB ram; root decoder $(basename "$root"), endpoint decoder $(basename "$ep"); nodes with memory: $before"

ep_name=$(basename "$ep")
w "$CXL/$ep_name/mode" ram
w "$CXL/$ep_name/dpa_size" "$size"
region=$(cat "$root/create_ram_region")
w "$root/create_ram_region" "$region"
wait_for test -d "$CXL/$region" || fail "$region did not appear"
w "$CXL/$region/interleave_granularity" "$(cat "$root/interleave_granularity")"
w "$CXL/$region/interleave_ways" 1
w "$CXL/$region/size" "$size"
w "$CXL/$region/target0" "$ep_name"
w "$CXL/$region/commit" 1
# A region made through sysfs is not probed on commit (only one the
# platform firmware set up is): bind it to the region driver, as
# cxl create-region does. The driver creates a dax region, whose device
# dax/kmem claims; kmem adds the memory and it comes online, on a node
# the fixed memory window was given at boot.
w /sys/bus/cxl/drivers/cxl_region/bind "$region"
nodelist_has() {
	local r lo hi

	for r in ${1//,/ }; do
		lo=${r%-*} hi=${r#*-}
		[ "$2" -ge "$lo" ] && [ "$2" -le "$hi" ] && return 0
	done
	return 1
}
nid=
new_node() {
	local n

	for n in $(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//'); do
		nodelist_has "$before" "$n" && continue
		nodelist_has "$(nodes_with_memory)" "$n" && { nid=$n; return 0; }
	done
	return 1
}
if ! wait_for new_node; then
	ls /sys/bus/dax/devices/ 2>/dev/null | sed 's/^/#   dax: /'
	fail "$region committed, but no node gained memory (nodes with memory: $(nodes_with_memory))"
fi
dax=$(ls -d /sys/bus/dax/devices/dax[0-9]*.* 2>/dev/null | head -1)
echo "# $region: dax device $(basename "${dax:-none}") target_node $(cat "$dax/target_node" 2>/dev/null), driver $(basename "$(readlink -f "$dax/driver")" 2>/dev/null)"
online=$(grep -l online /sys/devices/system/node/node"$nid"/memory[0-9]*/state 2>/dev/null | wc -l)
result PASS cxl/region-online "$region, $((size >> 20)) MiB: node $nid had no memory, now $online blocks online"

# The node gains its first memory: a lower tier, kmigrated, stats.
tier=
in_lower_tier() {
	local d

	for d in /sys/devices/virtual/memory_tiering/memory_tier*; do
		nodelist_has "$(cat "$d/nodelist")" "$nid" && { tier=${d##*memory_tier}; return 0; }
	done
	return 1
}
kmigrated_up() { grep -qx "kmigrated$nid" /proc/[0-9]*/comm 2>/dev/null; }
listed() { grep -q "^node$nid " "$STATS"; }
why=
wait_for in_lower_tier || why="node $nid is in no memory tier"
if [ -z "$why" ]; then
	for d in /sys/devices/virtual/memory_tiering/memory_tier*; do
		t=${d##*memory_tier}
		nodelist_has "$(cat "$d/nodelist")" 0 && [ "$t" -ge "$tier" ] &&
			why="node $nid is in memory_tier$tier, not below node 0's memory_tier$t"
	done
fi
[ -n "$why" ] || wait_for kmigrated_up || why="no kmigrated$nid thread"
[ -n "$why" ] || wait_for listed || why="$STATS has no node$nid line"
if [ -n "$why" ]; then
	result FAIL cxl/node-gains-memory "$why"
	exit 1
fi
result PASS cxl/node-gains-memory "node $nid: memory_tier$tier, kmigrated$nid, $(grep "^node$nid " "$STATS")"
echo "# memory tiers now:"
for d in /sys/devices/virtual/memory_tiering/memory_tier*; do
	echo "#   ${d##*/}: nodes $(cat "$d/nodelist")"
done
