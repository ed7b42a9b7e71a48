/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the hardware hint path: a full ring drops and counts,
 * and a drain delivers every accepted sample exactly once, in order.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_HWHINT_KUNIT_TEST_H
#define _PGHOT_HWHINT_KUNIT_TEST_H

#include <kunit/test.h>

static unsigned long pghot_test_seen[PGHOT_HWHINT_RING + 1];
static unsigned int pghot_test_nr_seen;

static void pghot_test_consume(const struct pghot_hwhint_sample *s)
{
	if (pghot_test_nr_seen < ARRAY_SIZE(pghot_test_seen))
		pghot_test_seen[pghot_test_nr_seen] = s->pfn;
	pghot_test_nr_seen++;
}

static void pghot_test_ring(struct kunit *test)
{
	struct pghot_hwhint_cpu *hc = kunit_kzalloc(test, sizeof(*hc), GFP_KERNEL);
	struct pghot_hwhint_sample s = { .nid = 0 };
	unsigned int i;

	if (!hc)
		kunit_skip(test, "no memory");
	INIT_KFIFO(hc->ring);
	spin_lock_init(&hc->drain_lock);

	for (i = 0; i < PGHOT_HWHINT_RING; i++) {
		s.pfn = 1000 + i;
		KUNIT_ASSERT_TRUE(test, pghot_hwhint_push(hc, &s));
	}
	s.pfn = 1;
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_push(hc, &s));

	/* A producer inside blocks a nested one. */
	local_set(&hc->producing, 1);
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_push(hc, &s));
	local_set(&hc->producing, 0);

	pghot_test_nr_seen = 0;
	KUNIT_EXPECT_EQ(test, pghot_hwhint_drain_to(hc, pghot_test_consume),
			(unsigned int)PGHOT_HWHINT_RING);
	KUNIT_ASSERT_EQ(test, pghot_test_nr_seen, (unsigned int)PGHOT_HWHINT_RING);
	for (i = 0; i < PGHOT_HWHINT_RING; i++)
		KUNIT_EXPECT_EQ(test, pghot_test_seen[i], 1000UL + i);
	/* Each sample once. */
	KUNIT_EXPECT_EQ(test, pghot_hwhint_drain_to(hc, pghot_test_consume), 0U);
	/* And the ring takes samples again. */
	KUNIT_EXPECT_TRUE(test, pghot_hwhint_push(hc, &s));
}

/* pghot_hwhint_report() on this CPU's real ring counts what it drops. */
static void pghot_test_report_drops(struct kunit *test)
{
	struct pghot_hwhint_cpu *hc;
	long dropped;
	unsigned int i;

	preempt_disable();
	hc = this_cpu_ptr(&pghot_hwhint_cpus);
	/* Whatever is queued goes where it belongs first. */
	pghot_hwhint_drain(hc);
	dropped = local_read(&hc->dropped);
	for (i = 0; i < PGHOT_HWHINT_RING; i++)
		if (!pghot_hwhint_report(i, 0, jiffies))
			break;
	KUNIT_EXPECT_EQ(test, i, (unsigned int)PGHOT_HWHINT_RING);
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_report(0, 0, jiffies));
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_report(0, 0, jiffies));
	KUNIT_EXPECT_EQ(test, local_read(&hc->dropped), dropped + 2);
	/* Take the test samples out without recording them. */
	pghot_test_nr_seen = 0;
	pghot_hwhint_drain_to(hc, pghot_test_consume);
	local_set(&hc->dropped, dropped);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, pghot_test_nr_seen, (unsigned int)PGHOT_HWHINT_RING);
}

static struct kunit_case pghot_hwhint_test_cases[] = {
	KUNIT_CASE(pghot_test_ring),
	KUNIT_CASE(pghot_test_report_drops),
	{}
};

static struct kunit_suite pghot_hwhint_test_suite = {
	.name = "pghot-hwhint",
	.test_cases = pghot_hwhint_test_cases,
};

kunit_test_suite(pghot_hwhint_test_suite);

#endif /* _PGHOT_HWHINT_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
