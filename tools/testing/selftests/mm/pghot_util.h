/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the pghot kselftests (pghot_tiering.c, pghot_promote.c).
 * They assume a box shaped like the reference one: nodes 0 and 1 with CPUs
 * and DRAM, node 2 CPU-less memory that memory-tiers places in a lower tier.
 * The task runs on node 0 and its memory is faulted in on node 2.
 */
#ifndef __PGHOT_UTIL_H
#define __PGHOT_UTIL_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define TOP_NODE		0	/* the task runs here */
#define PEER_NODE		1	/* other top-tier node */
#define SLOW_NODE		2	/* CPU-less lower-tier node */

#define PAGE_STRIDE		4096UL	/* one access per 4K page */

#define PLACED_PCT		99	/* on SLOW_NODE before the run */
#define PROMOTED_PCT		99	/* on the top tier after the run */
#define PROMOTE_TIMEOUT_S	60	/* longest access loop */
#define CHECK_INTERVAL_MS	1000	/* residency check period */

#define MEMTIER_DIR		"/sys/devices/virtual/memory_tiering"
#define NUMAB_SYSCTL		"/proc/sys/kernel/numa_balancing"
#define NUMAB_DEBUGFS		"/sys/kernel/debug/sched/numa_balancing/"

#define VMSTAT_MAX		16	/* counters read_vmstat_list() takes */

/*
 * Does the range list @list ("0-1", "2", "0,2-3", "" ...) contain @nid?
 * Returns 1 or 0, or -1 if @list is malformed.
 */
static inline int nodelist_has(const char *list, int nid)
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

/* Read the first line of @path, without its newline. */
static inline int read_str(const char *path, char *buf, size_t size)
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

/*
 * One write(2) of exactly @len bytes of @val to @path, opened afresh (the
 * pghot files only take writes at offset 0). Returns what write() returned,
 * or -1 if the open failed; errno is that of the failing call.
 */
static inline ssize_t write_raw(const char *path, const char *val, size_t len)
{
	ssize_t ret;
	int fd, err;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = write(fd, val, len);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

/* Write all of @val to @path in one write(2); 0 or -1. */
static inline int write_str(const char *path, const char *val)
{
	size_t len = strlen(val);

	return write_raw(path, val, len) == (ssize_t)len ? 0 : -1;
}

/*
 * Memory tier of @nid: the N of the memory_tierN directory whose nodelist
 * holds it. A larger N is a larger abstract distance, i.e. a slower tier.
 * Returns -1 if no tier lists @nid, -2 on a read or parse error.
 */
static inline int node_memtier(int nid)
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

/*
 * Fixture setup: SKIP, and return false, unless SLOW_NODE and TOP_NODE
 * each have at least @bytes free.
 */
static inline bool nodes_have_free(struct __test_metadata *_metadata,
				   unsigned long bytes)
{
	static const int nids[] = { SLOW_NODE, TOP_NODE };
	long long avail;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nids); i++) {
		if (numa_node_size64(nids[i], &avail) < 0 ||
		    avail < (long long)bytes)
			SKIP(return false, "node %d has less than %lu MiB free",
			     nids[i], bytes >> 20);
	}
	return true;
}

/*
 * Read the /proc/vmstat counters @names[0] .. @names[@nr - 1] into @vals,
 * in one pass. Returns -1 if one is missing or @nr exceeds VMSTAT_MAX.
 */
static inline int read_vmstat_list(const char * const *names,
				   unsigned long long *vals, int nr)
{
	bool found[VMSTAT_MAX] = { };
	char line[256];
	size_t len;
	FILE *f;
	int i;

	if (nr > VMSTAT_MAX)
		return -1;
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < nr; i++) {
			len = strlen(names[i]);
			if (!strncmp(line, names[i], len) && line[len] == ' ') {
				vals[i] = strtoull(line + len + 1, NULL, 10);
				found[i] = true;
			}
		}
	}
	fclose(f);
	for (i = 0; i < nr; i++)
		if (!found[i])
			return -1;
	return 0;
}

/* The /proc/vmstat counter @name; -1 if it is missing. */
static inline int read_vmstat(const char *name, unsigned long long *val)
{
	return read_vmstat_list(&name, val, 1);
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

/* A buffer and what move_pages() needs to ask where its 4K pages are. */
struct region {
	char *buf;
	size_t size;
	unsigned long nr;	/* 4K pages */
	void **pages;
	int *status;
};

/* Where the 4K pages of a region are. */
struct residency {
	unsigned long slow, top, other, missing;
};

static inline int region_init(struct region *rg, char *buf, size_t size)
{
	unsigned long i;

	rg->buf = buf;
	rg->size = size;
	rg->nr = size / PAGE_STRIDE;
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

static inline int query_residency(const struct region *rg,
				  struct residency *r)
{
	unsigned long i;

	memset(r, 0, sizeof(*r));
	if (move_pages(0, rg->nr, rg->pages, NULL, rg->status, 0))
		return -1;
	for (i = 0; i < rg->nr; i++) {
		if (rg->status[i] == SLOW_NODE)
			r->slow++;
		else if (rg->status[i] == TOP_NODE || rg->status[i] == PEER_NODE)
			r->top++;
		else if (rg->status[i] >= 0)
			r->other++;
		else
			r->missing++;
	}
	return 0;
}

/*
 * Fault the region in on the slow node, then drop the policy again: NUMA
 * balancing never scans an MPOL_BIND range.
 */
static inline int place_on_slow(const struct region *rg)
{
	unsigned long slow_mask = 1UL << SLOW_NODE;

	if (mbind(rg->buf, rg->size, MPOL_BIND, &slow_mask,
		  sizeof(slow_mask) * 8, 0))
		return -1;
	touch_region(rg);
	return mbind(rg->buf, rg->size, MPOL_DEFAULT, NULL, 0, 0);
}

/*
 * Touch every page of @rg until PROMOTED_PCT of it is on the top tier or
 * PROMOTE_TIMEOUT_S have passed, checking every CHECK_INTERVAL_MS.
 * Returns the seconds taken; @r is the residency at the end and, unless
 * @passes is NULL, *@passes the number of passes over @rg.
 */
static inline double access_until_promoted(struct __test_metadata *_metadata,
					   const struct region *rg,
					   struct residency *r,
					   unsigned long *passes)
{
	double start = now_s(), last_check = start;
	unsigned long pass = 0;

	do {
		touch_region(rg);
		pass++;
		if ((now_s() - last_check) * 1000 < CHECK_INTERVAL_MS)
			continue;
		last_check = now_s();
		ASSERT_EQ(query_residency(rg, r), 0);
		if (reached_pct(r->top, rg->nr, PROMOTED_PCT))
			break;
	} while (now_s() - start < PROMOTE_TIMEOUT_S);

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

/* Fixture teardown, in the parent: restore every knob a test changed. */
static inline void restore_knobs(struct __test_metadata *_metadata,
				 struct knob *knobs, int nr)
{
	int i;

	for (i = nr - 1; i >= 0; i--) {
		struct knob *k = &knobs[i];

		if (!k->changed)
			continue;
		EXPECT_EQ(write_str(k->path, k->saved), 0)
			TH_LOG("cannot restore %s to %s", k->path, k->saved);
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

#endif /* __PGHOT_UTIL_H */
