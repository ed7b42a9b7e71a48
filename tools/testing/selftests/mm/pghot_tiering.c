// SPDX-License-Identifier: GPL-2.0
/*
 * Memory tiering checks for the pghot series, on any box with a lower
 * memory tier: the tiers are read from sysfs (pghot_util.h), not assumed.
 *
 * tiers:       every node with memory is in exactly one memory tier; the
 *              top-tier nodes with CPUs share one tier; every lower-tier
 *              node has memory and no CPUs. Where PGHOT_TOP_NODES and
 *              PGHOT_LOWER_NODES are set (node lists, e.g. "0-1" and "2",
 *              as the test VM sets them), the top-tier and lower-tier
 *              nodes must be exactly those.
 * promote_nb2: with kernel.numa_balancing=2 (NUMA balancing in memory
 *              tiering mode), an anonymous buffer placed on each
 *              lower-tier node in turn and accessed by a task running on a
 *              top-tier node with CPUs is promoted to the top tier, and
 *              pgpromote_success counts it.
 */

#include "kselftest_harness.h"

#include <numa.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pghot_util.h"

/* Small enough that a pass stays short on a debug kernel too. */
#define BUF_SIZE		(64UL << 20)
#define PROMOTE_TEST_TIMEOUT_S	(TIMED_LOWER_NODES * PROMOTE_MAX_S + 120)

#define NUMAB_MODE_OFF		"0"
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

/*
 * If the environment variable @var is set, expect the @nr nodes @nids to
 * be exactly the nodes it lists.
 */
static void expect_nodes(struct __test_metadata *_metadata, const char *var,
			 const int *nids, int nr)
{
	static bool want[TOPO_MAX_NODES], have[TOPO_MAX_NODES];
	const char *list = getenv(var);
	int i;

	if (!list)
		return;
	memset(want, 0, sizeof(want));
	memset(have, 0, sizeof(have));
	ASSERT_GE(nodelist_parse(list, want, TOPO_MAX_NODES), 0)
		TH_LOG("%s=\"%s\" is not a node list", var, list);
	for (i = 0; i < nr; i++)
		have[nids[i]] = true;
	for (i = 0; i < TOPO_MAX_NODES; i++) {
		bool w = want[i], h = have[i];

		EXPECT_EQ(w, h)
			TH_LOG("node %d: %s by %s=%s but %s", i,
			       w ? "listed" : "not listed", var, list,
			       h ? "found there" : "not found there");
	}
}

TEST(tiers)
{
	const struct topology *t;
	int i, nid, nr, cpu_tier;
	long long size;

	if (numa_available() < 0)
		SKIP(return, "NUMA not available");
	t = tiered_topology(_metadata);
	if (!t)
		return;

	for (nid = 0; nid < t->nr_node_ids; nid++) {
		if (!t->online[nid])
			continue;
		size = numa_node_size64(nid, NULL);
		TH_LOG("node %d: memory tier %d, %d CPUs, %lld MiB",
		       nid, t->tier[nid], t->nr_cpus[nid], size >> 20);
		if (size > 0)
			EXPECT_GE(t->tier[nid], 0)
				TH_LOG("node %d has memory but is in no memory tier",
				       nid);
	}

	/* The DRAM nodes with CPUs share one tier. */
	cpu_tier = t->tier[topo_cpu_node(t)];
	ASSERT_GE(cpu_tier, 0);
	for (i = 0; i < t->nr_top_cpu; i++)
		EXPECT_EQ(t->tier[t->top_cpu[i]], cpu_tier)
			TH_LOG("DRAM nodes %d and %d in different tiers",
			       topo_cpu_node(t), t->top_cpu[i]);

	for (i = 0; i < t->nr_lower; i++) {
		nid = t->lower[i];
		EXPECT_NE(t->tier[nid], cpu_tier)
			TH_LOG("node %d shares the DRAM tier", nid);
		EXPECT_GT(t->tier[nid], cpu_tier)
			TH_LOG("node %d is not in a slower tier", nid);
		size = numa_node_size64(nid, NULL);
		EXPECT_GT(size, 0) TH_LOG("node %d has no memory", nid);
		nr = node_nr_cpus(nid);
		EXPECT_EQ(nr, 0) TH_LOG("node %d has %d CPUs", nid, nr);
	}
	nr = node_nr_cpus(topo_cpu_node(t));
	EXPECT_GT(nr, 0) TH_LOG("node %d has no CPUs", topo_cpu_node(t));

	expect_nodes(_metadata, "PGHOT_TOP_NODES", t->top, t->nr_top);
	expect_nodes(_metadata, "PGHOT_LOWER_NODES", t->lower, t->nr_lower);
}

/* NUMA balancing's knobs of the shared table: this test needs no pghot. */
enum { NR_KNOBS = KNOB_SCAN_SIZE + 1 };

/* None is required: the setup skips without NUMAB_SYSCTL. */
static const struct knob knob_init[NR_KNOBS] = {
	[KNOB_NUMAB] = { NUMAB_SYSCTL },
	[KNOB_SCAN_DELAY] = { NUMAB_DEBUGFS "scan_delay_ms" },
	[KNOB_SCAN_PERIOD_MIN] = { NUMAB_DEBUGFS "scan_period_min_ms" },
	[KNOB_SCAN_PERIOD_MAX] = { NUMAB_DEBUGFS "scan_period_max_ms" },
	[KNOB_SCAN_SIZE] = { NUMAB_DEBUGFS "scan_size_mb" },
};

/* The knobs are restored by the parent; see struct knob. */
FIXTURE(tiering)
{
	struct knob knobs[NR_KNOBS];
};

FIXTURE_SETUP(tiering)
{
	const struct topology *t;

	memcpy(self->knobs, knob_init, sizeof(self->knobs));

	if (numa_available() < 0)
		SKIP(return, "NUMA not available");
	if (access(NUMAB_SYSCTL, F_OK))
		SKIP(return, "%s missing (CONFIG_NUMA_BALANCING=n)",
		     NUMAB_SYSCTL);
	t = tiered_topology(_metadata);
	if (!t)
		return;
	if (node_nr_cpus(topo_cpu_node(t)) <= 0)
		SKIP(return, "node %d has no CPUs", topo_cpu_node(t));
	if (!nodes_have_free(_metadata, t, BUF_SIZE * 2))
		return;

	save_knobs(_metadata, self->knobs, NR_KNOBS);
}

FIXTURE_TEARDOWN_PARENT(tiering)
{
	restore_knobs(_metadata, self->knobs, NR_KNOBS);
}

/* Promote a buffer placed on lower-tier node @nid; balancing starts off. */
static void promote_from(struct __test_metadata *_metadata,
			 struct knob *knobs, int nid)
{
	unsigned long long promoted_before = 0, promoted_after = 0;
	unsigned long pass;
	struct residency r;
	struct region rg;
	double elapsed;

	/* This test covers the 4K path; keep THP out of it. */
	map_region(_metadata, &rg, BUF_SIZE);

	ASSERT_EQ(place_on_node(&rg, nid), 0);
	ASSERT_EQ(query_residency(&rg, &r), 0);
	ASSERT_TRUE(reached_pct(r.slow, rg.nr, PLACED_PCT))
		TH_LOG("only %lu of %lu pages on node %d (top %lu, other %lu, missing %lu)",
		       r.slow, rg.nr, nid, r.top, r.other, r.missing);

	ASSERT_EQ(read_vmstat("pgpromote_success", &promoted_before), 0);
	set_knob(_metadata, knobs, KNOB_NUMAB, NUMAB_MODE_TIERING);
	elapsed = access_until_promoted(_metadata, &rg, &r, &pass);
	set_knob(_metadata, knobs, KNOB_NUMAB, NUMAB_MODE_OFF);
	ASSERT_EQ(read_vmstat("pgpromote_success", &promoted_after), 0);

	ksft_print_msg("node %d: promoted %.2f%% of %lu pages in %.1f s (%lu passes)\n",
		       nid, pct(r.top, rg.nr), rg.nr, elapsed, pass);
	ksft_print_msg("pages: node %d %lu, top tier %lu, other %lu, missing %lu\n",
		       nid, r.slow, r.top, r.other, r.missing);
	ksft_print_msg("pgpromote_success delta %llu\n",
		       promoted_after - promoted_before);

	EXPECT_TRUE(reached_pct(r.top, rg.nr, PROMOTED_PCT))
		TH_LOG("less than %d%% promoted from node %d",
		       PROMOTED_PCT, nid);
	EXPECT_GT(promoted_after, promoted_before)
		TH_LOG("pgpromote_success did not move");

	unmap_region(&rg);
}

TEST_F_TIMEOUT(tiering, promote_nb2, PROMOTE_TEST_TIMEOUT_S)
{
	const struct topology *t = tiered_topology(_metadata);
	int i;

	ASSERT_NE(t, NULL);
	ASSERT_EQ(numa_run_on_node(topo_cpu_node(t)), 0);

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

	for (i = 0; i < t->nr_lower; i++)
		promote_from(_metadata, self->knobs, t->lower[i]);
}

TEST_HARNESS_MAIN
