/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The promotion budget of each top-tier target node (target.c): which
 * nodes take promotions, their adaptive window, rate limit, reclaim
 * requests and the pages promoted to them lately.
 */
#ifndef _MM_PGHOT_TARGET_H
#define _MM_PGHOT_TARGET_H

#include <linux/init.h>
#include <linux/numa.h>
#include <linux/types.h>

struct folio;
struct seq_file;

/* The target_nid tunable, see Documentation/admin-guide/mm/pghot.rst. */
extern int pghot_target_nid;

#define PGHOT_TARGET_AUTO		NUMA_NO_NODE

int __init pghot_targets_init(void);
bool pghot_valid_target(int nid);
unsigned int pghot_effective_window_ms(int target);
unsigned int pghot_target_window_ms(int target, int room);
bool pghot_target_rate_exhausted(int target, long nr, bool *free);
bool pghot_target_charge(int target, long nr, bool free);
void pghot_target_promoting(int target, const struct folio *folio);
bool pghot_recently_promoted(const struct folio *folio);
void pghot_want_reclaim(int target);
unsigned long pghot_target_reclaim_until(int target);
void pghot_targets_show(struct seq_file *m);

#endif /* _MM_PGHOT_TARGET_H */
