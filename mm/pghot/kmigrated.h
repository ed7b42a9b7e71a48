/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmigrated: the per lower-tier node threads that promote hot pages, their
 * ready queues, and the per target node promotion state.
 */
#ifndef _MM_PGHOT_KMIGRATED_H
#define _MM_PGHOT_KMIGRATED_H

#include <linux/numa.h>
#include <linux/types.h>

struct seq_file;

/* kmigrated's tunables, see Documentation/admin-guide/mm/pghot.rst. */
extern int pghot_target_nid;
extern unsigned int pghot_kmigrated_sleep_ms;
extern unsigned int pghot_kmigrated_batch_nr;

#define PGHOT_SLEEP_MS_MIN		50
#define PGHOT_SLEEP_MS_MAX		1000
#define PGHOT_BATCH_NR_MIN		64
#define PGHOT_BATCH_NR_MAX		1024
#define PGHOT_TARGET_AUTO		NUMA_NO_NODE

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

struct folio;

bool pghot_queue_ready(int nid, unsigned long pfn, int target,
		       unsigned int flags, unsigned int max_len);
void pghot_defer_ready(int nid, unsigned long pfn, int target);
void pghot_want_reclaim(int target);
bool pghot_recently_promoted(const struct folio *folio);
void pghot_ready_ended(int nid, unsigned long pfn);
void pghot_kmigrated_kick(int nid);
bool pghot_valid_target(int nid);
unsigned int pghot_effective_window_ms(int target);
void pghot_kmigrated_show(struct seq_file *m);

/* policy.c */
enum pghot_policy {
	PGHOT_POLICY_ALLOWED,
	PGHOT_POLICY_FORBIDDEN,
	PGHOT_POLICY_UNKNOWN,
};

enum pghot_policy pghot_policy_check(struct folio *folio, int target);

#endif /* _MM_PGHOT_KMIGRATED_H */
