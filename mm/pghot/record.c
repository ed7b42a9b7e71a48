// SPDX-License-Identifier: GPL-2.0
/*
 * pghot record store: one small record per page of lower-tier memory.
 *
 * Each lower-tier node has a table of its memory sections, indexed by
 * section number from the node's first section; each section has a header
 * and an array of PAGES_PER_SECTION records, allocated when the memory
 * comes online (on the nearest top-tier node, at an exact power-of-two
 * size) and freed when it goes offline, and the records of its regions
 * (see rule.h). Top-tier memory has no records.
 * Updates are lock-free (cmpxchg on the record); a page that is freed has
 * its record cleared, so the next user of the page starts cold.
 *
 * A record's time field holds a few bits of jiffies, so it wraps. Every
 * section remembers when it was last swept: a sweep closes each window
 * and hold older than a quarter of the field's range. An access to a
 * section last swept an eighth of the range ago asks the node's kmigrated
 * for a sweep, which comes within milliseconds; until then every open
 * window is younger than half the range and decodes without ambiguity.
 * Should the sweep be a quarter range late, accesses treat the section's
 * windows as closed (they lose a hit, never gain one). After a change of
 * the clock (promote_window_ms), the first access to a section asks for a
 * sweep that closes the windows opened under the old clock and keeps
 * those opened since it asked. The fault path never sweeps, and idle
 * sections cost nothing.
 */
#define pr_fmt(fmt) "pghot: " fmt

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/memory.h>
#include <linux/memory-tiers.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pghot.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "queue.h"
#include "record.h"

bool pghot_off __ro_after_init;
nodemask_t pghot_tracked_nodes __read_mostly;
DEFINE_STATIC_KEY_FALSE(pghot_tracking);

/* pghot_mode=default|precise|off: the record layout, or no pghot at all. */
static int __init pghot_mode_setup(char *str)
{
	if (!str)
		return -EINVAL;
	if (!strcmp(str, "precise"))
		pghot_layout = &pghot_layout_precise;
	else if (!strcmp(str, "default"))
		pghot_layout = &pghot_layout_default;
	else if (!strcmp(str, "off"))
		pghot_off = true;
	else
		pr_warn("unknown pghot_mode=%s, using %s\n", str, pghot_layout->name);
	return 0;
}
early_param("pghot_mode", pghot_mode_setup);

/* Section header flags. */
enum {
	PGHOT_SEC_SWEEP,		/* an access asked for a sweep */
	PGHOT_SEC_DEFERRED,		/* holds ready pages not in the queue */
};

struct pghot_section {
	unsigned long validated;	/* jiffies of the last sweep */
	unsigned long gen;		/* clock generation of that sweep */
	unsigned long asked;		/* jiffies when a sweep was asked for */
	unsigned long flags;		/* PGHOT_SEC_* */
	int target;			/* of its deferred pages, see pghot_record_defer() */
	void *records;			/* u8 or u32, see pghot_layout */
	struct rcu_head rcu;
	u64 *regions;			/* PGHOT_REGIONS_PER_SECTION, see rule.h */
	u64 *left;			/* each region's tally, see rule.h */
	/* A bit per page: sampled in its region's window, see rule.h. */
	unsigned long *sampled;
};

/* A node's sections, by section number from @start. */
struct pghot_table {
	unsigned long start;
	unsigned long nr;
	unsigned long pending;		/* PGHOT_SEC_* of some section */
	struct pghot_table *next;	/* the table that replaced this one */
	struct rcu_head rcu;
	struct pghot_section __rcu *secs[];
};

/* Per node: its table and what the store allocated for it. */
struct pghot_store_node {
	struct pghot_table __rcu *table;
	atomic_long_t bytes;
	u64 region_ref;			/* see rule.h */
};

static struct pghot_store_node *pghot_store __read_mostly;
/* Serialises changes to tables and sections (memory hotplug, init). */
static DEFINE_MUTEX(pghot_store_lock);

/*
 * The clock: time unit (2^shift jiffies) and a generation that changes
 * whenever the unit does, packed in one word so readers see a consistent
 * pair. A section swept under another generation has meaningless time
 * fields: its windows count as closed until it is swept again.
 */
#define PGHOT_CLOCK_SHIFT_BITS	6
static unsigned long pghot_clock_word;

static unsigned int clock_shift(unsigned long word)
{
	return word & ((1UL << PGHOT_CLOCK_SHIFT_BITS) - 1);
}

static unsigned long clock_gen(unsigned long word)
{
	return word >> PGHOT_CLOCK_SHIFT_BITS;
}

/**
 * pghot_set_clock - set the time unit for a promotion window
 * @window_ms: the promotion window in milliseconds
 *
 * Changing the unit closes every open window and hold (lazily: sections
 * are swept as they are next accessed). Ready pages stay ready.
 */
void pghot_set_clock(unsigned int window_ms)
{
	unsigned long old = READ_ONCE(pghot_clock_word), word;
	unsigned int shift;

	shift = pghot_clock_shift_for(msecs_to_jiffies(window_ms),
				      pghot_layout->window_units);
	if (shift == clock_shift(old))
		return;
	word = ((clock_gen(old) + 1) << PGHOT_CLOCK_SHIFT_BITS) | shift;
	WRITE_ONCE(pghot_clock_word, word);
}

/**
 * pghot_window_units - a promotion window in time units
 * @window_ms: the window in milliseconds
 *
 * Return: the window in units of the current clock, at least 1 and at most
 * what the time field can tell apart from a page that was not accessed.
 */
unsigned int pghot_window_units(unsigned int window_ms)
{
	unsigned int shift = clock_shift(READ_ONCE(pghot_clock_word));
	unsigned long units;

	units = DIV_ROUND_UP(msecs_to_jiffies(window_ms), 1UL << shift);
	return clamp(units, 1UL, (unsigned long)pghot_stale_units(pghot_layout));
}

/* What one access may see of a section. */
static unsigned long stale_jiffies(unsigned long word)
{
	return (unsigned long)pghot_stale_units(pghot_layout) << clock_shift(word);
}

static u32 rec_load(const struct pghot_layout *l, void *recs, unsigned long idx)
{
	if (l->size == 1)
		return READ_ONCE(((u8 *)recs)[idx]);
	return READ_ONCE(((u32 *)recs)[idx]);
}

static void rec_store(const struct pghot_layout *l, void *recs,
		      unsigned long idx, u32 val)
{
	if (l->size == 1)
		WRITE_ONCE(((u8 *)recs)[idx], val);
	else
		WRITE_ONCE(((u32 *)recs)[idx], val);
}

static bool rec_cmpxchg(const struct pghot_layout *l, void *recs,
			unsigned long idx, u32 *old, u32 new)
{
	if (l->size == 1) {
		u8 o = *old;
		bool ok = try_cmpxchg(&((u8 *)recs)[idx], &o, (u8)new);

		*old = o;
		return ok;
	}
	return try_cmpxchg(&((u32 *)recs)[idx], old, new);
}

static unsigned long pghot_idx(unsigned long pfn)
{
	return pfn & (PAGES_PER_SECTION - 1);
}

static struct pghot_table *pghot_table(int nid)
{
	if (!pghot_store)
		return NULL;
	return rcu_dereference_check(pghot_store[nid].table,
				     lockdep_is_held(&pghot_store_lock));
}

static struct pghot_section *pghot_table_section(struct pghot_table *t,
						 unsigned long pfn)
{
	unsigned long i = pfn_to_section_nr(pfn) - t->start;

	if (i >= t->nr)
		return NULL;
	return rcu_dereference_check(t->secs[i],
				     lockdep_is_held(&pghot_store_lock));
}

/* The section of @pfn on @nid, or NULL. RCU read side or store lock. */
static struct pghot_section *pghot_section_find(int nid, unsigned long pfn)
{
	struct pghot_table *t;

	if (!pghot_node_tracked(nid))
		return NULL;
	t = pghot_table(nid);
	return t ? pghot_table_section(t, pfn) : NULL;
}

/*
 * Flag @s of @t as needing attention from its node's kmigrated. RCU read
 * side. A table replaced meanwhile (memory hotplug) may already have been
 * looked at by kmigrated through its successor, which shares the section:
 * flag the successors too.
 */
static bool pghot_section_flag(struct pghot_table *t, struct pghot_section *s,
			       int flag)
{
	if (test_and_set_bit(flag, &s->flags))
		return false;
	set_bit(flag, &t->pending);
	/* The flags before the look at a successor. */
	smp_mb__after_atomic();
	/* Pairs with the release in pghot_table_cover(). */
	while ((t = smp_load_acquire(&t->next)))
		set_bit(flag, &t->pending);
	return true;
}

/*
 * Apply access @a to record @idx of section @s of table @t, at time @cur
 * under clock @word. Everything the store keeps is passed in, so that the
 * tests can run it on a private table.
 */
static void pghot_section_touch(struct pghot_table *t, struct pghot_section *s,
				unsigned long idx, struct pghot_access *a,
				unsigned long cur, unsigned long word,
				unsigned int *res)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_clock c = { .shift = clock_shift(word) };
	unsigned long validated, since;
	enum pghot_outcome out;
	u32 old, new;

	/* Pairs with the release in pghot_sweep_section(): records first. */
	validated = smp_load_acquire(&s->validated);
	since = cur - validated;
	a->fresh = READ_ONCE(s->gen) == clock_gen(word) &&
		   since < stale_jiffies(word);
	if ((!a->fresh || since >= stale_jiffies(word) / 2) &&
	    !test_bit(PGHOT_SEC_SWEEP, &s->flags)) {
		/* Before the flag, which orders it for the sweeper. */
		WRITE_ONCE(s->asked, cur);
		if (pghot_section_flag(t, s, PGHOT_SEC_SWEEP))
			*res |= PGHOT_TOUCH_SWEEP;
	}
	/*
	 * Samples wait in rings: never later than now, nor before the sweep.
	 * An access to records whose times are not trusted is left pending
	 * at the present, which is after the sweep was asked for.
	 */
	if (time_after(a->now, cur) || !a->fresh)
		a->now = cur;
	if (a->fresh && time_before(a->now, validated))
		a->now = validated;
	old = rec_load(l, s->records, idx);
	do {
		new = pghot_update_record(l, &c, old, a, &out);
		if (out == PGHOT_HELD)
			break;
	} while (!rec_cmpxchg(l, s->records, idx, &old, new));
	if (out == PGHOT_HELD)
		*res |= PGHOT_TOUCH_HELD;
	else if (!pghot_rec_ready(l, old) && pghot_rec_ready(l, new))
		*res |= PGHOT_TOUCH_READY;
}

/**
 * pghot_record_touch - apply an access to the record of @pfn
 * @nid: the node of @pfn
 * @pfn: page frame number (of the folio's head page)
 * @a: the access; @a->fresh is set here, @a->now clamped to the present
 * @res: set to PGHOT_TOUCH_* flags
 *
 * Return: 0, or -ENOENT when @pfn has no record.
 */
int pghot_record_touch(int nid, unsigned long pfn, struct pghot_access *a,
		       unsigned int *res)
{
	struct pghot_section *s;
	struct pghot_table *t;
	int ret = -ENOENT;

	*res = 0;
	if (!pghot_node_tracked(nid))
		return ret;
	rcu_read_lock();
	t = pghot_table(nid);
	s = t ? pghot_table_section(t, pfn) : NULL;
	if (s) {
		pghot_section_touch(t, s, pghot_idx(pfn), a, jiffies,
				    READ_ONCE(pghot_clock_word), res);
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

/**
 * pghot_region_touch - count a sample in the region of @pfn
 * @nid: the node of @pfn
 * @pfn: page frame number
 * @r: the sample; a time in the future counts as now, and the distinct
 *	pages are counted here
 * @verdict: set to what the region's samples say, see pghot_update_region()
 * @turned_hot: set to true if this sample made the region hot
 * @seen: set to true if @pfn was sampled before in the region's window
 * @rest: set to true if it is time to look for the region's last pages,
 *	see pghot_region_rest_due()
 *
 * The region's bitmap is cleared by the sample that opens a new window;
 * a sample racing with it may keep its bit from the old window or lose
 * it, which only makes one page look sampled once more or less, and the
 * distinct pages counted in the tally may be one off.
 *
 * Return: 0, or -ENOENT when @pfn has no record (@verdict, @turned_hot,
 * @seen and @rest are then left alone).
 */
int pghot_region_touch(int nid, unsigned long pfn,
		       const struct pghot_region_sample *r,
		       enum pghot_region_verdict *verdict, bool *turned_hot,
		       bool *seen, bool *rest)
{
	struct pghot_region_sample at = *r;
	struct pghot_section *s;
	u64 *reg, *ref, *tally, old, new;
	unsigned long first, idx;
	u32 rate = 0, left;
	bool opens;
	int ret = -ENOENT;

	if (time_after(at.now, jiffies))
		at.now = jiffies;
	rcu_read_lock();
	s = pghot_section_find(nid, pfn);
	if (s && s->regions) {
		ref = &pghot_store[nid].region_ref;
		/* Two divisions per sample: only if the rule looks at it. */
		if (at.ref_div)
			at.ref = pghot_ref_rate(READ_ONCE(*ref), at.now,
						at.window);
		idx = pghot_idx(pfn);
		first = ALIGN_DOWN(idx, PGHOT_REGION_PAGES);
		reg = &s->regions[idx >> PGHOT_REGION_ORDER];
		tally = &s->left[idx >> PGHOT_REGION_ORDER];
		old = READ_ONCE(*reg);
		opens = pghot_region_opens(old, at.now, at.window);
		if (opens)
			bitmap_clear(s->sampled, first, PGHOT_REGION_PAGES);
		*seen = test_and_set_bit(idx, s->sampled);
		at.distinct = !*seen + (opens ? 0 :
			pghot_region_distinct_count(READ_ONCE(*tally), old));
		do {
			new = pghot_update_region(old, &at, verdict, turned_hot,
						  &rate);
		} while (!try_cmpxchg(reg, &old, new));
		if (!*seen) {
			old = READ_ONCE(*tally);
			while (!try_cmpxchg(tally, &old,
					    pghot_region_distinct_add(old, new)))
				;
		}
		left = pghot_region_left_count(READ_ONCE(*tally), new);
		*rest = pghot_region_rest_due(new, left, at.pages);
		if (rate) {
			old = READ_ONCE(*ref);
			while (!try_cmpxchg(ref, &old,
					    pghot_ref_update(old, rate, at.now,
							     at.window)))
				;
		}
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

/**
 * pghot_region_sampled - which pages of a region were sampled in its window
 * @nid: the node of the region
 * @pfn: a page frame number in the region
 * @bits: PGHOT_REGION_PAGES bits, set here for the region's pages from the
 *	first on that were sampled in the region's present window
 *
 * Return: true if the region has a record (else @bits is left alone).
 */
bool pghot_region_sampled(int nid, unsigned long pfn, unsigned long *bits)
{
	struct pghot_section *s;
	unsigned long first, i;
	bool ret = false;

	rcu_read_lock();
	s = pghot_section_find(nid, pfn);
	if (s && s->sampled) {
		first = ALIGN_DOWN(pghot_idx(pfn), PGHOT_REGION_PAGES);
		for (i = 0; i < PGHOT_REGION_PAGES; i++)
			__assign_bit(i, bits, test_bit(first + i, s->sampled));
		ret = true;
	}
	rcu_read_unlock();
	return ret;
}

/**
 * pghot_region_left - count pages that left the region of @pfn
 * @nid: the node of @pfn
 * @pfn: page frame number
 * @nr: pages that left (a folio's)
 *
 * For kmigrated, as it takes a folio off @nid for promotion: the rest step
 * of a hot region goes by the pages that left it in its window, see
 * pghot_region_rest_due().
 */
void pghot_region_left(int nid, unsigned long pfn, unsigned int nr)
{
	struct pghot_section *s;
	u64 *left, old;
	size_t i;

	rcu_read_lock();
	s = pghot_section_find(nid, pfn);
	if (s && s->regions) {
		i = pghot_idx(pfn) >> PGHOT_REGION_ORDER;
		left = &s->left[i];
		old = READ_ONCE(*left);
		while (!try_cmpxchg(left, &old,
				    pghot_region_left_add(old,
							  READ_ONCE(s->regions[i]),
							  nr)))
			;
	}
	rcu_read_unlock();
}

/**
 * pghot_region_ref - a node's reference rate for regions now
 * @nid: node
 * @window: the region window, jiffies (the reference's half-life)
 *
 * Return: samples per region per 2^PGHOT_REF_RATE_SHIFT jiffies, 0 if no
 * region of @nid was found hot lately.
 */
u32 pghot_region_ref(int nid, unsigned long window)
{
	if (!pghot_store || nid < 0 || nid >= nr_node_ids)
		return 0;
	return pghot_ref_rate(READ_ONCE(pghot_store[nid].region_ref), jiffies,
			      window);
}

/**
 * pghot_region_ref_reset - forget every node's reference rate
 *
 * For a change of the rule's windows: a reference taken under other
 * windows says nothing about the new ones.
 */
void pghot_region_ref_reset(void)
{
	int nid;

	if (!pghot_store)
		return;
	for_each_node(nid)
		WRITE_ONCE(pghot_store[nid].region_ref, 0);
}

/**
 * pghot_record_mark - make @pfn ready on the evidence of its region
 * @nid: the node of @pfn
 * @pfn: page frame number (of the folio's head page)
 * @target: where it should go (kept in precise mode), or NUMA_NO_NODE
 * @min_freq: accesses the page's own record must show (0: none)
 *
 * See pghot_mark_record(); the caller queues the page.
 *
 * Return: true if the page was not ready and now is.
 */
bool pghot_record_mark(int nid, unsigned long pfn, int target,
		       unsigned int min_freq)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_clock c;
	struct pghot_section *s;
	bool marked = false;
	u32 old, new;

	rcu_read_lock();
	s = pghot_section_find(nid, pfn);
	if (s) {
		c.shift = clock_shift(READ_ONCE(pghot_clock_word));
		old = rec_load(l, s->records, pghot_idx(pfn));
		do {
			new = pghot_mark_record(l, &c, old, jiffies, target,
						min_freq);
			if (new == old)
				break;
		} while (!rec_cmpxchg(l, s->records, pghot_idx(pfn), &old, new));
		marked = new != old && pghot_rec_ready(l, new);
	}
	rcu_read_unlock();
	return marked;
}

/**
 * pghot_record_is_ready - is @pfn waiting for kmigrated?
 * @nid: the node of @pfn
 * @pfn: page frame number (of the folio's head page)
 *
 * Return: true if the page's record says ready; false if not, or if it
 * has no record.
 */
bool pghot_record_is_ready(int nid, unsigned long pfn)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_section *s;
	bool ready = false;

	rcu_read_lock();
	s = pghot_section_find(nid, pfn);
	if (s)
		ready = pghot_rec_ready(l, rec_load(l, s->records,
						    pghot_idx(pfn)));
	rcu_read_unlock();
	return ready;
}

/**
 * pghot_record_unready - make @pfn not ready again, its window kept
 * @nid: the node of @pfn
 * @pfn: page frame number (of the folio's head page)
 *
 * For a page that turned ready but could not be queued and is left to
 * another path: its next access within the window makes it ready again.
 */
void pghot_record_unready(int nid, unsigned long pfn)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_section *s;
	u32 old;

	rcu_read_lock();
	s = pghot_section_find(nid, pfn);
	if (s) {
		old = rec_load(l, s->records, pghot_idx(pfn));
		while (pghot_rec_ready(l, old) &&
		       !rec_cmpxchg(l, s->records, pghot_idx(pfn), &old,
				    old & ~pghot_ready_bit(l)))
			;
	}
	rcu_read_unlock();
}

static bool pghot_section_take_ready(struct pghot_section *s,
				     unsigned long idx, u32 *rec)
{
	const struct pghot_layout *l = pghot_layout;
	u32 old = rec_load(l, s->records, idx), new;

	do {
		if (!pghot_rec_ready(l, old))
			return false;
		new = old & ~(pghot_window_mask(l) | pghot_ready_bit(l));
	} while (!rec_cmpxchg(l, s->records, idx, &old, new));
	*rec = old;
	return true;
}

/**
 * pghot_record_take_ready - get and clear the migrate-ready state of @pfn
 * @nid: the node of @pfn
 * @pfn: page frame number
 * @rec: the record as it was, when it was ready
 *
 * The window is closed too, so that a page that cannot be promoted now
 * has to prove itself hot again before it is queued again.
 *
 * Return: true if the page was migrate-ready.
 */
bool pghot_record_take_ready(int nid, unsigned long pfn, u32 *rec)
{
	struct pghot_section *s;
	bool ready = false;

	rcu_read_lock();
	s = pghot_section_find(nid, pfn);
	if (s)
		ready = pghot_section_take_ready(s, pghot_idx(pfn), rec);
	rcu_read_unlock();
	return ready;
}

static void pghot_section_hold(struct pghot_section *s, unsigned long idx,
			       unsigned long now, unsigned long word)
{
	struct pghot_clock c = { .shift = clock_shift(word) };

	rec_store(pghot_layout, s->records, idx,
		  pghot_hold_record(pghot_layout, &c, now));
}

/**
 * pghot_record_hold - hold the page at @pfn: reclaim just demoted it there
 * @nid: the node of @pfn
 * @pfn: page frame number of the (head) page
 *
 * Accesses to it are ignored for pghot_hold_units(); see rule.c.
 */
void pghot_record_hold(int nid, unsigned long pfn)
{
	struct pghot_section *s;

	rcu_read_lock();
	s = pghot_section_find(nid, pfn);
	if (s)
		pghot_section_hold(s, pghot_idx(pfn), jiffies,
				   READ_ONCE(pghot_clock_word));
	rcu_read_unlock();
}

/*
 * Forget records [@from, @to) of @s, the first for @pfn of @nid, and that
 * their pages were sampled in their regions' windows. A page that was
 * ready may still have an entry in its node's queue: report its end
 * (unless @nid is NUMA_NO_NODE), so that the entry is not applied to the
 * memory's next user. Returns the number of ready records forgotten.
 */
static unsigned int pghot_section_reset(struct pghot_section *s, int nid,
					unsigned long pfn, unsigned long from,
					unsigned long to)
{
	const struct pghot_layout *l = pghot_layout;
	unsigned int ready = 0;

	for (; from < to; from++, pfn++) {
		u32 old = rec_load(l, s->records, from);

		while (old && !rec_cmpxchg(l, s->records, from, &old, 0))
			;
		if (s->sampled && test_bit(from, s->sampled))
			clear_bit(from, s->sampled);
		if (!pghot_rec_ready(l, old))
			continue;
		ready++;
		if (nid != NUMA_NO_NODE)
			pghot_ready_ended(nid, pfn);
	}
	return ready;
}

/*
 * Called from the page allocator for every freed page of a tracked node
 * (pghot_free_pages()): the next user of the memory must not inherit the
 * hotness of the last one, nor the target of its queued entry. Stale
 * hardware samples of a freed page may still land afterwards; they count
 * as one access, no more.
 */
void __pghot_free_pages(struct page *page, unsigned int order)
{
	unsigned long pfn = page_to_pfn(page), end = pfn + (1UL << order);
	int nid = page_to_nid(page);

	if (!pghot_node_tracked(nid))
		return;
	rcu_read_lock();
	while (pfn < end) {
		struct pghot_section *s = pghot_section_find(nid, pfn);
		unsigned long next = min(end, SECTION_ALIGN_UP(pfn + 1));

		if (s)
			pghot_section_reset(s, nid, pfn, pghot_idx(pfn),
					    pghot_idx(next - 1) + 1);
		pfn = next;
	}
	rcu_read_unlock();
}

/* No page of the section deferred since kmigrated last looked. */
#define PGHOT_DEFER_NONE	(NUMA_NO_NODE - 1)

/*
 * Keep @target as the one of the deferred pages of @s, or none if they
 * go to different nodes: a default record has no room for its own.
 */
static void pghot_section_defer_target(struct pghot_section *s, int target)
{
	int old = READ_ONCE(s->target);

	do {
		if (old == target || old == NUMA_NO_NODE)
			return;
	} while (!try_cmpxchg(&s->target, &old,
			      old == PGHOT_DEFER_NONE ? target : NUMA_NO_NODE));
}

/**
 * pghot_record_defer - note a ready page that its node's queue cannot take
 * @nid: the node of @pfn
 * @pfn: page frame number of a migrate-ready page
 * @target: where it should go
 *
 * The page stays ready; pghot_collect_deferred() finds it later. A precise
 * record keeps its target; in default mode the deferred pages of a section
 * share one, kept only while they agree (else their node's default).
 */
void pghot_record_defer(int nid, unsigned long pfn, int target)
{
	struct pghot_section *s;
	struct pghot_table *t;

	rcu_read_lock();
	t = pghot_table(nid);
	s = t ? pghot_table_section(t, pfn) : NULL;
	if (s) {
		pghot_section_defer_target(s, target);
		pghot_section_flag(t, s, PGHOT_SEC_DEFERRED);
	}
	rcu_read_unlock();
}

/*
 * Collect up to @max deferred ready pages of @t. With @nid (the table's
 * node, not NUMA_NO_NODE) it may reschedule between sections, and stops
 * if the table is replaced meanwhile (its successor looks at every
 * section again). RCU read side.
 */
static unsigned int pghot_table_collect(struct pghot_table *t, int nid,
					unsigned long *pfns, int *targets,
					unsigned int max)
{
	const struct pghot_layout *l = pghot_layout;
	unsigned int n = 0;
	unsigned long i;

	if (!test_and_clear_bit(PGHOT_SEC_DEFERRED, &t->pending))
		return 0;
	for (i = 0; i < t->nr; i++) {
		unsigned long j, pfn = section_nr_to_pfn(t->start + i);
		struct pghot_section *s;
		int target;

		if (nid != NUMA_NO_NODE && need_resched()) {
			/* The table and its sections live until a grace period. */
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
			if (t != pghot_table(nid))
				break;
		}
		s = rcu_dereference(t->secs[i]);
		/* Clear first: a page deferred during the scan flags again. */
		if (!s || !test_and_clear_bit(PGHOT_SEC_DEFERRED, &s->flags))
			continue;
		target = xchg(&s->target, PGHOT_DEFER_NONE);
		if (target == PGHOT_DEFER_NONE)
			target = NUMA_NO_NODE;
		for (j = 0; j < PAGES_PER_SECTION; j++) {
			u32 rec = rec_load(l, s->records, j);

			if (!pghot_rec_ready(l, rec))
				continue;
			if (n == max) {
				/* Come back for the rest. */
				pghot_section_defer_target(s, target);
				pghot_section_flag(t, s, PGHOT_SEC_DEFERRED);
				return n;
			}
			pfns[n] = pfn + j;
			targets[n] = pghot_rec_nid(l, rec);
			if (targets[n] == NUMA_NO_NODE)
				targets[n] = target;
			n++;
		}
	}
	return n;
}

/**
 * pghot_collect_deferred - find ready pages of @nid that were not queued
 * @nid: lower-tier node
 * @pfns: where to store their PFNs
 * @targets: where to store their targets (precise: the record's, default:
 *	     the last one deferred in their section)
 * @max: room in @pfns and @targets
 *
 * Scans only sections flagged by pghot_record_defer(), so the cost is
 * proportional to the sections that hold deferred ready pages. The ready
 * bits stay set; kmigrated takes them as for queued pages.
 *
 * Return: the number of PFNs stored.
 */
unsigned int pghot_collect_deferred(int nid, unsigned long *pfns, int *targets,
				    unsigned int max)
{
	struct pghot_table *t;
	unsigned int n = 0;

	rcu_read_lock();
	t = pghot_table(nid);
	if (t)
		n = pghot_table_collect(t, nid, pfns, targets, max);
	rcu_read_unlock();
	return n;
}

/*
 * Close every window and hold of @s that cannot be open any more, at time
 * @now under clock @word.
 */
static void pghot_sweep_section(struct pghot_section *s, unsigned long now,
				unsigned long word)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_clock c = { .shift = clock_shift(word) };
	u32 now_units = pghot_now_units(l, &c, now);
	u32 keep = pghot_stale_units(l);
	bool trusted = true;
	unsigned long i;

	/*
	 * Under a new clock, only what was recorded since the sweep was asked
	 * for (the first access that found the section behind the clock) has
	 * a time in its units: the pending accesses. Close everything else.
	 * So too after a quarter of the time range or more without a sweep
	 * (an idle section): an older window or hold may be a whole number of
	 * ranges older and decode as young as a pending access.
	 */
	if (READ_ONCE(s->gen) != clock_gen(word) ||
	    now - READ_ONCE(s->validated) >= stale_jiffies(word)) {
		keep = min(((now_units - pghot_now_units(l, &c, READ_ONCE(s->asked))) &
			    pghot_time_mask(l)) + 1, keep);
		trusted = false;
	}

	for (i = 0; i < PAGES_PER_SECTION; i++) {
		u32 old = rec_load(l, s->records, i), new;

		do {
			new = pghot_sweep_record(l, old, now_units, keep,
						 trusted);
			if (new == old)
				break;
		} while (!rec_cmpxchg(l, s->records, i, &old, new));
	}
	WRITE_ONCE(s->gen, clock_gen(word));
	/* Pairs with the acquire in pghot_section_touch(): records first. */
	smp_store_release(&s->validated, now);
}

/**
 * pghot_sweep_node - sweep the sections of @nid that asked for it
 * @nid: lower-tier node
 *
 * Called by the node's kmigrated, which is the only sweeper of its node.
 *
 * Return: true if a section was swept.
 */
bool pghot_sweep_node(int nid)
{
	struct pghot_table *t;
	bool swept = false;
	unsigned long i;

	rcu_read_lock();
	t = pghot_table(nid);
	if (!t || !test_and_clear_bit(PGHOT_SEC_SWEEP, &t->pending))
		goto out;
	for (i = 0; i < t->nr; i++) {
		struct pghot_section *s = rcu_dereference(t->secs[i]);

		if (!s || !test_bit(PGHOT_SEC_SWEEP, &s->flags))
			continue;
		pghot_sweep_section(s, jiffies, READ_ONCE(pghot_clock_word));
		/* After the sweep: an access meanwhile may not ask again. */
		clear_bit(PGHOT_SEC_SWEEP, &s->flags);
		swept = true;
		/* The table and its sections live until a grace period. */
		rcu_read_unlock();
		cond_resched();
		rcu_read_lock();
		if (t != pghot_table(nid))
			break;
	}
out:
	rcu_read_unlock();
	return swept;
}

/**
 * pghot_nearest_toptier - the top-tier node with memory nearest to @nid
 * @nid: a node
 *
 * Return: the node, or NUMA_NO_NODE if no top-tier node has memory.
 */
int pghot_nearest_toptier(int nid)
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

/* What the allocator really handed out for @p, asked for @size. */
static size_t pghot_alloc_size(const void *p, size_t size)
{
	return is_vmalloc_addr(p) ? PAGE_ALIGN(size) : ksize(p);
}

static size_t pghot_records_size(void)
{
	return PAGES_PER_SECTION * pghot_layout->size;
}

static void pghot_section_free(struct pghot_section *s)
{
	kvfree(s->records);
	kfree(s->regions);
	kfree(s->left);
	kfree(s->sampled);
	kfree(s);
}

static void pghot_section_free_rcu(struct rcu_head *head)
{
	pghot_section_free(container_of(head, struct pghot_section, rcu));
}

static size_t pghot_section_bytes(struct pghot_section *s)
{
	return ksize(s) + pghot_alloc_size(s->records, pghot_records_size()) +
	       (s->regions ? ksize(s->regions) : 0) +
	       (s->left ? ksize(s->left) : 0) +
	       (s->sampled ? ksize(s->sampled) : 0);
}

static size_t pghot_table_size(unsigned long nr)
{
	return struct_size_t(struct pghot_table, secs, nr);
}

/* Make @nid's table cover sections [@first, @last]. Store lock held. */
static struct pghot_table *pghot_table_cover(int nid, unsigned long first,
					     unsigned long last)
{
	struct pghot_table *old = pghot_table(nid), *t;
	unsigned long start = first, end = last + 1, i;

	if (old) {
		if (first >= old->start && last < old->start + old->nr)
			return old;
		start = min(start, old->start);
		end = max(end, old->start + old->nr);
	}
	t = kvzalloc_node(pghot_table_size(end - start), GFP_KERNEL,
			  pghot_nearest_toptier(nid));
	if (!t)
		return NULL;
	t->start = start;
	t->nr = end - start;
	if (old) {
		for (i = 0; i < old->nr; i++)
			RCU_INIT_POINTER(t->secs[old->start - start + i],
					 rcu_dereference_protected(old->secs[i], true));
		atomic_long_sub(pghot_alloc_size(old, pghot_table_size(old->nr)),
				&pghot_store[nid].bytes);
	}
	/* Flags set on the old table meanwhile: look at every section. */
	t->pending = ~0UL;
	atomic_long_add(pghot_alloc_size(t, pghot_table_size(t->nr)),
			&pghot_store[nid].bytes);
	if (old)
		/* Before kmigrated can see @t, see pghot_section_flag(). */
		smp_store_release(&old->next, t);
	rcu_assign_pointer(pghot_store[nid].table, t);
	if (old)
		kvfree_rcu_mightsleep(old);
	return t;
}

/* Drop @nid's table once it has no section left. Store lock held. */
static void pghot_table_trim(int nid)
{
	struct pghot_table *t = pghot_table(nid);
	unsigned long i;

	if (!t)
		return;
	for (i = 0; i < t->nr; i++)
		if (rcu_access_pointer(t->secs[i]))
			return;
	node_clear(nid, pghot_tracked_nodes);
	RCU_INIT_POINTER(pghot_store[nid].table, NULL);
	atomic_long_sub(pghot_alloc_size(t, pghot_table_size(t->nr)),
			&pghot_store[nid].bytes);
	kvfree_rcu_mightsleep(t);
}

static void pghot_sections_remove(int nid, unsigned long start_pfn,
				  unsigned long nr_pages)
{
	struct pghot_table *t = pghot_table(nid);
	unsigned long pfn, i;

	if (!t)
		return;
	for (pfn = start_pfn; pfn < start_pfn + nr_pages; pfn += PAGES_PER_SECTION) {
		struct pghot_section *s;

		i = pfn_to_section_nr(pfn) - t->start;
		if (i >= t->nr)
			continue;
		s = rcu_dereference_protected(t->secs[i], true);
		if (!s)
			continue;
		RCU_INIT_POINTER(t->secs[i], NULL);
		atomic_long_sub(pghot_section_bytes(s), &pghot_store[nid].bytes);
		/* Readers hold rcu_read_lock() across every record access. */
		call_rcu(&s->rcu, pghot_section_free_rcu);
	}
	pghot_table_trim(nid);
}

static int pghot_sections_add(int nid, unsigned long start_pfn,
			      unsigned long nr_pages)
{
	unsigned long first = pfn_to_section_nr(start_pfn);
	unsigned long last = pfn_to_section_nr(start_pfn + nr_pages - 1);
	int home = pghot_nearest_toptier(nid);
	struct pghot_table *t;
	unsigned long nr;

	t = pghot_table_cover(nid, first, last);
	if (!t)
		return -ENOMEM;
	for (nr = first; nr <= last; nr++) {
		struct pghot_section *s;

		if (rcu_access_pointer(t->secs[nr - t->start]))
			continue;
		s = kzalloc_node(sizeof(*s), GFP_KERNEL, home);
		if (!s)
			return -ENOMEM;
		/* Exactly PAGES_PER_SECTION * size: a power of two. */
		s->records = kvzalloc_node(pghot_records_size(), GFP_KERNEL, home);
		s->regions = kcalloc_node(PGHOT_REGIONS_PER_SECTION,
					  sizeof(*s->regions), GFP_KERNEL, home);
		s->left = kcalloc_node(PGHOT_REGIONS_PER_SECTION,
				       sizeof(*s->left), GFP_KERNEL, home);
		s->sampled = kcalloc_node(BITS_TO_LONGS(PAGES_PER_SECTION),
					  sizeof(*s->sampled), GFP_KERNEL, home);
		if (!s->records || !s->regions || !s->left || !s->sampled) {
			pghot_section_free(s);
			return -ENOMEM;
		}
		s->validated = jiffies;
		s->asked = s->validated;
		s->gen = clock_gen(READ_ONCE(pghot_clock_word));
		s->target = PGHOT_DEFER_NONE;
		atomic_long_add(pghot_section_bytes(s), &pghot_store[nid].bytes);
		rcu_assign_pointer(t->secs[nr - t->start], s);
	}
	node_set(nid, pghot_tracked_nodes);
	return 0;
}

/**
 * pghot_store_stats - what the store holds for a node
 * @nid: the node
 * @st: filled in
 */
void pghot_store_stats(int nid, struct pghot_store_stats *st)
{
	struct pghot_table *t;
	unsigned long i;

	memset(st, 0, sizeof(*st));
	if (!pghot_store)
		return;
	st->bytes = atomic_long_read(&pghot_store[nid].bytes);
	rcu_read_lock();
	t = pghot_table(nid);
	for (i = 0; t && i < t->nr; i++)
		if (rcu_access_pointer(t->secs[i]))
			st->sections++;
	rcu_read_unlock();
	st->pages = st->sections * PAGES_PER_SECTION;
}

/*
 * Records follow memory hotplug. They are allocated at MEM_ONLINE, when
 * memory-tiers has placed a node that just got its first memory, and freed
 * when the block goes offline. A failed allocation leaves the block
 * without records: its pages are simply not tracked.
 */
static int pghot_memory_callback(struct notifier_block *nb,
				 unsigned long action, void *arg)
{
	struct memory_notify *mn = arg;
	int nid = pfn_to_nid(mn->start_pfn);

	mutex_lock(&pghot_store_lock);
	switch (action) {
	case MEM_ONLINE:
		if (node_is_toptier(nid))
			break;
		if (pghot_sections_add(nid, mn->start_pfn, mn->nr_pages)) {
			pr_warn("no records for pfn %#lx-%#lx of node %d; its pages are not tracked\n",
				mn->start_pfn, mn->start_pfn + mn->nr_pages - 1, nid);
			pghot_sections_remove(nid, mn->start_pfn, mn->nr_pages);
		}
		/* Memory hotplug holds the CPU hotplug lock. */
		if (pghot_node_tracked(nid))
			static_branch_enable_cpuslocked(&pghot_tracking);
		break;
	case MEM_OFFLINE:
	case MEM_CANCEL_ONLINE:
		pghot_sections_remove(nid, mn->start_pfn, mn->nr_pages);
		break;
	}
	mutex_unlock(&pghot_store_lock);
	return NOTIFY_OK;
}

/* After memory_tier_late_init(): before it, every node looks toptier. */
static int __init pghot_records_init(void)
{
	int nid, err = 0;

	BUILD_BUG_ON(MAX_NUMNODES + 1 > 1 << 11);
	if (pghot_off)
		return 0;
	pghot_store = kcalloc(nr_node_ids, sizeof(*pghot_store), GFP_KERNEL);
	if (!pghot_store)
		return -ENOMEM;
	pghot_set_clock(READ_ONCE(pghot_promote_window_ms));
	get_online_mems();
	mutex_lock(&pghot_store_lock);
	for_each_node_state(nid, N_MEMORY) {
		unsigned long start, end;

		if (node_is_toptier(nid))
			continue;
		start = round_down(node_start_pfn(nid), PAGES_PER_SECTION);
		end = node_end_pfn(nid);
		/* One table for the node's span, not one per section. */
		if (!pghot_table_cover(nid, pfn_to_section_nr(start),
				       pfn_to_section_nr(end - 1)))
			err = -ENOMEM;
		for (; start < end && !err; start += PAGES_PER_SECTION) {
			if (!online_section_nr(pfn_to_section_nr(start)) ||
			    pfn_to_nid(start) != nid)
				continue;
			err = pghot_sections_add(nid, start, PAGES_PER_SECTION);
		}
		if (err) {
			pr_err("no records for node %d: %d; its pages are not tracked\n",
			       nid, err);
			pghot_sections_remove(nid, node_start_pfn(nid),
					      node_spanned_pages(nid));
			err = 0;
		}
	}
	mutex_unlock(&pghot_store_lock);
	hotplug_memory_notifier(pghot_memory_callback, DEFAULT_CALLBACK_PRI);
	put_online_mems();
	/* Outside the hotplug lock: takes the CPU hotplug lock. */
	if (!nodes_empty(pghot_tracked_nodes))
		static_branch_enable(&pghot_tracking);
	return 0;
}
late_initcall_sync(pghot_records_init);

#include "tests/record-kunit.h"
