/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pghot record rules: window, saturation, ready bit,
 * get-and-clear, jiffies wrap and the time field's own wrap, in both
 * record layouts.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_RECORD_KUNIT_TEST_H
#define _PGHOT_RECORD_KUNIT_TEST_H

#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/sort.h>

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

static u32 access_at(const struct pghot_layout *l, u32 rec, unsigned long now,
		     unsigned int threshold)
{
	const struct pghot_clock c = { .shift = TEST_SHIFT };
	const struct pghot_access a = {
		.now = now, .nid = 1, .window = TEST_WINDOW,
		.threshold = threshold,
	};

	return pghot_update_record(l, &c, rec, &a);
}

static void pghot_test_window(struct kunit *test)
{
	const struct pghot_layout *l = *(const struct pghot_layout **)test->param_value;
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
	const struct pghot_layout *l = *(const struct pghot_layout **)test->param_value;
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
	const struct pghot_layout *l = *(const struct pghot_layout **)test->param_value;
	unsigned long t = 77 * TEST_UNIT;
	u32 rec;

	rec = access_at(l, 0, t, 2);
	KUNIT_EXPECT_FALSE(test, rec & pghot_ready_bit(l));
	rec = access_at(l, rec, t + TEST_UNIT, 2);
	KUNIT_EXPECT_TRUE(test, rec & pghot_ready_bit(l));
	/* Ready stays ready, even when a later access opens a new window. */
	rec = access_at(l, rec, t + 100 * TEST_UNIT, 2);
	KUNIT_EXPECT_TRUE(test, rec & pghot_ready_bit(l));
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec), 1U);
	/* Threshold 1: the first access is enough. */
	rec = access_at(l, 0, t, 1);
	KUNIT_EXPECT_TRUE(test, rec & pghot_ready_bit(l));
}

/* A sample from just before the last one, drained late, still counts. */
static void pghot_test_late_arrival(struct kunit *test)
{
	const struct pghot_layout *l = *(const struct pghot_layout **)test->param_value;
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
	const struct pghot_layout *l = *(const struct pghot_layout **)test->param_value;
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

/* A fake section far above any real memory for the store tests. */
#define TEST_PFN	BIT(40)

static int pghot_test_section_init(struct kunit *test)
{
	if (pghot_sections_add(TEST_PFN, PAGES_PER_SECTION, NUMA_NO_NODE))
		return -ENOMEM;
	return 0;
}

static void pghot_test_section_exit(struct kunit *test)
{
	pghot_sections_remove(TEST_PFN, PAGES_PER_SECTION);
}

static struct pghot_access test_access(unsigned long now, unsigned int threshold)
{
	return (struct pghot_access){
		.now = now, .nid = NUMA_NO_NODE,
		.window = pghot_layout->window_units, .threshold = threshold,
	};
}

static void pghot_test_take_ready(struct kunit *test)
{
	unsigned long now = jiffies;
	struct pghot_access a = test_access(now, 2);
	bool ready;
	u32 rec;

	if (pghot_test_section_init(test))
		kunit_skip(test, "no memory for a test section");
	KUNIT_EXPECT_EQ(test, pghot_record_touch(TEST_PFN + 3, &a, &ready), 0);
	KUNIT_EXPECT_FALSE(test, ready);
	KUNIT_EXPECT_FALSE(test, pghot_record_take_ready(TEST_PFN + 3, &rec));
	KUNIT_EXPECT_EQ(test, pghot_record_touch(TEST_PFN + 3, &a, &ready), 0);
	KUNIT_EXPECT_TRUE(test, ready);
	/* Only the access that made it ready says so. */
	KUNIT_EXPECT_EQ(test, pghot_record_touch(TEST_PFN + 3, &a, &ready), 0);
	KUNIT_EXPECT_FALSE(test, ready);
	/* Neighbours are untouched. */
	KUNIT_EXPECT_FALSE(test, pghot_record_take_ready(TEST_PFN + 2, &rec));
	KUNIT_EXPECT_FALSE(test, pghot_record_take_ready(TEST_PFN + 4, &rec));

	KUNIT_EXPECT_TRUE(test, pghot_record_take_ready(TEST_PFN + 3, &rec));
	KUNIT_EXPECT_TRUE(test, rec & pghot_ready_bit(pghot_layout));
	/* Three accesses within the window. */
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(pghot_layout, rec), 3U);
	/* Cleared: the page must prove itself hot again. */
	KUNIT_EXPECT_FALSE(test, pghot_record_take_ready(TEST_PFN + 3, &rec));
	KUNIT_EXPECT_EQ(test, pghot_record_touch(TEST_PFN + 3, &a, &ready), 0);
	KUNIT_EXPECT_FALSE(test, ready);
	/* No record outside tracked memory. */
	KUNIT_EXPECT_EQ(test, pghot_record_touch(TEST_PFN + PAGES_PER_SECTION,
						 &a, &ready), -ENOENT);
	pghot_test_section_exit(test);
}

/*
 * The time field wraps every 2^time_bits units. A page touched exactly
 * one wrap ago has the same time field as now; it must not count as
 * recent, whether the section was visited in between or not.
 */
static void pghot_test_time_field_wrap(struct kunit *test)
{
	const struct pghot_layout *l = pghot_layout;
	unsigned long unit = 1UL << clock_shift(READ_ONCE(pghot_clock_word));
	unsigned long range = (unsigned long)(pghot_time_mask(l) + 1) * unit;
	unsigned long t0 = jiffies;
	struct pghot_access a = test_access(t0, 2);
	unsigned long t;
	bool ready;
	u32 rec;

	if (pghot_test_section_init(test))
		kunit_skip(test, "no memory for a test section");
	/* Idle section: one access, then nothing for a whole wrap. */
	pghot_record_touch(TEST_PFN, &a, &ready);
	a.now = t0 + range;
	pghot_record_touch(TEST_PFN, &a, &ready);
	KUNIT_EXPECT_FALSE(test, ready);
	KUNIT_EXPECT_FALSE(test, pghot_record_take_ready(TEST_PFN, &rec));

	/* Busy section: a neighbour is touched all along. */
	a.now = t0 + 2 * range;
	pghot_record_touch(TEST_PFN + 1, &a, &ready);
	for (t = a.now + unit; t <= a.now + range; t += unit) {
		struct pghot_access b = test_access(t, 2);

		pghot_record_touch(TEST_PFN + 2, &b, &ready);
		pghot_record_take_ready(TEST_PFN + 2, &rec);
	}
	a.now += range;
	pghot_record_touch(TEST_PFN + 1, &a, &ready);
	KUNIT_EXPECT_FALSE(test, ready);
	KUNIT_EXPECT_FALSE(test, pghot_record_take_ready(TEST_PFN + 1, &rec));

	/* While a real second access inside the window still counts. */
	a.now += unit;
	pghot_record_touch(TEST_PFN + 1, &a, &ready);
	KUNIT_EXPECT_TRUE(test, ready);
	pghot_test_section_exit(test);
}

static int pghot_test_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Not a pass/fail test: reports the cost of one update of a hot record. */
static void pghot_test_record_cost(struct kunit *test)
{
	enum { RUNS = 9, LOOPS = 100000 };
	struct pghot_access a = test_access(jiffies, pghot_freq_max(pghot_layout));
	u64 ns[RUNS];
	bool ready;
	u32 rec;
	int r, i;

	if (pghot_test_section_init(test))
		kunit_skip(test, "no memory for a test section");
	for (r = 0; r < RUNS; r++) {
		u64 start = ktime_get_ns();

		for (i = 0; i < LOOPS; i++)
			pghot_record_touch(TEST_PFN + 5, &a, &ready);
		ns[r] = ktime_get_ns() - start;
	}
	sort(ns, RUNS, sizeof(ns[0]), pghot_test_cmp_u64, NULL);
	kunit_info(test, "pghot_record_touch: median %llu ns per call (%s mode, %d x %d calls)\n",
		   div_u64(ns[RUNS / 2], LOOPS), pghot_layout->name, RUNS, LOOPS);
	KUNIT_EXPECT_TRUE(test, pghot_record_take_ready(TEST_PFN + 5, &rec));
	pghot_test_section_exit(test);
}

static struct kunit_case pghot_record_test_cases[] = {
	KUNIT_CASE_PARAM(pghot_test_window, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_saturation, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_ready, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_late_arrival, pghot_layout_gen_params),
	KUNIT_CASE_PARAM(pghot_test_jiffies_wrap, pghot_layout_gen_params),
	KUNIT_CASE(pghot_test_take_ready),
	KUNIT_CASE(pghot_test_time_field_wrap),
	KUNIT_CASE(pghot_test_record_cost),
	{}
};

static struct kunit_suite pghot_record_test_suite = {
	.name = "pghot-record",
	.test_cases = pghot_record_test_cases,
};

kunit_test_suite(pghot_record_test_suite);

#endif /* _PGHOT_RECORD_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
