/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the memory policy verdict kmigrated applies to pages
 * known only from hardware hints, on private policies: NUMA balancing's
 * own. The reverse-map walk that finds the policies is covered by the
 * pghot_placement selftests.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_POLICY_KUNIT_TEST_H
#define _PGHOT_POLICY_KUNIT_TEST_H

#include <kunit/test.h>

/*
 * Exactly NUMA balancing's filter (mpol_misplaced_nid()), with node 2 as
 * the lower tier, 0 and 1 as targets: only a policy with MPOL_F_MOF moves
 * a folio, and then only where its nodes allow the accessing node.
 */
static void pghot_test_mpol(struct kunit *test)
{
	struct mempolicy pol = { };

	if (!node_state(0, N_MEMORY) || !node_state(1, N_MEMORY))
		kunit_skip(test, "needs nodes 0 and 1 with memory");

	/* No policy: the defaults move towards the accessing node. */
	KUNIT_EXPECT_TRUE(test, pghot_mpol_allows(NULL, 0, 2, 0));

	/* An explicit local policy has no MPOL_F_MOF: it never moves. */
	pol.mode = MPOL_LOCAL;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0, 2, 0));
	pol.flags = MPOL_F_MOF | MPOL_F_MORON;
	KUNIT_EXPECT_TRUE(test, pghot_mpol_allows(&pol, 0, 2, 0));

	/* numactl --membind=1,2: stays, on every node. */
	nodes_clear(pol.nodes);
	node_set(1, pol.nodes);
	node_set(2, pol.nodes);
	pol.mode = MPOL_BIND;
	pol.flags = 0;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0, 2, 0));
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0, 2, 1));
	/* numactl --balancing --membind=1,2: to node 1, not node 0. */
	pol.flags = MPOL_F_MOF | MPOL_F_MORON;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0, 2, 0));
	KUNIT_EXPECT_TRUE(test, pghot_mpol_allows(&pol, 0, 2, 1));

	/* A preferred-many mask that keeps data off node 0. */
	pol.mode = MPOL_PREFERRED_MANY;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0, 2, 0));
	KUNIT_EXPECT_TRUE(test, pghot_mpol_allows(&pol, 0, 2, 1));
	pol.flags = 0;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0, 2, 1));

	/* Preferred node 2 (slow memory on purpose), or node 0: stays. */
	nodes_clear(pol.nodes);
	node_set(2, pol.nodes);
	pol.mode = MPOL_PREFERRED;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0, 2, 0));
	nodes_clear(pol.nodes);
	node_set(0, pol.nodes);
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0, 2, 0));

	/* (Weighted) interleave over 0 and 2 keeps its pages where they are. */
	node_set(2, pol.nodes);
	pol.mode = MPOL_INTERLEAVE;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0, 2, 0));
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 1, 2, 0));
	pol.mode = MPOL_WEIGHTED_INTERLEAVE;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0, 2, 0));
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 1, 2, 0));
}

static struct kunit_case pghot_policy_test_cases[] = {
	KUNIT_CASE(pghot_test_mpol),
	{}
};

static struct kunit_suite pghot_policy_test_suite = {
	.name = "pghot-policy",
	.test_cases = pghot_policy_test_cases,
};

kunit_test_suite(pghot_policy_test_suite);

#endif /* _PGHOT_POLICY_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
