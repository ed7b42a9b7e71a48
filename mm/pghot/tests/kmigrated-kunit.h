/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of how kmigrated picks a ready page's target and when it has
 * reclaim make room. All on private state.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_KMIGRATED_KUNIT_TEST_H
#define _PGHOT_KMIGRATED_KUNIT_TEST_H

#include <kunit/test.h>

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
	KUNIT_CASE(pghot_test_target_choice),
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
