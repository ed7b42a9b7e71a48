// SPDX-License-Identifier: GPL-2.0
/*
 * pghot beyond private anonymous 4K pages on an idle box.
 *
 * rate_limit:   the top tier below the free-space fast path (the target
 *	filled with locked memory bar a margin) and rate_limit_MBps small,
 *	on a buffer four times what the limit lets through: the pages that
 *	moved (move_pages()) stay within the limit times the seconds, plus
 *	one window and a few folios, and pghot_promote_ratelimited moves
 *	where promotion is fast enough to reach the limit.
 * adaptive_window: the same full target, freq_threshold 2: pages made
 *	ready far over the limit shrink the target's window until two
 *	reports of a page 2.5 s apart no longer make it ready (they did
 *	before); reports that make no page ready (each page once) widen it
 *	again, as hint faults do NUMA balancing's hot threshold, with
 *	nothing for kmigrated to do, until two such reports do again.
 * memcg:        a memory cgroup with memory.max, whose pages sit on a
 *	lower-tier node, is promoted with its charge kept (memory.current
 *	unchanged within a page per 64 folios), no OOM kill; at its limit it
 *	is not driven into reclaim (memory.events max stays put).
 * shmem:        a shared memfd mapping is promoted through pghot like
 *	anonymous memory.
 * thp_tail:     a hardware hint naming a tail page of a THP promotes the
 *	whole THP, still PMD-mapped.
 * thp_split:    THPs queued for promotion are split before kmigrated gets
 *	to them: nothing is lost or corrupted, no page is left in limbo.
 * thp_collapse: small pages queued for promotion are collapsed into a THP
 *	before kmigrated gets to them: the same.
 * freed_while_queued: pages reported as accessed from one top-tier node
 *	are freed while they wait in kmigrated's queue, and a new buffer
 *	that gets their memory is reported from another: it goes to the
 *	other node, none of it where the old owner's reports said.
 * reused_pfn_cold: at freq_threshold 2, pages reported once are freed and
 *	a new buffer gets their memory: one report of the new pages moves
 *	none of them (a reused PFN starts cold), a second moves them all.
 * knob_race:    two writers set every pghot knob to random valid values
 *	while promotion runs from both sources: every knob reads back a
 *	valid value and the data is intact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "pghot_inject.h"

#define BUF_SIZE		(32UL << 20)
#define PMD_BYTES		(2UL << 20)
#define SETTLE_S		3
#define COLLAPSE_TIMEOUT_S	30	/* retried 100 ms apart */
#define RATE_MBPS		1		/* rate_limit test */
#define RATE_RUN_S		8
#define RATE_BUF_SIZE		(40UL << 20)	/* 4x what 1 MB/s lets through in 9 s */
#define RATE_MARGIN		(512UL << 20)	/* left free on the target */
#define ADAPT_FLOOD_S		12		/* adaptive_window */
/* Four times what the limit lets through meanwhile: most stay candidates. */
#define ADAPT_FLOOD_PAGES	(4 * RATE_MBPS * 256 * (ADAPT_FLOOD_S + 1))
#define ADAPT_TRICKLE_S		12
#define ADAPT_TRICKLE_PAGES	32		/* a second, of 256 allowed */
#define ADAPT_PROBE_PAGES	256
#define ADAPT_WINDOW_MS		4000		/* promote_window_ms */
#define ADAPT_STEP_MS		(ADAPT_WINDOW_MS / 8)	/* and the floor */
/*
 * Between a probe's reports: over the floor plus the two steps that the
 * probe's own reports may widen it by, under promote_window_ms.
 */
#define ADAPT_GAP_MS		2500
#define RACE_S			10
#define REUSE_PAGES		256		/* freed_while_queued */
#define REUSE_ROUNDS		5
#define REUSE_WITHIN_MS		600		/* of kmigrated_sleep_ms 1000 */
#define COLD_ROUNDS		5		/* reused_pfn_cold */
#define STAMP_OFFSET		64		/* past touch_word() */
#define COVERAGE_TIMEOUT_S	(TIMED_LOWER_NODES * (PROMOTE_MAX_S + 30) + 60)

#define CGROUP_ROOT		"/sys/fs/cgroup"
#define CGROUP_TEST		CGROUP_ROOT "/pghot_coverage"
#define SPLIT_HUGE		"/sys/kernel/debug/split_huge_pages"
#define THP_ENABLED		"/sys/kernel/mm/transparent_hugepage/enabled"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25
#endif

enum { NR_KNOBS = NR_COMMON_KNOBS };

static const struct knob knob_init[NR_KNOBS] = { COMMON_KNOBS };

FIXTURE(coverage)
{
	struct knob knobs[NR_KNOBS];
	const struct topology *topo;
	int cpu;
};

FIXTURE_SETUP(coverage)
{
	memcpy(self->knobs, knob_init, sizeof(self->knobs));
	self->topo = tiered_topology(_metadata);
	if (!self->topo)
		return;
	if (access(PGHOT_INJECT, W_OK))
		SKIP(return, "no %s (needs root, debugfs, CONFIG_PGHOT_HWHINT_INJECT)",
		     PGHOT_INJECT);
	if (!nodes_have_free(_metadata, self->topo, BUF_SIZE * 4))
		return;
	self->cpu = topo_cpu_node(self->topo);
	save_knobs(_metadata, self->knobs, NR_KNOBS);
}

FIXTURE_TEARDOWN_PARENT(coverage)
{
	restore_knobs(_metadata, self->knobs, NR_KNOBS);
}

static unsigned long long vmstat(const char *name)
{
	unsigned long long v = 0;

	read_vmstat(name, &v);
	return v;
}

/*
 * Defaults, hardware hints only, threshold 1 and regions off: one report
 * promotes, whatever samples of earlier tests left in the page's region.
 */
static void hwhint_baseline(struct __test_metadata *_metadata, struct knob *k)
{
	set_knob(_metadata, k, KNOB_NUMAB, "0");
	set_knob(_metadata, k, KNOB_TARGET_NID, "-1");
	set_knob(_metadata, k, KNOB_FREQ_THRESHOLD, "1");
	set_knob(_metadata, k, KNOB_WINDOW, "4000");
	set_knob(_metadata, k, KNOB_RATE_LIMIT, "65536");
	set_knob(_metadata, k, KNOB_SLEEP, "100");
	set_knob(_metadata, k, KNOB_BATCH, "512");
	set_knob(_metadata, k, KNOB_REGION, "0");
	set_knob(_metadata, k, KNOB_SOURCES, "0x2");
}

/* Wait while pages of @rg keep arriving on @want; how many are there. */
static unsigned long wait_on_node(struct __test_metadata *_metadata,
				  const struct region *rg, int want)
{
	struct progress p = { };
	struct residency r;

	do {
		usleep(200 * 1000);
		ASSERT_EQ(query_residency(rg, &r), 0);
	} while (!progress_done(&p, region_on_node(rg, want), rg->nr,
				PROMOTE_STALL_S));
	return region_on_node(rg, want);
}

/* Wait while pghot_promoted rises, up to @nr pages since @p0. */
static void wait_promoted(unsigned long long p0, unsigned long nr)
{
	struct progress p = { };

	do {
		usleep(200 * 1000);
	} while (!progress_done(&p, vmstat("pghot_promoted") - p0, nr,
				PROMOTE_STALL_S));
}

/* Ready pages of @nid's kmigrated, queued or deferred; -1 if unknown. */
static long kmigrated_backlog(int nid)
{
	FILE *f = fopen(PGHOT_DIR "stats", "r");
	unsigned long deferred;
	unsigned int queued;
	char line[256];
	long ret = -1;
	int n;

	if (!f)
		return -1;
	while (ret < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "node%d target %*d queued %u deferred %lu",
			   &n, &queued, &deferred) == 3 && n == nid)
			ret = queued + deferred;
	fclose(f);
	return ret;
}

/* Wait until @nid's kmigrated has nothing ready: 0, or -1 on timeout. */
static int wait_backlog_empty(int nid)
{
	double start = now_s();

	while (kmigrated_backlog(nid)) {
		if (now_s() - start > PROMOTE_STALL_S)
			return -1;
		usleep(50 * 1000);
	}
	return 0;
}

/* Stamp every page with its index; count the pages that lost theirs. */
static void stamp(const struct region *rg)
{
	unsigned long i;

	for (i = 0; i < rg->nr; i++)
		*(unsigned long *)(rg->buf + i * PAGE_STRIDE + STAMP_OFFSET) = i;
}

static unsigned long stamps_lost(const struct region *rg)
{
	unsigned long i, bad = 0;

	for (i = 0; i < rg->nr; i++)
		bad += *(unsigned long *)(rg->buf + i * PAGE_STRIDE + STAMP_OFFSET) != i;
	return bad;
}

TEST_F_TIMEOUT(coverage, rate_limit, COVERAGE_TIMEOUT_S)
{
	/* Pages a second, and a few folios a window may overshoot by. */
	const unsigned long limit = RATE_MBPS * 256UL, slack = 16;
	unsigned long long rl0, rl1;
	unsigned long moved, bound;
	struct residency r;
	struct region rg;
	size_t hog_size;
	double start, elapsed;
	char rate[16];
	char *hog;
	int j;

	hwhint_baseline(_metadata, self->knobs);
	snprintf(rate, sizeof(rate), "%d", RATE_MBPS);
	set_knob(_metadata, self->knobs, KNOB_RATE_LIMIT, rate);
	ASSERT_EQ(numa_run_on_node(self->cpu), 0);
	for (j = 0; j < self->topo->nr_lower; j++) {
		/* At least four times what the limit lets through in the run. */
		map_region(_metadata, &rg, RATE_BUF_SIZE);
		ASSERT_GE(rg.nr, 4 * limit * (RATE_RUN_S + 1));
		ASSERT_EQ(place_on_node(&rg, self->topo->lower[j]), 0);
		/* Below the fast path: every promotion is a rated candidate. */
		hog = fill_node(_metadata, self->cpu, RATE_MARGIN, &hog_size);
		rl0 = vmstat("pghot_promote_ratelimited");
		start = now_s();
		/* Keep reporting every page, as a sampler would. */
		while (now_s() - start < RATE_RUN_S) {
			ASSERT_EQ(inject_region(&rg, self->cpu), 0);
			usleep(250 * 1000);
		}
		sleep(1);
		/* Where the pages are, not what pghot counted. */
		ASSERT_EQ(query_residency(&rg, &r), 0);
		elapsed = now_s() - start;
		rl1 = vmstat("pghot_promote_ratelimited");
		moved = r.top + r.other;
		/* One window per second of the run, and one it may straddle. */
		bound = limit * (unsigned long)(elapsed + 1) + slack;
		ksft_print_msg("node %d: %lu/%lu moved in %.1f s, %d MB/s (<= %lu), %llu refused\n",
			       self->topo->lower[j], moved, rg.nr, elapsed,
			       RATE_MBPS, bound, rl1 - rl0);
		EXPECT_GT(moved, 0UL);
		EXPECT_LE(moved, bound);
		/*
		 * Refusals show the limit at work where promotion can reach
		 * it; from memory slower than the limit (an emulated CXL
		 * device) it never binds.
		 */
		if (moved < RATE_RUN_S * limit / 2)
			ksft_print_msg("node %d: slower than the limit, which never bound\n",
				       self->topo->lower[j]);
		else
			EXPECT_GT(rl1 - rl0, 0ULL);
		if (hog)
			munmap(hog, hog_size);
		unmap_region(&rg);
	}
}

/* The window kmigrated adapted for @target, from stats; -1 if unknown. */
static long target_window_ms(int target)
{
	FILE *f = fopen(PGHOT_DIR "stats", "r");
	char line[256];
	long ret = -1;
	unsigned int w;
	int n;

	if (!f)
		return -1;
	while (ret < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "target%d window_ms %u", &n, &w) == 2 &&
		    n == target)
			ret = w;
	fclose(f);
	return ret;
}

/*
 * Report @nr pages of @pfns twice, ADAPT_GAP_MS apart, naming @nid: how
 * many pages became ready (pghot_ready; nothing else reports meanwhile).
 */
static unsigned long long probe_gap(struct __test_metadata *_metadata,
				    const unsigned long *pfns, unsigned long nr,
				    int nid)
{
	unsigned long long r0;

	r0 = vmstat("pghot_ready");
	ASSERT_EQ(inject_pfns(pfns, nr, nid), 0);
	usleep(ADAPT_GAP_MS * 1000);
	ASSERT_EQ(inject_pfns(pfns, nr, nid), 0);
	usleep(200 * 1000);
	return vmstat("pghot_ready") - r0;
}

/* Report each of @nr pages twice within 100 ms: quick enough for any window. */
static void report_twice(struct __test_metadata *_metadata,
			 const unsigned long *pfns, unsigned long nr, int nid)
{
	ASSERT_EQ(inject_pfns(pfns, nr, nid), 0);
	usleep(100 * 1000);
	ASSERT_EQ(inject_pfns(pfns, nr, nid), 0);
}

TEST_F_TIMEOUT(coverage, adaptive_window, COVERAGE_TIMEOUT_S)
{
	const unsigned long probe = ADAPT_PROBE_PAGES;
	const int lower = self->topo->lower[0], nid = self->cpu;
	unsigned long long before, shrunk, grown, r0, trickle_ready;
	unsigned long *pfns, *trickle, *flood;
	long w_shrunk, w_grown;
	struct region pr;
	int i, floods = 0;
	double start, left;
	size_t hog_size;
	char num[16];
	char *hog;

	hwhint_baseline(_metadata, self->knobs);
	snprintf(num, sizeof(num), "%d", RATE_MBPS);
	set_knob(_metadata, self->knobs, KNOB_RATE_LIMIT, num);
	snprintf(num, sizeof(num), "%d", ADAPT_WINDOW_MS);
	set_knob(_metadata, self->knobs, KNOB_WINDOW, num);
	set_knob(_metadata, self->knobs, KNOB_FREQ_THRESHOLD, "2");
	ASSERT_EQ(numa_run_on_node(self->cpu), 0);
	/* Three probes, the trickle, a reset and the flood, each its own pages. */
	map_region(_metadata, &pr, (3 * probe + (ADAPT_TRICKLE_S + 1) *
				    ADAPT_TRICKLE_PAGES + ADAPT_FLOOD_PAGES) *
		   PAGE_STRIDE);
	ASSERT_EQ(place_on_node(&pr, lower), 0);
	pfns = calloc(pr.nr, sizeof(*pfns));
	ASSERT_NE(pfns, NULL);
	ASSERT_EQ(region_pfns(&pr, pfns), 0);
	trickle = pfns + 3 * probe;
	flood = trickle + (ADAPT_TRICKLE_S + 1) * ADAPT_TRICKLE_PAGES;

	/*
	 * Earlier runs may have left the target's window adapted: a promotion
	 * to a target with memory to spare starts it afresh.
	 */
	report_twice(_metadata, trickle + ADAPT_TRICKLE_S * ADAPT_TRICKLE_PAGES,
		     ADAPT_TRICKLE_PAGES, nid);
	ASSERT_EQ(wait_backlog_empty(lower), 0);
	/* Below the fast path: every promotion is a rated candidate. */
	hog = fill_node(_metadata, nid, RATE_MARGIN, &hog_size);

	/* The configured window: a gap of 1.5 s is within it. */
	before = probe_gap(_metadata, pfns, probe, nid);
	ASSERT_EQ(wait_backlog_empty(lower), 0);

	/*
	 * Far over the limit, ready whatever the window: it shrinks, a step
	 * a second, to its floor (an eighth of promote_window_ms).
	 */
	start = now_s();
	for (; now_s() - start < ADAPT_FLOOD_S; floods++) {
		report_twice(_metadata, flood, ADAPT_FLOOD_PAGES, nid);
		usleep(100 * 1000);
	}
	ASSERT_EQ(wait_backlog_empty(lower), 0);
	w_shrunk = target_window_ms(nid);
	ASSERT_GT(w_shrunk, 0) TH_LOG("no target%d window_ms in stats", nid);
	shrunk = probe_gap(_metadata, pfns + probe, probe, nid);

	/*
	 * Reports that make no page ready (each page once, at threshold 2):
	 * no candidates, nothing for kmigrated to do, and the window grows
	 * back a step a second, as NUMA balancing's threshold does under
	 * hint faults, which adapt it whether or not they make a candidate.
	 */
	r0 = vmstat("pghot_ready");
	start = now_s();
	for (i = 0; i < ADAPT_TRICKLE_S; i++) {
		ASSERT_EQ(inject_pfns(trickle + i * ADAPT_TRICKLE_PAGES,
				      ADAPT_TRICKLE_PAGES, nid), 0);
		left = start + i + 1 - now_s();
		if (left > 0)
			usleep(left * 1e6);
	}
	trickle_ready = vmstat("pghot_ready") - r0;
	w_grown = target_window_ms(nid);
	grown = probe_gap(_metadata, pfns + 2 * probe, probe, nid);

	ksft_print_msg("target %d window: %ld ms after %d floods in %d s\n",
		       nid, w_shrunk, floods, ADAPT_FLOOD_S);
	ksft_print_msg("target %d window: %ld ms after %d s of single reports (%llu ready)\n",
		       nid, w_grown, ADAPT_TRICKLE_S, trickle_ready);
	ksft_print_msg("ready of %lu reported %d ms apart: %llu before, %llu shrunk, %llu grown\n",
		       probe, ADAPT_GAP_MS, before, shrunk, grown);
	EXPECT_TRUE(reached_pct(before, probe, PROMOTED_PCT));
	EXPECT_LT(w_shrunk + 2 * ADAPT_STEP_MS, ADAPT_GAP_MS);
	EXPECT_EQ(shrunk, 0ULL)
		TH_LOG("the window did not shrink under a flood of candidates");
	EXPECT_EQ(trickle_ready, 0ULL)
		TH_LOG("a page reported once turned ready at threshold 2");
	EXPECT_GT(w_grown, ADAPT_GAP_MS);
	EXPECT_TRUE(reached_pct(grown, probe, PROMOTED_PCT))
		TH_LOG("the window did not grow back under reports alone");
	if (hog)
		munmap(hog, hog_size);
	free(pfns);
	unmap_region(&pr);
}

/* cgroup v2 with @ctl enabled for a child group, or why not. */
static const char *cgroup_ready(const char *ctl, bool *mounted)
{
	char have[512], enable[32];

	*mounted = false;
	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK)) {
		if (mount("none", CGROUP_ROOT, "cgroup2", 0, NULL))
			return "cannot mount cgroup2 on " CGROUP_ROOT;
		*mounted = true;
	}
	if (read_str(CGROUP_ROOT "/cgroup.controllers", have, sizeof(have)) ||
	    !strstr(have, ctl))
		return "controller missing (CONFIG_MEMCG=n or cgroup v1)";
	snprintf(enable, sizeof(enable), "+%s", ctl);
	if (write_str(CGROUP_ROOT "/cgroup.subtree_control", enable))
		return "cannot enable the controller";
	return NULL;
}

static unsigned long long cg_value(const char *file, const char *key)
{
	char path[256], line[256], k[64];
	unsigned long long v, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), CGROUP_TEST "/%s", file);
	f = fopen(path, "r");
	if (!f)
		return ~0ULL;
	while (fgets(line, sizeof(line), f)) {
		char *end;

		if (!key) {
			v = strtoull(line, &end, 10);
			if (end != line)
				found = v;
		} else if (sscanf(line, "%63s %llu", k, &v) == 2 &&
			   !strcmp(k, key)) {
			found = v;
		}
	}
	fclose(f);
	return found;
}

/*
 * A child in the test cgroup places a buffer on @lower; the parent reports
 * it as hardware hints; the child says how many pages reached the top.
 */
static unsigned long memcg_run(struct __test_metadata *_metadata, int cpu,
			       int lower, unsigned long long *cur0,
			       unsigned long long *cur1)
{
	int up[2], down[2], status;
	unsigned long nr, top = 0;
	unsigned long long p0;
	unsigned long *pfns;
	char go = 1, pid[16];
	pid_t child;

	ASSERT_EQ(pipe(up), 0);
	ASSERT_EQ(pipe(down), 0);
	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		struct residency r;
		struct region rg;

		snprintf(pid, sizeof(pid), "%d", getpid());
		if (write_str(CGROUP_TEST "/cgroup.procs", pid) ||
		    numa_run_on_node(cpu))
			_exit(1);
		map_region(_metadata, &rg, BUF_SIZE);
		if (place_on_node(&rg, lower))
			_exit(2);
		pfns = calloc(rg.nr, sizeof(*pfns));
		if (!pfns || region_pfns(&rg, pfns))
			_exit(3);
		nr = rg.nr;
		if (write(up[1], &nr, sizeof(nr)) != sizeof(nr) ||
		    write(up[1], pfns, nr * sizeof(*pfns)) != (ssize_t)(nr * sizeof(*pfns)))
			_exit(4);
		if (read(down[0], &go, 1) != 1 || query_residency(&rg, &r))
			_exit(5);
		top = r.top;
		_exit(write(up[1], &top, sizeof(top)) != sizeof(top));
	}
	ASSERT_EQ(read(up[0], &nr, sizeof(nr)), (ssize_t)sizeof(nr));
	pfns = calloc(nr, sizeof(*pfns));
	ASSERT_NE(pfns, NULL);
	ASSERT_EQ(read_full(up[0], pfns, nr * sizeof(*pfns)), (ssize_t)(nr * sizeof(*pfns)));
	*cur0 = cg_value("memory.current", NULL);
	p0 = vmstat("pghot_promoted");
	ASSERT_EQ(inject_pfns(pfns, nr, cpu), 0);
	wait_promoted(p0, nr);
	sleep(SETTLE_S);
	*cur1 = cg_value("memory.current", NULL);
	ASSERT_EQ(write(down[1], &go, 1), 1);
	ASSERT_EQ(read(up[0], &top, sizeof(top)), (ssize_t)sizeof(top));
	ASSERT_EQ(waitpid(child, &status, 0), child);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	free(pfns);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
	return top;
}

TEST_F_TIMEOUT(coverage, memcg, COVERAGE_TIMEOUT_S)
{
	unsigned long long cur0, cur1, oom0, max0, max1;
	const unsigned long nr = BUF_SIZE / PAGE_STRIDE;
	const char *reason;
	unsigned long top;
	char limit[32];
	bool mounted;
	int j;

	reason = cgroup_ready("memory", &mounted);
	if (reason)
		SKIP(return, "%s", reason);
	hwhint_baseline(_metadata, self->knobs);
	for (j = 0; j < self->topo->nr_lower; j++) {
		rmdir(CGROUP_TEST);
		ASSERT_EQ(mkdir(CGROUP_TEST, 0755), 0) TH_LOG("%s", strerror(errno));
		/* Room for the buffer, the child's own pages and some slack. */
		snprintf(limit, sizeof(limit), "%lu", BUF_SIZE + (16UL << 20));
		ASSERT_EQ(write_str(CGROUP_TEST "/memory.max", limit), 0);
		oom0 = vmstat("oom_kill");
		max0 = cg_value("memory.events", "max");
		top = memcg_run(_metadata, self->cpu, self->topo->lower[j], &cur0, &cur1);
		max1 = cg_value("memory.events", "max");
		ksft_print_msg("node %d: %lu/%lu up; memory.current %llu -> %llu; max +%llu\n",
			       self->topo->lower[j], top, nr, cur0, cur1, max1 - max0);
		EXPECT_TRUE(reached_pct(top, nr, PROMOTED_PCT));
		/* The charge moved with the pages, nothing doubled or lost. */
		EXPECT_LE(cur1 > cur0 ? cur1 - cur0 : cur0 - cur1,
			  (unsigned long long)(nr / 64 + 1) * PAGE_STRIDE);
		EXPECT_EQ(vmstat("oom_kill"), oom0);
		EXPECT_EQ(max1, max0) TH_LOG("promotion drove the memcg into its limit");
		EXPECT_EQ(rmdir(CGROUP_TEST), 0);
	}
	if (mounted)
		umount(CGROUP_ROOT);
}

TEST_F_TIMEOUT(coverage, shmem, COVERAGE_TIMEOUT_S)
{
	unsigned long long c0[3], c1[3];
	struct progress prog;
	struct residency r;
	struct region rg;
	unsigned long on;
	double start;
	char *buf;
	int fd, j;

	set_knob(_metadata, self->knobs, KNOB_SCAN_DELAY, "0");
	set_knob(_metadata, self->knobs, KNOB_SCAN_PERIOD_MIN, "100");
	set_knob(_metadata, self->knobs, KNOB_SCAN_PERIOD_MAX, "200");
	set_knob(_metadata, self->knobs, KNOB_SCAN_SIZE, "1024");
	hwhint_baseline(_metadata, self->knobs);
	set_knob(_metadata, self->knobs, KNOB_FREQ_THRESHOLD, "2");
	set_knob(_metadata, self->knobs, KNOB_SOURCES, "0x1");
	ASSERT_EQ(numa_run_on_node(self->cpu), 0);
	for (j = 0; j < self->topo->nr_lower; j++) {
		fd = memfd_create("pghot_shmem", 0);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(ftruncate(fd, BUF_SIZE), 0);
		buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ASSERT_NE(buf, MAP_FAILED);
		ASSERT_EQ(madvise(buf, BUF_SIZE, MADV_NOHUGEPAGE), 0);
		ASSERT_EQ(region_init(&rg, buf, BUF_SIZE), 0);
		ASSERT_EQ(place_on_node(&rg, self->topo->lower[j]), 0);
		ASSERT_EQ(query_residency(&rg, &r), 0);
		ASSERT_TRUE(reached_pct(r.slow, rg.nr, PLACED_PCT));
		stamp(&rg);
		/* The path counters at rest, before and after. */
		ASSERT_EQ(read_path_counters(c0), 0);
		set_knob(_metadata, self->knobs, KNOB_NUMAB, "2");
		start = now_s();
		prog = (struct progress){ };
		do {
			touch_region(&rg);
			ASSERT_EQ(query_residency(&rg, &r), 0);
		} while (promote_wait_more(&prog, start, region_on_node(&rg, self->cpu),
					   rg.nr));
		set_knob(_metadata, self->knobs, KNOB_NUMAB, "0");
		ASSERT_EQ(read_path_counters(c1), 0);
		on = region_on_node(&rg, self->cpu);
		ksft_print_msg("memfd on node %d: %lu/%lu pages on node %d\n",
			       self->topo->lower[j], on, rg.nr, self->cpu);
		ksft_print_msg("pghot_promoted +%llu, pgpromote_success +%llu, faults left %llu\n",
			       c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2]);
		EXPECT_TRUE(reached_pct(on, rg.nr, PROMOTED_PCT));
		EXPECT_GE(c1[1] - c0[1], on);
		EXPECT_TRUE(kmigrated_did_it(c1[0] - c0[0], c1[1] - c0[1],
					     c1[2] - c0[2]));
		EXPECT_EQ(stamps_lost(&rg), 0UL);
		region_free(&rg);
		munmap(buf, BUF_SIZE);
		close(fd);
	}
}

static bool thp_allowed(void)
{
	char mode[128];

	if (read_str(THP_ENABLED, mode, sizeof(mode)))
		return false;
	return strstr(mode, "[always]") || strstr(mode, "[madvise]");
}

/* A PMD-aligned mapping of @size for THP, or NULL. */
static char *map_thp(size_t size)
{
	size_t map_size = size + PMD_BYTES, head;
	char *map, *buf;

	map = mmap(NULL, map_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	buf = (char *)(((uintptr_t)map + PMD_BYTES - 1) & ~(uintptr_t)(PMD_BYTES - 1));
	head = buf - map;
	if (head)
		munmap(map, head);
	munmap(buf + size, map_size - head - size);
	if (madvise(buf, size, MADV_HUGEPAGE)) {
		munmap(buf, size);
		return NULL;
	}
	return buf;
}

/*
 * THPs of @size on @lower in @rg, stamped: 0, -1 on error, 1 if the
 * kernel gave small pages (no free huge pages on @lower).
 */
static int place_thp(struct region *rg, size_t size, int lower)
{
	struct residency r;
	char *buf = map_thp(size);

	if (!buf)
		return -1;
	if (region_init(rg, buf, size))
		return -1;
	if (place_on_node(rg, lower) || query_residency(rg, &r) ||
	    !reached_pct(r.slow, rg->nr, PLACED_PCT))
		return -1;
	stamp(rg);
	switch (region_all_thp(rg)) {
	case 1:
		return 0;
	case 0:
		return 1;
	default:
		return -1;
	}
}

/* Report, for every THP of @rg, only the page @offset pages into it. */
static int inject_one_per_thp(const struct region *rg, unsigned long offset,
			      int nid)
{
	unsigned long per = PMD_BYTES / PAGE_STRIDE, i, n = 0;
	unsigned long *pfns = calloc(rg->nr, sizeof(*pfns));
	int ret = -1;

	if (!pfns || region_pfns(rg, pfns))
		goto out;
	for (i = offset; i < rg->nr; i += per)
		pfns[n++] = pfns[i];
	ret = inject_pfns(pfns, n, nid);
out:
	free(pfns);
	return ret;
}

TEST_F_TIMEOUT(coverage, thp_tail, COVERAGE_TIMEOUT_S)
{
	struct region rg;
	unsigned long on;
	int j, ret;

	if (!thp_allowed())
		SKIP(return, "THP disabled in " THP_ENABLED);
	hwhint_baseline(_metadata, self->knobs);
	ASSERT_EQ(numa_run_on_node(self->cpu), 0);
	for (j = 0; j < self->topo->nr_lower; j++) {
		ret = place_thp(&rg, BUF_SIZE, self->topo->lower[j]);
		ASSERT_GE(ret, 0);
		if (ret)
			SKIP(return, "no THPs on node %d", self->topo->lower[j]);
		ASSERT_EQ(inject_one_per_thp(&rg, 5, self->cpu), 0);
		on = wait_on_node(_metadata, &rg, self->cpu);
		ksft_print_msg("tail-page hints: %lu of %lu pages on node %d\n",
			       on, rg.nr, self->cpu);
		EXPECT_TRUE(reached_pct(on, rg.nr, PROMOTED_PCT));
		EXPECT_EQ(stamps_lost(&rg), 0UL);
		unmap_region(&rg);
	}
}

/* Split every THP of @rg through debugfs. */
static int split_thps(const struct region *rg)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "%d,0x%lx,0x%lx", getpid(),
		 (unsigned long)rg->buf, (unsigned long)rg->buf + rg->size);
	return write_str(SPLIT_HUGE, cmd);
}

static long kmigrated_backlog(int nid);

#define QUEUED_ROUNDS		3	/* to catch kmigrated asleep */

/*
 * kmigrated waits up to a second to fill a batch of 1024: THPs reported
 * now sit in its queue while @change rearranges them. Then every page must
 * be there, with its contents, on the lower tier or the top tier. False if
 * kmigrated took them before the change could run (nothing was tested:
 * the caller tries again on a new buffer).
 */
static bool change_while_queued(struct __test_metadata *_metadata,
				struct _test_data_coverage *self, struct region *rg,
				int (*change)(const struct region *rg))
{
	struct residency r;
	long backlog;

	set_knob(_metadata, self->knobs, KNOB_SLEEP, "1000");
	set_knob(_metadata, self->knobs, KNOB_BATCH, "1024");
	/* Past the end of a sleep begun with the old period. */
	usleep(300 * 1000);
	ASSERT_EQ(inject_region(rg, self->cpu), 0);
	/* Something must be queued, or the change tests nothing. */
	backlog = kmigrated_backlog(rg->nid);
	ksft_print_msg("%ld ready for kmigrated%d before the change\n", backlog,
		       rg->nid);
	if (backlog > 0) {
		EXPECT_EQ(change(rg), 0) TH_LOG("%s", strerror(errno));
		sleep(SETTLE_S);
		ASSERT_EQ(query_residency(rg, &r), 0);
		ksft_print_msg("after it: %lu lower tier, %lu top, %lu elsewhere, %lu missing\n",
			       r.slow, r.top, r.other, r.missing);
		EXPECT_EQ(r.missing, 0UL);
		EXPECT_EQ(r.slow + r.top, rg->nr);
		EXPECT_EQ(stamps_lost(rg), 0UL);
	}
	set_knob(_metadata, self->knobs, KNOB_SLEEP, "100");
	set_knob(_metadata, self->knobs, KNOB_BATCH, "512");
	return backlog > 0;
}

TEST_F_TIMEOUT(coverage, thp_split, COVERAGE_TIMEOUT_S)
{
	struct region rg;
	int j, k, ret;
	bool done;

	if (!thp_allowed())
		SKIP(return, "THP disabled in " THP_ENABLED);
	if (access(SPLIT_HUGE, W_OK))
		SKIP(return, SPLIT_HUGE " missing (CONFIG_TRANSPARENT_HUGEPAGE=n?)");
	hwhint_baseline(_metadata, self->knobs);
	ASSERT_EQ(numa_run_on_node(self->cpu), 0);
	for (j = 0; j < self->topo->nr_lower; j++) {
		done = false;
		for (k = 0; k < QUEUED_ROUNDS && !done; k++) {
			ret = place_thp(&rg, BUF_SIZE, self->topo->lower[j]);
			ASSERT_GE(ret, 0);
			if (ret)
				SKIP(return, "no THPs on node %d", self->topo->lower[j]);
			done = change_while_queued(_metadata, self, &rg, split_thps);
			unmap_region(&rg);
		}
		EXPECT_TRUE(done)
			TH_LOG("kmigrated took the THPs before the split, %d times", k);
	}
}

/* Is a page of @rg not present (a migration entry, while it moves)? */
static bool region_moving(const struct region *rg)
{
	unsigned long *pfns = calloc(rg->nr, sizeof(*pfns));
	long n = -1;

	if (pfns)
		n = region_present_pfns(rg, pfns, false);
	free(pfns);
	return n >= 0 && n < (long)rg->nr;
}

/*
 * MADV_COLLAPSE fails with EAGAIN while pages of a range are isolated,
 * e.g. by kmigrated migrating them: retry, as its man page says. A PTE
 * that holds a migration entry while kmigrated moves its page gives
 * EINVAL (SCAN_PTE_NON_PRESENT is not among the results khugepaged calls
 * temporary): retried only while a page of the range is seen moving, else
 * it is the answer. On slow memory a batch takes seconds to migrate.
 */
static int collapse(const struct region *rg)
{
	double start = now_s();
	int ret;

	for (;;) {
		ret = madvise(rg->buf, rg->size, MADV_COLLAPSE);
		if (!ret || (errno != EAGAIN && errno != EINVAL) ||
		    now_s() - start > COLLAPSE_TIMEOUT_S)
			break;
		if (errno == EINVAL && !region_moving(rg)) {
			errno = EINVAL;
			break;
		}
		usleep(100 * 1000);
	}
	return ret;
}

TEST_F_TIMEOUT(coverage, thp_collapse, COVERAGE_TIMEOUT_S)
{
	struct region rg;
	int j, k;
	bool done;
	char *buf;

	if (!thp_allowed())
		SKIP(return, "THP disabled in " THP_ENABLED);
	hwhint_baseline(_metadata, self->knobs);
	ASSERT_EQ(numa_run_on_node(self->cpu), 0);
	for (j = 0; j < self->topo->nr_lower; j++) {
		done = false;
		for (k = 0; k < QUEUED_ROUNDS && !done; k++) {
			/* Small pages first, THP allowed afterwards. */
			buf = map_thp(BUF_SIZE);
			ASSERT_NE(buf, NULL);
			ASSERT_EQ(madvise(buf, BUF_SIZE, MADV_NOHUGEPAGE), 0);
			ASSERT_EQ(region_init(&rg, buf, BUF_SIZE), 0);
			ASSERT_EQ(place_on_node(&rg, self->topo->lower[j]), 0);
			stamp(&rg);
			ASSERT_EQ(madvise(buf, BUF_SIZE, MADV_HUGEPAGE), 0);
			done = change_while_queued(_metadata, self, &rg, collapse);
			unmap_region(&rg);
		}
		EXPECT_TRUE(done)
			TH_LOG("kmigrated took the pages before the collapse, %d times", k);
	}
}

/* How many of the @nb PFNs in @b are among the @na in @a. */
static unsigned long pfns_shared(const unsigned long *a, unsigned long na,
				 const unsigned long *b, unsigned long nb)
{
	unsigned long i, j, n = 0;

	for (i = 0; i < nb; i++)
		for (j = 0; j < na; j++)
			if (b[i] == a[j]) {
				n++;
				break;
			}
	return n;
}

/*
 * The pages of @rg were reported once, naming @nid: once kmigrated is done
 * with what was queued, HINT_FIRST_PCT of them must be on @nid; report
 * those still on @lower again, as a sampler that keeps seeing them would,
 * up to HINT_ROUNDS_MAX rounds in all.
 */
static void reported_until_promoted(struct __test_metadata *_metadata,
				    const struct region *rg, int lower, int nid)
{
	unsigned long first;
	unsigned int rounds = 1;

	ASSERT_EQ(wait_backlog_empty(lower), 0);
	first = wait_settled(rg, nid);
	EXPECT_TRUE(reached_pct(first, rg->nr, HINT_FIRST_PCT))
		TH_LOG("only %lu of %lu pages moved after the first reports",
		       first, rg->nr);
	ASSERT_GE(hint_rounds(rg, nid, nid, &first, &rounds), 0);
}

/*
 * The start of a round that reuses freed memory on @lower, once kmigrated
 * is idle: @a (REUSE_PAGES) placed on @lower with its PFNs in @apfns, and
 * @b (twice that) mapped, with room for its PFNs in @bpfns.
 */
static void reuse_setup(struct __test_metadata *_metadata, int lower,
			struct region *a, struct region *b,
			unsigned long **apfns, unsigned long **bpfns)
{
	ASSERT_EQ(wait_backlog_empty(lower), 0);
	map_region(_metadata, a, REUSE_PAGES * PAGE_STRIDE);
	map_region(_metadata, b, 2 * REUSE_PAGES * PAGE_STRIDE);
	*apfns = calloc(a->nr, sizeof(**apfns));
	*bpfns = calloc(b->nr, sizeof(**bpfns));
	ASSERT_TRUE(*apfns && *bpfns);
	ASSERT_EQ(place_on_node(a, lower), 0);
	ASSERT_EQ(region_pfns(a, *apfns), 0);
}

/*
 * One round of freed_while_queued on @lower: true if the round could test
 * what it tests (the old pages were still queued when freed, the new
 * buffer got some of their memory, and its reports came in while
 * kmigrated still waited), with its checks made; false to try again.
 */
static bool reuse_round(struct __test_metadata *_metadata, int lower,
			int old_nid, int new_nid)
{
	unsigned long *apfns, *bpfns, reused, on_old, on_new;
	struct region a, b;
	struct residency r;
	const char *why;
	double start, ms;
	bool queued;

	reuse_setup(_metadata, lower, &a, &b, &apfns, &bpfns);

	/* kmigrated is idle: the first report starts its wait for a batch. */
	start = now_s();
	ASSERT_EQ(inject_pfns(apfns, a.nr, old_nid), 0);
	ASSERT_EQ(query_residency(&a, &r), 0);
	queued = r.slow == a.nr && kmigrated_backlog(lower) > 0;
	unmap_region(&a);
	ASSERT_EQ(place_on_node(&b, lower), 0);
	ASSERT_EQ(region_pfns(&b, bpfns), 0);
	ASSERT_EQ(inject_pfns(bpfns, b.nr, new_nid), 0);
	ms = (now_s() - start) * 1000;
	reused = pfns_shared(apfns, a.nr, bpfns, b.nr);

	why = !queued ? "kmigrated took the old pages before they were freed" :
	      ms > REUSE_WITHIN_MS ? "too slow for kmigrated's wait" :
	      !reused ? "the new buffer got none of the freed memory" : NULL;
	if (why) {
		ksft_print_msg("node %d: round not usable (%.0f ms): %s\n",
			       lower, ms, why);
	} else {
		reported_until_promoted(_metadata, &b, lower, new_nid);
		ASSERT_EQ(query_residency(&b, &r), 0);
		on_old = region_on_node(&b, old_nid);
		on_new = region_on_node(&b, new_nid);
		ksft_print_msg("node %d: %lu of %lu new pages reuse queued ones (for %d) %.0fms\n",
			       lower, reused, b.nr, old_nid, ms);
		ksft_print_msg("node %d: %lu on %d, %lu on %d, %lu left\n",
			       lower, on_new, new_nid, on_old, old_nid, r.slow);
		EXPECT_EQ(on_old, 0UL)
			TH_LOG("the old owner's queue entries moved the new owner's pages");
		EXPECT_TRUE(reached_pct(on_new, b.nr, PROMOTED_PCT));
	}
	wait_backlog_empty(lower);
	unmap_region(&b);
	free(apfns);
	free(bpfns);
	return !why;
}

TEST_F_TIMEOUT(coverage, freed_while_queued, COVERAGE_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	int j, round;

	if (t->nr_top < 2)
		SKIP(return, "one top-tier node: no second target to tell apart");
	hwhint_baseline(_metadata, self->knobs);
	set_knob(_metadata, self->knobs, KNOB_SLEEP, "1000");
	set_knob(_metadata, self->knobs, KNOB_BATCH, "1024");
	ASSERT_EQ(numa_run_on_node(self->cpu), 0);
	for (j = 0; j < t->nr_lower; j++) {
		for (round = 0; round < REUSE_ROUNDS; round++)
			if (reuse_round(_metadata, t->lower[j], t->top[0],
					t->top[1]))
				break;
		EXPECT_LT(round, REUSE_ROUNDS)
			TH_LOG("node %d: no usable round in %d", t->lower[j],
			       REUSE_ROUNDS);
	}
}

/*
 * One round of reused_pfn_cold on @lower, reports naming @nid: true if
 * the new buffer got some of the freed memory, with the checks made.
 */
static bool cold_round(struct __test_metadata *_metadata, int lower, int nid)
{
	unsigned long *apfns, *bpfns, reused, on_nid;
	unsigned long long p0;
	struct region a, b;
	struct residency r;

	reuse_setup(_metadata, lower, &a, &b, &apfns, &bpfns);

	/* One report each: half way to the threshold, nothing moves. */
	p0 = vmstat("pghot_promoted");
	ASSERT_EQ(inject_pfns(apfns, a.nr, nid), 0);
	sleep(SETTLE_S);
	ASSERT_EQ(query_residency(&a, &r), 0);
	ASSERT_EQ(r.slow, a.nr)
		TH_LOG("node %d: one report of each page moved %lu of %lu",
		       lower, a.nr - r.slow, a.nr);
	unmap_region(&a);

	/* The new owner, likely on the freed pages (per-CPU lists are LIFO). */
	ASSERT_EQ(place_on_node(&b, lower), 0);
	ASSERT_EQ(region_pfns(&b, bpfns), 0);
	reused = pfns_shared(apfns, a.nr, bpfns, b.nr);
	if (!reused) {
		ksft_print_msg("node %d: round not usable: no freed page reused\n",
			       lower);
		goto out;
	}
	ASSERT_EQ(inject_pfns(bpfns, b.nr, nid), 0);
	sleep(SETTLE_S);
	ASSERT_EQ(wait_backlog_empty(lower), 0);
	ASSERT_EQ(query_residency(&b, &r), 0);
	ksft_print_msg("node %d: %lu of %lu new pages on freed ones\n",
		       lower, reused, b.nr);
	ksft_print_msg("node %d: one report: %lu moved, pghot_promoted +%llu\n",
		       lower, b.nr - r.slow, vmstat("pghot_promoted") - p0);
	EXPECT_EQ(r.slow, b.nr)
		TH_LOG("the freed pages' reports counted for their new owner");
	EXPECT_EQ(vmstat("pghot_promoted") - p0, 0ULL);

	/* The second report makes them hot: reports do count. */
	ASSERT_EQ(inject_pfns(bpfns, b.nr, nid), 0);
	on_nid = wait_settled(&b, nid);
	ksft_print_msg("node %d: after the second report %lu of %lu on %d\n",
		       lower, on_nid, b.nr, nid);
	EXPECT_TRUE(reached_pct(on_nid, b.nr, PROMOTED_PCT));
out:
	wait_backlog_empty(lower);
	unmap_region(&b);
	free(apfns);
	free(bpfns);
	return reused;
}

TEST_F_TIMEOUT(coverage, reused_pfn_cold, COVERAGE_TIMEOUT_S)
{
	int j, round;

	hwhint_baseline(_metadata, self->knobs);
	set_knob(_metadata, self->knobs, KNOB_FREQ_THRESHOLD, "2");
	/* Both reports of a page well within one window. */
	set_knob(_metadata, self->knobs, KNOB_WINDOW, "60000");
	ASSERT_EQ(numa_run_on_node(self->cpu), 0);
	for (j = 0; j < self->topo->nr_lower; j++) {
		for (round = 0; round < COLD_ROUNDS; round++)
			if (cold_round(_metadata, self->topo->lower[j], self->cpu))
				break;
		EXPECT_LT(round, COLD_ROUNDS)
			TH_LOG("node %d: no freed memory reused in %d rounds",
			       self->topo->lower[j], COLD_ROUNDS);
	}
}

/*
 * Valid values for a knob: the range a racing writer picks from, and 0 as
 * well if @zero_ok. target_nid takes -1 or a top-tier node instead.
 */
struct knob_range {
	int idx;
	long min, max;
	bool zero_ok;
};

static const struct knob_range race_ranges[] = {
	{ KNOB_SOURCES, 0, 3, false },
	{ KNOB_TARGET_NID, -1, -1, false },
	{ KNOB_FREQ_THRESHOLD, 1, 3, false },
	{ KNOB_WINDOW, 100, 60000, false },
	{ KNOB_RATE_LIMIT, 0, 65536, false },
	{ KNOB_SLEEP, 50, 1000, false },
	{ KNOB_BATCH, 64, 1024, false },
	{ KNOB_REGION, 1000, 600000, true },
	{ KNOB_REGION_REF, 0, 16, false },
};

/* A random valid value of @k; target_nid from -1 and the top tier @t. */
static long race_value(const struct knob_range *k, const struct topology *t)
{
	int i;

	if (k->idx == KNOB_TARGET_NID) {
		i = rand() % (t->nr_top + 1);
		return i == t->nr_top ? -1 : t->top[i];
	}
	if (k->zero_ok && !(rand() % 4))
		return 0;
	return k->min + rand() % (k->max - k->min + 1);
}

static bool race_valid(const struct knob_range *k, const struct topology *t,
		       long v)
{
	if (k->idx == KNOB_TARGET_NID)
		return v == -1 || node_is_top(t, v);
	return (k->zero_ok && !v) || (v >= k->min && v <= k->max);
}

/* A child: random valid writes to every knob until the deadline. */
static void knob_writer(const struct knob *knobs, const struct topology *t,
			unsigned int seed, double until)
{
	const struct knob_range *k;
	char val[32];

	srand(seed);
	while (now_s() < until) {
		k = &race_ranges[rand() % ARRAY_SIZE(race_ranges)];
		snprintf(val, sizeof(val), "%ld", race_value(k, t));
		if (write_str(knobs[k->idx].path, val))
			_exit(1);
	}
	_exit(0);
}

TEST_F_TIMEOUT(coverage, knob_race, COVERAGE_TIMEOUT_S)
{
	const struct knob_range *k;
	struct region rg;
	pid_t writers[2];
	double until;
	char val[64];
	int i, status;
	long v;

	hwhint_baseline(_metadata, self->knobs);
	set_knob(_metadata, self->knobs, KNOB_SCAN_DELAY, "0");
	set_knob(_metadata, self->knobs, KNOB_SCAN_PERIOD_MIN, "100");
	set_knob(_metadata, self->knobs, KNOB_SCAN_PERIOD_MAX, "200");
	/* Every knob the writers touch is restored by the parent. */
	for (i = 0; i < (int)ARRAY_SIZE(race_ranges); i++)
		self->knobs[race_ranges[i].idx].changed = true;
	ASSERT_EQ(numa_run_on_node(self->cpu), 0);
	map_region(_metadata, &rg, BUF_SIZE);
	ASSERT_EQ(place_on_node(&rg, self->topo->lower[0]), 0);
	stamp(&rg);
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "2");
	until = now_s() + RACE_S;
	for (i = 0; i < 2; i++) {
		writers[i] = fork();
		ASSERT_GE(writers[i], 0);
		if (!writers[i])
			knob_writer(self->knobs, self->topo, 1234 + i, until);
	}
	while (now_s() < until) {
		touch_region(&rg);
		inject_region(&rg, self->cpu);
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(waitpid(writers[i], &status, 0), writers[i]);
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("a valid write was refused");
	}
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "0");
	for (i = 0; i < (int)ARRAY_SIZE(race_ranges); i++) {
		k = &race_ranges[i];
		ASSERT_EQ(read_str(self->knobs[k->idx].path, val, sizeof(val)), 0);
		v = strtol(val, NULL, 0);
		EXPECT_TRUE(race_valid(k, self->topo, v))
			TH_LOG("%s reads %s", self->knobs[k->idx].path, val);
	}
	EXPECT_EQ(stamps_lost(&rg), 0UL);
	unmap_region(&rg);
}

TEST_HARNESS_MAIN
