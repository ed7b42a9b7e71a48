/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmigrated: the per lower-tier node threads that promote hot pages from
 * their node's ready queue (queue.h) under the budget of their targets
 * (target.h).
 */
#ifndef _MM_PGHOT_KMIGRATED_H
#define _MM_PGHOT_KMIGRATED_H

#include <linux/types.h>

struct seq_file;

/* kmigrated's tunables, see Documentation/admin-guide/mm/pghot.rst. */
extern unsigned int pghot_kmigrated_sleep_ms;
extern unsigned int pghot_kmigrated_batch_nr;

#define PGHOT_SLEEP_MS_MIN		50
#define PGHOT_SLEEP_MS_MAX		1000
#define PGHOT_BATCH_NR_MIN		64
#define PGHOT_BATCH_NR_MAX		1024

void pghot_kmigrated_show(struct seq_file *m);

#endif /* _MM_PGHOT_KMIGRATED_H */
