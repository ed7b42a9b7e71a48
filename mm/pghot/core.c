// SPDX-License-Identifier: GPL-2.0
/*
 * pghot core: the one entry point for page hotness information,
 * pghot_record_access(), and the per lower-tier node state it feeds: a
 * queue of migrate-ready pages drained by that node's kmigrated thread.
 */
#define pr_fmt(fmt) "pghot: " fmt

#include <linux/init.h>
#include <linux/memory.h>
#include <linux/memory-tiers.h>
#include <linux/mm.h>
#include <linux/node.h>
#include <linux/slab.h>
#include <linux/vmstat.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/pghot.h>

unsigned int pghot_enabled_sources __read_mostly = 1U << PGHOT_HINTFAULTS;
int pghot_target_nid __read_mostly = PGHOT_TARGET_AUTO;
unsigned int pghot_freq_threshold __read_mostly = 2;
unsigned int pghot_promote_window_ms __read_mostly = 4000;
unsigned int pghot_kmigrated_sleep_ms __read_mostly = 100;
unsigned int pghot_kmigrated_batch_nr __read_mostly = 512;

struct pghot_node *pghot_nodes[MAX_NUMNODES];
struct pghot_target pghot_targets[MAX_NUMNODES];
static DEFINE_MUTEX(pghot_nodes_lock);

/* Ready pages queued per node; more wait until kmigrated catches up. */
#define PGHOT_READY_QUEUE	(4 * PGHOT_BATCH_NR_MAX)

static int __init pghot_mode_setup(char *str)
{
	if (!str)
		return -EINVAL;
	if (!strcmp(str, "precise"))
		pghot_layout = &pghot_layout_precise;
	else if (!strcmp(str, "default"))
		pghot_layout = &pghot_layout_default;
	else
		pr_warn("unknown pghot_mode=%s, using %s\n", str, pghot_layout->name);
	return 0;
}
early_param("pghot_mode", pghot_mode_setup);

/**
 * pghot_src_enabled - is a hotness source enabled
 * @src: the source
 *
 * Return: true if @src is enabled in enabled_sources.
 */
bool pghot_src_enabled(enum pghot_src src)
{
	return READ_ONCE(pghot_enabled_sources) & (1U << src);
}

/* The toptier node with memory nearest to @nid, or NUMA_NO_NODE. */
static int pghot_nearest_toptier(int nid)
{
	int n, best = NUMA_NO_NODE;

	for_each_node_state(n, N_MEMORY) {
		if (!node_is_toptier(n))
			continue;
		if (best == NUMA_NO_NODE ||
		    node_distance(nid, n) < node_distance(nid, best))
			best = n;
	}
	return best;
}

static bool pghot_valid_target(int nid)
{
	return nid >= 0 && nid < MAX_NUMNODES && node_state(nid, N_MEMORY) &&
	       node_is_toptier(nid);
}

/**
 * pghot_default_target - promotion target of a node's pages
 * @nid: lower-tier node
 *
 * Return: target_nid if set and valid, else the nearest toptier node with
 * memory, or NUMA_NO_NODE.
 */
int pghot_default_target(int nid)
{
	int target = READ_ONCE(pghot_target_nid);
	struct pghot_node *pn;

	if (target != PGHOT_TARGET_AUTO && pghot_valid_target(target))
		return target;
	pn = READ_ONCE(pghot_nodes[nid]);
	if (!pn)
		return NUMA_NO_NODE;
	target = READ_ONCE(pn->target);
	return pghot_valid_target(target) ? target : NUMA_NO_NODE;
}

/**
 * pghot_target_for - where to promote a page of lower-tier node @nid
 * @nid: the node the page is on
 * @rec: its record (precise mode: holds the last accessor's node)
 *
 * Return: the target node, or NUMA_NO_NODE if there is none.
 */
int pghot_target_for(int nid, u32 rec)
{
	int target = pghot_rec_nid(pghot_layout, rec);

	if (target != NUMA_NO_NODE && pghot_valid_target(target))
		return target;
	return pghot_default_target(nid);
}

/**
 * pghot_effective_window_ms - the promotion window for pages going to @target
 * @target: target node
 *
 * When the target has no room to spare, kmigrated adapts its threshold so
 * that candidates track the promotion rate limit, as NUMA balancing does.
 *
 * Return: the window in milliseconds.
 */
unsigned int pghot_effective_window_ms(int target)
{
	unsigned int th = 0;

	if (target != NUMA_NO_NODE)
		th = READ_ONCE(pghot_targets[target].window_ms);
	return th ? : READ_ONCE(pghot_promote_window_ms);
}

static void pghot_queue_ready(struct pghot_node *pn, unsigned long pfn)
{
	unsigned int len, queued;
	unsigned long flags;
	bool was_empty;

	spin_lock_irqsave(&pn->ready_lock, flags);
	was_empty = kfifo_is_empty(&pn->ready);
	queued = kfifo_in(&pn->ready, &pfn, 1);
	len = kfifo_len(&pn->ready);
	spin_unlock_irqrestore(&pn->ready_lock, flags);

	if (!queued) {
		/* kmigrated finds it once the queue has drained. */
		pghot_record_defer(pfn);
		WRITE_ONCE(pn->deferred, 1);
		count_vm_event(PGHOT_READY_DEFERRED);
		return;
	}
	/* The first page wakes an idle kmigrated, a full batch a waiting one. */
	if ((was_empty || len >= READ_ONCE(pghot_kmigrated_batch_nr)) &&
	    wq_has_sleeper(&pn->wait))
		wake_up_interruptible(&pn->wait);
}

/**
 * pghot_record_access - report an access to a page
 * @pfn: page frame number of the accessed page
 * @nid: node of the accessing CPU, or NUMA_NO_NODE if unknown
 * @src: the source of the information
 * @now: time of the access, in jiffies
 *
 * Only pages on lower-tier nodes are tracked; others are ignored and
 * counted. A page that becomes migrate-ready is queued for the kmigrated
 * thread of its node. Callable from process, softirq and workqueue
 * context, with spinlocks held; never sleeps. Hardware samples taken in
 * NMI context must go through the hardware hint path instead.
 *
 * Return: 0 if recorded, -EINVAL for a bad @src or @nid, -ENODEV if @src
 * is disabled, -ENOENT if the page is not tracked.
 */
int pghot_record_access(unsigned long pfn, int nid, enum pghot_src src,
			unsigned long now)
{
	struct pghot_access a = { .now = now, .nid = nid };
	struct pghot_node *pn;
	struct folio *folio;
	struct page *page;
	int pnid, target;
	bool ready;

	if ((unsigned int)src >= PGHOT_SRC_MAX)
		return -EINVAL;
	if (nid != NUMA_NO_NODE &&
	    (nid < 0 || nid >= MAX_NUMNODES || !node_online(nid)))
		return -EINVAL;
	if (!pghot_src_enabled(src))
		return -ENODEV;

	page = pfn_to_online_page(pfn);
	if (!page) {
		count_vm_event(PGHOT_IGNORED_OFFLINE);
		return -ENOENT;
	}
	pnid = page_to_nid(page);
	if (node_is_toptier(pnid)) {
		count_vm_event(PGHOT_IGNORED_TOPTIER);
		return -ENOENT;
	}
	folio = page_folio(page);
	if (!folio_test_lru(folio)) {
		count_vm_event(PGHOT_IGNORED_NONLRU);
		return -ENOENT;
	}
	/* A large folio is hot as a whole and promoted as a whole. */
	if (folio_test_large(folio))
		pfn = folio_pfn(folio);

	/* pghot_node_stop() waits for us before freeing @pn. */
	rcu_read_lock();
	pn = READ_ONCE(pghot_nodes[pnid]);
	if (!pn) {
		rcu_read_unlock();
		count_vm_event(PGHOT_IGNORED_OFFLINE);
		return -ENOENT;
	}
	/* Precise mode promotes towards the accessor, if it can take pages. */
	if (pghot_layout->nid_bits && pghot_valid_target(nid))
		target = nid;
	else
		target = pghot_default_target(pnid);
	a.nid = pghot_layout->nid_bits ? target : NUMA_NO_NODE;
	a.window = pghot_window_units(pghot_effective_window_ms(target));
	a.threshold = READ_ONCE(pghot_freq_threshold);
	if (pghot_record_touch(pfn, &a, &ready)) {
		rcu_read_unlock();
		count_vm_event(PGHOT_IGNORED_OFFLINE);
		return -ENOENT;
	}

	count_vm_event(PGHOT_RECORDED_ACCESSES);
	count_vm_event(src == PGHOT_HINTFAULTS ? PGHOT_RECORDED_HINTFAULTS :
						 PGHOT_RECORDED_HWHINTS);
	if (ready) {
		count_vm_event(PGHOT_READY);
		trace_pghot_ready(pfn, pnid, nid, src);
		pghot_queue_ready(pn, pfn);
	}
	rcu_read_unlock();
	return 0;
}

/* Set up a lower-tier node with memory: its queue and kmigrated. */
static int pghot_node_start(int nid)
{
	struct pghot_node *pn;
	int err;

	mutex_lock(&pghot_nodes_lock);
	if (pghot_nodes[nid] || node_is_toptier(nid)) {
		err = 0;
		goto out;
	}
	err = -ENOMEM;
	pn = kzalloc_node(sizeof(*pn), GFP_KERNEL, nid);
	if (!pn)
		goto out;
	pn->nid = nid;
	pn->target = pghot_nearest_toptier(nid);
	init_waitqueue_head(&pn->wait);
	spin_lock_init(&pn->ready_lock);
	if (kfifo_alloc(&pn->ready, PGHOT_READY_QUEUE, GFP_KERNEL))
		goto free_pn;
	err = kmigrated_run(pn);
	if (err)
		goto free_fifo;
	WRITE_ONCE(pghot_nodes[nid], pn);
	goto out;
free_fifo:
	kfifo_free(&pn->ready);
free_pn:
	kfree(pn);
out:
	mutex_unlock(&pghot_nodes_lock);
	return err;
}

/* Tear down a node that is losing its last memory. */
static void pghot_node_stop(int nid)
{
	struct pghot_node *pn;

	mutex_lock(&pghot_nodes_lock);
	pn = pghot_nodes[nid];
	if (pn) {
		unsigned long pfn;

		WRITE_ONCE(pghot_nodes[nid], NULL);
		/* pghot_record_access() may still look at it. */
		synchronize_rcu();
		kmigrated_stop(pn);
		/* If the offline is cancelled, these pages must qualify anew. */
		while (kfifo_get(&pn->ready, &pfn))
			pghot_record_reset(pfn);
		kfifo_free(&pn->ready);
		kfree(pn);
	}
	mutex_unlock(&pghot_nodes_lock);
}

/* Default targets depend on which nodes have memory. */
static void pghot_update_targets(void)
{
	int nid;

	for_each_node(nid) {
		struct pghot_node *pn = pghot_nodes[nid];

		if (pn)
			WRITE_ONCE(pn->target, pghot_nearest_toptier(nid));
	}
}

static int pghot_node_callback(struct notifier_block *nb,
			       unsigned long action, void *arg)
{
	struct node_notify *nn = arg;

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
		return NOTIFY_OK;
	}
	mutex_lock(&pghot_nodes_lock);
	pghot_update_targets();
	mutex_unlock(&pghot_nodes_lock);
	return NOTIFY_OK;
}

/* After memory_tier_late_init(): before it, every node looks toptier. */
static int __init pghot_init(void)
{
	int nid, err;

	get_online_mems();
	err = pghot_records_init();
	if (err) {
		put_online_mems();
		/* Hint faults promote the NUMA balancing way instead. */
		WRITE_ONCE(pghot_enabled_sources, 0);
		pr_err("cannot allocate records: %d; pghot is off\n", err);
		return err;
	}
	for_each_node_state(nid, N_MEMORY)
		if (pghot_node_start(nid))
			pr_warn("cannot start kmigrated%d\n", nid);
	/* Runs after memory-tiers (priority 100) has placed the node. */
	hotplug_node_notifier(pghot_node_callback, MEMTIER_HOTPLUG_PRI - 1);
	put_online_mems();
	pr_info("%s mode, %u byte(s) per lower-tier page, %lu KiB of records\n",
		pghot_layout->name, pghot_layout->size, pghot_record_bytes() >> 10);
	return 0;
}
late_initcall_sync(pghot_init);

#include "tests/core-kunit.h"
