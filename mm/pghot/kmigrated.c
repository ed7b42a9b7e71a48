// SPDX-License-Identifier: GPL-2.0
/*
 * kmigrated: one thread per lower-tier memory node that promotes the pages
 * pghot found hot.
 *
 * The thread only ever looks at its node's queue of migrate-ready pages
 * (and at sections that asked for attention), so its work is proportional
 * to the number of hot pages; a node with no hot pages costs nothing, not
 * even a timer wakeup. Promotion goes through the same per-target-node
 * rules as NUMA balancing in tiering mode: while the target has memory to
 * spare everything goes (pgpromote_candidate_nrl); otherwise the candidates
 * are rate limited (kernel.numa_balancing_promote_rate_limit_MBps) and the
 * promotion window of pages bound for that target adapts so candidates
 * track the limit. A full target has kswapd make room only for pages NUMA
 * balancing itself picked, and only while what kswapd would take there is
 * mostly not what kmigrated promoted lately (kmigrated_may_reclaim()).
 * The pages of a batch that go to one target migrate together, with one
 * TLB flush.
 *
 * A ready page goes where its source said: for a NUMA hint fault, the
 * node mpol_misplaced() chose (the faulting task's), for a hardware hint
 * the accessing CPU's node, unless target_nid says otherwise; a target
 * that did not come from the fault path is first checked against the
 * memory policies and cpusets of the page's owners (policy.c). Pinned
 * pages are left alone. Every decision not to promote is counted and
 * traced with its reason.
 */
#define pr_fmt(fmt) "kmigrated: " fmt

#include <linux/freezer.h>
#include <linux/kfifo.h>
#include <linux/kthread.h>
#include <linux/memory.h>
#include <linux/memory-tiers.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/node.h>
#include <linux/pghot.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmstat.h>
#include <linux/wait.h>

#include "kmigrated.h"
#include "record.h"

#define CREATE_TRACE_POINTS
#include <trace/events/pghot.h>

int pghot_target_nid __read_mostly = PGHOT_TARGET_AUTO;
unsigned int pghot_kmigrated_sleep_ms __read_mostly = 100;
unsigned int pghot_kmigrated_batch_nr __read_mostly = 512;

/* How often the adaptive window of a target may move. */
#define PGHOT_THRESHOLD_PERIOD_MS	1000

/* Ready pages queued per node; more wait until kmigrated catches up. */
#define PGHOT_READY_QUEUE	(4 * PGHOT_BATCH_NR_MAX)

/* A queued ready page. */
struct pghot_ready {
	unsigned long pfn;
	u32 seq;			/* the node's ended_seq when queued */
	s16 target;			/* NUMA_NO_NODE: kmigrated picks */
	u16 flags;			/* PGHOT_READY_* */
};

/* Not from the queue: found by the scan for deferred pages. */
#define PGHOT_READY_SCANNED	BIT(15)

/*
 * Ready pages whose readiness ended other than through their queue entry:
 * freed (and maybe allocated to somebody else since), or taken through the
 * scan for deferred pages. The last PGHOT_ENDED_LOG of them are kept, the
 * one numbered n at n % PGHOT_ENDED_LOG, so that an entry queued before
 * the end of its page's readiness is not applied to what is ready there
 * now: its target and its policy verdict came from the page's earlier life.
 */
#define PGHOT_ENDED_LOG		512

enum pghot_entry_state {
	PGHOT_ENTRY_VALID,
	PGHOT_ENTRY_STALE,		/* its page's readiness ended since */
	PGHOT_ENTRY_UNSURE,		/* more ended than the log holds */
};

/* Per lower-tier node state. */
struct pghot_node {
	int nid;
	struct task_struct *kmigrated;
	wait_queue_head_t wait;
	DECLARE_KFIFO_PTR(ready, struct pghot_ready);
	spinlock_t ready_lock;		/* serialises the producers of @ready */
	unsigned long deferred;		/* ready pages wait outside the queue */
	unsigned long kicked;		/* sections ask for a sweep */
	int target;			/* default target: nearest top-tier node */
	/* Under @ready_lock: ends of readiness, see PGHOT_ENDED_LOG. */
	u32 ended_seq;
	unsigned long ended[PGHOT_ENDED_LOG];
	/* kmigrated's own */
	struct pghot_ready *batch;
	unsigned long *dpfns;
	int *dtargets;
};

/* How long a page kmigrated promoted counts as its own on the target. */
#define PGHOT_RECENT_MS			30000

/*
 * Per target node: the promotion window kmigrated adapts so that the
 * candidates for that target track the rate limit (0: promote_window_ms),
 * and the base pages kmigrated promoted there lately (see
 * kmigrated_may_reclaim()).
 */
struct pghot_target {
	unsigned int window_ms;
	unsigned int start;		/* adaptation period start, ms */
	unsigned long nr_cand;		/* PGPROMOTE_CANDIDATE then */
	/* Under pghot_recent_lock: this period of PGHOT_RECENT_MS, the last. */
	unsigned long recent[2];
	unsigned long recent_start;	/* jiffies */
	unsigned long lru_seen;		/* the target's LRU pages, last look */
	bool refused;			/* reclaim refused this period */
};

static struct pghot_node __rcu **pghot_nodes;
static struct pghot_target *pghot_targets;
static DEFINE_MUTEX(pghot_nodes_lock);
static DEFINE_SPINLOCK(pghot_recent_lock);

static const enum vm_event_item pghot_skip_event[] = {
	[PGHOT_SKIP_STALE]		= PGHOT_PROMOTE_STALE,
	[PGHOT_SKIP_NO_TARGET]		= PGHOT_PROMOTE_NO_TARGET,
	[PGHOT_SKIP_PINNED]		= PGHOT_PROMOTE_PINNED,
	[PGHOT_SKIP_POLICY]		= PGHOT_PROMOTE_POLICY,
	[PGHOT_SKIP_POLICY_UNKNOWN]	= PGHOT_PROMOTE_POLICY_UNKNOWN,
	[PGHOT_SKIP_RATELIMITED]	= PGHOT_PROMOTE_RATELIMITED,
	[PGHOT_SKIP_TARGET_FULL]	= PGHOT_PROMOTE_TARGET_FULL,
	[PGHOT_SKIP_ISOLATE_FAILED]	= PGHOT_PROMOTE_ISOLATE_FAILED,
	[PGHOT_SKIP_FAILED]		= PGHOT_PROMOTE_FAILED,
};

static struct pghot_node *pghot_node(int nid)
{
	if (!pghot_nodes)
		return NULL;
	return rcu_dereference_check(pghot_nodes[nid],
				     lockdep_is_held(&pghot_nodes_lock));
}

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
 * When the target has no room to spare, kmigrated adapts its window so
 * that candidates track the promotion rate limit, as NUMA balancing does
 * with its hot threshold.
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

/*
 * Is an entry for @pfn queued when the node's ended_seq was @seq still
 * good, now that it is @now? @log: the node's ended log.
 */
static enum pghot_entry_state pghot_entry_state(const unsigned long *log,
						u32 now, u32 seq,
						unsigned long pfn)
{
	u32 n = now - seq;

	BUILD_BUG_ON(!is_power_of_2(PGHOT_ENDED_LOG));
	if (n > PGHOT_ENDED_LOG)
		return PGHOT_ENTRY_UNSURE;
	while (n--)
		if (log[(seq + 1 + n) & (PGHOT_ENDED_LOG - 1)] == pfn)
			return PGHOT_ENTRY_STALE;
	return PGHOT_ENTRY_VALID;
}

/* The readiness of @pfn ended; @pn->ready_lock held. */
static void pghot_log_ended(struct pghot_node *pn, unsigned long pfn)
{
	pn->ended_seq++;
	pn->ended[pn->ended_seq & (PGHOT_ENDED_LOG - 1)] = pfn;
}

/**
 * pghot_ready_ended - a ready page was freed
 * @nid: the lower-tier node of @pfn
 * @pfn: the page
 *
 * Its entry in the node's queue, if it has one, must not be applied to
 * the next user of the page. Callable from any context that frees pages.
 */
void pghot_ready_ended(int nid, unsigned long pfn)
{
	struct pghot_node *pn;
	unsigned long irqfl;

	rcu_read_lock();
	pn = pghot_node(nid);
	if (pn) {
		spin_lock_irqsave(&pn->ready_lock, irqfl);
		pghot_log_ended(pn, pfn);
		spin_unlock_irqrestore(&pn->ready_lock, irqfl);
	}
	rcu_read_unlock();
}

/**
 * pghot_queue_ready - queue a ready page for its node's kmigrated
 * @nid: the lower-tier node of @pfn
 * @pfn: the page (head page of a large folio)
 * @target: where it should go, or NUMA_NO_NODE
 * @flags: PGHOT_READY_*
 *
 * A page the queue cannot take stays ready and is found by a scan later.
 * Callable from any context that records accesses (not NMI).
 */
void pghot_queue_ready(int nid, unsigned long pfn, int target,
		       unsigned int flags)
{
	struct pghot_ready r = { .pfn = pfn, .target = target, .flags = flags };
	unsigned int len, queued;
	struct pghot_node *pn;
	unsigned long irqfl;
	bool was_empty;

	BUILD_BUG_ON(MAX_NUMNODES > S16_MAX);
	rcu_read_lock();
	pn = pghot_node(nid);
	if (!pn) {
		/* The node is going away; its records go with it. */
		rcu_read_unlock();
		return;
	}
	spin_lock_irqsave(&pn->ready_lock, irqfl);
	r.seq = pn->ended_seq;
	was_empty = kfifo_is_empty(&pn->ready);
	queued = kfifo_in(&pn->ready, &r, 1);
	len = kfifo_len(&pn->ready);
	spin_unlock_irqrestore(&pn->ready_lock, irqfl);

	if (!queued) {
		/* kmigrated finds it once the queue has drained. */
		pghot_record_defer(nid, pfn, target);
		WRITE_ONCE(pn->deferred, 1);
		count_vm_event(PGHOT_READY_DEFERRED);
	} else if ((was_empty || len >= READ_ONCE(pghot_kmigrated_batch_nr)) &&
		   wq_has_sleeper(&pn->wait)) {
		/* The first page wakes an idle kmigrated, a full batch a waiting one. */
		wake_up_interruptible(&pn->wait);
	}
	rcu_read_unlock();
}

/**
 * pghot_kmigrated_kick - have a node's kmigrated sweep its sections
 * @nid: lower-tier node
 */
void pghot_kmigrated_kick(int nid)
{
	struct pghot_node *pn;

	rcu_read_lock();
	pn = pghot_node(nid);
	if (pn && !test_and_set_bit(0, &pn->kicked))
		wake_up_interruptible(&pn->wait);
	rcu_read_unlock();
}

enum kmigrated_verdict {
	KMIGRATED_PROMOTE,
	KMIGRATED_RATELIMITED,
};

/*
 * May @nr pages go to @target now? Charges them as candidates of the
 * target, like the NUMA balancing fault path does.
 */
static enum kmigrated_verdict kmigrated_may_promote(int target, long nr)
{
	struct pglist_data *pgdat = NODE_DATA(target);
	struct pghot_target *t = &pghot_targets[target];
	unsigned long rate_limit;

	if (pgdat_free_space_enough(pgdat)) {
		/* Workload changed: start adapting afresh. */
		WRITE_ONCE(t->window_ms, 0);
		mod_node_page_state(pgdat, PGPROMOTE_CANDIDATE_NRL, nr);
		return KMIGRATED_PROMOTE;
	}
	rate_limit = MB_TO_PAGES((unsigned long)
				 READ_ONCE(sysctl_numa_balancing_promote_rate_limit));
	numa_promotion_adjust_threshold(pgdat, rate_limit,
					READ_ONCE(pghot_promote_window_ms),
					PGHOT_THRESHOLD_PERIOD_MS, &t->window_ms,
					&t->start, &t->nr_cand);
	if (numa_promotion_rate_limit(pgdat, rate_limit, nr))
		return KMIGRATED_RATELIMITED;
	return KMIGRATED_PROMOTE;
}

/*
 * Start a new period if the current one is over; pghot_recent_lock held.
 * The last period's pages are forgotten, unless reclaim was refused during
 * the one ending: the target is still full of them and they are still
 * hot, so they stay counted (a hot set larger than the room stays put).
 * Once the target has room again, or nothing asks, they age out.
 */
static void kmigrated_recent_age(struct pghot_target *t, unsigned long now)
{
	unsigned long period = msecs_to_jiffies(PGHOT_RECENT_MS);

	if (time_before(now, t->recent_start + period))
		return;
	if (!time_before(now, t->recent_start + 2 * period))
		t->recent[1] = 0;
	else if (t->refused)
		t->recent[1] += t->recent[0];
	else
		t->recent[1] = t->recent[0];
	t->recent[0] = 0;
	t->refused = false;
	t->recent_start = now;
}

/*
 * The target's LRU lists shrank by @nr pages since kmigrated last looked:
 * some of its pages may have gone (demoted, freed with their task), and
 * those it cannot tell apart. Count them as its own, oldest first, so
 * that pages which left never hold reclaim back.
 */
static void kmigrated_recent_drop(struct pghot_target *t, unsigned long nr)
{
	unsigned long d = min(nr, t->recent[1]);

	t->recent[1] -= d;
	t->recent[0] -= min(nr - d, t->recent[0]);
}

/* @nr base pages were promoted to @target. */
static void kmigrated_recent_add(int target, unsigned long nr)
{
	struct pghot_target *t = &pghot_targets[target];

	spin_lock(&pghot_recent_lock);
	kmigrated_recent_age(t, jiffies);
	t->recent[0] += nr;
	spin_unlock(&pghot_recent_lock);
}

/* Do the other pages on an LRU of @lru pages outnumber @recent of ours? */
static bool kmigrated_lru_mostly_others(unsigned long lru, unsigned long recent)
{
	return lru > recent && lru - recent > recent;
}

/*
 * May reclaim make room on a full @target for a page NUMA balancing itself
 * picked? kswapd takes what it demotes from the target's LRU lists. While
 * the pages kmigrated promoted there lately (kmigrated_recent_age()) make
 * up half of those lists or more, it would mostly take them back: hot
 * pages traded for hot pages, each moved twice for nothing (a hot set
 * larger than the room the top tier has for it).
 * Reclaim is asked for only while the other pages on the lists outnumber
 * them, so a cold hog is still exchanged for hot pages.
 */
static bool kmigrated_may_reclaim(int target)
{
	struct pglist_data *pgdat = NODE_DATA(target);
	struct pghot_target *t = &pghot_targets[target];
	unsigned long lru = 0, recent;
	enum lru_list l;

	for_each_evictable_lru(l)
		lru += node_page_state(pgdat, NR_LRU_BASE + l);
	spin_lock(&pghot_recent_lock);
	kmigrated_recent_age(t, jiffies);
	if (lru < t->lru_seen)
		kmigrated_recent_drop(t, t->lru_seen - lru);
	t->lru_seen = lru;
	recent = t->recent[0] + t->recent[1];
	spin_unlock(&pghot_recent_lock);
	return kmigrated_lru_mostly_others(lru, recent);
}

/* A full @target was refused reclaim for a page NUMA balancing picked. */
static void kmigrated_reclaim_refused(int target)
{
	spin_lock(&pghot_recent_lock);
	pghot_targets[target].refused = true;
	spin_unlock(&pghot_recent_lock);
}

struct kmigrated_batch {
	unsigned int taken;		/* ready pages dequeued */
	unsigned int promoted;		/* base pages promoted */
	unsigned int skipped;		/* ready pages not promoted */
	struct list_head folios;	/* isolated, for one target and cgroup */
	unsigned long nr_pages;		/* in @folios */
	int target;			/* of @folios */
	const void *cg;			/* of @folios */
};

/* What groups folios for one migrate_misplaced_folios() call. */
static const void *kmigrated_folio_cg(struct folio *folio)
{
#ifdef CONFIG_MEMCG
	return folio_objcg(folio);
#else
	return NULL;
#endif
}

static void kmigrated_skip(struct kmigrated_batch *b, unsigned long pfn,
			   int nid, int target, enum pghot_skip_reason why,
			   unsigned long nr)
{
	count_vm_events(pghot_skip_event[why], nr);
	trace_pghot_promote_skip(pfn, nid, target, why);
	b->skipped++;
}

/* Migrate the folios gathered so far, with one TLB flush for them all. */
static void kmigrated_flush(struct pghot_node *pn, struct kmigrated_batch *b)
{
	unsigned int done;

	if (list_empty(&b->folios))
		return;
	migrate_misplaced_folios(&b->folios, b->target, &done);
	count_vm_events(PGHOT_PROMOTED, done);
	kmigrated_recent_add(b->target, done);
	b->promoted += done;
	if (done < b->nr_pages) {
		count_vm_events(PGHOT_PROMOTE_FAILED, b->nr_pages - done);
		trace_pghot_promote_skip(0, pn->nid, b->target, PGHOT_SKIP_FAILED);
		b->skipped++;
	}
	b->nr_pages = 0;
}

/*
 * Where the page at @r goes. A precise record names the last target, a
 * queue entry the one at the time it became ready; target_nid overrides
 * both. *@vetted: the fault path checked the memory policy for it.
 */
static int kmigrated_target(struct pghot_node *pn, const struct pghot_ready *r,
			    u32 rec, bool *vetted)
{
	int forced = READ_ONCE(pghot_target_nid);
	int target = pghot_rec_nid(pghot_layout, rec);

	if (target == NUMA_NO_NODE)
		target = r->target;
	*vetted = (r->flags & PGHOT_READY_VETTED) && target == r->target;
	if (forced != PGHOT_TARGET_AUTO && pghot_valid_target(forced)) {
		*vetted = *vetted && forced == target;
		return forced;
	}
	if (pghot_valid_target(target))
		return target;
	*vetted = false;
	target = READ_ONCE(pn->target);
	return pghot_valid_target(target) ? target : NUMA_NO_NODE;
}

/*
 * Take the readiness of the page of @r, unless it is no longer ready or @r
 * is older than its present readiness (freed and ready again for its next
 * user). An entry that cannot be told is kept, but only for its target:
 * its page is checked against its owners' policies as a scanned one is.
 */
static bool kmigrated_claim(struct pghot_node *pn, struct pghot_ready *r,
			    u32 *rec)
{
	enum pghot_entry_state state = PGHOT_ENTRY_VALID;
	bool taken = false;

	spin_lock_irq(&pn->ready_lock);
	if (!(r->flags & PGHOT_READY_SCANNED))
		state = pghot_entry_state(pn->ended, pn->ended_seq, r->seq,
					  r->pfn);
	if (state != PGHOT_ENTRY_STALE)
		taken = pghot_record_take_ready(pn->nid, r->pfn, rec);
	/*
	 * The queue was empty when the scan ran: an entry there now may be
	 * for this very readiness, which is taken.
	 */
	if (taken && (r->flags & PGHOT_READY_SCANNED) &&
	    !kfifo_is_empty(&pn->ready))
		pghot_log_ended(pn, r->pfn);
	spin_unlock_irq(&pn->ready_lock);
	if (state == PGHOT_ENTRY_UNSURE)
		r->flags = PGHOT_READY_SCANNED;
	return taken;
}

/*
 * Isolate the page of @r for promotion, if it is still ready, still here
 * and allowed to go, and add it to the batch.
 */
static void kmigrated_take(struct pghot_node *pn, struct pghot_ready *r,
			   struct kmigrated_batch *b)
{
	enum pghot_skip_reason why;
	struct folio *folio;
	struct page *page;
	int target, err;
	bool vetted;
	long nr;
	u32 rec;

	page = pfn_to_online_page(r->pfn);
	if (!page) {
		kmigrated_skip(b, r->pfn, pn->nid, r->target, PGHOT_SKIP_STALE, 1);
		return;
	}
	/* Taken already (queued and found deferred too), or freed meanwhile. */
	if (!kmigrated_claim(pn, r, &rec))
		return;
	folio = page_folio(page);
	if (!folio_try_get(folio)) {
		kmigrated_skip(b, r->pfn, pn->nid, r->target, PGHOT_SKIP_STALE, 1);
		return;
	}
	nr = folio_nr_pages(folio);
	target = kmigrated_target(pn, r, rec, &vetted);
	/* Freed and reused, split, or already moved meanwhile? */
	if (unlikely(page_folio(page) != folio || folio_nid(folio) != pn->nid ||
		     !folio_test_lru(folio))) {
		why = PGHOT_SKIP_STALE;
		goto skip;
	}
	if (target == NUMA_NO_NODE) {
		why = PGHOT_SKIP_NO_TARGET;
		goto skip;
	}
	/* Migration would unmap it and fail on the pin's reference. */
	if (folio_maybe_dma_pinned(folio)) {
		why = PGHOT_SKIP_PINNED;
		goto skip;
	}
	if (!vetted) {
		switch (pghot_policy_check(folio, target)) {
		case PGHOT_POLICY_ALLOWED:
			break;
		case PGHOT_POLICY_FORBIDDEN:
			why = PGHOT_SKIP_POLICY;
			goto skip;
		case PGHOT_POLICY_UNKNOWN:
			why = PGHOT_SKIP_POLICY_UNKNOWN;
			goto skip;
		}
	}
	if (kmigrated_may_promote(target, nr) == KMIGRATED_RATELIMITED) {
		why = PGHOT_SKIP_RATELIMITED;
		goto skip;
	}
	if (!list_empty(&b->folios) &&
	    (target != b->target || kmigrated_folio_cg(folio) != b->cg))
		kmigrated_flush(pn, b);
	/*
	 * Counts the batch so far against the target's watermark. Whether
	 * reclaim may make room is asked only of a target too full to take
	 * the page without it.
	 */
	err = migrate_misplaced_folio_prepare_nr(folio, target, b->nr_pages,
						 false);
	if (err == -ENOSPC && (r->flags & PGHOT_READY_RECLAIM)) {
		if (kmigrated_may_reclaim(target))
			err = migrate_misplaced_folio_prepare_nr(folio, target,
								 b->nr_pages,
								 true);
		else
			kmigrated_reclaim_refused(target);
	}
	if (err) {
		why = err == -ENOSPC ? PGHOT_SKIP_TARGET_FULL :
				       PGHOT_SKIP_ISOLATE_FAILED;
		goto skip;
	}
	/* Isolation holds its own reference now. */
	folio_put(folio);
	b->target = target;
	b->cg = kmigrated_folio_cg(folio);
	b->nr_pages += nr;
	list_add_tail(&folio->lru, &b->folios);
	return;
skip:
	kmigrated_skip(b, r->pfn, pn->nid, target, why, nr);
	folio_put(folio);
}

/* Promote up to one batch of the node's ready pages. */
static void kmigrated_do_batch(struct pghot_node *pn)
{
	unsigned int batch_nr = READ_ONCE(pghot_kmigrated_batch_nr);
	struct kmigrated_batch b = {
		.folios = LIST_HEAD_INIT(b.folios),
		.target = NUMA_NO_NODE,
	};
	unsigned int i, n;

	b.taken = kfifo_out_spinlocked(&pn->ready, pn->batch, batch_nr,
				       &pn->ready_lock);
	/* Full barrier: a page deferred after the scan sets the flag again. */
	if (b.taken < batch_nr && xchg(&pn->deferred, 0)) {
		n = pghot_collect_deferred(pn->nid, pn->dpfns, pn->dtargets,
					   batch_nr - b.taken);
		if (n == batch_nr - b.taken)
			WRITE_ONCE(pn->deferred, 1);
		for (i = 0; i < n; i++)
			pn->batch[b.taken + i] = (struct pghot_ready) {
				.pfn = pn->dpfns[i], .target = pn->dtargets[i],
				.flags = PGHOT_READY_SCANNED,
			};
		b.taken += n;
	}
	if (!b.taken)
		return;
	for (i = 0; i < b.taken; i++) {
		kmigrated_take(pn, &pn->batch[i], &b);
		cond_resched();
	}
	kmigrated_flush(pn, &b);
	trace_pghot_kmigrated_batch(pn->nid, b.taken, b.promoted, b.skipped);
}

static bool kmigrated_has_ready(struct pghot_node *pn)
{
	return !kfifo_is_empty(&pn->ready) || READ_ONCE(pn->deferred);
}

static bool kmigrated_has_work(struct pghot_node *pn)
{
	return kmigrated_has_ready(pn) || READ_ONCE(pn->kicked) ||
	       kthread_should_stop();
}

static bool kmigrated_batch_full(struct pghot_node *pn)
{
	return kfifo_len(&pn->ready) >= READ_ONCE(pghot_kmigrated_batch_nr) ||
	       READ_ONCE(pn->deferred) || READ_ONCE(pn->kicked) ||
	       kthread_should_stop();
}

static int kmigrated(void *arg)
{
	struct pghot_node *pn = arg;
	unsigned long sleep;

	set_freezable();
	while (!kthread_should_stop()) {
		/* Idle: sleep until a page becomes ready or a section asks. */
		wait_event_freezable(pn->wait, kmigrated_has_work(pn));
		if (kmigrated_has_ready(pn)) {
			/* Then gather a batch, for at most kmigrated_sleep_ms. */
			sleep = msecs_to_jiffies(READ_ONCE(pghot_kmigrated_sleep_ms));
			wait_event_freezable_timeout(pn->wait,
						     kmigrated_batch_full(pn), sleep);
		}
		if (kthread_should_stop())
			break;
		if (xchg(&pn->kicked, 0))
			pghot_sweep_node(pn->nid);
		kmigrated_do_batch(pn);
	}
	return 0;
}

static void pghot_node_free(struct pghot_node *pn)
{
	kfifo_free(&pn->ready);
	kfree(pn->batch);
	kfree(pn->dpfns);
	kfree(pn->dtargets);
	kfree(pn);
}

/* Set up a lower-tier node with memory: its queue and kmigrated. */
static int pghot_node_start(int nid)
{
	struct task_struct *t;
	struct pghot_node *pn;

	lockdep_assert_held(&pghot_nodes_lock);
	if (pghot_node(nid) || node_is_toptier(nid))
		return 0;
	pn = kzalloc_node(sizeof(*pn), GFP_KERNEL, pghot_nearest_toptier(nid));
	if (!pn)
		return -ENOMEM;
	pn->nid = nid;
	pn->target = pghot_nearest_toptier(nid);
	/* Pages left ready by an earlier life of the node: look for them. */
	pn->deferred = 1;
	init_waitqueue_head(&pn->wait);
	spin_lock_init(&pn->ready_lock);
	pn->batch = kmalloc_array(PGHOT_BATCH_NR_MAX, sizeof(*pn->batch), GFP_KERNEL);
	pn->dpfns = kmalloc_array(PGHOT_BATCH_NR_MAX, sizeof(*pn->dpfns), GFP_KERNEL);
	pn->dtargets = kmalloc_array(PGHOT_BATCH_NR_MAX, sizeof(*pn->dtargets),
				     GFP_KERNEL);
	if (!pn->batch || !pn->dpfns || !pn->dtargets ||
	    kfifo_alloc(&pn->ready, PGHOT_READY_QUEUE, GFP_KERNEL)) {
		pghot_node_free(pn);
		return -ENOMEM;
	}
	t = kthread_create_on_node(kmigrated, pn, nid, "kmigrated%d", nid);
	if (IS_ERR(t)) {
		pghot_node_free(pn);
		return PTR_ERR(t);
	}
	pn->kmigrated = t;
	rcu_assign_pointer(pghot_nodes[nid], pn);
	wake_up_process(t);
	return 0;
}

/* Tear down a node that is losing its last memory. */
static void pghot_node_stop(int nid)
{
	struct pghot_ready r;
	struct pghot_node *pn;

	lockdep_assert_held(&pghot_nodes_lock);
	pn = pghot_node(nid);
	if (!pn)
		return;
	RCU_INIT_POINTER(pghot_nodes[nid], NULL);
	/* pghot_queue_ready() and pghot_kmigrated_kick() may still look. */
	synchronize_rcu();
	kthread_stop(pn->kmigrated);
	/* If the offline is cancelled, the next kmigrated finds these. */
	while (kfifo_get(&pn->ready, &r))
		pghot_record_defer(nid, r.pfn, r.target);
	pghot_node_free(pn);
}

/* Default targets depend on which nodes have memory. */
static void pghot_update_targets(void)
{
	struct pghot_node *pn;
	int nid;

	for_each_node(nid) {
		pn = pghot_node(nid);
		if (pn)
			WRITE_ONCE(pn->target, pghot_nearest_toptier(nid));
	}
}

static int pghot_node_callback(struct notifier_block *nb,
			       unsigned long action, void *arg)
{
	struct node_notify *nn = arg;

	mutex_lock(&pghot_nodes_lock);
	switch (action) {
	case NODE_ADDED_FIRST_MEMORY:
	case NODE_CANCEL_REMOVING_LAST_MEMORY:
		if (pghot_node_start(nn->nid))
			pr_warn("cannot start kmigrated%d\n", nn->nid);
		break;
	case NODE_REMOVING_LAST_MEMORY:
		pghot_node_stop(nn->nid);
		break;
	case NODE_REMOVED_LAST_MEMORY:
		/* Only now has the node left N_MEMORY: retarget. */
		break;
	default:
		mutex_unlock(&pghot_nodes_lock);
		return NOTIFY_OK;
	}
	pghot_update_targets();
	mutex_unlock(&pghot_nodes_lock);
	return NOTIFY_OK;
}

/**
 * pghot_kmigrated_show - kmigrated's state, for debugfs stats
 * @m: the seq_file
 */
void pghot_kmigrated_show(struct seq_file *m)
{
	struct pghot_store_stats st;
	struct pghot_node *pn;
	int nid;

	rcu_read_lock();
	for_each_node(nid) {
		pn = pghot_node(nid);
		if (!pn)
			continue;
		pghot_store_stats(nid, &st);
		seq_printf(m, "node%d target %d queued %u deferred %lu sections %lu record_bytes %lu\n",
			   nid, READ_ONCE(pn->target), kfifo_len(&pn->ready),
			   READ_ONCE(pn->deferred), st.sections, st.bytes);
	}
	rcu_read_unlock();
	for_each_node_state(nid, N_MEMORY)
		if (node_is_toptier(nid))
			seq_printf(m, "target%d window_ms %u\n", nid,
				   pghot_effective_window_ms(nid));
}

/* After the record store, which runs after memory_tier_late_init(). */
static int __init pghot_kmigrated_init(void)
{
	int nid;

	if (pghot_off)
		return 0;
	pghot_nodes = kcalloc(nr_node_ids, sizeof(*pghot_nodes), GFP_KERNEL);
	pghot_targets = kcalloc(nr_node_ids, sizeof(*pghot_targets), GFP_KERNEL);
	if (!pghot_nodes || !pghot_targets) {
		kfree(pghot_nodes);
		kfree(pghot_targets);
		pghot_nodes = NULL;
		pghot_targets = NULL;
		pghot_off = true;
		return -ENOMEM;
	}
	for (nid = 0; nid < nr_node_ids; nid++)
		pghot_targets[nid].recent_start = jiffies;
	get_online_mems();
	mutex_lock(&pghot_nodes_lock);
	for_each_node_state(nid, N_MEMORY)
		if (pghot_node_start(nid))
			pr_warn("cannot start kmigrated%d\n", nid);
	mutex_unlock(&pghot_nodes_lock);
	/* Runs after memory-tiers (priority 100) has placed the node. */
	hotplug_node_notifier(pghot_node_callback, MEMTIER_HOTPLUG_PRI - 1);
	put_online_mems();
	return 0;
}
late_initcall_sync(pghot_kmigrated_init);

#include "tests/kmigrated-kunit.h"
