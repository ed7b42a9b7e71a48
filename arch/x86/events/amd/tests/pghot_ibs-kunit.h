/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the IBS hardware hint filter on synthetic samples:
 * DRAM and CXL loads, cache hits, stores, invalid physical addresses,
 * kernel addresses and ops that are neither loads nor stores.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_IBS_KUNIT_TEST_H
#define _PGHOT_IBS_KUNIT_TEST_H

#include <kunit/test.h>

/* A user-space load that the IBS driver decoded as coming from @lvl. */
static struct perf_sample_data pghot_ibs_sample(u64 op, u64 lvl)
{
	struct perf_sample_data data = {
		.sample_flags = PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_SRC |
				PERF_SAMPLE_ADDR,
		.phys_addr = 0x12345000,
		.addr = 0x7f0000001000,
	};

	data.data_src.val = PERF_MEM_NA;
	data.data_src.mem_op = op;
	data.data_src.mem_lvl_num = lvl;
	return data;
}

static void pghot_ibs_test_sources(struct kunit *test)
{
	struct perf_sample_data d;

	d = pghot_ibs_sample(PERF_MEM_OP_LOAD, PERF_MEM_LVLNUM_RAM);
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, false), PGHOT_IBS_DRAM);
	d = pghot_ibs_sample(PERF_MEM_OP_LOAD, PERF_MEM_LVLNUM_CXL);
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, false), PGHOT_IBS_EXTMEM);
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, true), PGHOT_IBS_EXTMEM);
}

static void pghot_ibs_test_cache_hits(struct kunit *test)
{
	static const u64 caches[] = {
		PERF_MEM_LVLNUM_L1, PERF_MEM_LVLNUM_L2, PERF_MEM_LVLNUM_L3,
		PERF_MEM_LVLNUM_ANY_CACHE, PERF_MEM_LVLNUM_LFB,
	};
	struct perf_sample_data d;
	int i;

	for (i = 0; i < ARRAY_SIZE(caches); i++) {
		d = pghot_ibs_sample(PERF_MEM_OP_LOAD, caches[i]);
		KUNIT_EXPECT_EQ_MSG(test, pghot_ibs_classify(&d, true, true),
				    PGHOT_IBS_REJECT, "level %llu", caches[i]);
	}
}

/* Stores report no data source; only the L3-miss filter vouches for them. */
static void pghot_ibs_test_stores(struct kunit *test)
{
	struct perf_sample_data d = pghot_ibs_sample(PERF_MEM_OP_STORE,
						     PERF_MEM_LVLNUM_NA);

	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, true), PGHOT_IBS_MEMORY);
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, false), PGHOT_IBS_REJECT);
}

static void pghot_ibs_test_rejects(struct kunit *test)
{
	struct perf_sample_data d;

	/* No valid physical address. */
	d = pghot_ibs_sample(PERF_MEM_OP_LOAD, PERF_MEM_LVLNUM_RAM);
	d.sample_flags &= ~PERF_SAMPLE_PHYS_ADDR;
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, true), PGHOT_IBS_REJECT);
	d = pghot_ibs_sample(PERF_MEM_OP_LOAD, PERF_MEM_LVLNUM_RAM);
	d.phys_addr = 0;
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, true), PGHOT_IBS_REJECT);
	/* Kernel data address, or an op run in the kernel. */
	d = pghot_ibs_sample(PERF_MEM_OP_LOAD, PERF_MEM_LVLNUM_RAM);
	d.addr = (u64)TASK_SIZE_MAX + PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, true), PGHOT_IBS_REJECT);
	d = pghot_ibs_sample(PERF_MEM_OP_LOAD, PERF_MEM_LVLNUM_RAM);
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, false, true), PGHOT_IBS_REJECT);
	/* Neither a load nor a store. */
	d = pghot_ibs_sample(PERF_MEM_OP_NA, PERF_MEM_LVLNUM_RAM);
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, true), PGHOT_IBS_REJECT);
	d = pghot_ibs_sample(PERF_MEM_OP_EXEC, PERF_MEM_LVLNUM_RAM);
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, true), PGHOT_IBS_REJECT);
	/* No data source decoded at all. */
	d = pghot_ibs_sample(PERF_MEM_OP_LOAD, PERF_MEM_LVLNUM_RAM);
	d.sample_flags &= ~PERF_SAMPLE_DATA_SRC;
	KUNIT_EXPECT_EQ(test, pghot_ibs_classify(&d, true, true), PGHOT_IBS_REJECT);
}

/* No IBS here (or in any VM): enabling fails cleanly and leaves nothing armed. */
static void pghot_ibs_test_no_hardware(struct kunit *test)
{
	if (get_ibs_caps())
		kunit_skip(test, "this CPU has IBS");
	KUNIT_EXPECT_EQ(test, pghot_ibs_enabled_set(NULL, 1), -ENODEV);
	KUNIT_EXPECT_FALSE(test, pghot_ibs_armed);
	KUNIT_EXPECT_EQ(test, pghot_ibs_enabled_set(NULL, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, pghot_ibs_enabled_set(NULL, 0), 0);
}

static struct kunit_case pghot_ibs_test_cases[] = {
	KUNIT_CASE(pghot_ibs_test_sources),
	KUNIT_CASE(pghot_ibs_test_cache_hits),
	KUNIT_CASE(pghot_ibs_test_stores),
	KUNIT_CASE(pghot_ibs_test_rejects),
	KUNIT_CASE(pghot_ibs_test_no_hardware),
	{}
};

static struct kunit_suite pghot_ibs_test_suite = {
	.name = "pghot-ibs",
	.test_cases = pghot_ibs_test_cases,
};

kunit_test_suite(pghot_ibs_test_suite);

#endif /* _PGHOT_IBS_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
