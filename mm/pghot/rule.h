/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pghot hotness rule: the format of a page's record and what one reported
 * access does to it. Pure functions of their arguments, shared by the
 * record store and its tests.
 */
#ifndef _MM_PGHOT_RULE_H
#define _MM_PGHOT_RULE_H

#include <linux/bits.h>
#include <linux/minmax.h>
#include <linux/numa.h>
#include <linux/types.h>

/*
 * A record describes one page (or the head page of a large folio) of
 * lower-tier memory. From bit 0 up: a time (jiffies bits [shift, shift +
 * time_bits) of the clock, see struct pghot_clock), the frequency inside
 * the current window, in precise mode the promotion target plus one (0:
 * none), and on top the migrate-ready bit. The states:
 *
 *	freq	ready	time
 *	0	0	0	idle: no window open
 *	0	0	> 0	pending: one access at the time, recorded while
 *				the other records' times could not be
 *				trusted; a sweep makes it a window opened then
 *	> 0	0		a window is open since the time
 *	> 0	1	ready: queued for kmigrated, or deferred
 *	0	1	held: demoted at the time, not promoted again until the
 *			hold has passed (see pghot_hold_units())
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

static inline unsigned int pghot_nid_shift(const struct pghot_layout *l)
{
	return l->time_bits + l->freq_bits;
}

/* The promotion target kept in a precise record, or NUMA_NO_NODE. */
static inline int pghot_rec_nid(const struct pghot_layout *l, u32 rec)
{
	if (!l->nid_bits)
		return NUMA_NO_NODE;
	return (int)((rec >> pghot_nid_shift(l)) & ((1U << l->nid_bits) - 1)) - 1;
}

static inline u32 pghot_ready_bit(const struct pghot_layout *l)
{
	return 1U << (l->size * BITS_PER_BYTE - 1);
}

static inline bool pghot_rec_ready(const struct pghot_layout *l, u32 rec)
{
	return (rec & pghot_ready_bit(l)) && pghot_rec_freq(l, rec);
}

static inline bool pghot_rec_held(const struct pghot_layout *l, u32 rec)
{
	return (rec & pghot_ready_bit(l)) && !pghot_rec_freq(l, rec);
}

static inline bool pghot_rec_pending(const struct pghot_layout *l, u32 rec)
{
	return !(rec & pghot_ready_bit(l)) && !pghot_rec_freq(l, rec) &&
	       pghot_rec_time(l, rec);
}

/* The accesses a record shows in its window: a pending one shows one. */
static inline u32 pghot_rec_hits(const struct pghot_layout *l, u32 rec)
{
	return pghot_rec_freq(l, rec) ?: pghot_rec_pending(l, rec);
}

/* Time and frequency: what a new window or a sweep replaces. */
static inline u32 pghot_window_mask(const struct pghot_layout *l)
{
	return pghot_time_mask(l) | pghot_freq_max(l) << l->time_bits;
}

/*
 * Open windows and holds are never older than a quarter of the time
 * field's range when an access is applied (see record.c), so an age up to
 * half the range decodes exactly.
 */
static inline u32 pghot_stale_units(const struct pghot_layout *l)
{
	return 1U << (l->time_bits - 2);
}

static inline u32 pghot_half_range(const struct pghot_layout *l)
{
	return 1U << (l->time_bits - 1);
}

/*
 * How long a demoted page is held, in time units, given the window in
 * units: two windows, in both layouts, and never beyond what a sweep
 * keeps.
 */
static inline u32 pghot_hold_units(const struct pghot_layout *l,
				   unsigned int window)
{
	return min(2 * window, pghot_stale_units(l));
}

/*
 * The clock: time is kept in units of 2^shift jiffies, so that the time
 * field is a plain bit range of jiffies and stays continuous across
 * jiffies wrap.
 */
struct pghot_clock {
	unsigned int shift;		/* log2(jiffies per time unit) */
};

/* One reported access. */
struct pghot_access {
	unsigned long now;		/* jiffies */
	int nid;			/* target to keep (precise), or NUMA_NO_NODE */
	unsigned int window;		/* window in time units (adapted) */
	unsigned int threshold;		/* frequency that makes a page ready */
	/*
	 * Its accesses, this one included, that the caller knows of from
	 * elsewhere (a region's memory); 0: none.
	 */
	unsigned int known;
	bool fresh;			/* the record's time can be trusted */
};

/* What an access did. */
enum pghot_outcome {
	PGHOT_COUNTED,			/* counted; the page may have become ready */
	PGHOT_HELD,			/* ignored: the page is held */
};

u32 pghot_update_record(const struct pghot_layout *l,
			const struct pghot_clock *c, u32 old,
			const struct pghot_access *a, enum pghot_outcome *out);
u32 pghot_hold_record(const struct pghot_layout *l,
		      const struct pghot_clock *c, unsigned long now);
u32 pghot_sweep_record(const struct pghot_layout *l, u32 old, u32 now_units,
		       u32 keep_units, bool trusted);
unsigned int pghot_clock_shift_for(unsigned long window_jiffies,
				   unsigned int units);
u32 pghot_now_units(const struct pghot_layout *l, const struct pghot_clock *c,
		    unsigned long now);

u32 pghot_mark_record(const struct pghot_layout *l, const struct pghot_clock *c,
		      u32 old, unsigned long now, int nid, unsigned int min_freq);

/*
 * Regions: a sampled source (hardware hints) sees a hot page only now and
 * then, so its samples also count for the aligned range of lower-tier
 * memory around the page, its region. A region record is 64 bits: from
 * bit 0, 40 bits of jiffies (when the region's window opened), the samples
 * counted since (saturating), a bit that says the region's rate went into
 * its node's reference in this window, and on top a bit that says the
 * region was found hot in this window. Windows do not slide: a sample a
 * window or more after the opening opens a new one.
 *
 * Beside the record, one bit per page says whether the page was sampled
 * in the region's present window: the region's memory of its pages'
 * samples, longer than a page record's window.
 */
#define PGHOT_REGION_TIME_BITS		40
#define PGHOT_REGION_TIME_MASK		(BIT_ULL(PGHOT_REGION_TIME_BITS) - 1)
#define PGHOT_REGION_COUNT_BITS		22
#define PGHOT_REGION_COUNT_MAX		((1U << PGHOT_REGION_COUNT_BITS) - 1)
/* The region's rate went into its node's reference in this window. */
#define PGHOT_REGION_SEEN_BIT		BIT_ULL(62)
#define PGHOT_REGION_HOT_BIT		BIT_ULL(63)
/* The samples a region record has counted in its window. */
static inline u32 pghot_region_count(u64 rec)
{
	return (rec >> PGHOT_REGION_TIME_BITS) & PGHOT_REGION_COUNT_MAX;
}

/* Fewer samples than this in a window say nothing about a region. */
#define PGHOT_REGION_MIN_SAMPLES	16
/* Fewer than this say nothing about how its samples spread over its pages. */
#define PGHOT_REGION_FEW_SAMPLES	32
/*
 * A hot region all but 1/2^this of whose pages have left it for the top
 * tier may have its last pages promoted unsampled, see
 * pghot_region_rest_due().
 */
#define PGHOT_REGION_REST_SHIFT		3

/*
 * A region's tally of its present window, 64 bits: from bit 0 the 40-bit
 * opening time of the region window it was counted in, as in the region
 * record; above it the pages kmigrated took out of the region for
 * promotion, what the rest step goes by (samples cannot tell: a page that
 * stays is sampled again and again); on top the distinct pages sampled,
 * which a page's bit cannot keep: it is cleared when the page is freed
 * (promoted pages are), so that its next user starts cold. Both saturate;
 * a tally from another window counts as none.
 */
#define PGHOT_REGION_TALLY_BITS		12
#define PGHOT_REGION_LEFT_SHIFT		PGHOT_REGION_TIME_BITS
#define PGHOT_REGION_DISTINCT_SHIFT	(PGHOT_REGION_TIME_BITS + \
					 PGHOT_REGION_TALLY_BITS)
#define PGHOT_REGION_LEFT_MAX		((1U << PGHOT_REGION_TALLY_BITS) - 1)
#define PGHOT_REGION_DISTINCT_MAX	PGHOT_REGION_LEFT_MAX

/*
 * A node's reference: the rate at which the samples of its regions found
 * hot lately came, in samples per region per 2^PGHOT_REF_RATE_SHIFT
 * jiffies. A region must reach 1/hwhint_region_ref of it to be hot (2 by
 * default; 0: no reference), on top of the absolute bar, so that memory a
 * few times cooler than what the node's hot regions showed is not taken
 * for hot when the program speeds up (a sampler's rate follows the
 * program's). The reference is 64 bits: from bit 0, 40 bits of jiffies
 * (when it was last set) and above them the rate; it halves with every
 * half-life that passes (see pghot_ref_rate()) and each hot region's rate,
 * taken once per window, moves it by 2^-PGHOT_REF_WEIGHT_SHIFT of the
 * difference.
 */
#define PGHOT_REF_RATE_SHIFT		16
#define PGHOT_REF_RATE_MAX		((1U << 24) - 1)
#define PGHOT_REF_WEIGHT_SHIFT		2
/* A hot region's rate is taken from min_span >> this of its window on. */
#define PGHOT_REF_SPAN_SHIFT		2

/* One sample, as its region sees it. */
struct pghot_region_sample {
	unsigned long now;		/* jiffies of the sample */
	unsigned long window;		/* the region window, jiffies */
	unsigned long min_span;		/* shortest time a rate is taken over */
	unsigned int threshold;		/* samples each page should expect */
	unsigned int pages;		/* pages per region */
	unsigned int distinct;		/* pages sampled in the window, with it */
	u32 ref;			/* the node's reference now, 0: none */
	unsigned int ref_div;		/* reach 1/ref_div of it, 0: ignore it */
};

/* What a region's samples say about its pages. */
enum pghot_region_verdict {
	PGHOT_REGION_UNKNOWN,		/* too few samples to tell */
	PGHOT_REGION_BELOW,		/* enough samples, not (yet) hot */
	PGHOT_REGION_BELOW_FEW,		/* that, and they fall on few pages */
	PGHOT_REGION_IS_HOT,		/* above it (for the rest of the window) */
};

bool pghot_region_opens(u64 rec, unsigned long now, unsigned long window);
u64 pghot_update_region(u64 old, const struct pghot_region_sample *r,
			enum pghot_region_verdict *verdict, bool *turned_hot,
			u32 *rate);
u32 pghot_region_rate(u32 count, unsigned long span);
u32 pghot_ref_rate(u64 ref, unsigned long now, unsigned long half_life);
u64 pghot_ref_update(u64 old, u32 rate, unsigned long now,
		     unsigned long half_life);
unsigned int pghot_region_threshold(unsigned int threshold,
				    enum pghot_region_verdict verdict);
bool pghot_region_remembers(enum pghot_region_verdict verdict);
u32 pghot_region_distinct_expected(u32 samples, unsigned int pages);
u64 pghot_region_left_add(u64 tally, u64 rec, unsigned int nr);
u32 pghot_region_left_count(u64 tally, u64 rec);
u64 pghot_region_distinct_add(u64 tally, u64 rec);
u32 pghot_region_distinct_count(u64 tally, u64 rec);
bool pghot_region_rest_due(u64 rec, u32 left, unsigned int pages);

/* The rule's tunables, see Documentation/admin-guide/mm/pghot.rst. */
extern unsigned int pghot_freq_threshold;
extern unsigned int pghot_promote_window_ms;
extern unsigned int pghot_hwhint_region_ms;
extern unsigned int pghot_hwhint_region_ref;

#define PGHOT_WINDOW_MS_MIN		100
#define PGHOT_WINDOW_MS_MAX		60000
#define PGHOT_REGION_MS_MIN		1000
#define PGHOT_REGION_MS_MAX		600000
#define PGHOT_REGION_MS_DEFAULT		60000
#define PGHOT_REGION_REF_MAX		16
#define PGHOT_REGION_REF_DEFAULT	2

#endif /* _MM_PGHOT_RULE_H */
