// SPDX-License-Identifier: GPL-2.0
/*
 * pghot hotness rule.
 *
 * An access within promote_window_ms of the previous one increments the
 * page's frequency (saturating); an access after the window opens a new
 * window with frequency 1. A page whose frequency reaches freq_threshold
 * becomes migrate-ready. A source that knows more than "the page was
 * accessed" (a NUMA hint fault that came quickly after the scan) may ask
 * for threshold 1: the page is hot at once.
 *
 * A page that reclaim just demoted is held: accesses to it are ignored
 * for a while, so that a working set larger than the top tier is not
 * promoted and demoted over and over.
 *
 * A sampled source sees a hot page only now and then: at the sample rates
 * of IBS a page may get fewer samples in a minute than freq_threshold. Its
 * samples therefore also count for the page's region (2 MiB of physical
 * memory around it), over a longer window (hwhint_region_ms): a region
 * whose samples say that each of its pages can expect freq_threshold
 * samples within that window is hot. Its pages need not be alike (hot and
 * cold pages share regions in a heap), so a hot region does not stand in
 * for a page's samples; it remembers which of its pages were sampled in
 * its window, and a page's two samples count over that window rather than
 * the page record's. A region that has enough samples to tell but stays
 * below the bar makes a single sample insufficient even at threshold 1;
 * if its samples fall on few of its pages (a few hot pages among cold
 * ones), its window counts for those too. A hot region nearly all of whose
 * pages left for the top tier has its last pages promoted with them.
 *
 * That bar is absolute, and a sampler's rate is not: it follows the
 * program's speed, which rises as its hot memory is promoted, so memory a
 * few times cooler than the hot set would soon cross it. A region must
 * therefore also reach a share (half by default) of its node's reference,
 * the rate its regions found hot lately showed, which the hot regions keep
 * up to date; it halves with every region window that passes, so the
 * cooler memory is promoted later, not never.
 *
 * Everything here is a pure function of its arguments; the record store
 * (record.c) applies it with cmpxchg.
 */
#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "rule.h"

/* 1 byte: time 5 bits, frequency 2 bits, ready 1 bit. */
const struct pghot_layout pghot_layout_default = {
	.name = "default",
	.size = 1,
	.time_bits = 5,
	.freq_bits = 2,
	.nid_bits = 0,
	.window_units = 4,
};

/* 4 bytes: time 17 bits, frequency 3 bits, target + 1 11 bits, ready. */
const struct pghot_layout pghot_layout_precise = {
	.name = "precise",
	.size = 4,
	.time_bits = 17,
	.freq_bits = 3,
	.nid_bits = 11,
	.window_units = 256,
};

/* Chosen at boot (pghot_mode=), read on every access. */
const struct pghot_layout *pghot_layout __ro_after_init =
	IS_ENABLED(CONFIG_PGHOT_PRECISE) ? &pghot_layout_precise :
					   &pghot_layout_default;

unsigned int pghot_freq_threshold __read_mostly = 2;
unsigned int pghot_promote_window_ms __read_mostly = 4000;
unsigned int pghot_hwhint_region_ms __read_mostly = PGHOT_REGION_MS_DEFAULT;
unsigned int pghot_hwhint_region_ref __read_mostly = PGHOT_REGION_REF_DEFAULT;

/**
 * pghot_clock_shift_for - the time unit for a promotion window
 * @window_jiffies: the window
 * @units: how many time units a window should span at most
 *
 * Return: log2 of the smallest power-of-two number of jiffies per unit in
 * which @window_jiffies spans at most @units units.
 */
unsigned int pghot_clock_shift_for(unsigned long window_jiffies,
				   unsigned int units)
{
	unsigned int shift = 0;

	while (DIV_ROUND_UP(window_jiffies, 1UL << shift) > units)
		shift++;
	return shift;
}

/**
 * pghot_now_units - a time in record units
 * @l: record layout
 * @c: clock
 * @now: jiffies
 *
 * Return: the time field a record written at @now holds.
 */
u32 pghot_now_units(const struct pghot_layout *l, const struct pghot_clock *c,
		    unsigned long now)
{
	return (now >> c->shift) & pghot_time_mask(l);
}

/*
 * @rec, a window of one access, as a pending record: no frequency, and a
 * time that is not 0 (which reads as idle): one unit earlier if it was.
 */
static u32 pghot_pending_record(const struct pghot_layout *l, u32 rec)
{
	rec &= ~(pghot_freq_max(l) << l->time_bits);
	if (!pghot_rec_time(l, rec))
		rec |= pghot_time_mask(l);
	return rec;
}

/**
 * pghot_update_record - apply one access to a record
 * @l: record layout
 * @c: clock
 * @old: the record before the access
 * @a: the access
 * @out: set to what the access did
 *
 * An access within @a->window units of the previous one increments the
 * frequency, saturating; a later one (or the first) opens a new window
 * with frequency 1. The record becomes migrate-ready when the frequency
 * reaches @a->threshold, or @a->known does (the caller remembers accesses
 * the window has let go); a ready record stays ready. A held record ignores
 * accesses for two windows (pghot_hold_units()) after it was held. When
 * the record's time cannot be trusted (@a->fresh is false) an open window
 * or a hold counts as over, and the access leaves the record pending
 * (unless it made it ready): the sweep that follows cannot tell windows
 * opened since it was asked for from older ones that decode as young, but
 * it can tell a pending record.
 *
 * Return: the new record.
 */
u32 pghot_update_record(const struct pghot_layout *l,
			const struct pghot_clock *c, u32 old,
			const struct pghot_access *a, enum pghot_outcome *out)
{
	u32 now = pghot_now_units(l, c, a->now);
	u32 ready = old & pghot_ready_bit(l);
	u32 freq = pghot_rec_hits(l, old);
	u32 age = (now - pghot_rec_time(l, old)) & pghot_time_mask(l);
	u32 new;

	*out = PGHOT_COUNTED;
	if (!freq && ready) {
		/* Held. */
		if (a->fresh && age < pghot_hold_units(l, a->window)) {
			*out = PGHOT_HELD;
			return old;
		}
		ready = 0;
	} else if (!a->fresh) {
		/* A ready record stays ready, whatever its window. */
		if (!ready)
			freq = 0;
	} else if (freq && age >= pghot_half_range(l)) {
		/*
		 * An open window is never older than half the range, so a
		 * larger age is an access from just before the recorded one
		 * that arrived late (samples drained by another CPU, two
		 * sources): it counts, and the time stays.
		 */
		now = pghot_rec_time(l, old);
		age = 0;
	}
	if (freq && age < a->window)
		freq = min(freq + 1, pghot_freq_max(l));
	else
		freq = 1;

	new = now | freq << l->time_bits;
	if (l->nid_bits && a->nid != NUMA_NO_NODE)
		new |= (u32)(a->nid + 1) << pghot_nid_shift(l);
	else
		new |= old & ~(pghot_window_mask(l) | pghot_ready_bit(l));
	if (ready || max(freq, a->known) >= a->threshold)
		new |= pghot_ready_bit(l);
	else if (!a->fresh)
		new = pghot_pending_record(l, new);
	return new;
}

/**
 * pghot_hold_record - the record of a page demoted at @now
 * @l: record layout
 * @c: clock
 * @now: jiffies
 *
 * Return: a held record, with no target.
 */
u32 pghot_hold_record(const struct pghot_layout *l,
		      const struct pghot_clock *c, unsigned long now)
{
	return pghot_now_units(l, c, now) | pghot_ready_bit(l);
}

/**
 * pghot_sweep_record - close what can no longer be open
 * @l: record layout
 * @old: the record
 * @now_units: the current time in record units
 * @keep_units: windows, holds and pending accesses younger than this many
 *	units stay: pghot_stale_units() normally; when the times could not
 *	be trusted, the units since the sweep was asked for plus one
 * @trusted: false when the times could not be trusted (a new clock, or a
 *	section left unswept for pghot_stale_units() or more): only pending
 *	records were written since the sweep was asked for, any other
 *	window or hold may be a whole time range older than it decodes
 *
 * Ready records are left alone: their time no longer matters, and their
 * frequency stays non-zero so that they do not look held. A pending record
 * that stays becomes a window of one access opened at its time.
 *
 * Return: the record with its window or hold closed, time and frequency
 * dropped, if it is @keep_units or older or cannot be trusted.
 */
u32 pghot_sweep_record(const struct pghot_layout *l, u32 old, u32 now_units,
		       u32 keep_units, bool trusted)
{
	u32 age = (now_units - pghot_rec_time(l, old)) & pghot_time_mask(l);

	if (pghot_rec_ready(l, old))
		return old;
	if (pghot_rec_pending(l, old)) {
		if (age < keep_units)
			return old | 1U << l->time_bits;
	} else if (!pghot_rec_freq(l, old) && !pghot_rec_held(l, old)) {
		/* Idle. */
		return old;
	} else if (trusted && age < keep_units) {
		return old;
	}
	return old & ~(pghot_window_mask(l) | pghot_ready_bit(l));
}

/**
 * pghot_mark_record - make a page ready on its region's evidence
 * @l: record layout
 * @c: clock
 * @old: the page's record
 * @now: jiffies
 * @nid: target to keep (precise), or NUMA_NO_NODE
 * @min_freq: the page's own samples needed besides its region's (0: none)
 *
 * A held page stays held and a ready one ready; a page with fewer than
 * @min_freq accesses in its record is left alone. Any other page becomes
 * ready, with a frequency of at least 1 (a record without one would read
 * as held) and, if it had no window open nor a pending access, the time
 * @now.
 *
 * Return: the new record; equal to @old if nothing changed.
 */
u32 pghot_mark_record(const struct pghot_layout *l, const struct pghot_clock *c,
		      u32 old, unsigned long now, int nid, unsigned int min_freq)
{
	u32 hits = pghot_rec_hits(l, old), new;

	if ((old & pghot_ready_bit(l)) || hits < min_freq)
		return old;
	if (hits)
		new = old | (pghot_rec_freq(l, old) ? 0 : 1U << l->time_bits);
	else
		new = (old & ~pghot_window_mask(l)) | pghot_now_units(l, c, now) |
		      1U << l->time_bits;
	if (l->nid_bits && nid != NUMA_NO_NODE) {
		new &= ~(((1U << l->nid_bits) - 1) << pghot_nid_shift(l));
		new |= (u32)(nid + 1) << pghot_nid_shift(l);
	}
	return new | pghot_ready_bit(l);
}

/*
 * Jiffies from @stamp to @now in the 40-bit time of region records and
 * references; 0 if @stamp is later (a sample that waited in a ring, a
 * racing update).
 */
static u64 pghot_region_age(u64 now, u64 stamp)
{
	u64 age = (now - stamp) & PGHOT_REGION_TIME_MASK;

	return age >= BIT_ULL(PGHOT_REGION_TIME_BITS - 1) ? 0 : age;
}

/**
 * pghot_region_opens - does a sample open a new window in its region?
 * @rec: the region record before the sample
 * @now: jiffies of the sample
 * @window: the region window, jiffies
 *
 * Return: true if @rec has no window open or its window is over at @now.
 */
bool pghot_region_opens(u64 rec, unsigned long now, unsigned long window)
{
	return !pghot_region_count(rec) ||
	       pghot_region_age(now & PGHOT_REGION_TIME_MASK,
				rec & PGHOT_REGION_TIME_MASK) >= window;
}

/**
 * pghot_region_rate - the rate of a region's samples
 * @count: samples
 * @span: over this many jiffies (0 counts as 1)
 *
 * Return: samples per 2^PGHOT_REF_RATE_SHIFT jiffies, at most
 * PGHOT_REF_RATE_MAX.
 */
u32 pghot_region_rate(u32 count, unsigned long span)
{
	u64 rate = div64_u64((u64)count << PGHOT_REF_RATE_SHIFT,
			     max_t(u64, span, 1));

	return min_t(u64, rate, PGHOT_REF_RATE_MAX);
}

/**
 * pghot_region_distinct_expected - pages hit by samples that spread evenly
 * @samples: samples
 * @pages: over this many pages, each as likely to be sampled as another
 *
 * Return: the number of distinct pages @samples independent samples are
 * expected to hit, @pages * (1 - (1 - 1 / @pages)^@samples), rounded
 * down; 0 for no pages.
 */
u32 pghot_region_distinct_expected(u32 samples, unsigned int pages)
{
	/* 1 - 1 / pages and its powers in 32-bit fixed point: no overflow. */
	u64 base, miss = BIT_ULL(32);

	if (!pages)
		return 0;
	base = BIT_ULL(32) - div_u64(BIT_ULL(32), pages);
	while (samples) {
		if (samples & 1)
			miss = (miss * base) >> 32;
		base = (base * base) >> 32;
		samples >>= 1;
	}
	/* Rounded up; miss <= 2^32: no overflow below 2^31 pages. */
	return pages - (u32)((miss * pages + U32_MAX) >> 32);
}

/*
 * Do a region's samples so far fall on few of its pages: on no more than
 * as many samples spread evenly over a quarter of them would hit? A few
 * hot pages among cold ones. @r->distinct counts every page sampled in
 * the window, those kmigrated has taken out since too, so it stays
 * bounded by the pages that take the samples as they leave.
 */
static bool pghot_region_few_pages(u32 count,
				   const struct pghot_region_sample *r)
{
	return count >= PGHOT_REGION_FEW_SAMPLES && r->distinct &&
	       r->distinct <= pghot_region_distinct_expected(count, r->pages / 4);
}

/**
 * pghot_update_region - count one sample in its region's record
 * @old: the region record before the sample
 * @r: the sample
 * @verdict: set to what the region's samples say after this one
 * @turned_hot: set to true if the region was found hot by this sample
 * @rate: set to the region's rate when it goes into the node's reference
 *	(once per window, for a hot region, over its window so far once that
 *	is at least a quarter of @r->min_span), otherwise to 0
 *
 * The region is hot when, over its window so far but at least
 * @r->min_span, its samples come at a rate at which each of its
 * @r->pages pages can expect @r->threshold samples of its own within
 * @r->window, and at no less than 1/@r->ref_div of @r->ref. It stays hot
 * until its window ends. A region with enough samples that is not hot (or
 * not yet: a page sampled before it turns hot is made ready then, see
 * core.c) is below the bar; whether its samples fall on few of its pages
 * is judged from @r->distinct. A sample from before the window
 * opened (it waited in a ring) counts as if it came at the opening. Times
 * are compared modulo 2^PGHOT_REGION_TIME_BITS jiffies, so jiffies wrap is
 * harmless; a region left alone for more than half that range (decades)
 * may see its old window as young once.
 *
 * Return: the new region record.
 */
u64 pghot_update_region(u64 old, const struct pghot_region_sample *r,
			enum pghot_region_verdict *verdict, bool *turned_hot,
			u32 *rate)
{
	u64 now = r->now & PGHOT_REGION_TIME_MASK;
	u64 start = old & PGHOT_REGION_TIME_MASK, span;
	u64 age = pghot_region_age(now, start);	/* 0: before the opening */
	u32 count = pghot_region_count(old);
	bool hot = old & PGHOT_REGION_HOT_BIT;
	bool seen = old & PGHOT_REGION_SEEN_BIT;

	*turned_hot = false;
	*rate = 0;
	if (pghot_region_opens(old, r->now, r->window)) {
		start = now;
		age = 0;
		count = 1;
		hot = false;
		seen = false;
	} else if (count < PGHOT_REGION_COUNT_MAX) {
		count++;
	}
	span = max_t(u64, age, r->min_span);
	/*
	 * count / span * window >= threshold * pages and
	 * count / span * 2^PGHOT_REF_RATE_SHIFT * ref_div >= ref, without a
	 * division. No overflow: count < 2^22, window and the span fit in 40
	 * bits, threshold * pages is small, ref_div is at most
	 * PGHOT_REGION_REF_MAX, ref < 2^24 and the span is taken at most 2^32
	 * jiffies (49 days at HZ=1000) for the second.
	 */
	if (!hot && count >= PGHOT_REGION_MIN_SAMPLES &&
	    (u64)count * r->window >= (u64)r->threshold * r->pages * span &&
	    (!r->ref_div ||
	     ((u64)count << PGHOT_REF_RATE_SHIFT) *
	     min(r->ref_div, PGHOT_REGION_REF_MAX) >=
	     (u64)r->ref * min_t(u64, span, U32_MAX))) {
		hot = true;
		*turned_hot = true;
	}
	/*
	 * A quarter of min_span: hot regions, which come fastest, set the
	 * reference before colder ones can pass the absolute bar.
	 */
	if (hot && !seen && age && age >= r->min_span >> PGHOT_REF_SPAN_SHIFT) {
		*rate = pghot_region_rate(count, age);
		seen = true;
	}
	if (hot)
		*verdict = PGHOT_REGION_IS_HOT;
	else if (count < PGHOT_REGION_MIN_SAMPLES)
		*verdict = PGHOT_REGION_UNKNOWN;
	else if (pghot_region_few_pages(count, r))
		*verdict = PGHOT_REGION_BELOW_FEW;
	else
		*verdict = PGHOT_REGION_BELOW;
	return start | (u64)count << PGHOT_REGION_TIME_BITS |
	       (hot ? PGHOT_REGION_HOT_BIT : 0) |
	       (seen ? PGHOT_REGION_SEEN_BIT : 0);
}

/*
 * The field at @shift of a region's tally for the window @rec has open
 * (0 if the tally is of another window), and the tally with @nr added to
 * it, saturating, and the other field kept or, in a new window, cleared.
 */
static u32 pghot_region_tally(u64 tally, u64 rec, unsigned int shift)
{
	if ((tally & PGHOT_REGION_TIME_MASK) != (rec & PGHOT_REGION_TIME_MASK))
		return 0;
	return (tally >> shift) & PGHOT_REGION_LEFT_MAX;
}

static u64 pghot_region_tally_add(u64 tally, u64 rec, unsigned int shift,
				  unsigned int nr)
{
	u64 start = rec & PGHOT_REGION_TIME_MASK;
	u64 mask = (u64)PGHOT_REGION_LEFT_MAX << shift;
	u64 n = min_t(u64, (u64)pghot_region_tally(tally, rec, shift) + nr,
		      PGHOT_REGION_LEFT_MAX);

	if ((tally & PGHOT_REGION_TIME_MASK) != start)
		tally = start;
	return (tally & ~mask) | n << shift;
}

/**
 * pghot_region_left_add - count pages that left a region for the top tier
 * @tally: the region's tally, see rule.h
 * @rec: the region record now
 * @nr: pages that left
 *
 * A tally from an earlier window of the region starts again, at @nr.
 *
 * Return: the new tally.
 */
u64 pghot_region_left_add(u64 tally, u64 rec, unsigned int nr)
{
	return pghot_region_tally_add(tally, rec, PGHOT_REGION_LEFT_SHIFT, nr);
}

/**
 * pghot_region_left_count - pages that left a region in its present window
 * @tally: the region's tally, see rule.h
 * @rec: the region record now
 *
 * Return: the pages counted in @tally if it was counted in the window
 * @rec has open, else 0.
 */
u32 pghot_region_left_count(u64 tally, u64 rec)
{
	return pghot_region_tally(tally, rec, PGHOT_REGION_LEFT_SHIFT);
}

/**
 * pghot_region_distinct_add - count a page sampled first in a region window
 * @tally: the region's tally, see rule.h
 * @rec: the region record now
 *
 * Return: the new tally; one from an earlier window starts again, at 1.
 */
u64 pghot_region_distinct_add(u64 tally, u64 rec)
{
	return pghot_region_tally_add(tally, rec, PGHOT_REGION_DISTINCT_SHIFT, 1);
}

/**
 * pghot_region_distinct_count - distinct pages sampled in a region window
 * @tally: the region's tally, see rule.h
 * @rec: the region record now
 *
 * Return: the pages counted in @tally if it was counted in the window
 * @rec has open, else 0.
 */
u32 pghot_region_distinct_count(u64 tally, u64 rec)
{
	return pghot_region_tally(tally, rec, PGHOT_REGION_DISTINCT_SHIFT);
}

/**
 * pghot_region_rest_due - look for the last pages of a hot region?
 * @rec: the region record after a sample, see pghot_update_region()
 * @left: pages that left the region in its present window, see
 *	pghot_region_left_count()
 * @pages: pages per region
 *
 * Once all but 1/2^PGHOT_REGION_REST_SHIFT of @pages have left a hot
 * region for the top tier in its window, on every PGHOT_REGION_MIN_SAMPLES
 * th sample of the window, the caller looks whether that few pages of the
 * sampled page's owner are left in the region (see core.c): the region
 * has then been found hot page by page nearly throughout, and its last
 * pages are the ones the sampler has not hit yet. Samples alone cannot
 * tell: a page that stays (rate-limited, forbidden, pinned) is sampled
 * again and again. A region whose pages are not alike (warm pages beside
 * hot ones) keeps more than that many, which its samples seldom hit.
 *
 * Return: true on those samples of a hot region.
 */
bool pghot_region_rest_due(u64 rec, u32 left, unsigned int pages)
{
	u32 count = pghot_region_count(rec);

	return (rec & PGHOT_REGION_HOT_BIT) &&
	       left >= pages - (pages >> PGHOT_REGION_REST_SHIFT) &&
	       count < PGHOT_REGION_COUNT_MAX &&
	       !(count % PGHOT_REGION_MIN_SAMPLES);
}

/**
 * pghot_ref_rate - a node's reference rate now
 * @ref: the reference, see rule.h
 * @now: jiffies
 * @half_life: jiffies in which it halves (the region window)
 *
 * The rate halves with every @half_life since it was set, and in between
 * falls linearly from one halving to the next. A reference set after @now
 * (by a racing sample) counts as set at @now.
 *
 * Return: samples per region per 2^PGHOT_REF_RATE_SHIFT jiffies; 0 for
 * none.
 */
u32 pghot_ref_rate(u64 ref, unsigned long now, unsigned long half_life)
{
	u64 age = pghot_region_age(now, ref), halvings, part;
	u32 rate = ref >> PGHOT_REGION_TIME_BITS;

	if (!rate || !half_life)
		return 0;
	halvings = div64_u64_rem(age, half_life, &part);
	if (halvings >= 32)
		return 0;
	rate >>= halvings;
	/* 1 - part / (2 * half_life), in 1/256ths: no overflow. */
	part = div64_u64(part << 8, half_life);
	return rate - (u32)(((u64)rate * part) >> 9);
}

/**
 * pghot_ref_update - take a hot region's rate into a node's reference
 * @old: the reference, see rule.h
 * @rate: the region's rate, see pghot_region_rate()
 * @now: jiffies
 * @half_life: jiffies in which the reference halves (the region window)
 *
 * The reference as it is @now moves by 2^-PGHOT_REF_WEIGHT_SHIFT of the
 * way to @rate, or becomes @rate if it had decayed to nothing. @rate is
 * taken at most twice the reference, so that one region much hotter than
 * the rest (a few very hot pages) does not hold the others back.
 *
 * Return: the new reference, set at @now.
 */
u64 pghot_ref_update(u64 old, u32 rate, unsigned long now,
		     unsigned long half_life)
{
	u32 cur = pghot_ref_rate(old, now, half_life), new;

	rate = min(rate, PGHOT_REF_RATE_MAX);
	if (!cur)
		new = rate;
	else if (rate >= cur)
		new = cur + ((min(rate, 2 * cur) - cur) >> PGHOT_REF_WEIGHT_SHIFT);
	else
		new = cur - ((cur - rate) >> PGHOT_REF_WEIGHT_SHIFT);
	return ((u64)now & PGHOT_REGION_TIME_MASK) |
	       (u64)min(new, PGHOT_REF_RATE_MAX) << PGHOT_REGION_TIME_BITS;
}

/**
 * pghot_region_threshold - the samples a page needs, given its region
 * @threshold: freq_threshold
 * @verdict: what the page's region says
 *
 * A hot region's pages need not be alike (hot and warm pages share
 * regions in a heap), and one sample cannot tell them apart: above
 * threshold 1 a page of a hot region needs two samples of its own, or one
 * less than @threshold if that is more, counted over the region's window
 * (pghot_region_remembers()). A region below the bar takes away the
 * benefit of the doubt a single sample gets at threshold 1; a region with
 * too few samples changes nothing.
 *
 * Return: the frequency the page's own record must reach.
 */
unsigned int pghot_region_threshold(unsigned int threshold,
				    enum pghot_region_verdict verdict)
{
	switch (verdict) {
	case PGHOT_REGION_IS_HOT:
		return threshold <= 1 ? 1 : max(threshold - 1, 2U);
	case PGHOT_REGION_BELOW:
	case PGHOT_REGION_BELOW_FEW:
		return max(threshold, 2U);
	default:
		return threshold;
	}
}

/**
 * pghot_region_remembers - does a page's earlier sample in the window count?
 * @verdict: what the page's region says
 *
 * In a hot region, and in one below the bar whose samples fall on few of
 * its pages (a few hot pages among cold ones), a page's own samples are
 * what tells it apart, and one sample in the region's window before this
 * one counts with it, however long ago: the page record forgets after
 * promote_window_ms, the region's bitmap after its window. In a region
 * below the bar whose samples spread over its pages, two samples of one
 * page over the longer window are what chance gives some of them: only
 * the page record's window counts.
 *
 * Return: true if the region's memory of the page's samples counts.
 */
bool pghot_region_remembers(enum pghot_region_verdict verdict)
{
	return verdict == PGHOT_REGION_IS_HOT ||
	       verdict == PGHOT_REGION_BELOW_FEW;
}

#include "tests/rule-kunit.h"
