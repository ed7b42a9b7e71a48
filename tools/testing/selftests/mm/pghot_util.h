/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the pghot kselftests.
 *
 * The tests assume no node numbers: they read the box's memory tiers from
 * sysfs (struct topology, pghot_topology.h) and run against every
 * lower-tier node with memory they find, from the first top-tier node with
 * CPUs. A box without a lower tier skips them, with the reason.
 */
#ifndef __PGHOT_UTIL_H
#define __PGHOT_UTIL_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "pghot_topology.h"
#include "pghot_vmstat.h"

#define PAGE_STRIDE		4096UL	/* one access per 4K page */

#define PLACED_PCT		99	/* on the lower-tier node before the run */
#define PROMOTED_PCT		99	/* on the top tier after the run */
#define PROMOTE_TIMEOUT_S	60	/* an access loop, unless still promoting */
#define PROMOTE_STALL_S		10	/* a wait for promotion without progress */
#define PROMOTE_MAX_S		150	/* an access loop that still promotes */
/*
 * The tests that run once per lower-tier node have harness timeouts for
 * this many; beyond it a test only fails by timeout if promotion fails.
 */
#define TIMED_LOWER_NODES	4
#define CHECK_INTERVAL_MS	1000	/* residency check period */

#define NUMAB_SYSCTL		"/proc/sys/kernel/numa_balancing"
#define NUMAB_DEBUGFS		"/sys/kernel/debug/sched/numa_balancing/"

/* Write all of @val to @path in one write(2); 0 or -1. */
static inline int write_str(const char *path, const char *val)
{
	size_t len = strlen(val);

	return write_raw(path, val, len) == (ssize_t)len ? 0 : -1;
}

/*
 * @dir and @name joined by one slash into @buf of @size bytes (PGHOT_DIR
 * ends in a slash, its subdirectories do not). 0, or -1 if it does not
 * fit.
 */
static inline int path_join(char *buf, size_t size, const char *dir,
			    const char *name)
{
	size_t len = strlen(dir);
	const char *sep = len && dir[len - 1] == '/' ? "" : "/";
	int n = snprintf(buf, size, "%s%s%s", dir, sep, name);

	return n >= 0 && (size_t)n < size ? 0 : -1;
}

/*
 * Read exactly @len bytes from @fd (a pipe returns what is there, a large
 * message in parts). Returns @len, or what read() returned when it ended
 * early (0 at end of file, -1 on error).
 */
static inline ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = read(fd, (char *)buf + done, len - done);
		if (n <= 0)
			return n;
		done += n;
	}
	return len;
}

/* "node0 tier 1 cpus 1" ... and the top-tier and lower-tier lists. */
static inline void topology_print(const struct topology *t)
{
	char top[256] = "", lower[256] = "";
	size_t lt = 0, ll = 0;
	int i;

	for (i = 0; i < t->nr_top && lt < sizeof(top); i++)
		lt += snprintf(top + lt, sizeof(top) - lt, "%s%d%s", i ? " " : "",
			       t->top[i], t->nr_cpus[t->top[i]] ? "" : "(no CPUs)");
	for (i = 0; i < t->nr_lower && ll < sizeof(lower); i++)
		ll += snprintf(lower + ll, sizeof(lower) - ll, "%s%d",
			       i ? " " : "", t->lower[i]);
	ksft_print_msg("top tier (up to memory_tier%d): nodes %s; lower tier: nodes %s\n",
		       t->top_tier, top[0] ? top : "none",
		       lower[0] ? lower : "none");
}

/* The topology a test process read first; see tiered_topology(). */
static struct topology pghot_topo;
static bool pghot_topo_read;

/*
 * The box's topology, read once per test process. For test and fixture
 * setups: SKIP (and return NULL) where the box has no memory tiering or
 * no lower tier; fail if sysfs cannot be read or parsed.
 */
static inline const struct topology *
tiered_topology(struct __test_metadata *_metadata)
{
	const char *reason;

	if (!pghot_topo_read) {
		if (access(NODE_DIR "/online", F_OK))
			SKIP(return NULL, "%s missing (no NUMA)", NODE_DIR);
		if (access(MEMTIER_DIR, F_OK))
			SKIP(return NULL, "%s missing (no memory tiering support)",
			     MEMTIER_DIR);
		ASSERT_EQ(topology_read(&pghot_topo), 0)
			TH_LOG("cannot read the tiers from sysfs: %s",
			       strerror(errno));
		pghot_topo_read = true;
		topology_print(&pghot_topo);
	}
	reason = topology_unsupported(&pghot_topo);
	if (reason)
		SKIP(return NULL, "%s", reason);
	return &pghot_topo;
}

/*
 * Fixture setup: SKIP, and return false, unless every lower-tier node and
 * the node the tests run on each have at least @bytes free.
 */
static inline bool nodes_have_free(struct __test_metadata *_metadata,
				   const struct topology *t,
				   unsigned long bytes)
{
	long long avail;
	int i, nid;

	for (i = -1; i < t->nr_lower; i++) {
		nid = i < 0 ? topo_cpu_node(t) : t->lower[i];
		if (numa_node_size64(nid, &avail) < 0 ||
		    avail < (long long)bytes)
			SKIP(return false, "node %d has less than %lu MiB free",
			     nid, bytes >> 20);
	}
	return true;
}

/*
 * Is @opt (e.g. "CONFIG_PGHOT_IBS") built in to the running kernel? From
 * /proc/config.gz, else /boot/config-<release>: 1 if "=y", 0 if not, -1
 * if neither can be read.
 */
static inline int kernel_config(const char *opt)
{
	static const char * const configs[] = {
		"zcat /proc/config.gz 2>/dev/null", "cat /boot/config-%s 2>/dev/null",
	};
	char cmd[512], line[256], want[128];
	int ret = -1, lines;
	struct utsname u;
	unsigned int i;
	FILE *f;

	if (uname(&u))
		return -1;
	snprintf(want, sizeof(want), "%s=y\n", opt);
	for (i = 0; i < ARRAY_SIZE(configs) && ret < 0; i++) {
		snprintf(cmd, sizeof(cmd), configs[i], u.release);
		f = popen(cmd, "r");
		if (!f)
			continue;
		lines = 0;
		ret = 0;
		while (fgets(line, sizeof(line), f)) {
			lines++;
			if (!strcmp(line, want))
				ret = 1;
		}
		pclose(f);
		if (!lines)
			ret = -1;
	}
	return ret;
}

/*
 * Read the /proc/vmstat counters @names[0] .. @names[@nr - 1] into @vals,
 * in one pass. Returns -1 if one is missing.
 */
static inline int read_vmstat_list(const char * const *names,
				   unsigned long long *vals, int nr)
{
	/*
	 * Node counters such as pgpromote_success sit partly in per-CPU
	 * deltas: fold them first (root only), so that they compare exactly
	 * with the events.
	 */
	write_str("/proc/sys/vm/stat_refresh", "1");
	return vmstat_read(names, vals, NULL, nr) == nr ? 0 : -1;
}

/* The /proc/vmstat counter @name; -1 if it is missing. */
static inline int read_vmstat(const char *name, unsigned long long *val)
{
	return read_vmstat_list(&name, val, 1);
}

/*
 * The /proc/vmstat counters the pghot tests compare before and after, by
 * name: what moved pages and by which path, why a ready page did not
 * move, what the fault path saw, and what reclaim moved down meanwhile.
 */
enum pghot_vm {
	VM_PROMOTE_SUCCESS,
	VM_PROMOTED,
	VM_HINTFAULT_LEGACY,
	VM_PAGES_MIGRATED,
	VM_RECORDED_ACCESSES,
	VM_RECORDED_HINTFAULTS,
	VM_RECORDED_HWHINTS,
	VM_READY,
	VM_DEFERRED,
	VM_IGNORED_OFFLINE,
	VM_IGNORED_TOPTIER,
	VM_IGNORED_UNTRACKED,
	VM_IGNORED_NONLRU,
	VM_IGNORED_KSM,
	VM_POLICY,
	VM_POLICY_UNKNOWN,
	VM_PINNED,
	VM_STALE,
	VM_NO_TARGET,
	VM_RATELIMITED,
	VM_TARGET_FULL,
	VM_ISOLATE_FAILED,
	VM_FAILED,
	VM_PINGPONG,
	VM_HINT_FAULTS,
	VM_PROMOTE_CANDIDATE,
	VM_DEMOTE_KSWAPD,
	VM_DEMOTE_DIRECT,
	VM_DEMOTE_KHUGEPAGED,
	VM_DEMOTE_PROACTIVE,
	VM_SCAN_KSWAPD,
	VM_STEAL_KSWAPD,
	VM_OOM_KILL,
	NR_VM,
};

static const char * const vm_names[NR_VM] = {
	[VM_PROMOTE_SUCCESS] = "pgpromote_success",
	[VM_PROMOTED] = "pghot_promoted",
	[VM_HINTFAULT_LEGACY] = "pghot_hintfault_legacy",
	[VM_PAGES_MIGRATED] = "numa_pages_migrated",
	[VM_RECORDED_ACCESSES] = "pghot_recorded_accesses",
	[VM_RECORDED_HINTFAULTS] = "pghot_recorded_hintfaults",
	[VM_RECORDED_HWHINTS] = "pghot_recorded_hwhints",
	[VM_READY] = "pghot_ready",
	[VM_DEFERRED] = "pghot_ready_deferred",
	[VM_IGNORED_OFFLINE] = "pghot_ignored_offline",
	[VM_IGNORED_TOPTIER] = "pghot_ignored_toptier",
	[VM_IGNORED_UNTRACKED] = "pghot_ignored_untracked",
	[VM_IGNORED_NONLRU] = "pghot_ignored_nonlru",
	[VM_IGNORED_KSM] = "pghot_ignored_ksm",
	[VM_POLICY] = "pghot_promote_policy",
	[VM_POLICY_UNKNOWN] = "pghot_promote_policy_unknown",
	[VM_PINNED] = "pghot_promote_pinned",
	[VM_STALE] = "pghot_promote_stale",
	[VM_NO_TARGET] = "pghot_promote_no_target",
	[VM_RATELIMITED] = "pghot_promote_ratelimited",
	[VM_TARGET_FULL] = "pghot_promote_target_full",
	[VM_ISOLATE_FAILED] = "pghot_promote_isolate_failed",
	[VM_FAILED] = "pghot_promote_failed",
	[VM_PINGPONG] = "pghot_promote_pingpong",
	[VM_HINT_FAULTS] = "numa_hint_faults",
	[VM_PROMOTE_CANDIDATE] = "pgpromote_candidate",
	[VM_DEMOTE_KSWAPD] = "pgdemote_kswapd",
	[VM_DEMOTE_DIRECT] = "pgdemote_direct",
	[VM_DEMOTE_KHUGEPAGED] = "pgdemote_khugepaged",
	[VM_DEMOTE_PROACTIVE] = "pgdemote_proactive",
	[VM_SCAN_KSWAPD] = "pgscan_kswapd",
	[VM_STEAL_KSWAPD] = "pgsteal_kswapd",
	[VM_OOM_KILL] = "oom_kill",
};

struct vmstats {
	unsigned long long v[NR_VM];
};

/* Read every counter of vm_names[] into @s; fails the test if one is missing. */
static inline void read_vmstats(struct __test_metadata *_metadata,
				struct vmstats *s)
{
	ASSERT_EQ(read_vmstat_list(vm_names, s->v, NR_VM), 0);
}

/* How much counter @i of vm_names[] grew from @a to @b. */
static inline unsigned long long vm_delta(const struct vmstats *a,
					  const struct vmstats *b, int i)
{
	return b->v[i] - a->v[i];
}

/* Pages reclaim demoted from @a to @b, by any path (every pgdemote_*). */
static inline unsigned long long vm_demoted(const struct vmstats *a,
					    const struct vmstats *b)
{
	return vm_delta(a, b, VM_DEMOTE_KSWAPD) +
	       vm_delta(a, b, VM_DEMOTE_DIRECT) +
	       vm_delta(a, b, VM_DEMOTE_KHUGEPAGED) +
	       vm_delta(a, b, VM_DEMOTE_PROACTIVE);
}

/* Print the counters that grew from @a to @b. */
static inline void print_deltas(const struct vmstats *a,
				const struct vmstats *b)
{
	int i;

	for (i = 0; i < NR_VM; i++)
		if (vm_delta(a, b, i))
			ksft_print_msg("  %s +%llu\n", vm_names[i],
				       vm_delta(a, b, i));
}

/*
 * The path counters (pghot_promoted, pgpromote_success and
 * pghot_hintfault_legacy, into @v in that order) once promotion has come
 * to rest: kmigrated may still finish a batch after the caller stopped
 * waiting for pages, and counts pgpromote_success for it (in
 * migrate_misplaced_folios()) before pghot_promoted, so readings taken
 * during a batch are a batch apart. Reads them in one pass until two
 * readings 200 ms apart agree, for at most 5 s. Returns -1 if one is
 * missing.
 */
static inline int read_path_counters(unsigned long long v[3])
{
	static const char * const names[] = {
		"pghot_promoted", "pgpromote_success", "pghot_hintfault_legacy",
	};
	unsigned long long last[3];
	int tries;

	if (read_vmstat_list(names, v, 3))
		return -1;
	for (tries = 0; tries < 25; tries++) {
		memcpy(last, v, sizeof(last));
		usleep(200 * 1000);
		if (read_vmstat_list(names, v, 3))
			return -1;
		if (!memcmp(last, v, sizeof(last)))
			break;
	}
	return 0;
}

/*
 * Did kmigrated do the promoting? @promoted (pghot_promoted) of @success
 * (pgpromote_success) pages moved, with @legacy NUMA hint faults left to
 * the fault path (pghot_hintfault_legacy: faults kmigrated could not take,
 * among them those that came while it had two batches queued, which the
 * faulting task migrates itself). With none left to it, kmigrated did it
 * all; else at least half, and the fault path no more than the faults
 * left to it.
 */
static inline bool kmigrated_did_it(unsigned long long promoted,
				    unsigned long long success,
				    unsigned long long legacy)
{
	if (promoted > success)
		return false;
	if (!legacy)
		return promoted == success;
	return promoted * 2 >= success && success - promoted <= legacy;
}

/* A read and a write of *p that the compiler may neither drop nor merge. */
static inline void touch_word(unsigned long *p)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline bool reached_pct(unsigned long part, unsigned long total,
			       int pct)
{
	return part * 100 >= total * pct;
}

static inline double pct(unsigned long part, unsigned long total)
{
	return total ? 100.0 * part / total : 0.0;
}

/* An anonymous mapping of @size bytes kept out of THP. */
static inline char *map_small_pages(size_t size)
{
	char *buf;

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return NULL;
	if (madvise(buf, size, MADV_NOHUGEPAGE)) {
		munmap(buf, size);
		return NULL;
	}
	return buf;
}

/* The last part of a locked fill, near the node's watermarks, in 4K pages. */
#define FILL_SMALL_TAIL		(128UL << 20)

/*
 * Map @size bytes for a fill that is locked and never reclaimed: huge
 * pages, where the kernel has them for madvise(), for all but the last
 * FILL_SMALL_TAIL (locking and freeing 2 MiB pages is about ten times
 * faster than 4K pages in the test VM: 1 GiB in 1.9 s against 16 s, freed
 * in 0.9 s against 5.5 s); that last part, allocated near the watermarks,
 * in 4K pages, so that no huge page fault compacts or reclaims the node.
 */
static inline char *map_fill_pages(size_t size)
{
	char *buf = map_small_pages(size);

	/* Best effort: without THP it all stays 4K. */
	if (buf && size > FILL_SMALL_TAIL)
		madvise(buf, size - FILL_SMALL_TAIL, MADV_HUGEPAGE);
	return buf;
}

/* The sum over node @nid's zones of the /proc/zoneinfo field @fmt. */
static inline unsigned long node_zoneinfo_sum(int nid, const char *fmt)
{
	unsigned long sum = 0, val;
	char line[256], zone[32];
	bool in = false;
	FILE *f;
	int n;

	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &n, zone) == 2) {
			in = n == nid;
			continue;
		}
		if (in && sscanf(line, fmt, &val) == 1)
			sum += val;
	}
	fclose(f);
	return sum;
}

/*
 * The bytes of node @nid's promotion watermarks (/proc/zoneinfo): what
 * kswapd keeps free in tiering mode, and what a hog must leave on top of
 * the room it means to leave.
 */
static inline unsigned long node_promo_wmark(int nid)
{
	return node_zoneinfo_sum(nid, " promo %lu") * PAGE_STRIDE;
}

/* The bytes of node @nid's high watermarks: where kswapd stops. */
static inline unsigned long node_high_wmark(int nid)
{
	return node_zoneinfo_sum(nid, " high %lu") * PAGE_STRIDE;
}

/*
 * Has kswapd given node @nid up (/proc/zoneinfo's node_unreclaimable:
 * MAX_RECLAIM_RETRIES runs without progress)? Until some reclaim makes
 * progress there, waking it does nothing.
 */
static inline bool kswapd_gave_up(int nid)
{
	return node_zoneinfo_sum(nid, " node_unreclaimable: %lu") > 0;
}

/*
 * Lock all but @margin of node @nid's free memory: the mapping (NULL if
 * there is no more than @margin free) and its size in *@size.
 */
static inline char *fill_node(struct __test_metadata *_metadata, int nid,
			      unsigned long margin, size_t *size)
{
	struct bitmask *mask;
	long long free_b;
	char *hog;

	*size = 0;
	ASSERT_GE(numa_node_size64(nid, &free_b), 0);
	if (free_b <= (long long)margin)
		return NULL;
	*size = free_b - margin;
	hog = map_fill_pages(*size);
	ASSERT_NE(hog, NULL);
	mask = numa_allocate_nodemask();
	numa_bitmask_setbit(mask, nid);
	ASSERT_EQ(mbind(hog, *size, MPOL_BIND, mask->maskp, mask->size + 1, 0), 0);
	numa_free_nodemask(mask);
	ASSERT_EQ(mlock(hog, *size), 0) TH_LOG("mlock: %s", strerror(errno));
	return hog;
}

/* fill_node_child() tops the fill up to within FILL_SLACK of its margin. */
#define FILL_TOPUP_ROUNDS	5
#define FILL_TOPUP_US		200000
#define FILL_SLACK		(4UL << 20)

/*
 * fill_node() in a child process, so that NUMA balancing does not scan the
 * hog as part of the test task's address space (on a slow kernel a scan
 * pass over a GiB of it delays the hint faults of the buffers under
 * test). The child's pid for unfill_node(), or -1 if there was no more
 * than @margin free.
 */
static inline pid_t fill_node_child(struct __test_metadata *_metadata,
				    int nid, unsigned long margin)
{
	char c = 0;
	int p[2];
	pid_t pid;

	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		long long free_b;
		size_t size;
		int i;

		close(p[0]);
		/* Gone with the test, however it ends. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		c = fill_node(_metadata, nid, margin, &size) ? 'h' : 'n';
		/*
		 * Memory the node gets back after the fill (per-CPU lists
		 * drained, kswapd meeting a boosted watermark) would be room
		 * the caller did not ask for: lock that too, a few times.
		 */
		for (i = 0; c == 'h' && i < FILL_TOPUP_ROUNDS; i++) {
			usleep(FILL_TOPUP_US);
			if (numa_node_size64(nid, &free_b) >= 0 &&
			    free_b > (long long)(margin + FILL_SLACK))
				fill_node(_metadata, nid, margin, &size);
		}
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	EXPECT_EQ(read(p[0], &c, 1), 1) TH_LOG("the hog on node %d failed", nid);
	close(p[0]);
	if (c != 'h') {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* Free the memory fill_node_child() locked. */
static inline void unfill_node(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* How a count moves toward a goal; see progress_done(). Zero it first. */
struct progress {
	unsigned long last;
	double moved;
};

/* Note @count in @p; the seconds since it last moved (0 if it just did). */
static inline double progress_stalled_s(struct progress *p, unsigned long count)
{
	if (!p->moved || count != p->last) {
		p->last = count;
		p->moved = now_s();
		return 0;
	}
	return now_s() - p->moved;
}

/*
 * Has @count reached PROMOTED_PCT of @total, or stalled (not moved for
 * @stall_s seconds)? Slow memory (a CXL device, an emulator) sets the pace
 * of promotion: a stall, not the clock, ends a wait for it.
 */
static inline bool progress_done(struct progress *p, unsigned long count,
				 unsigned long total, double stall_s)
{
	if (reached_pct(count, total, PROMOTED_PCT))
		return true;
	return progress_stalled_s(p, count) >= stall_s;
}

/*
 * Should a loop that accesses or reports pages until PROMOTED_PCT of
 * @total are where they belong go on, @count being there now? For
 * PROMOTE_TIMEOUT_S from @start it does; after that only while @count
 * still moves (not stalled for PROMOTE_STALL_S) and at most until
 * PROMOTE_MAX_S: slow memory (a CXL device, an emulator that runs it as
 * I/O memory) sets the pace, and a box with such memory is as right as a
 * fast one. Zero @p first.
 */
static inline bool promote_wait_more(struct progress *p, double start,
				     unsigned long count, unsigned long total)
{
	double t = now_s() - start, stalled;

	if (reached_pct(count, total, PROMOTED_PCT))
		return false;
	stalled = progress_stalled_s(p, count);
	if (t < PROMOTE_TIMEOUT_S)
		return true;
	return t < PROMOTE_MAX_S && stalled < PROMOTE_STALL_S;
}

/* A buffer and what move_pages() needs to ask where its 4K pages are. */
struct region {
	char *buf;
	size_t size;
	unsigned long nr;	/* 4K pages */
	void **pages;
	int *status;
	int nid;		/* the node place_on_node() put it on, or -1 */
};

/*
 * Where the 4K pages of a region are: on the lower-tier node it was placed
 * on, on a top-tier node, elsewhere (another lower-tier node), nowhere.
 */
struct residency {
	unsigned long slow, top, other, missing;
};

static inline int region_init(struct region *rg, char *buf, size_t size)
{
	unsigned long i;

	rg->buf = buf;
	rg->size = size;
	rg->nr = size / PAGE_STRIDE;
	rg->nid = -1;
	rg->pages = calloc(rg->nr, sizeof(*rg->pages));
	rg->status = calloc(rg->nr, sizeof(*rg->status));
	if (!rg->pages || !rg->status)
		return -1;
	for (i = 0; i < rg->nr; i++)
		rg->pages[i] = buf + i * PAGE_STRIDE;
	return 0;
}

static inline void region_free(struct region *rg)
{
	free(rg->status);
	free(rg->pages);
}

/* Map @size bytes kept out of THP as @rg. */
static inline void map_region(struct __test_metadata *_metadata,
			      struct region *rg, size_t size)
{
	char *buf;

	buf = map_small_pages(size);
	ASSERT_NE(buf, NULL);
	ASSERT_EQ(region_init(rg, buf, size), 0);
}

/* Free @rg and unmap its buffer. */
static inline void unmap_region(struct region *rg)
{
	region_free(rg);
	munmap(rg->buf, rg->size);
}

/* Read and write one word of every 4K page. */
static inline void touch_region(const struct region *rg)
{
	unsigned long i;

	for (i = 0; i < rg->nr; i++)
		touch_word((unsigned long *)(rg->buf + i * PAGE_STRIDE));
}

/*
 * Where the pages of @rg are (rg->status holds each page's node). Uses the
 * topology tiered_topology() read: call that first.
 */
static inline int query_residency(const struct region *rg,
				  struct residency *r)
{
	unsigned long i;

	memset(r, 0, sizeof(*r));
	if (!pghot_topo_read)
		return -1;
	if (move_pages(0, rg->nr, rg->pages, NULL, rg->status, 0))
		return -1;
	for (i = 0; i < rg->nr; i++) {
		if (rg->status[i] < 0)
			r->missing++;
		else if (rg->status[i] == rg->nid)
			r->slow++;
		else if (node_is_top(&pghot_topo, rg->status[i]))
			r->top++;
		else
			r->other++;
	}
	return 0;
}

/*
 * query_residency() once migrations in flight have ended: a page being
 * migrated (by kswapd or kmigrated, just after the access loop stopped)
 * has a migration entry and no node for a moment. Waits up to 2 s.
 */
static inline int query_residency_settled(const struct region *rg,
					  struct residency *r)
{
	int tries;

	for (tries = 0; tries < 20; tries++) {
		if (query_residency(rg, r))
			return -1;
		if (!r->missing)
			break;
		usleep(100 * 1000);
	}
	return 0;
}

/*
 * Empty every CPU's LRU batches: move_pages() does so before it moves
 * anything, even when every page of @rg already is on node @nid, where it
 * is asked to go. A page still in a batch is off the LRU, and a hint for
 * it is ignored (pghot_ignored_nonlru), as legacy ignores its fault.
 */
static inline int drain_lru(const struct region *rg, int nid)
{
	unsigned long i;
	int *nodes;
	long ret;

	nodes = calloc(rg->nr, sizeof(*nodes));
	if (!nodes)
		return -1;
	for (i = 0; i < rg->nr; i++)
		nodes[i] = nid;
	ret = move_pages(0, rg->nr, rg->pages, nodes, rg->status, MPOL_MF_MOVE);
	free(nodes);
	return ret < 0 ? -1 : 0;
}

/* Bind @rg's range to node @nid (MPOL_BIND, pages already there stay). */
static inline int bind_region(const struct region *rg, int nid)
{
	struct bitmask *mask = numa_allocate_nodemask();
	int ret;

	if (!mask)
		return -1;
	numa_bitmask_setbit(mask, nid);
	ret = mbind(rg->buf, rg->size, MPOL_BIND, mask->maskp, mask->size + 1, 0);
	numa_free_nodemask(mask);
	return ret;
}

/*
 * Fault the region in on node @nid, then drop the policy again: NUMA
 * balancing never scans an MPOL_BIND range. The pages end on the LRU.
 */
static inline int place_on_node(struct region *rg, int nid)
{
	if (bind_region(rg, nid))
		return -1;
	rg->nid = nid;
	touch_region(rg);
	if (mbind(rg->buf, rg->size, MPOL_DEFAULT, NULL, 0, 0))
		return -1;
	return drain_lru(rg, nid);
}

/*
 * Touch every page of @rg until PROMOTED_PCT of it is on the top tier or
 * promote_wait_more() says to stop, checking every CHECK_INTERVAL_MS.
 * Returns the seconds taken; @r is the residency at the end and, unless
 * @passes is NULL, *@passes the number of passes over @rg.
 */
static inline double access_until_promoted(struct __test_metadata *_metadata,
					   const struct region *rg,
					   struct residency *r,
					   unsigned long *passes)
{
	double start = now_s(), last_check = start;
	struct progress p = { };
	unsigned long pass = 0;

	for (;;) {
		touch_region(rg);
		pass++;
		if ((now_s() - last_check) * 1000 < CHECK_INTERVAL_MS)
			continue;
		last_check = now_s();
		ASSERT_EQ(query_residency(rg, r), 0);
		if (!promote_wait_more(&p, start, r->top, rg->nr))
			break;
	}

	if (passes)
		*passes = pass;
	ASSERT_EQ(query_residency(rg, r), 0);
	return now_s() - start;
}

/*
 * A sysctl or debugfs knob a test changes and the parent restores.
 *
 * The fixture teardown runs in the parent so that the knobs are restored
 * even if the test process dies (an ASSERT, a signal, the OOM killer); the
 * fixture data is then shared with it. The setup only reads: a SKIP or
 * ASSERT in the setup skips the teardown, so nothing may change before the
 * test body.
 */
struct knob {
	const char *path;
	bool required;		/* without it the tests cannot run */
	char saved[64];
	bool present;
	bool changed;
};

/*
 * The knobs of NUMA balancing and pghot every pghot test saves and restores
 * (pghot_tiering, which runs without pghot, takes the first ones only). A
 * test numbers its own after them: enum { KNOB_X = NR_COMMON_KNOBS, ... }.
 */
enum {
	KNOB_NUMAB,
	KNOB_SCAN_DELAY,
	KNOB_SCAN_PERIOD_MIN,
	KNOB_SCAN_PERIOD_MAX,
	KNOB_SCAN_SIZE,
	KNOB_SOURCES,
	KNOB_TARGET_NID,
	KNOB_FREQ_THRESHOLD,
	KNOB_WINDOW,
	KNOB_RATE_LIMIT,
	KNOB_SLEEP,
	KNOB_BATCH,
	KNOB_REGION,
	KNOB_REGION_REF,
	NR_COMMON_KNOBS
};

/* Their entries in a test's table of struct knob, indexed as above. */
#define COMMON_KNOBS							\
	[KNOB_NUMAB] = { NUMAB_SYSCTL, true },				\
	[KNOB_SCAN_DELAY] = { NUMAB_DEBUGFS "scan_delay_ms", false },	\
	[KNOB_SCAN_PERIOD_MIN] = { NUMAB_DEBUGFS "scan_period_min_ms", false }, \
	[KNOB_SCAN_PERIOD_MAX] = { NUMAB_DEBUGFS "scan_period_max_ms", false }, \
	[KNOB_SCAN_SIZE] = { NUMAB_DEBUGFS "scan_size_mb", false },	\
	[KNOB_SOURCES] = { PGHOT_DIR "enabled_sources", true },		\
	[KNOB_TARGET_NID] = { PGHOT_DIR "target_nid", true },		\
	[KNOB_FREQ_THRESHOLD] = { PGHOT_DIR "freq_threshold", true },	\
	[KNOB_WINDOW] = { PGHOT_DIR "promote_window_ms", true },	\
	[KNOB_RATE_LIMIT] = { PGHOT_DIR "rate_limit_MBps", true },	\
	[KNOB_SLEEP] = { PGHOT_DIR "kmigrated_sleep_ms", true },	\
	[KNOB_BATCH] = { PGHOT_DIR "kmigrated_batch_nr", true },	\
	[KNOB_REGION] = { PGHOT_DIR "hwhint_region_ms", true },		\
	[KNOB_REGION_REF] = { PGHOT_DIR "hwhint_region_ref", true }

/* Fixture setup: save the value of each of the @nr @knobs that exists. */
static inline void save_knobs(struct __test_metadata *_metadata,
			      struct knob *knobs, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		struct knob *k = &knobs[i];

		if (access(k->path, F_OK)) {
			ASSERT_FALSE(k->required) TH_LOG("%s missing", k->path);
			ksft_print_msg("%s missing, keeping its default\n",
				       k->path);
			continue;
		}
		ASSERT_EQ(read_str(k->path, k->saved, sizeof(k->saved)), 0)
			TH_LOG("cannot read %s", k->path);
		k->present = true;
	}
}

/*
 * Fixture teardown, in the parent: restore every knob a test changed.
 * Not with EXPECT_*(): _metadata is shared with the test child, and a
 * child that aborted on an ASSERT leaves the harness's trigger set, so
 * the first EXPECT here would print its message although it held.
 */
static inline void restore_knobs(struct __test_metadata *_metadata,
				 struct knob *knobs, int nr)
{
	int i;

	for (i = nr - 1; i >= 0; i--) {
		struct knob *k = &knobs[i];

		if (!k->changed || !write_str(k->path, k->saved))
			continue;
		ksft_print_msg("cannot restore %s to %s: %s\n", k->path,
			       k->saved, strerror(errno));
		_metadata->exit_code = KSFT_FAIL;
	}
}

/* Write @val to knobs[@idx], if the knob exists. */
static inline void set_knob(struct __test_metadata *_metadata,
			    struct knob *knobs, int idx, const char *val)
{
	struct knob *k = &knobs[idx];

	if (!k->present)
		return;
	/* Restore even if the write fails half way. */
	k->changed = true;
	ASSERT_EQ(write_str(k->path, val), 0)
		TH_LOG("cannot write %s to %s: %s", val, k->path,
		       strerror(errno));
}

/*
 * The state a parity or placement case starts from: NUMA balancing off
 * (the case turns it on), scans fast once it is on, pghot at its
 * defaults with @sources enabled, and regions off: a page's own samples
 * decide, whatever samples of earlier tests left in its 2 MiB of memory
 * (a region found below the bar would ask a second sample of a page at
 * threshold 1). pghot_hwhint tests regions.
 */
static inline void knobs_baseline(struct __test_metadata *_metadata,
				  struct knob *knobs, const char *sources)
{
	set_knob(_metadata, knobs, KNOB_NUMAB, "0");
	set_knob(_metadata, knobs, KNOB_SCAN_DELAY, "0");
	set_knob(_metadata, knobs, KNOB_SCAN_PERIOD_MIN, "100");
	set_knob(_metadata, knobs, KNOB_SCAN_PERIOD_MAX, "200");
	set_knob(_metadata, knobs, KNOB_SCAN_SIZE, "1024");
	set_knob(_metadata, knobs, KNOB_TARGET_NID, "-1");
	set_knob(_metadata, knobs, KNOB_FREQ_THRESHOLD, "2");
	set_knob(_metadata, knobs, KNOB_WINDOW, "4000");
	set_knob(_metadata, knobs, KNOB_RATE_LIMIT, "65536");
	set_knob(_metadata, knobs, KNOB_REGION, "0");
	set_knob(_metadata, knobs, KNOB_SOURCES, sources);
}

#endif /* __PGHOT_UTIL_H */
