// SPDX-License-Identifier: GPL-2.0
/*
 * Memory tiering checks for the pghot series, on a box shaped like the
 * reference one: nodes 0 and 1 with CPUs and DRAM, node 2 CPU-less memory
 * that memory-tiers places in a lower tier.
 *
 * tiers:       the memory_tiering sysfs nodelists put nodes 0 and 1 in one
 *              tier and node 2 in a lower one; node 2 has memory, no CPUs.
 * promote_nb2: with kernel.numa_balancing=2 (NUMA balancing in memory
 *              tiering mode), an anonymous buffer placed on node 2 and
 *              accessed by a task running on node 0 is promoted to the top
 *              tier, and pgpromote_success counts it.
 */

#include "kselftest_harness.h"

#include <numa.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pghot_util.h"

/* Small enough that a pass stays short on a debug kernel too. */
#define BUF_SIZE		(64UL << 20)
#define PROMOTE_TEST_TIMEOUT_S	(PROMOTE_TIMEOUT_S + 120)

#define NUMAB_MODE_TIERING	"2"
#define SCAN_DELAY_MS		"0"
#define SCAN_PERIOD_MIN_MS	"100"
#define SCAN_PERIOD_MAX_MS	"200"
#define SCAN_SIZE_MB		"1024"

static int node_nr_cpus(int nid)
{
	struct bitmask *cpus = numa_allocate_cpumask();
	int nr = -1;

	if (!cpus)
		return -1;
	if (!numa_node_to_cpus(nid, cpus))
		nr = numa_bitmask_weight(cpus);
	numa_free_cpumask(cpus);
	return nr;
}

TEST(tiers)
{
	int t0, t1, t2, nr;
	long long size;

	if (numa_available() < 0)
		SKIP(return, "NUMA not available");
	if (numa_max_node() < SLOW_NODE)
		SKIP(return, "need at least %d NUMA nodes, have %d",
		     SLOW_NODE + 1, numa_max_node() + 1);
	if (access(MEMTIER_DIR, F_OK))
		SKIP(return, "%s missing (no memory tiering support)",
		     MEMTIER_DIR);

	t0 = node_memtier(TOP_NODE);
	t1 = node_memtier(PEER_NODE);
	t2 = node_memtier(SLOW_NODE);
	TH_LOG("memory tiers: node%d=%d node%d=%d node%d=%d",
	       TOP_NODE, t0, PEER_NODE, t1, SLOW_NODE, t2);
	ASSERT_GE(t0, 0) TH_LOG("node %d is in no memory tier", TOP_NODE);
	ASSERT_GE(t1, 0) TH_LOG("node %d is in no memory tier", PEER_NODE);
	ASSERT_GE(t2, 0) TH_LOG("node %d is in no memory tier", SLOW_NODE);
	EXPECT_EQ(t0, t1) TH_LOG("DRAM nodes %d and %d in different tiers",
				 TOP_NODE, PEER_NODE);
	EXPECT_NE(t2, t0) TH_LOG("node %d shares the DRAM tier", SLOW_NODE);
	EXPECT_GT(t2, t0) TH_LOG("node %d is not in a slower tier", SLOW_NODE);

	size = numa_node_size64(SLOW_NODE, NULL);
	EXPECT_GT(size, 0) TH_LOG("node %d has no memory", SLOW_NODE);
	nr = node_nr_cpus(SLOW_NODE);
	EXPECT_EQ(nr, 0) TH_LOG("node %d has %d CPUs", SLOW_NODE, nr);
	nr = node_nr_cpus(TOP_NODE);
	EXPECT_GT(nr, 0) TH_LOG("node %d has no CPUs", TOP_NODE);
}

enum {
	KNOB_NUMAB,
	KNOB_SCAN_DELAY,
	KNOB_SCAN_PERIOD_MIN,
	KNOB_SCAN_PERIOD_MAX,
	KNOB_SCAN_SIZE,
	NR_KNOBS,
};

/* None is required: the setup skips without NUMAB_SYSCTL. */
static const struct knob knob_init[NR_KNOBS] = {
	[KNOB_NUMAB] = { NUMAB_SYSCTL },
	[KNOB_SCAN_DELAY] = { NUMAB_DEBUGFS "scan_delay_ms" },
	[KNOB_SCAN_PERIOD_MIN] = { NUMAB_DEBUGFS "scan_period_min_ms" },
	[KNOB_SCAN_PERIOD_MAX] = { NUMAB_DEBUGFS "scan_period_max_ms" },
	[KNOB_SCAN_SIZE] = { NUMAB_DEBUGFS "scan_size_mb" },
};

/* The knobs are restored by the parent; see struct knob. */
FIXTURE(promote)
{
	struct knob knobs[NR_KNOBS];
};

FIXTURE_SETUP(promote)
{
	memcpy(self->knobs, knob_init, sizeof(self->knobs));

	if (numa_available() < 0)
		SKIP(return, "NUMA not available");
	if (numa_max_node() < SLOW_NODE)
		SKIP(return, "need at least %d NUMA nodes, have %d",
		     SLOW_NODE + 1, numa_max_node() + 1);
	if (access(NUMAB_SYSCTL, F_OK))
		SKIP(return, "%s missing (CONFIG_NUMA_BALANCING=n)",
		     NUMAB_SYSCTL);
	if (node_memtier(SLOW_NODE) <= node_memtier(TOP_NODE) ||
	    node_memtier(TOP_NODE) < 0)
		SKIP(return, "node %d is not in a lower memory tier than node %d",
		     SLOW_NODE, TOP_NODE);
	if (node_nr_cpus(TOP_NODE) <= 0)
		SKIP(return, "node %d has no CPUs", TOP_NODE);
	if (!nodes_have_free(_metadata, BUF_SIZE * 2))
		return;

	save_knobs(_metadata, self->knobs, NR_KNOBS);
}

FIXTURE_TEARDOWN_PARENT(promote)
{
	restore_knobs(_metadata, self->knobs, NR_KNOBS);
}

TEST_F_TIMEOUT(promote, promote_nb2, PROMOTE_TEST_TIMEOUT_S)
{
	unsigned long long promoted_before = 0, promoted_after = 0;
	unsigned long pass;
	struct residency r;
	struct region rg;
	double elapsed;

	ASSERT_EQ(numa_run_on_node(TOP_NODE), 0);
	/* This test covers the 4K path; keep THP out of it. */
	map_region(_metadata, &rg, BUF_SIZE);

	/*
	 * Scan fast once balancing is on; it is still off for now. The scan
	 * period backs off towards its maximum (60 s by default) while the
	 * faults are all remote, so bound the maximum too.
	 */
	set_knob(_metadata, self->knobs, KNOB_SCAN_DELAY, SCAN_DELAY_MS);
	set_knob(_metadata, self->knobs, KNOB_SCAN_PERIOD_MIN,
		 SCAN_PERIOD_MIN_MS);
	set_knob(_metadata, self->knobs, KNOB_SCAN_PERIOD_MAX,
		 SCAN_PERIOD_MAX_MS);
	set_knob(_metadata, self->knobs, KNOB_SCAN_SIZE, SCAN_SIZE_MB);

	ASSERT_EQ(place_on_slow(&rg), 0);
	ASSERT_EQ(query_residency(&rg, &r), 0);
	ASSERT_TRUE(reached_pct(r.slow, rg.nr, PLACED_PCT))
		TH_LOG("only %lu of %lu pages on node %d (top %lu, other %lu, missing %lu)",
		       r.slow, rg.nr, SLOW_NODE, r.top, r.other, r.missing);

	ASSERT_EQ(read_vmstat("pgpromote_success", &promoted_before), 0);
	set_knob(_metadata, self->knobs, KNOB_NUMAB, NUMAB_MODE_TIERING);
	elapsed = access_until_promoted(_metadata, &rg, &r, &pass);
	ASSERT_EQ(read_vmstat("pgpromote_success", &promoted_after), 0);

	ksft_print_msg("promoted %.2f%% of %lu pages in %.1f s (%lu passes)\n",
		       pct(r.top, rg.nr), rg.nr, elapsed, pass);
	ksft_print_msg("pages: node %d %lu, top tier %lu, other %lu, missing %lu\n",
		       SLOW_NODE, r.slow, r.top, r.other, r.missing);
	ksft_print_msg("pgpromote_success delta %llu\n",
		       promoted_after - promoted_before);

	EXPECT_TRUE(reached_pct(r.top, rg.nr, PROMOTED_PCT))
		TH_LOG("less than %d%% promoted within %d s",
		       PROMOTED_PCT, PROMOTE_TIMEOUT_S);
	EXPECT_GT(promoted_after, promoted_before)
		TH_LOG("pgpromote_success did not move");

	unmap_region(&rg);
}

TEST_HARNESS_MAIN
