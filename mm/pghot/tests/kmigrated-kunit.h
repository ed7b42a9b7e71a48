/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the promotion rules kmigrated shares with NUMA balancing
 * (the per-target rate-limit window, the direction of threshold
 * adaptation), of how kmigrated picks a ready page's target, remembers
 * what it promoted and has reclaim make room.
 * All on private state: the node counters are only read.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_KMIGRATED_KUNIT_TEST_H
#define _PGHOT_KMIGRATED_KUNIT_TEST_H

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

/* Where a ready page goes, on a private node state. */
static void pghot_test_target_choice(struct kunit *test)
{
	int top = numa_node_id(), def = NUMA_NO_NODE, nid;
	struct pghot_ready r = { .pfn = 1 };
	struct pghot_node *pn;
	bool vetted;

	pn = kunit_kzalloc(test, sizeof(*pn), GFP_KERNEL);
	if (!pn)
		kunit_skip(test, "no memory for a node");
	pn->nid = NUMA_NO_NODE;
	if (!pghot_valid_target(top) ||
	    READ_ONCE(pghot_target_nid) != PGHOT_TARGET_AUTO)
		kunit_skip(test, "needs this CPU's node as a target and target_nid -1");
	/* Another node to be the default, if there is one. */
	for_each_node_state(nid, N_MEMORY)
		if (nid != top && pghot_valid_target(nid))
			def = nid;
	pn->target = def;

	/* The fault path's target, vetted by mpol_misplaced(). */
	r.target = top;
	r.flags = PGHOT_READY_VETTED;
	KUNIT_EXPECT_EQ(test, kmigrated_target(pn, &r, 0, &vetted), top);
	KUNIT_EXPECT_TRUE(test, vetted);
	/* A hardware hint's accessor: the same node, not vetted. */
	r.flags = 0;
	KUNIT_EXPECT_EQ(test, kmigrated_target(pn, &r, 0, &vetted), top);
	KUNIT_EXPECT_FALSE(test, vetted);
	/* No usable target: the node's default, never vetted. */
	r.target = NUMA_NO_NODE;
	r.flags = PGHOT_READY_VETTED;
	KUNIT_EXPECT_EQ(test, kmigrated_target(pn, &r, 0, &vetted), def);
	KUNIT_EXPECT_FALSE(test, vetted);
	/* A precise record's later target wins, and is not vetted. */
	if (pghot_layout->nid_bits && def != NUMA_NO_NODE) {
		u32 rec = (u32)(def + 1) << pghot_nid_shift(pghot_layout);

		r.target = top;
		KUNIT_EXPECT_EQ(test, kmigrated_target(pn, &r, rec, &vetted), def);
		KUNIT_EXPECT_FALSE(test, vetted);
	}
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

/*
 * Reclaim only for a page the fault path chose for its target: hot in its
 * entry, or since (until the request runs out).
 */
static void pghot_test_reclaim(struct kunit *test)
{
	struct pghot_ready r = { .flags = PGHOT_READY_VETTED | PGHOT_READY_RECLAIM };
	unsigned long now = -10UL;

	KUNIT_EXPECT_TRUE(test, kmigrated_reclaim(&r, true, 0, now));
	/* Sent elsewhere (target_nid, a precise record's later target). */
	KUNIT_EXPECT_FALSE(test, kmigrated_reclaim(&r, false, now + 100, now));
	/* Hot by pghot's own rule only; a hot fault since asks, for a while. */
	r.flags = PGHOT_READY_VETTED;
	KUNIT_EXPECT_FALSE(test, kmigrated_reclaim(&r, true, now, now));
	KUNIT_EXPECT_TRUE(test, kmigrated_reclaim(&r, true, now + 20, now));
	/* A hardware hint never. */
	r.flags = 0;
	KUNIT_EXPECT_FALSE(test, kmigrated_reclaim(&r, false, now + 20, now));
}

static struct kunit_case pghot_kmigrated_test_cases[] = {
	KUNIT_CASE(pghot_test_rate_limit),
	KUNIT_CASE(pghot_test_adjust_threshold),
	KUNIT_CASE(pghot_test_target_choice),
	KUNIT_CASE(pghot_test_recent),
	KUNIT_CASE(pghot_test_recent_full),
	KUNIT_CASE(pghot_test_reclaim),
	{}
};

static struct kunit_suite pghot_kmigrated_test_suite = {
	.name = "pghot-kmigrated",
	.test_cases = pghot_kmigrated_test_cases,
};

kunit_test_suite(pghot_kmigrated_test_suite);

#endif /* _PGHOT_KMIGRATED_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
