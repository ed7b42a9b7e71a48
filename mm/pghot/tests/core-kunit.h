/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of pghot_record_access() argument checking and of what it
 * ignores.
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
	KUNIT_EXPECT_EQ(test, pghot_record_access(pfn, MAX_NUMNODES,
						  PGHOT_HINTFAULTS, jiffies),
			-EINVAL);
}

static void pghot_test_ignored(struct kunit *test)
{
	/* Kernel image memory: not on the LRU and, here, in the top tier. */
	unsigned long pfn = page_to_pfn(virt_to_page(&pghot_enabled_sources));
	unsigned int old = READ_ONCE(pghot_enabled_sources);

	WRITE_ONCE(pghot_enabled_sources, PGHOT_SRC_MASK);
	KUNIT_EXPECT_EQ(test, pghot_record_access(pfn, NUMA_NO_NODE,
						  PGHOT_HWHINTS, jiffies), -ENOENT);
	/* A PFN with no memory at all. */
	KUNIT_EXPECT_EQ(test, pghot_record_access(1UL << 40, NUMA_NO_NODE,
						  PGHOT_HWHINTS, jiffies), -ENOENT);
	/* A disabled source records nothing. */
	WRITE_ONCE(pghot_enabled_sources, 0);
	KUNIT_EXPECT_EQ(test, pghot_record_access(pfn, NUMA_NO_NODE,
						  PGHOT_HWHINTS, jiffies), -ENODEV);
	WRITE_ONCE(pghot_enabled_sources, old);
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
