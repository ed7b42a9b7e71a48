#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside a test VM: DAMON-based memory tiering, the competitor the demo
# compares pghot with, configured through DAMON's sysfs interface
# (Documentation/admin-guide/mm/damon/usage.rst) as the 7.3 tree's
# samples/damon/mtier.c configures it in the kernel:
#
#	guest-damon.sh start [top lower]	two kdamonds on the physical
#					memory of two nodes (default: the
#					first top-tier node with CPUs and the
#					first lower-tier node, from sysfs)
#	guest-damon.sh stats		one JSON object: each scheme's
#					nr_tried, sz_tried, nr_applied,
#					sz_applied, qt_exceeds, what passed
#					its young filter
#					(sz_ops_filter_passed), the quota
#					it tuned (effective_bytes), the
#					sampling interval it tuned
#					(sample_us); pids
#	guest-damon.sh stop		both kdamonds off and gone
#
# kdamond 0 watches the lower node and migrates what it finds accessed to
# the top node (migrate_hot, only pages found young); kdamond 1 watches the
# top node and migrates what it finds idle to the lower node (migrate_cold,
# never young pages). Both as mtier: sampling auto-tuned for 4% of the
# samples to see an access (5 ms to DAMON_MAX_SAMPLE_US, 10 s as mtier;
# a check may bound it lower), aggregation 100 ms, 10 to 1000
# regions, schemes applied every second, at most DAMON_QUOTA_MB (200) MiB a
# second each, prioritised by access frequency and age, and tuned towards
# DAMON_USED_BP (9970) basis points of the top node used (promotion) and
# DAMON_FREE_BP (50) free (demotion). NUMA balancing and pghot's sources
# are the caller's business (the demo turns both off for DAMON's row).
set -euo pipefail

ADMIN=/sys/kernel/mm/damon/admin
K=$ADMIN/kdamonds
QUOTA_MB=${DAMON_QUOTA_MB:-200}
USED_BP=${DAMON_USED_BP:-9970}
FREE_BP=${DAMON_FREE_BP:-50}
MAX_SAMPLE_US=${DAMON_MAX_SAMPLE_US:-10000000}

die() { echo "guest-damon: $*" >&2; exit 1; }
w() { echo "$2" > "$1" 2>/dev/null || die "cannot write '$2' to $1"; }

# The nodes of a tier, from sysfs: memory_tiering's tiers in order, the
# first (lowest abstract distance) being the top tier.
tier_nodes() {	# top|lower
	local tiers=(/sys/devices/virtual/memory_tiering/memory_tier*)
	local first='' t list
	[ -e "${tiers[0]}" ] || die "no memory tiers in sysfs"
	for t in $(printf '%s\n' "${tiers[@]}" | sort -V); do
		list=$(cat "$t/nodelist")
		if [ -z "$first" ]; then
			first=1
			[ "$1" = top ] && { expand "$list"; return; }
		elif [ "$1" = lower ]; then
			expand "$list"
			return
		fi
	done
}

expand() {	# a node list such as 0-1,3
	local part
	for part in ${1//,/ }; do
		if [[ $part == *-* ]]; then
			seq "${part%-*}" "${part#*-}"
		else
			echo "$part"
		fi
	done
}

first_with_cpus() {
	local n
	for n in "$@"; do
		[ -n "$(tr -d '\n' < /sys/devices/system/node/node$n/cpulist)" ] &&
			{ echo "$n"; return; }
	done
	echo "$1"
}

# The physical range a node's online memory blocks span: start end, bytes.
node_range() {	# nid
	local bs blk id min='' max=''
	bs=$((16#$(cat /sys/devices/system/memory/block_size_bytes)))
	for blk in /sys/devices/system/node/node$1/memory[0-9]*; do
		[ -e "$blk" ] || continue
		[ "$(cat "$blk/online" 2>/dev/null)" = 1 ] || continue
		id=${blk##*memory}
		[ -z "$min" ] || [ "$id" -lt "$min" ] && min=$id
		[ -z "$max" ] || [ "$id" -gt "$max" ] && max=$id
	done
	[ -n "$min" ] || die "node $1 has no online memory"
	echo $((min * bs)) $(((max + 1) * bs))
}

# One kdamond, one context on the paddr operations, one target region,
# one scheme with a quota goal and a young-page filter.
setup_kdamond() {	# index watched-node action dest-node goal-metric goal-bp
	local k=$K/$1 c s range
	c=$k/contexts/0
	w $k/contexts/nr_contexts 1
	w $c/operations paddr
	w $c/monitoring_attrs/intervals/sample_us 5000
	w $c/monitoring_attrs/intervals/aggr_us 100000
	w $c/monitoring_attrs/intervals/update_us 60000000
	w $c/monitoring_attrs/intervals/intervals_goal/access_bp 400
	w $c/monitoring_attrs/intervals/intervals_goal/aggrs 3
	w $c/monitoring_attrs/intervals/intervals_goal/min_sample_us 5000
	w $c/monitoring_attrs/intervals/intervals_goal/max_sample_us "$MAX_SAMPLE_US"
	w $c/monitoring_attrs/nr_regions/min 10
	w $c/monitoring_attrs/nr_regions/max 1000
	read -r -a range <<< "$(node_range "$2")"
	w $c/targets/nr_targets 1
	w $c/targets/0/regions/nr_regions 1
	w $c/targets/0/regions/0/start "${range[0]}"
	w $c/targets/0/regions/0/end "${range[1]}"
	w $c/schemes/nr_schemes 1
	s=$c/schemes/0
	w $s/action "$3"
	w $s/target_nid "$4"
	w $s/apply_interval_us 1000000
	w $s/access_pattern/sz/min 4096
	w $s/access_pattern/sz/max 18446744073709551615
	if [ "$3" = migrate_hot ]; then
		w $s/access_pattern/nr_accesses/min 1
		w $s/access_pattern/nr_accesses/max 4294967295
	else
		w $s/access_pattern/nr_accesses/min 0
		w $s/access_pattern/nr_accesses/max 0
	fi
	w $s/access_pattern/age/min 0
	w $s/access_pattern/age/max 4294967295
	w $s/quotas/ms 0
	w $s/quotas/bytes $((QUOTA_MB << 20))
	w $s/quotas/reset_interval_ms 1000
	w $s/quotas/weights/sz_permil 0
	w $s/quotas/weights/nr_accesses_permil 100
	w $s/quotas/weights/age_permil 100
	w $s/quotas/goals/nr_goals 1
	w $s/quotas/goals/0/target_metric "$5"
	w $s/quotas/goals/0/target_value "$6"
	w $s/quotas/goals/0/nid "$TOP_NID"
	# Promotion takes only pages found young, demotion never takes them.
	w $s/ops_filters/nr_filters 1
	w $s/ops_filters/0/type young
	w $s/ops_filters/0/matching Y
	if [ "$3" = migrate_hot ]; then
		w $s/ops_filters/0/allow Y
	else
		w $s/ops_filters/0/allow N
	fi
}

stop() {
	local k
	[ -d $K ] || return 0
	for k in $K/[0-9]*; do
		[ -e "$k/state" ] || continue
		[ "$(cat "$k/state")" = off ] || w "$k/state" off
	done
	w $K/nr_kdamonds 0
}

case ${1:-} in
start)
	[ -d $ADMIN ] || die "no DAMON sysfs interface (CONFIG_DAMON_SYSFS, CONFIG_DAMON_PADDR)"
	if [ $# -ge 3 ]; then
		TOP_NID=$2 LOWER_NID=$3
	else
		# shellcheck disable=SC2046
		TOP_NID=$(first_with_cpus $(tier_nodes top))
		LOWER_NID=$(tier_nodes lower | head -1)
	fi
	[ -n "$LOWER_NID" ] || die "no lower-tier node"
	stop
	w $K/nr_kdamonds 2
	grep -qw paddr $K/0/contexts/0/avail_operations 2>/dev/null ||
		{ w $K/0/contexts/nr_contexts 1
		  grep -qw paddr $K/0/contexts/0/avail_operations ||
			die "DAMON has no paddr operations (CONFIG_DAMON_PADDR)"; }
	setup_kdamond 0 "$LOWER_NID" migrate_hot "$TOP_NID" node_mem_used_bp "$USED_BP"
	setup_kdamond 1 "$TOP_NID" migrate_cold "$LOWER_NID" node_mem_free_bp "$FREE_BP"
	w $K/0/state on
	w $K/1/state on
	echo "guest-damon: migrate_hot node $LOWER_NID -> $TOP_NID, migrate_cold node $TOP_NID -> $LOWER_NID" >&2
	;;
stats)
	[ -e $K/0/state ] || die "not started"
	printf '{'
	sep=
	for i in 0 1; do
		k=$K/$i
		s=$k/contexts/0/schemes/0
		[ "$(cat $k/state)" = off ] || w $k/state update_schemes_stats
		[ "$(cat $k/state)" = off ] || w $k/state update_schemes_effective_quotas
		printf '%s"%s": {"pid": %s' "$sep" "$(cat $s/action)" "$(cat $k/pid)"
		for f in nr_tried sz_tried nr_applied sz_applied qt_exceeds \
			sz_ops_filter_passed; do
			# sz_ops_filter_passed: DAMON 6.14 and later
			[ -e $s/stats/$f ] || continue
			printf ', "%s": %s' $f "$(cat $s/stats/$f)"
		done
		printf ', "effective_bytes": %s' "$(cat $s/quotas/effective_bytes)"
		[ "$(cat $k/state)" = off ] || w $k/state update_tuned_intervals
		printf ', "sample_us": %s}' \
			"$(cat $k/contexts/0/monitoring_attrs/intervals/sample_us)"
		sep=', '
	done
	printf '}\n'
	;;
stop)
	stop
	;;
*)
	die "usage: guest-damon.sh start [top lower] | stats | stop"
	;;
esac
