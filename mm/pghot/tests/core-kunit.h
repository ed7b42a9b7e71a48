/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of pghot_record_access() argument checking and of what it
 * ignores, with the enabled sources passed in rather than changed.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_CORE_KUNIT_TEST_H
#define _PGHOT_CORE_KUNIT_TEST_H

#include <kunit/test.h>

static void pghot_test_bad_args(struct kunit *test)
{
	unsigned long pfn = page_to_pfn(virt_to_page(&pghot_enabled_sources));

	KUNIT_EXPECT_EQ(test, pghot_record_access(pfn, 0, PGHOT_SRC_MAX, jiffies),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pghot_record_access(pfn, 0, (enum pghot_src)-1,
						  jiffies), -EINVAL);
	KUNIT_EXPECT_EQ(test, pghot_record_access(pfn, -2, PGHOT_HINTFAULTS,
						  jiffies), -EINVAL);
	KUNIT_EXPECT_EQ(test, pghot_record_access(pfn, nr_node_ids,
						  PGHOT_HINTFAULTS, jiffies),
			-EINVAL);
}

static void pghot_test_ignored(struct kunit *test)
{
	/* Kernel image memory: not on the LRU, and not lower-tier memory. */
	unsigned long pfn = page_to_pfn(virt_to_page(&pghot_enabled_sources));

	KUNIT_EXPECT_EQ(test, pghot_record_access_in(pfn, NUMA_NO_NODE,
						     PGHOT_HWHINTS, jiffies,
						     PGHOT_SRC_MASK), -ENOENT);
	/* A PFN with no memory at all. */
	KUNIT_EXPECT_EQ(test, pghot_record_access_in(1UL << 40, NUMA_NO_NODE,
						     PGHOT_HWHINTS, jiffies,
						     PGHOT_SRC_MASK), -ENOENT);
	/* A disabled source records nothing. */
	KUNIT_EXPECT_EQ(test, pghot_record_access_in(pfn, NUMA_NO_NODE,
						     PGHOT_HWHINTS, jiffies,
						     1U << PGHOT_HINTFAULTS), -ENODEV);
	KUNIT_EXPECT_EQ(test, pghot_record_access_in(pfn, NUMA_NO_NODE,
						     PGHOT_HINTFAULTS, jiffies, 0),
			-ENODEV);
}

static struct kunit_case pghot_core_test_cases[] = {
	KUNIT_CASE(pghot_test_bad_args),
	KUNIT_CASE(pghot_test_ignored),
	{}
};

static struct kunit_suite pghot_core_test_suite = {
	.name = "pghot-core",
	.test_cases = pghot_core_test_cases,
};

kunit_test_suite(pghot_core_test_suite);

#endif /* _PGHOT_CORE_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
