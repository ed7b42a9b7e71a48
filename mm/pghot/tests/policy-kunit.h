/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the memory policy verdict kmigrated applies to pages
 * known only from hardware hints, on private policies. The reverse-map
 * walk that finds the policies is covered by the pghot_promote selftests.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_POLICY_KUNIT_TEST_H
#define _PGHOT_POLICY_KUNIT_TEST_H

#include <kunit/test.h>

static void pghot_test_mpol(struct kunit *test)
{
	struct mempolicy pol = { };

	/* No policy or the default: anywhere. */
	KUNIT_EXPECT_TRUE(test, pghot_mpol_allows(NULL, 0));
	pol.mode = MPOL_DEFAULT;
	KUNIT_EXPECT_TRUE(test, pghot_mpol_allows(&pol, 0));
	pol.mode = MPOL_LOCAL;
	KUNIT_EXPECT_TRUE(test, pghot_mpol_allows(&pol, 0));

	/* numactl --membind=1,2 (with or without --balancing): not node 0. */
	nodes_clear(pol.nodes);
	node_set(1, pol.nodes);
	node_set(2, pol.nodes);
	pol.mode = MPOL_BIND;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0));
	KUNIT_EXPECT_TRUE(test, pghot_mpol_allows(&pol, 1));
	pol.flags = MPOL_F_MOF | MPOL_F_MORON;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0));

	/* A preferred-many mask that keeps data off node 0. */
	pol.mode = MPOL_PREFERRED_MANY;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0));
	KUNIT_EXPECT_TRUE(test, pghot_mpol_allows(&pol, 2));

	/* Preferred node 2 (slow memory on purpose): stays. */
	nodes_clear(pol.nodes);
	node_set(2, pol.nodes);
	pol.mode = MPOL_PREFERRED;
	pol.flags = 0;
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 0));

	/* Interleave keeps its node set. */
	node_set(0, pol.nodes);
	pol.mode = MPOL_INTERLEAVE;
	KUNIT_EXPECT_TRUE(test, pghot_mpol_allows(&pol, 0));
	KUNIT_EXPECT_FALSE(test, pghot_mpol_allows(&pol, 1));
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
