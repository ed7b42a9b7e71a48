/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the ready queue: how a dequeued entry is told stale (the
 * log of ended readiness), and the marks kmigrated holds scanned pages
 * back by. On private queues.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_QUEUE_KUNIT_TEST_H
#define _PGHOT_QUEUE_KUNIT_TEST_H

#include <kunit/test.h>

/*
 * A queue entry is good unless its page's readiness ended after it was
 * queued; past what the log holds it cannot be told. Across a wrap of the
 * sequence.
 */
static void pghot_test_entry_state(struct kunit *test)
{
	struct pghot_queue *q;
	unsigned int i;
	u32 seq;

	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	if (!q)
		kunit_skip(test, "no memory for a queue");
	q->ended_seq = U32_MAX - 1;
	seq = q->ended_seq;
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq, seq, 0),
			PGHOT_ENTRY_VALID);
	pghot_log_ended(q, 100);
	pghot_log_ended(q, 200);
	pghot_log_ended(q, 300);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq, seq, 100),
			PGHOT_ENTRY_STALE);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq, seq, 300),
			PGHOT_ENTRY_STALE);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq, seq, 101),
			PGHOT_ENTRY_VALID);
	/* Queued after the end of 100 (ready again): good. */
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq,
						seq + 1, 100), PGHOT_ENTRY_VALID);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq,
						q->ended_seq, 300), PGHOT_ENTRY_VALID);
	/* As many ends as the log holds: still told. */
	for (i = 3; i < PGHOT_ENDED_LOG; i++)
		pghot_log_ended(q, 1000 + i);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq, seq, 100),
			PGHOT_ENTRY_STALE);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq, seq, 101),
			PGHOT_ENTRY_VALID);
	/* One more: the end of 100 is gone, so it cannot be told. */
	pghot_log_ended(q, 2000);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq, seq, 101),
			PGHOT_ENTRY_UNSURE);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq,
						seq + 1, 200), PGHOT_ENTRY_STALE);
	KUNIT_EXPECT_EQ(test, pghot_entry_state(q->ended, q->ended_seq,
						seq + 1, 2000), PGHOT_ENTRY_STALE);
}

/*
 * A mark is passed once the consumer has taken every entry queued before
 * it, whatever was queued after; refused entries do not count. Across a
 * wrap of the sequences.
 */
static void pghot_test_queue_passed(struct kunit *test)
{
	struct pghot_ready r = { .target = NUMA_NO_NODE }, out[4];
	struct pghot_queue *q;
	unsigned int len;
	u32 mark;

	q = pghot_queue_alloc(NUMA_NO_NODE, 4);
	if (!q)
		kunit_skip(test, "no memory for a queue");
	q->queued_seq = U32_MAX - 1;
	q->taken_seq = U32_MAX - 1;
	KUNIT_EXPECT_TRUE(test, pghot_queue_passed(q, pghot_queue_mark(q)));
	for (r.pfn = 1; r.pfn <= 3; r.pfn++)
		KUNIT_EXPECT_EQ(test, pghot_queue_in(q, &r, 0, &len), 1U);
	KUNIT_EXPECT_EQ(test, len, 3U);
	mark = pghot_queue_mark(q);
	KUNIT_EXPECT_EQ(test, mark, 1U);
	KUNIT_EXPECT_FALSE(test, pghot_queue_passed(q, mark));
	KUNIT_EXPECT_EQ(test, pghot_queue_take(q, out, 2), 2U);
	KUNIT_EXPECT_EQ(test, out[1].pfn, 2UL);
	KUNIT_EXPECT_FALSE(test, pghot_queue_passed(q, mark));
	/* Queued after the mark: does not hold it back. */
	r.pfn = 4;
	KUNIT_EXPECT_EQ(test, pghot_queue_in(q, &r, 0, &len), 1U);
	/* Refused (two queued, at most two wanted): not counted. */
	r.pfn = 5;
	KUNIT_EXPECT_EQ(test, pghot_queue_in(q, &r, 2, &len), 0U);
	KUNIT_EXPECT_EQ(test, len, 2U);
	KUNIT_EXPECT_EQ(test, pghot_queue_take(q, out, 1), 1U);
	KUNIT_EXPECT_EQ(test, out[0].pfn, 3UL);
	KUNIT_EXPECT_TRUE(test, pghot_queue_passed(q, mark));
	mark = pghot_queue_mark(q);
	KUNIT_EXPECT_FALSE(test, pghot_queue_passed(q, mark));
	KUNIT_EXPECT_EQ(test, pghot_queue_take(q, out, 4), 1U);
	KUNIT_EXPECT_EQ(test, out[0].pfn, 4UL);
	KUNIT_EXPECT_TRUE(test, pghot_queue_passed(q, mark));
	pghot_queue_free(q);
}

static struct kunit_case pghot_queue_test_cases[] = {
	KUNIT_CASE(pghot_test_entry_state),
	KUNIT_CASE(pghot_test_queue_passed),
	{}
};

static struct kunit_suite pghot_queue_test_suite = {
	.name = "pghot-queue",
	.test_cases = pghot_queue_test_cases,
};

kunit_test_suite(pghot_queue_test_suite);

#endif /* _PGHOT_QUEUE_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
