// SPDX-License-Identifier: GPL-2.0
/*
 * pghot core: the one entry point for page hotness information,
 * pghot_record_access(), and the NUMA hint fault source.
 *
 * A report names a page and the node it should go to. The page's record
 * (record.c) judges it by the rule (rule.c); a page that turns hot is
 * queued for the kmigrated thread of its node (kmigrated.c).
 *
 * With the hint-fault source on, NUMA balancing in tiering mode hands
 * every hint fault on a tracked lower-tier folio to pghot after the memory
 * policy has chosen the target (mpol_misplaced()), together with NUMA
 * balancing's own verdict: a fault that came quickly after the scan, or a
 * target with room to spare, makes the page hot at once. So pghot promotes
 * every page NUMA balancing would promote, to the same node, and more: a
 * page whose faults are slow but frequent qualifies by the rule. A fault
 * kmigrated cannot serve as the fault path would goes the fault path's
 * way, as if pghot were off (see __pghot_hint_fault()). Pages kmigrated
 * promoted that reclaim demotes soon after are held for a while: their
 * accesses count for nothing by pghot's rule, so that a working set
 * larger than the top tier does not ping-pong on pghot's account.
 */
#define pr_fmt(fmt) "pghot: " fmt

#include <linux/bitmap.h>
#include <linux/cpuset.h>
#include <linux/memory-tiers.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/pghot.h>
#include <linux/vmstat.h>

#include "kmigrated.h"
#include "queue.h"
#include "record.h"
#include "target.h"

#include <trace/events/pghot.h>

unsigned int pghot_enabled_sources __read_mostly = 1U << PGHOT_HINTFAULTS;

/*
 * Record an access to @pfn (the head page of a folio on tracked node
 * @nid), bound for @target, that needs @threshold accesses in its
 * record's window, or in @known (those the caller remembers, see rule.c).
 * @room: whether the caller found room to spare on @target (1 or 0), or
 * -1 to look, see pghot_target_window_ms().
 * Hardware hints and the fault path share it. Return: -ENOENT if @pfn has
 * no record, else the PGHOT_TOUCH_* flags of what the access did; the
 * caller queues a page that turned ready.
 */
static int pghot_record(unsigned long pfn, int nid, int target,
			enum pghot_src src, unsigned long now,
			unsigned int threshold, unsigned int known, int room)
{
	unsigned int window_ms = pghot_target_window_ms(target, room);
	struct pghot_access a = {
		.now = now,
		.nid = pghot_layout->nid_bits ? target : NUMA_NO_NODE,
		.window = pghot_window_units(window_ms),
		.threshold = threshold,
		.known = known,
	};
	unsigned int res;

	if (pghot_record_touch(nid, pfn, &a, &res)) {
		count_vm_event(PGHOT_IGNORED_UNTRACKED);
		return -ENOENT;
	}
	count_vm_event(PGHOT_RECORDED_ACCESSES);
	count_vm_event(src == PGHOT_HINTFAULTS ? PGHOT_RECORDED_HINTFAULTS :
						 PGHOT_RECORDED_HWHINTS);
	if (res & PGHOT_TOUCH_SWEEP)
		pghot_queue_kick(nid);
	if (res & PGHOT_TOUCH_HELD)
		count_vm_event(PGHOT_PROMOTE_PINGPONG);
	if (res & PGHOT_TOUCH_READY) {
		count_vm_event(PGHOT_READY);
		trace_pghot_ready(pfn, nid, target, src);
	}
	return res;
}

/*
 * Queue @pfn, just made ready, or keep it ready for kmigrated's scan: its
 * node's kmigrated finds it once the queue has drained, or once it starts
 * (a node whose kmigrated is not running).
 */
static void pghot_ready(int nid, unsigned long pfn, int target)
{
	if (pghot_queue_ready(nid, pfn, target, 0, 0,
			      READ_ONCE(pghot_kmigrated_batch_nr)))
		return;
	pghot_record_defer(nid, pfn, target);
	count_vm_event(PGHOT_READY_DEFERRED);
	pghot_queue_deferred(nid);
}

/* What a hardware sample's region says about the sampled page. */
struct pghot_region_say {
	unsigned int need;		/* samples of its own it needs */
	unsigned int known;		/* what it had, as far as the region knows */
	bool turned_hot;		/* this sample made the region hot */
	bool walk;			/* look for the region's other sampled pages */
	bool rest;			/* look for the region's last pages */
};

/*
 * Count a hardware sample of @pfn (a folio's head on tracked node @nid) in
 * its region, see rule.c, and say what the region says, in @say.
 */
static void pghot_region_sample(int nid, unsigned long pfn,
				unsigned long now, unsigned int threshold,
				struct pghot_region_say *say)
{
	unsigned int ms = READ_ONCE(pghot_hwhint_region_ms);
	enum pghot_region_verdict verdict = PGHOT_REGION_UNKNOWN;
	struct pghot_region_sample r = {
		.now = now,
		.window = msecs_to_jiffies(ms),
		.min_span = msecs_to_jiffies(READ_ONCE(pghot_promote_window_ms)),
		.threshold = threshold,
		.pages = PGHOT_REGION_PAGES,
		.ref_div = READ_ONCE(pghot_hwhint_region_ref),
	};
	bool seen = false;

	*say = (struct pghot_region_say){ .need = threshold };
	if (!ms || pghot_region_touch(nid, pfn, &r, &verdict, &say->turned_hot,
				      &seen, &say->rest))
		return;
	say->need = pghot_region_threshold(threshold, verdict);
	/* This sample and the one the region remembers. */
	if (seen && pghot_region_remembers(verdict))
		say->known = 2;
	/*
	 * One sample is now enough (threshold 1): the pages sampled before,
	 * while it was not, become ready.
	 */
	say->walk = say->turned_hot && say->need <= 1;
}

/*
 * The folio whose head page is @pfn, if it is on node @nid, on an LRU list
 * and not @except: with a reference, for the caller to put. A large folio
 * counts once, at its head.
 */
static struct folio *pghot_region_folio_get(unsigned long pfn, int nid,
					    struct folio *except)
{
	struct page *page = pfn_to_online_page(pfn);
	struct folio *f;

	if (!page || page_to_nid(page) != nid)
		return NULL;
	f = page_folio(page);
	if (f == except || folio_pfn(f) != pfn || !folio_try_get(f))
		return NULL;
	if (page_folio(page) == f && folio_test_lru(f))
		return f;
	folio_put(f);
	return NULL;
}

/*
 * Make @pfn ready on its region's evidence if its record shows @min_freq.
 * It goes where its own record says (precise), else where its node's
 * pages go by default: not where the sample that made the region hot
 * came from, which was another page's access.
 */
static void pghot_region_mark(int nid, unsigned long pfn,
			      unsigned int min_freq)
{
	if (!pghot_record_mark(nid, pfn, NUMA_NO_NODE, min_freq))
		return;
	count_vm_event(PGHOT_READY);
	count_vm_event(PGHOT_REGION_READY);
	trace_pghot_ready(pfn, nid, NUMA_NO_NODE, PGHOT_HWHINTS);
	pghot_ready(nid, pfn, NUMA_NO_NODE);
}

/*
 * In the region of @folio (sampled, on tracked node @nid) one sample of a
 * page's own just became enough: make ready the other pages of the region
 * sampled in its window that belong to the same mapping (the same
 * anonymous memory or file). A page never sampled stays (but see
 * pghot_region_promote_rest()): the region's pages need not all be alike
 * (the pages of two sets of one task can lie side by side in physical
 * memory), and pages of other owners say nothing about this one. kmigrated
 * checks every page against its owners' policy.
 */
static void pghot_region_promote(struct folio *folio, int nid)
{
	unsigned long start = ALIGN_DOWN(folio_pfn(folio), PGHOT_REGION_PAGES);
	struct address_space *owner = READ_ONCE(folio->mapping);
	DECLARE_BITMAP(sampled, PGHOT_REGION_PAGES);
	unsigned long i;
	struct folio *f;

	if (!pghot_region_sampled(nid, start, sampled))
		return;
	for_each_set_bit(i, sampled, PGHOT_REGION_PAGES) {
		f = pghot_region_folio_get(start + i, nid, folio);
		if (!f)
			continue;
		if (READ_ONCE(f->mapping) == owner)
			pghot_region_mark(nid, start + i, 0);
		folio_put(f);
	}
}

/*
 * Nearly all the pages of the hot region of @folio (sampled, on tracked
 * node @nid) have left it for the top tier (see pghot_region_rest_due()):
 * if no more than 1/2^PGHOT_REGION_REST_SHIFT of the region's pages of
 * the same owner are left that are not ready, and no more pages of other
 * owners, make those last pages ready too. A region with more of them
 * (e.g. a warm set beside a hot one) stays as it is: its samples have not
 * shown that all of it is hot.
 */
static void pghot_region_promote_rest(struct folio *folio, int nid)
{
	unsigned long start = ALIGN_DOWN(folio_pfn(folio), PGHOT_REGION_PAGES);
	const unsigned int max = PGHOT_REGION_PAGES >> PGHOT_REGION_REST_SHIFT;
	struct address_space *owner = READ_ONCE(folio->mapping);
	unsigned int nr = 0, others = 0, pass;
	unsigned long pfn;
	struct folio *f;

	/* Count first; then mark each page while holding it, so it is still ours. */
	for (pass = 0; pass < 2; pass++) {
		for (pfn = start; pfn < start + PGHOT_REGION_PAGES; pfn++) {
			f = pghot_region_folio_get(pfn, nid, folio);
			if (!f)
				continue;
			if (READ_ONCE(f->mapping) != owner) {
				others++;
			} else if (!pghot_record_is_ready(nid, pfn)) {
				if (pass)
					pghot_region_mark(nid, pfn, 0);
				else
					nr++;
			}
			folio_put(f);
			if (!pass && (nr > max || others > max))
				return;
		}
	}
}

static int pghot_record_access_in(unsigned long pfn, int nid,
				  enum pghot_src src, unsigned long now,
				  unsigned int sources);

/**
 * pghot_record_access - report an access to a page
 * @pfn: page frame number of the accessed page
 * @nid: node of the accessing CPU, or NUMA_NO_NODE if unknown
 * @src: the source of the information
 * @now: time of the access, in jiffies (a time in the future counts as now)
 *
 * Only pages on lower-tier nodes are tracked; others are ignored and
 * counted by reason. A page that becomes migrate-ready is queued for the
 * kmigrated thread of its node, to be promoted to @nid if that is a
 * top-tier node with memory, else to the nearest one. Callable from
 * process, softirq and workqueue context, with spinlocks held; never
 * sleeps. Hardware samples taken in NMI context must go through the
 * hardware hint path instead.
 *
 * Return: 0 if recorded, -EINVAL for a bad @src or @nid, -ENODEV if @src
 * is disabled, -ENOENT if the page is not tracked.
 */
int pghot_record_access(unsigned long pfn, int nid, enum pghot_src src,
			unsigned long now)
{
	return pghot_record_access_in(pfn, nid, src, now,
				      READ_ONCE(pghot_enabled_sources));
}

/* With the enabled sources passed in, for the tests. */
static int pghot_record_access_in(unsigned long pfn, int nid,
				  enum pghot_src src, unsigned long now,
				  unsigned int sources)
{
	struct pghot_region_say say = { };
	unsigned int threshold;
	struct folio *folio;
	struct page *page;
	int pnid, target, ret;

	if ((unsigned int)src >= PGHOT_SRC_MAX)
		return -EINVAL;
	if (nid != NUMA_NO_NODE &&
	    (nid < 0 || nid >= nr_node_ids || !node_online(nid)))
		return -EINVAL;
	if (!(sources & (1U << src)))
		return -ENODEV;

	page = pfn_to_online_page(pfn);
	if (!page) {
		count_vm_event(PGHOT_IGNORED_OFFLINE);
		return -ENOENT;
	}
	pnid = page_to_nid(page);
	if (!pghot_node_tracked(pnid)) {
		count_vm_event(node_is_toptier(pnid) ? PGHOT_IGNORED_TOPTIER :
						       PGHOT_IGNORED_UNTRACKED);
		return -ENOENT;
	}
	/* The page may be freed or split under us: look with a reference. */
	folio = page_folio(page);
	if (!folio_try_get(folio)) {
		count_vm_event(PGHOT_IGNORED_NONLRU);
		return -ENOENT;
	}
	if (unlikely(page_folio(page) != folio || !folio_test_lru(folio))) {
		count_vm_event(PGHOT_IGNORED_NONLRU);
		ret = -ENOENT;
		goto put;
	}
	/*
	 * KSM folios are shared by every process that merged them: legacy
	 * never scans them, and asking all of their owners is unbounded work.
	 */
	if (folio_test_ksm(folio)) {
		count_vm_event(PGHOT_IGNORED_KSM);
		ret = -ENOENT;
		goto put;
	}
	/* A large folio is hot as a whole and promoted as a whole. */
	target = pghot_valid_target(nid) ? nid : NUMA_NO_NODE;
	threshold = READ_ONCE(pghot_freq_threshold);
	say.need = threshold;
	if (src == PGHOT_HWHINTS)
		pghot_region_sample(pnid, folio_pfn(folio), now, threshold,
				    &say);
	ret = pghot_record(folio_pfn(folio), pnid, target, src, now, say.need,
			   say.known, -1);
	if (ret < 0)
		goto put;
	if (ret & PGHOT_TOUCH_READY)
		pghot_ready(pnid, folio_pfn(folio), target);
	if (say.turned_hot)
		count_vm_event(PGHOT_REGION_HOT);
	if (say.walk)
		pghot_region_promote(folio, pnid);
	else if (say.rest)
		pghot_region_promote_rest(folio, pnid);
	ret = 0;
put:
	folio_put(folio);
	return ret;
}

/*
 * Can kmigrated promote @folio, which just took a NUMA hint fault, to
 * @target as the fault path would? It has no VMA (it cannot tell a shared
 * library from shared data), allocates outside the faulting task's cpuset,
 * and cannot take a folio somebody else holds isolated.
 */
static bool pghot_fault_servable(struct folio *folio, int target)
{
	if (!folio_test_lru(folio))
		return false;
	if (folio_is_file_lru(folio) && folio_maybe_mapped_shared(folio))
		return false;
	/* The fault path allocates in the faulting task's cpuset. */
	if (!node_isset(target, cpuset_current_mems_allowed))
		return false;
	return pghot_valid_target(target);
}

/*
 * See pghot_hint_fault(). pghot takes a fault only if kmigrated will do
 * with the folio what the fault path would: the access is recorded and,
 * if that made the folio ready, it is queued for kmigrated. Every other
 * fault goes the fault path's way, exactly as with pghot off: a folio
 * kmigrated cannot serve (pghot_fault_servable()), one without a record,
 * one held after a demotion, and one that turned ready when its node's
 * kmigrated had two batches to do already or is not running (unless
 * target_nid sends it where the fault path would not: it then waits for
 * kmigrated, as a hardware hint does).
 */
bool __pghot_hint_fault(struct folio *folio, int target,
			enum pghot_fault_verdict verdict)
{
	bool hot = verdict != PGHOT_FAULT_COLD;
	unsigned int flags = PGHOT_READY_VETTED | (hot ? PGHOT_READY_RECLAIM : 0);
	unsigned int batch_nr = READ_ONCE(pghot_kmigrated_batch_nr);
	unsigned long pfn = folio_pfn(folio);
	int nid = folio_nid(folio), res, forced;

	/* Untracked: NUMA balancing decides, as without pghot. */
	if (!pghot_node_tracked(nid))
		return false;
	if (!pghot_fault_servable(folio, target))
		goto legacy;
	res = pghot_record(pfn, nid, target, PGHOT_HINTFAULTS, jiffies,
			   hot ? 1 : READ_ONCE(pghot_freq_threshold), 0,
			   verdict == PGHOT_FAULT_ROOM);
	if (res < 0 || (res & PGHOT_TOUCH_HELD))
		goto legacy;
	if (res & PGHOT_TOUCH_READY) {
		forced = READ_ONCE(pghot_target_nid);
		if (pghot_valid_target(forced) && forced != target) {
			/* target_nid: where the fault path would not put it. */
			pghot_ready(nid, pfn, target);
		} else if (!pghot_queue_ready(nid, pfn, target, flags, 2 * batch_nr,
					      batch_nr)) {
			/* What kmigrated cannot promote within two batches, the task does. */
			pghot_record_unready(nid, pfn);
			goto legacy;
		}
	} else if (hot && pghot_record_is_ready(nid, pfn)) {
		/* Queued as hot by pghot's rule: the fault path would reclaim. */
		pghot_want_reclaim(target);
	}
	return true;
legacy:
	count_vm_event(PGHOT_HINTFAULT_LEGACY);
	return false;
}

/*
 * See pghot_folio_demoted(). Only a page kmigrated promoted lately is held:
 * that it comes down again so soon is the sign of a hot set larger than
 * the room the top tier has for it. Pages demoted for being cold, by
 * memory.reclaim or a spike of allocations compete again at once.
 */
void __pghot_folio_demoted(struct folio *src, struct folio *dst)
{
	int nid = folio_nid(dst);

	if (pghot_node_tracked(nid) && pghot_recently_promoted(src))
		pghot_record_hold(nid, folio_pfn(dst));
}

/* After the store and kmigrated: say what there is, or that there is none. */
static int __init pghot_core_init(void)
{
	struct pghot_store_stats st;
	unsigned long bytes = 0;
	int nid;

	if (pghot_off) {
		/* Hint faults promote the NUMA balancing way. */
		WRITE_ONCE(pghot_enabled_sources, 0);
		pr_info("off (pghot_mode=off)\n");
		return 0;
	}
	for_each_node(nid) {
		pghot_store_stats(nid, &st);
		bytes += st.bytes;
	}
	pr_info("%s mode, %u byte(s) per lower-tier page, %lu KiB of records\n",
		pghot_layout->name, pghot_layout->size, bytes >> 10);
	return 0;
}
late_initcall_sync(pghot_core_init);

#include "tests/core-kunit.h"
