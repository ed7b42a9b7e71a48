// SPDX-License-Identifier: GPL-2.0
/*
 * pghot across NUMA balancing mode switches, as an operator makes them.
 *
 * mode_switch: (1) in tiering mode (kernel.numa_balancing=2) NUMA
 *	balancing scans a buffer on a lower-tier node, which writes an access
 *	time where the folios keep their last cpupid; a memory policy keeps
 *	the buffer where it is (MPOL_BIND | MPOL_F_NUMA_BALANCING to the
 *	lower-tier node only), and neither legacy NUMA balancing nor pghot
 *	may move it. (2) With NUMA balancing off, hardware hints (injected)
 *	promote the buffer: kmigrated promotes outside tiering mode. (3) With
 *	normal NUMA balancing (kernel.numa_balancing=1), two threads write the
 *	buffer: their hint faults read each folio's cpupid, which must be a
 *	cpupid again, not an access time. A kernel that keeps the access time
 *	crashes in task_numa_fault() within seconds (a runqueue looked up for
 *	a CPU that does not exist); this test then never finishes.
 *
 * off.boot: in a kernel booted with pghot_mode=off (it skips in any other
 *	boot), pghot is out altogether: no tunables, no kmigrated thread, and
 *	tiering-mode NUMA balancing promotes a buffer from every lower-tier
 *	node through the fault path alone, with every pghot counter still.
 *
 * Runs against every lower-tier node, from the first top-tier node with
 * CPUs; mode_switch needs the debug injection file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "pghot_inject.h"

#define BUF_SIZE		(64UL << 20)
#define SCAN_S			6	/* tiering-mode scanning, step 1 */
#define WRITE_S			10	/* mode 1 writers, step 3 */
#define STAMP_OFFSET		64	/* of a page's stamp, past touch_word() */
#define MODES_TEST_TIMEOUT_S	(TIMED_LOWER_NODES * (SCAN_S + WRITE_S + PROMOTE_MAX_S + 30))

enum { NR_KNOBS = NR_COMMON_KNOBS };

static const struct knob knob_init[NR_KNOBS] = { COMMON_KNOBS };

FIXTURE(modes)
{
	struct knob knobs[NR_KNOBS];
	const struct topology *topo;
};

FIXTURE_SETUP(modes)
{
	memcpy(self->knobs, knob_init, sizeof(self->knobs));
	if (access(PGHOT_INJECT, W_OK))
		SKIP(return, "no %s (needs root, debugfs, CONFIG_PGHOT_HWHINT_INJECT)",
		     PGHOT_INJECT);
	self->topo = tiered_topology(_metadata);
	if (!self->topo)
		return;
	if (!nodes_have_free(_metadata, self->topo, BUF_SIZE * 2))
		return;
	save_knobs(_metadata, self->knobs, NR_KNOBS);
}

FIXTURE_TEARDOWN_PARENT(modes)
{
	restore_knobs(_metadata, self->knobs, NR_KNOBS);
}

struct writer {
	const struct region *rg;
	unsigned long first, step;
	double until;
};

/* Write one word of every @step-th page from @first, until the deadline. */
static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	unsigned long i;

	while (now_s() < w->until)
		for (i = w->first; i < w->rg->nr; i += w->step)
			touch_word((unsigned long *)(w->rg->buf + i * PAGE_STRIDE));
	return NULL;
}

static void mode_switch_from(struct __test_metadata *_metadata,
			     struct _test_data_modes *self, int lower)
{
	struct bitmask *mask = numa_allocate_nodemask();
	struct writer w[2];
	pthread_t tid[2];
	unsigned long *pfns, i, bad = 0;
	unsigned long long faults[2];
	struct progress prog = { };
	struct residency r;
	struct region rg;
	double start;

	ksft_print_msg("lower-tier node %d\n", lower);
	ASSERT_NE(mask, NULL);
	map_region(_metadata, &rg, BUF_SIZE);
	ASSERT_EQ(place_on_node(&rg, lower), 0);
	for (i = 0; i < rg.nr; i++)
		*(unsigned long *)(rg.buf + i * PAGE_STRIDE + STAMP_OFFSET) = i;
	ASSERT_EQ(query_residency(&rg, &r), 0);
	ASSERT_TRUE(reached_pct(r.slow, rg.nr, PLACED_PCT));

	/* 1: tiering mode scans the buffer, which its policy keeps there. */
	numa_bitmask_setbit(mask, lower);
	ASSERT_EQ(mbind(rg.buf, rg.size, MPOL_BIND | MPOL_F_NUMA_BALANCING,
			mask->maskp, mask->size + 1, 0), 0);
	set_knob(_metadata, self->knobs, KNOB_SCAN_DELAY, "0");
	set_knob(_metadata, self->knobs, KNOB_SCAN_PERIOD_MIN, "100");
	set_knob(_metadata, self->knobs, KNOB_SCAN_PERIOD_MAX, "200");
	set_knob(_metadata, self->knobs, KNOB_SCAN_SIZE, "1024");
	set_knob(_metadata, self->knobs, KNOB_TARGET_NID, "-1");
	/*
	 * A threshold no page reaches by its rule: only the policy may
	 * decide that nothing moves (a quick hint fault is hot at once).
	 */
	set_knob(_metadata, self->knobs, KNOB_FREQ_THRESHOLD, "3");
	set_knob(_metadata, self->knobs, KNOB_WINDOW, "100");
	set_knob(_metadata, self->knobs, KNOB_SOURCES, "0x1");
	ASSERT_EQ(read_vmstat("numa_hint_faults", &faults[0]), 0);
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "2");
	start = now_s();
	while (now_s() - start < SCAN_S)
		touch_region(&rg);
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "0");
	ASSERT_EQ(read_vmstat("numa_hint_faults", &faults[1]), 0);
	ASSERT_EQ(query_residency(&rg, &r), 0);
	ksft_print_msg("after tiering-mode scans (%llu hint faults): %lu of %lu pages on node %d\n",
		       faults[1] - faults[0], r.slow, rg.nr, lower);
	/* The buffer was scanned: an access time was written and judged. */
	EXPECT_GE((faults[1] - faults[0]) * 2, rg.nr);
	EXPECT_EQ(r.slow, rg.nr)
		TH_LOG("pages moved against MPOL_BIND|MPOL_F_NUMA_BALANCING");

	/* 2: hardware hints promote it, NUMA balancing off. */
	ASSERT_EQ(mbind(rg.buf, rg.size, MPOL_DEFAULT, NULL, 0, 0), 0);
	pfns = calloc(rg.nr, sizeof(*pfns));
	ASSERT_NE(pfns, NULL);
	ASSERT_EQ(region_pfns(&rg, pfns), 0);
	set_knob(_metadata, self->knobs, KNOB_FREQ_THRESHOLD, "1");
	set_knob(_metadata, self->knobs, KNOB_WINDOW, "4000");
	/* One sample each, whatever earlier samples left in the regions. */
	set_knob(_metadata, self->knobs, KNOB_REGION, "0");
	set_knob(_metadata, self->knobs, KNOB_SOURCES, "0x2");
	ASSERT_EQ(inject_pfns(pfns, rg.nr, -1), 0);
	start = now_s();
	do {
		usleep(200 * 1000);
		ASSERT_EQ(query_residency(&rg, &r), 0);
	} while (promote_wait_more(&prog, start, r.top, rg.nr));
	ksft_print_msg("after hardware hints: %lu of %lu pages on the top tier\n",
		       r.top, rg.nr);
	ASSERT_TRUE(reached_pct(r.top, rg.nr, PROMOTED_PCT));

	/* 3: normal NUMA balancing, two threads writing the buffer. */
	ASSERT_EQ(read_vmstat("numa_hint_faults", &faults[0]), 0);
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "1");
	for (i = 0; i < 2; i++) {
		w[i] = (struct writer){ &rg, i, 2, now_s() + WRITE_S };
		ASSERT_EQ(pthread_create(&tid[i], NULL, writer_fn, &w[i]), 0);
	}
	for (i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "0");
	ASSERT_EQ(read_vmstat("numa_hint_faults", &faults[1]), 0);
	ksft_print_msg("mode 1 writers: %llu hint faults\n", faults[1] - faults[0]);
	/* Their faults read the promoted folios' cpupids. */
	EXPECT_GE((faults[1] - faults[0]) * 2, rg.nr);

	for (i = 0; i < rg.nr; i++)
		if (*(unsigned long *)(rg.buf + i * PAGE_STRIDE + STAMP_OFFSET) != i)
			bad++;
	EXPECT_EQ(bad, 0UL) TH_LOG("%lu pages lost their contents", bad);
	free(pfns);
	numa_free_nodemask(mask);
	unmap_region(&rg);
}

TEST_F_TIMEOUT(modes, mode_switch, MODES_TEST_TIMEOUT_S)
{
	int i;

	ASSERT_EQ(numa_run_on_node(topo_cpu_node(self->topo)), 0);
	for (i = 0; i < self->topo->nr_lower; i++)
		mode_switch_from(_metadata, self, self->topo->lower[i]);
}

#define OFF_BUF_SIZE		(16UL << 20)
#define OFF_TEST_TIMEOUT_S	(TIMED_LOWER_NODES * (PROMOTE_MAX_S + 30))

/* NUMA balancing's knobs of the shared table: pghot has none in this mode. */
enum { OFF_NR_KNOBS = KNOB_SCAN_SIZE + 1 };

static const struct knob off_knob_init[OFF_NR_KNOBS] = {
	[KNOB_NUMAB] = { NUMAB_SYSCTL, true },
	[KNOB_SCAN_DELAY] = { NUMAB_DEBUGFS "scan_delay_ms", false },
	[KNOB_SCAN_PERIOD_MIN] = { NUMAB_DEBUGFS "scan_period_min_ms", false },
	[KNOB_SCAN_PERIOD_MAX] = { NUMAB_DEBUGFS "scan_period_max_ms", false },
	[KNOB_SCAN_SIZE] = { NUMAB_DEBUGFS "scan_size_mb", false },
};

/* What a kernel with pghot out must leave still; then the fault path's. */
static const char * const off_counters[] = {
	"pghot_recorded_accesses", "pghot_recorded_hintfaults",
	"pghot_recorded_hwhints", "pghot_ready", "pghot_promoted",
	"pghot_hintfault_legacy", "pgpromote_success",
};

#define OFF_NR_PGHOT	(ARRAY_SIZE(off_counters) - 1)

FIXTURE(off)
{
	struct knob knobs[OFF_NR_KNOBS];
	const struct topology *topo;
};

/* Is pghot_mode=off on the kernel command line? */
static bool booted_off(void)
{
	char cmdline[4096], *p;
	ssize_t n;
	int fd;

	fd = open("/proc/cmdline", O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, cmdline, sizeof(cmdline) - 1);
	close(fd);
	if (n <= 0)
		return false;
	cmdline[n] = '\0';
	for (p = strstr(cmdline, "pghot_mode=off"); p; p = strstr(p + 1, "pghot_mode=off")) {
		char end = p[strlen("pghot_mode=off")];

		if ((p == cmdline || p[-1] == ' ') && (end == ' ' || end == '\n' || !end))
			return true;
	}
	return false;
}

FIXTURE_SETUP(off)
{
	memcpy(self->knobs, off_knob_init, sizeof(self->knobs));
	if (!booted_off())
		SKIP(return, "not a pghot_mode=off boot");
	self->topo = tiered_topology(_metadata);
	if (!self->topo)
		return;
	if (!nodes_have_free(_metadata, self->topo, OFF_BUF_SIZE * 2))
		return;
	save_knobs(_metadata, self->knobs, OFF_NR_KNOBS);
}

FIXTURE_TEARDOWN_PARENT(off)
{
	restore_knobs(_metadata, self->knobs, OFF_NR_KNOBS);
}

/* The number of kernel threads named kmigrated<N>. */
static int kmigrated_threads(void)
{
	char path[300], comm[64];
	struct dirent *de;
	int nr = 0, fd;
	ssize_t n;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n > 0 && !strncmp(comm, "kmigrated", strlen("kmigrated")))
			nr++;
	}
	closedir(d);
	return nr;
}

TEST_F_TIMEOUT(off, boot, OFF_TEST_TIMEOUT_S)
{
	unsigned long long before[ARRAY_SIZE(off_counters)];
	unsigned long long after[ARRAY_SIZE(off_counters)];
	const struct topology *t = self->topo;
	unsigned long placed;
	struct residency r;
	struct region rg;
	unsigned int k;
	double secs;
	int i;

	/* No tunables (the debug injection file may stay), no thread. */
	EXPECT_NE(access(PGHOT_DIR "enabled_sources", F_OK), 0);
	EXPECT_NE(access(PGHOT_DIR "freq_threshold", F_OK), 0);
	EXPECT_NE(access(PGHOT_DIR "kmigrated_batch_nr", F_OK), 0);
	EXPECT_EQ(kmigrated_threads(), 0);

	set_knob(_metadata, self->knobs, KNOB_SCAN_DELAY, "0");
	set_knob(_metadata, self->knobs, KNOB_SCAN_PERIOD_MIN, "100");
	set_knob(_metadata, self->knobs, KNOB_SCAN_PERIOD_MAX, "200");
	set_knob(_metadata, self->knobs, KNOB_SCAN_SIZE, "1024");
	ASSERT_EQ(numa_run_on_node(topo_cpu_node(t)), 0);
	for (i = 0; i < t->nr_lower; i++) {
		set_knob(_metadata, self->knobs, KNOB_NUMAB, "0");
		map_region(_metadata, &rg, OFF_BUF_SIZE);
		ASSERT_EQ(place_on_node(&rg, t->lower[i]), 0);
		ASSERT_EQ(query_residency(&rg, &r), 0);
		ASSERT_TRUE(reached_pct(r.slow, rg.nr, PLACED_PCT));
		placed = r.slow;
		ASSERT_EQ(read_vmstat_list(off_counters, before,
					   ARRAY_SIZE(off_counters)), 0);
		set_knob(_metadata, self->knobs, KNOB_NUMAB, "2");
		secs = access_until_promoted(_metadata, &rg, &r, NULL);
		set_knob(_metadata, self->knobs, KNOB_NUMAB, "0");
		ASSERT_EQ(read_vmstat_list(off_counters, after,
					   ARRAY_SIZE(off_counters)), 0);
		ksft_print_msg("node %d: %lu of %lu pages up in %.1f s, pgpromote_success +%llu\n",
			       t->lower[i], r.top, rg.nr, secs,
			       after[OFF_NR_PGHOT] - before[OFF_NR_PGHOT]);
		EXPECT_TRUE(reached_pct(r.top, rg.nr, PROMOTED_PCT))
			TH_LOG("the fault path did not promote node %d's buffer",
			       t->lower[i]);
		/* Every page that came up was counted as promoted. */
		EXPECT_GE(after[OFF_NR_PGHOT] - before[OFF_NR_PGHOT],
			  (unsigned long long)r.top - (rg.nr - placed));
		for (k = 0; k < OFF_NR_PGHOT; k++)
			EXPECT_EQ(after[k], before[k])
				TH_LOG("%s moved by %llu with pghot off",
				       off_counters[k], after[k] - before[k]);
		unmap_region(&rg);
	}
}

TEST_HARNESS_MAIN
