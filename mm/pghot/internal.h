/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of pghot, shared by its files and not by anybody
 * else: the record store, the hotness rule, the per-node ready queues and
 * kmigrated.
 */
#ifndef _MM_PGHOT_INTERNAL_H
#define _MM_PGHOT_INTERNAL_H

#include <linux/kfifo.h>
#include <linux/mmzone.h>
#include <linux/pghot.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

/*
 * A record describes one page (or the head page of a large folio) of
 * lower-tier memory. Both layouts keep, from bit 0 up: the time of the last
 * access (jiffies bits [shift, shift + time_bits)), the frequency inside the
 * current window, in precise mode the node of the last accessor, and on top
 * the migrate-ready bit. A frequency of 0 means "no window open": the time
 * field is then meaningless.
 */
struct pghot_layout {
	const char *name;
	unsigned int size;		/* bytes per record */
	unsigned int time_bits;
	unsigned int freq_bits;
	unsigned int nid_bits;
	unsigned int window_units;	/* time units per promotion window */
};

extern const struct pghot_layout pghot_layout_default;
extern const struct pghot_layout pghot_layout_precise;
extern const struct pghot_layout *pghot_layout;

static inline u32 pghot_time_mask(const struct pghot_layout *l)
{
	return (1U << l->time_bits) - 1;
}

static inline u32 pghot_freq_max(const struct pghot_layout *l)
{
	return (1U << l->freq_bits) - 1;
}

static inline u32 pghot_rec_time(const struct pghot_layout *l, u32 rec)
{
	return rec & pghot_time_mask(l);
}

static inline u32 pghot_rec_freq(const struct pghot_layout *l, u32 rec)
{
	return (rec >> l->time_bits) & pghot_freq_max(l);
}

static inline int pghot_rec_nid(const struct pghot_layout *l, u32 rec)
{
	if (!l->nid_bits)
		return NUMA_NO_NODE;
	return (rec >> (l->time_bits + l->freq_bits)) & ((1U << l->nid_bits) - 1);
}

static inline u32 pghot_ready_bit(const struct pghot_layout *l)
{
	return 1U << (l->size * BITS_PER_BYTE - 1);
}

/*
 * Time is kept in units of 2^shift jiffies so that the time field is a
 * plain bit range of jiffies and stays continuous across jiffies wrap.
 */
struct pghot_clock {
	unsigned int shift;		/* log2(jiffies per time unit) */
};

/* What one access does to a record; a pure function, see record.c. */
struct pghot_access {
	unsigned long now;		/* jiffies */
	int nid;			/* accessing node, precise mode only */
	unsigned int window;		/* window in time units (adapted) */
	unsigned int threshold;		/* frequency that makes a page ready */
};

u32 pghot_update_record(const struct pghot_layout *l,
			const struct pghot_clock *c, u32 old,
			const struct pghot_access *a);

/* Per lower-tier node state. */
struct pghot_node {
	int nid;
	struct task_struct *kmigrated;
	unsigned long *pfns;		/* kmigrated's batch */
	wait_queue_head_t wait;
	DECLARE_KFIFO_PTR(ready, unsigned long);	/* PFNs of ready pages */
	spinlock_t ready_lock;
	unsigned int deferred;		/* ready pages wait outside the queue */
	int target;			/* default target: nearest toptier node */
};

extern struct pghot_node *pghot_nodes[MAX_NUMNODES];

/*
 * Per target node: the promotion window kmigrated adapts so that the
 * candidates for that target track the rate limit (0: promote_window_ms),
 * and the backoff while the target demotes (see kmigrated.c).
 */
struct pghot_target {
	unsigned int window_ms;
	unsigned int start;		/* adaptation period start, ms */
	unsigned long nr_cand;		/* PGPROMOTE_CANDIDATE then */
	unsigned long check;		/* jiffies: next look at demotions */
	unsigned long resume;		/* jiffies: paused until then */
	unsigned long demoted;		/* the target's demotions then */
	unsigned int backoff_ms;	/* length of the next pause */
	bool counted;			/* @demoted is a valid reference */
};

extern struct pghot_target pghot_targets[MAX_NUMNODES];

/* Tunables, see Documentation/admin-guide/mm/pghot.rst. */
extern unsigned int pghot_enabled_sources;
extern int pghot_target_nid;
extern unsigned int pghot_freq_threshold;
extern unsigned int pghot_promote_window_ms;
extern unsigned int pghot_kmigrated_sleep_ms;
extern unsigned int pghot_kmigrated_batch_nr;

#define PGHOT_WINDOW_MS_MIN		10
#define PGHOT_WINDOW_MS_MAX		60000
#define PGHOT_SLEEP_MS_MIN		50
#define PGHOT_SLEEP_MS_MAX		1000
#define PGHOT_BATCH_NR_MIN		64
#define PGHOT_BATCH_NR_MAX		1024
#define PGHOT_TARGET_AUTO		NUMA_NO_NODE

/* record.c */
int pghot_records_init(void);
int pghot_record_touch(unsigned long pfn, const struct pghot_access *a,
		       bool *became_ready);
bool pghot_record_take_ready(unsigned long pfn, u32 *rec);
void pghot_record_reset(unsigned long pfn);
void pghot_record_defer(unsigned long pfn);
unsigned int pghot_collect_deferred(int nid, unsigned long *pfns,
				    unsigned int max);
void pghot_set_clock(unsigned int window_ms);
unsigned int pghot_window_units(unsigned int window_ms);
unsigned long pghot_record_bytes(void);
unsigned long pghot_tracked_pages(void);

/* core.c */
int pghot_target_for(int nid, u32 rec);
int pghot_default_target(int nid);
unsigned int pghot_effective_window_ms(int target);

/* hwhint.c */
struct seq_file;
bool pghot_hwhint_queue(unsigned long pfn, int nid, unsigned long now);
void pghot_hwhint_flush_local(void);
void pghot_hwhint_flush_all(void);
void pghot_hwhint_show(struct seq_file *m);

/* kmigrated.c */
int kmigrated_run(struct pghot_node *pn);
void kmigrated_stop(struct pghot_node *pn);

#endif /* _MM_PGHOT_INTERNAL_H */
