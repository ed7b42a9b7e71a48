/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hardware hints for the pghot kselftests, through the debug injection file
 * (CONFIG_PGHOT_HWHINT_INJECT): the PFNs of a region, read from
 * /proc/self/pagemap (root sees them), reported as samples, optionally with
 * the node of the CPU that made the access ("PFN:NID").
 */
#ifndef __PGHOT_INJECT_H
#define __PGHOT_INJECT_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pghot_util.h"

#define PGHOT_INJECT		PGHOT_DIR "inject"
#define INJECT_CHUNK		(60 * 1024)	/* the file takes 64 KiB a write */

/*
 * The PFN behind @addr, from /proc/self/pagemap open as @fd: 0 if the page
 * is not present (or its PFN is hidden), -1 if the entry cannot be read.
 */
static inline long pagemap_pfn(int fd, const void *addr)
{
	off_t off = (uintptr_t)addr / PAGE_STRIDE * sizeof(uint64_t);
	uint64_t e;

	if (pread(fd, &e, sizeof(e), off) != sizeof(e))
		return -1;
	return e >> 63 ? (long)(e & ((1ULL << 55) - 1)) : 0;
}

/* The PFN of every page of @rg into @pfns; 0, or -1 if one is not there. */
static inline int region_pfns(const struct region *rg, unsigned long *pfns)
{
	unsigned long i;
	long pfn;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -1;
	for (i = 0; i < rg->nr; i++) {
		pfn = pagemap_pfn(fd, rg->pages[i]);
		if (pfn <= 0)
			break;
		pfns[i] = pfn;
	}
	close(fd);
	return i == rg->nr ? 0 : -1;
}

/*
 * Report each of @nr PFNs once, as accessed from node @nid (-1: the
 * writer's node). Returns 0, or -1 with errno of the failed write.
 */
static inline int inject_pfns(const unsigned long *pfns, unsigned long nr,
			      int nid)
{
	char *text = malloc(INJECT_CHUNK + 64);
	unsigned long i = 0;
	int ret = 0;

	if (!text)
		return -1;
	while (i < nr && !ret) {
		size_t len = 0;

		while (i < nr && len < INJECT_CHUNK) {
			if (nid < 0)
				len += sprintf(text + len, "0x%lx ", pfns[i++]);
			else
				len += sprintf(text + len, "0x%lx:%d ", pfns[i++], nid);
		}
		ret = write_str(PGHOT_INJECT, text);
	}
	free(text);
	return ret;
}

/*
 * The PFNs of the pages of @rg that are present, into @pfns: all of them,
 * or (@only_placed) only those on the node the region was placed on
 * (after query_residency()). A page being migrated is not present (its
 * entry is a migration entry): no sampler sees it either. Returns how
 * many, or -1 if pagemap cannot be read.
 */
static inline long region_present_pfns(const struct region *rg,
				       unsigned long *pfns, bool only_placed)
{
	unsigned long i;
	long n = 0, pfn;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -1;
	for (i = 0; i < rg->nr; i++) {
		if (only_placed && rg->status[i] != rg->nid)
			continue;
		pfn = pagemap_pfn(fd, rg->pages[i]);
		if (pfn < 0) {
			n = -1;
			break;
		}
		if (pfn)
			pfns[n++] = pfn;
	}
	close(fd);
	return n;
}

static inline long inject_present(const struct region *rg, int nid,
				  bool only_placed)
{
	unsigned long *pfns = calloc(rg->nr, sizeof(*pfns));
	long n = -1;

	if (pfns)
		n = region_present_pfns(rg, pfns, only_placed);
	if (n > 0 && inject_pfns(pfns, n, nid))
		n = -1;
	free(pfns);
	return n;
}

/*
 * Report every present page of @rg once; see inject_pfns(). 0, or -1 if
 * nothing could be reported.
 */
static inline int inject_region(const struct region *rg, int nid)
{
	return inject_present(rg, nid, false) > 0 ? 0 : -1;
}

#define KPF_THP_BIT		22	/* in /proc/kpageflags */

/* Is every page of @rg part of a THP? 1 or 0, or -1 if it cannot tell. */
static inline int region_all_thp(const struct region *rg)
{
	unsigned long *pfns = calloc(rg->nr, sizeof(*pfns)), i;
	int fd, ret = -1;
	uint64_t f;

	if (!pfns || region_pfns(rg, pfns))
		goto out;
	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0)
		goto out;
	ret = 1;
	for (i = 0; i < rg->nr && ret == 1; i++) {
		if (pread(fd, &f, sizeof(f), pfns[i] * sizeof(f)) != sizeof(f))
			ret = -1;
		else if (!(f >> KPF_THP_BIT & 1))
			ret = 0;
	}
	close(fd);
out:
	free(pfns);
	return ret;
}

/* How many pages of @rg are on node @nid (after query_residency()). */
static inline unsigned long region_on_node(const struct region *rg, int nid)
{
	unsigned long i, n = 0;

	for (i = 0; i < rg->nr; i++)
		n += rg->status[i] == nid;
	return n;
}

/*
 * Report, as a sampler that keeps seeing them would, the present pages of
 * @rg that are still on the node it was placed on (after
 * query_residency()), as accessed from node @nid (-1: the writer's).
 * Returns how many, or -1.
 */
static inline long inject_region_left(const struct region *rg, int nid)
{
	return inject_present(rg, nid, true);
}

/*
 * A sampler keeps seeing the pages it saw: a test reports the pages left
 * in rounds, at most HINT_ROUNDS_MAX of them, and asks HINT_FIRST_PCT of
 * them to have moved after the first: a pghot that drops most hints must
 * fail, not pass after many rounds.
 */
#define HINT_ROUNDS_MAX		3
#define HINT_FIRST_PCT		90
#define HINT_SETTLE_S		3	/* no page moved this long: a round is over */

/*
 * Wait until the pages of @rg on node @want stop growing (HINT_SETTLE_S
 * without a move, at most PROMOTE_MAX_S) or reach PROMOTED_PCT. Returns
 * how many are there.
 */
static inline unsigned long wait_settled(const struct region *rg, int want)
{
	double start = now_s();
	struct progress p = { };
	struct residency r;
	unsigned long on;

	for (;;) {
		usleep(CHECK_INTERVAL_MS * 1000 / 2);
		if (query_residency(rg, &r))
			return 0;
		on = region_on_node(rg, want);
		if (progress_done(&p, on, rg->nr, HINT_SETTLE_S) ||
		    now_s() - start > PROMOTE_MAX_S)
			return on;
	}
}

/*
 * Report the pages of @rg still on the node it was placed on as accessed
 * from node @nid (-1: the writer's), in rounds until PROMOTED_PCT of @rg
 * is on @want, at most HINT_ROUNDS_MAX, each until nothing moves. Rounds
 * already made by the caller count in *@rounds (which it sets). Returns
 * how many pages are on @want; *@first: how many were after the first.
 */
static inline long hint_rounds(const struct region *rg, int nid, int want,
			       unsigned long *first, unsigned int *rounds)
{
	struct residency r;
	unsigned long on;

	if (query_residency(rg, &r))
		return -1;
	on = region_on_node(rg, want);
	while (*rounds < HINT_ROUNDS_MAX) {
		if (*rounds && reached_pct(on, rg->nr, PROMOTED_PCT))
			break;
		if (inject_region_left(rg, nid) < 0)
			return -1;
		on = wait_settled(rg, want);
		if (!*rounds)
			*first = on;
		++*rounds;
	}
	return on;
}

#endif /* __PGHOT_INJECT_H */
