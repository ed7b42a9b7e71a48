/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the promotion rules kmigrated shares with NUMA balancing:
 * the per-target rate-limit window and the direction of threshold
 * adaptation. They run against the first node with memory and restore
 * its state; pgpromote_candidate grows by the few pages they charge.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_KMIGRATED_KUNIT_TEST_H
#define _PGHOT_KMIGRATED_KUNIT_TEST_H

#include <kunit/test.h>

struct pghot_test_nbp {
	unsigned int rl_start, th_start, threshold;
	unsigned long rl_nr_cand, th_nr_cand;
};

static void pghot_test_nbp_save(struct pglist_data *pgdat,
				struct pghot_test_nbp *s)
{
	s->rl_start = pgdat->nbp_rl_start;
	s->rl_nr_cand = pgdat->nbp_rl_nr_cand;
	s->th_start = pgdat->nbp_th_start;
	s->th_nr_cand = pgdat->nbp_th_nr_cand;
	s->threshold = pgdat->nbp_threshold;
}

static void pghot_test_nbp_restore(struct pglist_data *pgdat,
				   const struct pghot_test_nbp *s)
{
	pgdat->nbp_rl_start = s->rl_start;
	pgdat->nbp_rl_nr_cand = s->rl_nr_cand;
	pgdat->nbp_th_start = s->th_start;
	pgdat->nbp_th_nr_cand = s->th_nr_cand;
	pgdat->nbp_threshold = s->threshold;
}

static void pghot_test_rate_limit(struct kunit *test)
{
	struct pglist_data *pgdat = NODE_DATA(first_memory_node);
	unsigned int now = jiffies_to_msecs(jiffies);
	struct pghot_test_nbp saved;

	pghot_test_nbp_save(pgdat, &saved);
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
	pghot_test_nbp_restore(pgdat, &saved);
}

static void pghot_test_adjust_threshold(struct kunit *test)
{
	struct pglist_data *pgdat = NODE_DATA(first_memory_node);
	unsigned long cand = node_page_state(pgdat, PGPROMOTE_CANDIDATE);
	const unsigned int ref = 4000, period = 1000;
	struct pghot_test_nbp saved;

	pghot_test_nbp_save(pgdat, &saved);
	/* Far more candidates than the limit allows: stricter (smaller). */
	pgdat->nbp_threshold = 0;
	pgdat->nbp_th_start = jiffies_to_msecs(jiffies) - 2 * period;
	pgdat->nbp_th_nr_cand = cand - 1000;
	numa_promotion_adjust_threshold(pgdat, 10, ref, period);
	KUNIT_EXPECT_LT(test, pgdat->nbp_threshold, ref);
	KUNIT_EXPECT_GT(test, pgdat->nbp_threshold, 0U);

	/* Fewer than the limit: looser, up to twice the reference. */
	pgdat->nbp_threshold = ref;
	pgdat->nbp_th_start = jiffies_to_msecs(jiffies) - 2 * period;
	pgdat->nbp_th_nr_cand = node_page_state(pgdat, PGPROMOTE_CANDIDATE);
	numa_promotion_adjust_threshold(pgdat, 1000, ref, period);
	KUNIT_EXPECT_GT(test, pgdat->nbp_threshold, ref);
	KUNIT_EXPECT_LE(test, pgdat->nbp_threshold, 2 * ref);

	/* Inside the period nothing moves. */
	pgdat->nbp_threshold = ref;
	pgdat->nbp_th_start = jiffies_to_msecs(jiffies);
	numa_promotion_adjust_threshold(pgdat, 1000, ref, period);
	KUNIT_EXPECT_EQ(test, pgdat->nbp_threshold, ref);

	/* And the adapted value is what pghot uses for that target. */
	pgdat->nbp_threshold = 1234;
	KUNIT_EXPECT_EQ(test, pghot_effective_window_ms(first_memory_node), 1234U);
	pgdat->nbp_threshold = 0;
	KUNIT_EXPECT_EQ(test, pghot_effective_window_ms(first_memory_node),
			READ_ONCE(pghot_promote_window_ms));
	pghot_test_nbp_restore(pgdat, &saved);
}

static struct kunit_case pghot_kmigrated_test_cases[] = {
	KUNIT_CASE(pghot_test_rate_limit),
	KUNIT_CASE(pghot_test_adjust_threshold),
	{}
};

static struct kunit_suite pghot_kmigrated_test_suite = {
	.name = "pghot-kmigrated",
	.test_cases = pghot_kmigrated_test_cases,
};

kunit_test_suite(pghot_kmigrated_test_suite);

#endif /* _PGHOT_KMIGRATED_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
