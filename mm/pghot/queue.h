/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pghot ready queues: per lower-tier node, the pages that turned hot and
 * wait for the node's kmigrated. A leaf: it calls nothing else of pghot.
 */
#ifndef _MM_PGHOT_QUEUE_H
#define _MM_PGHOT_QUEUE_H

#include <linux/kfifo.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

/*
 * The target came from mpol_misplaced() in the faulting task, whose
 * cpuset allows it: the memory policy and the cpuset allow it.
 */
#define PGHOT_READY_VETTED		BIT(0)
/*
 * NUMA balancing itself would promote it now, to a target short of room:
 * worth reclaiming the target for, as the fault path does. Other ready
 * pages only take free room above the target's promotion watermark.
 */
#define PGHOT_READY_RECLAIM		BIT(1)
/* Not from the queue: found by kmigrated's scan for deferred pages. */
#define PGHOT_READY_SCANNED		BIT(15)

/* A queued ready page. */
struct pghot_ready {
	unsigned long pfn;
	u32 seq;			/* the queue's ended_seq when queued */
	s16 target;			/* NUMA_NO_NODE: kmigrated picks */
	u16 flags;			/* PGHOT_READY_* */
};

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

/**
 * struct pghot_queue - one lower-tier node's ready queue
 * @wait: the consumer (the node's kmigrated) sleeps here
 * @ready: the queued pages
 * @lock: serialises the producers of @ready and guards the ended log
 * @deferred: ready pages wait outside the queue, in their records
 * @kicked: sections ask for a sweep
 * @ended_seq: ends of readiness so far, see PGHOT_ENDED_LOG
 * @ended: the last PGHOT_ENDED_LOG of them
 * @queued_seq: entries queued so far (wraps), under @lock
 * @taken_seq: entries the consumer took so far (wraps), its own
 */
struct pghot_queue {
	wait_queue_head_t wait;
	DECLARE_KFIFO_PTR(ready, struct pghot_ready);
	spinlock_t lock;		/* @ready's producers, the ended log */
	unsigned long deferred;
	unsigned long kicked;
	u32 ended_seq;
	unsigned long ended[PGHOT_ENDED_LOG];
	u32 queued_seq;
	u32 taken_seq;
};

/* The producers' side, by node: callable wherever accesses are recorded. */
bool pghot_queue_ready(int nid, unsigned long pfn, int target,
		       unsigned int flags, unsigned int max_len,
		       unsigned int wake_len);
void pghot_ready_ended(int nid, unsigned long pfn);
void pghot_queue_deferred(int nid);
void pghot_queue_kick(int nid);

/* The consumer's side. */
int pghot_queues_init(void);
struct pghot_queue *pghot_queue_alloc(int home, unsigned int len);
void pghot_queue_free(struct pghot_queue *q);
void pghot_queue_publish(int nid, struct pghot_queue *q);
size_t pghot_queue_bytes(struct pghot_queue *q);
enum pghot_entry_state pghot_queue_entry_state(struct pghot_queue *q,
					       const struct pghot_ready *r);
void pghot_queue_log_ended(struct pghot_queue *q, unsigned long pfn);
unsigned int pghot_queue_take(struct pghot_queue *q, struct pghot_ready *buf,
			      unsigned int max);
u32 pghot_queue_mark(struct pghot_queue *q);
bool pghot_queue_passed(struct pghot_queue *q, u32 mark);

#endif /* _MM_PGHOT_QUEUE_H */
