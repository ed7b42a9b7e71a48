/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pghot record store: one record per page of lower-tier memory, kept per
 * memory section in per-node tables, following memory hotplug.
 */
#ifndef _MM_PGHOT_RECORD_H
#define _MM_PGHOT_RECORD_H

#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/types.h>

#include "rule.h"

/* Set by pghot_mode=off: no records, no kmigrated, no sources. */
extern bool pghot_off;

/* Lower-tier nodes that have records: cheap to test on every access. */
extern nodemask_t pghot_tracked_nodes;

static inline bool pghot_node_tracked(int nid)
{
	return node_isset(nid, pghot_tracked_nodes);
}

/* What pghot_record_touch() did, besides counting the access. */
#define PGHOT_TOUCH_READY	BIT(0)	/* the page just became ready */
#define PGHOT_TOUCH_HELD	BIT(1)	/* ignored: the page is held */
#define PGHOT_TOUCH_SWEEP	BIT(2)	/* the section asks for a sweep */

/*
 * Regions of 2 MiB (or a memory section, if that is smaller): what the
 * samples of a sampled source also count for, see rule.h.
 */
#define PGHOT_REGION_ORDER	((21 - PAGE_SHIFT) < PFN_SECTION_SHIFT ? \
				 (21 - PAGE_SHIFT) : PFN_SECTION_SHIFT)
#define PGHOT_REGION_PAGES	BIT(PGHOT_REGION_ORDER)
#define PGHOT_REGIONS_PER_SECTION (PAGES_PER_SECTION >> PGHOT_REGION_ORDER)

int pghot_record_touch(int nid, unsigned long pfn, struct pghot_access *a,
		       unsigned int *res);
int pghot_region_touch(int nid, unsigned long pfn,
		       const struct pghot_region_sample *r,
		       enum pghot_region_verdict *verdict, bool *turned_hot,
		       bool *seen, bool *rest);
bool pghot_region_sampled(int nid, unsigned long pfn, unsigned long *bits);
void pghot_region_left(int nid, unsigned long pfn, unsigned int nr);
u32 pghot_region_ref(int nid, unsigned long window);
void pghot_region_ref_reset(void);
bool pghot_record_mark(int nid, unsigned long pfn, int target,
		       unsigned int min_freq);
bool pghot_record_is_ready(int nid, unsigned long pfn);
bool pghot_record_take_ready(int nid, unsigned long pfn, u32 *rec);
void pghot_record_unready(int nid, unsigned long pfn);
void pghot_record_defer(int nid, unsigned long pfn, int target);
unsigned int pghot_collect_deferred(int nid, unsigned long *pfns, int *targets,
				    unsigned int max);
bool pghot_sweep_node(int nid);
void pghot_record_hold(int nid, unsigned long pfn);

void pghot_set_clock(unsigned int window_ms);
unsigned int pghot_window_units(unsigned int window_ms);

int pghot_nearest_toptier(int nid);

struct pghot_store_stats {
	unsigned long bytes;		/* allocated for records, headers, tables */
	unsigned long pages;		/* pages that have a record */
	unsigned long sections;
};

void pghot_store_stats(int nid, struct pghot_store_stats *st);

#endif /* _MM_PGHOT_RECORD_H */
