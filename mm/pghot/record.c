// SPDX-License-Identifier: GPL-2.0
/*
 * pghot record store: one small record per page of lower-tier memory.
 *
 * Records live in per-section arrays (PAGES_PER_SECTION records each),
 * found through an xarray keyed by section number, allocated when a
 * lower-tier memory block comes online and freed when it goes offline.
 * Top-tier memory has no records. Updates are lock-free (cmpxchg).
 *
 * A record's time field holds a few bits of jiffies, so it wraps. To keep a
 * page that was touched long ago from looking recent, every section
 * remembers when it was last "validated". An access to a section that has
 * not been validated for a quarter of the time field's range first clears
 * the window of every record older than that (see pghot_revalidate()), so
 * when an access is applied every open window is younger than half the
 * range and decodes without ambiguity; an apparent age beyond half the
 * range is an access that arrived late. Idle sections cost nothing.
 */
#include <linux/jiffies.h>
#include <linux/memory.h>
#include <linux/memory-tiers.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "internal.h"

/* 1 byte: time 5 bits, frequency 2 bits, ready 1 bit. */
const struct pghot_layout pghot_layout_default = {
	.name = "default",
	.size = 1,
	.time_bits = 5,
	.freq_bits = 2,
	.nid_bits = 0,
	.window_units = 4,
};

/* 4 bytes: time 18 bits, frequency 3 bits, accessor node 10 bits, ready. */
const struct pghot_layout pghot_layout_precise = {
	.name = "precise",
	.size = 4,
	.time_bits = 18,
	.freq_bits = 3,
	.nid_bits = 10,
	.window_units = 256,
};

const struct pghot_layout *pghot_layout =
	IS_ENABLED(CONFIG_PGHOT_PRECISE) ? &pghot_layout_precise :
					   &pghot_layout_default;

/*
 * The clock: time unit (2^shift jiffies) and a generation that changes
 * whenever the unit does, packed in one word so readers see a consistent
 * pair. A section validated under another generation has meaningless
 * time fields and is cleared as a whole.
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

/*
 * The smallest power-of-two unit in which @window_jiffies spans at most
 * @units units.
 */
static unsigned int pghot_clock_shift_for(unsigned long window_jiffies,
					  unsigned int units)
{
	unsigned int shift = 0;

	while (DIV_ROUND_UP(window_jiffies, 1UL << shift) > units)
		shift++;
	return shift;
}

/**
 * pghot_set_clock - set the time unit for a promotion window
 * @window_ms: the promotion window in milliseconds
 *
 * Changing the unit invalidates every open window (records keep their
 * migrate-ready bit).
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

/* Records older than this many units can no longer be in a window. */
static u32 pghot_stale_units(const struct pghot_layout *l)
{
	return 1U << (l->time_bits - 2);
}

static u32 pghot_half_range(const struct pghot_layout *l)
{
	return 1U << (l->time_bits - 1);
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

static u32 pghot_now_units(const struct pghot_layout *l,
			   const struct pghot_clock *c, unsigned long now)
{
	return (now >> c->shift) & pghot_time_mask(l);
}

/**
 * pghot_update_record - apply one access to a record
 * @l: record layout
 * @c: clock
 * @old: the record before the access
 * @a: the access
 *
 * An access within @a->window units of the previous one increments the
 * frequency, saturating; a later one (or the first) opens a new window with
 * frequency 1. The record becomes migrate-ready when the frequency reaches
 * @a->threshold; an already ready record stays ready.
 *
 * Return: the new record.
 */
u32 pghot_update_record(const struct pghot_layout *l,
			const struct pghot_clock *c, u32 old,
			const struct pghot_access *a)
{
	u32 now = pghot_now_units(l, c, a->now);
	u32 freq = pghot_rec_freq(l, old);
	u32 age = (now - pghot_rec_time(l, old)) & pghot_time_mask(l);
	u32 new;

	/*
	 * An open window is never older than half the time field's range
	 * (see pghot_revalidate()), so a larger age is an access from just
	 * before the recorded one that arrived late (samples drained by
	 * another CPU, two sources): it counts, and the time stays.
	 */
	if (freq && age >= pghot_half_range(l)) {
		now = pghot_rec_time(l, old);
		age = 0;
	}
	if (freq && age < a->window)
		freq = min(freq + 1, pghot_freq_max(l));
	else
		freq = 1;

	new = now | freq << l->time_bits;
	if (l->nid_bits && a->nid >= 0)
		new |= (u32)a->nid << (l->time_bits + l->freq_bits);
	if ((old & pghot_ready_bit(l)) || freq >= a->threshold)
		new |= pghot_ready_bit(l);
	return new;
}

struct pghot_section {
	spinlock_t lock;		/* serialises revalidation */
	unsigned long validated;	/* jiffies of the last revalidation */
	unsigned long gen;		/* clock generation then */
	int nid;
	struct rcu_head rcu;
	u32 records[];			/* u8 or u32, see pghot_layout */
};

/*
 * Sections by section number. A mark flags sections holding ready pages
 * that did not fit in their node's queue; kmigrated scans only those.
 * Marks are set from any context that records accesses, hence IRQ-safe.
 */
#define PGHOT_MARK_OVERFLOW	XA_MARK_0
static DEFINE_XARRAY_FLAGS(pghot_sections, XA_FLAGS_LOCK_IRQ);
static atomic_long_t pghot_bytes;
static atomic_long_t pghot_nr_sections;

static size_t pghot_section_bytes(void)
{
	return sizeof(struct pghot_section) +
	       PAGES_PER_SECTION * pghot_layout->size;
}

static u32 rec_load(const struct pghot_layout *l, struct pghot_section *s,
		    unsigned long idx)
{
	if (l->size == 1)
		return READ_ONCE(((u8 *)s->records)[idx]);
	return READ_ONCE(s->records[idx]);
}

static bool rec_cmpxchg(const struct pghot_layout *l, struct pghot_section *s,
			unsigned long idx, u32 *old, u32 new)
{
	if (l->size == 1) {
		u8 o = *old;
		bool ok = try_cmpxchg(&((u8 *)s->records)[idx], &o, (u8)new);

		*old = o;
		return ok;
	}
	return try_cmpxchg(&s->records[idx], old, new);
}

/*
 * Close the window of every record that cannot be in one any more. Runs
 * at the current time @now, under the clock in force now: no record is
 * newer and none is in the units of an older clock.
 */
static void pghot_revalidate(const struct pghot_layout *l,
			     struct pghot_section *s, unsigned long now)
{
	u32 stale = pghot_stale_units(l);
	unsigned long range = (unsigned long)pghot_time_mask(l) + 1;
	unsigned long i, flags, word;
	struct pghot_clock c;
	u32 now_units;
	bool all;

	spin_lock_irqsave(&s->lock, flags);
	word = READ_ONCE(pghot_clock_word);
	c.shift = clock_shift(word);
	now_units = pghot_now_units(l, &c, now);
	if (s->gen == clock_gen(word) &&
	    time_before(now, s->validated + ((unsigned long)stale << c.shift))) {
		/* Somebody else did it meanwhile. */
		spin_unlock_irqrestore(&s->lock, flags);
		return;
	}
	/*
	 * Every open window was younger than a quarter range at the last
	 * validation and no access has happened since the next quarter
	 * began. If more than three quarters have gone by, nothing can be
	 * recent; otherwise the age of each record decodes exactly.
	 */
	all = s->gen != clock_gen(word) ||
	      time_after_eq(now, s->validated + ((range - stale) << c.shift));
	for (i = 0; i < PAGES_PER_SECTION; i++) {
		u32 old = rec_load(l, s, i), new;

		do {
			if (!pghot_rec_freq(l, old))
				break;
			if (!all && ((now_units - pghot_rec_time(l, old)) &
				     pghot_time_mask(l)) < stale)
				break;
			/* Keep ready and node, drop time and frequency. */
			new = old & ~(pghot_time_mask(l) |
				      pghot_freq_max(l) << l->time_bits);
		} while (!rec_cmpxchg(l, s, i, &old, new));
	}
	s->gen = clock_gen(word);
	/* Pairs with the acquire in pghot_record_touch(): records first. */
	smp_store_release(&s->validated, now);
	spin_unlock_irqrestore(&s->lock, flags);
}

static struct pghot_section *pghot_section_get(unsigned long pfn)
{
	return xa_load(&pghot_sections, pfn_to_section_nr(pfn));
}

/**
 * pghot_record_touch - apply an access to the record of @pfn
 * @pfn: page frame number (of the folio's head page)
 * @a: the access
 * @became_ready: set when this access made the page migrate-ready
 *
 * Return: 0, or -ENOENT when @pfn has no record (not lower-tier memory).
 */
int pghot_record_touch(unsigned long pfn, const struct pghot_access *a,
		       bool *became_ready)
{
	const struct pghot_layout *l = pghot_layout;
	unsigned long idx = pfn & (PAGES_PER_SECTION - 1);
	struct pghot_access at = *a;
	unsigned long word, validated, cur;
	struct pghot_section *s;
	struct pghot_clock c;
	u32 old, new;
	int ret = -ENOENT;

	*became_ready = false;
	rcu_read_lock();
	s = pghot_section_get(pfn);
	if (!s)
		goto out;
	/*
	 * Revalidate at the current time, not at the access time, which may
	 * lie in the past (samples wait in a ring before they are drained).
	 * Tests pass times ahead of jiffies to let time pass.
	 */
	cur = time_after(at.now, jiffies) ? at.now : jiffies;
	for (;;) {
		word = READ_ONCE(pghot_clock_word);
		/* Pairs with the release in pghot_revalidate(). */
		validated = smp_load_acquire(&s->validated);
		if (READ_ONCE(s->gen) == clock_gen(word) &&
		    time_before(cur, validated +
				((unsigned long)pghot_stale_units(l) << clock_shift(word))))
			break;
		pghot_revalidate(l, s, cur);
	}
	/* Nothing may be recorded as older than the last revalidation. */
	if (time_before(at.now, validated))
		at.now = validated;
	c.shift = clock_shift(word);
	old = rec_load(l, s, idx);
	do {
		new = pghot_update_record(l, &c, old, &at);
	} while (!rec_cmpxchg(l, s, idx, &old, new));
	/* The clock changed under us: this record is in the old units. */
	if (unlikely(READ_ONCE(pghot_clock_word) != word))
		pghot_record_take_ready(pfn, &old);
	else
		*became_ready = !(old & pghot_ready_bit(l)) &&
				(new & pghot_ready_bit(l));
	ret = 0;
out:
	rcu_read_unlock();
	return ret;
}

/**
 * pghot_record_take_ready - get and clear the migrate-ready bit of @pfn
 * @pfn: page frame number
 * @rec: the record as it was, when the bit was set
 *
 * The frequency is reset too, so that a page that cannot be promoted now
 * has to prove itself hot again before it is queued again.
 *
 * Return: true if the page was migrate-ready.
 */
bool pghot_record_take_ready(unsigned long pfn, u32 *rec)
{
	const struct pghot_layout *l = pghot_layout;
	unsigned long idx = pfn & (PAGES_PER_SECTION - 1);
	struct pghot_section *s;
	bool ready = false;
	u32 old, new;

	rcu_read_lock();
	s = pghot_section_get(pfn);
	if (!s)
		goto out;
	old = rec_load(l, s, idx);
	do {
		if (!(old & pghot_ready_bit(l)))
			goto out;
		new = old & ~(pghot_ready_bit(l) | pghot_time_mask(l) |
			      pghot_freq_max(l) << l->time_bits);
	} while (!rec_cmpxchg(l, s, idx, &old, new));
	*rec = old;
	ready = true;
out:
	rcu_read_unlock();
	return ready;
}

/**
 * pghot_record_defer - note a ready page that its node's queue cannot take
 * @pfn: page frame number of a migrate-ready page
 *
 * The page stays ready; pghot_collect_deferred() finds it later.
 */
void pghot_record_defer(unsigned long pfn)
{
	unsigned long flags;

	xa_lock_irqsave(&pghot_sections, flags);
	__xa_set_mark(&pghot_sections, pfn_to_section_nr(pfn), PGHOT_MARK_OVERFLOW);
	xa_unlock_irqrestore(&pghot_sections, flags);
}

/**
 * pghot_collect_deferred - find ready pages of @nid that were not queued
 * @nid: lower-tier node
 * @pfns: where to store their PFNs
 * @max: room in @pfns
 *
 * Scans only sections flagged by pghot_record_defer(), so the cost is
 * proportional to the sections that hold deferred ready pages. The ready
 * bits stay set; kmigrated takes them as for queued pages.
 *
 * Return: the number of PFNs stored.
 */
unsigned int pghot_collect_deferred(int nid, unsigned long *pfns,
				    unsigned int max)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_section *s;
	unsigned long nr, flags;
	unsigned int n = 0;

	rcu_read_lock();
	xa_for_each_marked(&pghot_sections, nr, s, PGHOT_MARK_OVERFLOW) {
		unsigned long i, pfn = section_nr_to_pfn(nr);

		if (s->nid != nid)
			continue;
		/* Clear first: a page deferred during the scan marks again. */
		xa_lock_irqsave(&pghot_sections, flags);
		__xa_clear_mark(&pghot_sections, nr, PGHOT_MARK_OVERFLOW);
		xa_unlock_irqrestore(&pghot_sections, flags);
		for (i = 0; i < PAGES_PER_SECTION; i++) {
			if (!(rec_load(l, s, i) & pghot_ready_bit(l)))
				continue;
			if (n == max) {
				/* Come back for the rest. */
				pghot_record_defer(pfn);
				goto out;
			}
			pfns[n++] = pfn + i;
		}
	}
out:
	rcu_read_unlock();
	return n;
}

/**
 * pghot_record_reset - forget the hotness of @pfn, ready bit included
 * @pfn: page frame number
 */
void pghot_record_reset(unsigned long pfn)
{
	u32 rec;

	pghot_record_take_ready(pfn, &rec);
}

/**
 * pghot_record_bytes - memory used by records and their section headers
 *
 * Return: bytes.
 */
unsigned long pghot_record_bytes(void)
{
	return atomic_long_read(&pghot_bytes);
}

/**
 * pghot_tracked_pages - number of pages that have a record
 *
 * Return: pages.
 */
unsigned long pghot_tracked_pages(void)
{
	return atomic_long_read(&pghot_nr_sections) * PAGES_PER_SECTION;
}

static int pghot_sections_add(unsigned long start_pfn, unsigned long nr_pages,
			      int nid)
{
	unsigned long pfn;
	int err;

	for (pfn = start_pfn; pfn < start_pfn + nr_pages; pfn += PAGES_PER_SECTION) {
		unsigned long nr = pfn_to_section_nr(pfn);
		struct pghot_section *s;

		if (xa_load(&pghot_sections, nr))
			continue;
		s = kvzalloc(pghot_section_bytes(), GFP_KERNEL);
		if (!s)
			return -ENOMEM;
		spin_lock_init(&s->lock);
		s->validated = jiffies;
		s->gen = clock_gen(READ_ONCE(pghot_clock_word));
		s->nid = nid;
		err = xa_err(xa_store_irq(&pghot_sections, nr, s, GFP_KERNEL));
		if (err) {
			kvfree(s);
			return err;
		}
		atomic_long_add(pghot_section_bytes(), &pghot_bytes);
		atomic_long_inc(&pghot_nr_sections);
	}
	return 0;
}

static void pghot_section_free_rcu(struct rcu_head *head)
{
	kvfree(container_of(head, struct pghot_section, rcu));
}

static void pghot_sections_remove(unsigned long start_pfn, unsigned long nr_pages)
{
	unsigned long pfn;

	for (pfn = start_pfn; pfn < start_pfn + nr_pages; pfn += PAGES_PER_SECTION) {
		struct pghot_section *s;

		s = xa_erase_irq(&pghot_sections, pfn_to_section_nr(pfn));
		if (!s)
			continue;
		atomic_long_sub(pghot_section_bytes(), &pghot_bytes);
		atomic_long_dec(&pghot_nr_sections);
		/* Readers hold rcu_read_lock() across every record access. */
		call_rcu(&s->rcu, pghot_section_free_rcu);
	}
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

	switch (action) {
	case MEM_ONLINE:
		if (node_is_toptier(nid))
			break;
		if (pghot_sections_add(mn->start_pfn, mn->nr_pages, nid)) {
			pr_warn("pghot: no records for pfn %#lx-%#lx of node %d; its pages are not tracked\n",
				mn->start_pfn, mn->start_pfn + mn->nr_pages - 1, nid);
			pghot_sections_remove(mn->start_pfn, mn->nr_pages);
		}
		break;
	case MEM_OFFLINE:
	case MEM_CANCEL_ONLINE:
		pghot_sections_remove(mn->start_pfn, mn->nr_pages);
		break;
	}
	return NOTIFY_OK;
}

/**
 * pghot_records_init - allocate records for the lower-tier memory present
 *
 * Return: 0 or -ENOMEM.
 */
int __init pghot_records_init(void)
{
	int nid, err;

	pghot_set_clock(READ_ONCE(pghot_promote_window_ms));
	for_each_node_state(nid, N_MEMORY) {
		unsigned long start, end;

		if (node_is_toptier(nid))
			continue;
		start = round_down(node_start_pfn(nid), PAGES_PER_SECTION);
		end = node_end_pfn(nid);
		for (; start < end; start += PAGES_PER_SECTION) {
			if (!online_section_nr(pfn_to_section_nr(start)))
				continue;
			err = pghot_sections_add(start, PAGES_PER_SECTION, nid);
			if (err)
				return err;
		}
	}
	hotplug_memory_notifier(pghot_memory_callback, DEFAULT_CALLBACK_PRI);
	return 0;
}

#include "tests/record-kunit.h"
