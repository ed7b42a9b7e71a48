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

struct kmigrated_batch {
	unsigned int taken;		/* ready pages dequeued */
	unsigned int promoted;		/* pages (base pages) promoted */
	unsigned int ratelimited;
	unsigned int failed;		/* isolation or migration failed */
};

/*
 * May @nr pages go to @target now? Charges them as candidates of the
 * target, like the NUMA balancing fault path does.
 */
static bool kmigrated_may_promote(int target, long nr)
{
	struct pglist_data *pgdat = NODE_DATA(target);
	struct pghot_target *t = &pghot_targets[target];
	unsigned long rate_limit;

	if (pgdat_free_space_enough(pgdat)) {
		/* Workload changed: start adapting afresh. */
		WRITE_ONCE(t->window_ms, 0);
		mod_node_page_state(pgdat, PGPROMOTE_CANDIDATE_NRL, nr);
		return true;
	}
	rate_limit = MB_TO_PAGES((unsigned long)
				 READ_ONCE(sysctl_numa_balancing_promote_rate_limit));
	numa_promotion_adjust_threshold(pgdat, rate_limit,
					READ_ONCE(pghot_promote_window_ms),
					PGHOT_THRESHOLD_PERIOD_MS, &t->window_ms,
					&t->start, &t->nr_cand);
	return !numa_promotion_rate_limit(pgdat, rate_limit, nr);
}

/* Promote the page at @pfn, if it is still ready, still here and allowed. */
static void kmigrated_promote_pfn(struct pghot_node *pn, unsigned long pfn,
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
	if (!kmigrated_may_promote(target, nr)) {
		count_vm_event(PGHOT_PROMOTE_RATELIMITED);
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
	if (migrate_misplaced_folio(folio, target)) {
		count_vm_event(PGHOT_PROMOTE_FAILED);
		b->failed += nr;
		return;
	}
	b->promoted += nr;
	return;
put:
	folio_put(folio);
}

/* Promote up to one batch of the node's ready pages. */
static void kmigrated_do_batch(struct pghot_node *pn, unsigned long *pfns)
{
	unsigned int batch_nr = READ_ONCE(pghot_kmigrated_batch_nr);
	struct kmigrated_batch b = { };
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
		kmigrated_promote_pfn(pn, pfns[i], &b);
		cond_resched();
	}
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
