/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pghot: page hotness tracking and promotion of hot lower-tier pages.
 *
 * Sources report accesses to pages of lower-tier (non-toptier) memory. A
 * page accessed freq_threshold times, each access within promote_window_ms
 * of the previous one, becomes migrate-ready and is promoted to a top-tier
 * node by the kmigrated thread of its node. See
 * Documentation/admin-guide/mm/pghot.rst.
 */
#ifndef _LINUX_PGHOT_H
#define _LINUX_PGHOT_H

#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/types.h>

struct page;

struct folio;

/**
 * enum pghot_src - sources of page hotness information
 * @PGHOT_HINTFAULTS: NUMA hint faults in memory tiering mode (bit 0x1)
 * @PGHOT_HWHINTS: hardware access samples, e.g. AMD IBS (bit 0x2)
 * @PGHOT_SRC_MAX: number of sources
 *
 * Bit (1 << src) of the enabled_sources mask enables a source.
 */
enum pghot_src {
	PGHOT_HINTFAULTS,
	PGHOT_HWHINTS,
	PGHOT_SRC_MAX,
};

#define PGHOT_SRC_MASK		((1U << PGHOT_SRC_MAX) - 1)

/**
 * enum pghot_fault_verdict - NUMA balancing's verdict on a hint fault
 * @PGHOT_FAULT_COLD: not hot by its threshold, and no room to spare on
 *	the target node
 * @PGHOT_FAULT_HOT: hot by its threshold (a fault latency under it), and
 *	no room to spare on the target node
 * @PGHOT_FAULT_ROOM: room to spare on the target node: promote at once
 *
 * What the fault path found, passed to pghot_hint_fault() so that pghot
 * does not ask again.
 */
enum pghot_fault_verdict {
	PGHOT_FAULT_COLD,
	PGHOT_FAULT_HOT,
	PGHOT_FAULT_ROOM,
};

struct seq_file;

/**
 * enum pghot_skip_reason - why kmigrated did not promote a ready page
 * @PGHOT_SKIP_STALE: freed, split or moved meanwhile
 * @PGHOT_SKIP_NO_TARGET: no top-tier node to go to
 * @PGHOT_SKIP_PINNED: pinned for DMA
 * @PGHOT_SKIP_POLICY: its owners' memory policy or cpuset excludes the target
 * @PGHOT_SKIP_POLICY_UNKNOWN: the policy could not be checked
 * @PGHOT_SKIP_RATELIMITED: over the target's promotion rate limit
 * @PGHOT_SKIP_TARGET_FULL: the target has no room
 * @PGHOT_SKIP_ISOLATE_FAILED: it could not be isolated
 * @PGHOT_SKIP_FAILED: its batch's migration failed for some pages
 *
 * In the order kmigrated decides. Each has a vmstat counter and shows in
 * the pghot:pghot_promote_skip tracepoint.
 */
enum pghot_skip_reason {
	PGHOT_SKIP_STALE,
	PGHOT_SKIP_NO_TARGET,
	PGHOT_SKIP_PINNED,
	PGHOT_SKIP_POLICY,
	PGHOT_SKIP_POLICY_UNKNOWN,
	PGHOT_SKIP_RATELIMITED,
	PGHOT_SKIP_TARGET_FULL,
	PGHOT_SKIP_ISOLATE_FAILED,
	PGHOT_SKIP_FAILED,
};

/**
 * struct pghot_hwhint_provider - a source of hardware access samples
 * @name: short name, shown in /sys/kernel/debug/pghot/stats
 * @disable: stop sampling; called on unregistration if still sampling
 *	(optional)
 * @show: print the provider's own state, e.g. per CPU, into debugfs
 *	stats (optional)
 * @list: private to pghot
 * @enabled: private to pghot, see pghot_hwhint_set_state()
 *
 * Providers are built in: the pghot_hwhint_*() functions are not exported
 * to modules.
 */
struct pghot_hwhint_provider {
	const char *name;
	void (*disable)(void);
	void (*show)(struct seq_file *m);
	struct list_head list;
	bool enabled;
};

struct dentry;

#ifdef CONFIG_PGHOT

DECLARE_STATIC_KEY_FALSE(pghot_tracking);
void __pghot_free_pages(struct page *page, unsigned int order);

extern unsigned int pghot_enabled_sources;
int pghot_record_access(unsigned long pfn, int nid, enum pghot_src src,
			unsigned long now);
bool __pghot_hint_fault(struct folio *folio, int target,
			enum pghot_fault_verdict verdict);
void __pghot_folio_demoted(struct folio *src, struct folio *dst);

bool pghot_hwhint_report(unsigned long pfn, int nid, unsigned long now);
int pghot_hwhint_register(struct pghot_hwhint_provider *p);
void pghot_hwhint_unregister(struct pghot_hwhint_provider *p);
int pghot_hwhint_set_state(struct pghot_hwhint_provider *p, bool enabled);

struct dentry *pghot_debugfs_dir(void);

/* The page allocator frees pages: forget their hotness. */
static inline void pghot_free_pages(struct page *page, unsigned int order)
{
	if (static_branch_unlikely(&pghot_tracking))
		__pghot_free_pages(page, order);
}

/**
 * pghot_src_enabled - is a hotness source enabled
 * @src: the source
 *
 * Return: true if @src is enabled in enabled_sources.
 */
static inline bool pghot_src_enabled(enum pghot_src src)
{
	return READ_ONCE(pghot_enabled_sources) & (1U << src);
}

/**
 * pghot_hint_fault - let pghot take a NUMA hint fault in tiering mode
 * @folio: the lower-tier folio that faulted (mapped, page table locked)
 * @target: where NUMA balancing would promote it (mpol_misplaced())
 * @verdict: what NUMA balancing found: it would promote the folio now
 *	   unless that is %PGHOT_FAULT_COLD
 *
 * With the hint-fault source enabled, pghot records the access instead of
 * the fault path migrating the folio; kmigrated promotes it to @target
 * once it is hot, at once unless @verdict is %PGHOT_FAULT_COLD. pghot
 * takes only a fault that kmigrated can serve as the fault path would;
 * every other one is left to the fault path, as with pghot off.
 *
 * Return: true if pghot took the fault: the caller must not migrate.
 */
static inline bool pghot_hint_fault(struct folio *folio, int target,
				    enum pghot_fault_verdict verdict)
{
	if (!pghot_src_enabled(PGHOT_HINTFAULTS))
		return false;
	return __pghot_hint_fault(folio, target, verdict);
}

/* Reclaim demotes @src into @dst, just allocated on a lower tier. */
static inline void pghot_folio_demoted(struct folio *src, struct folio *dst)
{
	if (static_branch_unlikely(&pghot_tracking))
		__pghot_folio_demoted(src, dst);
}

#else

static inline void pghot_free_pages(struct page *page, unsigned int order)
{
}

static inline int pghot_record_access(unsigned long pfn, int nid,
				      enum pghot_src src, unsigned long now)
{
	return -EOPNOTSUPP;
}

static inline bool pghot_src_enabled(enum pghot_src src)
{
	return false;
}

static inline bool pghot_hint_fault(struct folio *folio, int target,
				    enum pghot_fault_verdict verdict)
{
	return false;
}

static inline void pghot_folio_demoted(struct folio *src, struct folio *dst)
{
}

#endif /* CONFIG_PGHOT */

#endif /* _LINUX_PGHOT_H */
