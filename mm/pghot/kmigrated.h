/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmigrated: the per lower-tier node threads that promote hot pages from
 * their node's ready queue (queue.h), and the per target node promotion
 * state.
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

struct folio;

void pghot_want_reclaim(int target);
bool pghot_recently_promoted(const struct folio *folio);
bool pghot_valid_target(int nid);
unsigned int pghot_effective_window_ms(int target);
unsigned int pghot_target_window_ms(int target, int room);
void pghot_kmigrated_show(struct seq_file *m);

#endif /* _MM_PGHOT_KMIGRATED_H */
