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

#include <ctype.h>
#include <dirent.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define TOP_NODE		0	/* the task runs here */
#define PEER_NODE		1	/* other top-tier node */
#define SLOW_NODE		2	/* CPU-less lower-tier node */

#define BUF_SIZE		(256UL << 20)
#define ACCESS_STRIDE		4096UL
#define PLACED_PCT		99	/* on SLOW_NODE before the run */
#define PROMOTED_PCT		99
#define PROMOTE_TIMEOUT_S	60
#define CHECK_INTERVAL_MS	1000
#define PROMOTE_TEST_TIMEOUT_S	(PROMOTE_TIMEOUT_S + 120)

#define NUMAB_MODE_TIERING	"2"
#define SCAN_DELAY_MS		"0"
#define SCAN_PERIOD_MIN_MS	"100"
#define SCAN_SIZE_MB		"1024"

#define MEMTIER_DIR		"/sys/devices/virtual/memory_tiering"
#define NUMAB_SYSCTL		"/proc/sys/kernel/numa_balancing"
#define NUMAB_DEBUGFS		"/sys/kernel/debug/sched/numa_balancing/"

/*
 * Does the range list @list ("0-1", "2", "0,2-3", "" ...) contain @nid?
 * Returns 1 or 0, or -1 if @list is malformed.
 */
static int nodelist_has(const char *list, int nid)
{
	const char *p = list;
	unsigned long lo, hi;
	char *end;

	while (*p && *p != '\n') {
		if (!isdigit((unsigned char)*p))
			return -1;
		lo = strtoul(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				return -1;
			hi = strtoul(p, &end, 10);
			if (hi < lo)
				return -1;
		}
		if ((unsigned long)nid >= lo && (unsigned long)nid <= hi)
			return 1;
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return 0;
}

static int read_str(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -1;
	if (!fgets(buf, size, f))
		ret = -1;
	fclose(f);
	if (!ret)
		buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

static int write_str(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -1;
	if (fputs(val, f) < 0)
		ret = -1;
	if (fclose(f))
		ret = -1;
	return ret;
}

/*
 * Memory tier of @nid: the N of the memory_tierN directory whose nodelist
 * holds it. A larger N is a larger abstract distance, i.e. a slower tier.
 * Returns -1 if no tier lists @nid, -2 on a read or parse error.
 */
static int node_memtier(int nid)
{
	char path[512], list[256];
	struct dirent *de;
	int tier = -1, id;
	DIR *dir;

	dir = opendir(MEMTIER_DIR);
	if (!dir)
		return -2;
	while ((de = readdir(dir))) {
		if (sscanf(de->d_name, "memory_tier%d", &id) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s/nodelist", MEMTIER_DIR,
			 de->d_name);
		if (read_str(path, list, sizeof(list))) {
			tier = -2;
			break;
		}
		switch (nodelist_has(list, nid)) {
		case 1:
			tier = id;
			break;
		case 0:
			continue;
		default:
			tier = -2;
		}
		break;
	}
	closedir(dir);
	return tier;
}

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

static int read_vmstat(const char *name, unsigned long long *val)
{
	size_t len = strlen(name);
	char line[256];
	int ret = -1;
	FILE *f;

	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, len) && line[len] == ' ') {
			*val = strtoull(line + len + 1, NULL, 10);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* A read and a write of *p that the compiler may neither drop nor merge. */
static void touch_word(unsigned long *p)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

/* A sysctl or debugfs knob the test changes and restores. */
struct knob {
	const char *path;
	const char *val;	/* what the test writes */
	char saved[64];
	bool present;
	bool changed;
};

enum {
	KNOB_NUMAB,
	KNOB_SCAN_DELAY,
	KNOB_SCAN_PERIOD_MIN,
	KNOB_SCAN_SIZE,
	NR_KNOBS,
};

static const struct knob knob_init[NR_KNOBS] = {
	[KNOB_NUMAB] = { NUMAB_SYSCTL, NUMAB_MODE_TIERING },
	[KNOB_SCAN_DELAY] = { NUMAB_DEBUGFS "scan_delay_ms", SCAN_DELAY_MS },
	[KNOB_SCAN_PERIOD_MIN] = { NUMAB_DEBUGFS "scan_period_min_ms",
				   SCAN_PERIOD_MIN_MS },
	[KNOB_SCAN_SIZE] = { NUMAB_DEBUGFS "scan_size_mb", SCAN_SIZE_MB },
};

/*
 * The teardown runs in the parent so that the knobs are restored even if
 * the test process dies (an ASSERT, a signal, the OOM killer); the fixture
 * data is then shared with it. The setup only reads: a SKIP or ASSERT in
 * the setup skips the teardown, so nothing may change before the test body.
 */
FIXTURE(promote)
{
	struct knob knobs[NR_KNOBS];
};

FIXTURE_SETUP(promote)
{
	long long free_slow, free_top;
	int i;

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
	if (numa_node_size64(SLOW_NODE, &free_slow) < 0 ||
	    free_slow < (long long)BUF_SIZE * 2)
		SKIP(return, "node %d has less than %lu MiB free",
		     SLOW_NODE, BUF_SIZE * 2 >> 20);
	if (numa_node_size64(TOP_NODE, &free_top) < 0 ||
	    free_top < (long long)BUF_SIZE * 2)
		SKIP(return, "node %d has less than %lu MiB free",
		     TOP_NODE, BUF_SIZE * 2 >> 20);

	for (i = 0; i < NR_KNOBS; i++) {
		struct knob *k = &self->knobs[i];

		if (access(k->path, F_OK)) {
			ksft_print_msg("%s missing, keeping its default\n",
				       k->path);
			continue;
		}
		ASSERT_EQ(read_str(k->path, k->saved, sizeof(k->saved)), 0)
			TH_LOG("cannot read %s", k->path);
		k->present = true;
	}
}

FIXTURE_TEARDOWN_PARENT(promote)
{
	int i;

	for (i = NR_KNOBS - 1; i >= 0; i--) {
		struct knob *k = &self->knobs[i];

		if (!k->changed)
			continue;
		EXPECT_EQ(write_str(k->path, k->saved), 0)
			TH_LOG("cannot restore %s to %s", k->path, k->saved);
	}
}

static void set_knob(struct __test_metadata *_metadata, struct knob *k)
{
	if (!k->present)
		return;
	k->changed = true;
	ASSERT_EQ(write_str(k->path, k->val), 0)
		TH_LOG("cannot write %s to %s", k->val, k->path);
}

struct residency {
	unsigned long slow, top, other, missing;
};

static int query_residency(void **pages, int *status, unsigned long nr,
			   struct residency *r)
{
	unsigned long i;

	memset(r, 0, sizeof(*r));
	if (move_pages(0, nr, pages, NULL, status, 0))
		return -1;
	for (i = 0; i < nr; i++) {
		if (status[i] == SLOW_NODE)
			r->slow++;
		else if (status[i] == TOP_NODE || status[i] == PEER_NODE)
			r->top++;
		else if (status[i] >= 0)
			r->other++;
		else
			r->missing++;
	}
	return 0;
}

static bool reached_pct(unsigned long part, unsigned long total, int pct)
{
	return part * 100 >= total * pct;
}

TEST_F_TIMEOUT(promote, promote_nb2, PROMOTE_TEST_TIMEOUT_S)
{
	unsigned long nr = BUF_SIZE / ACCESS_STRIDE, i, pass = 0;
	unsigned long long promoted_before, promoted_after;
	unsigned long slow_mask = 1UL << SLOW_NODE;
	double start, elapsed, last_check;
	struct residency r;
	void **pages;
	int *status;
	char *buf;

	ASSERT_EQ(numa_run_on_node(TOP_NODE), 0);

	pages = calloc(nr, sizeof(*pages));
	status = calloc(nr, sizeof(*status));
	ASSERT_NE(pages, NULL);
	ASSERT_NE(status, NULL);

	buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(buf, MAP_FAILED);
	/* This test covers the 4K path; keep THP out of it. */
	ASSERT_EQ(madvise(buf, BUF_SIZE, MADV_NOHUGEPAGE), 0);
	for (i = 0; i < nr; i++)
		pages[i] = buf + i * ACCESS_STRIDE;

	/* Scan fast once balancing is on; it is still off for now. */
	set_knob(_metadata, &self->knobs[KNOB_SCAN_DELAY]);
	set_knob(_metadata, &self->knobs[KNOB_SCAN_PERIOD_MIN]);
	set_knob(_metadata, &self->knobs[KNOB_SCAN_SIZE]);

	/*
	 * Fault the buffer in on the slow node, then drop the policy again:
	 * NUMA balancing never scans an MPOL_BIND range.
	 */
	ASSERT_EQ(mbind(buf, BUF_SIZE, MPOL_BIND, &slow_mask,
			sizeof(slow_mask) * 8, 0), 0);
	for (i = 0; i < nr; i++)
		touch_word((unsigned long *)(buf + i * ACCESS_STRIDE));
	ASSERT_EQ(mbind(buf, BUF_SIZE, MPOL_DEFAULT, NULL, 0, 0), 0);

	ASSERT_EQ(query_residency(pages, status, nr, &r), 0);
	ASSERT_TRUE(reached_pct(r.slow, nr, PLACED_PCT))
		TH_LOG("only %lu of %lu pages on node %d (top %lu, other %lu, missing %lu)",
		       r.slow, nr, SLOW_NODE, r.top, r.other, r.missing);

	ASSERT_EQ(read_vmstat("pgpromote_success", &promoted_before), 0);
	set_knob(_metadata, &self->knobs[KNOB_NUMAB]);

	start = now_s();
	last_check = start;
	do {
		for (i = 0; i < nr; i++)
			touch_word((unsigned long *)(buf + i * ACCESS_STRIDE));
		pass++;
		if ((now_s() - last_check) * 1000 < CHECK_INTERVAL_MS)
			continue;
		last_check = now_s();
		ASSERT_EQ(query_residency(pages, status, nr, &r), 0);
		if (reached_pct(r.top, nr, PROMOTED_PCT))
			break;
	} while (now_s() - start < PROMOTE_TIMEOUT_S);
	elapsed = now_s() - start;

	ASSERT_EQ(query_residency(pages, status, nr, &r), 0);
	ASSERT_EQ(read_vmstat("pgpromote_success", &promoted_after), 0);

	ksft_print_msg("promoted %.2f%% of %lu pages in %.1f s (%lu passes)\n",
		       100.0 * r.top / nr, nr, elapsed, pass);
	ksft_print_msg("pages: node %d %lu, top tier %lu, other %lu, missing %lu\n",
		       SLOW_NODE, r.slow, r.top, r.other, r.missing);
	ksft_print_msg("pgpromote_success delta %llu\n",
		       promoted_after - promoted_before);

	EXPECT_TRUE(reached_pct(r.top, nr, PROMOTED_PCT))
		TH_LOG("less than %d%% promoted within %d s",
		       PROMOTED_PCT, PROMOTE_TIMEOUT_S);
	EXPECT_GT(promoted_after, promoted_before)
		TH_LOG("pgpromote_success did not move");

	munmap(buf, BUF_SIZE);
	free(status);
	free(pages);
}

TEST_HARNESS_MAIN
