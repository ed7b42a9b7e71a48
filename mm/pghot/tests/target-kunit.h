/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the promotion rules a target shares with NUMA balancing
 * (the per-target rate-limit window, the direction of threshold
 * adaptation) and of how it remembers what was promoted to it.
 * All on private state: the node counters are only read.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_TARGET_KUNIT_TEST_H
#define _PGHOT_TARGET_KUNIT_TEST_H

#include <kunit/test.h>

static void pghot_test_rate_limit(struct kunit *test)
{
	/* Close to a wrap of the millisecond clock. */
	const unsigned int sec = MSEC_PER_SEC;
	unsigned int now = -500U, start = now - 2 * sec;
	unsigned long start_cand = 0;

	/* The call that opens a window takes its reference from it. */
	KUNIT_EXPECT_FALSE(test, numa_promotion_rate_limited(1000, now, &start,
							     &start_cand, 500));
	KUNIT_EXPECT_EQ(test, start, now);
	KUNIT_EXPECT_EQ(test, start_cand, 1000UL);
	KUNIT_EXPECT_FALSE(test, numa_promotion_rate_limited(1499, now + 10,
							     &start, &start_cand, 500));
	/* 500 candidates in the window: over the limit. */
	KUNIT_EXPECT_TRUE(test, numa_promotion_rate_limited(1500, now + 20,
							    &start, &start_cand, 500));
	/* Still in the same second. */
	KUNIT_EXPECT_TRUE(test, numa_promotion_rate_limited(1600, now + sec,
							    &start, &start_cand, 500));
	/* A new window opens the budget again, across the wrap. */
	KUNIT_EXPECT_FALSE(test, numa_promotion_rate_limited(1700,
							     now + sec + 1,
							     &start, &start_cand, 500));
	KUNIT_EXPECT_EQ(test, start_cand, 1700UL);
	/* A limit of 0 refuses everything. */
	KUNIT_EXPECT_TRUE(test, numa_promotion_rate_limited(1700,
							    now + sec + 2,
							    &start, &start_cand, 0));
}

static void pghot_test_adjust_threshold(struct kunit *test)
{
	struct pglist_data *pgdat = NODE_DATA(first_memory_node);
	unsigned long cand = node_page_state(pgdat, PGPROMOTE_CANDIDATE);
	const unsigned int ref = 4000, period = 1000;
	struct pghot_target t = { };

	/* Far more candidates than the limit allows: stricter (smaller). */
	t.start = jiffies_to_msecs(jiffies) - 2 * period;
	t.nr_cand = cand - 1000;
	numa_promotion_adjust_threshold(pgdat, 10, ref, period, &t.window_ms,
					&t.start, &t.nr_cand);
	KUNIT_EXPECT_LT(test, t.window_ms, ref);
	KUNIT_EXPECT_GT(test, t.window_ms, 0U);

	/* Fewer than the limit: looser, up to twice the reference. */
	t.window_ms = ref;
	t.start = jiffies_to_msecs(jiffies) - 2 * period;
	t.nr_cand = node_page_state(pgdat, PGPROMOTE_CANDIDATE);
	numa_promotion_adjust_threshold(pgdat, 1000, ref, period, &t.window_ms,
					&t.start, &t.nr_cand);
	KUNIT_EXPECT_GT(test, t.window_ms, ref);
	KUNIT_EXPECT_LE(test, t.window_ms, 2 * ref);

	/* Inside the period nothing moves. */
	t.window_ms = ref;
	t.start = jiffies_to_msecs(jiffies);
	numa_promotion_adjust_threshold(pgdat, 1000, ref, period, &t.window_ms,
					&t.start, &t.nr_cand);
	KUNIT_EXPECT_EQ(test, t.window_ms, ref);
}

/* A made-up folio with an identity: what the recent-promotion filter reads. */
static struct folio *test_folio(struct kunit *test, unsigned long mapping,
				pgoff_t index)
{
	struct folio *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	if (!f)
		kunit_skip(test, "no memory for a folio");
	f->mapping = (struct address_space *)mapping;
	f->index = index;
	return f;
}

/* A private filter, as the first promotion to a target sets it up. */
static struct pghot_recent *test_recent(struct kunit *test, unsigned long start)
{
	struct pghot_recent *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	if (r)
		r->bits[0] = kunit_kzalloc(test, 2 * BITS_TO_LONGS(PGHOT_RECENT_BITS) *
					   sizeof(long), GFP_KERNEL);
	if (!r || !r->bits[0])
		kunit_skip(test, "no memory for a filter");
	r->bits[1] = r->bits[0] + BITS_TO_LONGS(PGHOT_RECENT_BITS);
	r->start = start;
	return r;
}

/*
 * Pages promoted lately are found, through the generations, across a
 * jiffies wrap; pages not promoted are not; nothing is after two periods.
 */
static void pghot_test_recent(struct kunit *test)
{
	const unsigned long period = msecs_to_jiffies(PGHOT_RECENT_MS);
	unsigned long start = -(period / 2);	/* wraps within the period */
	struct pghot_recent *r = test_recent(test, start);
	struct folio *a = test_folio(test, 0x1000 | FOLIO_MAPPING_ANON, 7);
	struct folio *b = test_folio(test, 0x1000 | FOLIO_MAPPING_ANON, 8);
	struct folio *c = test_folio(test, 0x2000, 7);
	/* The same page after migration: a new folio, the same identity. */
	struct folio *a2 = test_folio(test, 0x1000 | FOLIO_MAPPING_ANON, 7);

	pghot_recent_insert(r, a, start);
	KUNIT_EXPECT_TRUE(test, pghot_recent_test(r, a2, start + 1));
	KUNIT_EXPECT_FALSE(test, pghot_recent_test(r, b, start + 1));
	KUNIT_EXPECT_FALSE(test, pghot_recent_test(r, c, start + 1));
	/* Its generation is over but not forgotten. */
	KUNIT_EXPECT_TRUE(test, pghot_recent_test(r, a, start + period));
	KUNIT_EXPECT_FALSE(test, pghot_recent_test(r, a, start + 2 * period));
	/* A new generation: the old one is still looked at for a period. */
	pghot_recent_insert(r, c, start + period);
	KUNIT_EXPECT_EQ(test, r->start, start + period);
	KUNIT_EXPECT_EQ(test, r->nr, 1U);
	KUNIT_EXPECT_TRUE(test, pghot_recent_test(r, a, start + period + 1));
	KUNIT_EXPECT_TRUE(test, pghot_recent_test(r, c, start + period + 1));
	KUNIT_EXPECT_FALSE(test, pghot_recent_test(r, a, start + 2 * period));
	KUNIT_EXPECT_TRUE(test, pghot_recent_test(r, c, start + 2 * period));
	/* Two generations on, a is gone from the bits too. */
	pghot_recent_insert(r, b, start + 2 * period);
	KUNIT_EXPECT_FALSE(test, pghot_recent_test(r, a, start + 2 * period));
	KUNIT_EXPECT_TRUE(test, pghot_recent_test(r, b, start + 2 * period));
}

/*
 * A full generation starts the next one; until then about 1.4% of pages
 * never promoted are taken for promoted ones (two bits of 2^16 per page,
 * 4,096 pages): a bound of 3% on a fixed set of identities.
 */
static void pghot_test_recent_full(struct kunit *test)
{
	struct pghot_recent *r = test_recent(test, jiffies);
	struct folio *f = test_folio(test, 0x3000 | FOLIO_MAPPING_ANON, 0);
	unsigned long now = r->start;
	unsigned int i, fp = 0;

	for (i = 0; i < PGHOT_RECENT_KEYS; i++) {
		f->index = i;
		pghot_recent_insert(r, f, now);
	}
	KUNIT_EXPECT_EQ(test, r->nr, (unsigned int)PGHOT_RECENT_KEYS);
	for (i = 0; i < PGHOT_RECENT_KEYS; i++) {
		f->index = i;
		KUNIT_EXPECT_TRUE(test, pghot_recent_test(r, f, now));
		f->index = PGHOT_RECENT_KEYS + i;
		fp += pghot_recent_test(r, f, now);
	}
	kunit_info(test, "%u of %u pages not promoted taken for promoted ones\n",
		   fp, PGHOT_RECENT_KEYS);
	KUNIT_EXPECT_LE(test, fp * 100, 3U * PGHOT_RECENT_KEYS);
	/* One more starts a new generation; the full one is still seen. */
	pghot_recent_insert(r, f, now);
	KUNIT_EXPECT_EQ(test, r->nr, 1U);
	f->index = 0;
	KUNIT_EXPECT_TRUE(test, pghot_recent_test(r, f, now));
}

static struct kunit_case pghot_target_test_cases[] = {
	KUNIT_CASE(pghot_test_rate_limit),
	KUNIT_CASE(pghot_test_adjust_threshold),
	KUNIT_CASE(pghot_test_recent),
	KUNIT_CASE(pghot_test_recent_full),
	{}
};

static struct kunit_suite pghot_target_test_suite = {
	.name = "pghot-target",
	.test_cases = pghot_target_test_cases,
};

kunit_test_suite(pghot_target_test_suite);

#endif /* _PGHOT_TARGET_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
