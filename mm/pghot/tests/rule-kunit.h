/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pghot hotness rule: window, saturation, ready bit,
 * late arrivals, jiffies wrap, holds, untrusted times and sweeps, in both
 * record layouts, and the region rule of sampled sources. Pure functions
 * on private records.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_RULE_KUNIT_TEST_H
#define _PGHOT_RULE_KUNIT_TEST_H

#include <kunit/test.h>
#include <linux/bitmap.h>

static const struct pghot_layout *pghot_test_layouts[] = {
	&pghot_layout_default, &pghot_layout_precise,
};

static void pghot_test_layout_desc(const struct pghot_layout **l, char *desc)
{
	strscpy(desc, (*l)->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pghot_layout, pghot_test_layouts, pghot_test_layout_desc);

/* A clock whose unit is 2^4 jiffies and a window of 3 units. */
#define TEST_SHIFT	4
#define TEST_UNIT	BIT(TEST_SHIFT)
#define TEST_WINDOW	3

static const struct pghot_layout *test_layout(struct kunit *test)
{
	return *(const struct pghot_layout **)test->param_value;
}

static u32 access_full(const struct pghot_layout *l, u32 rec,
		       unsigned long now, unsigned int threshold, int nid,
		       bool fresh, enum pghot_outcome *out)
{
	const struct pghot_clock c = { .shift = TEST_SHIFT };
	const struct pghot_access a = {
		.now = now, .nid = nid, .window = TEST_WINDOW,
		.threshold = threshold, .fresh = fresh,
	};

	return pghot_update_record(l, &c, rec, &a, out);
}

static u32 access_at(const struct pghot_layout *l, u32 rec, unsigned long now,
		     unsigned int threshold)
{
	enum pghot_outcome out;

	return access_full(l, rec, now, threshold, 1, true, &out);
}

static void pghot_test_window(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	unsigned long t = 1000 * TEST_UNIT;
	u32 rec;

	rec = access_at(l, 0, t, 7);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 1U);
	/* Inside the window: counts. */
	rec = access_at(l, rec, t + (TEST_WINDOW - 1) * TEST_UNIT, 7);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 2U);
	/* The window runs from the previous access. */
	rec = access_at(l, rec, t + 2 * (TEST_WINDOW - 1) * TEST_UNIT, 7);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 3U);
	/* After the window: a new window with frequency 1. */
	rec = access_at(l, rec, t + (3 * TEST_WINDOW) * TEST_UNIT, 7);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 1U);
	KUNIT_EXPECT_FALSE(test, rec & pghot_ready_bit(l));
	if (l->nid_bits)
		KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, rec), 1);
	else
		KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, rec), NUMA_NO_NODE);
}

static void pghot_test_saturation(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	unsigned long t = 5 * TEST_UNIT;
	u32 rec = 0;
	int i;

	for (i = 0; i < 20; i++)
		rec = access_at(l, rec, t + i, pghot_freq_max(l) + 1);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), pghot_freq_max(l));
	/* Saturation never spills into the other fields. */
	KUNIT_EXPECT_EQ(test, pghot_rec_time(l, rec),
			(u32)((t + 19) >> TEST_SHIFT) & pghot_time_mask(l));
	KUNIT_EXPECT_FALSE(test, rec & pghot_ready_bit(l));
}

static void pghot_test_ready(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	unsigned long t = 77 * TEST_UNIT;
	u32 rec;

	rec = access_at(l, 0, t, 2);
	KUNIT_EXPECT_FALSE(test, pghot_rec_ready(l, rec));
	rec = access_at(l, rec, t + TEST_UNIT, 2);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
	/* Ready stays ready, even when a later access opens a new window. */
	rec = access_at(l, rec, t + 100 * TEST_UNIT, 2);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 1U);
	/* Threshold 1 (a quick hint fault): the first access is enough. */
	rec = access_at(l, 0, t, 1);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
}

/*
 * Accesses the caller remembers beyond the window (a region's memory of a
 * page's samples) count toward the threshold, not into the record.
 */
static void pghot_test_known(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	const struct pghot_clock c = { .shift = TEST_SHIFT };
	unsigned long t = 300 * TEST_UNIT;
	struct pghot_access a = {
		.now = t, .nid = NUMA_NO_NODE, .window = TEST_WINDOW,
		.threshold = 2, .known = 2, .fresh = true,
	};
	enum pghot_outcome out;
	u32 rec, held;

	/* A first access in the window, the second the caller knows of. */
	rec = pghot_update_record(l, &c, 0, &a, &out);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 1U);
	/* Not enough for a higher threshold; the record's own count is. */
	a.threshold = 3;
	rec = pghot_update_record(l, &c, 0, &a, &out);
	KUNIT_EXPECT_FALSE(test, pghot_rec_ready(l, rec));
	a.known = 0;
	a.now += TEST_UNIT;
	rec = pghot_update_record(l, &c, rec, &a, &out);
	KUNIT_EXPECT_FALSE(test, pghot_rec_ready(l, rec));
	a.known = 2;
	a.now += TEST_UNIT;
	rec = pghot_update_record(l, &c, rec, &a, &out);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
	/* A held page stays held, whatever the caller knows. */
	held = pghot_hold_record(l, &c, t);
	a.now = t + TEST_UNIT;
	a.threshold = 1;
	KUNIT_EXPECT_EQ(test, pghot_update_record(l, &c, held, &a, &out), held);
	KUNIT_EXPECT_EQ(test, out, PGHOT_HELD);
}

/* A sample from just before the last one, drained late, still counts. */
static void pghot_test_late_arrival(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	unsigned long t = 500 * TEST_UNIT;
	u32 rec;

	rec = access_at(l, 0, t + 2 * TEST_UNIT, 7);
	rec = access_at(l, rec, t + TEST_UNIT, 7);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 2U);
	/* The record keeps the newer time. */
	KUNIT_EXPECT_EQ(test, pghot_rec_time(l, rec),
			(u32)((t + 2 * TEST_UNIT) >> TEST_SHIFT) & pghot_time_mask(l));
}

static void pghot_test_jiffies_wrap(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	unsigned long before = ULONG_MAX - TEST_UNIT + 1;
	u32 rec;

	rec = access_at(l, 0, before, 7);
	/* One unit later jiffies have wrapped to 0: still in the window. */
	rec = access_at(l, rec, before + TEST_UNIT, 7);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 2U);
	/* And a window's length after the wrap it has closed. */
	rec = access_at(l, rec, before + (2 + TEST_WINDOW) * TEST_UNIT, 7);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 1U);
}

/* A demoted page ignores accesses for the hold, then counts again. */
static void pghot_test_hold(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	const struct pghot_clock c = { .shift = TEST_SHIFT };
	unsigned long t = 3000 * TEST_UNIT;
	unsigned long hold = pghot_hold_units(l, TEST_WINDOW) * TEST_UNIT;
	enum pghot_outcome out;
	u32 rec, next;

	/* Two windows in both layouts, capped by what a sweep keeps. */
	KUNIT_EXPECT_EQ(test, pghot_hold_units(l, TEST_WINDOW), 2U * TEST_WINDOW);
	KUNIT_EXPECT_EQ(test, pghot_hold_units(l, pghot_stale_units(l)),
			pghot_stale_units(l));
	rec = pghot_hold_record(l, &c, t);
	KUNIT_EXPECT_TRUE(test, pghot_rec_held(l, rec));
	KUNIT_EXPECT_FALSE(test, pghot_rec_ready(l, rec));
	/* Even a "hot at once" access is ignored while held. */
	next = access_full(l, rec, t + hold - TEST_UNIT, 1, 0, true, &out);
	KUNIT_EXPECT_EQ(test, out, PGHOT_HELD);
	KUNIT_EXPECT_EQ(test, next, rec);
	/* After the hold it is a page like any other. */
	next = access_full(l, rec, t + hold, 2, 0, true, &out);
	KUNIT_EXPECT_EQ(test, out, PGHOT_COUNTED);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, next), 1U);
	KUNIT_EXPECT_FALSE(test, next & pghot_ready_bit(l));
	/* A hold whose time cannot be trusted is over. */
	next = access_full(l, rec, t, 1, 0, false, &out);
	KUNIT_EXPECT_EQ(test, out, PGHOT_COUNTED);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, next));
}

/*
 * An untrusted time closes an open window but never a ready page; the
 * access is left pending, one access at its time, and counts as one.
 */
static void pghot_test_untrusted(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	const struct pghot_clock c = { .shift = TEST_SHIFT };
	unsigned long t = 40 * TEST_UNIT;
	enum pghot_outcome out;
	u32 rec;

	rec = access_at(l, 0, t, 3);
	rec = access_full(l, rec, t + TEST_UNIT, 3, 1, false, &out);
	KUNIT_EXPECT_TRUE(test, pghot_rec_pending(l, rec));
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 0U);
	KUNIT_EXPECT_EQ(test, pghot_rec_hits(l, rec), 1U);
	KUNIT_EXPECT_EQ(test, pghot_rec_time(l, rec),
			pghot_now_units(l, &c, t + TEST_UNIT));
	KUNIT_EXPECT_FALSE(test, pghot_rec_held(l, rec));
	KUNIT_EXPECT_FALSE(test, pghot_rec_ready(l, rec));
	/* Untrusted accesses never add up: still one. */
	rec = access_full(l, rec, t + TEST_UNIT, 2, 1, false, &out);
	KUNIT_EXPECT_TRUE(test, pghot_rec_pending(l, rec));
	/* A trusted one within the window of the pending one counts it. */
	rec = access_at(l, rec, t + 2 * TEST_UNIT, 2);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
	rec = access_full(l, rec, t + 3 * TEST_UNIT, 7, 1, false, &out);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
	/* Made ready by what the caller knows: ready, not pending. */
	rec = access_full(l, 0, t, 1, 1, false, &out);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
	/* Pending at time 0 would read as idle: it is a unit earlier. */
	rec = access_full(l, 0, (unsigned long)(pghot_time_mask(l) + 1) *
			  TEST_UNIT, 3, 1, false, &out);
	KUNIT_EXPECT_TRUE(test, pghot_rec_pending(l, rec));
	KUNIT_EXPECT_EQ(test, pghot_rec_time(l, rec), pghot_time_mask(l));
}

/* A precise record keeps the last target; none leaves it as it was. */
static void pghot_test_target(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	unsigned long t = 9 * TEST_UNIT;
	enum pghot_outcome out;
	u32 rec;

	if (!l->nid_bits)
		kunit_skip(test, "no target in %s records", l->name);
	rec = access_full(l, 0, t, 7, NUMA_NO_NODE, true, &out);
	KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, rec), NUMA_NO_NODE);
	rec = access_full(l, rec, t, 7, 0, true, &out);
	KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, rec), 0);
	rec = access_full(l, rec, t, 7, NUMA_NO_NODE, true, &out);
	KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, rec), 0);
	rec = access_full(l, rec, t, 7, MAX_NUMNODES - 1, true, &out);
	KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, rec), MAX_NUMNODES - 1);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 4U);
}

static void pghot_test_sweep(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	const struct pghot_clock c = { .shift = TEST_SHIFT };
	unsigned long t = 700 * TEST_UNIT, stale = pghot_stale_units(l) * TEST_UNIT;
	u32 open, ready, held, now, keep = pghot_stale_units(l);

	open = access_at(l, 0, t, 7);
	ready = access_at(l, 0, t, 1);
	held = pghot_hold_record(l, &c, t);
	/* Younger than a quarter range: nothing to do. */
	now = pghot_now_units(l, &c, t + stale - TEST_UNIT);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, open, now, keep, true), open);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, held, now, keep, true), held);
	/* Stale: closed, the target kept. */
	now = pghot_now_units(l, &c, t + stale);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, open, now, keep, true) &
			(pghot_window_mask(l) | pghot_ready_bit(l)), 0U);
	KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, pghot_sweep_record(l, open, now, keep, true)),
			pghot_rec_nid(l, open));
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, held, now, keep, true), 0U);
	/* Ready records and idle ones are left alone, even by a full sweep. */
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, ready, now, 0, false), ready);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, 0, now, 0, false), 0U);
	/* Untrusted times close windows and holds however young they read... */
	now = pghot_now_units(l, &c, t);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, open, now, keep, false) &
			pghot_window_mask(l), 0U);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, held, now, keep, false), 0U);
}

/*
 * A pending access stays, as a window of one access opened at its time,
 * if it is younger than what the sweep keeps; an older one is closed.
 */
static void pghot_test_sweep_pending(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	unsigned long t = 700 * TEST_UNIT;
	enum pghot_outcome out;
	u32 pending, now, kept;

	pending = access_full(l, 0, t, 7, 1, false, &out);
	KUNIT_ASSERT_TRUE(test, pghot_rec_pending(l, pending));
	now = pghot_rec_time(l, pending);
	kept = pghot_sweep_record(l, pending, now, 1, false);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, kept), 1U);
	KUNIT_EXPECT_EQ(test, pghot_rec_time(l, kept), now);
	KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, kept), pghot_rec_nid(l, pending));
	KUNIT_EXPECT_FALSE(test, kept & pghot_ready_bit(l));
	/* A trusted sweep keeps it the same way. */
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, pending, now,
						 pghot_stale_units(l), true), kept);
	/* Two units old: kept by a sweep that keeps three, not by one of two. */
	now = (now + 2) & pghot_time_mask(l);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, pending, now, 3, false), kept);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, pending, now, 2, false) &
			pghot_window_mask(l), 0U);
}

static void pghot_test_clock_shift(struct kunit *test)
{
	/* The smallest power of two that fits the window in the units. */
	KUNIT_EXPECT_EQ(test, pghot_clock_shift_for(4, 4), 0U);
	KUNIT_EXPECT_EQ(test, pghot_clock_shift_for(5, 4), 1U);
	KUNIT_EXPECT_EQ(test, pghot_clock_shift_for(1000, 4), 8U);
	KUNIT_EXPECT_EQ(test, pghot_clock_shift_for(1000, 256), 2U);
	KUNIT_EXPECT_EQ(test, pghot_clock_shift_for(1, 256), 0U);
}

/* Marking a page ready on its region's evidence. */
static void pghot_test_mark(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	const struct pghot_clock c = { .shift = TEST_SHIFT };
	unsigned long t = 5000 * TEST_UNIT;
	u32 rec, held, next;

	/* An idle page: ready with frequency 1 and the time now. */
	rec = pghot_mark_record(l, &c, 0, t, 1, 0);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 1U);
	KUNIT_EXPECT_EQ(test, pghot_rec_time(l, rec), pghot_now_units(l, &c, t));
	KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, rec), l->nid_bits ? 1 : NUMA_NO_NODE);
	/* ... unless it must have samples of its own. */
	KUNIT_EXPECT_EQ(test, pghot_mark_record(l, &c, 0, t, 1, 1), 0U);
	/* A page with one: its window kept, the target replaced. */
	rec = access_full(l, 0, t, 7, 0, true, &(enum pghot_outcome){ 0 });
	rec = pghot_mark_record(l, &c, rec, t + TEST_UNIT, 1, 1);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 1U);
	KUNIT_EXPECT_EQ(test, pghot_rec_time(l, rec), pghot_now_units(l, &c, t));
	KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, rec), l->nid_bits ? 1 : NUMA_NO_NODE);
	/* No target: a precise record keeps the one it has. */
	next = pghot_mark_record(l, &c, access_at(l, 0, t, 7), t, NUMA_NO_NODE, 1);
	KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, next), l->nid_bits ? 1 : NUMA_NO_NODE);
	/* A pending access counts as one, its time kept. */
	next = access_full(l, 0, t, 7, 1, false, &(enum pghot_outcome){ 0 });
	KUNIT_EXPECT_EQ(test, pghot_mark_record(l, &c, next, t, 1, 2), next);
	next = pghot_mark_record(l, &c, next, t + TEST_UNIT, 1, 1);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, next));
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, next), 1U);
	KUNIT_EXPECT_EQ(test, pghot_rec_time(l, next), pghot_now_units(l, &c, t));
	/* Ready and held pages are left as they are. */
	KUNIT_EXPECT_EQ(test, pghot_mark_record(l, &c, rec, t, 0, 0), rec);
	held = pghot_hold_record(l, &c, t);
	KUNIT_EXPECT_EQ(test, pghot_mark_record(l, &c, held, t, 0, 0), held);
}

/* Regions of 512 pages, threshold 2, a 60 s window, rates over >= 4 s. */
#define R_WINDOW	60000UL
#define R_SPAN		4000UL
#define R_PAGES		512U

static u64 region_ref_at(u64 rec, unsigned long now, unsigned int threshold,
			 u32 ref, enum pghot_region_verdict *v, bool *turned,
			 u32 *rate)
{
	const struct pghot_region_sample r = {
		.now = now, .window = R_WINDOW, .min_span = R_SPAN,
		.threshold = threshold, .pages = R_PAGES, .ref = ref,
		.ref_div = PGHOT_REGION_REF_DEFAULT,
	};

	return pghot_update_region(rec, &r, v, turned, rate);
}

static u64 region_at(u64 rec, unsigned long now, unsigned int threshold,
		     enum pghot_region_verdict *v, bool *turned)
{
	u32 rate;

	return region_ref_at(rec, now, threshold, 0, v, turned, &rate);
}

/* The window opens at the first sample and does not slide. */
static void pghot_test_region_window(struct kunit *test)
{
	enum pghot_region_verdict v;
	unsigned long t = 1000000;
	bool turned;
	u64 rec;

	rec = region_at(0, t, 2, &v, &turned);
	KUNIT_EXPECT_EQ(test, pghot_region_count(rec), 1U);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_UNKNOWN);
	rec = region_at(rec, t + R_WINDOW - 1, 2, &v, &turned);
	KUNIT_EXPECT_EQ(test, pghot_region_count(rec), 2U);
	/* A window after the first sample, not after the last: a new one. */
	rec = region_at(rec, t + R_WINDOW, 2, &v, &turned);
	KUNIT_EXPECT_EQ(test, pghot_region_count(rec), 1U);
	KUNIT_EXPECT_EQ(test, rec & (BIT_ULL(PGHOT_REGION_TIME_BITS) - 1),
			(u64)(t + R_WINDOW));
	/* A late sample, from before the opening, counts. */
	rec = region_at(rec, t, 2, &v, &turned);
	KUNIT_EXPECT_EQ(test, pghot_region_count(rec), 2U);
}

/*
 * Hot when each page can expect @threshold samples in the window: at a
 * rate taken over at least R_SPAN, so within it 2 * 512 * 4000 / 60000 =
 * 68.3 samples are not enough and 69 are; never on fewer than
 * PGHOT_REGION_MIN_SAMPLES. Once hot, hot for the rest of the window.
 */
static void pghot_test_region_hot(struct kunit *test)
{
	enum pghot_region_verdict v;
	unsigned long t = 2000000;
	bool turned;
	u64 rec = 0;
	int i;

	for (i = 0; i < 68; i++) {
		rec = region_at(rec, t + i, 2, &v, &turned);
		KUNIT_EXPECT_FALSE(test, turned);
	}
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW);
	rec = region_at(rec, t + 68, 2, &v, &turned);
	KUNIT_EXPECT_TRUE(test, turned);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);
	rec = region_at(rec, t + R_WINDOW - 1, 2, &v, &turned);
	KUNIT_EXPECT_FALSE(test, turned);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);
	/* The next window starts over. */
	rec = region_at(rec, t + R_WINDOW, 2, &v, &turned);
	KUNIT_EXPECT_FALSE(test, rec & PGHOT_REGION_HOT_BIT);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_UNKNOWN);

	/* A rate high enough, but too few samples to trust it. */
	rec = 0;
	for (i = 0; i < PGHOT_REGION_MIN_SAMPLES - 1; i++)
		rec = region_at(rec, t, 0, &v, &turned);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_UNKNOWN);
	rec = region_at(rec, t, 0, &v, &turned);
	KUNIT_EXPECT_TRUE(test, turned);
}

/* After R_SPAN the rate is taken over the window so far. */
static void pghot_test_region_rate(struct kunit *test)
{
	enum pghot_region_verdict v;
	unsigned long t = 3000000;
	bool turned;
	u64 rec;
	int i;

	/* 10 s in: 2 * 512 * 10000 / 60000 = 170.7 samples needed. */
	rec = region_at(0, t, 2, &v, &turned);
	for (i = 1; i < 170; i++)
		rec = region_at(rec, t + 10000, 2, &v, &turned);
	KUNIT_EXPECT_EQ(test, pghot_region_count(rec), 170U);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW);
	rec = region_at(rec, t + 10000, 2, &v, &turned);
	KUNIT_EXPECT_TRUE(test, turned);
	/* Enough samples but under R_SPAN, and not hot: below already. */
	rec = 0;
	for (i = 0; i < PGHOT_REGION_MIN_SAMPLES - 1; i++)
		rec = region_at(rec, t + i, 2, &v, &turned);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_UNKNOWN);
	rec = region_at(rec, t + i, 2, &v, &turned);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW);
	/* ... until the rate is there: 69 samples within R_SPAN. */
	for (i = PGHOT_REGION_MIN_SAMPLES; i < 69; i++)
		rec = region_at(rec, t + i, 2, &v, &turned);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);
	/* At threshold 7 the bar is 3.5 times higher. */
	rec = 0;
	for (i = 0; i < 238; i++)
		rec = region_at(rec, t, 7, &v, &turned);
	KUNIT_EXPECT_NE(test, v, PGHOT_REGION_IS_HOT);
	rec = region_at(rec, t, 7, &v, &turned);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);
}

/* Jiffies wrap, the 40-bit time field's wrap, saturation, extremes. */
static void pghot_test_region_wrap(struct kunit *test)
{
	const struct pghot_region_sample big = {
		.now = 5, .window = 600 * 1000, .min_span = 60 * 1000,
		.threshold = 7, .pages = R_PAGES,
	};
	struct pghot_region_sample huge = big;
	enum pghot_region_verdict v;
	unsigned long t = ULONG_MAX - 10;
	bool turned;
	u32 rate;
	u64 rec;

	rec = region_at(0, t, 2, &v, &turned);
	rec = region_at(rec, t + 100, 2, &v, &turned);	/* jiffies wrapped */
	KUNIT_EXPECT_EQ(test, pghot_region_count(rec), 2U);
	t = BIT_ULL(PGHOT_REGION_TIME_BITS) - 10;
	rec = region_at(0, t, 2, &v, &turned);
	rec = region_at(rec, t + 100, 2, &v, &turned);	/* the field wrapped */
	KUNIT_EXPECT_EQ(test, pghot_region_count(rec), 2U);
	rec = region_at(rec, t + 100 + R_WINDOW, 2, &v, &turned);
	KUNIT_EXPECT_EQ(test, pghot_region_count(rec), 1U);
	/* A full count stays full. */
	rec = (u64)PGHOT_REGION_COUNT_MAX << PGHOT_REGION_TIME_BITS | 5;
	rec = region_at(rec, 6, 2, &v, &turned);
	KUNIT_EXPECT_EQ(test, pghot_region_count(rec), PGHOT_REGION_COUNT_MAX);
	KUNIT_EXPECT_TRUE(test, turned);
	/* The longest window, threshold 7: no overflow in the comparison. */
	rec = (u64)PGHOT_REGION_COUNT_MAX << PGHOT_REGION_TIME_BITS;
	rec = pghot_update_region(rec, &big, &v, &turned, &rate);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);
	rec = (u64)(PGHOT_REGION_MIN_SAMPLES - 1) << PGHOT_REGION_TIME_BITS;
	rec = pghot_update_region(rec, &big, &v, &turned, &rate);
	KUNIT_EXPECT_NE(test, v, PGHOT_REGION_IS_HOT);
	/*
	 * The highest reference over the longest span: 2^22 samples in
	 * 60000 jiffies are 4.6M per 2^16 jiffies, below half of 2^24 - 1.
	 */
	rec = (u64)PGHOT_REGION_COUNT_MAX << PGHOT_REGION_TIME_BITS;
	huge.ref = PGHOT_REF_RATE_MAX;
	huge.ref_div = 2;
	rec = pghot_update_region(rec, &huge, &v, &turned, &rate);
	KUNIT_EXPECT_NE(test, v, PGHOT_REGION_IS_HOT);
	huge.ref = PGHOT_REF_RATE_MAX / 4;
	rec = pghot_update_region(rec, &huge, &v, &turned, &rate);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);
	/* The largest divisor, and one above it taken as the largest. */
	rec = (u64)PGHOT_REGION_COUNT_MAX << PGHOT_REGION_TIME_BITS;
	huge.ref = PGHOT_REF_RATE_MAX;
	huge.ref_div = PGHOT_REGION_REF_MAX + 1;
	rec = pghot_update_region(rec, &huge, &v, &turned, &rate);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);
}

/*
 * The node's reference: at threshold 1 the absolute bar asks 35 samples
 * within R_SPAN; a reference of 3276 per 2^16 jiffies asks half of it,
 * 3276 * 4000 / 2^17 = 99.97 samples.
 */
static void pghot_test_region_ref_bar(struct kunit *test)
{
	enum pghot_region_verdict v;
	unsigned long t = 4000000;
	unsigned int div;
	bool turned;
	u32 rate;
	u64 rec = 0;
	int i;

	for (i = 0; i < 99; i++) {
		rec = region_ref_at(rec, t, 1, 3276, &v, &turned, &rate);
		KUNIT_EXPECT_FALSE(test, turned);
	}
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW);
	rec = region_ref_at(rec, t, 1, 3276, &v, &turned, &rate);
	KUNIT_EXPECT_TRUE(test, turned);
	/* Hot; its rate is taken once a quarter of R_SPAN has passed. */
	KUNIT_EXPECT_EQ(test, rate, 0U);
	rec = region_ref_at(rec, t + R_SPAN / 4 - 1, 1, 3276, &v, &turned, &rate);
	KUNIT_EXPECT_EQ(test, rate, 0U);
	rec = region_ref_at(rec, t + R_SPAN / 4, 1, 3276, &v, &turned, &rate);
	KUNIT_EXPECT_EQ(test, rate,
			(u32)((102ULL << PGHOT_REF_RATE_SHIFT) / (R_SPAN / 4)));
	/* Past R_SPAN and below the reference's half: below. */
	rec = 0;
	for (i = 0; i < 99; i++)
		rec = region_ref_at(rec, t, 1, 3276, &v, &turned, &rate);
	rec = region_ref_at(rec, t + R_SPAN, 1, 3276, &v, &turned, &rate);
	KUNIT_EXPECT_TRUE(test, turned);	/* 100 in 4000 jiffies */
	KUNIT_EXPECT_EQ(test, rate, (u32)((100ULL << PGHOT_REF_RATE_SHIFT) / R_SPAN));
	/* Once per window. */
	rec = region_ref_at(rec, t + R_SPAN + 1, 1, 3276, &v, &turned, &rate);
	KUNIT_EXPECT_EQ(test, rate, 0U);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);
	rec = region_ref_at(rec, t + R_WINDOW, 1, 3276, &v, &turned, &rate);
	KUNIT_EXPECT_FALSE(test, rec & PGHOT_REGION_SEEN_BIT);
	/* 99 in R_SPAN: the absolute bar passed, the reference's not. */
	rec = 0;
	for (i = 0; i < 98; i++)
		rec = region_ref_at(rec, t, 1, 3276, &v, &turned, &rate);
	rec = region_ref_at(rec, t + R_SPAN, 1, 3276, &v, &turned, &rate);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW);
	/* Without a reference, 35 are enough. */
	rec = 0;
	for (i = 0; i < 35; i++)
		rec = region_ref_at(rec, t, 1, 0, &v, &turned, &rate);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);
	/* Nor with it when hwhint_region_ref is 0; a quarter at 4. */
	for (div = 0; div <= 4; div += 4) {
		struct pghot_region_sample r = {
			.now = t, .window = R_WINDOW, .min_span = R_SPAN,
			.threshold = 1, .pages = R_PAGES, .ref = 3276,
			.ref_div = div,
		};

		rec = 0;
		for (i = 0; i < 49; i++)
			rec = pghot_update_region(rec, &r, &v, &turned, &rate);
		KUNIT_EXPECT_EQ(test, v, div ? PGHOT_REGION_BELOW : PGHOT_REGION_IS_HOT);
		rec = pghot_update_region(rec, &r, &v, &turned, &rate);
		KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);
	}
}

/* A region's rate: samples per 2^16 jiffies, saturating. */
static void pghot_test_region_rate_value(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pghot_region_rate(16, 0), 16U << PGHOT_REF_RATE_SHIFT);
	KUNIT_EXPECT_EQ(test, pghot_region_rate(16, 1), 16U << PGHOT_REF_RATE_SHIFT);
	KUNIT_EXPECT_EQ(test, pghot_region_rate(1, 1UL << PGHOT_REF_RATE_SHIFT), 1U);
	KUNIT_EXPECT_EQ(test, pghot_region_rate(1, ULONG_MAX), 0U);
	KUNIT_EXPECT_EQ(test, pghot_region_rate(PGHOT_REGION_COUNT_MAX, 1),
			PGHOT_REF_RATE_MAX);
}

static u64 ref_of(u32 rate, u64 stamp)
{
	return stamp | (u64)rate << PGHOT_REGION_TIME_BITS;
}

/* The reference halves every half-life, linearly in between; wraps. */
static void pghot_test_ref_decay(struct kunit *test)
{
	const unsigned long h = 60000;
	unsigned long t = 5000000;
	u64 ref = ref_of(1024, t);

	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t, h), 1024U);
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t + h / 2, h), 768U);
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t + h, h), 512U);
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t + 2 * h, h), 256U);
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t + 11 * h, h), 0U);
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t + 40 * h, h), 0U);
	/* Set after now (a racing sample): as if set now. */
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t - 5, h), 1024U);
	/* None, or no regions. */
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(0, t, h), 0U);
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t, 0), 0U);
	/* jiffies and the 40-bit field wrap. */
	t = ULONG_MAX - 10;
	ref = ref_of(1024, t & (BIT_ULL(PGHOT_REGION_TIME_BITS) - 1));
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t + h, h), 512U);
	t = BIT_ULL(PGHOT_REGION_TIME_BITS) - 10;
	ref = ref_of(PGHOT_REF_RATE_MAX, t);
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t + h, h), PGHOT_REF_RATE_MAX >> 1);
	/* The longest window as a half-life: no overflow. */
	KUNIT_EXPECT_EQ(test, pghot_ref_rate(ref, t + 300000000UL, 600000000UL),
			PGHOT_REF_RATE_MAX - (PGHOT_REF_RATE_MAX >> 2));
}

/* A hot region's rate moves the reference by a quarter, clipped. */
static void pghot_test_ref_update(struct kunit *test)
{
	const unsigned long h = 60000;
	unsigned long t = 6000000;
	u64 ref;

	ref = pghot_ref_update(0, 1000, t, h);
	KUNIT_EXPECT_EQ(test, ref, ref_of(1000, t));
	KUNIT_EXPECT_EQ(test, pghot_ref_update(ref, 1400, t, h), ref_of(1100, t));
	KUNIT_EXPECT_EQ(test, pghot_ref_update(ref, 200, t, h), ref_of(800, t));
	/* Ten times hotter counts as twice. */
	KUNIT_EXPECT_EQ(test, pghot_ref_update(ref, 10000, t, h), ref_of(1250, t));
	/* From the decayed value, stamped now. */
	KUNIT_EXPECT_EQ(test, pghot_ref_update(ref, 500, t + h, h),
			ref_of(500, t + h));
	/* Decayed to nothing: the rate as it is; saturating. */
	KUNIT_EXPECT_EQ(test, pghot_ref_update(ref, 77, t + 40 * h, h),
			ref_of(77, t + 40 * h));
	ref = pghot_ref_update(0, U32_MAX, t, h);
	KUNIT_EXPECT_EQ(test, ref, ref_of(PGHOT_REF_RATE_MAX, t));
	KUNIT_EXPECT_EQ(test, pghot_ref_update(ref, U32_MAX, t, h),
			ref_of(PGHOT_REF_RATE_MAX, t));
}

/* What a page needs of its own, by its region's verdict. */
static void pghot_test_region_threshold(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(1, PGHOT_REGION_IS_HOT), 1U);
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(1, PGHOT_REGION_BELOW), 2U);
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(1, PGHOT_REGION_BELOW_FEW), 2U);
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(1, PGHOT_REGION_UNKNOWN), 1U);
	/* A hot region: one sample cannot tell a warm page from a hot one. */
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(2, PGHOT_REGION_IS_HOT), 2U);
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(2, PGHOT_REGION_BELOW), 2U);
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(2, PGHOT_REGION_BELOW_FEW), 2U);
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(2, PGHOT_REGION_UNKNOWN), 2U);
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(3, PGHOT_REGION_IS_HOT), 2U);
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(7, PGHOT_REGION_IS_HOT), 6U);
	KUNIT_EXPECT_EQ(test, pghot_region_threshold(7, PGHOT_REGION_BELOW), 7U);
	/* Where the region's memory of a page's samples counts. */
	KUNIT_EXPECT_TRUE(test, pghot_region_remembers(PGHOT_REGION_IS_HOT));
	KUNIT_EXPECT_TRUE(test, pghot_region_remembers(PGHOT_REGION_BELOW_FEW));
	KUNIT_EXPECT_FALSE(test, pghot_region_remembers(PGHOT_REGION_BELOW));
	KUNIT_EXPECT_FALSE(test, pghot_region_remembers(PGHOT_REGION_UNKNOWN));
}

/* Pages hit by evenly spread samples: n * (1 - (1 - 1/n)^s), rounded down. */
static void pghot_test_region_distinct_expected(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_expected(0, 512), 0U);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_expected(1, 512), 1U);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_expected(5, 0), 0U);
	/* One page: every sample hits it. */
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_expected(100, 1), 1U);
	/* 512 samples on 448 pages: 305.5; 64 on 128: 50.5; 2 on 2: 1.5. */
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_expected(512, 448), 305U);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_expected(64, 128), 50U);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_expected(2, 2), 1U);
	/* Never more than the samples nor the pages; saturating. */
	KUNIT_EXPECT_LE(test, pghot_region_distinct_expected(3, 512), 3U);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_expected(PGHOT_REGION_COUNT_MAX, 448), 448U);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_expected(U32_MAX, 512), 512U);
}

/* @n samples, the @i-th on page @page(@i), at @t; the distinct pages kept. */
static u64 region_feed(u64 rec, unsigned long t, unsigned int threshold,
		       unsigned int n, unsigned int (*page)(unsigned int),
		       unsigned long *bits, unsigned int *distinct,
		       enum pghot_region_verdict *v)
{
	struct pghot_region_sample r = {
		.now = t, .window = R_WINDOW, .min_span = R_SPAN,
		.threshold = threshold, .pages = R_PAGES,
	};
	unsigned int i;
	bool turned;
	u32 rate;

	for (i = 0; i < n; i++) {
		if (!__test_and_set_bit(page(i), bits))
			++*distinct;
		r.distinct = *distinct;
		rec = pghot_update_region(rec, &r, v, &turned, &rate);
	}
	return rec;
}

/* A multiplicative (Fibonacci) hash: spread over all the pages. */
static unsigned int page_any(unsigned int i)
{
	return (i * 2654435761U) >> 23;
}

/* Pages 0-63 alone: a few hot pages among cold ones. */
static unsigned int page_few(unsigned int i)
{
	return page_any(i) % 64;
}

/* Pages 0-63 first, one sample each: no repeat yet. */
static unsigned int page_first_64(unsigned int i)
{
	return i % 64;
}

/*
 * Below the bar (threshold 7, all samples at once: 239 make a region hot),
 * samples on few of a region's pages make it BELOW_FEW from
 * PGHOT_REGION_FEW_SAMPLES on, once they fall on no more pages than
 * evenly spread samples over a quarter of them would; samples spread over
 * it do not.
 */
static void pghot_test_region_few(struct kunit *test)
{
	DECLARE_BITMAP(bits, R_PAGES);
	enum pghot_region_verdict v;
	unsigned long t = 4000000;
	unsigned int d;
	bool turned;
	u64 rec;

	bitmap_zero(bits, R_PAGES);
	d = 0;
	rec = region_feed(0, t, 7, PGHOT_REGION_FEW_SAMPLES - 1, page_few, bits,
			  &d, &v);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW);
	rec = region_feed(rec, t, 7, 64, page_few, bits, &d, &v);
	KUNIT_EXPECT_LE(test, d, 64U);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW_FEW);
	/* Hot is hot, whatever the spread. */
	rec = region_feed(rec, t, 7, 239, page_few, bits, &d, &v);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_IS_HOT);

	/* 64 pages once each: as spread as can be, until they repeat. */
	bitmap_zero(bits, R_PAGES);
	d = 0;
	rec = region_feed(0, t, 7, 64, page_first_64, bits, &d, &v);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW);
	/* 88 samples on 64 pages: evenly over 128 they would hit 63.8. */
	rec = region_feed(rec, t, 7, 24, page_first_64, bits, &d, &v);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW);
	rec = region_feed(rec, t, 7, 1, page_first_64, bits, &d, &v);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW_FEW);

	/* Spread over the region: never few. */
	bitmap_zero(bits, R_PAGES);
	d = 0;
	rec = region_feed(0, t, 7, 200, page_any, bits, &d, &v);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW);
	/* Without a count of distinct pages nothing is judged. */
	rec = 0;
	for (d = 0; d < 200; d++)
		rec = region_at(rec, t, 7, &v, &turned);
	KUNIT_EXPECT_EQ(test, v, PGHOT_REGION_BELOW);
}

/* When a hot region's last pages are looked for: by the pages that left. */
static void pghot_test_region_rest(struct kunit *test)
{
	const unsigned int pages = 512, from = 512 - 64;
	u64 hot = PGHOT_REGION_HOT_BIT | 12345;
	unsigned int c, left;

#define REC(flags, count)	((flags) | (u64)(count) << PGHOT_REGION_TIME_BITS)
	/* Not hot: never, whatever left. */
	KUNIT_EXPECT_FALSE(test, pghot_region_rest_due(REC(12345, 512), pages, pages));
	/* Hot: once all but 1/8 of the pages left, every 16th sample. */
	for (left = 0; left < from; left++)
		KUNIT_EXPECT_FALSE(test, pghot_region_rest_due(REC(hot, 512), left, pages));
	for (c = 1; c < 200; c++)
		KUNIT_EXPECT_EQ(test, pghot_region_rest_due(REC(hot, c), from, pages),
				c % PGHOT_REGION_MIN_SAMPLES == 0);
	/*
	 * However many samples: 496 on one page of a region from which one
	 * page left are no evidence for the others.
	 */
	KUNIT_EXPECT_FALSE(test, pghot_region_rest_due(REC(hot, 496), 1, pages));
	KUNIT_EXPECT_FALSE(test, pghot_region_rest_due(REC(hot, 4096), from - 1, pages));
	/* The seen bit changes nothing. */
	KUNIT_EXPECT_TRUE(test, pghot_region_rest_due(REC(hot | PGHOT_REGION_SEEN_BIT, 32),
						      pages, pages));
	/* A saturated count says nothing any more. */
	KUNIT_EXPECT_FALSE(test, pghot_region_rest_due(REC(hot, PGHOT_REGION_COUNT_MAX),
						       pages, pages));
	/* Small regions (a memory section smaller than 2 MiB): 16 pages. */
	KUNIT_EXPECT_FALSE(test, pghot_region_rest_due(REC(hot, 16), 13, 16));
	KUNIT_EXPECT_TRUE(test, pghot_region_rest_due(REC(hot, 16), 14, 16));
	/* Fewer pages than 8: all of them. */
	KUNIT_EXPECT_FALSE(test, pghot_region_rest_due(REC(hot, 16), 3, 4));
	KUNIT_EXPECT_TRUE(test, pghot_region_rest_due(REC(hot, 16), 4, 4));
#undef REC
}

/* Pages that left a region count in the window they left in only. */
static void pghot_test_region_left(struct kunit *test)
{
	u64 rec = 12345 | (u64)20 << PGHOT_REGION_TIME_BITS, left = 0;
	u64 next = 67890 | (u64)1 << PGHOT_REGION_TIME_BITS;

	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, rec), 0U);
	left = pghot_region_left_add(left, rec, 1);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, rec), 1U);
	left = pghot_region_left_add(left, rec, 512);	/* a THP */
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, rec), 513U);
	/* The region's samples do not move it. */
	rec += (u64)100 << PGHOT_REGION_TIME_BITS;
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, rec), 513U);
	/* A new window: none, and counting starts again. */
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, next), 0U);
	left = pghot_region_left_add(left, next, 3);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, next), 3U);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, rec), 0U);
	/* Saturating. */
	left = pghot_region_left_add(left, next, UINT_MAX);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, next), PGHOT_REGION_LEFT_MAX);
	left = pghot_region_left_add(left, next, 1);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, next), PGHOT_REGION_LEFT_MAX);
	/* The 40-bit time wraps with the region record's. */
	rec = PGHOT_REGION_TIME_MASK | (u64)5 << PGHOT_REGION_TIME_BITS;
	left = pghot_region_left_add(0, rec, 2);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, rec), 2U);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, 0), 0U);

	/* The distinct pages sampled share the tally, apart from the pages left. */
	left = pghot_region_distinct_add(left, rec);
	left = pghot_region_distinct_add(left, rec);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_count(left, rec), 2U);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, rec), 2U);
	left = pghot_region_left_add(left, rec, 7);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_count(left, rec), 2U);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, rec), 9U);
	/* A new window clears both. */
	left = pghot_region_distinct_add(left, next);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_count(left, next), 1U);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, next), 0U);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_count(left, rec), 0U);
	/* Saturating, without touching the other field. */
	left = pghot_region_left_add(left, next, UINT_MAX);
	while (pghot_region_distinct_count(left, next) < PGHOT_REGION_DISTINCT_MAX)
		left = pghot_region_distinct_add(left, next);
	left = pghot_region_distinct_add(left, next);
	KUNIT_EXPECT_EQ(test, pghot_region_distinct_count(left, next), PGHOT_REGION_DISTINCT_MAX);
	KUNIT_EXPECT_EQ(test, pghot_region_left_count(left, next), PGHOT_REGION_LEFT_MAX);
}

static struct kunit_case pghot_rule_test_cases[] = {
	KUNIT_CASE_PARAM(pghot_test_window, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_saturation, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_ready, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_known, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_late_arrival, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_jiffies_wrap, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_hold, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_untrusted, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_target, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_sweep, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_sweep_pending, pghot_layout_gen_params),
	KUNIT_CASE(pghot_test_clock_shift),
	KUNIT_CASE_PARAM(pghot_test_mark, pghot_layout_gen_params),
	KUNIT_CASE(pghot_test_region_window),
	KUNIT_CASE(pghot_test_region_hot),
	KUNIT_CASE(pghot_test_region_rate),
	KUNIT_CASE(pghot_test_region_wrap),
	KUNIT_CASE(pghot_test_region_ref_bar),
	KUNIT_CASE(pghot_test_region_rate_value),
	KUNIT_CASE(pghot_test_ref_decay),
	KUNIT_CASE(pghot_test_ref_update),
	KUNIT_CASE(pghot_test_region_threshold),
	KUNIT_CASE(pghot_test_region_distinct_expected),
	KUNIT_CASE(pghot_test_region_few),
	KUNIT_CASE(pghot_test_region_rest),
	KUNIT_CASE(pghot_test_region_left),
	{}
};

static struct kunit_suite pghot_rule_test_suite = {
	.name = "pghot-rule",
	.test_cases = pghot_rule_test_cases,
};

kunit_test_suite(pghot_rule_test_suite);

#endif /* _PGHOT_RULE_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
