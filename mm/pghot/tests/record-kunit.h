/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pghot record store: touching, taking ready pages,
 * the time field's wrap with and without sweeps, clock changes, holds,
 * resets on free and deferred pages. They run on a private table with one
 * section and a made-up clock, never on the store of the running system.
 * And the cost of one record update, measured on that table.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_RECORD_KUNIT_TEST_H
#define _PGHOT_RECORD_KUNIT_TEST_H

#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/sort.h>

/* A section number far above any real memory (CXL windows sit high). */
#define TEST_SECTION	BIT(25)
#define TEST_PFN	section_nr_to_pfn(TEST_SECTION)
/* A clock of 2^3 jiffies per unit, generation 5. */
#define TEST_CLOCK	((5UL << PGHOT_CLOCK_SHIFT_BITS) | 3)

struct pghot_test_store {
	struct pghot_table *t;
	struct pghot_section *s;
	unsigned long now;		/* the test's jiffies */
	unsigned long word;		/* the test's clock */
};

static void pghot_test_store_exit(void *data)
{
	struct pghot_test_store *ts = data;

	if (ts->s)
		pghot_section_free(ts->s);
	kvfree(ts->t);
}

/* A private table with one section; skips the test without memory. */
static struct pghot_test_store *pghot_test_store(struct kunit *test)
{
	struct pghot_test_store *ts;

	ts = kunit_kzalloc(test, sizeof(*ts), GFP_KERNEL);
	if (!ts)
		kunit_skip(test, "no memory for a test store");
	ts->t = kvzalloc(pghot_table_size(1), GFP_KERNEL);
	ts->s = kzalloc_obj(*ts->s, GFP_KERNEL);
	if (ts->s)
		ts->s->records = kvzalloc(pghot_records_size(), GFP_KERNEL);
	if (kunit_add_action_or_reset(test, pghot_test_store_exit, ts) ||
	    !ts->t || !ts->s || !ts->s->records)
		kunit_skip(test, "no memory for a test store");
	/* Close to a jiffies wrap. */
	ts->now = -1000UL;
	ts->word = TEST_CLOCK;
	ts->t->start = TEST_SECTION;
	ts->t->nr = 1;
	ts->s->validated = ts->now;
	ts->s->asked = ts->now;
	ts->s->gen = clock_gen(ts->word);
	ts->s->target = NUMA_NO_NODE;
	RCU_INIT_POINTER(ts->t->secs[0], ts->s);
	return ts;
}

/* One access to page @idx at the test's time; PGHOT_TOUCH_* flags. */
static unsigned int test_touch(struct pghot_test_store *ts, unsigned long idx,
			       unsigned int threshold, int nid)
{
	struct pghot_access a = {
		.now = ts->now, .nid = nid, .threshold = threshold,
		.window = pghot_layout->window_units,
	};
	unsigned int res = 0;

	pghot_section_touch(ts->t, ts->s, idx, &a, ts->now, ts->word, &res);
	return res;
}

/* What kmigrated does with a deferred table, under RCU as it does. */
static unsigned int test_collect(struct pghot_test_store *ts,
				 unsigned long *pfns, int *targets)
{
	unsigned int n;

	rcu_read_lock();
	n = pghot_table_collect(ts->t, NUMA_NO_NODE, pfns, targets, 4);
	rcu_read_unlock();
	return n;
}

/* What kmigrated does when a section asks for a sweep. */
static void test_sweep_if_asked(struct pghot_test_store *ts, unsigned int res)
{
	if (!(res & PGHOT_TOUCH_SWEEP))
		return;
	pghot_sweep_section(ts->s, ts->now, ts->word);
	clear_bit(PGHOT_SEC_SWEEP, &ts->s->flags);
}

static unsigned long test_unit(struct pghot_test_store *ts)
{
	return 1UL << clock_shift(ts->word);
}

static void pghot_test_take_ready(struct kunit *test)
{
	struct pghot_test_store *ts;
	u32 rec;

	ts = pghot_test_store(test);
	KUNIT_EXPECT_EQ(test, test_touch(ts, 3, 2, NUMA_NO_NODE), 0U);
	KUNIT_EXPECT_FALSE(test, pghot_section_take_ready(ts->s, 3, &rec));
	KUNIT_EXPECT_EQ(test, test_touch(ts, 3, 2, NUMA_NO_NODE),
			(unsigned int)PGHOT_TOUCH_READY);
	/* Only the access that made it ready says so. */
	KUNIT_EXPECT_EQ(test, test_touch(ts, 3, 2, NUMA_NO_NODE), 0U);
	/* Neighbours are untouched. */
	KUNIT_EXPECT_FALSE(test, pghot_section_take_ready(ts->s, 2, &rec));
	KUNIT_EXPECT_FALSE(test, pghot_section_take_ready(ts->s, 4, &rec));

	KUNIT_EXPECT_TRUE(test, pghot_section_take_ready(ts->s, 3, &rec));
	KUNIT_EXPECT_TRUE(test, pghot_rec_ready(pghot_layout, rec));
	/* Three accesses within the window. */
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(pghot_layout, rec), 3U);
	/* Cleared: the page must prove itself hot again. */
	KUNIT_EXPECT_FALSE(test, pghot_section_take_ready(ts->s, 3, &rec));
	KUNIT_EXPECT_EQ(test, test_touch(ts, 3, 2, NUMA_NO_NODE), 0U);
}

/*
 * The time field wraps every 2^time_bits units. A page touched exactly
 * one wrap ago has the same time field as now; it must not count as
 * recent, whether the section was swept in between or not.
 */
static void pghot_test_time_field_wrap(struct kunit *test)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_test_store *ts;
	unsigned long range, end;
	unsigned int res;
	u32 rec;

	ts = pghot_test_store(test);
	range = (unsigned long)(pghot_time_mask(l) + 1) * test_unit(ts);
	/* Idle section, never swept: one access, then nothing for a wrap. */
	test_touch(ts, 0, 2, NUMA_NO_NODE);
	ts->now += range;
	res = test_touch(ts, 0, 2, NUMA_NO_NODE);
	KUNIT_EXPECT_FALSE(test, res & PGHOT_TOUCH_READY);
	/* It asked for a sweep. */
	KUNIT_EXPECT_TRUE(test, res & PGHOT_TOUCH_SWEEP);
	KUNIT_EXPECT_FALSE(test, pghot_section_take_ready(ts->s, 0, &rec));
	test_sweep_if_asked(ts, res);

	/* Busy section, swept whenever it asks: a neighbour is touched all along. */
	ts->now += range;
	test_sweep_if_asked(ts, test_touch(ts, 1, 2, NUMA_NO_NODE));
	for (end = ts->now + range; ts->now != end; ) {
		ts->now += test_unit(ts);
		test_sweep_if_asked(ts, test_touch(ts, 2, 7, NUMA_NO_NODE));
	}
	res = test_touch(ts, 1, 2, NUMA_NO_NODE);
	KUNIT_EXPECT_FALSE(test, res & PGHOT_TOUCH_READY);
	KUNIT_EXPECT_FALSE(test, pghot_section_take_ready(ts->s, 1, &rec));

	/* While a real second access inside the window still counts. */
	ts->now += test_unit(ts);
	KUNIT_EXPECT_TRUE(test, test_touch(ts, 1, 2, NUMA_NO_NODE) &
			  PGHOT_TOUCH_READY);
}

/*
 * A section left alone for two time ranges and @extra units: page 11's
 * old window decodes as @extra units old. Page 12's access asks for a
 * sweep, which comes @late units later (again before page 12's second
 * access): it closes page 11's window, however young it decodes, and
 * keeps page 12's, opened since the request.
 */
static void test_idle_gap(struct kunit *test, unsigned int extra,
			  unsigned int late)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_test_store *ts;
	unsigned long range;
	unsigned int res;

	ts = pghot_test_store(test);
	range = (unsigned long)(pghot_time_mask(l) + 1) * test_unit(ts);
	test_touch(ts, 11, 2, NUMA_NO_NODE);
	ts->now += 2 * range + extra * test_unit(ts);
	res = test_touch(ts, 12, 2, NUMA_NO_NODE);
	KUNIT_EXPECT_TRUE(test, res & PGHOT_TOUCH_SWEEP);
	ts->now += late * test_unit(ts);
	test_sweep_if_asked(ts, res);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec_load(l, ts->s->records, 11)), 0U);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(l, rec_load(l, ts->s->records, 12)), 1U);
	/* One access is not two: page 11 opens a window, page 12 is ready. */
	KUNIT_EXPECT_FALSE(test, test_touch(ts, 11, 2, NUMA_NO_NODE) &
			   PGHOT_TOUCH_READY);
	ts->now += late * test_unit(ts);
	KUNIT_EXPECT_TRUE(test, test_touch(ts, 12, 2, NUMA_NO_NODE) &
			  PGHOT_TOUCH_READY);
}

/* Page 11's window decodes as a unit old, the sweep a unit late. */
static void pghot_test_idle_sweep(struct kunit *test)
{
	test_idle_gap(test, 1, 1);
}

/*
 * The idle gap a whole number of ranges and the sweep at once: page 11's
 * window decodes as opened in the very unit the sweep was asked in.
 */
static void pghot_test_aliased_sweep(struct kunit *test)
{
	test_idle_gap(test, 0, 0);
}

/* A sweep comes late: windows count as closed, ready pages stay ready. */
static void pghot_test_late_sweep(struct kunit *test)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_test_store *ts;
	unsigned long stale;
	unsigned int res;
	u32 rec;

	ts = pghot_test_store(test);
	stale = (unsigned long)pghot_stale_units(l) * test_unit(ts);
	test_touch(ts, 5, 2, NUMA_NO_NODE);
	test_touch(ts, 6, 1, NUMA_NO_NODE);
	/* Half way to stale the section asks for a sweep, once. */
	ts->now += stale / 2;
	KUNIT_EXPECT_TRUE(test, test_touch(ts, 7, 7, NUMA_NO_NODE) &
			  PGHOT_TOUCH_SWEEP);
	KUNIT_EXPECT_FALSE(test, test_touch(ts, 7, 7, NUMA_NO_NODE) &
			   PGHOT_TOUCH_SWEEP);
	/* Nobody swept: page 5's window is no longer trusted. */
	ts->now += stale / 2;
	res = test_touch(ts, 5, 2, NUMA_NO_NODE);
	KUNIT_EXPECT_FALSE(test, res & PGHOT_TOUCH_READY);
	KUNIT_EXPECT_TRUE(test, pghot_section_take_ready(ts->s, 6, &rec));
}

/*
 * A new clock generation: windows opened before it closed, ready pages
 * kept, and windows opened since the sweep was asked for kept open.
 */
static void pghot_test_clock_change(struct kunit *test)
{
	struct pghot_test_store *ts;
	unsigned int res;
	u32 rec;

	ts = pghot_test_store(test);
	test_touch(ts, 8, 2, NUMA_NO_NODE);
	test_touch(ts, 9, 1, NUMA_NO_NODE);
	test_touch(ts, 10, 2, NUMA_NO_NODE);
	/* Twice the unit and the next generation. */
	ts->word = ((clock_gen(ts->word) + 1) << PGHOT_CLOCK_SHIFT_BITS) |
		   (clock_shift(ts->word) + 1);
	/* Behind the clock: page 8's access is pending, one access. */
	res = test_touch(ts, 8, 2, NUMA_NO_NODE);
	KUNIT_EXPECT_FALSE(test, res & PGHOT_TOUCH_READY);
	KUNIT_EXPECT_TRUE(test, res & PGHOT_TOUCH_SWEEP);
	rec = rec_load(pghot_layout, ts->s->records, 8);
	KUNIT_EXPECT_TRUE(test, pghot_rec_pending(pghot_layout, rec));
	KUNIT_EXPECT_EQ(test, pghot_rec_hits(pghot_layout, rec), 1U);
	/* The sweep comes a unit later. */
	ts->now += test_unit(ts);
	test_sweep_if_asked(ts, res);
	/* It closed page 10's old window, kept page 8's new one, page 9 ready. */
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(pghot_layout,
					     rec_load(pghot_layout, ts->s->records, 10)), 0U);
	KUNIT_EXPECT_EQ(test, pghot_rec_freq(pghot_layout,
					     rec_load(pghot_layout, ts->s->records, 8)), 1U);
	KUNIT_EXPECT_TRUE(test, pghot_section_take_ready(ts->s, 9, &rec));
	/* Page 8's second access in its window makes it ready. */
	KUNIT_EXPECT_TRUE(test, test_touch(ts, 8, 2, NUMA_NO_NODE) &
			  PGHOT_TOUCH_READY);
	/* Page 10 starts over. */
	KUNIT_EXPECT_FALSE(test, test_touch(ts, 10, 2, NUMA_NO_NODE) &
			   PGHOT_TOUCH_READY);
}

/* A demoted page is held, then counts again after the hold. */
static void pghot_test_store_hold(struct kunit *test)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_test_store *ts;
	u32 rec;

	ts = pghot_test_store(test);
	pghot_section_hold(ts->s, 11, ts->now, ts->word);
	KUNIT_EXPECT_EQ(test, test_touch(ts, 11, 1, NUMA_NO_NODE),
			(unsigned int)PGHOT_TOUCH_HELD);
	KUNIT_EXPECT_FALSE(test, pghot_section_take_ready(ts->s, 11, &rec));
	ts->now += (unsigned long)pghot_hold_units(l, l->window_units) *
		   test_unit(ts);
	test_sweep_if_asked(ts, 0);
	KUNIT_EXPECT_TRUE(test, test_touch(ts, 11, 1, NUMA_NO_NODE) &
			  PGHOT_TOUCH_READY);
}

/*
 * Freed pages forget their hotness, and the ready ones are reported; their
 * neighbours keep theirs.
 */
static void pghot_test_reset(struct kunit *test)
{
	struct pghot_test_store *ts;
	unsigned long i;
	u32 rec;

	ts = pghot_test_store(test);
	for (i = 16; i < 24; i++)
		test_touch(ts, i, 1, NUMA_NO_NODE);
	/* An order-2 page at 16 and an order-0 page at 22, all ready. */
	KUNIT_EXPECT_EQ(test, pghot_section_reset(ts->s, NUMA_NO_NODE, 0, 16, 20),
			4U);
	KUNIT_EXPECT_EQ(test, pghot_section_reset(ts->s, NUMA_NO_NODE, 0, 22, 23),
			1U);
	/* Idle records: nothing ready to report. */
	KUNIT_EXPECT_EQ(test, pghot_section_reset(ts->s, NUMA_NO_NODE, 0, 30, 40),
			0U);
	for (i = 16; i < 24; i++)
		KUNIT_EXPECT_EQ_MSG(test, pghot_section_take_ready(ts->s, i, &rec),
				    i == 20 || i == 21 || i == 23, "page %lu", i);
}

/* Deferred ready pages are found again, with their target. */
static void pghot_test_deferred(struct kunit *test)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_test_store *ts;
	unsigned long pfns[4];
	int targets[4];
	unsigned int i;
	u32 rec;

	ts = pghot_test_store(test);
	/* Nothing flagged: nothing scanned. */
	test_touch(ts, 40, 1, 0);
	KUNIT_EXPECT_EQ(test, test_collect(ts, pfns, targets), 0U);
	for (i = 41; i < 46; i++)
		test_touch(ts, i, 1, 0);
	/* A held page is not ready. */
	pghot_section_hold(ts->s, 46, ts->now, ts->word);
	WRITE_ONCE(ts->s->target, 1);
	pghot_section_flag(ts->t, ts->s, PGHOT_SEC_DEFERRED);
	KUNIT_EXPECT_EQ(test, test_collect(ts, pfns, targets), 4U);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, pfns[i], TEST_PFN + 40 + i);
		/* Precise records keep their target, default ones the section's. */
		KUNIT_EXPECT_EQ(test, targets[i], l->nid_bits ? 0 : 1);
		/* What kmigrated does with them. */
		KUNIT_EXPECT_TRUE(test, pghot_section_take_ready(ts->s, 40 + i, &rec));
	}
	/* The rest on the next call: the section flagged itself again. */
	KUNIT_EXPECT_EQ(test, test_collect(ts, pfns, targets), 2U);
	KUNIT_EXPECT_EQ(test, pfns[1], TEST_PFN + 45);
	KUNIT_EXPECT_EQ(test, test_collect(ts, pfns, targets), 0U);
}

/*
 * Deferred pages of a section in default mode share one target while they
 * agree, and go to their node's default once two disagree; the scan starts
 * the section afresh. A precise record keeps its own.
 */
static void pghot_test_deferred_target(struct kunit *test)
{
	const struct pghot_layout *l = pghot_layout;
	struct pghot_test_store *ts;
	unsigned long pfns[4];
	int targets[4];

	ts = pghot_test_store(test);
	WRITE_ONCE(ts->s->target, PGHOT_DEFER_NONE);
	test_touch(ts, 50, 1, 0);
	test_touch(ts, 51, 1, 0);
	pghot_section_defer_target(ts->s, 0);
	pghot_section_defer_target(ts->s, 0);
	pghot_section_flag(ts->t, ts->s, PGHOT_SEC_DEFERRED);
	KUNIT_EXPECT_EQ(test, test_collect(ts, pfns, targets), 2U);
	KUNIT_EXPECT_EQ(test, targets[0], 0);
	KUNIT_EXPECT_EQ(test, targets[1], 0);
	KUNIT_EXPECT_EQ(test, ts->s->target, PGHOT_DEFER_NONE);

	/* Two tasks on two nodes: no target is right for both. */
	pghot_section_defer_target(ts->s, 0);
	pghot_section_defer_target(ts->s, 1);
	pghot_section_defer_target(ts->s, 0);
	pghot_section_flag(ts->t, ts->s, PGHOT_SEC_DEFERRED);
	KUNIT_EXPECT_EQ(test, test_collect(ts, pfns, targets), 2U);
	KUNIT_EXPECT_EQ(test, targets[0], l->nid_bits ? 0 : NUMA_NO_NODE);
	KUNIT_EXPECT_EQ(test, targets[1], l->nid_bits ? 0 : NUMA_NO_NODE);
}

/*
 * A section flagged through a table already replaced (memory hotplug)
 * flags its successor too, which kmigrated may have looked at already.
 */
static void pghot_test_flag_replaced(struct kunit *test)
{
	struct pghot_test_store *ts;
	struct pghot_table *next;

	ts = pghot_test_store(test);
	next = kunit_kzalloc(test, pghot_table_size(1), GFP_KERNEL);
	if (!next)
		kunit_skip(test, "no memory for a table");
	next->start = ts->t->start;
	next->nr = 1;
	RCU_INIT_POINTER(next->secs[0], ts->s);
	ts->t->next = next;
	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, pghot_section_flag(ts->t, ts->s, PGHOT_SEC_DEFERRED));
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, test_bit(PGHOT_SEC_DEFERRED, &next->pending));
	KUNIT_EXPECT_TRUE(test, test_bit(PGHOT_SEC_DEFERRED, &ts->t->pending));
	ts->t->next = NULL;
}

static int pghot_test_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The cost of one update of a hot record, section lookup included: a
 * measurement, reported on the console. What it asserts is only that the
 * loop did update the record.
 */
static void pghot_test_record_cost(struct kunit *test)
{
	enum { RUNS = 9, LOOPS = 100000 };
	struct pghot_test_store *ts;
	unsigned long word;
	unsigned int res;
	u64 ns[RUNS];
	u32 rec;
	int r, i;

	ts = pghot_test_store(test);
	ts->now = jiffies;
	ts->s->validated = ts->now;
	word = ts->word;
	for (r = 0; r < RUNS; r++) {
		u64 start = ktime_get_ns();

		for (i = 0; i < LOOPS; i++) {
			struct pghot_access a = {
				.now = ts->now, .nid = NUMA_NO_NODE,
				.window = pghot_layout->window_units,
				.threshold = pghot_freq_max(pghot_layout),
			};
			struct pghot_section *s;

			rcu_read_lock();
			s = pghot_table_section(ts->t, TEST_PFN + 5);
			if (s)
				pghot_section_touch(ts->t, s, 5, &a, ts->now,
						    word, &res);
			rcu_read_unlock();
		}
		ns[r] = ktime_get_ns() - start;
	}
	sort(ns, RUNS, sizeof(ns[0]), pghot_test_cmp_u64, NULL);
	kunit_info(test, "record update: median %llu ns per call (%s mode, %d x %d calls)\n",
		   div_u64(ns[RUNS / 2], LOOPS), pghot_layout->name, RUNS, LOOPS);
	KUNIT_EXPECT_TRUE(test, pghot_section_take_ready(ts->s, 5, &rec));
}

static struct kunit_case pghot_record_test_cases[] = {
	KUNIT_CASE(pghot_test_take_ready),
	KUNIT_CASE(pghot_test_time_field_wrap),
	KUNIT_CASE(pghot_test_late_sweep),
	KUNIT_CASE(pghot_test_idle_sweep),
	KUNIT_CASE(pghot_test_aliased_sweep),
	KUNIT_CASE(pghot_test_clock_change),
	KUNIT_CASE(pghot_test_store_hold),
	KUNIT_CASE(pghot_test_reset),
	KUNIT_CASE(pghot_test_deferred),
	KUNIT_CASE(pghot_test_deferred_target),
	KUNIT_CASE(pghot_test_flag_replaced),
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
