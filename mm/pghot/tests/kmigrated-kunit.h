/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the promotion rules kmigrated shares with NUMA balancing
 * (the per-target rate-limit window, the direction of threshold
 * adaptation), of how kmigrated picks a ready page's target, tells a
 * stale queue entry and has reclaim make room. All on private state: the
 * node counters are only read.
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

/*
 * A queue entry is good unless its page's readiness ended after it was
 * queued; past what the log holds it cannot be told. Across a wrap of the
 * sequence.
 */
static void pghot_test_entry_state(struct kunit *test)
{
	struct pghot_node *pn;
	unsigned int i;
	u32 seq;

	pn = kunit_kzalloc(test, sizeof(*pn), GFP_KERNEL);
	if (!pn)
		kunit_skip(test, "no memory for a node");
	pn->ended_seq = U32_MAX - 1;
	seq = pn->ended_seq;
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq, seq, 0),
			PGHOT_ENTRY_VALID);
	pghot_log_ended(pn, 100);
	pghot_log_ended(pn, 200);
	pghot_log_ended(pn, 300);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq, seq, 100),
			PGHOT_ENTRY_STALE);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq, seq, 300),
			PGHOT_ENTRY_STALE);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq, seq, 101),
			PGHOT_ENTRY_VALID);
	/* Queued after the end of 100 (ready again): good. */
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq,
						seq + 1, 100), PGHOT_ENTRY_VALID);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq,
						pn->ended_seq, 300), PGHOT_ENTRY_VALID);
	/* As many ends as the log holds: still told. */
	for (i = 3; i < PGHOT_ENDED_LOG; i++)
		pghot_log_ended(pn, 1000 + i);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq, seq, 100),
			PGHOT_ENTRY_STALE);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq, seq, 101),
			PGHOT_ENTRY_VALID);
	/* One more: the end of 100 is gone, so it cannot be told. */
	pghot_log_ended(pn, 2000);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq, seq, 101),
			PGHOT_ENTRY_UNSURE);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq,
						seq + 1, 200), PGHOT_ENTRY_STALE);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(pn->ended, pn->ended_seq,
						seq + 1, 2000), PGHOT_ENTRY_STALE);
}

/* The periods of a target's recent promotions, across a jiffies wrap. */
static void pghot_test_recent(struct kunit *test)
{
	const unsigned long period = msecs_to_jiffies(PGHOT_RECENT_MS);
	unsigned long start = -(period / 2);	/* wraps within the period */
	struct pghot_target t = { .recent_start = start };

	t.recent[0] = 10;
	kmigrated_recent_age(&t, start + period - 1);
	KUNIT_EXPECT_EQ(test, t.recent[0], 10UL);
	KUNIT_EXPECT_EQ(test, t.recent[1], 0UL);
	/* The next period: this one becomes the last. */
	kmigrated_recent_age(&t, start + period);
	KUNIT_EXPECT_EQ(test, t.recent[0], 0UL);
	KUNIT_EXPECT_EQ(test, t.recent[1], 10UL);
	KUNIT_EXPECT_EQ(test, t.recent_start, start + period);
	/* Two periods on with nothing promoted: both are forgotten. */
	t.recent[0] = 5;
	kmigrated_recent_age(&t, start + 3 * period);
	KUNIT_EXPECT_EQ(test, t.recent[0], 0UL);
	KUNIT_EXPECT_EQ(test, t.recent[1], 0UL);
	/* A period that started late keeps its pages for a whole period. */
	t.recent[0] = 7;
	kmigrated_recent_age(&t, start + 4 * period - 1);
	KUNIT_EXPECT_EQ(test, t.recent[0], 7UL);
	kmigrated_recent_age(&t, start + 5 * period - 1);
	KUNIT_EXPECT_EQ(test, t.recent[1], 7UL);
	/* Refused during the period that ends: nothing is forgotten. */
	t.recent[0] = 3;
	t.refused = true;
	kmigrated_recent_age(&t, start + 6 * period - 1);
	KUNIT_EXPECT_EQ(test, t.recent[0], 0UL);
	KUNIT_EXPECT_EQ(test, t.recent[1], 10UL);
	KUNIT_EXPECT_FALSE(test, t.refused);
	/* Not refused in the next one: the older pages age out. */
	kmigrated_recent_age(&t, start + 7 * period - 1);
	KUNIT_EXPECT_EQ(test, t.recent[1], 0UL);
	/* Refused, then nothing asked for two periods: all forgotten. */
	t.recent[0] = 4;
	t.refused = true;
	kmigrated_recent_age(&t, start + 9 * period);
	KUNIT_EXPECT_EQ(test, t.recent[0] + t.recent[1], 0UL);
}

/* Pages that left the target's LRU lists are taken off, oldest first. */
static void pghot_test_recent_drop(struct kunit *test)
{
	struct pghot_target t = { .recent = { 5, 10 } };

	kmigrated_recent_drop(&t, 4);
	KUNIT_EXPECT_EQ(test, t.recent[1], 6UL);
	KUNIT_EXPECT_EQ(test, t.recent[0], 5UL);
	kmigrated_recent_drop(&t, 8);
	KUNIT_EXPECT_EQ(test, t.recent[1], 0UL);
	KUNIT_EXPECT_EQ(test, t.recent[0], 3UL);
	kmigrated_recent_drop(&t, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, t.recent[0] + t.recent[1], 0UL);
}

/* Reclaim is worth it only while others outnumber our recent pages. */
static void pghot_test_lru_others(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, kmigrated_lru_mostly_others(1, 0));
	KUNIT_EXPECT_FALSE(test, kmigrated_lru_mostly_others(0, 0));
	KUNIT_EXPECT_TRUE(test, kmigrated_lru_mostly_others(201, 100));
	KUNIT_EXPECT_FALSE(test, kmigrated_lru_mostly_others(200, 100));
	/* Ours may exceed what is left on the lists (demoted, freed). */
	KUNIT_EXPECT_FALSE(test, kmigrated_lru_mostly_others(50, 100));
	KUNIT_EXPECT_TRUE(test,
			  kmigrated_lru_mostly_others(ULONG_MAX, ULONG_MAX / 2));
	KUNIT_EXPECT_FALSE(test,
			   kmigrated_lru_mostly_others(ULONG_MAX - 1, ULONG_MAX / 2));
}

static struct kunit_case pghot_kmigrated_test_cases[] = {
	KUNIT_CASE(pghot_test_rate_limit),
	KUNIT_CASE(pghot_test_adjust_threshold),
	KUNIT_CASE(pghot_test_target_choice),
	KUNIT_CASE(pghot_test_entry_state),
	KUNIT_CASE(pghot_test_recent),
	KUNIT_CASE(pghot_test_recent_drop),
	KUNIT_CASE(pghot_test_lru_others),
	{}
};

static struct kunit_suite pghot_kmigrated_test_suite = {
	.name = "pghot-kmigrated",
	.test_cases = pghot_kmigrated_test_cases,
};

kunit_test_suite(pghot_kmigrated_test_suite);

#endif /* _PGHOT_KMIGRATED_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
