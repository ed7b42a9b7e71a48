// SPDX-License-Identifier: GPL-2.0
/*
 * pghot records follow memory hotplug: offlining a memory block of the
 * lower-tier node frees the records of its pages (tracked_pages and
 * record_memory_bytes in /sys/kernel/debug/pghot/stats drop by the block's
 * share), onlining it again allocates them again, and the node keeps its
 * kmigrated thread throughout.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SLOW_NODE	2
#define STATS		"/sys/kernel/debug/pghot/stats"
#define NODE_DIR	"/sys/devices/system/node/node2"
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

TEST_HARNESS_MAIN
