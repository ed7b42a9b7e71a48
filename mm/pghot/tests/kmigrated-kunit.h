/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the promotion rules kmigrated shares with NUMA balancing:
 * the per-target rate-limit window and the direction of threshold
 * adaptation. They run against the first node with memory and restore
 * its state; pgpromote_candidate grows by the few pages they charge.
 * And of kmigrated's own backoff from a demoting target, on a private
 * target state with a made-up clock.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_KMIGRATED_KUNIT_TEST_H
#define _PGHOT_KMIGRATED_KUNIT_TEST_H

#include <kunit/test.h>

static void pghot_test_rate_limit(struct kunit *test)
{
	struct pglist_data *pgdat = NODE_DATA(first_memory_node);
	unsigned int now = jiffies_to_msecs(jiffies);
	unsigned long saved_nr_cand = pgdat->nbp_rl_nr_cand;
	unsigned int saved_start = pgdat->nbp_rl_start;

	/*
	 * Batches larger than any per-cpu stat threshold, so the node
	 * counter the limit reads is exact. The batch that opens a window
	 * is not charged to it, as in NUMA balancing.
	 */
	pgdat->nbp_rl_start = now - 2 * MSEC_PER_SEC;
	KUNIT_EXPECT_FALSE(test, numa_promotion_rate_limit(pgdat, 500, 200));
	KUNIT_EXPECT_FALSE(test, numa_promotion_rate_limit(pgdat, 500, 200));
	KUNIT_EXPECT_FALSE(test, numa_promotion_rate_limit(pgdat, 500, 200));
	/* 600 candidates in the window now: over the limit. */
	KUNIT_EXPECT_TRUE(test, numa_promotion_rate_limit(pgdat, 500, 200));
	/* A new window opens the budget again. */
	pgdat->nbp_rl_start = jiffies_to_msecs(jiffies) - 2 * MSEC_PER_SEC;
	KUNIT_EXPECT_FALSE(test, numa_promotion_rate_limit(pgdat, 500, 200));
	pgdat->nbp_rl_start = saved_start;
	pgdat->nbp_rl_nr_cand = saved_nr_cand;
}

static void pghot_test_adjust_threshold(struct kunit *test)
{
	struct pglist_data *pgdat = NODE_DATA(first_memory_node);
	unsigned long cand = node_page_state(pgdat, PGPROMOTE_CANDIDATE);
	struct pghot_target saved = pghot_targets[first_memory_node];
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

	/* The adapted window is what pghot uses for that target. */
	pghot_targets[first_memory_node].window_ms = 1234;
	KUNIT_EXPECT_EQ(test, pghot_effective_window_ms(first_memory_node), 1234U);
	pghot_targets[first_memory_node].window_ms = 0;
	KUNIT_EXPECT_EQ(test, pghot_effective_window_ms(first_memory_node),
			READ_ONCE(pghot_promote_window_ms));
	pghot_targets[first_memory_node] = saved;
}

static void pghot_test_backoff(struct kunit *test)
{
	const unsigned long period = msecs_to_jiffies(PGHOT_BACKOFF_PERIOD_MS);
	/* Close to a jiffies wrap, so the comparisons must survive it. */
	unsigned long now = -3 * period, demoted = 100;
	struct pghot_target t = { };
	unsigned int expect;

	/* The first look only takes the reference. */
	KUNIT_EXPECT_FALSE(test, pghot_backoff(&t, demoted, now));
	/* Nothing is looked at again within the period. */
	KUNIT_EXPECT_FALSE(test, pghot_backoff(&t, demoted + 5, now + period - 1));
	/* A period with demotions: pause for one period. */
	now += period;
	demoted += 5;
	KUNIT_EXPECT_TRUE(test, pghot_backoff(&t, demoted, now));
	KUNIT_EXPECT_EQ(test, t.backoff_ms, PGHOT_BACKOFF_PERIOD_MS);
	KUNIT_EXPECT_TRUE(test, pghot_backoff(&t, demoted + 7, now + period - 1));

	/*
	 * Demotions during the pause are not held against the next period:
	 * the pause ends on time and only takes the reference again.
	 */
	now += period;
	demoted += 7;
	KUNIT_EXPECT_FALSE(test, pghot_backoff(&t, demoted, now));

	/* Demoting again after each pause: pauses double up to the cap. */
	for (expect = 2 * PGHOT_BACKOFF_PERIOD_MS;
	     expect <= 2 * PGHOT_BACKOFF_MS_MAX; expect *= 2) {
		now += period;
		demoted++;
		KUNIT_EXPECT_TRUE(test, pghot_backoff(&t, demoted, now));
		KUNIT_EXPECT_EQ(test, t.backoff_ms,
				min(expect, (unsigned int)PGHOT_BACKOFF_MS_MAX));
		KUNIT_EXPECT_TRUE(test, time_before(now, t.resume));
		now = t.resume;
		KUNIT_EXPECT_FALSE(test, pghot_backoff(&t, demoted, now));
	}

	/* Quiet periods halve the next pause. */
	now += period;
	KUNIT_EXPECT_FALSE(test, pghot_backoff(&t, demoted, now));
	KUNIT_EXPECT_EQ(test, t.backoff_ms, PGHOT_BACKOFF_MS_MAX / 2);
	now += period;
	KUNIT_EXPECT_FALSE(test, pghot_backoff(&t, demoted, now));
	KUNIT_EXPECT_EQ(test, t.backoff_ms, PGHOT_BACKOFF_MS_MAX / 4);

	/* No pause on: free space ended the backoff (backoff_ms 0). */
	now += period;
	demoted++;
	KUNIT_EXPECT_TRUE(test, pghot_backoff(&t, demoted, now));
	t.backoff_ms = 0;
	KUNIT_EXPECT_FALSE(test, pghot_backoff(&t, demoted, now + 1));
}

static struct kunit_case pghot_kmigrated_test_cases[] = {
	KUNIT_CASE(pghot_test_rate_limit),
	KUNIT_CASE(pghot_test_adjust_threshold),
	KUNIT_CASE(pghot_test_backoff),
	{}
};

static struct kunit_suite pghot_kmigrated_test_suite = {
	.name = "pghot-kmigrated",
	.test_cases = pghot_kmigrated_test_cases,
};

kunit_test_suite(pghot_kmigrated_test_suite);

#endif /* _PGHOT_KMIGRATED_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
