// SPDX-License-Identifier: GPL-2.0
/*
 * pghot records follow memory hotplug.
 *
 * records_follow_hotplug: offlining a memory block of the lower-tier node
 *	frees the records of its pages (tracked_pages and record_memory_bytes
 *	in /sys/kernel/debug/pghot/stats drop by the block's share), onlining
 *	it again allocates them again, and the node keeps its kmigrated
 *	thread throughout.
 * offline_under_load: the same, several times over, for the node's
 *	movable blocks (the test VM gives node 2 a hotplugged DIMM onlined
 *	movable) while a child keeps placing pages on node 2 that pghot
 *	records and kmigrated promotes; afterwards every record is back and
 *	a fresh buffer on node 2 is promoted again.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pghot_util.h"

#define STATS		"/sys/kernel/debug/pghot/stats"
#define PGHOT_DIR	"/sys/kernel/debug/pghot"
#define LOAD_SIZE	(64UL << 20)	/* the child's buffer */
#define LOAD_ROUND_MS	1500		/* the child re-places it this often */
#define CHECK_SIZE	(64UL << 20)	/* promoted after the cycles */
#define CYCLES		4		/* offline/online rounds */
#define MAX_BLOCKS	4		/* blocks offlined per round */
#define OFFLINE_TRIES	20		/* a busy block is retried */
#define HOTPLUG_TEST_TIMEOUT_S	(PROMOTE_TIMEOUT_S + 240)
#define NODE_DIR	"/sys/devices/system/node/node2"
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

	snprintf(path, sizeof(path), NODE_DIR "/%s/state", block);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = write(fd, state, strlen(state)) == (ssize_t)strlen(state) ? 0 : -1;
	close(fd);
	return ret;
}

static bool kmigrated_running(void)
{
	char path[300], comm[32];
	struct dirent *d;
	bool found = false;
	DIR *proc;
	FILE *f;

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
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "kmigrated2\n"))
			found = true;
		fclose(f);
	}
	closedir(proc);
	return found;
}

TEST(records_follow_hotplug)
{
	unsigned long pages0, bytes0, pages1, bytes1, pages2, bytes2;
	unsigned long block_bytes, block_pages;
	struct dirent *d;
	char block[sizeof(d->d_name)] = "";
	FILE *f;
	DIR *dir;

	if (access(STATS, R_OK))
		SKIP(return, "no " STATS " (no pghot, debugfs or root)");
	dir = opendir(NODE_DIR);
	if (!dir)
		SKIP(return, "no node %d", SLOW_NODE);
	f = fopen(BLOCK_SIZE_FILE, "r");
	ASSERT_NE(f, NULL);
	ASSERT_EQ(fscanf(f, "%lx", &block_bytes), 1);
	fclose(f);
	block_pages = block_bytes / sysconf(_SC_PAGESIZE);

	ASSERT_EQ(stats_value("tracked_pages", &pages0), 0);
	ASSERT_EQ(stats_value("record_memory_bytes", &bytes0), 0);
	ASSERT_GT(pages0, 0UL);

	/* The first block of node 2 that can go offline. */
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "memory", 6) ||
		    d->d_name[6] < '0' || d->d_name[6] > '9')
			continue;
		if (!write_state(d->d_name, "offline")) {
			snprintf(block, sizeof(block), "%s", d->d_name);
			break;
		}
	}
	closedir(dir);
	if (!block[0])
		SKIP(return, "no memory block of node %d can go offline", SLOW_NODE);

	ASSERT_EQ(stats_value("tracked_pages", &pages1), 0);
	ASSERT_EQ(stats_value("record_memory_bytes", &bytes1), 0);
	TH_LOG("%s offline: tracked pages %lu -> %lu, record bytes %lu -> %lu",
	       block, pages0, pages1, bytes0, bytes1);

	/* Online again before any assertion can end the test. */
	ASSERT_EQ(write_state(block, "online_movable"), 0);
	ASSERT_EQ(stats_value("tracked_pages", &pages2), 0);
	ASSERT_EQ(stats_value("record_memory_bytes", &bytes2), 0);
	TH_LOG("%s online: tracked pages %lu, record bytes %lu",
	       block, pages2, bytes2);

	EXPECT_EQ(pages1, pages0 - block_pages);
	EXPECT_LT(bytes1, bytes0);
	/* At least one byte per page went away. */
	EXPECT_GE(bytes0 - bytes1, block_pages);
	EXPECT_EQ(pages2, pages0);
	EXPECT_EQ(bytes2, bytes0);
	EXPECT_TRUE(kmigrated_running());
}

/* Knobs offline_under_load changes; the parent puts them back. */
enum { KNOB_NUMAB, KNOB_SOURCES, KNOB_FREQ, KNOB_SCAN_DELAY,
	KNOB_SCAN_MIN, KNOB_SCAN_MAX, NR_KNOBS };

static const struct knob knob_init[NR_KNOBS] = {
	[KNOB_NUMAB] = { NUMAB_SYSCTL, true },
	[KNOB_SOURCES] = { PGHOT_DIR "/enabled_sources", true },
	[KNOB_FREQ] = { PGHOT_DIR "/freq_threshold", true },
	[KNOB_SCAN_DELAY] = { NUMAB_DEBUGFS "scan_delay_ms", false },
	[KNOB_SCAN_MIN] = { NUMAB_DEBUGFS "scan_period_min_ms", false },
	[KNOB_SCAN_MAX] = { NUMAB_DEBUGFS "scan_period_max_ms", false },
};

FIXTURE(load) {
	struct knob knobs[NR_KNOBS];
};

FIXTURE_SETUP(load)
{
	memcpy(self->knobs, knob_init, sizeof(self->knobs));
	if (access(STATS, R_OK))
		SKIP(return, "no " STATS " (no pghot, debugfs or root)");
	if (numa_available() < 0 || numa_max_node() < SLOW_NODE)
		SKIP(return, "no node %d", SLOW_NODE);
	save_knobs(_metadata, self->knobs, NR_KNOBS);
}

FIXTURE_TEARDOWN_PARENT(load)
{
	restore_knobs(_metadata, self->knobs, NR_KNOBS);
}

/* Is memory block @name of node 2 online in ZONE_MOVABLE? */
static bool block_movable(const char *name)
{
	char path[300], buf[64];

	snprintf(path, sizeof(path), MEMORY_DIR "/%s/state", name);
	if (read_str(path, buf, sizeof(buf)) || strcmp(buf, "online"))
		return false;
	snprintf(path, sizeof(path), MEMORY_DIR "/%s/valid_zones", name);
	return !read_str(path, buf, sizeof(buf)) && !strcmp(buf, "Movable");
}

/* Up to MAX_BLOCKS online movable blocks of node 2, into @blocks. */
static int movable_blocks(char blocks[][32])
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = opendir(NODE_DIR);
	if (!dir)
		return 0;
	while (n < MAX_BLOCKS && (d = readdir(dir))) {
		if (strncmp(d->d_name, "memory", 6) || !isdigit(d->d_name[6]) ||
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
 * The load: fault a buffer in on node 2 and touch it from node 0, over
 * and over with a fresh buffer, so that pghot records accesses and
 * kmigrated promotes while blocks come and go. Runs until killed.
 */
static void run_load(void)
{
	struct region rg;
	double start;

	if (numa_run_on_node(TOP_NODE))
		_exit(1);
	for (;;) {
		char *buf = map_small_pages(LOAD_SIZE);

		if (!buf || region_init(&rg, buf, LOAD_SIZE) ||
		    place_on_slow(&rg))
			_exit(1);
		start = now_s();
		while ((now_s() - start) * 1000 < LOAD_ROUND_MS)
			touch_region(&rg);
		unmap_region(&rg);
	}
}

TEST_F_TIMEOUT(load, offline_under_load, HOTPLUG_TEST_TIMEOUT_S)
{
	unsigned long long ready0 = 0, ready1 = 0, acc0 = 0, acc1 = 0;
	bool offline[MAX_BLOCKS] = { };
	unsigned long pages0, bytes0, pages, bytes;
	unsigned long block_bytes, block_pages;
	char blocks[MAX_BLOCKS][32];
	struct residency r;
	struct region rg;
	int nr, i, c, status, err;
	pid_t load;
	FILE *f;

	nr = movable_blocks(blocks);
	if (!nr)
		SKIP(return, "no online movable memory block on node %d",
		     SLOW_NODE);
	f = fopen(BLOCK_SIZE_FILE, "r");
	ASSERT_NE(f, NULL);
	ASSERT_EQ(fscanf(f, "%lx", &block_bytes), 1);
	fclose(f);
	block_pages = block_bytes / sysconf(_SC_PAGESIZE);

	set_knob(_metadata, self->knobs, KNOB_SCAN_DELAY, "0");
	set_knob(_metadata, self->knobs, KNOB_SCAN_MIN, "100");
	set_knob(_metadata, self->knobs, KNOB_SCAN_MAX, "200");
	set_knob(_metadata, self->knobs, KNOB_SOURCES, "0x1");
	set_knob(_metadata, self->knobs, KNOB_FREQ, "1");
	set_knob(_metadata, self->knobs, KNOB_NUMAB, "2");

	ASSERT_EQ(stats_value("tracked_pages", &pages0), 0);
	ASSERT_EQ(stats_value("record_memory_bytes", &bytes0), 0);
	ASSERT_EQ(read_vmstat("pghot_ready", &ready0), 0);
	ASSERT_EQ(read_vmstat("pghot_recorded_accesses", &acc0), 0);

	load = fork();
	ASSERT_GE(load, 0);
	if (!load) {
		run_load();
		_exit(1);
	}
	sleep(2);

	for (c = 0; c < CYCLES; c++) {
		int off = 0;

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
		ksft_print_msg("cycle %d: %d/%d offline: pages %lu -> %lu, bytes %lu -> %lu\n",
			       c, off, nr, pages0, pages, bytes0, bytes);
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
	ksft_print_msg("during the cycles: %llu accesses recorded, %llu pages ready\n",
		       acc1 - acc0, ready1 - ready0);
	EXPECT_GT(acc1, acc0) TH_LOG("nothing was recorded under the load");
	EXPECT_TRUE(kmigrated_running());

	/* Promotion works as before on the node as it is now. */
	ASSERT_EQ(numa_run_on_node(TOP_NODE), 0);
	map_region(_metadata, &rg, CHECK_SIZE);
	ASSERT_EQ(place_on_slow(&rg), 0);
	access_until_promoted(_metadata, &rg, &r, NULL);
	ksft_print_msg("after the cycles: %lu of %lu pages promoted\n", r.top, rg.nr);
	EXPECT_TRUE(reached_pct(r.top, rg.nr, PROMOTED_PCT));
	unmap_region(&rg);
}

TEST_HARNESS_MAIN
