/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pghot: page hotness tracking and promotion of hot lower-tier pages.
 *
 * Sources report accesses to pages on lower-tier (non-toptier) memory with
 * pghot_record_access(). A page accessed freq_threshold times, each access
 * within promote_window_ms of the previous one, becomes migrate-ready and
 * is promoted to a top-tier node by the kmigrated thread of its node.
 */
#ifndef _LINUX_PGHOT_H
#define _LINUX_PGHOT_H

#include <linux/list.h>
#include <linux/types.h>

/**
 * enum pghot_src - sources of page hotness information
 * @PGHOT_HINTFAULTS: NUMA hint faults in memory tiering mode (bit 0x1)
 * @PGHOT_HWHINTS: hardware access samples, e.g. AMD IBS (bit 0x2)
 * @PGHOT_SRC_MAX: number of sources
 *
 * Bit (1 << src) of the enabled_sources mask enables a source.
 */
enum pghot_src {
	PGHOT_HINTFAULTS,
	PGHOT_HWHINTS,
	PGHOT_SRC_MAX,
};

#define PGHOT_SRC_MASK		((1U << PGHOT_SRC_MAX) - 1)

struct seq_file;

/**
 * struct pghot_hwhint_provider - a source of hardware access samples
 * @name: short name, shown in /sys/kernel/debug/pghot/stats
 * @disable: stop sampling; called on unregistration if still sampling
 *	(optional)
 * @show: print the provider's own state, e.g. per CPU, into debugfs
 *	stats (optional)
 * @list: private to pghot
 * @enabled: private to pghot, see pghot_hwhint_set_state()
 *
 * Providers are built in: the pghot_hwhint_*() functions are not exported
 * to modules.
 */
struct pghot_hwhint_provider {
	const char *name;
	void (*disable)(void);
	void (*show)(struct seq_file *m);
	struct list_head list;
	bool enabled;
};

struct dentry;

#ifdef CONFIG_PGHOT
int pghot_record_access(unsigned long pfn, int nid, enum pghot_src src,
			unsigned long now);
bool pghot_src_enabled(enum pghot_src src);
bool pghot_hwhint_report(unsigned long pfn, int nid, unsigned long now);
int pghot_hwhint_register(struct pghot_hwhint_provider *p);
void pghot_hwhint_unregister(struct pghot_hwhint_provider *p);
void pghot_hwhint_set_state(struct pghot_hwhint_provider *p, bool enabled);
struct dentry *pghot_debugfs_dir(void);
#else
static inline int pghot_record_access(unsigned long pfn, int nid,
				      enum pghot_src src, unsigned long now)
{
	return -EOPNOTSUPP;
}

static inline bool pghot_src_enabled(enum pghot_src src)
{
	return false;
}
#endif /* CONFIG_PGHOT */

#endif /* _LINUX_PGHOT_H */
