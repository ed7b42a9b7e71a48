/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pghot debugfs input validation: every bad value is
 * -EINVAL, every good one is accepted.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_DEBUGFS_KUNIT_TEST_H
#define _PGHOT_DEBUGFS_KUNIT_TEST_H

#include <kunit/test.h>

static const struct pghot_tunable *pghot_test_tunable(struct kunit *test,
						      const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pghot_tunables); i++)
		if (!strcmp(pghot_tunables[i].name, name))
			return &pghot_tunables[i];
	KUNIT_FAIL(test, "no tunable %s", name);
	return NULL;
}

static void pghot_test_expect(struct kunit *test, const char *name,
			      const char *input, int err)
{
	const struct pghot_tunable *t = pghot_test_tunable(test, name);
	long val;

	if (!t)
		return;
	KUNIT_EXPECT_EQ_MSG(test, pghot_tunable_parse(t, input, strlen(input), &val),
			    err, "%s <- \"%s\"", name, input);
}

static void pghot_test_garbage(struct kunit *test)
{
	static const char * const bad[] = {
		"", "\n", "abc", "1x", "0x", "--1", "1 2", "1.5",
		"99999999999999999999999", "+", " ",
	};
	int i, j;

	for (i = 0; i < ARRAY_SIZE(pghot_tunables); i++)
		for (j = 0; j < ARRAY_SIZE(bad); j++)
			pghot_test_expect(test, pghot_tunables[i].name, bad[j],
					  -EINVAL);
}

static void pghot_test_ranges(struct kunit *test)
{
	char buf[16];

	pghot_test_expect(test, "enabled_sources", "0", 0);
	pghot_test_expect(test, "enabled_sources", "0x3", 0);
	pghot_test_expect(test, "enabled_sources", "4", -EINVAL);
	pghot_test_expect(test, "enabled_sources", "-1", -EINVAL);
	pghot_test_expect(test, "freq_threshold", "0", -EINVAL);
	pghot_test_expect(test, "freq_threshold", "1", 0);
	pghot_test_expect(test, "freq_threshold", "8", -EINVAL);
	/* The record layout bounds the threshold further. */
	snprintf(buf, sizeof(buf), "%u", pghot_freq_max(pghot_layout));
	pghot_test_expect(test, "freq_threshold", buf, 0);
	snprintf(buf, sizeof(buf), "%u", pghot_freq_max(pghot_layout) + 1);
	pghot_test_expect(test, "freq_threshold", buf, -EINVAL);
	pghot_test_expect(test, "promote_window_ms", "99", -EINVAL);
	pghot_test_expect(test, "promote_window_ms", "100", 0);
	pghot_test_expect(test, "promote_window_ms", "60000", 0);
	pghot_test_expect(test, "promote_window_ms", "60001", -EINVAL);
	pghot_test_expect(test, "kmigrated_sleep_ms", "49", -EINVAL);
	pghot_test_expect(test, "kmigrated_sleep_ms", "50", 0);
	pghot_test_expect(test, "kmigrated_sleep_ms", "1000\n", 0);
	pghot_test_expect(test, "kmigrated_sleep_ms", "1001", -EINVAL);
	pghot_test_expect(test, "kmigrated_batch_nr", "63", -EINVAL);
	pghot_test_expect(test, "kmigrated_batch_nr", "64", 0);
	pghot_test_expect(test, "kmigrated_batch_nr", "1024", 0);
	pghot_test_expect(test, "kmigrated_batch_nr", "1025", -EINVAL);
	pghot_test_expect(test, "hwhint_region_ms", "0", 0);
	pghot_test_expect(test, "hwhint_region_ms", "1", -EINVAL);
	pghot_test_expect(test, "hwhint_region_ms", "999", -EINVAL);
	pghot_test_expect(test, "hwhint_region_ms", "1000", 0);
	pghot_test_expect(test, "hwhint_region_ms", "600000", 0);
	pghot_test_expect(test, "hwhint_region_ms", "600001", -EINVAL);
	pghot_test_expect(test, "hwhint_region_ref", "0", 0);
	pghot_test_expect(test, "hwhint_region_ref", "16", 0);
	pghot_test_expect(test, "hwhint_region_ref", "17", -EINVAL);
	pghot_test_expect(test, "hwhint_region_ref", "-1", -EINVAL);
	pghot_test_expect(test, "rate_limit_MBps", "0", 0);
	pghot_test_expect(test, "rate_limit_MBps", "-1", -EINVAL);
	pghot_test_expect(test, "target_nid", "-1", 0);
	pghot_test_expect(test, "target_nid", "-2", -EINVAL);
	pghot_test_expect(test, "target_nid", "100000", -EINVAL);
}

/*
 * A target must be a node with memory in the top tier: the node of a CPU
 * with memory is one, a tracked lower-tier node or a node without memory
 * is not.
 */
static void pghot_test_target(struct kunit *test)
{
	int nid = numa_node_id();
	char buf[16];

	if (node_state(nid, N_MEMORY)) {
		snprintf(buf, sizeof(buf), "%d", nid);
		pghot_test_expect(test, "target_nid", buf, 0);
	}
	for_each_node(nid) {
		if (!pghot_node_tracked(nid) && node_state(nid, N_MEMORY))
			continue;
		snprintf(buf, sizeof(buf), "%d", nid);
		pghot_test_expect(test, "target_nid", buf, -EINVAL);
	}
	snprintf(buf, sizeof(buf), "%u", nr_node_ids);
	pghot_test_expect(test, "target_nid", buf, -EINVAL);
}

/* An embedded NUL byte is garbage, not the end of the input. */
static void pghot_test_nul(struct kunit *test)
{
	const struct pghot_tunable *t = pghot_test_tunable(test, "freq_threshold");
	static const char in[] = "1\0junk";
	long val;

	if (!t)
		return;
	KUNIT_EXPECT_EQ(test, pghot_tunable_parse(t, in, sizeof(in) - 1, &val),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pghot_tunable_parse(t, in, 1, &val), 0);
}

static struct kunit_case pghot_debugfs_test_cases[] = {
	KUNIT_CASE(pghot_test_garbage),
	KUNIT_CASE(pghot_test_ranges),
	KUNIT_CASE(pghot_test_target),
	KUNIT_CASE(pghot_test_nul),
	{}
};

static struct kunit_suite pghot_debugfs_test_suite = {
	.name = "pghot-debugfs",
	.test_cases = pghot_debugfs_test_cases,
};

kunit_test_suite(pghot_debugfs_test_suite);

#endif /* _PGHOT_DEBUGFS_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
