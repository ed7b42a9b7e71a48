// SPDX-License-Identifier: GPL-2.0
/*
 * pghot ready queues.
 *
 * Each lower-tier node with memory has a queue of the pages that turned
 * hot, filled by whoever records accesses (the hint-fault path, the
 * hardware-hint drain) and emptied by the node's kmigrated. A queue that
 * is full, or longer than its caller allows, refuses the page: the caller
 * keeps the page ready in its record for kmigrated's scan and says so
 * (pghot_queue_deferred()), or leaves it to another path. The queue also
 * logs the readiness that ended other than through the queue (a ready page
 * freed), so that kmigrated does not apply an old entry to the page's next
 * user.
 *
 * Producers find a node's queue in an RCU-protected table: the consumer
 * publishes its queue once its thread exists and withdraws it, waiting
 * for an RCU grace period, before the thread stops. A node without a
 * queue refuses every page.
 *
 * A leaf: nothing here calls into the rest of pghot.
 */
#include <linux/lockdep.h>
#include <linux/nodemask.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "queue.h"

static struct pghot_queue __rcu **pghot_queues;

static struct pghot_queue *pghot_queue(int nid)
{
	if (!pghot_queues)
		return NULL;
	return rcu_dereference(pghot_queues[nid]);
}

/*
 * Is an entry for @pfn queued when the queue's ended_seq was @seq still
 * good, now that it is @now? @log: the queue's ended log.
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

/* The readiness of @pfn ended: log it. */
static void pghot_log_ended(struct pghot_queue *q, unsigned long pfn)
{
	q->ended_seq++;
	q->ended[q->ended_seq & (PGHOT_ENDED_LOG - 1)] = pfn;
}

/*
 * Put @r on @q, unless @q holds @max_len entries (0: unless it is full).
 * 1 if it went on, else 0; *@len: the entries in @q after.
 */
static unsigned int pghot_queue_in(struct pghot_queue *q,
				   struct pghot_ready *r, unsigned int max_len,
				   unsigned int *len)
{
	unsigned int queued = 0;
	unsigned long irqfl;

	spin_lock_irqsave(&q->lock, irqfl);
	r->seq = q->ended_seq;
	*len = kfifo_len(&q->ready);
	if (!max_len || *len < max_len)
		queued = kfifo_in(&q->ready, r, 1);
	q->queued_seq += queued;
	*len += queued;
	spin_unlock_irqrestore(&q->lock, irqfl);
	return queued;
}

/**
 * pghot_queue_ready - queue a ready page for its node's kmigrated
 * @nid: the lower-tier node of @pfn
 * @pfn: the page (head page of a large folio)
 * @target: where it should go, or NUMA_NO_NODE
 * @flags: PGHOT_READY_*
 * @max_len: take it only while fewer pages are queued (0: the queue's size)
 * @wake_len: wake a consumer that gathers a batch once this many are queued
 *
 * The first page queued wakes an idle consumer. Callable from any context
 * that records accesses (not NMI).
 *
 * Return: false if the node has no queue or its queue is that long: the
 * caller keeps the page ready for the scan (pghot_queue_deferred()), or
 * leaves it to another path.
 */
bool pghot_queue_ready(int nid, unsigned long pfn, int target,
		       unsigned int flags, unsigned int max_len,
		       unsigned int wake_len)
{
	struct pghot_ready r = { .pfn = pfn, .target = target, .flags = flags };
	unsigned int len, queued = 0;
	struct pghot_queue *q;

	BUILD_BUG_ON(MAX_NUMNODES > S16_MAX);
	rcu_read_lock();
	q = pghot_queue(nid);
	if (!q)
		goto out;
	queued = pghot_queue_in(q, &r, max_len, &len);
	if (queued && (len == 1 || len >= wake_len) && wq_has_sleeper(&q->wait))
		wake_up_interruptible(&q->wait);
out:
	rcu_read_unlock();
	return queued;
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
	struct pghot_queue *q;
	unsigned long irqfl;

	rcu_read_lock();
	q = pghot_queue(nid);
	if (q) {
		spin_lock_irqsave(&q->lock, irqfl);
		pghot_log_ended(q, pfn);
		spin_unlock_irqrestore(&q->lock, irqfl);
	}
	rcu_read_unlock();
}

/**
 * pghot_queue_deferred - a ready page of @nid waits in its record
 * @nid: lower-tier node
 *
 * Call after marking the page deferred in its record: the consumer looks
 * for such pages once its queue has drained.
 */
void pghot_queue_deferred(int nid)
{
	struct pghot_queue *q;

	rcu_read_lock();
	q = pghot_queue(nid);
	if (q) {
		/* After the record's flag: the consumer clears this first. */
		smp_mb();
		WRITE_ONCE(q->deferred, 1);
		if (wq_has_sleeper(&q->wait))
			wake_up_interruptible(&q->wait);
	}
	rcu_read_unlock();
}

/**
 * pghot_queue_kick - have a node's consumer sweep its sections
 * @nid: lower-tier node
 */
void pghot_queue_kick(int nid)
{
	struct pghot_queue *q;

	rcu_read_lock();
	q = pghot_queue(nid);
	if (q && !test_and_set_bit(0, &q->kicked))
		wake_up_interruptible(&q->wait);
	rcu_read_unlock();
}

/**
 * pghot_queues_init - set up the table of queues
 *
 * Return: 0 or -ENOMEM.
 */
int pghot_queues_init(void)
{
	pghot_queues = kcalloc(nr_node_ids, sizeof(*pghot_queues), GFP_KERNEL);
	return pghot_queues ? 0 : -ENOMEM;
}

/**
 * pghot_queue_alloc - a queue, not yet published
 * @home: the node to allocate it on
 * @len: how many pages it holds (rounded up to a power of two)
 *
 * Return: the queue, or NULL.
 */
struct pghot_queue *pghot_queue_alloc(int home, unsigned int len)
{
	struct pghot_queue *q;

	q = kzalloc_node(sizeof(*q), GFP_KERNEL, home);
	if (!q)
		return NULL;
	init_waitqueue_head(&q->wait);
	spin_lock_init(&q->lock);
	if (kfifo_alloc(&q->ready, len, GFP_KERNEL)) {
		kfree(q);
		return NULL;
	}
	return q;
}

/**
 * pghot_queue_free - free a queue that is not published
 * @q: the queue, or NULL
 */
void pghot_queue_free(struct pghot_queue *q)
{
	if (!q)
		return;
	kfifo_free(&q->ready);
	kfree(q);
}

/**
 * pghot_queue_publish - make @q the queue of node @nid
 * @nid: lower-tier node
 * @q: the queue, or NULL to withdraw the node's queue
 *
 * Serialised by the caller. After withdrawing a queue, wait for an RCU
 * grace period before freeing it: producers may still look.
 */
void pghot_queue_publish(int nid, struct pghot_queue *q)
{
	if (q)
		rcu_assign_pointer(pghot_queues[nid], q);
	else
		RCU_INIT_POINTER(pghot_queues[nid], NULL);
}

/**
 * pghot_queue_bytes - what the allocator handed out for @q
 * @q: the queue
 *
 * Return: bytes.
 */
size_t pghot_queue_bytes(struct pghot_queue *q)
{
	return ksize(q) + ksize(q->ready.kfifo.data);
}

/**
 * pghot_queue_entry_state - is a dequeued entry still good
 * @q: its queue, with @q->lock held
 * @r: the entry
 *
 * Return: PGHOT_ENTRY_STALE if its page's readiness ended after it was
 * queued, PGHOT_ENTRY_UNSURE if more readiness ended than the log holds.
 */
enum pghot_entry_state pghot_queue_entry_state(struct pghot_queue *q,
					       const struct pghot_ready *r)
{
	lockdep_assert_held(&q->lock);
	return pghot_entry_state(q->ended, q->ended_seq, r->seq, r->pfn);
}

/**
 * pghot_queue_log_ended - the readiness of @pfn ended outside the queue
 * @q: the page's queue, with @q->lock held
 * @pfn: the page
 */
void pghot_queue_log_ended(struct pghot_queue *q, unsigned long pfn)
{
	lockdep_assert_held(&q->lock);
	pghot_log_ended(q, pfn);
}

/**
 * pghot_queue_take - take the oldest entries off a queue
 * @q: the queue; its consumer only
 * @buf: where to store them
 * @max: room in @buf
 *
 * Return: the number of entries taken.
 */
unsigned int pghot_queue_take(struct pghot_queue *q, struct pghot_ready *buf,
			      unsigned int max)
{
	unsigned int n = kfifo_out_spinlocked(&q->ready, buf, max, &q->lock);

	q->taken_seq += n;
	return n;
}

/**
 * pghot_queue_mark - where a queue's producers are
 * @q: the queue; its consumer only
 *
 * Return: a mark for pghot_queue_passed(), after every entry queued so far.
 */
u32 pghot_queue_mark(struct pghot_queue *q)
{
	u32 mark;

	spin_lock_irq(&q->lock);
	mark = q->queued_seq;
	spin_unlock_irq(&q->lock);
	return mark;
}

/**
 * pghot_queue_passed - has the consumer taken every entry before a mark
 * @q: the queue; its consumer only
 * @mark: from pghot_queue_mark()
 *
 * Return: true if no entry queued before @mark is left in @q.
 */
bool pghot_queue_passed(struct pghot_queue *q, u32 mark)
{
	return (s32)(q->taken_seq - mark) >= 0;
}

#include "tests/queue-kunit.h"
