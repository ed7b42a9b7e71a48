// SPDX-License-Identifier: GPL-2.0
/*
 * The promotion budget of each top-tier target node, which the sources
 * consult when they record an access and kmigrated when it promotes.
 *
 * A target is a top-tier node with memory (pghot_valid_target()), or the
 * one target_nid names. Promotion to it follows the rules of NUMA
 * balancing in tiering mode: while it has memory to spare everything goes
 * (pgpromote_candidate_nrl); otherwise the pages that can go are rate
 * limited (kernel.numa_balancing_promote_rate_limit_MBps, shared with the
 * fault path) and the promotion window of pages bound for it adapts so
 * that candidates track the limit, on every access recorded, as NUMA
 * balancing adapts its hot threshold on every hint fault. A hot fault on a
 * page already queued asks for reclaim on its target for a while
 * (pghot_want_reclaim()), as the fault path would wake kswapd for it.
 *
 * Each target also remembers which pages kmigrated promoted to it lately
 * (pghot_recently_promoted()): a page reclaim demotes soon after is
 * evidence of ping-pong, and is held for a while (see rule.c).
 */
#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/memory-tiers.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmstat.h>

#include "rule.h"
#include "target.h"

/* Where every promotion goes, if a valid target; else each page's own. */
int pghot_target_nid __read_mostly = PGHOT_TARGET_AUTO;

/* How often the adaptive window of a target may move. */
#define PGHOT_THRESHOLD_PERIOD_MS	1000

/*
 * What kmigrated promoted to a target lately: two generations of a Bloom
 * filter over the pages' identities (mapping and index, which migration
 * keeps), each of PGHOT_RECENT_BITS bits and at most PGHOT_RECENT_KEYS
 * pages (about 1.4% false positives when full), the older one forgotten
 * when the newer is PGHOT_RECENT_MS old or full. A page in it was
 * promoted within the last one or two generations.
 */
#define PGHOT_RECENT_MS			30000
#define PGHOT_RECENT_SHIFT		16
#define PGHOT_RECENT_BITS		BIT(PGHOT_RECENT_SHIFT)
#define PGHOT_RECENT_KEYS		4096

struct pghot_recent {
	unsigned long *bits[2];		/* NULL until the first promotion */
	unsigned int cur;		/* the newer generation */
	unsigned int nr;		/* pages added to it */
	unsigned long start;		/* jiffies, when it started */
	spinlock_t lock;		/* serialises the adders */
};

/*
 * Per target node: the promotion window, adapted so that the candidates
 * for that target track the rate limit (0: promote_window_ms), until when
 * a hot fault asked for reclaim, and the pages promoted there lately.
 */
struct pghot_target {
	unsigned int window_ms;
	unsigned int start;		/* adaptation period start, ms */
	unsigned long nr_cand;		/* PGPROMOTE_CANDIDATE then */
	unsigned long reclaim_until;	/* jiffies, see pghot_want_reclaim() */
	struct pghot_recent recent;
};

static struct pghot_target *pghot_targets;

/**
 * pghot_valid_target - can @nid take promotions
 * @nid: a node id, or anything
 *
 * Return: true for an online top-tier node with memory.
 */
bool pghot_valid_target(int nid)
{
	return nid >= 0 && nid < nr_node_ids && node_state(nid, N_MEMORY) &&
	       node_is_toptier(nid);
}

/**
 * pghot_effective_window_ms - the promotion window for pages going to @target
 * @target: target node, or NUMA_NO_NODE
 *
 * When the target has no room to spare, its window adapts so that
 * candidates track the promotion rate limit, as NUMA balancing's hot
 * threshold does (pghot_target_window_ms()).
 *
 * Return: the window in milliseconds.
 */
unsigned int pghot_effective_window_ms(int target)
{
	unsigned int th = 0;

	if (target >= 0 && target < nr_node_ids && pghot_targets)
		th = READ_ONCE(pghot_targets[target].window_ms);
	return th ? : READ_ONCE(pghot_promote_window_ms);
}

/* The promotion rate limit, shared with NUMA balancing, in pages a second. */
static unsigned long pghot_rate_limit_pages(void)
{
	return MB_TO_PAGES((unsigned long)
			   READ_ONCE(sysctl_numa_balancing_promote_rate_limit));
}

/*
 * Adapt the window of @target (@t), once a period: narrower while it sees
 * more candidates than the rate limit allows, wider while it sees fewer.
 * @room: whether the caller found memory to spare on the target (1 or 0),
 * or -1 to look here.
 * Return: true if the target has memory to spare, and no window applies
 * (it starts adapting afresh when it has not).
 */
static bool pghot_target_adapt(int target, struct pghot_target *t, int room)
{
	struct pglist_data *pgdat = NODE_DATA(target);

	if (room < 0)
		room = pgdat_free_space_enough(pgdat);
	if (room) {
		/* Workload changed: start adapting afresh. */
		if (READ_ONCE(t->window_ms))
			WRITE_ONCE(t->window_ms, 0);
		return true;
	}
	numa_promotion_adjust_threshold(pgdat, pghot_rate_limit_pages(),
					READ_ONCE(pghot_promote_window_ms),
					PGHOT_THRESHOLD_PERIOD_MS,
					&t->window_ms, &t->start, &t->nr_cand);
	return false;
}

/**
 * pghot_target_window_ms - adapt and return the window of an access to @target
 * @target: the node the access is bound for, or NUMA_NO_NODE
 * @room: 1 or 0 if the caller just asked pgdat_free_space_enough() of
 *	  @target (the fault path does), -1 to ask it here
 *
 * For each access recorded, as NUMA balancing adapts its hot threshold on
 * each hint fault, whether or not the access makes a page a candidate: a
 * window that a burst of candidates made narrow widens again while they
 * are few, also when it is too narrow for any page to turn ready and reach
 * kmigrated (which adapts it too). Callable from any context.
 *
 * Return: the window in milliseconds.
 */
unsigned int pghot_target_window_ms(int target, int room)
{
	if (pghot_targets && pghot_valid_target(target))
		pghot_target_adapt(target, &pghot_targets[target], room);
	return pghot_effective_window_ms(target);
}

/**
 * pghot_target_rate_exhausted - is @target's rate limit used up
 * @target: a valid target (pghot_valid_target())
 * @nr: pages of the folio about to be isolated for @target
 * @free: set if the target has memory to spare, and no limit applies
 *
 * Before isolating a folio for @target: is the target's rate limit used up
 * this second? Then the folio is refused at once, and counted as a
 * candidate, as NUMA balancing counts one it refuses.
 *
 * Return: true if the folio must not be isolated.
 */
bool pghot_target_rate_exhausted(int target, long nr, bool *free)
{
	struct pglist_data *pgdat = NODE_DATA(target);
	unsigned long rate_limit;

	*free = pghot_target_adapt(target, &pghot_targets[target], -1);
	if (*free)
		return false;
	rate_limit = pghot_rate_limit_pages();
	if (!numa_promotion_rate_exhausted(pgdat, rate_limit))
		return false;
	numa_promotion_rate_limit(pgdat, rate_limit, nr);
	return true;
}

/**
 * pghot_target_charge - count pages isolated for @target as its candidates
 * @target: the target of pghot_target_rate_exhausted()
 * @nr: pages isolated
 * @free: what pghot_target_rate_exhausted() found: memory to spare
 *
 * As the fault path counts them.
 *
 * Return: true if they are over the rate limit after all.
 */
bool pghot_target_charge(int target, long nr, bool free)
{
	struct pglist_data *pgdat = NODE_DATA(target);

	if (free) {
		mod_node_page_state(pgdat, PGPROMOTE_CANDIDATE_NRL, nr);
		return false;
	}
	return numa_promotion_rate_limit(pgdat, pghot_rate_limit_pages(), nr);
}

/* The two bits of a page's identity in a generation. */
static void pghot_recent_hash(const struct folio *folio, unsigned int h[2])
{
	u64 key = hash_64((unsigned long)READ_ONCE(folio->mapping) +
			  READ_ONCE(folio->index) * GOLDEN_RATIO_64, 32);

	h[0] = key & (PGHOT_RECENT_BITS - 1);
	h[1] = (key >> PGHOT_RECENT_SHIFT) & (PGHOT_RECENT_BITS - 1);
}

/* Is a generation that started at @start over at @now, having taken @nr pages? */
static bool pghot_recent_expired(unsigned long start, unsigned int nr,
				 unsigned long now)
{
	return nr >= PGHOT_RECENT_KEYS ||
	       !time_before(now, start + msecs_to_jiffies(PGHOT_RECENT_MS));
}

/* Add @folio to @r (allocated) at @now; @r->lock held. */
static void pghot_recent_insert(struct pghot_recent *r,
				const struct folio *folio, unsigned long now)
{
	unsigned int h[2];

	if (pghot_recent_expired(r->start, r->nr, now)) {
		/* The older generation is forgotten and becomes the newer. */
		r->cur ^= 1;
		bitmap_zero(r->bits[r->cur], PGHOT_RECENT_BITS);
		r->nr = 0;
		WRITE_ONCE(r->start, now);
	}
	pghot_recent_hash(folio, h);
	set_bit(h[0], r->bits[r->cur]);
	set_bit(h[1], r->bits[r->cur]);
	r->nr++;
}

/* Is @folio in @r (allocated) at @now? Lockless. */
static bool pghot_recent_test(struct pghot_recent *r, const struct folio *folio,
			      unsigned long now)
{
	unsigned long age = now - READ_ONCE(r->start);
	unsigned long period = msecs_to_jiffies(PGHOT_RECENT_MS);
	unsigned int h[2], g, cur;
	unsigned long *bits;

	/* Generations age out even when nothing is promoted. */
	if (age >= 2 * period)
		return false;
	cur = READ_ONCE(r->cur);
	pghot_recent_hash(folio, h);
	for (g = 0; g < (age < period ? 2 : 1); g++) {
		bits = r->bits[cur ^ g];
		if (test_bit(h[0], bits) && test_bit(h[1], bits))
			return true;
	}
	return false;
}

/**
 * pghot_target_promoting - remember that @folio is being promoted to @target
 * @target: a valid target
 * @folio: isolated for @target
 *
 * The filter is allocated at the first promotion to @target, by kmigrated:
 * may sleep.
 */
void pghot_target_promoting(int target, const struct folio *folio)
{
	struct pghot_recent *r = &pghot_targets[target].recent;
	unsigned long *bits;

	if (unlikely(!READ_ONCE(r->bits[1]))) {
		bits = bitmap_zalloc(2 * PGHOT_RECENT_BITS, GFP_KERNEL);
		if (!bits)
			return;
		spin_lock(&r->lock);
		if (!r->bits[1]) {
			r->bits[0] = bits;
			r->start = jiffies;
			/* Published last: readers test it first. */
			smp_store_release(&r->bits[1],
					  bits + BITS_TO_LONGS(PGHOT_RECENT_BITS));
			bits = NULL;
		}
		spin_unlock(&r->lock);
		bitmap_free(bits);
	}
	spin_lock(&r->lock);
	pghot_recent_insert(r, folio, jiffies);
	spin_unlock(&r->lock);
}

/**
 * pghot_recently_promoted - did kmigrated promote @folio lately
 * @folio: a folio on a top-tier node, locked (reclaim is demoting it)
 *
 * Lockless: a page promoted while this looks may be missed, and about one
 * page in seventy that was not promoted is taken for one that was.
 *
 * Return: true if kmigrated promoted @folio to its node within the last
 * PGHOT_RECENT_MS or two (fewer under heavy promotion).
 */
bool pghot_recently_promoted(const struct folio *folio)
{
	struct pghot_recent *r;

	if (!pghot_targets)
		return false;
	r = &pghot_targets[folio_nid(folio)].recent;
	/* Pairs with the release in pghot_target_promoting(): bits are there. */
	if (!smp_load_acquire(&r->bits[1]))
		return false;
	return pghot_recent_test(r, folio, jiffies);
}

/* How long a hot fault on a queued page asks for reclaim, see below. */
#define PGHOT_WANT_RECLAIM_MS		1000

/**
 * pghot_want_reclaim - NUMA balancing would reclaim @target for a page now
 * @target: a top-tier node short of free memory
 *
 * For a hot fault on a page that is queued already, without that verdict:
 * the fault path would wake kswapd for it, so kmigrated reclaims for the
 * queued pages NUMA balancing chose that go to @target, for a while.
 */
void pghot_want_reclaim(int target)
{
	unsigned long until = jiffies + msecs_to_jiffies(PGHOT_WANT_RECLAIM_MS);

	if (pghot_targets && READ_ONCE(pghot_targets[target].reclaim_until) != until)
		WRITE_ONCE(pghot_targets[target].reclaim_until, until);
}

/**
 * pghot_target_reclaim_until - until when a hot fault asked to reclaim @target
 * @target: a valid target
 *
 * Return: the jiffies pghot_want_reclaim() set last.
 */
unsigned long pghot_target_reclaim_until(int target)
{
	return READ_ONCE(pghot_targets[target].reclaim_until);
}

/**
 * pghot_targets_show - the targets' state, for debugfs stats
 * @m: the seq_file
 */
void pghot_targets_show(struct seq_file *m)
{
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		struct pghot_recent *r = &pghot_targets[nid].recent;

		if (!node_is_toptier(nid))
			continue;
		seq_printf(m, "target%d window_ms %u recent_bytes %zu\n", nid,
			   pghot_effective_window_ms(nid),
			   READ_ONCE(r->bits[1]) ? ksize(r->bits[0]) : 0);
	}
}

/**
 * pghot_targets_init - set up the per-target state, before kmigrated starts
 *
 * Return: 0, or -ENOMEM.
 */
int __init pghot_targets_init(void)
{
	int nid;

	pghot_targets = kcalloc(nr_node_ids, sizeof(*pghot_targets), GFP_KERNEL);
	if (!pghot_targets)
		return -ENOMEM;
	for (nid = 0; nid < nr_node_ids; nid++)
		spin_lock_init(&pghot_targets[nid].recent.lock);
	return 0;
}

#include "tests/target-kunit.h"
