/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pghot hotness rule: window, saturation, ready bit,
 * late arrivals, jiffies wrap, holds, untrusted times and sweeps, in both
 * record layouts. Pure functions on private records.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_RULE_KUNIT_TEST_H
#define _PGHOT_RULE_KUNIT_TEST_H

#include <kunit/test.h>

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
	unsigned long t = 3000 * TEST_UNIT, hold = pghot_hold_units(l) * TEST_UNIT;
	enum pghot_outcome out;
	u32 rec, next;

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

/* An untrusted time closes an open window but never a ready page. */
static void pghot_test_untrusted(struct kunit *test)
{
	const struct pghot_layout *l = test_layout(test);
	unsigned long t = 40 * TEST_UNIT;
	enum pghot_outcome out;
	u32 rec;

	rec = access_at(l, 0, t, 3);
	rec = access_full(l, rec, t + TEST_UNIT, 3, 1, false, &out);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 1U);
	rec = access_at(l, rec, t + 2 * TEST_UNIT, 2);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
	rec = access_full(l, rec, t + 3 * TEST_UNIT, 7, 1, false, &out);
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(l, rec));
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
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, open, now, keep), open);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, held, now, keep), held);
	/* Stale: closed, the target kept. */
	now = pghot_now_units(l, &c, t + stale);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, open, now, keep) &
			(pghot_window_mask(l) | pghot_ready_bit(l)), 0U);
	KUNIT_EXPECT_EQ(test, pghot_rec_nid(l, pghot_sweep_record(l, open, now, keep)),
			pghot_rec_nid(l, open));
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, held, now, keep), 0U);
	/* Ready records and idle ones are left alone, even by a full sweep. */
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, ready, now, 0), ready);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, 0, now, 0), 0U);
	/* A clock change closes young windows too... */
	now = pghot_now_units(l, &c, t);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, open, now, 0) &
			pghot_window_mask(l), 0U);
	/* ...but not one opened since the sweep was asked for. */
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, open, now, 1), open);
	now = pghot_now_units(l, &c, t + 2 * TEST_UNIT);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, open, now, 3), open);
	KUNIT_EXPECT_EQ(test, pghot_sweep_record(l, open, now, 2) &
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

static struct kunit_case pghot_rule_test_cases[] = {
	KUNIT_CASE_PARAM(pghot_test_window, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_saturation, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_ready, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_late_arrival, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_jiffies_wrap, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_hold, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_untrusted, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_target, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_sweep, pghot_layout_gen_params),
	KUNIT_CASE(pghot_test_clock_shift),
	{}
};

static struct kunit_suite pghot_rule_test_suite = {
	.name = "pghot-rule",
	.test_cases = pghot_rule_test_cases,
};

kunit_test_suite(pghot_rule_test_suite);

#endif /* _PGHOT_RULE_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
