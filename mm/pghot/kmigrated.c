// SPDX-License-Identifier: GPL-2.0
/*
 * kmigrated: one thread per lower-tier memory node that promotes the pages
 * pghot found hot.
 *
 * The thread only ever looks at its node's queue of migrate-ready pages
 * (queue.c) and at sections that asked for attention, so its work is
 * proportional to the number of hot pages; a node with no hot pages costs
 * nothing, not even a timer wakeup. Promotion goes through the same
 * per-target-node rules as NUMA balancing in tiering mode, kept in
 * target.c: free room, rate limit, adaptive window. A full target has
 * kswapd woken, as the fault path does, for the pages NUMA balancing
 * itself would promote now; pages hot only by pghot's own rule take free
 * room and never make reclaim demote anything. The pages of a batch that
 * go to one target migrate together, with one TLB flush.
 *
 * A ready page goes where its source said: for a NUMA hint fault, the
 * node mpol_misplaced() chose (the faulting task's), for a hardware hint
 * the accessing CPU's node, unless target_nid says otherwise; a target
 * that did not come from the fault path is first checked against the
 * memory policies and cpusets of the page's owners (policy.c). Pinned
 * pages are left alone. Every decision not to promote is counted and
 * traced with its reason, and every page promoted is remembered by its
 * target (pghot_target_promoting()).
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
#include <linux/sort.h>
#include <linux/vmstat.h>
#include <linux/wait.h>

#include "kmigrated.h"
#include "policy.h"
#include "queue.h"
#include "record.h"
#include "target.h"

#define CREATE_TRACE_POINTS
#include <trace/events/pghot.h>

unsigned int pghot_kmigrated_sleep_ms __read_mostly = 100;
unsigned int pghot_kmigrated_batch_nr __read_mostly = 512;

/*
 * Ready pages queued per node (128 KiB). A hardware hint that finds it
 * full waits in its record for the scan. A NUMA hint fault is queued only
 * while kmigrated has less than two batches to do (see pghot_hint_fault()),
 * else it goes the fault path's way, and the faulting task migrates the
 * page itself as without pghot: one thread per node must not make
 * promotion later than the tasks that fault would.
 */
#define PGHOT_READY_QUEUE	(8 * PGHOT_BATCH_NR_MAX)

/* Per lower-tier node state. */
struct pghot_node {
	int nid;
	struct task_struct *kmigrated;
	struct pghot_queue *q;		/* its ready queue */
	int target;			/* default target: nearest top-tier node */
	struct pghot_ready *batch;
	unsigned long *dpfns;		/* found by the scan; the held ones first */
	int *dtargets;
	unsigned int nr_held;		/* see kmigrated_hold() */
	u32 held_mark;
};

static struct pghot_node __rcu **pghot_nodes;
static DEFINE_MUTEX(pghot_nodes_lock);

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

/*
 * May a full target be reclaimed for the page of @r (@vetted: by the
 * fault path, for that target), at @now? For a page NUMA balancing would
 * promote now, as the fault path does: its entry says so, or a hot fault
 * on it since asked before @until (pghot_want_reclaim()). Never for a page
 * hot only by pghot's own rule or known only from hardware hints.
 */
static bool kmigrated_reclaim(const struct pghot_ready *r, bool vetted,
			      unsigned long until, unsigned long now)
{
	if (!vetted)
		return false;
	return (r->flags & PGHOT_READY_RECLAIM) || time_before(now, until);
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

	spin_lock_irq(&pn->q->lock);
	if (!(r->flags & PGHOT_READY_SCANNED))
		state = pghot_queue_entry_state(pn->q, r);
	if (state != PGHOT_ENTRY_STALE)
		taken = pghot_record_take_ready(pn->nid, r->pfn, rec);
	/*
	 * The queue was empty when the scan ran: an entry there now may be
	 * for this very readiness, which is taken.
	 */
	if (taken && (r->flags & PGHOT_READY_SCANNED) &&
	    !kfifo_is_empty(&pn->q->ready))
		pghot_queue_log_ended(pn->q, r->pfn);
	spin_unlock_irq(&pn->q->lock);
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
	bool vetted, reclaim, free;
	LIST_HEAD(isolated);
	struct folio *folio;
	struct page *page;
	int target, err;
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
	if (pghot_target_rate_exhausted(target, nr, &free)) {
		why = PGHOT_SKIP_RATELIMITED;
		goto skip;
	}
	if (!list_empty(&b->folios) &&
	    (target != b->target || kmigrated_folio_cg(folio) != b->cg))
		kmigrated_flush(pn, b);
	/*
	 * Counts the batch so far against the target's watermark. A target
	 * too full to take the page has kswapd woken only for a page NUMA
	 * balancing itself would promote now, as the fault path does.
	 */
	reclaim = kmigrated_reclaim(r, vetted, pghot_target_reclaim_until(target),
				    jiffies);
	err = migrate_misplaced_folio_prepare_nr(folio, target, b->nr_pages,
						 reclaim);
	if (err == -ENOSPC && b->nr_pages) {
		/*
		 * The batch so far may be what leaves no room: the fault path
		 * asks for each page with those before it migrated. So does
		 * kmigrated, near the watermark: migrate them, then ask again.
		 */
		kmigrated_flush(pn, b);
		err = migrate_misplaced_folio_prepare_nr(folio, target, 0,
							 reclaim);
	}
	if (err) {
		why = err == -ENOSPC ? PGHOT_SKIP_TARGET_FULL :
				       PGHOT_SKIP_ISOLATE_FAILED;
		goto skip;
	}
	/*
	 * Only a page that can go is a candidate of the target's rate limit
	 * (and of NUMA balancing's threshold, which shares it): not one the
	 * target has no room for.
	 */
	if (pghot_target_charge(target, nr, free)) {
		list_add(&folio->lru, &isolated);
		putback_movable_pages(&isolated);
		why = PGHOT_SKIP_RATELIMITED;
		goto skip;
	}
	pghot_target_promoting(target, folio);
	pghot_region_left(pn->nid, r->pfn, nr);
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

static int kmigrated_cmp_target(const void *a, const void *b)
{
	const struct pghot_ready *x = a, *y = b;

	return x->target - y->target;
}

/*
 * The scan for deferred pages finds every ready page of a flagged section,
 * and some of them may also be in the queue, with the node of the access
 * that made them ready, where the scan gives a default record only its
 * section's target (or none: the node's default). So while entries
 * queued before the scan are still in the queue, the pages it found are
 * held in pn->dpfns[0, nr_held), with no new scan meanwhile, until
 * kmigrated has taken those entries: an entry for the same readiness
 * comes first, and the scanned page is then taken already. (A page made
 * ready just before the scan and queued just after the mark is missed:
 * the window between its record's update and its kfifo_in().) Hold the
 * @n pages found; kmigrated_release() lets them into a batch.
 */
static void kmigrated_hold(struct pghot_node *pn, unsigned int n)
{
	pn->held_mark = pghot_queue_mark(pn->q);
	WRITE_ONCE(pn->nr_held, n);
}

/* Up to @room held pages, into the batch at @b once they can go. */
static unsigned int kmigrated_release(struct pghot_node *pn,
				      struct pghot_ready *b, unsigned int room)
{
	unsigned int n = min(room, pn->nr_held), i;

	if (!n || !pghot_queue_passed(pn->q, pn->held_mark))
		return 0;
	for (i = 0; i < n; i++)
		b[i] = (struct pghot_ready) {
			.pfn = pn->dpfns[i], .target = pn->dtargets[i],
			.flags = PGHOT_READY_SCANNED,
		};
	WRITE_ONCE(pn->nr_held, pn->nr_held - n);
	memmove(pn->dpfns, pn->dpfns + n, pn->nr_held * sizeof(*pn->dpfns));
	memmove(pn->dtargets, pn->dtargets + n,
		pn->nr_held * sizeof(*pn->dtargets));
	return n;
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

	b.taken = pghot_queue_take(pn->q, pn->batch, batch_nr);
	b.taken += kmigrated_release(pn, pn->batch + b.taken,
				     batch_nr - b.taken);
	/* Full barrier: a page deferred after the scan sets the flag again. */
	if (b.taken < batch_nr && !pn->nr_held && xchg(&pn->q->deferred, 0)) {
		n = pghot_collect_deferred(pn->nid, pn->dpfns, pn->dtargets,
					   batch_nr - b.taken);
		if (n == batch_nr - b.taken)
			WRITE_ONCE(pn->q->deferred, 1);
		kmigrated_hold(pn, n);
		b.taken += kmigrated_release(pn, pn->batch + b.taken,
					     batch_nr - b.taken);
	}
	if (!b.taken)
		return;
	/*
	 * Pages for one target migrate together: tasks on several nodes
	 * fault in turn, and a batch in queue order would flush at every
	 * change of target.
	 */
	sort(pn->batch, b.taken, sizeof(*pn->batch), kmigrated_cmp_target, NULL);
	for (i = 0; i < b.taken; i++) {
		kmigrated_take(pn, &pn->batch[i], &b);
		cond_resched();
	}
	kmigrated_flush(pn, &b);
	trace_pghot_kmigrated_batch(pn->nid, b.taken, b.promoted, b.skipped);
}

static bool kmigrated_has_ready(struct pghot_node *pn)
{
	return !kfifo_is_empty(&pn->q->ready) || READ_ONCE(pn->q->deferred) ||
	       pn->nr_held;
}

static bool kmigrated_has_work(struct pghot_node *pn)
{
	return kmigrated_has_ready(pn) || READ_ONCE(pn->q->kicked) ||
	       kthread_should_stop();
}

static bool kmigrated_batch_full(struct pghot_node *pn)
{
	return kfifo_len(&pn->q->ready) >= READ_ONCE(pghot_kmigrated_batch_nr) ||
	       READ_ONCE(pn->q->deferred) || READ_ONCE(pn->q->kicked) ||
	       kthread_should_stop();
}

static int kmigrated(void *arg)
{
	struct pghot_node *pn = arg;
	unsigned long sleep;

	set_freezable();
	while (!kthread_should_stop()) {
		/* Idle: sleep until a page becomes ready or a section asks. */
		wait_event_freezable(pn->q->wait, kmigrated_has_work(pn));
		if (kmigrated_has_ready(pn)) {
			/* Then gather a batch, for at most kmigrated_sleep_ms. */
			sleep = msecs_to_jiffies(READ_ONCE(pghot_kmigrated_sleep_ms));
			wait_event_freezable_timeout(pn->q->wait,
						     kmigrated_batch_full(pn), sleep);
		}
		if (kthread_should_stop())
			break;
		if (xchg(&pn->q->kicked, 0))
			pghot_sweep_node(pn->nid);
		kmigrated_do_batch(pn);
	}
	return 0;
}

/* What the allocator handed out for @pn: kmigrated's own memory. */
static size_t pghot_node_bytes(struct pghot_node *pn)
{
	return ksize(pn) + pghot_queue_bytes(pn->q) + ksize(pn->batch) +
	       ksize(pn->dpfns) + ksize(pn->dtargets);
}

static void pghot_node_free(struct pghot_node *pn)
{
	pghot_queue_free(pn->q);
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
	int home;

	lockdep_assert_held(&pghot_nodes_lock);
	if (pghot_node(nid) || node_is_toptier(nid))
		return 0;
	/* Where kmigrated's work lands: its memory lives there too. */
	home = pghot_nearest_toptier(nid);
	pn = kzalloc_node(sizeof(*pn), GFP_KERNEL, home);
	if (!pn)
		return -ENOMEM;
	pn->nid = nid;
	pn->target = home;
	pn->q = pghot_queue_alloc(home, PGHOT_READY_QUEUE);
	pn->batch = kmalloc_array(PGHOT_BATCH_NR_MAX, sizeof(*pn->batch), GFP_KERNEL);
	pn->dpfns = kmalloc_array(PGHOT_BATCH_NR_MAX, sizeof(*pn->dpfns), GFP_KERNEL);
	pn->dtargets = kmalloc_array(PGHOT_BATCH_NR_MAX, sizeof(*pn->dtargets),
				     GFP_KERNEL);
	if (!pn->q || !pn->batch || !pn->dpfns || !pn->dtargets) {
		pghot_node_free(pn);
		return -ENOMEM;
	}
	/* Pages left ready by an earlier life of the node: look for them. */
	pn->q->deferred = 1;
	t = kthread_create_on_node(kmigrated, pn, nid, "kmigrated%d", nid);
	if (IS_ERR(t)) {
		pghot_node_free(pn);
		return PTR_ERR(t);
	}
	pn->kmigrated = t;
	rcu_assign_pointer(pghot_nodes[nid], pn);
	pghot_queue_publish(nid, pn->q);
	wake_up_process(t);
	return 0;
}

/* Tear down a node that is losing its last memory. */
static void pghot_node_stop(int nid)
{
	struct pghot_ready r;
	struct pghot_node *pn;
	unsigned int i;

	lockdep_assert_held(&pghot_nodes_lock);
	pn = pghot_node(nid);
	if (!pn)
		return;
	RCU_INIT_POINTER(pghot_nodes[nid], NULL);
	pghot_queue_publish(nid, NULL);
	/* The queue's producers and the stats may still look. */
	synchronize_rcu();
	kthread_stop(pn->kmigrated);
	/* If the offline is cancelled, the next kmigrated finds these. */
	while (kfifo_get(&pn->q->ready, &r))
		pghot_record_defer(nid, r.pfn, r.target);
	for (i = 0; i < pn->nr_held; i++)
		pghot_record_defer(nid, pn->dpfns[i], pn->dtargets[i]);
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
		seq_printf(m, "node%d target %d queued %u deferred %d sections %lu record_bytes %lu kmigrated_bytes %zu\n",
			   nid, READ_ONCE(pn->target), kfifo_len(&pn->q->ready),
			   READ_ONCE(pn->q->deferred) || READ_ONCE(pn->nr_held),
			   st.sections, st.bytes, pghot_node_bytes(pn));
	}
	rcu_read_unlock();
	pghot_targets_show(m);
}

/* After the record store, which runs after memory_tier_late_init(). */
static int __init pghot_kmigrated_init(void)
{
	int nid;

	if (pghot_off)
		return 0;
	pghot_nodes = kcalloc(nr_node_ids, sizeof(*pghot_nodes), GFP_KERNEL);
	if (!pghot_nodes || pghot_targets_init() || pghot_queues_init()) {
		kfree(pghot_nodes);
		pghot_nodes = NULL;
		pghot_off = true;
		return -ENOMEM;
	}
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
