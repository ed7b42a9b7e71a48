// SPDX-License-Identifier: GPL-2.0
/*
 * pghot hardware hints, end to end, through the debug injection file:
 * the PFNs of a buffer placed on a lower-tier node (read from
 * /proc/self/pagemap) are reported as hardware samples. The tests that
 * promote run against every lower-tier node in turn.
 *
 * threshold_1:  enabled_sources=0x2, freq_threshold=1: one injection round
 *               promotes >= 99% of 256 MiB; pghot_recorded_hwhints counts
 *               every page.
 * threshold_2:  freq_threshold=2, regions off (hwhint_region_ms=0): one
 *               round promotes nothing, a second round inside the window
 *               promotes >= 99%.
 * region:       regions on, a 2.5 s region window: at freq_threshold=2
 *               one sample on every 32nd page (16 per 2 MiB) promotes
 *               nothing; one on every page makes the regions hot and no
 *               page ready, a second round 300 ms later (over
 *               promote_window_ms) promotes >= 95%; at freq_threshold=1
 *               one sample on every other page promotes that half and
 *               leaves the unsampled half.
 * region_ref:   after regions sampled at a high rate set the node's
 *               reference, regions at under half that rate (above the
 *               absolute bar) are not hot; after a reset, more samples
 *               make them hot and promote their sampled pages only.
 * region_rest:  at freq_threshold=1, whole regions sampled on all but their
 *               last 16 pages, the last 16 sampled after the others left,
 *               are promoted whole (their last pages made ready by the
 *               region); regions sampled on every other page keep their
 *               unsampled half.
 * region_one_page: 600 samples on one page (bound to its node, so it
 *               stays) of a 32-page owner with 8 or more pages in the
 *               region make no other page ready: samples of a page that
 *               is still there are no evidence for the rest step.
 * region_mixed: hot and 10 times colder pages interleaved in every whole
 *               region, sampled as a Poisson stream in 10 batches 300 ms
 *               apart, freq_threshold=2: >= 95% of the pages with two
 *               samples or more are promoted, <= 5% of those with one,
 *               <= 5% of the warm set, none without a sample.
 * region_sparse: one hot page in 8 of every whole region, the rest never
 *               sampled, freq_threshold=1, 3 batches 6 s apart: the
 *               regions stay below the bar, >= 95% of the hot pages with
 *               two samples or more are promoted, no untouched page.
 * source_off:   with 0x2 clear nothing is promoted and
 *               pghot_recorded_hwhints does not move, while
 *               pghot_reported_hwhints does.
 * bad_input:    garbage, offline PFNs, bad nodes and a NUL byte inside
 *               the list fail with EINVAL and record nothing.
 * rings:        once the injector has reported, stats shows it as a
 *               provider and the per-CPU rings at 8 bytes a sample, 1024
 *               samples per possible CPU.
 * ibs_absent:   on a CPU without IBS op sampling there is no ibs/
 *               directory and no ibs_op provider in stats, and injection
 *               works; with IBS, the directory is there.
 * ibs_armed:    with IBS (skips without it): arming fails with EBUSY while
 *               a perf event is open on ibs_op; armed, samples arrive
 *               (ibs/stats, hwhint_total_events) and a new perf event on
 *               ibs_op fails with EBUSY; disarmed, no sample arrives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "pghot_inject.h"

#define BIG_SIZE		(256UL << 20)	/* threshold_1 */
#define SMALL_SIZE		(32UL << 20)	/* the other tests */
#define UNPROMOTED_MAX_PCT	1
#define REGION_PROMOTED_PCT	95	/* pages in partly covered regions may stay */
#define REGION_BYTES		(2UL << 20)	/* pghot's regions */
#define PROMOTE_WAIT_S		90	/* per node, for the timeout; waits end on a stall */
#define SETTLE_S		2	/* well above kmigrated_sleep_ms */
#define HWHINT_TEST_TIMEOUT_S	(TIMED_LOWER_NODES * (PROMOTE_WAIT_S + 30) + 60)

#define IBS_ENABLED		PGHOT_DIR "ibs/enabled"
#define IBS_STATS		PGHOT_DIR "ibs/stats"
#define INJECT			PGHOT_DIR "inject"
#define STATS			PGHOT_DIR "stats"
#define IBS_PMU			"/sys/bus/event_source/devices/ibs_op"
#define RING_SAMPLES		1024
#define SAMPLE_BYTES		8

static const char * const saved_knobs[] = {
	PGHOT_DIR "enabled_sources", PGHOT_DIR "freq_threshold",
	PGHOT_DIR "promote_window_ms", PGHOT_DIR "target_nid", NUMAB_SYSCTL,
	PGHOT_DIR "hwhint_region_ms", PGHOT_DIR "hwhint_region_ref",
};

#define NR_KNOBS	ARRAY_SIZE(saved_knobs)

/* 0, or the errno of the failed write. */
static int write_err(const char *path, const char *val)
{
	return write_str(path, val) ? errno : 0;
}

static unsigned long vmstat(const char *name)
{
	unsigned long long v = 0;

	read_vmstat(name, &v);
	return v;
}

/*
 * What the region test prints of a step: how its samples fared, every
 * pghot_ counter of /proc/vmstat that moved.
 */
#define NR_REGION_COUNTERS	64

struct counters {
	char name[NR_REGION_COUNTERS][48];
	unsigned long long val[NR_REGION_COUNTERS];
	int nr;
};

static void region_counters_read(struct counters *c)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char name[48];
	unsigned long long v;

	c->nr = 0;
	if (!f)
		return;
	while (c->nr < NR_REGION_COUNTERS &&
	       fscanf(f, "%47s %llu", name, &v) == 2) {
		if (strncmp(name, "pghot_", 6))
			continue;
		strcpy(c->name[c->nr], name);
		c->val[c->nr++] = v;
	}
	fclose(f);
}

static void region_counters_print(const struct counters *a, double secs)
{
	struct counters b;
	int i;

	ksft_print_msg("  samples recorded in %.2f s\n", secs);
	region_counters_read(&b);
	for (i = 0; i < a->nr && i < b.nr; i++)
		if (!strcmp(a->name[i], b.name[i]) && b.val[i] != a->val[i])
			ksft_print_msg("  %s +%llu\n", b.name[i],
				       b.val[i] - a->val[i]);
}

/* A buffer on the slow node and the PFNs of its pages. */
struct hw_buf {
	struct region rg;
	unsigned long *pfns;
};

FIXTURE(hwhint) {
	char saved[NR_KNOBS][32];
	struct hw_buf hw;
	const struct topology *topo;
};

FIXTURE_SETUP(hwhint)
{
	unsigned int i;

	if (access(INJECT, W_OK))
		SKIP(return, "no " INJECT " (needs root, debugfs, CONFIG_PGHOT_HWHINT_INJECT)");
	if (numa_available() < 0)
		SKIP(return, "NUMA not available");
	self->topo = tiered_topology(_metadata);
	if (!self->topo)
		return;
	for (i = 0; i < NR_KNOBS; i++)
		ASSERT_EQ(read_str(saved_knobs[i], self->saved[i],
				   sizeof(self->saved[i])), 0);
	/* Hardware hints only: no hint faults on the way. */
	ASSERT_EQ(write_err(NUMAB_SYSCTL, "0"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "target_nid", "-1"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "promote_window_ms", "10000"), 0);
}

FIXTURE_TEARDOWN(hwhint)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++)
		if (self->saved[i][0])
			write_str(saved_knobs[i], self->saved[i]);
	if (self->hw.rg.buf)
		unmap_region(&self->hw.rg);
	free(self->hw.pfns);
}

/* Fault @size bytes in on lower-tier node @nid and learn their PFNs. */
static void place(struct __test_metadata *_metadata,
		  struct hw_buf *self, size_t size, int nid)
{
	struct residency r;

	map_region(_metadata, &self->rg, size);
	ASSERT_EQ(place_on_node(&self->rg, nid), 0);
	ASSERT_EQ(query_residency(&self->rg, &r), 0);
	ASSERT_TRUE(reached_pct(r.slow, self->rg.nr, PLACED_PCT));

	self->pfns = calloc(self->rg.nr, sizeof(*self->pfns));
	ASSERT_NE(self->pfns, NULL);
	/* Every page present, and root sees its PFN. */
	ASSERT_EQ(region_pfns(&self->rg, self->pfns), 0);
}

static unsigned long promoted(struct __test_metadata *_metadata,
			      struct hw_buf *self)
{
	struct residency r;

	EXPECT_EQ(query_residency(&self->rg, &r), 0);
	return r.top;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Report every @step-th page of the buffer once. The samples of one 2 MiB
 * region (pghot's regions for sampled hints) go in one write, so that they
 * come within the rule's span even when the kernel is slow or the writer
 * is held up between writes: the region tests judge the rule, not how
 * fast samples can be injected.
 */
static void inject_every(struct __test_metadata *_metadata,
			 struct hw_buf *self, unsigned long step)
{
	unsigned long per = REGION_BYTES / getpagesize();
	unsigned long *pfns = calloc(self->rg.nr, sizeof(*pfns));
	unsigned long i, j, n = 0;

	ASSERT_NE(pfns, NULL);
	for (i = 0; i < self->rg.nr; i += step)
		pfns[n++] = self->pfns[i];
	qsort(pfns, n, sizeof(*pfns), cmp_ulong);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && pfns[j] / per == pfns[i] / per; j++)
			;
		ASSERT_EQ(inject_pfns(pfns + i, j - i, -1), 0)
			TH_LOG("inject: %s", strerror(errno));
	}
	free(pfns);
}

static void inject_all(struct __test_metadata *_metadata,
		       struct hw_buf *self)
{
	inject_every(_metadata, self, 1);
}

/* Unmap the buffer place() made, so that the next one can take its place. */
static void unplace(struct hw_buf *self)
{
	unmap_region(&self->rg);
	self->rg.buf = NULL;
	free(self->pfns);
	self->pfns = NULL;
}

/* Ask the kernel to compact node @nid's memory (best effort). */
static void compact_node(int nid)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/compact", nid);
	if (write_str(path, "1"))
		ksft_print_msg("cannot compact node %d: %s\n", nid, strerror(errno));
}

#define SPLIT_HUGE_PAGES	"/sys/kernel/debug/split_huge_pages"

/*
 * Place @size bytes on @nid as whole 2 MiB regions: fault them in as huge
 * pages there, then split those in place (split_huge_pages in debugfs),
 * which leaves the 512 4K pages of every region physically contiguous
 * and on the LRU. Freed order-0 pages that earlier cases left on the node
 * cannot break the regions up, as they can for place(). 0, or -1 with
 * nothing mapped (no THP for madvise(), no debugfs file, no huge page on
 * @nid or no split).
 */
static int place_split(struct hw_buf *hw, size_t size, int nid)
{
	char *raw, *buf, cmd[96];
	size_t head;
	int ret;

	if (access(SPLIT_HUGE_PAGES, W_OK))
		return -1;
	raw = mmap(NULL, size + REGION_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return -1;
	buf = (char *)(((unsigned long)raw + REGION_BYTES - 1) & ~(REGION_BYTES - 1));
	head = buf - raw;
	if (head)
		munmap(raw, head);
	munmap(buf + size, REGION_BYTES - head);
	if (madvise(buf, size, MADV_HUGEPAGE) ||
	    region_init(&hw->rg, buf, size)) {
		munmap(buf, size);
		return -1;
	}
	ret = place_on_node(&hw->rg, nid);
	/* No khugepaged collapsing the split pages again, elsewhere. */
	if (!ret)
		ret = madvise(buf, size, MADV_NOHUGEPAGE);
	snprintf(cmd, sizeof(cmd), "%d,0x%lx,0x%lx", getpid(),
		 (unsigned long)buf, (unsigned long)buf + size);
	if (!ret)
		ret = write_str(SPLIT_HUGE_PAGES, cmd);
	/* The split pages off the per-CPU LRU batches, still on @nid. */
	if (!ret)
		ret = drain_lru(&hw->rg, nid);
	hw->pfns = calloc(hw->rg.nr, sizeof(*hw->pfns));
	if (!ret && hw->pfns)
		ret = region_pfns(&hw->rg, hw->pfns);
	if (ret || !hw->pfns) {
		unplace(hw);
		return -1;
	}
	return 0;
}

/*
 * Wait for kmigrated to promote the region, for as long as it makes
 * progress; the seconds it took.
 */
static double wait_promoted(struct __test_metadata *_metadata,
			    struct hw_buf *self)
{
	struct progress p = { };
	double t0 = now_s();

	do {
		usleep(200 * 1000);
	} while (!progress_done(&p, promoted(_metadata, self), self->rg.nr,
				PROMOTE_STALL_S));
	return now_s() - t0;
}

static void threshold_1_from(struct __test_metadata *_metadata,
			     struct hw_buf *hw, int nid)
{
	unsigned long rec0, rep0, succ0, top;
	double secs;

	place(_metadata, hw, BIG_SIZE, nid);
	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x2"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "freq_threshold", "1"), 0);
	rec0 = vmstat("pghot_recorded_hwhints");
	rep0 = vmstat("pghot_reported_hwhints");
	succ0 = vmstat("pgpromote_success");

	inject_all(_metadata, hw);
	secs = wait_promoted(_metadata, hw);
	top = promoted(_metadata, hw);
	TH_LOG("node %d, freq_threshold=1: %.2f%% of %lu pages promoted %.1f s after one round",
	       nid, pct(top, hw->rg.nr), hw->rg.nr, secs);
	TH_LOG("recorded_hwhints +%lu, reported_hwhints +%lu, pgpromote_success +%lu",
	       vmstat("pghot_recorded_hwhints") - rec0,
	       vmstat("pghot_reported_hwhints") - rep0,
	       vmstat("pgpromote_success") - succ0);
	EXPECT_TRUE(reached_pct(top, hw->rg.nr, PROMOTED_PCT));
	/* A page still in a per-CPU LRU batch is not tracked yet. */
	EXPECT_TRUE(reached_pct(vmstat("pghot_recorded_hwhints") - rec0,
				hw->rg.nr, PROMOTED_PCT));
	EXPECT_LE(vmstat("pghot_recorded_hwhints") - rec0, hw->rg.nr);
	EXPECT_GE(vmstat("pghot_reported_hwhints") - rep0, hw->rg.nr);
	unplace(hw);
}

TEST_F_TIMEOUT(hwhint, threshold_1, HWHINT_TEST_TIMEOUT_S)
{
	int i;

	for (i = 0; i < self->topo->nr_lower; i++)
		threshold_1_from(_metadata, &self->hw, self->topo->lower[i]);
}

static void threshold_2_from(struct __test_metadata *_metadata,
			     struct hw_buf *hw, int nid)
{
	unsigned long top;
	double secs;

	place(_metadata, hw, SMALL_SIZE, nid);
	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x2"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "freq_threshold", "2"), 0);
	/* Each page on its own samples: a round over a whole region is hot. */
	ASSERT_EQ(write_err(PGHOT_DIR "hwhint_region_ms", "0"), 0);

	inject_all(_metadata, hw);
	sleep(SETTLE_S);
	top = promoted(_metadata, hw);
	TH_LOG("node %d, freq_threshold=2, one round: %.2f%% promoted",
	       nid, pct(top, hw->rg.nr));
	EXPECT_LE(pct(top, hw->rg.nr), UNPROMOTED_MAX_PCT);

	inject_all(_metadata, hw);
	secs = wait_promoted(_metadata, hw);
	top = promoted(_metadata, hw);
	TH_LOG("node %d, freq_threshold=2, two rounds: %.2f%% promoted after %.1f s",
	       nid, pct(top, hw->rg.nr), secs);
	EXPECT_TRUE(reached_pct(top, hw->rg.nr, PROMOTED_PCT));
	unplace(hw);
}

TEST_F_TIMEOUT(hwhint, threshold_2, HWHINT_TEST_TIMEOUT_S)
{
	int i;

	for (i = 0; i < self->topo->nr_lower; i++)
		threshold_2_from(_metadata, &self->hw, self->topo->lower[i]);
}

/*
 * The region rule with a window of 2.5 s and rates over at least 250 ms
 * (promote_window_ms): within 250 ms a 512-page region is hot on
 * 512 * threshold / 10 samples, 103 at threshold 2 and 52 at threshold 1.
 * The window is short so that regions earlier tests found hot are closed
 * by the time this one starts, and between its steps (at least 3.5 s
 * apart); the span is long enough for a slow (debug, emulated) kernel to
 * take a region's samples before its rate is judged, and for a page
 * sampled before its region turned hot to still count.
 */
#define REGION_GAP_MS		300	/* over promote_window_ms, under the region's */

static void region_from(struct __test_metadata *_metadata,
			struct hw_buf *hw, int nid)
{
	struct counters c0;
	unsigned long hot0, ready0, top, half, one;
	double secs, t0, t_inj;

	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x2"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "promote_window_ms", "250"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "hwhint_region_ms", "2500"), 0);
	/*
	 * The absolute bar alone: with the node's reference, the first hot
	 * region's rate (set by how fast the drain took its samples) decides
	 * the others'. region_ref tests the reference.
	 */
	ASSERT_EQ(write_err(PGHOT_DIR "hwhint_region_ref", "0"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "freq_threshold", "2"), 0);
	place(_metadata, hw, SMALL_SIZE, nid);
	sleep(SETTLE_S);

	/* 16 samples per region: below the bar, and one each is not 2. */
	hot0 = vmstat("pghot_region_hot");
	inject_every(_metadata, hw, 32);
	sleep(SETTLE_S);
	top = promoted(_metadata, hw);
	TH_LOG("node %d, threshold 2, every 32nd page: %.2f%% promoted, %lu regions hot",
	       nid, pct(top, hw->rg.nr), vmstat("pghot_region_hot") - hot0);
	EXPECT_LE(pct(top, hw->rg.nr), UNPROMOTED_MAX_PCT);
	EXPECT_EQ(vmstat("pghot_region_hot"), hot0);

	/*
	 * Every page once: the regions are hot, but one sample cannot tell
	 * a hot page from a warm one beside it. A second round, after the
	 * pages' own window (promote_window_ms) and within the region's,
	 * promotes them: the region remembers the first.
	 */
	sleep(SETTLE_S);
	ready0 = vmstat("pghot_ready");
	region_counters_read(&c0);
	t0 = now_s();
	inject_all(_metadata, hw);
	t_inj = now_s() - t0;
	usleep(REGION_GAP_MS * 1000);
	one = vmstat("pghot_ready") - ready0;
	TH_LOG("node %d, threshold 2, every page once (%.2f s): %lu of %lu ready, %lu regions hot",
	       nid, t_inj, one, hw->rg.nr, vmstat("pghot_region_hot") - hot0);
	region_counters_print(&c0, t_inj);
	EXPECT_LE(pct(one, hw->rg.nr), UNPROMOTED_MAX_PCT);
	EXPECT_GE(vmstat("pghot_region_hot") - hot0, hw->rg.nr / 512 / 2);
	inject_all(_metadata, hw);
	secs = wait_promoted(_metadata, hw);
	top = promoted(_metadata, hw);
	TH_LOG("node %d, threshold 2, every page twice %d ms apart: %.2f%% promoted in %.1f s",
	       nid, REGION_GAP_MS, pct(top, hw->rg.nr), secs);
	region_counters_print(&c0, now_s() - t0);
	EXPECT_TRUE(reached_pct(top, hw->rg.nr, REGION_PROMOTED_PCT));
	unplace(hw);

	/* Threshold 1: a hot region never takes a page that has no sample. */
	ASSERT_EQ(write_err(PGHOT_DIR "freq_threshold", "1"), 0);
	place(_metadata, hw, SMALL_SIZE, nid);
	sleep(SETTLE_S);
	hot0 = vmstat("pghot_region_hot");
	region_counters_read(&c0);
	t0 = now_s();
	inject_every(_metadata, hw, 2);
	t_inj = now_s() - t0;
	secs = wait_promoted(_metadata, hw);
	sleep(SETTLE_S);
	top = promoted(_metadata, hw);
	half = (hw->rg.nr + 1) / 2;
	TH_LOG("node %d, threshold 1, every 2nd page: %.2f%% promoted in %.1f s, %lu regions hot",
	       nid, pct(top, hw->rg.nr), secs, vmstat("pghot_region_hot") - hot0);
	region_counters_print(&c0, t_inj);
	EXPECT_TRUE(reached_pct(top, half, REGION_PROMOTED_PCT));
	EXPECT_LE(top, half + hw->rg.nr / 100);
	EXPECT_GT(vmstat("pghot_region_hot"), hot0);
	unplace(hw);
}

TEST_F_TIMEOUT(hwhint, region, HWHINT_TEST_TIMEOUT_S)
{
	int i;

	for (i = 0; i < self->topo->nr_lower; i++)
		region_from(_metadata, &self->hw, self->topo->lower[i]);
}

/*
 * The node's reference (region_ref_nodeN in stats): the rates of the
 * regions found hot lately, which a region must come within a factor of 2
 * of. The buffer's whole regions are dealt alternately to two groups. With
 * a REF_WINDOW_MS region window and rates over at least a second
 * (promote_window_ms), a 512-page region is hot at threshold 1 on 51.2
 * samples a second. A is sampled on every page, a quarter at a time
 * REF_A_GAP_MS apart, as a steady stream would be; its rate is taken at
 * the first sample past a quarter of the span, 129 samples in 0.4 s or
 * more: at most 322 a second. B gets one write on every 8th page: 64
 * samples in the 1 s span, above the absolute bar and well under half the
 * reference, so B is not hot. Once the reference is reset, two more such
 * writes (192 samples in under 3.5 s) make B hot.
 */
#define REF_WINDOW_MS		"10000"
#define REF_WINDOW_S		10
#define REF_SPAN_MS		"1000"
#define REF_A_GAP_MS		400
#define REF_B_EVERY		8
#define REGION_MIN_SAMPLES	16	/* fewer in a window say nothing */

struct ref_groups {
	unsigned long *idx[2];	/* page indices, region by region */
	unsigned long nr[2];	/* pages */
	unsigned long regions[2];
};

struct pg_key {
	unsigned long key, i;
};

static int cmp_pg_key(const void *a, const void *b)
{
	const struct pg_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Deal the buffer's whole 2 MiB regions to groups A (0) and B (1). */
static void ref_split(struct __test_metadata *_metadata,
		      const struct hw_buf *hw, struct ref_groups *g)
{
	unsigned long per = REGION_BYTES / getpagesize();
	unsigned long i, j, k;
	struct pg_key *pg;
	int side;

	pg = calloc(hw->rg.nr, sizeof(*pg));
	ASSERT_NE(pg, NULL);
	for (side = 0; side < 2; side++) {
		g->idx[side] = calloc(hw->rg.nr, sizeof(*g->idx[side]));
		ASSERT_NE(g->idx[side], NULL);
	}
	for (i = 0; i < hw->rg.nr; i++)
		pg[i] = (struct pg_key){ hw->pfns[i] / per, i };
	qsort(pg, hw->rg.nr, sizeof(*pg), cmp_pg_key);
	for (i = 0; i < hw->rg.nr; i = j) {
		for (j = i; j < hw->rg.nr && pg[j].key == pg[i].key; j++)
			;
		if (j - i != per)
			continue;
		side = g->regions[0] > g->regions[1];
		for (k = i; k < j; k++)
			g->idx[side][g->nr[side]++] = pg[k].i;
		g->regions[side]++;
	}
	free(pg);
}

static void ref_free(struct ref_groups *g)
{
	free(g->idx[0]);
	free(g->idx[1]);
}

/*
 * Sample page @first, @first + @every, ... below @last of each region of
 * @side, one write per region.
 */
static void ref_inject_below(struct __test_metadata *_metadata,
			     const struct hw_buf *hw, const struct ref_groups *g,
			     int side, unsigned long every, unsigned long first,
			     unsigned long last)
{
	unsigned long per = REGION_BYTES / getpagesize();
	unsigned long base, k, n, *pfns = calloc(per, sizeof(*pfns));

	ASSERT_NE(pfns, NULL);
	for (base = 0; base < g->nr[side]; base += per) {
		for (n = 0, k = first; k < last && k < per; k += every)
			pfns[n++] = hw->pfns[g->idx[side][base + k]];
		ASSERT_EQ(inject_pfns(pfns, n, -1), 0)
			TH_LOG("inject: %s", strerror(errno));
	}
	free(pfns);
}

/* Sample page @first, @first + @every, ... of each region of @side. */
static void ref_inject(struct __test_metadata *_metadata,
		       const struct hw_buf *hw, const struct ref_groups *g,
		       int side, unsigned long every, unsigned long first)
{
	ref_inject_below(_metadata, hw, g, side, every, first, ULONG_MAX);
}

/* Pages of @side on a top-tier node. */
static unsigned long ref_top(struct __test_metadata *_metadata,
			     struct hw_buf *hw, const struct ref_groups *g,
			     int side)
{
	unsigned long i, top = 0;
	struct residency r;

	EXPECT_EQ(query_residency(&hw->rg, &r), 0);
	for (i = 0; i < g->nr[side]; i++)
		top += node_is_top(&pghot_topo, hw->rg.status[g->idx[side][i]]);
	return top;
}

/* Does a line of debugfs stats start with @prefix; its rest in @rest. */
static bool stats_line(const char *prefix, char *rest, size_t size)
{
	char line[256];
	bool found = false;
	FILE *f = fopen(STATS, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		found = true;
		if (rest)
			snprintf(rest, size, "%s", line + strlen(prefix));
	}
	fclose(f);
	return found;
}

/* region_ref_node@nid of stats, 0 if there is no such line, -1: no stats. */
static double region_ref(int nid)
{
	char prefix[64], rest[64];
	double v;

	if (access(STATS, R_OK))
		return -1;
	snprintf(prefix, sizeof(prefix), "region_ref_node%d ", nid);
	if (!stats_line(prefix, rest, sizeof(rest)))
		return 0;
	return sscanf(rest, "%lf", &v) == 1 ? v : -1;
}

/*
 * Threshold 1, a REF_WINDOW_MS region window, rates over at least
 * REF_SPAN_MS; the buffer placed on @nid and its whole regions dealt to
 * the groups of @g.
 */
static void ref_place(struct __test_metadata *_metadata, struct hw_buf *hw,
		      int nid, struct ref_groups *g)
{
	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x2"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "promote_window_ms", REF_SPAN_MS), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "freq_threshold", "1"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "hwhint_region_ms", REF_WINDOW_MS), 0);
	/* Whole regions even where earlier cases left the node in pieces. */
	compact_node(nid);
	if (place_split(hw, SMALL_SIZE, nid))
		place(_metadata, hw, SMALL_SIZE, nid);
	ref_split(_metadata, hw, g);
	TH_LOG("node %d: %lu whole regions in A, %lu in B", nid,
	       g->regions[0], g->regions[1]);
}

static void region_ref_from(struct __test_metadata *_metadata,
			    struct hw_buf *hw, int nid)
{
	struct ref_groups g = { };
	unsigned long hot0, top_a, top_b, sampled_b;
	struct progress p = { };
	double ref;
	int i;

	ref_place(_metadata, hw, nid, &g);
	ASSERT_GE(g.regions[1], 2UL);
	/* Regions earlier tests sampled are closed, the reference reset. */
	sleep(REF_WINDOW_S);
	EXPECT_EQ(region_ref(nid), 0);

	hot0 = vmstat("pghot_region_hot");
	for (i = 0; i < 4; i++) {
		if (i)
			usleep(REF_A_GAP_MS * 1000);
		ref_inject(_metadata, hw, &g, 0, 4, i);
	}
	ref = region_ref(nid);
	TH_LOG("node %d, A: %lu regions hot, reference %.2f samples/s per region",
	       nid, vmstat("pghot_region_hot") - hot0, ref);
	EXPECT_EQ(vmstat("pghot_region_hot") - hot0, g.regions[0]);
	EXPECT_GT(ref, 0);

	/* B: under half of A's rate, above the absolute bar. */
	hot0 = vmstat("pghot_region_hot");
	ref_inject(_metadata, hw, &g, 1, REF_B_EVERY, 0);
	sleep(SETTLE_S);
	top_b = ref_top(_metadata, hw, &g, 1);
	TH_LOG("node %d, B under the reference: %lu regions hot, %lu of %lu pages promoted",
	       nid, vmstat("pghot_region_hot") - hot0, top_b, g.nr[1]);
	EXPECT_EQ(vmstat("pghot_region_hot"), hot0);
	/* Only pages sampled while their region had too few samples to tell. */
	EXPECT_LE(top_b, g.regions[1] * (REGION_MIN_SAMPLES - 1) +
			 g.nr[1] * UNPROMOTED_MAX_PCT / 100);

	/* The same regions without a reference: hot on one more write. */
	ASSERT_EQ(write_err(PGHOT_DIR "hwhint_region_ms", REF_WINDOW_MS), 0);
	EXPECT_EQ(region_ref(nid), 0);
	ref_inject(_metadata, hw, &g, 1, REF_B_EVERY, 1);
	ref_inject(_metadata, hw, &g, 1, REF_B_EVERY, 2);
	sampled_b = g.nr[1] / REF_B_EVERY * 3;
	do {
		usleep(200 * 1000);
		top_a = ref_top(_metadata, hw, &g, 0);
		top_b = ref_top(_metadata, hw, &g, 1);
	} while (!progress_done(&p, top_a + top_b, g.nr[0] + sampled_b * 2 / 3,
				PROMOTE_STALL_S));
	sleep(SETTLE_S);
	top_a = ref_top(_metadata, hw, &g, 0);
	top_b = ref_top(_metadata, hw, &g, 1);
	TH_LOG("node %d, no reference: B %lu regions hot, %lu of %lu sampled up; A %lu of %lu",
	       nid, vmstat("pghot_region_hot") - hot0, top_b, sampled_b,
	       top_a, g.nr[0]);
	EXPECT_EQ(vmstat("pghot_region_hot") - hot0, g.regions[1]);
	/*
	 * The pages of these two writes; those of the first one were
	 * sampled more than promote_window_ms ago and may have lost it.
	 */
	EXPECT_TRUE(reached_pct(top_b, sampled_b * 2 / 3, REGION_PROMOTED_PCT));
	/* Never a page without a sample of its own. */
	EXPECT_LE(top_b, sampled_b);
	EXPECT_TRUE(reached_pct(top_a, g.nr[0], REGION_PROMOTED_PCT));
	ref_free(&g);
	unplace(hw);
}

TEST_F_TIMEOUT(hwhint, region_ref, HWHINT_TEST_TIMEOUT_S)
{
	int i;

	for (i = 0; i < self->topo->nr_lower; i++)
		region_ref_from(_metadata, &self->hw, self->topo->lower[i]);
}

#define REST_UNSAMPLED		16	/* of a region's 512 pages */
#define REST_SAMPLED2		16	/* sampled once the others left */
#define REST_WINDOW_MS		"20000"
#define REST_WINDOW_S		20
/* region_one_page: one page of a small owner sampled over and over. */
#define ONE_OWNER		32
#define ONE_SAMPLES		600	/* passes 480, 496, 512, ... */
#define ONE_MIN			8	/* of them in page 0's region */
#define ONE_TRIES		8
#define KPF_LRU_BIT		5	/* in /proc/kpageflags */

static void region_rest_from(struct __test_metadata *_metadata,
			     struct hw_buf *hw, int nid)
{
	unsigned long per = REGION_BYTES / getpagesize();
	unsigned long ready0, top_a, top_b, half_b;
	struct ref_groups g = { };
	struct progress p = { };

	ref_place(_metadata, hw, nid, &g);
	ASSERT_GE(g.regions[0], 1UL);
	ASSERT_GE(g.regions[1], 1UL);
	/*
	 * A window long enough for the first pages to leave before the last
	 * samples come; those earlier tests opened on this memory closed.
	 */
	ASSERT_EQ(write_err(PGHOT_DIR "hwhint_region_ms", REST_WINDOW_MS), 0);
	sleep(REST_WINDOW_S);

	/*
	 * A: all but the last REST_SAMPLED2 + REST_UNSAMPLED pages of each
	 * region first; then, once those have left, REST_SAMPLED2 more, whose
	 * samples find all but 1/8 of the region gone. B: every other page.
	 */
	ready0 = vmstat("pghot_region_ready");
	ref_inject_below(_metadata, hw, &g, 0, 1, 0,
			 per - REST_UNSAMPLED - REST_SAMPLED2);
	ref_inject(_metadata, hw, &g, 1, 2, 0);
	half_b = g.nr[1] / 2;
	do {
		usleep(200 * 1000);
		top_a = ref_top(_metadata, hw, &g, 0);
	} while (!progress_done(&p, top_a, g.nr[0] - g.regions[0] *
				(REST_UNSAMPLED + REST_SAMPLED2), PROMOTE_STALL_S));
	TH_LOG("node %d: A: %lu of %lu up before the last samples", nid, top_a,
	       g.nr[0]);
	ref_inject_below(_metadata, hw, &g, 0, 1, per - REST_UNSAMPLED -
			 REST_SAMPLED2, per - REST_UNSAMPLED);
	memset(&p, 0, sizeof(p));
	do {
		usleep(200 * 1000);
		top_a = ref_top(_metadata, hw, &g, 0);
		top_b = ref_top(_metadata, hw, &g, 1);
	} while (!progress_done(&p, top_a + top_b, g.nr[0] + half_b,
				PROMOTE_STALL_S));
	sleep(SETTLE_S);
	top_a = ref_top(_metadata, hw, &g, 0);
	top_b = ref_top(_metadata, hw, &g, 1);
	TH_LOG("node %d: A (%d pages a region unsampled) %lu of %lu up",
	       nid, REST_UNSAMPLED, top_a, g.nr[0]);
	TH_LOG("node %d: B (every other page) %lu of %lu up; region_ready +%lu",
	       nid, top_b, g.nr[1], vmstat("pghot_region_ready") - ready0);
	/* Without the last pages: at most 496 of 512, 96.9%. */
	EXPECT_TRUE(reached_pct(top_a, g.nr[0], 100 - UNPROMOTED_MAX_PCT));
	EXPECT_TRUE(reached_pct(top_b, half_b, REGION_PROMOTED_PCT));
	EXPECT_LE(top_b, half_b + g.nr[1] / 100);
	ref_free(&g);
	unplace(hw);
}

TEST_F_TIMEOUT(hwhint, region_rest, HWHINT_TEST_TIMEOUT_S)
{
	int i;

	for (i = 0; i < self->topo->nr_lower; i++)
		region_rest_from(_metadata, &self->hw, self->topo->lower[i]);
}

/*
 * The LRU pages in the 2 MiB region of @pfn that are not in @pfns[0..@nr),
 * from /proc/kpageflags; -1 if it cannot be read.
 */
static long region_others(unsigned long pfn, const unsigned long *pfns,
			  unsigned long nr)
{
	unsigned long per = REGION_BYTES / getpagesize();
	unsigned long start = pfn / per * per, p, i;
	uint64_t flags;
	long others = 0;
	int fd = open("/proc/kpageflags", O_RDONLY);

	if (fd < 0)
		return -1;
	for (p = start; p < start + per; p++) {
		if (pread(fd, &flags, sizeof(flags), p * sizeof(flags)) != sizeof(flags)) {
			others = -1;
			break;
		}
		if (!(flags & (1ULL << KPF_LRU_BIT)))
			continue;
		for (i = 0; i < nr && pfns[i] != p; i++)
			;
		others += i == nr;
	}
	close(fd);
	return others;
}

static void region_one_page_from(struct __test_metadata *_metadata,
				 struct hw_buf *hw, int nid)
{
	unsigned long per = REGION_BYTES / getpagesize();
	unsigned long *pfns, i, mine = 0, up, ready0, hot0, policy0;
	long others = -1;
	int try;

	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x2"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "promote_window_ms", REF_SPAN_MS), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "freq_threshold", "1"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "hwhint_region_ms", REF_WINDOW_MS), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "hwhint_region_ref", "0"), 0);
	/*
	 * ONE_OWNER pages, at least ONE_MIN of them in the sampled page's
	 * region, with no more pages of others there than the rest step
	 * allows: the shape in which counting samples as pages gone made
	 * the owner's other pages in the region ready.
	 */
	for (try = 0; try < ONE_TRIES; try++) {
		place(_metadata, hw, ONE_OWNER * getpagesize(), nid);
		for (i = 0, mine = 0; i < hw->rg.nr; i++)
			mine += hw->pfns[i] / per == hw->pfns[0] / per;
		others = region_others(hw->pfns[0], hw->pfns, hw->rg.nr);
		if (mine >= ONE_MIN && others >= 0 &&
		    others <= (long)(per >> 4))
			break;
		unplace(hw);
	}
	ASSERT_LT(try, ONE_TRIES)
		TH_LOG("node %d: no region with %d of ours, few others (%lu, %ld)",
		       nid, ONE_MIN, mine, others);
	/*
	 * Bound to its node: kmigrated refuses the sampled page (policy) and
	 * it stays, sampled again and again, as a rate-limited, pinned or
	 * held page would.
	 */
	ASSERT_EQ(bind_region(&hw->rg, nid), 0);
	/* The windows earlier tests opened on this memory are closed. */
	sleep(REF_WINDOW_S);

	pfns = calloc(ONE_SAMPLES, sizeof(*pfns));
	ASSERT_NE(pfns, NULL);
	for (i = 0; i < ONE_SAMPLES; i++)
		pfns[i] = hw->pfns[0];
	ready0 = vmstat("pghot_region_ready");
	hot0 = vmstat("pghot_region_hot");
	policy0 = vmstat("pghot_promote_policy");
	ASSERT_EQ(inject_pfns(pfns, ONE_SAMPLES, -1), 0)
		TH_LOG("inject: %s", strerror(errno));
	free(pfns);
	sleep(SETTLE_S);
	up = promoted(_metadata, hw);
	TH_LOG("node %d: %d samples on 1 of %lu pages (%lu in its region, %ld others)",
	       nid, ONE_SAMPLES, hw->rg.nr, mine, others);
	TH_LOG("node %d: %lu up; region hot +%lu, region_ready +%lu", nid, up,
	       vmstat("pghot_region_hot") - hot0,
	       vmstat("pghot_region_ready") - ready0);
	/* The sampled page was taken and refused; the region was hot. */
	EXPECT_GE(vmstat("pghot_promote_policy") - policy0, 1UL);
	EXPECT_GE(vmstat("pghot_region_hot") - hot0, 1UL);
	/* No other page made ready: none of them was sampled. */
	EXPECT_EQ(vmstat("pghot_region_ready") - ready0, 0UL);
	EXPECT_EQ(up, 0UL);
	unplace(hw);
}

TEST_F_TIMEOUT(hwhint, region_one_page, HWHINT_TEST_TIMEOUT_S)
{
	int i;

	for (i = 0; i < self->topo->nr_lower; i++)
		region_one_page_from(_metadata, &self->hw, self->topo->lower[i]);
}

/* A fixed pseudo-random sequence (xorshift64*): the same samples every run. */
static uint64_t rnd_state;

static void rnd_seed(uint64_t seed)
{
	rnd_state = seed ? seed : 1;
}

static unsigned long rnd_below(unsigned long n)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (rnd_state * 2685821657736338717ULL >> 11) % n;
}

/*
 * The buffer's pages in whole 2 MiB regions, by PFN: (*@idx)[r * per + k]
 * is the buffer index of the page at offset k of the r-th whole region.
 * Returns the number of whole regions.
 */
static unsigned long whole_regions(struct __test_metadata *_metadata,
				   const struct hw_buf *hw, unsigned long **idx)
{
	unsigned long per = REGION_BYTES / getpagesize();
	unsigned long i, j, k, nr = 0;
	struct pg_key *pg;

	pg = calloc(hw->rg.nr, sizeof(*pg));
	*idx = calloc(hw->rg.nr, sizeof(**idx));
	if (!pg || !*idx) {
		free(pg);
		ASSERT_TRUE(false);
	}
	for (i = 0; i < hw->rg.nr; i++)
		pg[i] = (struct pg_key){ hw->pfns[i], i };
	qsort(pg, hw->rg.nr, sizeof(*pg), cmp_pg_key);
	for (i = 0; i < hw->rg.nr; i = j) {
		for (j = i; j < hw->rg.nr && pg[j].key / per == pg[i].key / per; j++)
			;
		if (j - i != per)
			continue;
		for (k = i; k < j; k++)
			(*idx)[nr * per + k - i] = pg[k].i;
		nr++;
	}
	free(pg);
	return nr;
}

/* How the pages of a sampled layout fared. */
struct layout_tally {
	unsigned long pages[2][3];	/* [hot][samples: 0, 1, 2 or more] */
	unsigned long up[2][3];		/* of them, on a top-tier node */
};

static const char * const kind_name[2] = { "warm/unused", "hot" };

/* Where the pages of whole regions @idx are now, by kind and samples. */
static void layout_count(struct __test_metadata *_metadata, struct hw_buf *hw,
			 const unsigned long *idx, unsigned long nr_pages,
			 const unsigned char *hot, const unsigned char *samples,
			 struct layout_tally *t)
{
	struct residency r;
	unsigned long i;
	int c;

	memset(t, 0, sizeof(*t));
	EXPECT_EQ(query_residency(&hw->rg, &r), 0);
	for (i = 0; i < nr_pages; i++) {
		c = samples[i] > 2 ? 2 : samples[i];
		t->pages[hot[i]][c]++;
		t->up[hot[i]][c] += node_is_top(&pghot_topo,
						hw->rg.status[idx[i]]);
	}
}

static void layout_log(struct __test_metadata *_metadata, int nid,
		       const char *what, const struct layout_tally *t)
{
	int h, c;

	for (h = 1; h >= 0; h--)
		for (c = 2; c >= 0; c--)
			if (t->pages[h][c])
				TH_LOG("node %d, %s: %s, %s samples: %lu of %lu up (%.1f%%)",
				       nid, what, kind_name[h],
				       c == 2 ? ">= 2" : c ? "1" : "no",
				       t->up[h][c], t->pages[h][c],
				       pct(t->up[h][c], t->pages[h][c]));
}

/*
 * Inject @batches batches, @gap_ms apart: in each, @per_batch samples on
 * every whole region, one write per region, each sample on a page drawn by
 * @pick from the region's pages (a Poisson stream, as a sampler's is).
 * @samples counts each page's.
 */
static void layout_inject(struct __test_metadata *_metadata, struct hw_buf *hw,
			  const unsigned long *idx, unsigned long nr_regions,
			  unsigned int batches, unsigned int gap_ms,
			  unsigned int per_batch,
			  unsigned long (*pick)(unsigned long per),
			  unsigned char *samples)
{
	unsigned long per = REGION_BYTES / getpagesize();
	unsigned long *pfns = calloc(per_batch, sizeof(*pfns));
	unsigned long r, k, n;
	unsigned int b;

	ASSERT_NE(pfns, NULL);
	for (b = 0; b < batches; b++) {
		if (b)
			usleep(gap_ms * 1000);
		for (r = 0; r < nr_regions; r++) {
			for (n = 0; n < per_batch; n++) {
				k = pick(per);
				pfns[n] = hw->pfns[idx[r * per + k]];
				if (samples[r * per + k] < 255)
					samples[r * per + k]++;
			}
			ASSERT_EQ(inject_pfns(pfns, per_batch, -1), 0)
				TH_LOG("inject: %s", strerror(errno));
		}
	}
	free(pfns);
}

/* A sampled layout: its knobs, its hot pages and how they are sampled. */
struct layout_case {
	const char *threshold;		/* freq_threshold */
	const char *promote_window_ms;
	const char *region_ms;		/* hwhint_region_ms */
	unsigned int region_s;		/* waited first: earlier windows close */
	unsigned int hot_every;		/* page offsets 0, n, 2n, ... are hot */
	unsigned int batches, gap_ms, per_batch;	/* see layout_inject() */
	unsigned long (*pick)(unsigned long per);
	uint64_t seed;			/* plus the node */
};

struct layout_result {
	struct layout_tally t;
	unsigned long regions;		/* whole regions sampled */
	unsigned long region_hot;	/* pghot_region_hot delta */
	unsigned long pghot_promoted, promote_success;	/* deltas */
};

#define LAYOUT_PLACE_TRIES	3	/* more placements if too few whole regions */

/*
 * Place @size bytes on @nid with as many whole 2 MiB regions as can be
 * had: split huge pages if the kernel has them, else 4K pages, compacting
 * the node and placing again (up to LAYOUT_PLACE_TRIES more times) until
 * there are two. *@idx lists the buffer's pages region by region; the
 * number of whole regions.
 */
static unsigned long place_whole(struct __test_metadata *_metadata,
				 struct hw_buf *hw, size_t size, int nid,
				 unsigned long **idx)
{
	unsigned long nr, i;

	compact_node(nid);
	if (!place_split(hw, size, nid)) {
		nr = whole_regions(_metadata, hw, idx);
		if (nr >= 2)
			return nr;
		ksft_print_msg("split huge pages: %lu whole regions on node %d\n",
			       nr, nid);
		free(*idx);
		unplace(hw);
	}
	for (i = 0;; i++) {
		place(_metadata, hw, size, nid);
		nr = whole_regions(_metadata, hw, idx);
		if (nr >= 2 || i == LAYOUT_PLACE_TRIES)
			break;
		free(*idx);
		unplace(hw);
		compact_node(nid);
	}
	if (nr < 2)
		ksft_print_msg("%lu whole regions in %zu MiB placed on node %d, %lu tries\n",
			       nr, size >> 20, nid, i + 2);
	return nr;
}

/*
 * Place a buffer on @nid, sample its whole regions as @c says, wait for
 * promotion to stop (all pages with two samples or more up, or no
 * progress) and tell in @res where the pages ended; the buffer is gone
 * after.
 */
static void layout_run(struct __test_metadata *_metadata, struct hw_buf *hw,
		       int nid, const struct layout_case *c,
		       struct layout_result *res)
{
	unsigned long per = REGION_BYTES / getpagesize();
	unsigned long *idx, nr, i, hot0, prom0, succ0, expect;
	unsigned char *hot, *samples;
	struct progress p = { };

	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x2"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "freq_threshold", c->threshold), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "promote_window_ms", c->promote_window_ms), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "hwhint_region_ms", c->region_ms), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "hwhint_region_ref", "0"), 0);
	/* Earlier tests may leave the node's free memory in pieces. */
	nr = place_whole(_metadata, hw, SMALL_SIZE, nid, &idx);
	ASSERT_GE(nr, 2UL);
	hot = calloc(nr * per, 1);
	samples = calloc(nr * per, 1);
	ASSERT_NE(hot, NULL);
	ASSERT_NE(samples, NULL);
	for (i = 0; i < nr * per; i++)
		hot[i] = !(i % c->hot_every);
	/* The windows earlier tests opened on this memory are closed. */
	sleep(c->region_s);

	rnd_seed(c->seed + nid);
	hot0 = vmstat("pghot_region_hot");
	prom0 = vmstat("pghot_promoted");
	succ0 = vmstat("pgpromote_success");
	layout_inject(_metadata, hw, idx, nr, c->batches, c->gap_ms,
		      c->per_batch, c->pick, samples);
	for (i = 0, expect = 0; i < nr * per; i++)
		expect += samples[i] >= 2;
	do {
		usleep(200 * 1000);
		layout_count(_metadata, hw, idx, nr * per, hot, samples, &res->t);
	} while (!progress_done(&p, res->t.up[1][2] + res->t.up[0][2], expect,
				PROMOTE_STALL_S));
	sleep(SETTLE_S);
	layout_count(_metadata, hw, idx, nr * per, hot, samples, &res->t);
	res->regions = nr;
	res->region_hot = vmstat("pghot_region_hot") - hot0;
	res->pghot_promoted = vmstat("pghot_promoted") - prom0;
	res->promote_success = vmstat("pgpromote_success") - succ0;
	free(hot);
	free(samples);
	free(idx);
	unplace(hw);
}

/*
 * Mixed regions (the pages of a heap): in every whole region the pages at
 * even offsets are hot, those at odd ones warm, sampled 10 times less. At
 * freq_threshold=2 the regions are hot and a page needs two samples of
 * its own; the region remembers the first for its window, so samples far
 * more than promote_window_ms apart count. MIX_BATCHES batches
 * MIX_GAP_MS apart (more than promote_window_ms, so a page's record never
 * pairs samples of two batches), 3 samples per hot page and 0.3 per warm
 * page on average: 80% of the hot pages and 3.7% of the warm ones get
 * two or more. A hot region standing in for a sample would promote every
 * sampled page (a quarter of the warm ones).
 */
#define MIX_WINDOW_MS		"10000"
#define MIX_WINDOW_S		10
#define MIX_BATCHES		10
#define MIX_GAP_MS		300
#define MIX_PER_BATCH		84	/* 512 * (3 + 0.3) / 2 / MIX_BATCHES */
#define LAYOUT_SINGLE_MAX_PCT	5	/* pages with one sample promoted */
#define LAYOUT_PAIR_MIN_PCT	95	/* pages with two or more promoted */

/* Hot (even offsets) ten times as often as warm. */
static unsigned long pick_mixed(unsigned long per)
{
	if (rnd_below(11) < 10)
		return 2 * rnd_below(per / 2);
	return 2 * rnd_below(per / 2) + 1;
}

static void region_mixed_from(struct __test_metadata *_metadata,
			      struct hw_buf *hw, int nid)
{
	static const struct layout_case mixed = {
		.threshold = "2", .promote_window_ms = "200",
		.region_ms = MIX_WINDOW_MS, .region_s = MIX_WINDOW_S,
		.hot_every = 2, .batches = MIX_BATCHES, .gap_ms = MIX_GAP_MS,
		.per_batch = MIX_PER_BATCH, .pick = pick_mixed,
		.seed = 0x5eed0000ULL,
	};
	struct layout_result res;
	struct layout_tally *t = &res.t;

	layout_run(_metadata, hw, nid, &mixed, &res);
	TH_LOG("node %d: %lu whole regions, hot and warm pages interleaved; %lu regions hot",
	       nid, res.regions, res.region_hot);
	layout_log(_metadata, nid, "mixed", t);
	EXPECT_GE(res.region_hot, res.regions);
	/* Two samples of its own, however far apart in the window. */
	EXPECT_TRUE(reached_pct(t->up[1][2], t->pages[1][2], LAYOUT_PAIR_MIN_PCT));
	EXPECT_TRUE(reached_pct(t->up[0][2], t->pages[0][2], LAYOUT_PAIR_MIN_PCT));
	/* One sample is not enough, in a hot region or not. */
	EXPECT_LE(pct(t->up[1][1] + t->up[0][1], t->pages[1][1] + t->pages[0][1]),
		  LAYOUT_SINGLE_MAX_PCT);
	/* The warm set: what its own samples earn, and 5% at most. */
	EXPECT_LE(pct(t->up[0][0] + t->up[0][1] + t->up[0][2],
		      t->pages[0][0] + t->pages[0][1] + t->pages[0][2]), 5);
	EXPECT_EQ(t->up[1][0] + t->up[0][0], 0UL);
	/* kmigrated did it (no hint faults here). */
	EXPECT_EQ(res.pghot_promoted, res.promote_success);
}

TEST_F_TIMEOUT(hwhint, region_mixed, HWHINT_TEST_TIMEOUT_S)
{
	int i;

	for (i = 0; i < self->topo->nr_lower; i++)
		region_mixed_from(_metadata, &self->hw, self->topo->lower[i]);
}

/*
 * A sparse hot set: one page in 8 of every whole region hot, the others
 * allocated and never touched. At freq_threshold=1 and this rate the
 * regions stay below the bar (SPARSE_WINDOW_MS window, rates over at least
 * the 4 s promote_window_ms: 192 samples over 12 s is under half of what
 * 512 pages at one sample each per window take), so a page needs two
 * samples; as the samples fall on few of the region's pages, they count
 * over the region's window. SPARSE_BATCHES batches SPARSE_GAP_S apart,
 * each with 64 samples per region on its hot pages: 3 per hot page on
 * average. A page record's window alone pairs only the samples of one
 * batch (about three in four of the pages with two or more).
 */
#define SPARSE_WINDOW_MS	"20000"
#define SPARSE_WINDOW_S		20
#define SPARSE_BATCHES		3
#define SPARSE_GAP_S		6
#define SPARSE_EVERY		8

static unsigned long pick_sparse(unsigned long per)
{
	return SPARSE_EVERY * rnd_below(per / SPARSE_EVERY);
}

static void region_sparse_from(struct __test_metadata *_metadata,
			       struct hw_buf *hw, int nid)
{
	const struct layout_case sparse = {
		.threshold = "1", .promote_window_ms = "4000",
		.region_ms = SPARSE_WINDOW_MS, .region_s = SPARSE_WINDOW_S,
		.hot_every = SPARSE_EVERY, .batches = SPARSE_BATCHES,
		.gap_ms = SPARSE_GAP_S * 1000,
		/* Once per hot page on average. */
		.per_batch = REGION_BYTES / getpagesize() / SPARSE_EVERY,
		.pick = pick_sparse, .seed = 0x5ba5e000ULL,
	};
	struct layout_result res;
	struct layout_tally *t = &res.t;

	layout_run(_metadata, hw, nid, &sparse, &res);
	TH_LOG("node %d: %lu whole regions, one page in %d hot; %lu regions hot",
	       nid, res.regions, SPARSE_EVERY, res.region_hot);
	layout_log(_metadata, nid, "sparse", t);
	TH_LOG("node %d, sparse: %.1f%% of the hot pages promoted", nid,
	       pct(t->up[1][0] + t->up[1][1] + t->up[1][2],
		   t->pages[1][0] + t->pages[1][1] + t->pages[1][2]));
	/* Below the bar throughout: the case under test. */
	EXPECT_EQ(res.region_hot, 0UL);
	EXPECT_TRUE(reached_pct(t->up[1][2], t->pages[1][2], LAYOUT_PAIR_MIN_PCT));
	/* The untouched pages stay. */
	EXPECT_EQ(t->up[0][0], 0UL);
}

TEST_F_TIMEOUT(hwhint, region_sparse, HWHINT_TEST_TIMEOUT_S)
{
	int i;

	for (i = 0; i < self->topo->nr_lower; i++)
		region_sparse_from(_metadata, &self->hw, self->topo->lower[i]);
}

static void source_off_from(struct __test_metadata *_metadata,
			    struct hw_buf *hw, int nid)
{
	unsigned long rec0, rep0, top;

	place(_metadata, hw, SMALL_SIZE, nid);
	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x1"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "freq_threshold", "1"), 0);
	rec0 = vmstat("pghot_recorded_hwhints");
	rep0 = vmstat("pghot_reported_hwhints");

	inject_all(_metadata, hw);
	sleep(SETTLE_S);
	top = promoted(_metadata, hw);
	TH_LOG("node %d, 0x1: %lu of %lu promoted, recorded_hwhints +%lu, reported_hwhints +%lu",
	       nid, top, hw->rg.nr, vmstat("pghot_recorded_hwhints") - rec0,
	       vmstat("pghot_reported_hwhints") - rep0);
	EXPECT_EQ(top, 0UL);
	EXPECT_EQ(vmstat("pghot_recorded_hwhints"), rec0);
	EXPECT_GE(vmstat("pghot_reported_hwhints") - rep0, hw->rg.nr);
	unplace(hw);
}

TEST_F_TIMEOUT(hwhint, source_off, HWHINT_TEST_TIMEOUT_S)
{
	int i;

	for (i = 0; i < self->topo->nr_lower; i++)
		source_off_from(_metadata, &self->hw, self->topo->lower[i]);
}

TEST_F(hwhint, bad_input)
{
	static const char * const bad[] = {
		"abc", "0x", "-1", "1x", "0xfffffffffffff", "\n", " ",
		"%s:99", "%s:-1", "%s:", "%s %s:abc", "%s junk",
	};
	char text[128], pfn[32];
	unsigned long rep0;
	unsigned int i;

	place(_metadata, &self->hw, 1UL << 20, self->topo->lower[0]);
	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x2"), 0);
	snprintf(pfn, sizeof(pfn), "0x%lx", self->hw.pfns[0]);
	rep0 = vmstat("pghot_reported_hwhints");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text), bad[i], pfn, pfn);
		EXPECT_EQ(write_err(INJECT, text), EINVAL)
			TH_LOG("inject \"%s\" was accepted", text);
	}
	/* A NUL ends the string, not the write: "PFN\0 PFN" is garbage. */
	snprintf(text, sizeof(text), "%s%c %s", pfn, '\0', pfn);
	EXPECT_EQ(write_raw(INJECT, text, 2 * strlen(pfn) + 2), -1);
	EXPECT_EQ(errno, EINVAL);
	snprintf(text, sizeof(text), "%s%c", pfn, '\0');
	EXPECT_EQ(write_raw(INJECT, text, strlen(pfn) + 1), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(vmstat("pghot_reported_hwhints"), rep0);
	/* And a good one still goes through. */
	snprintf(text, sizeof(text), "%s:%d", pfn, topo_cpu_node(self->topo));
	EXPECT_EQ(write_err(INJECT, text), 0);
	EXPECT_EQ(vmstat("pghot_reported_hwhints"), rep0 + 1);
}

/* CPUs in /sys/devices/system/cpu/possible ("0-3,8"). */
static long possible_cpus(void)
{
	char buf[256], *p;
	long n = 0;

	if (read_str("/sys/devices/system/cpu/possible", buf, sizeof(buf)))
		return -1;
	for (p = strtok(buf, ","); p; p = strtok(NULL, ",")) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (end == p || *end)
			return -1;
		n += b - a + 1;
	}
	return n;
}

TEST_F(hwhint, rings)
{
	char val[64];
	long cpus = possible_cpus();

	ASSERT_GT(cpus, 0);
	place(_metadata, &self->hw, 1UL << 20, self->topo->lower[0]);
	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x2"), 0);
	snprintf(val, sizeof(val), "0x%lx", self->hw.pfns[0]);
	ASSERT_EQ(write_err(INJECT, val), 0);

	ASSERT_TRUE(stats_line("hwhint_provider inject ", val, sizeof(val)));
	EXPECT_STREQ(val, "on\n");
	ASSERT_TRUE(stats_line("hwhint_ring_bytes ", val, sizeof(val)));
	TH_LOG("hardware hint rings: %s bytes for %ld possible CPUs",
	       strtok(val, "\n"), cpus);
	EXPECT_EQ(strtoul(val, NULL, 10),
		  (unsigned long)cpus * RING_SAMPLES * SAMPLE_BYTES);
}

TEST_F(hwhint, ibs_absent)
{
	char val[16];

	if (!access(IBS_PMU, F_OK)) {
		/* IBS here: the provider's directory must be too, if built. */
		if (access(PGHOT_DIR "ibs", F_OK)) {
			ASSERT_EQ(kernel_config("CONFIG_PGHOT_IBS"), 0)
				TH_LOG("IBS and its provider, but no " PGHOT_DIR "ibs");
			SKIP(return, "IBS here, no provider (CONFIG_PGHOT_IBS=n)");
		}
		ASSERT_EQ(read_str(IBS_ENABLED, val, sizeof(val)), 0);
		EXPECT_TRUE(!strcmp(val, "0") || !strcmp(val, "1"));
		return;
	}
	/* Where IBS cannot work, nothing of it shows. */
	EXPECT_NE(access(PGHOT_DIR "ibs", F_OK), 0);
	EXPECT_EQ(errno, ENOENT);
	EXPECT_FALSE(stats_line("hwhint_provider ibs_op", NULL, 0));
	EXPECT_FALSE(stats_line("ibs_op ", NULL, 0));
	/* The hardware hint path still works. */
	place(_metadata, &self->hw, 1UL << 20, self->topo->lower[0]);
	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x2"), 0);
	snprintf(val, sizeof(val), "0x%lx", self->hw.pfns[0]);
	EXPECT_EQ(write_err(INJECT, val), 0);
}

/* A perf event on ibs_op for this task, as perf record would open; or -1. */
static int ibs_perf_open(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.sample_period = 0x100000,
		.disabled = 1,
	};
	unsigned long type;
	char val[32];

	if (read_str(IBS_PMU "/type", val, sizeof(val)))
		return -1;
	type = strtoul(val, NULL, 10);
	attr.type = type;
	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

/* The "total samples N" of ibs/stats. */
static unsigned long ibs_samples(void)
{
	char line[512];
	unsigned long n = ULONG_MAX;
	FILE *f = fopen(IBS_STATS, "r");

	if (!f)
		return ULONG_MAX;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "total samples %lu", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Load from memory for @secs seconds, so that ops miss the caches. */
static void busy_loads(double secs)
{
	const size_t size = 64UL << 20;
	char *buf = malloc(size);
	struct timespec t0, t;
	size_t i = 0, x = 0;

	if (!buf)
		return;
	memset(buf, 1, size);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int k = 0; k < 100000; k++) {
			/* Each load depends on the last: none is left out. */
			x += buf[(i + x) % size] & 1;
			i = (i + 4096 * 7 + 64) % size;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	free(buf);
	if (x == 42)
		printf("#\n");
}

TEST_F(hwhint, ibs_armed)
{
	unsigned long s0, s1, s2, t0, t1, t2;
	int fd;

	if (access(IBS_PMU, F_OK))
		SKIP(return, "no IBS op PMU (%s)", IBS_PMU);
	if (access(IBS_ENABLED, F_OK))
		SKIP(return, "IBS here, no provider (CONFIG_PGHOT_IBS=n)");
	ASSERT_EQ(write_err(IBS_ENABLED, "0"), 0);
	ASSERT_EQ(write_err(PGHOT_DIR "enabled_sources", "0x2"), 0);

	/* perf first: pghot must not take the unit from it. */
	fd = ibs_perf_open();
	ASSERT_GE(fd, 0) TH_LOG("perf_event_open on ibs_op: %s", strerror(errno));
	EXPECT_EQ(write_err(IBS_ENABLED, "1"), EBUSY);
	close(fd);

	/* Armed: samples arrive, and perf is refused. */
	ASSERT_EQ(write_err(IBS_ENABLED, "1"), 0);
	s0 = ibs_samples();
	t0 = vmstat("hwhint_total_events");
	busy_loads(2);
	s1 = ibs_samples();
	t1 = vmstat("hwhint_total_events");
	TH_LOG("armed: %lu samples in 2 s (ibs/stats), hwhint_total_events +%lu",
	       s1 - s0, t1 - t0);
	EXPECT_NE(s1, ULONG_MAX);
	EXPECT_GT(s1, s0);
	EXPECT_GT(t1, t0);
	fd = ibs_perf_open();
	EXPECT_LT(fd, 0);
	EXPECT_EQ(errno, EBUSY);
	if (fd >= 0)
		close(fd);

	/* Disarmed: nothing more. */
	ASSERT_EQ(write_err(IBS_ENABLED, "0"), 0);
	s1 = ibs_samples();
	t1 = vmstat("hwhint_total_events");
	busy_loads(1);
	s2 = ibs_samples();
	t2 = vmstat("hwhint_total_events");
	EXPECT_EQ(s2, s1);
	EXPECT_EQ(t2, t1);
	/* And perf has the unit back. */
	fd = ibs_perf_open();
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
}

TEST_HARNESS_MAIN
