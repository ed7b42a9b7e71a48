// SPDX-License-Identifier: GPL-2.0
/*
 * pghot records follow memory hotplug, on every lower-tier node (the tiers
 * are read from sysfs, see pghot_util.h).
 *
 * records_follow_hotplug: offlining a memory block of a lower-tier node
 *	frees the records of its pages (tracked_pages and record_memory_bytes
 *	in /sys/kernel/debug/pghot/stats drop by the block's share), onlining
 *	it again allocates them again, and the node keeps its kmigrated
 *	thread throughout.
 * offline_under_load: the same, several times over, for the movable
 *	blocks of each lower-tier node that has some (the test VM gives
 *	node 2 a hotplugged DIMM onlined movable) while a child keeps placing
 *	pages on that node that pghot records and kmigrated promotes (one
 *	block stays online on a node whose memory could all go); the rounds
 *	go on until the load has had accesses recorded and pages promoted
 *	meanwhile; afterwards every record is back and a fresh buffer on the
 *	node is promoted again.
 * node_memory_cycle: a lower-tier node all of whose memory can go offline
 *	(hot-plugged memory only, e.g. a CXL region onlined by dax/kmem)
 *	loses all of it: its kmigrated thread stops, its records are freed
 *	and stats no longer lists it; onlined again, the node gains its
 *	first memory once more and gets both back.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pghot_util.h"

#define STATS		PGHOT_DIR "stats"
#define LOAD_SIZE	(64UL << 20)	/* the child's buffer */
#define LOAD_ROUND_MS	1500		/* the child re-places it this often */
#define CHECK_SIZE	(64UL << 20)	/* promoted after the cycles */
#define CYCLES		4		/* offline/online rounds, at least */
#define MAX_CYCLES	12		/* until the load recorded and promoted */
#define LOAD_START_S	60		/* for the load's first buffer */
#define MAX_BLOCKS	4		/* blocks offlined per round */
#define OFFLINE_TRIES	20		/* a busy block is retried */
#define HOTPLUG_TEST_TIMEOUT_S	(TIMED_LOWER_NODES * (PROMOTE_MAX_S + 120) + 120)
#define CYCLE_TEST_TIMEOUT_S	300
#define THREAD_WAIT_S		10	/* for kmigrated to stop or start */
#define MAX_NODE_BLOCKS	1024		/* node_memory_cycle */
#define MEMORY_DIR	"/sys/devices/system/memory"
#define BLOCK_SIZE_FILE	"/sys/devices/system/memory/block_size_bytes"

static int stats_value(const char *key, unsigned long *val)
{
	char line[128], name[64];
	unsigned long v;
	int found = -1;
	FILE *f;

	f = fopen(STATS, "r");
	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lu", name, &v) == 2 && !strcmp(name, key)) {
			*val = v;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

static int write_state(const char *block, const char *state)
{
	char path[256];
	int fd, ret;

	snprintf(path, sizeof(path), MEMORY_DIR "/%s/state", block);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = write(fd, state, strlen(state)) == (ssize_t)strlen(state) ? 0 : -1;
	close(fd);
	return ret;
}

/* Is there a thread named kmigrated<@nid>? */
static bool kmigrated_running(int nid)
{
	char path[300], comm[32], want[32];
	struct dirent *d;
	bool found = false;
	DIR *proc;
	FILE *f;

	snprintf(want, sizeof(want), "kmigrated%d\n", nid);
	proc = opendir("/proc");
	if (!proc)
		return false;
	while (!found && (d = readdir(proc))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, want))
			found = true;
		fclose(f);
	}
	closedir(proc);
	return found;
}

/* Open the sysfs directory of node @nid, which lists its memory blocks. */
static DIR *open_node_dir(int nid)
{
	char path[64];

	snprintf(path, sizeof(path), NODE_DIR "/node%d", nid);
	return opendir(path);
}

/* Is @name a memory block entry ("memory123") of a node directory? */
static bool is_block(const char *name)
{
	return !strncmp(name, "memory", 6) && isdigit((unsigned char)name[6]);
}

static unsigned long block_size_pages(struct __test_metadata *_metadata)
{
	unsigned long block_bytes;
	FILE *f;

	f = fopen(BLOCK_SIZE_FILE, "r");
	ASSERT_NE(f, NULL);
	ASSERT_EQ(fscanf(f, "%lx", &block_bytes), 1);
	fclose(f);
	return block_bytes / sysconf(_SC_PAGESIZE);
}

/*
 * records_follow_hotplug on node @nid: false if none of its blocks can go
 * offline.
 */
static bool follow_one_block(struct __test_metadata *_metadata, int nid,
			     unsigned long block_pages)
{
	unsigned long pages0, bytes0, pages1, bytes1, pages2, bytes2;
	struct dirent *d;
	char block[sizeof(d->d_name)] = "";
	DIR *dir;

	dir = open_node_dir(nid);
	ASSERT_NE(dir, NULL);
	ASSERT_EQ(stats_value("tracked_pages", &pages0), 0);
	ASSERT_EQ(stats_value("record_memory_bytes", &bytes0), 0);
	ASSERT_GT(pages0, 0UL);

	/* The first block of the node that can go offline. */
	while ((d = readdir(dir))) {
		if (!is_block(d->d_name))
			continue;
		if (!write_state(d->d_name, "offline")) {
			snprintf(block, sizeof(block), "%s", d->d_name);
			break;
		}
	}
	closedir(dir);
	if (!block[0]) {
		ksft_print_msg("no memory block of node %d can go offline\n", nid);
		return false;
	}

	ASSERT_EQ(stats_value("tracked_pages", &pages1), 0);
	ASSERT_EQ(stats_value("record_memory_bytes", &bytes1), 0);
	TH_LOG("node %d: %s offline: tracked pages %lu -> %lu, record bytes %lu -> %lu",
	       nid, block, pages0, pages1, bytes0, bytes1);

	/* Online again before any assertion can end the test. */
	ASSERT_EQ(write_state(block, "online_movable"), 0);
	ASSERT_EQ(stats_value("tracked_pages", &pages2), 0);
	ASSERT_EQ(stats_value("record_memory_bytes", &bytes2), 0);
	TH_LOG("node %d: %s online: tracked pages %lu, record bytes %lu",
	       nid, block, pages2, bytes2);

	EXPECT_EQ(pages1, pages0 - block_pages);
	EXPECT_LT(bytes1, bytes0);
	/* At least one byte per page went away. */
	EXPECT_GE(bytes0 - bytes1, block_pages);
	EXPECT_EQ(pages2, pages0);
	EXPECT_EQ(bytes2, bytes0);
	EXPECT_TRUE(kmigrated_running(nid));
	return true;
}

TEST(records_follow_hotplug)
{
	const struct topology *t;
	unsigned long block_pages;
	int i, done = 0;

	if (access(STATS, R_OK))
		SKIP(return, "no " STATS " (no pghot, debugfs or root)");
	t = tiered_topology(_metadata);
	if (!t)
		return;
	block_pages = block_size_pages(_metadata);

	for (i = 0; i < t->nr_lower; i++)
		done += follow_one_block(_metadata, t->lower[i], block_pages);
	if (!done)
		SKIP(return, "no memory block of a lower-tier node can go offline");
}

/* Knobs offline_under_load changes; the parent puts them back. */
enum { NR_KNOBS = NR_COMMON_KNOBS };

static const struct knob knob_init[NR_KNOBS] = { COMMON_KNOBS };

FIXTURE(load) {
	struct knob knobs[NR_KNOBS];
	const struct topology *topo;
};

FIXTURE_SETUP(load)
{
	memcpy(self->knobs, knob_init, sizeof(self->knobs));
	if (access(STATS, R_OK))
		SKIP(return, "no " STATS " (no pghot, debugfs or root)");
	if (numa_available() < 0)
		SKIP(return, "NUMA not available");
	self->topo = tiered_topology(_metadata);
	if (!self->topo)
		return;
	save_knobs(_metadata, self->knobs, NR_KNOBS);
}

FIXTURE_TEARDOWN_PARENT(load)
{
	restore_knobs(_metadata, self->knobs, NR_KNOBS);
}

/* Is memory block @name online in ZONE_MOVABLE? */
static bool block_movable(const char *name)
{
	char path[300], buf[64];

	snprintf(path, sizeof(path), MEMORY_DIR "/%s/state", name);
	if (read_str(path, buf, sizeof(buf)) || strcmp(buf, "online"))
		return false;
	snprintf(path, sizeof(path), MEMORY_DIR "/%s/valid_zones", name);
	return !read_str(path, buf, sizeof(buf)) && !strcmp(buf, "Movable");
}

/* Up to @max online movable blocks of node @nid, into @blocks. */
static int movable_blocks(int nid, char blocks[][32], int max)
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = open_node_dir(nid);
	if (!dir)
		return 0;
	while (n < max && (d = readdir(dir))) {
		if (!is_block(d->d_name) ||
		    strlen(d->d_name) >= 32 || !block_movable(d->d_name))
			continue;
		strcpy(blocks[n++], d->d_name);
	}
	closedir(dir);
	return n;
}

/* Offline @block, retrying while its pages are busy. 0 or the errno. */
static int offline_block(const char *block)
{
	int i, err = 0;

	for (i = 0; i < OFFLINE_TRIES; i++) {
		if (!write_state(block, "offline"))
			return 0;
		err = errno;
		if (err != EBUSY && err != EAGAIN)
			break;
		usleep(100 * 1000);
	}
	return err;
}

/*
 * The load: fault a buffer in on lower-tier node @nid and touch it from
 * @cpu_node, over and over with a fresh buffer, so that pghot records
 * accesses and kmigrated promotes while blocks come and go. Writes a byte
 * to @ready once its first buffer is in place (slow memory, e.g. a CXL
 * window that an emulator runs as I/O memory, can take many seconds).
 * Each buffer is touched for LOAD_ROUND_MS, or for as long as placing it
 * took if that is longer: on such memory the load would otherwise spend
 * nearly all its time placing, and NUMA balancing might not reach a
 * buffer before it goes. Runs until killed.
 */
static void run_load(int cpu_node, int nid, int ready)
{
	struct region rg;
	double start, touch_s;

	if (numa_run_on_node(cpu_node))
		_exit(1);
	for (;;) {
		char *buf = map_small_pages(LOAD_SIZE);

		start = now_s();
		if (!buf || region_init(&rg, buf, LOAD_SIZE) ||
		    place_on_node(&rg, nid))
			_exit(1);
		if (ready >= 0) {
			if (write(ready, "1", 1) != 1)
				_exit(1);
			close(ready);
			ready = -1;
		}
		touch_s = now_s() - start;
		if (touch_s < LOAD_ROUND_MS / 1000.0)
			touch_s = LOAD_ROUND_MS / 1000.0;
		start = now_s();
		while (now_s() - start < touch_s)
			touch_region(&rg);
		unmap_region(&rg);
	}
}

/*
 * offline_under_load on lower-tier node @nid, whose @nr online movable
 * blocks are @blocks, while the task runs on @cpu_node.
 */
static void under_load_on(struct __test_metadata *_metadata,
			  struct knob *knobs, int cpu_node, int nid,
			  char blocks[][32], int nr)
{
	unsigned long long ready0 = 0, ready1 = 0, acc0 = 0, acc1 = 0;
	unsigned long long prom0 = 0, prom1 = 0;
	bool offline[MAX_BLOCKS] = { };
	unsigned long pages0, bytes0, pages, bytes;
	unsigned long block_pages;
	struct residency r;
	struct region rg;
	int i, c, status, err, pipefd[2];
	struct pollfd pfd;
	pid_t load;

	block_pages = block_size_pages(_metadata);

	set_knob(_metadata, knobs, KNOB_SCAN_DELAY, "0");
	set_knob(_metadata, knobs, KNOB_SCAN_PERIOD_MIN, "100");
	set_knob(_metadata, knobs, KNOB_SCAN_PERIOD_MAX, "200");
	set_knob(_metadata, knobs, KNOB_SOURCES, "0x1");
	set_knob(_metadata, knobs, KNOB_FREQ_THRESHOLD, "1");
	set_knob(_metadata, knobs, KNOB_NUMAB, "2");

	ASSERT_EQ(stats_value("tracked_pages", &pages0), 0);
	ASSERT_EQ(stats_value("record_memory_bytes", &bytes0), 0);

	ASSERT_EQ(pipe(pipefd), 0);
	load = fork();
	ASSERT_GE(load, 0);
	if (!load) {
		close(pipefd[0]);
		run_load(cpu_node, nid, pipefd[1]);
		_exit(1);
	}
	close(pipefd[1]);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	err = poll(&pfd, 1, LOAD_START_S * 1000);
	close(pipefd[0]);
	if (err != 1) {
		kill(load, SIGKILL);
		waitpid(load, &status, 0);
		ASSERT_EQ(err, 1) TH_LOG("the load placed no buffer on node %d in %d s",
					 nid, LOAD_START_S);
	}
	ASSERT_EQ(read_vmstat("pghot_ready", &ready0), 0);
	ASSERT_EQ(read_vmstat("pghot_recorded_accesses", &acc0), 0);
	ASSERT_EQ(read_vmstat("pghot_promoted", &prom0), 0);

	/*
	 * At least CYCLES rounds, more (up to MAX_CYCLES) until the load has
	 * had accesses recorded and pages promoted while blocks came and
	 * went: on slow memory one round is not enough for either.
	 */
	for (c = 0; c < MAX_CYCLES; c++) {
		int off = 0;

		if (c >= CYCLES &&
		    !read_vmstat("pghot_recorded_accesses", &acc1) && acc1 > acc0 &&
		    !read_vmstat("pghot_promoted", &prom1) && prom1 > prom0)
			break;

		for (i = 0; i < nr; i++) {
			err = offline_block(blocks[i]);
			if (err) {
				ksft_print_msg("%s stays online: %s\n", blocks[i],
					       strerror(err));
				continue;
			}
			offline[i] = true;
			off++;
		}
		EXPECT_EQ(stats_value("tracked_pages", &pages), 0);
		EXPECT_EQ(stats_value("record_memory_bytes", &bytes), 0);
		ksft_print_msg("node %d cycle %d: %d/%d off: pages %lu -> %lu, bytes %lu -> %lu\n",
			       nid, c, off, nr, pages0, pages, bytes0, bytes);
		EXPECT_EQ(pages, pages0 - off * block_pages);
		EXPECT_GE(bytes0 - bytes, off * block_pages);
		/* Let the load run against the smaller node for a while. */
		usleep(LOAD_ROUND_MS * 1000);
		for (i = 0; i < nr; i++) {
			if (!offline[i])
				continue;
			offline[i] = false;
			EXPECT_EQ(write_state(blocks[i], "online_movable"), 0)
				TH_LOG("cannot online %s again: %s", blocks[i],
				       strerror(errno));
		}
		EXPECT_EQ(stats_value("tracked_pages", &pages), 0);
		EXPECT_EQ(stats_value("record_memory_bytes", &bytes), 0);
		EXPECT_EQ(pages, pages0);
		EXPECT_EQ(bytes, bytes0);
		EXPECT_GT(off, 0) TH_LOG("no block could go offline");
		usleep(LOAD_ROUND_MS * 1000);
	}

	kill(load, SIGKILL);
	ASSERT_EQ(waitpid(load, &status, 0), load);
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("the load died on its own");
	ASSERT_EQ(read_vmstat("pghot_ready", &ready1), 0);
	ASSERT_EQ(read_vmstat("pghot_recorded_accesses", &acc1), 0);
	ASSERT_EQ(read_vmstat("pghot_promoted", &prom1), 0);
	ksft_print_msg("during the %d cycles: %llu recorded, %llu ready, %llu promoted\n",
		       c, acc1 - acc0, ready1 - ready0, prom1 - prom0);
	EXPECT_GT(acc1, acc0) TH_LOG("nothing was recorded under the load");
	EXPECT_GT(prom1, prom0) TH_LOG("nothing was promoted while blocks went offline");
	EXPECT_TRUE(kmigrated_running(nid));

	/* Promotion works as before on the node as it is now. */
	ASSERT_EQ(numa_run_on_node(cpu_node), 0);
	map_region(_metadata, &rg, CHECK_SIZE);
	ASSERT_EQ(place_on_node(&rg, nid), 0);
	access_until_promoted(_metadata, &rg, &r, NULL);
	ksft_print_msg("node %d after the cycles: %lu of %lu pages promoted\n",
		       nid, r.top, rg.nr);
	EXPECT_TRUE(reached_pct(r.top, rg.nr, PROMOTED_PCT));
	unmap_region(&rg);
	/* The next node starts from NUMA balancing off. */
	set_knob(_metadata, knobs, KNOB_NUMAB, "0");
}

static int all_blocks_movable(int nid, char blocks[][32], int max);
static char node_blocks[MAX_NODE_BLOCKS][32];

TEST_F_TIMEOUT(load, offline_under_load, HOTPLUG_TEST_TIMEOUT_S)
{
	const struct topology *t = self->topo;
	char blocks[MAX_BLOCKS][32];
	int i, nid, nr, done = 0;

	for (i = 0; i < t->nr_lower; i++) {
		nid = t->lower[i];
		nr = movable_blocks(nid, blocks, MAX_BLOCKS);
		/*
		 * Keep one block of a node whose memory could all go (a CXL
		 * region): the load needs memory there, and taking the node
		 * away is node_memory_cycle's.
		 */
		if (nr && all_blocks_movable(nid, node_blocks, MAX_NODE_BLOCKS) == nr)
			nr--;
		if (!nr) {
			ksft_print_msg("node %d: no online movable block it can do without\n",
				       nid);
			continue;
		}
		under_load_on(_metadata, self->knobs, topo_cpu_node(t), nid,
			      blocks, nr);
		done++;
	}
	if (!done)
		SKIP(return, "no online movable memory block on a lower-tier node");
}

/* Wait up to THREAD_WAIT_S for kmigrated<@nid> to be @running. */
static bool wait_kmigrated(int nid, bool running)
{
	double t0 = now_s();

	while (kmigrated_running(nid) != running) {
		if (now_s() - t0 > THREAD_WAIT_S)
			return false;
		usleep(100 * 1000);
	}
	return true;
}

/* Does stats list node @nid ("node<N> target ...")? 1, 0, or -1. */
static int stats_lists_node(int nid)
{
	char line[256], want[32];
	int found = 0;
	FILE *f;

	f = fopen(STATS, "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), "node%d ", nid);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			found = 1;
	fclose(f);
	return found;
}

/*
 * The memory blocks of node @nid into @blocks (at most @max), or 0 unless
 * every one of them is online movable, that is, all of the node's memory
 * can go offline.
 */
static int all_blocks_movable(int nid, char blocks[][32], int max)
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = open_node_dir(nid);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (!is_block(d->d_name))
			continue;
		if (n == max || strlen(d->d_name) >= 32 ||
		    !block_movable(d->d_name)) {
			n = 0;
			break;
		}
		strcpy(blocks[n++], d->d_name);
	}
	closedir(dir);
	return n;
}

/* node_memory_cycle on node @nid, whose @nr blocks are @blocks. */
static void cycle_node(struct __test_metadata *_metadata, int nid,
		       char blocks[][32], int nr)
{
	unsigned long pages0, bytes0, pages1, bytes1, pages2, bytes2;
	unsigned long block_pages = block_size_pages(_metadata);
	static bool offline[MAX_NODE_BLOCKS];
	struct topology after;
	int i, err, off = 0;

	ASSERT_TRUE(kmigrated_running(nid));
	ASSERT_EQ(stats_lists_node(nid), 1);
	ASSERT_EQ(stats_value("tracked_pages", &pages0), 0);
	ASSERT_EQ(stats_value("record_memory_bytes", &bytes0), 0);

	for (i = 0; i < nr; i++) {
		err = offline_block(blocks[i]);
		EXPECT_EQ(err, 0)
			TH_LOG("cannot offline %s of node %d: %s", blocks[i],
			       nid, strerror(err));
		offline[i] = !err;
		off += !err;
	}
	if (off == nr) {
		ASSERT_EQ(stats_value("tracked_pages", &pages1), 0);
		ASSERT_EQ(stats_value("record_memory_bytes", &bytes1), 0);
		ksft_print_msg("node %d: %d blocks offline: pages %lu -> %lu, bytes %lu -> %lu\n",
			       nid, nr, pages0, pages1, bytes0, bytes1);
		EXPECT_TRUE(wait_kmigrated(nid, false))
			TH_LOG("kmigrated%d still runs on a node without memory",
			       nid);
		EXPECT_EQ(stats_lists_node(nid), 0);
		EXPECT_EQ(pages1, pages0 - nr * block_pages);
		EXPECT_GE(bytes0 - bytes1, nr * block_pages);
		EXPECT_EQ(topology_read(&after), 0);
		EXPECT_EQ(after.tier[nid], -1)
			TH_LOG("node %d without memory is in memory_tier%d",
			       nid, after.tier[nid]);
	}

	/* The node gains its first memory again. */
	for (i = 0; i < nr; i++)
		if (offline[i])
			EXPECT_EQ(write_state(blocks[i], "online_movable"), 0)
				TH_LOG("cannot online %s again: %s", blocks[i],
				       strerror(errno));
	ASSERT_EQ(stats_value("tracked_pages", &pages2), 0);
	ASSERT_EQ(stats_value("record_memory_bytes", &bytes2), 0);
	ksft_print_msg("node %d: online again: tracked pages %lu, record bytes %lu\n",
		       nid, pages2, bytes2);
	EXPECT_TRUE(wait_kmigrated(nid, true))
		TH_LOG("kmigrated%d did not come back", nid);
	EXPECT_EQ(stats_lists_node(nid), 1);
	EXPECT_EQ(pages2, pages0);
	EXPECT_EQ(bytes2, bytes0);
	EXPECT_EQ(topology_read(&after), 0);
	EXPECT_TRUE(node_is_lower(&after, nid))
		TH_LOG("node %d is back in memory_tier%d, not a lower tier",
		       nid, after.tier[nid]);
}

TEST_F_TIMEOUT(load, node_memory_cycle, CYCLE_TEST_TIMEOUT_S)
{
	static char blocks[MAX_NODE_BLOCKS][32];
	const struct topology *t = self->topo;
	int i, nid, nr, done = 0;

	for (i = 0; i < t->nr_lower; i++) {
		nid = t->lower[i];
		nr = all_blocks_movable(nid, blocks, MAX_NODE_BLOCKS);
		if (!nr)
			continue;
		cycle_node(_metadata, nid, blocks, nr);
		done++;
	}
	if (!done)
		SKIP(return, "no lower-tier node whose memory can all go offline");
}

TEST_HARNESS_MAIN
