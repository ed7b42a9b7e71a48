// SPDX-License-Identifier: GPL-2.0
/*
 * kmigrated: one thread per lower-tier memory node that promotes the pages
 * pghot found hot.
 *
 * The thread only ever looks at its node's queue of migrate-ready pages,
 * so its work is proportional to the number of hot pages; a node with no
 * hot pages costs nothing, not even a timer wakeup. Promotion goes through
 * the same per-target-node rules as NUMA balancing in tiering mode: while
 * the target has memory to spare everything goes (pgpromote_candidate_nrl);
 * otherwise the candidates are rate limited
 * (kernel.numa_balancing_promote_rate_limit_MBps) and the promotion window
 * of pages bound for that target adapts so candidates track the limit.
 * A target that demotes meanwhile gets no promotions for a while (see
 * pghot_backoff()). The pages of a batch that go to one target migrate
 * together, with one TLB flush.
 */
#define pr_fmt(fmt) "kmigrated: " fmt

#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/memory-tiers.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmstat.h>

#include "internal.h"

#include <trace/events/pghot.h>

/* How often the adaptive window of a target may move. */
#define PGHOT_THRESHOLD_PERIOD_MS	1000

/* How often demotions are looked at, the first pause and the longest. */
#define PGHOT_BACKOFF_PERIOD_MS		1000
#define PGHOT_BACKOFF_MS_MAX		(64 * PGHOT_BACKOFF_PERIOD_MS)

struct kmigrated_batch {
	unsigned int taken;		/* ready pages dequeued */
	unsigned int promoted;		/* pages (base pages) promoted */
	unsigned int ratelimited;	/* refused by the rate limit or backoff */
	unsigned int failed;		/* isolation or migration failed */
	struct list_head folios;	/* isolated, for one target and cgroup */
	int target;			/* of @folios */
	const void *cg;			/* of @folios */
};

enum kmigrated_verdict {
	KMIGRATED_PROMOTE,
	KMIGRATED_RATELIMITED,
	KMIGRATED_BACKOFF,
};

/*
 * A target that demotes while pages are promoted into it has no room to
 * give: each promotion pushes another page down, and in a working set
 * larger than the top tier both come back up, over and over. So pause
 * promotion into a target that demoted during the last period: for one
 * period the first time, twice as long each time it demotes again in the
 * period after a pause, up to PGHOT_BACKOFF_MS_MAX. A period without
 * demotions halves the next pause; free space to spare ends the backoff
 * (kmigrated_may_promote()). Demotions are counted only over periods in
 * which kmigrated could promote: the reference is taken anew when a pause
 * ends.
 *
 * @demoted is the target's demotion count and @now jiffies. Only the
 * kmigrated that advances @t->check updates the other fields; the others
 * just read whether a pause is on. The one exception, clearing
 * @t->backoff_ms when the target has room again, races harmlessly: at
 * worst a pause ends early or one more starts.
 *
 * Return: true while promotion into the target is paused.
 */
static bool pghot_backoff(struct pghot_target *t, unsigned long demoted,
			  unsigned long now)
{
	unsigned long check = READ_ONCE(t->check);
	unsigned int ms;

	if ((check && time_before(now, check)) ||
	    cmpxchg(&t->check, check,
		    now + msecs_to_jiffies(PGHOT_BACKOFF_PERIOD_MS)) != check)
		goto out;

	if (t->counted && demoted != t->demoted) {
		ms = t->backoff_ms ? min(2 * t->backoff_ms, PGHOT_BACKOFF_MS_MAX) :
				     PGHOT_BACKOFF_PERIOD_MS;
		WRITE_ONCE(t->backoff_ms, ms);
		WRITE_ONCE(t->resume, now + msecs_to_jiffies(ms));
		WRITE_ONCE(t->check, t->resume);
		t->counted = false;
		goto out;
	}
	if (t->counted)
		WRITE_ONCE(t->backoff_ms, t->backoff_ms / 2);
	t->demoted = demoted;
	t->counted = true;
out:
	return READ_ONCE(t->backoff_ms) &&
	       time_before(now, READ_ONCE(t->resume));
}

/* Pages demoted from @pgdat so far, by any kind of reclaim. */
static unsigned long pghot_node_demoted(struct pglist_data *pgdat)
{
	return node_page_state(pgdat, PGDEMOTE_KSWAPD) +
	       node_page_state(pgdat, PGDEMOTE_DIRECT) +
	       node_page_state(pgdat, PGDEMOTE_KHUGEPAGED) +
	       node_page_state(pgdat, PGDEMOTE_PROACTIVE);
}

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
		/* Workload changed: start adapting afresh, no backoff. */
		WRITE_ONCE(t->window_ms, 0);
		WRITE_ONCE(t->backoff_ms, 0);
		mod_node_page_state(pgdat, PGPROMOTE_CANDIDATE_NRL, nr);
		return KMIGRATED_PROMOTE;
	}
	if (pghot_backoff(t, pghot_node_demoted(pgdat), jiffies))
		return KMIGRATED_BACKOFF;
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

/* What groups folios for one migrate_misplaced_folios() call. */
static const void *kmigrated_folio_cg(struct folio *folio)
{
#ifdef CONFIG_MEMCG
	return folio_objcg(folio);
#else
	return NULL;
#endif
}

/* Migrate the folios gathered so far, with one TLB flush for them all. */
static void kmigrated_flush(struct kmigrated_batch *b)
{
	unsigned int nr_pages = 0, done;
	struct folio *folio;

	if (list_empty(&b->folios))
		return;
	list_for_each_entry(folio, &b->folios, lru)
		nr_pages += folio_nr_pages(folio);
	migrate_misplaced_folios(&b->folios, b->target, &done);
	b->promoted += done;
	if (done < nr_pages) {
		count_vm_events(PGHOT_PROMOTE_FAILED, nr_pages - done);
		b->failed += nr_pages - done;
	}
}

/*
 * Isolate the page at @pfn for promotion, if it is still ready, still
 * here and allowed to go, and add it to the batch. The target's room is
 * checked per folio (migrate_misplaced_folio_prepare()) before the batch
 * migrates, so a batch may take the target up to one batch below its
 * high watermark; kswapd, woken by the first refusal, makes up for it.
 */
static void kmigrated_take_pfn(struct pghot_node *pn, unsigned long pfn,
			       struct kmigrated_batch *b)
{
	struct folio *folio;
	struct page *page;
	int target, err;
	long nr;
	u32 rec;

	page = pfn_to_online_page(pfn);
	if (!page) {
		count_vm_event(PGHOT_PROMOTE_STALE);
		return;
	}
	/* Taken already (queued and found deferred too), or memory gone. */
	if (!pghot_record_take_ready(pfn, &rec))
		return;
	folio = page_folio(page);
	if (!folio_try_get(folio)) {
		count_vm_event(PGHOT_PROMOTE_STALE);
		return;
	}
	/* Freed and reused, split, or already moved meanwhile? */
	if (unlikely(page_folio(page) != folio || folio_nid(folio) != pn->nid ||
		     !folio_test_lru(folio))) {
		count_vm_event(PGHOT_PROMOTE_STALE);
		goto put;
	}
	target = pghot_target_for(pn->nid, rec);
	if (target == NUMA_NO_NODE) {
		count_vm_event(PGHOT_PROMOTE_NO_TARGET);
		goto put;
	}
	nr = folio_nr_pages(folio);
	switch (kmigrated_may_promote(target, nr)) {
	case KMIGRATED_PROMOTE:
		break;
	case KMIGRATED_RATELIMITED:
		count_vm_event(PGHOT_PROMOTE_RATELIMITED);
		b->ratelimited += nr;
		goto put;
	case KMIGRATED_BACKOFF:
		count_vm_event(PGHOT_PROMOTE_BACKOFF);
		b->ratelimited += nr;
		goto put;
	}
	err = migrate_misplaced_folio_prepare(folio, NULL, target);
	if (err) {
		count_vm_event(err == -ENOSPC ? PGHOT_PROMOTE_TARGET_FULL :
						PGHOT_PROMOTE_ISOLATE_FAILED);
		b->failed += nr;
		goto put;
	}
	/* Isolation holds its own reference now. */
	folio_put(folio);
	if (!list_empty(&b->folios) &&
	    (target != b->target || kmigrated_folio_cg(folio) != b->cg))
		kmigrated_flush(b);
	b->target = target;
	b->cg = kmigrated_folio_cg(folio);
	list_add_tail(&folio->lru, &b->folios);
	return;
put:
	folio_put(folio);
}

/* Promote up to one batch of the node's ready pages. */
static void kmigrated_do_batch(struct pghot_node *pn, unsigned long *pfns)
{
	unsigned int batch_nr = READ_ONCE(pghot_kmigrated_batch_nr);
	struct kmigrated_batch b = {
		.folios = LIST_HEAD_INIT(b.folios),
		.target = NUMA_NO_NODE,
	};
	unsigned int i;

	b.taken = kfifo_out_spinlocked(&pn->ready, pfns, batch_nr,
				       &pn->ready_lock);
	/* Full barrier: a page deferred after the scan sets the flag again. */
	if (b.taken < batch_nr && xchg(&pn->deferred, 0)) {
		unsigned int n;

		n = pghot_collect_deferred(pn->nid, pfns + b.taken,
					   batch_nr - b.taken);
		if (n == batch_nr - b.taken)
			WRITE_ONCE(pn->deferred, 1);
		b.taken += n;
	}
	if (!b.taken)
		return;
	for (i = 0; i < b.taken; i++) {
		kmigrated_take_pfn(pn, pfns[i], &b);
		cond_resched();
	}
	kmigrated_flush(&b);
	trace_pghot_kmigrated_batch(pn->nid, b.taken, b.promoted,
				    b.ratelimited, b.failed);
}

static bool kmigrated_has_work(struct pghot_node *pn)
{
	return !kfifo_is_empty(&pn->ready) || READ_ONCE(pn->deferred) ||
	       kthread_should_stop();
}

static bool kmigrated_batch_full(struct pghot_node *pn)
{
	return kfifo_len(&pn->ready) >= READ_ONCE(pghot_kmigrated_batch_nr) ||
	       READ_ONCE(pn->deferred) || kthread_should_stop();
}

static int kmigrated(void *arg)
{
	struct pghot_node *pn = arg;
	unsigned long sleep;

	set_freezable();
	while (!kthread_should_stop()) {
		/* Idle: sleep until a page becomes ready. */
		wait_event_freezable(pn->wait, kmigrated_has_work(pn));
		/* Then gather a batch, for at most kmigrated_sleep_ms. */
		sleep = msecs_to_jiffies(READ_ONCE(pghot_kmigrated_sleep_ms));
		wait_event_freezable_timeout(pn->wait, kmigrated_batch_full(pn),
					     sleep);
		if (kthread_should_stop())
			break;
		kmigrated_do_batch(pn, pn->pfns);
	}
	return 0;
}

/**
 * kmigrated_run - start the kmigrated thread of a node
 * @pn: the node's pghot state
 *
 * Return: 0 or a negative errno.
 */
int kmigrated_run(struct pghot_node *pn)
{
	struct task_struct *t;

	pn->pfns = kmalloc_array(PGHOT_BATCH_NR_MAX, sizeof(*pn->pfns), GFP_KERNEL);
	if (!pn->pfns)
		return -ENOMEM;
	t = kthread_create_on_node(kmigrated, pn, pn->nid, "kmigrated%d", pn->nid);
	if (IS_ERR(t)) {
		pr_err("cannot start kmigrated%d: %ld\n", pn->nid, PTR_ERR(t));
		kfree(pn->pfns);
		pn->pfns = NULL;
		return PTR_ERR(t);
	}
	pn->kmigrated = t;
	wake_up_process(t);
	return 0;
}

/**
 * kmigrated_stop - stop the kmigrated thread of a node
 * @pn: the node's pghot state
 *
 * Pages still queued are left where they are; their records go with the
 * node's memory.
 */
void kmigrated_stop(struct pghot_node *pn)
{
	if (pn->kmigrated) {
		kthread_stop(pn->kmigrated);
		pn->kmigrated = NULL;
	}
	kfree(pn->pfns);
	pn->pfns = NULL;
}

#include "tests/kmigrated-kunit.h"
