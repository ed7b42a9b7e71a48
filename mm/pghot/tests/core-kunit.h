/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of pghot_record_access() argument checking and of what it
 * ignores, with the enabled sources passed in rather than changed, and of
 * the hint faults pghot leaves to the fault path.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_CORE_KUNIT_TEST_H
#define _PGHOT_CORE_KUNIT_TEST_H

#include <kunit/test.h>

/* A vm event summed over every CPU (0 without memory to sum into). */
static unsigned long all_vm_event(enum vm_event_item item)
{
	unsigned long *events, n = 0;

	events = kmalloc_array(NR_VM_EVENT_ITEMS, sizeof(*events), GFP_KERNEL);
	if (events) {
		all_vm_events(events);
		n = events[item];
	}
	kfree(events);
	return n;
}

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

/*
 * A hint fault kmigrated cannot serve goes the fault path's way: here a
 * folio of a lower-tier node that is not on an LRU list (just allocated,
 * as one somebody holds isolated), and a target that cannot take
 * promotions. pghot must not take them (nor record them).
 */
static void pghot_test_fault_not_served(struct kunit *test)
{
	unsigned long legacy, recorded;
	struct folio *folio;
	int nid, top;

	nid = first_node(pghot_tracked_nodes);
	if (nid >= MAX_NUMNODES)
		kunit_skip(test, "no lower-tier node with records");
	top = pghot_nearest_toptier(nid);
	folio = __folio_alloc_node(GFP_HIGHUSER_MOVABLE | __GFP_THISNODE |
				   __GFP_NOWARN, 0, nid);
	if (!folio)
		kunit_skip(test, "no memory on node %d", nid);
	legacy = all_vm_event(PGHOT_HINTFAULT_LEGACY);
	recorded = all_vm_event(PGHOT_RECORDED_HINTFAULTS);
	KUNIT_EXPECT_FALSE(test, folio_test_lru(folio));
	if (top != NUMA_NO_NODE)
		KUNIT_EXPECT_FALSE(test, __pghot_hint_fault(folio, top,
							    PGHOT_FAULT_ROOM));
	/* The lower-tier node itself is no target. */
	KUNIT_EXPECT_FALSE(test,
			   __pghot_hint_fault(folio, nid, PGHOT_FAULT_COLD));
	KUNIT_EXPECT_GE(test, all_vm_event(PGHOT_HINTFAULT_LEGACY),
			legacy + 1 + (top != NUMA_NO_NODE));
	KUNIT_EXPECT_EQ(test, all_vm_event(PGHOT_RECORDED_HINTFAULTS), recorded);
	folio_put(folio);
}

static struct kunit_case pghot_core_test_cases[] = {
	KUNIT_CASE(pghot_test_bad_args),
	KUNIT_CASE(pghot_test_ignored),
	KUNIT_CASE(pghot_test_fault_not_served),
	{}
};

static struct kunit_suite pghot_core_test_suite = {
	.name = "pghot-core",
	.test_cases = pghot_core_test_cases,
};

kunit_test_suite(pghot_core_test_suite);

#endif /* _PGHOT_CORE_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
