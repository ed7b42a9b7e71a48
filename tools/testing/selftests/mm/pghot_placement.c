// SPDX-License-Identifier: GPL-2.0
/*
 * Where pghot promotes, and what it must leave alone.
 *
 * default_target:  with the hint-fault source on (enabled_sources=0x1),
 *	a buffer on a lower-tier node touched by a task on top-tier node T
 *	lands on T, as legacy NUMA balancing would put it, for every top-tier
 *	node with CPUs; kmigrated did the work (pghot_promoted ==
 *	pgpromote_success), every promoted page was ready first, and pghot
 *	ignored next to nothing (but faults on folios already on their way
 *	up, more of them when migration is slow).
 * legacy_target:   the same with no pghot source (enabled_sources=0):
 *	the fault path promotes to T, pghot records and promotes nothing
 *	(where legacy's hot threshold holds pages back, on slow memory below
 *	the free-space fast path, at least every page it chose is on T).
 * target_nid:      target_nid=U sends the buffer to U, not to the task's T.
 * hwhint_accessor: hardware hints naming the accessing node U send the
 *	pages to U; without a node, to the injecting task's node; to no
 *	other node either way; 90% of them after one round of hints.
 * deferred_accessor: at freq_threshold 2, a buffer three times kmigrated's
 *	queue is reported from one top-tier node and then all at once from
 *	the other, the node reported last alternating page by page: the
 *	queue overflows (pghot_ready_deferred), and every page lands on the
 *	node that reported it last, the deferred ones too in precise mode
 *	(their record keeps it); in default mode a deferred page of a
 *	section whose pages name two nodes may go to the node's default
 *	target instead, no more pages than were deferred. None lands on a
 *	third top-tier node; one found on another lower-tier node was
 *	demoted there since (no more than reclaim demoted).
 * mpol_bind:       a range with MPOL_BIND | MPOL_F_NUMA_BALANCING whose
 *	mask holds the lower-tier node and not the task's node
 *	(numactl --balancing --membind) is never promoted, by legacy NUMA
 *	balancing or by pghot, which does not even record it.
 * preferred_many:  the same for MPOL_PREFERRED_MANY | MPOL_F_NUMA_BALANCING
 *	to the lower-tier node only (data kept on slow memory on purpose).
 * task_membind:    a task bound to the lower-tier node (set_mempolicy
 *	MPOL_BIND, numactl --membind) has its pages reported by hardware
 *	hints: kmigrated refuses them (pghot_promote_policy).
 * cpuset:          the same for a task in a cgroup whose cpuset.mems is the
 *	lower-tier node only (with another lower-tier node where the kernel
 *	can allocate, if that node has movable memory only).
 * pinned:          a buffer pinned for DMA (io_uring fixed buffers) is
 *	skipped and counted (pghot_promote_pinned), and promoted once
 *	unpinned.
 *
 * Runs from every top-tier node with CPUs against every lower-tier node;
 * tests that need two top-tier nodes with memory skip without them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "pghot_inject.h"

/*
 * The two io_uring_register() opcodes of include/uapi/linux/io_uring.h
 * used here: the kselftest build's tools/include copy of that header does
 * not build against the libc's linux/ headers, and liburing is optional.
 */
#define IORING_REGISTER_BUFFERS		0
#define IORING_UNREGISTER_BUFFERS	1

#define BUF_SIZE		(16UL << 20)
#define SETTLE_S		3	/* well above kmigrated_sleep_ms */
#define KEPT_S			10	/* a buffer that must stay, touched this long */
/* Of the pages: pghot_ignored_{offline,toptier,untracked}, plus a few. */
#define IGNORED_MAX_PCT		1
#define IGNORED_SLACK		64
#define PLACEMENT_TIMEOUT_S	(TIMED_LOWER_NODES * 2 * (PROMOTE_MAX_S + 20) + 60)

#define DEFER_SIZE		(96UL << 20)	/* 3x a queue of 8 batches of 1024 */

#define CGROUP_ROOT		"/sys/fs/cgroup"
#define CGROUP_TEST		CGROUP_ROOT "/pghot_placement"

enum { NR_KNOBS = NR_COMMON_KNOBS };

static const struct knob knob_init[NR_KNOBS] = { COMMON_KNOBS };

FIXTURE(placement)
{
	struct knob knobs[NR_KNOBS];
	const struct topology *topo;
};

FIXTURE_SETUP(placement)
{
	memcpy(self->knobs, knob_init, sizeof(self->knobs));
	self->topo = tiered_topology(_metadata);
	if (!self->topo)
		return;
	if (access(PGHOT_DIR, F_OK))
		SKIP(return, PGHOT_DIR " missing (no debugfs, not root, or no pghot)");
	if (!nodes_have_free(_metadata, self->topo, BUF_SIZE * 4))
		return;
	save_knobs(_metadata, self->knobs, NR_KNOBS);
}

FIXTURE_TEARDOWN_PARENT(placement)
{
	restore_knobs(_metadata, self->knobs, NR_KNOBS);
}

/* A buffer of BUF_SIZE on node @lower, placed and checked. */
static void place(struct __test_metadata *_metadata, struct region *rg,
		  int lower)
{
	struct residency r;

	map_region(_metadata, rg, BUF_SIZE);
	ASSERT_EQ(place_on_node(rg, lower), 0);
	ASSERT_EQ(query_residency(rg, &r), 0);
	ASSERT_TRUE(reached_pct(r.slow, rg->nr, PLACED_PCT))
		TH_LOG("only %lu of %lu pages placed on node %d", r.slow,
		       rg->nr, lower);
}

/*
 * Touch @rg until PROMOTED_PCT of it is on node @want or the timeout.
 * Returns how many pages are on @want.
 */
static unsigned long touch_until_on(struct __test_metadata *_metadata,
				    const struct region *rg, int want)
{
	double start = now_s(), last = start;
	struct progress p = { };
	struct residency r;

	for (;;) {
		touch_region(rg);
		if ((now_s() - last) * 1000 < CHECK_INTERVAL_MS)
			continue;
		last = now_s();
		ASSERT_EQ(query_residency(rg, &r), 0);
		if (!promote_wait_more(&p, start, region_on_node(rg, want), rg->nr))
			break;
	}
	EXPECT_EQ(query_residency(rg, &r), 0);
	return region_on_node(rg, want);
}

/*
 * Did legacy's own rule, not a wrong target, keep pages of a buffer of @nr
 * pages back, @on of them having landed where they belong? Every page its
 * hot threshold chose (pgpromote_candidate, counted only below the
 * free-space fast path) was promoted, to that node, and the threshold
 * chose most of them.
 */
static bool legacy_held_back(const struct vmstats *a, const struct vmstats *b,
			     unsigned long on, unsigned long nr)
{
	unsigned long long cand = vm_delta(a, b, VM_PROMOTE_CANDIDATE);

	return cand && cand == on && vm_delta(a, b, VM_PROMOTE_SUCCESS) == on &&
	       on * 2 >= nr;
}

/*
 * One promotion by hint faults from the task's node @cpu of a buffer on
 * @lower, expected on @want: through kmigrated if @pghot, else through
 * the fault path.
 */
static void hint_fault_run(struct __test_metadata *_metadata,
			   struct _test_data_placement *self, int cpu, int lower,
			   int want, bool pghot)
{
	struct vmstats a, b;
	unsigned long on, ignored;
	struct region rg;

	ASSERT_EQ(numa_run_on_node(cpu), 0);
	place(_metadata, &rg, lower);
	read_vmstats(_metadata, &a);
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "2");
	on = touch_until_on(_metadata, &rg, want);
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "0");
	read_vmstats(_metadata, &b);
	ksft_print_msg("%s, task on %d, pages from %d: %lu of %lu on node %d\n",
		       pghot ? "pghot" : "legacy", cpu, lower, on, rg.nr, want);
	print_deltas(&a, &b);
	if (!pghot && !reached_pct(on, rg.nr, PROMOTED_PCT) &&
	    legacy_held_back(&a, &b, on, rg.nr)) {
		/*
		 * Below the free-space fast path legacy promotes only faults
		 * quicker than its adaptive hot threshold; on slow memory
		 * under an emulator it can stall short of PROMOTED_PCT. What
		 * this test asks of legacy is where its pages go: each page it
		 * chose is on @want.
		 */
		ksft_print_msg("legacy held %lu pages back; the %llu it chose are on node %d\n",
			       rg.nr - on, vm_delta(&a, &b, VM_PROMOTE_CANDIDATE), want);
	} else {
		EXPECT_TRUE(reached_pct(on, rg.nr, PROMOTED_PCT))
			TH_LOG("less than %d%% landed on node %d", PROMOTED_PCT, want);
	}
	EXPECT_GE(vm_delta(&a, &b, VM_PROMOTE_SUCCESS), on);
	if (pghot) {
		/* kmigrated promoted them, each after it turned ready. */
		EXPECT_TRUE(kmigrated_did_it(vm_delta(&a, &b, VM_PROMOTED),
					     vm_delta(&a, &b, VM_PROMOTE_SUCCESS),
					     vm_delta(&a, &b, VM_HINTFAULT_LEGACY)));
		EXPECT_GE(vm_delta(&a, &b, VM_READY), vm_delta(&a, &b, VM_PROMOTED));
		ignored = vm_delta(&a, &b, VM_IGNORED_OFFLINE) +
			  vm_delta(&a, &b, VM_IGNORED_TOPTIER) +
			  vm_delta(&a, &b, VM_IGNORED_UNTRACKED);
		EXPECT_LE(ignored * 100, rg.nr * IGNORED_MAX_PCT + 100 * IGNORED_SLACK)
			TH_LOG("pghot ignored %lu reports", ignored);
		/*
		 * Each page kmigrated promoted came through a recorded fault.
		 * A fault on a folio kmigrated holds isolated on its way up is
		 * ignored, as the fault path would ignore it: that is a later
		 * fault of a page already recorded (a scan pass that came while
		 * its batch migrated), never one instead of its first. How many
		 * depends on how long migration takes against the scan period
		 * (long from an emulated CXL device): reported, not bounded.
		 */
		EXPECT_GE(vm_delta(&a, &b, VM_RECORDED_HINTFAULTS),
			  vm_delta(&a, &b, VM_PROMOTED));
		EXPECT_LE(vm_delta(&a, &b, VM_RECORDED_HINTFAULTS) +
			  vm_delta(&a, &b, VM_IGNORED_NONLRU),
			  vm_delta(&a, &b, VM_HINT_FAULTS))
			TH_LOG("pghot counted more faults than NUMA balancing took");
	} else {
		EXPECT_EQ(vm_delta(&a, &b, VM_PROMOTED), 0ULL);
		EXPECT_EQ(vm_delta(&a, &b, VM_RECORDED_HINTFAULTS), 0ULL);
	}
	unmap_region(&rg);
}

TEST_F_TIMEOUT(placement, default_target, PLACEMENT_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	int i, j;

	knobs_baseline(_metadata, self->knobs, "0x1");
	for (i = 0; i < t->nr_top_cpu; i++)
		for (j = 0; j < t->nr_lower; j++)
			hint_fault_run(_metadata, self, t->top_cpu[i], t->lower[j],
				       t->top_cpu[i], true);
}

TEST_F_TIMEOUT(placement, legacy_target, PLACEMENT_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	int i, j;

	knobs_baseline(_metadata, self->knobs, "0x0");
	for (i = 0; i < t->nr_top_cpu; i++)
		for (j = 0; j < t->nr_lower; j++)
			hint_fault_run(_metadata, self, t->top_cpu[i], t->lower[j],
				       t->top_cpu[i], false);
}

/* Another top-tier node than @nid, or -1. */
static int other_top(const struct topology *t, int nid)
{
	int i;

	for (i = 0; i < t->nr_top; i++)
		if (t->top[i] != nid)
			return t->top[i];
	return -1;
}

TEST_F_TIMEOUT(placement, target_nid, PLACEMENT_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	int cpu = topo_cpu_node(t), other = other_top(t, cpu), j;
	char val[16];

	if (other < 0)
		SKIP(return, "one top-tier node: no other target to name");
	knobs_baseline(_metadata, self->knobs, "0x1");
	snprintf(val, sizeof(val), "%d", other);
	set_knob(_metadata, self->knobs, KNOB_TARGET_NID, val);
	for (j = 0; j < t->nr_lower; j++)
		hint_fault_run(_metadata, self, cpu, t->lower[j], other, true);
}

/*
 * Hardware hints on a buffer on @lower, naming node @nid (-1: none, the
 * injecting task's node): expected on @want and on no other node.
 */
static void hwhint_run(struct __test_metadata *_metadata, int lower, int nid,
		       int want)
{
	struct vmstats a, b;
	unsigned long on, first = 0;
	unsigned int rounds = 0;
	struct residency r;
	struct region rg;

	place(_metadata, &rg, lower);
	read_vmstats(_metadata, &a);
	ASSERT_EQ(query_residency(&rg, &r), 0);
	ASSERT_GE(hint_rounds(&rg, nid, want, &first, &rounds), 0);
	read_vmstats(_metadata, &b);
	/* Pages still on their way up then have arrived: one look for all. */
	ASSERT_EQ(query_residency(&rg, &r), 0);
	on = region_on_node(&rg, want);
	ksft_print_msg("hints %s %d: %lu of %lu on it, %u round(s) (%lu after one), %lu on %d\n",
		       nid < 0 ? "from node" : "naming node", want, on, rg.nr,
		       rounds, first, r.slow, lower);
	print_deltas(&a, &b);
	EXPECT_TRUE(reached_pct(first, rg.nr, HINT_FIRST_PCT))
		TH_LOG("most hints of the first round were lost");
	EXPECT_TRUE(reached_pct(on, rg.nr, PROMOTED_PCT));
	/* Nothing went anywhere but where the hints said. */
	EXPECT_EQ(on + r.slow + r.missing, rg.nr)
		TH_LOG("%lu pages on another node than %d", rg.nr - on - r.slow -
		       r.missing, want);
	EXPECT_EQ(vm_delta(&a, &b, VM_PROMOTED), vm_delta(&a, &b, VM_PROMOTE_SUCCESS));
	unmap_region(&rg);
}

TEST_F_TIMEOUT(placement, hwhint_accessor, PLACEMENT_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	int cpu = topo_cpu_node(t), other = other_top(t, cpu), j;

	if (access(PGHOT_INJECT, W_OK))
		SKIP(return, "no " PGHOT_INJECT " (CONFIG_PGHOT_HWHINT_INJECT)");
	knobs_baseline(_metadata, self->knobs, "0x2");
	set_knob(_metadata, self->knobs, KNOB_FREQ_THRESHOLD, "1");
	ASSERT_EQ(numa_run_on_node(cpu), 0);
	for (j = 0; j < t->nr_lower; j++) {
		/* No node named: the injecting task's. */
		hwhint_run(_metadata, t->lower[j], -1, cpu);
		/* The accessor named: there. */
		if (other >= 0)
			hwhint_run(_metadata, t->lower[j], other, other);
	}
}

#define MODE_LEN	32

/* The record mode from the stats file: "default", "precise" or "". */
static void record_mode(char mode[MODE_LEN])
{
	char line[sizeof("mode ") - 1 + MODE_LEN];

	mode[0] = '\0';
	if (!read_str(PGHOT_DIR "stats", line, sizeof(line)) &&
	    !strncmp(line, "mode ", 5))
		snprintf(mode, MODE_LEN, "%s", line + 5);
}

TEST_F_TIMEOUT(placement, deferred_accessor, PLACEMENT_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	int cpu = topo_cpu_node(t), other = other_top(t, cpu);
	int lower = t->lower[0], last[2] = { cpu, other };
	unsigned long *pfns, *half[2], n[2] = { 0, 0 }, right = 0, wrong = 0;
	unsigned long i, deferred;
	struct progress p = { };
	struct vmstats a, b;
	struct residency r;
	struct region rg;
	char mode[MODE_LEN];
	bool precise;
	int k;

	if (access(PGHOT_INJECT, W_OK))
		SKIP(return, "no " PGHOT_INJECT " (CONFIG_PGHOT_HWHINT_INJECT)");
	if (other < 0)
		SKIP(return, "one top-tier node: no second accessor to tell apart");
	record_mode(mode);
	precise = !strcmp(mode, "precise");
	ASSERT_TRUE(precise || !strcmp(mode, "default")) TH_LOG("mode '%s'", mode);
	knobs_baseline(_metadata, self->knobs, "0x2");
	/* Both reports of a page within one window. */
	set_knob(_metadata, self->knobs, KNOB_WINDOW, "60000");
	ASSERT_EQ(numa_run_on_node(cpu), 0);
	map_region(_metadata, &rg, DEFER_SIZE);
	ASSERT_EQ(place_on_node(&rg, lower), 0);
	ASSERT_EQ(drain_lru(&rg, lower), 0);
	pfns = calloc(rg.nr, sizeof(*pfns));
	half[0] = calloc(rg.nr, sizeof(*pfns));
	half[1] = calloc(rg.nr, sizeof(*pfns));
	ASSERT_TRUE(pfns && half[0] && half[1]);
	ASSERT_EQ(region_pfns(&rg, pfns), 0);
	/* Even pages are reported last from @cpu, odd ones from @other. */
	for (i = 0; i < rg.nr; i++)
		half[i % 2][n[i % 2]++] = pfns[i];

	read_vmstats(_metadata, &a);
	for (k = 0; k < 2; k++)
		ASSERT_EQ(inject_pfns(half[k], n[k], last[!k]), 0);
	/* All at once: the pages become ready faster than kmigrated drains. */
	for (k = 0; k < 2; k++)
		ASSERT_EQ(inject_pfns(half[k], n[k], last[k]), 0);
	do {
		usleep(500 * 1000);
		ASSERT_EQ(query_residency(&rg, &r), 0);
	} while (!progress_done(&p, rg.nr - r.slow, rg.nr, PROMOTE_STALL_S));
	ASSERT_EQ(query_residency_settled(&rg, &r), 0);
	read_vmstats(_metadata, &b);
	for (i = 0; i < rg.nr; i++) {
		if (rg.status[i] == last[i % 2])
			right++;
		else if (rg.status[i] == last[!(i % 2)])
			wrong++;
	}
	deferred = vm_delta(&a, &b, VM_DEFERRED);
	ksft_print_msg("%s mode, node %d: %lu of %lu where reported last, %lu deferred\n",
		       mode, lower, right, rg.nr, deferred);
	ksft_print_msg("%s mode, node %d: %lu on the other node, %lu left\n",
		       mode, lower, wrong, r.slow);
	ksft_print_msg("%s, node %d: %lu on a third top node, %lu on another lower, %lu moving\n",
		       mode, lower, r.top - right - wrong, r.other, r.missing);
	print_deltas(&a, &b);
	ASSERT_GT(deferred, 0UL)
		TH_LOG("kmigrated's queue never overflowed: nothing deferred to test");
	EXPECT_EQ(vm_delta(&a, &b, VM_PROMOTED), vm_delta(&a, &b, VM_PROMOTE_SUCCESS));
	/*
	 * pghot promotes to the top tier only: a page on another lower-tier
	 * node went up and was demoted since (kswapd keeps a top-tier node
	 * that page cache fills above its watermarks, and the pages here are
	 * never touched), which reclaim's counters must show.
	 */
	EXPECT_LE(r.other, vm_demoted(&a, &b));
	EXPECT_EQ(r.top - right - wrong, 0UL)
		TH_LOG("pages promoted to a node that reported none of them");
	EXPECT_TRUE(reached_pct(right + wrong + r.other, rg.nr, PROMOTED_PCT));
	if (precise) {
		EXPECT_EQ(wrong, 0UL)
			TH_LOG("a deferred page lost its last accessor");
	} else {
		EXPECT_LE(wrong, deferred);
	}
	free(half[1]);
	free(half[0]);
	free(pfns);
	unmap_region(&rg);
}

/*
 * A buffer on @lower with policy @mode | MPOL_F_NUMA_BALANCING to @nodes
 * (a mask without the task's node) is touched for KEPT_S by a task on
 * @cpu, with pghot (@sources 0x1) or legacy (0x0): nothing moves.
 */
static void policy_keeps(struct __test_metadata *_metadata,
			 struct _test_data_placement *self, int cpu, int lower,
			 int mode, struct bitmask *nodes, const char *sources)
{
	struct vmstats a, b;
	struct residency r;
	struct region rg;
	double start;

	knobs_baseline(_metadata, self->knobs, sources);
	ASSERT_EQ(numa_run_on_node(cpu), 0);
	place(_metadata, &rg, lower);
	ASSERT_EQ(mbind(rg.buf, rg.size, mode | MPOL_F_NUMA_BALANCING,
			nodes->maskp, nodes->size + 1, 0), 0)
		TH_LOG("mbind: %s", strerror(errno));
	read_vmstats(_metadata, &a);
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "2");
	start = now_s();
	while (now_s() - start < KEPT_S)
		touch_region(&rg);
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "0");
	sleep(1);
	read_vmstats(_metadata, &b);
	ASSERT_EQ(query_residency(&rg, &r), 0);
	ksft_print_msg("sources %s, task on %d: %lu of %lu pages still on %d\n",
		       sources, cpu, r.slow, rg.nr, lower);
	print_deltas(&a, &b);
	/* The range was scanned: "nothing moved" means something. */
	EXPECT_GE(vm_delta(&a, &b, VM_HINT_FAULTS) * 2, rg.nr)
		TH_LOG("the range took %llu hint faults", vm_delta(&a, &b, VM_HINT_FAULTS));
	EXPECT_EQ(r.slow, rg.nr) TH_LOG("pages moved against the memory policy");
	/* pghot does not even record what the policy keeps in place. */
	EXPECT_EQ(vm_delta(&a, &b, VM_RECORDED_HINTFAULTS), 0ULL);
	unmap_region(&rg);
}

TEST_F_TIMEOUT(placement, mpol_bind, PLACEMENT_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	int cpu = topo_cpu_node(t), other = other_top(t, cpu), j;
	struct bitmask *nodes = numa_allocate_nodemask();

	ASSERT_NE(nodes, NULL);
	for (j = 0; j < t->nr_lower; j++) {
		/* numactl --balancing --membind=<other>,<lower> */
		numa_bitmask_clearall(nodes);
		numa_bitmask_setbit(nodes, t->lower[j]);
		if (other >= 0)
			numa_bitmask_setbit(nodes, other);
		policy_keeps(_metadata, self, cpu, t->lower[j], MPOL_BIND, nodes, "0x1");
		policy_keeps(_metadata, self, cpu, t->lower[j], MPOL_BIND, nodes, "0x0");
	}
	numa_free_nodemask(nodes);
}

TEST_F_TIMEOUT(placement, preferred_many, PLACEMENT_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	struct bitmask *nodes = numa_allocate_nodemask();
	int cpu = topo_cpu_node(t), j;

	ASSERT_NE(nodes, NULL);
	for (j = 0; j < t->nr_lower; j++) {
		numa_bitmask_clearall(nodes);
		numa_bitmask_setbit(nodes, t->lower[j]);
		policy_keeps(_metadata, self, cpu, t->lower[j],
			     MPOL_PREFERRED_MANY, nodes, "0x1");
		policy_keeps(_metadata, self, cpu, t->lower[j],
			     MPOL_PREFERRED_MANY, nodes, "0x0");
	}
	numa_free_nodemask(nodes);
}

/* What the confined child tells its parent. */
struct child_msg {
	unsigned long nr;		/* its pages, whose PFNs follow */
	unsigned long stayed;		/* of them on the lower-tier node, at the end */
};

typedef int (*confine_fn)(int lower);

/*
 * A child confined to @lower (by @confine, in the child) places a buffer
 * there and sends its PFNs; the parent reports them as hardware hints from
 * the child's CPU node; the child reports where its pages are afterwards.
 * Returns how many stayed on @lower; *@refused gets the policy refusals.
 */
static unsigned long confined_run(struct __test_metadata *_metadata, int cpu,
				  int lower, confine_fn confine,
				  unsigned long long *refused)
{
	int to_parent[2], to_child[2], status;
	struct child_msg msg = { };
	struct vmstats a, b;
	unsigned long *pfns;
	char go;
	pid_t pid;

	ASSERT_EQ(pipe(to_parent), 0);
	ASSERT_EQ(pipe(to_child), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct region rg;
		struct residency r;

		close(to_parent[0]);
		close(to_child[1]);
		if (numa_run_on_node(cpu) || confine(lower))
			_exit(1);
		map_region(_metadata, &rg, BUF_SIZE);
		/* On @lower even where the confinement allows more nodes. */
		if (place_on_node(&rg, lower))
			_exit(2);
		pfns = calloc(rg.nr, sizeof(*pfns));
		if (!pfns || region_pfns(&rg, pfns))
			_exit(2);
		msg.nr = rg.nr;
		if (write(to_parent[1], &msg, sizeof(msg)) != sizeof(msg) ||
		    write(to_parent[1], pfns, rg.nr * sizeof(*pfns)) !=
		    (ssize_t)(rg.nr * sizeof(*pfns)))
			_exit(3);
		/* Wait for the hints, then say where the pages are. */
		if (read(to_child[0], &go, 1) != 1 || query_residency(&rg, &r))
			_exit(4);
		msg.stayed = r.slow;
		_exit(write(to_parent[1], &msg, sizeof(msg)) != sizeof(msg));
	}
	close(to_parent[1]);
	close(to_child[0]);
	ASSERT_EQ(read(to_parent[0], &msg, sizeof(msg)), (ssize_t)sizeof(msg));
	pfns = calloc(msg.nr, sizeof(*pfns));
	ASSERT_NE(pfns, NULL);
	ASSERT_EQ(read_full(to_parent[0], pfns, msg.nr * sizeof(*pfns)),
		  (ssize_t)(msg.nr * sizeof(*pfns)));
	read_vmstats(_metadata, &a);
	ASSERT_EQ(inject_pfns(pfns, msg.nr, cpu), 0);
	sleep(SETTLE_S);
	read_vmstats(_metadata, &b);
	go = 1;
	ASSERT_EQ(write(to_child[1], &go, 1), 1);
	ASSERT_EQ(read(to_parent[0], &msg, sizeof(msg)), (ssize_t)sizeof(msg));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	print_deltas(&a, &b);
	*refused = vm_delta(&a, &b, VM_POLICY);
	/* Each hint was refused: placed pages are on the LRU. */
	EXPECT_TRUE(reached_pct(*refused, msg.nr, PROMOTED_PCT));
	free(pfns);
	close(to_parent[0]);
	close(to_child[1]);
	return msg.stayed;
}

/* numactl --membind=<lower>, in the child. */
static int confine_membind(int lower)
{
	struct bitmask *mask = numa_allocate_nodemask();
	int ret;

	numa_bitmask_setbit(mask, lower);
	ret = set_mempolicy(MPOL_BIND, mask->maskp, mask->size + 1);
	numa_free_nodemask(mask);
	return ret;
}

TEST_F_TIMEOUT(placement, task_membind, PLACEMENT_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	int cpu = topo_cpu_node(t), j;
	unsigned long long refused;
	unsigned long stayed;

	if (access(PGHOT_INJECT, W_OK))
		SKIP(return, "no " PGHOT_INJECT " (CONFIG_PGHOT_HWHINT_INJECT)");
	knobs_baseline(_metadata, self->knobs, "0x2");
	set_knob(_metadata, self->knobs, KNOB_FREQ_THRESHOLD, "1");
	for (j = 0; j < t->nr_lower; j++) {
		stayed = confined_run(_metadata, cpu, t->lower[j],
				      confine_membind, &refused);
		ksft_print_msg("membind %d: %lu of %lu pages stayed, %llu refused\n",
			       t->lower[j], stayed, BUF_SIZE / PAGE_STRIDE, refused);
		EXPECT_EQ(stayed, BUF_SIZE / PAGE_STRIDE);
	}
}

/* Enter the test cgroup, whose cpuset.mems the parent set to @lower. */
static int confine_cgroup(int lower)
{
	char pid[16];

	(void)lower;
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_str(CGROUP_TEST "/cgroup.procs", pid);
}

/* cgroup v2 with the cpuset controller for a child group, or a reason. */
static const char *cgroup_cpuset_ready(bool *mounted)
{
	char ctl[512];

	*mounted = false;
	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK)) {
		if (mount("none", CGROUP_ROOT, "cgroup2", 0, NULL))
			return "cannot mount cgroup2 on " CGROUP_ROOT;
		*mounted = true;
	}
	if (read_str(CGROUP_ROOT "/cgroup.controllers", ctl, sizeof(ctl)) ||
	    !strstr(ctl, "cpuset"))
		return "no cpuset controller (CONFIG_CPUSETS=n or cgroup v1)";
	if (write_str(CGROUP_ROOT "/cgroup.subtree_control", "+cpuset"))
		return "cannot enable the cpuset controller";
	return NULL;
}

/* Does node @nid have memory outside ZONE_MOVABLE? (From /proc/zoneinfo.) */
static bool node_has_kernel_memory(int nid)
{
	unsigned long managed;
	bool in = false, found = false;
	char line[256], zone[32];
	FILE *f;
	int n;

	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return true;	/* cannot tell: as on most boxes */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &n, zone) == 2) {
			in = n == nid && strcmp(zone, "Movable");
			continue;
		}
		if (in && sscanf(line, " managed %lu", &managed) == 1 && managed)
			found = true;
	}
	fclose(f);
	return found;
}

/*
 * cpuset.mems that keep a task on lower-tier node @lower: @lower alone, or
 * with another lower-tier node where the kernel can allocate if @lower has
 * movable memory only (a CXL region onlined movable: a cpuset of movable
 * nodes only is not supported). 0, or -1 if there is no such node.
 */
static int cpuset_mems(const struct topology *t, int lower, char *mems,
		       size_t size)
{
	int i;

	if (node_has_kernel_memory(lower)) {
		snprintf(mems, size, "%d", lower);
		return 0;
	}
	for (i = 0; i < t->nr_lower; i++)
		if (t->lower[i] != lower && node_has_kernel_memory(t->lower[i])) {
			snprintf(mems, size, "%d,%d", lower, t->lower[i]);
			return 0;
		}
	return -1;
}

TEST_F_TIMEOUT(placement, cpuset, PLACEMENT_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	int cpu = topo_cpu_node(t), j, checked = 0;
	unsigned long long refused;
	char mems[16], cpus[256], path[300];
	const char *reason;
	unsigned long stayed;
	bool mounted;

	if (access(PGHOT_INJECT, W_OK))
		SKIP(return, "no " PGHOT_INJECT " (CONFIG_PGHOT_HWHINT_INJECT)");
	reason = cgroup_cpuset_ready(&mounted);
	if (reason)
		SKIP(return, "%s", reason);
	rmdir(CGROUP_TEST);
	ASSERT_EQ(mkdir(CGROUP_TEST, 0755), 0) TH_LOG("%s", strerror(errno));
	snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", cpu);
	ASSERT_EQ(read_str(path, cpus, sizeof(cpus)), 0);
	ASSERT_EQ(write_str(CGROUP_TEST "/cpuset.cpus", cpus), 0);
	knobs_baseline(_metadata, self->knobs, "0x2");
	set_knob(_metadata, self->knobs, KNOB_FREQ_THRESHOLD, "1");
	for (j = 0; j < t->nr_lower; j++) {
		if (cpuset_mems(t, t->lower[j], mems, sizeof(mems))) {
			ksft_print_msg("node %d: movable only, no other lower node for it\n",
				       t->lower[j]);
			continue;
		}
		ASSERT_EQ(write_str(CGROUP_TEST "/cpuset.mems", mems), 0);
		stayed = confined_run(_metadata, cpu, t->lower[j],
				      confine_cgroup, &refused);
		ksft_print_msg("cpuset.mems %s: %lu of %lu pages stayed on %d, %llu refused\n",
			       mems, stayed, BUF_SIZE / PAGE_STRIDE, t->lower[j],
			       refused);
		EXPECT_EQ(stayed, BUF_SIZE / PAGE_STRIDE);
		checked++;
	}
	EXPECT_EQ(rmdir(CGROUP_TEST), 0);
	if (mounted)
		umount(CGROUP_ROOT);
	if (!checked)
		SKIP(return, "every lower-tier node has movable memory only");
}

/* Pin @rg for DMA as io_uring fixed buffers do; the ring fd, or -1. */
static int pin_region(const struct region *rg)
{
	/* struct io_uring_params is 120 bytes; all zero asks for defaults. */
	unsigned long long p[16] = { 0 };
	struct iovec iov = { rg->buf, rg->size };
	int fd;

	fd = syscall(__NR_io_uring_setup, 4, p);
	if (fd < 0)
		return -1;
	if (syscall(__NR_io_uring_register, fd, IORING_REGISTER_BUFFERS, &iov, 1)) {
		close(fd);
		return -1;
	}
	return fd;
}

TEST_F_TIMEOUT(placement, pinned, PLACEMENT_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	int cpu = topo_cpu_node(t), j, ring, checked = 0;
	struct residency r;
	struct vmstats a, b;
	struct region rg;
	unsigned int rounds;
	unsigned long on, first = 0;

	if (access(PGHOT_INJECT, W_OK))
		SKIP(return, "no " PGHOT_INJECT " (CONFIG_PGHOT_HWHINT_INJECT)");
	knobs_baseline(_metadata, self->knobs, "0x2");
	set_knob(_metadata, self->knobs, KNOB_FREQ_THRESHOLD, "1");
	ASSERT_EQ(numa_run_on_node(cpu), 0);
	for (j = 0; j < t->nr_lower; j++) {
		place(_metadata, &rg, t->lower[j]);
		ring = pin_region(&rg);
		if (ring < 0)
			SKIP(return, "cannot pin with io_uring: %s", strerror(errno));
		ASSERT_EQ(query_residency(&rg, &r), 0);
		if (!reached_pct(r.slow, rg.nr, PLACED_PCT)) {
			/* A long-term pin moves pages out of ZONE_MOVABLE. */
			ksft_print_msg("node %d: the pin moved the buffer, not checked\n",
				       t->lower[j]);
			close(ring);
			unmap_region(&rg);
			continue;
		}
		read_vmstats(_metadata, &a);
		ASSERT_EQ(inject_region(&rg, cpu), 0);
		sleep(SETTLE_S);
		read_vmstats(_metadata, &b);
		ASSERT_EQ(query_residency(&rg, &r), 0);
		ksft_print_msg("pinned on %d: %lu of %lu pages stayed\n",
			       t->lower[j], r.slow, rg.nr);
		print_deltas(&a, &b);
		EXPECT_EQ(r.slow, rg.nr);
		/* Each hint found its page pinned. */
		EXPECT_TRUE(reached_pct(vm_delta(&a, &b, VM_PINNED), rg.nr,
					PROMOTED_PCT));
		/* Unpinned, the next hints promote it. */
		ASSERT_EQ(syscall(__NR_io_uring_register, ring,
				  IORING_UNREGISTER_BUFFERS, NULL, 0), 0);
		close(ring);
		rounds = 0;
		ASSERT_EQ(query_residency(&rg, &r), 0);
		on = hint_rounds(&rg, cpu, cpu, &first, &rounds);
		EXPECT_TRUE(reached_pct(first, rg.nr, HINT_FIRST_PCT))
			TH_LOG("only %lu of %lu promoted by the first hints once unpinned",
			       first, rg.nr);
		EXPECT_TRUE(reached_pct(on, rg.nr, PROMOTED_PCT))
			TH_LOG("only %lu of %lu promoted once unpinned, %u round(s)",
			       on, rg.nr, rounds);
		unmap_region(&rg);
		checked++;
	}
	if (!checked)
		SKIP(return, "a long-term pin moved the buffer off every lower node");
}

TEST_HARNESS_MAIN
