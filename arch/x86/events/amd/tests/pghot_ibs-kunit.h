/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the IBS provider at the register level: raw IBS_OP_DATA2,
 * IBS_OP_DATA3, IBS_DC_LINADDR and IBS_DC_PHYSADDR values, written with
 * the bit positions of the AMD documentation (not the kernel's unions),
 * go through the IBS driver's own decoder, perf_ibs_parse_ld_st_data(),
 * with Zen 2/3 and Zen 4 capabilities, then through the provider's
 * filter. Also: the perf_event_attr the provider asks for, the default
 * period each kind of CPU gets, the per-CPU state check after arming, a
 * CPU that perf refuses coming online all the same, the knob parser, and
 * enabling on a CPU without IBS. None of it touches a live event.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_IBS_KUNIT_TEST_H
#define _PGHOT_IBS_KUNIT_TEST_H

#include <kunit/test.h>

/* IBS_OP_DATA3, MSRC001_1037 */
#define T_LD_OP			BIT_ULL(0)
#define T_ST_OP			BIT_ULL(1)
#define T_DC_MISS		BIT_ULL(7)
#define T_DC_UC_MEM_ACC		BIT_ULL(14)
#define T_DC_LIN_ADDR_VALID	BIT_ULL(17)
#define T_DC_PHY_ADDR_VALID	BIT_ULL(18)
#define T_L2_MISS		BIT_ULL(20)
/* IBS_OP_DATA2, MSRC001_1036: DataSrc[2:0], RmtNode 4, DataSrcHi[7:6] (Zen 4) */
#define T_SRC(lo)		((u64)(lo) & 0x7)
#define T_RMT_NODE		BIT_ULL(4)
#define T_SRC_HI(hi)		(((u64)(hi) & 0x3) << 6)
/* Zen 4: DataSrc is {DataSrcHi, DataSrc[2:0]}, five bits */
#define T_Z4_LOC_CACHE		T_SRC(1)
#define T_Z4_NEAR_CCX		T_SRC(2)
#define T_Z4_DRAM		T_SRC(3)
#define T_Z4_FAR_CCX		T_SRC(5)
#define T_Z4_PMEM		T_SRC(6)
#define T_Z4_IO			T_SRC(7)
#define T_Z4_EXT_MEM		(T_SRC_HI(1) | T_SRC(0))	/* 8 */
#define T_Z4_PEER_AGENT		(T_SRC_HI(1) | T_SRC(4))	/* 12 */

/* CPUID Fn8000_001B_EAX */
#define T_CAPS_OPSAM		BIT(2)
#define T_CAPS_OPCNT		BIT(4)
#define T_CAPS_OPCNTEXT		BIT(6)
#define T_CAPS_ZEN4		BIT(11)		/* L3MissOnly, DataSrcHi */
#define T_CAPS_BIT63_FILTER	BIT(15)
/* Zen 2/3: IBSFFV, FetchSam, OpSam, RdWrOpCnt, OpCnt, BrnTrgt, OpCntExt, ... */
#define T_CAPS_ZEN3		(GENMASK(10, 0))
#define T_CAPS_ZEN4_ALL		(T_CAPS_ZEN3 | T_CAPS_ZEN4)

/* IbsOpCtl, MSRC001_1033 */
#define T_OP_L3_MISS_ONLY	BIT_ULL(16)
#define T_OP_CNT_CTL		BIT_ULL(19)

#define T_USER_LIN		0x7f1234567008ULL
#define T_KERNEL_LIN		0xffff888012345008ULL
#define T_PHYS			0x1234567008ULL

/* A cacheable load that missed L1 and L2, both addresses valid. */
#define T_MISS_LOAD	(T_LD_OP | T_DC_MISS | T_L2_MISS | \
			 T_DC_LIN_ADDR_VALID | T_DC_PHY_ADDR_VALID)
#define T_MISS_STORE	(T_ST_OP | T_DC_MISS | T_L2_MISS | \
			 T_DC_LIN_ADDR_VALID | T_DC_PHY_ADDR_VALID)

/* Decode raw registers the way the driver's NMI handler does. */
static void pghot_ibs_decode(u32 caps, u64 data2, u64 data3, u64 lin,
			     u64 phys, struct perf_sample_data *data)
{
	struct perf_ibs_data ibs = { .caps = caps };
	struct perf_event_attr attr;

	pghot_ibs_build_attr(&attr, caps, 0, 0x10000, false, true);
	ibs.regs[MSR_AMD64_IBSOPDATA2 - MSR_AMD64_IBSOPCTL] = data2;
	ibs.regs[MSR_AMD64_IBSOPDATA3 - MSR_AMD64_IBSOPCTL] = data3;
	ibs.regs[MSR_AMD64_IBSDCLINAD - MSR_AMD64_IBSOPCTL] = lin;
	ibs.regs[MSR_AMD64_IBSDCPHYSAD - MSR_AMD64_IBSOPCTL] = phys;
	perf_sample_data_init(data, 0, 0);
	perf_ibs_parse_ld_st_data(attr.sample_type, &ibs, data);
}

struct pghot_ibs_reg_case {
	const char *what;
	u32 caps;
	u64 data2, data3, lin;
	bool kernel_op;		/* the op ran in the kernel */
	bool all_modes;		/* user_only=0 */
	bool no_l3miss;		/* armed without the L3-miss filter */
	enum pghot_ibs_class want;
};

static const struct pghot_ibs_reg_case pghot_ibs_reg_cases[] = {
	/* Zen 4: five-bit DataSrc. */
	{ "zen4 dram", T_CAPS_ZEN4_ALL, T_Z4_DRAM, T_MISS_LOAD, T_USER_LIN,
	  .want = PGHOT_IBS_DRAM_LOCAL },
	{ "zen4 remote dram", T_CAPS_ZEN4_ALL, T_Z4_DRAM | T_RMT_NODE, T_MISS_LOAD,
	  T_USER_LIN, .want = PGHOT_IBS_DRAM_REMOTE },
	{ "zen4 extension memory", T_CAPS_ZEN4_ALL, T_Z4_EXT_MEM, T_MISS_LOAD,
	  T_USER_LIN, .want = PGHOT_IBS_EXTMEM },
	{ "zen4 remote extension memory", T_CAPS_ZEN4_ALL, T_Z4_EXT_MEM | T_RMT_NODE,
	  T_MISS_LOAD, T_USER_LIN, .want = PGHOT_IBS_EXTMEM },
	{ "zen4 local cache", T_CAPS_ZEN4_ALL, T_Z4_LOC_CACHE, T_MISS_LOAD, T_USER_LIN },
	{ "zen4 near ccx cache", T_CAPS_ZEN4_ALL, T_Z4_NEAR_CCX, T_MISS_LOAD, T_USER_LIN },
	{ "zen4 far ccx cache", T_CAPS_ZEN4_ALL, T_Z4_FAR_CCX, T_MISS_LOAD, T_USER_LIN },
	{ "zen4 pmem", T_CAPS_ZEN4_ALL, T_Z4_PMEM, T_MISS_LOAD, T_USER_LIN },
	{ "zen4 io", T_CAPS_ZEN4_ALL, T_Z4_IO, T_MISS_LOAD, T_USER_LIN },
	{ "zen4 peer agent memory", T_CAPS_ZEN4_ALL, T_Z4_PEER_AGENT, T_MISS_LOAD,
	  T_USER_LIN },
	{ "zen4 no data source", T_CAPS_ZEN4_ALL, 0, T_MISS_LOAD, T_USER_LIN },
	{ "zen4 DataSrcHi counts", T_CAPS_ZEN4_ALL, T_SRC_HI(1) | T_SRC(3),
	  T_MISS_LOAD, T_USER_LIN },
	{ "zen4 uncached", T_CAPS_ZEN4_ALL, T_Z4_DRAM,
	  T_MISS_LOAD | T_DC_UC_MEM_ACC, T_USER_LIN },
	{ "zen4 l1 hit", T_CAPS_ZEN4_ALL, T_Z4_DRAM, T_MISS_LOAD & ~T_DC_MISS,
	  T_USER_LIN },
	{ "zen4 l2 hit", T_CAPS_ZEN4_ALL, T_Z4_DRAM, T_MISS_LOAD & ~T_L2_MISS,
	  T_USER_LIN },
	{ "zen4 physical without linear", T_CAPS_ZEN4_ALL, T_Z4_DRAM,
	  T_MISS_LOAD & ~T_DC_LIN_ADDR_VALID, T_USER_LIN },
	{ "zen4 no physical", T_CAPS_ZEN4_ALL, T_Z4_DRAM,
	  T_MISS_LOAD & ~T_DC_PHY_ADDR_VALID, T_USER_LIN },
	{ "zen4 kernel address", T_CAPS_ZEN4_ALL, T_Z4_DRAM, T_MISS_LOAD,
	  T_KERNEL_LIN },
	{ "zen4 neither load nor store", T_CAPS_ZEN4_ALL, T_Z4_DRAM,
	  T_MISS_LOAD & ~T_LD_OP, T_USER_LIN },
	/* Stores: no data source; only the L3-miss filter vouches for them. */
	{ "zen4 store missed", T_CAPS_ZEN4_ALL, 0, T_MISS_STORE, T_USER_LIN,
	  .want = PGHOT_IBS_STORE },
	{ "zen4 store, no l3 filter", T_CAPS_ZEN4_ALL, 0, T_MISS_STORE, T_USER_LIN,
	  .no_l3miss = true },
	{ "zen4 store l1 hit", T_CAPS_ZEN4_ALL, 0, T_MISS_STORE & ~T_DC_MISS,
	  T_USER_LIN },
	{ "zen4 store l2 hit", T_CAPS_ZEN4_ALL, 0, T_MISS_STORE & ~T_L2_MISS,
	  T_USER_LIN },
	{ "zen4 store uncached", T_CAPS_ZEN4_ALL, 0, T_MISS_STORE | T_DC_UC_MEM_ACC,
	  T_USER_LIN },
	/* user_only: the mode of the op, and what 0 means. */
	{ "kernel op, user_only", T_CAPS_ZEN4_ALL, T_Z4_DRAM, T_MISS_LOAD,
	  T_USER_LIN, .kernel_op = true },
	{ "kernel op on user memory", T_CAPS_ZEN4_ALL, T_Z4_EXT_MEM, T_MISS_LOAD,
	  T_USER_LIN, .kernel_op = true, .all_modes = true, .want = PGHOT_IBS_EXTMEM },
	{ "kernel op on kernel memory", T_CAPS_ZEN4_ALL, T_Z4_EXT_MEM, T_MISS_LOAD,
	  T_KERNEL_LIN, .kernel_op = true, .all_modes = true },
	/* Zen 2/3: three-bit DataSrc, no L3-miss filter. */
	{ "zen3 dram", T_CAPS_ZEN3, T_SRC(3), T_MISS_LOAD, T_USER_LIN,
	  .no_l3miss = true, .want = PGHOT_IBS_DRAM_LOCAL },
	{ "zen3 remote dram", T_CAPS_ZEN3, T_SRC(3) | T_RMT_NODE, T_MISS_LOAD,
	  T_USER_LIN, .no_l3miss = true, .want = PGHOT_IBS_DRAM_REMOTE },
	{ "zen3 ignores bits 7:6", T_CAPS_ZEN3, T_SRC_HI(1) | T_SRC(3), T_MISS_LOAD,
	  T_USER_LIN, .no_l3miss = true, .want = PGHOT_IBS_DRAM_LOCAL },
	{ "zen3 local cache", T_CAPS_ZEN3, T_SRC(2), T_MISS_LOAD, T_USER_LIN,
	  .no_l3miss = true },
	{ "zen3 remote cache", T_CAPS_ZEN3, T_SRC(4), T_MISS_LOAD, T_USER_LIN,
	  .no_l3miss = true },
	{ "zen3 io", T_CAPS_ZEN3, T_SRC(7), T_MISS_LOAD, T_USER_LIN,
	  .no_l3miss = true },
	{ "zen3 no data source", T_CAPS_ZEN3, 0, T_MISS_LOAD, T_USER_LIN,
	  .no_l3miss = true },
	{ "zen3 physical without linear", T_CAPS_ZEN3, T_SRC(3),
	  T_MISS_LOAD & ~T_DC_LIN_ADDR_VALID, T_USER_LIN, .no_l3miss = true },
	{ "zen3 store", T_CAPS_ZEN3, 0, T_MISS_STORE, T_USER_LIN,
	  .no_l3miss = true },
};

static void pghot_ibs_test_registers(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pghot_ibs_reg_cases); i++) {
		const struct pghot_ibs_reg_case *c = &pghot_ibs_reg_cases[i];
		struct pghot_ibs_filter f = {
			.user_only = !c->all_modes, .l3miss = !c->no_l3miss,
		};
		struct perf_sample_data d;

		pghot_ibs_decode(c->caps, c->data2, c->data3, c->lin, T_PHYS, &d);
		KUNIT_EXPECT_EQ_MSG(test, pghot_ibs_classify(&d, !c->kernel_op, &f),
				    c->want, "%s", c->what);
		if (c->want != PGHOT_IBS_REJECT)
			KUNIT_EXPECT_EQ_MSG(test, d.phys_addr, T_PHYS, "%s", c->what);
	}
}

/* What the driver itself reports for a physical address without a linear one. */
static void pghot_ibs_test_phys_needs_lin(struct kunit *test)
{
	struct perf_sample_data d;
	u64 data3 = T_MISS_LOAD & ~T_DC_LIN_ADDR_VALID;

	pghot_ibs_decode(T_CAPS_ZEN4_ALL, T_Z4_DRAM, data3, 0, T_PHYS, &d);
	KUNIT_EXPECT_FALSE(test, d.sample_flags & PERF_SAMPLE_PHYS_ADDR);
	KUNIT_EXPECT_FALSE(test, d.sample_flags & PERF_SAMPLE_ADDR);
	/* Zen 2/3 documents IbsDcPhysAd with DcPhyAddrValid alone. */
	pghot_ibs_decode(T_CAPS_ZEN3, T_SRC(3), data3, 0, T_PHYS, &d);
	KUNIT_EXPECT_TRUE(test, d.sample_flags & PERF_SAMPLE_PHYS_ADDR);
	/* Both valid: both reported. */
	pghot_ibs_decode(T_CAPS_ZEN4_ALL, T_Z4_DRAM, T_MISS_LOAD, T_USER_LIN,
			 T_PHYS, &d);
	KUNIT_EXPECT_TRUE(test, d.sample_flags & PERF_SAMPLE_PHYS_ADDR);
	KUNIT_EXPECT_EQ(test, d.addr, T_USER_LIN);
	KUNIT_EXPECT_EQ(test, d.phys_addr, T_PHYS);
}

/*
 * Nothing goes to the ring while the source is off, nor a sample of a page
 * pghot does not track: the page's node decides, not the data source. A
 * "local DRAM" load of a lower-tier page (CPU-less DRAM on the sampling
 * CPU's socket) is tracked; any load of a top-tier page is not.
 */
static void pghot_ibs_test_judge(struct kunit *test)
{
	const struct pghot_ibs_filter f = { .user_only = true, .l3miss = true };
	const struct pghot_ibs_filter all = { .l3miss = true };
	struct perf_sample_data local, remote, ext;
	int nid, top = NUMA_NO_NODE, lower = NUMA_NO_NODE;
	struct page *page;
	bool report;

	for_each_node_state(nid, N_MEMORY) {
		if (node_is_toptier(nid) && top == NUMA_NO_NODE)
			top = nid;
		if (!node_is_toptier(nid) && lower == NUMA_NO_NODE)
			lower = nid;
	}
	KUNIT_ASSERT_NE(test, top, NUMA_NO_NODE);
	pghot_ibs_decode(T_CAPS_ZEN4_ALL, T_Z4_DRAM, T_MISS_LOAD, T_USER_LIN,
			 T_PHYS, &local);
	pghot_ibs_decode(T_CAPS_ZEN4_ALL, T_Z4_DRAM | T_RMT_NODE, T_MISS_LOAD,
			 T_USER_LIN, T_PHYS, &remote);
	pghot_ibs_decode(T_CAPS_ZEN4_ALL, T_Z4_EXT_MEM, T_MISS_LOAD, T_USER_LIN,
			 T_PHYS, &ext);

	/* Source off: not reported, not counted as anything but a sample. */
	KUNIT_EXPECT_EQ(test, pghot_ibs_judge(&ext, true, false, &f, false, lower, &report),
			PGHOT_IBS_REJECT);
	KUNIT_EXPECT_FALSE(test, report);
	/* Top-tier pages: counted by their source, never reported. */
	KUNIT_EXPECT_EQ(test, pghot_ibs_judge(&local, true, false, &f, true, top, &report),
			PGHOT_IBS_DRAM_LOCAL);
	KUNIT_EXPECT_FALSE(test, report);
	KUNIT_EXPECT_EQ(test, pghot_ibs_judge(&remote, true, false, &f, true, top, &report),
			PGHOT_IBS_DRAM_REMOTE);
	KUNIT_EXPECT_FALSE(test, report);
	/* Not online memory (or no physical address to go by): not reported. */
	KUNIT_EXPECT_EQ(test, pghot_ibs_judge(&ext, true, false, &f, true, NUMA_NO_NODE,
					      &report),
			PGHOT_IBS_EXTMEM);
	KUNIT_EXPECT_FALSE(test, report);
	KUNIT_EXPECT_EQ(test, pghot_ibs_page_nid(ULONG_MAX >> PAGE_SHIFT),
			NUMA_NO_NODE);
	/* A page of the top-tier node is found there. */
	page = alloc_pages_node(top, GFP_KERNEL | __GFP_THISNODE, 0);
	if (page) {
		KUNIT_EXPECT_EQ(test, pghot_ibs_page_nid(page_to_pfn(page)), top);
		__free_page(page);
	}
	if (lower != NUMA_NO_NODE) {
		/* Lower-tier pages are reported whatever the source says. */
		KUNIT_EXPECT_EQ(test, pghot_ibs_judge(&local, true, false, &f, true,
						      lower, &report),
				PGHOT_IBS_DRAM_LOCAL);
		KUNIT_EXPECT_TRUE(test, report);
		pghot_ibs_judge(&remote, true, false, &f, true, lower, &report);
		KUNIT_EXPECT_TRUE(test, report);
		pghot_ibs_judge(&ext, true, false, &f, true, lower, &report);
		KUNIT_EXPECT_TRUE(test, report);
		/* Rejected samples are never reported. */
		KUNIT_EXPECT_EQ(test, pghot_ibs_judge(&ext, false, false, &f, true,
						      lower, &report),
				PGHOT_IBS_REJECT);
		KUNIT_EXPECT_FALSE(test, report);
		/*
		 * Nor one taken in a guest, whatever its mode and filter: its
		 * physical address may be the guest's.
		 */
		KUNIT_EXPECT_EQ(test, pghot_ibs_judge(&ext, true, true, &f, true,
						      lower, &report),
				PGHOT_IBS_REJECT);
		KUNIT_EXPECT_FALSE(test, report);
		KUNIT_EXPECT_EQ(test, pghot_ibs_judge(&ext, false, true, &all, true,
						      lower, &report),
				PGHOT_IBS_REJECT);
		KUNIT_EXPECT_FALSE(test, report);
		KUNIT_EXPECT_EQ(test, pghot_ibs_judge(&ext, false, false, &all, true,
						      lower, &report),
				PGHOT_IBS_EXTMEM);
		KUNIT_EXPECT_TRUE(test, report);
	} else {
		kunit_skip(test, "no lower-tier node with memory");
	}
}

static void pghot_ibs_test_other_handler(struct perf_event *event,
					 struct perf_sample_data *data,
					 struct pt_regs *regs)
{
}

/*
 * The op unit's gate: while pghot holds the unit, perf events other than
 * pghot's own fail to open; while any is open, pghot cannot take it.
 */
static void pghot_ibs_test_op_gate(struct kunit *test)
{
	struct perf_event *mine, *other;

	mine = kunit_kzalloc(test, sizeof(*mine), GFP_KERNEL);
	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mine);
	KUNIT_ASSERT_NOT_NULL(test, other);
	mine->overflow_handler = pghot_ibs_overflow;
	other->overflow_handler = pghot_ibs_test_other_handler;

	if (perf_ibs_op_gate_claim(pghot_ibs_overflow))
		kunit_skip(test, "the op unit is in use");
	/* Held: pghot's events pass uncounted, others are refused. */
	KUNIT_EXPECT_EQ(test, perf_ibs_op_user_get(mine), 0);
	KUNIT_EXPECT_NULL(test, mine->destroy);
	KUNIT_EXPECT_EQ(test, perf_ibs_op_user_get(other), -EBUSY);
	KUNIT_EXPECT_NULL(test, other->destroy);
	KUNIT_EXPECT_EQ(test, perf_ibs_op_gate_claim(pghot_ibs_test_other_handler),
			-EBUSY);
	/* A failed claim leaves the owner as it was. */
	KUNIT_EXPECT_EQ(test, perf_ibs_op_user_get(mine), 0);
	KUNIT_EXPECT_EQ(test, perf_ibs_op_user_get(other), -EBUSY);
	perf_ibs_op_gate_release(pghot_ibs_overflow);

	/* Free: any event opens and is counted; pghot cannot take the unit. */
	KUNIT_ASSERT_EQ(test, perf_ibs_op_user_get(other), 0);
	KUNIT_ASSERT_NOT_NULL(test, other->destroy);
	KUNIT_EXPECT_EQ(test, perf_ibs_op_gate_claim(pghot_ibs_overflow), -EBUSY);
	KUNIT_EXPECT_EQ(test, perf_ibs_op_user_get(mine), 0);
	KUNIT_ASSERT_NOT_NULL(test, mine->destroy);
	mine->destroy(mine);
	KUNIT_EXPECT_EQ(test, perf_ibs_op_gate_claim(pghot_ibs_overflow), -EBUSY);
	/* Once the last is released, it can. */
	other->destroy(other);
	KUNIT_EXPECT_EQ(test, perf_ibs_op_gate_claim(pghot_ibs_overflow), 0);
	perf_ibs_op_gate_release(pghot_ibs_overflow);
}

/* Which per-CPU count of ibs/stats a sample goes into, by its kind. */
static void pghot_ibs_test_kind(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pghot_ibs_kind(PGHOT_IBS_DRAM_LOCAL, true, false),
			PGHOT_IBS_N_DRAM);
	KUNIT_EXPECT_EQ(test, pghot_ibs_kind(PGHOT_IBS_DRAM_REMOTE, true, false),
			PGHOT_IBS_N_DRAM);
	KUNIT_EXPECT_EQ(test, pghot_ibs_kind(PGHOT_IBS_EXTMEM, true, false),
			PGHOT_IBS_N_CXL);
	KUNIT_EXPECT_EQ(test, pghot_ibs_kind(PGHOT_IBS_STORE, true, false),
			PGHOT_IBS_N_STORES);
	/* A rejected sample, by the first reason pghot_ibs_judge() had. */
	KUNIT_EXPECT_EQ(test, pghot_ibs_kind(PGHOT_IBS_REJECT, false, true),
			PGHOT_IBS_N_SOURCE_OFF);
	KUNIT_EXPECT_EQ(test, pghot_ibs_kind(PGHOT_IBS_REJECT, true, true),
			PGHOT_IBS_N_GUEST);
	KUNIT_EXPECT_EQ(test, pghot_ibs_kind(PGHOT_IBS_REJECT, true, false),
			PGHOT_IBS_N_REJECTED);
	/* Every count has a name in ibs/stats. */
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(pghot_ibs_count_names),
			(size_t)PGHOT_IBS_NR_COUNTS);
}

/* Sampling armed before the system sleeps is armed again after. */
static void pghot_ibs_test_pm(struct kunit *test)
{
	static const unsigned long prepare[] = {
		PM_SUSPEND_PREPARE, PM_HIBERNATION_PREPARE, PM_RESTORE_PREPARE,
	};
	static const unsigned long post[] = {
		PM_POST_SUSPEND, PM_POST_HIBERNATION, PM_POST_RESTORE,
	};
	bool rearm = false;
	int i;

	for (i = 0; i < ARRAY_SIZE(prepare); i++) {
		/* Armed: disarm, then arm again once. */
		KUNIT_EXPECT_EQ(test, pghot_ibs_pm_step(prepare[i], true, &rearm),
				PGHOT_IBS_PM_DISARM);
		KUNIT_EXPECT_TRUE(test, rearm);
		KUNIT_EXPECT_EQ(test, pghot_ibs_pm_step(post[i], false, &rearm),
				PGHOT_IBS_PM_REARM);
		KUNIT_EXPECT_FALSE(test, rearm);
		KUNIT_EXPECT_EQ(test, pghot_ibs_pm_step(post[i], false, &rearm),
				PGHOT_IBS_PM_NONE);
		/* Off: stays off. */
		KUNIT_EXPECT_EQ(test, pghot_ibs_pm_step(prepare[i], false, &rearm),
				PGHOT_IBS_PM_NONE);
		KUNIT_EXPECT_EQ(test, pghot_ibs_pm_step(post[i], false, &rearm),
				PGHOT_IBS_PM_NONE);
		/* Armed by hand in between: not armed twice. */
		pghot_ibs_pm_step(prepare[i], true, &rearm);
		KUNIT_EXPECT_EQ(test, pghot_ibs_pm_step(post[i], true, &rearm),
				PGHOT_IBS_PM_NONE);
		KUNIT_EXPECT_FALSE(test, rearm);
	}
	/* A failed suspend (prepare, then post at once) arms again too. */
	pghot_ibs_pm_step(PM_SUSPEND_PREPARE, true, &rearm);
	KUNIT_EXPECT_EQ(test, pghot_ibs_pm_step(PM_POST_SUSPEND, false, &rearm),
			PGHOT_IBS_PM_REARM);
	/* Other events change nothing. */
	KUNIT_EXPECT_EQ(test, pghot_ibs_pm_step(PM_RESTORE_PREPARE + 100, true,
						&rearm),
			PGHOT_IBS_PM_NONE);
	KUNIT_EXPECT_FALSE(test, rearm);
}

static void pghot_ibs_test_attr(struct kunit *test)
{
	struct perf_event_attr a;
	const u64 mem = PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR |
			PERF_SAMPLE_DATA_SRC;

	/* The kernel's names for the IbsOpCtl bits are the documented ones. */
	KUNIT_EXPECT_EQ(test, IBS_OP_L3MISSONLY, T_OP_L3_MISS_ONLY);
	KUNIT_EXPECT_EQ(test, IBS_OP_CNT_CTL, T_OP_CNT_CTL);

	/* Zen 4 with the hardware RIP filter: ops, L3 misses, user only. */
	pghot_ibs_build_attr(&a, T_CAPS_ZEN4_ALL | T_CAPS_BIT63_FILTER, 42,
			     100000, true, true);
	KUNIT_EXPECT_EQ(test, a.type, 42U);
	KUNIT_EXPECT_EQ(test, a.config, T_OP_L3_MISS_ONLY | T_OP_CNT_CTL);
	KUNIT_EXPECT_EQ(test, a.config2, 0ULL);
	KUNIT_EXPECT_EQ(test, a.sample_type, mem);
	KUNIT_EXPECT_EQ(test, a.sample_period, 100000ULL);
	KUNIT_EXPECT_FALSE(test, a.freq);
	KUNIT_EXPECT_TRUE(test, a.exclude_kernel);
	KUNIT_EXPECT_TRUE(test, a.pinned);

	/* No RIP filter: the driver's software filter (config2 bit 0). */
	pghot_ibs_build_attr(&a, T_CAPS_ZEN4_ALL, 42, 100000, true, true);
	KUNIT_EXPECT_EQ(test, a.config2, 1ULL);
	pghot_ibs_build_attr(&a, T_CAPS_ZEN4_ALL, 42, 100000, true, false);
	KUNIT_EXPECT_EQ(test, a.config2, 0ULL);
	KUNIT_EXPECT_FALSE(test, a.exclude_kernel);

	/* Zen 2/3: ops, no L3 filter. */
	pghot_ibs_build_attr(&a, T_CAPS_ZEN3, 42, 12000000, false, true);
	KUNIT_EXPECT_EQ(test, a.config, T_OP_CNT_CTL);
	/* A CPU that cannot count ops counts cycles. */
	pghot_ibs_build_attr(&a, T_CAPS_OPSAM, 42, 1048560, false, true);
	KUNIT_EXPECT_EQ(test, a.config, 0ULL);
}

static void pghot_ibs_test_default_period(struct kunit *test)
{
	static const struct {
		u32 caps;
		bool l3miss;
		u64 rate, period;
	} cases[] = {
		{ T_CAPS_ZEN4_ALL, true, PGHOT_IBS_L3MISS_OPS_PER_S, 100000 },
		{ T_CAPS_ZEN4_ALL, false, PGHOT_IBS_OPS_PER_S, 12000000 },
		{ T_CAPS_ZEN3, false, PGHOT_IBS_OPS_PER_S, 12000000 },
		/* No OpCntExt: the 20-bit counter caps it; the bound fails. */
		{ T_CAPS_OPSAM | T_CAPS_OPCNT, false, 0, 0xffff0 },
		{ T_CAPS_OPSAM, false, 0, 0xffff0 },
	};
	int i;

	KUNIT_EXPECT_EQ(test, PGHOT_IBS_SAMPLES_PER_S, 2500ULL);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 p = pghot_ibs_default_period(cases[i].caps, cases[i].l3miss);

		KUNIT_EXPECT_EQ_MSG(test, p, cases[i].period, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, p % 16, 0ULL, "case %d", i);
		KUNIT_EXPECT_LE_MSG(test, p, pghot_ibs_period_max(cases[i].caps),
				    "case %d", i);
		/* Samples/s at the worst rate, times their cost: <= 0.5%. */
		if (cases[i].rate)
			KUNIT_EXPECT_LE_MSG(test,
					    div64_u64(cases[i].rate, p) * PGHOT_IBS_SAMPLE_NS,
					    (u64)NSEC_PER_SEC / 200, "case %d", i);
	}
	KUNIT_EXPECT_EQ(test, pghot_ibs_period_max(T_CAPS_ZEN3), 0x7fffff0ULL);
	/* A period set by hand wins. */
	KUNIT_EXPECT_EQ(test, pghot_ibs_effective_period(T_CAPS_ZEN4_ALL, true, 8192), 8192ULL);
	KUNIT_EXPECT_EQ(test, pghot_ibs_effective_period(T_CAPS_ZEN4_ALL, true, 0), 100000ULL);
}

/* After arming, only an active event counts as sampling. */
static void pghot_ibs_test_cpu_check(struct kunit *test)
{
	struct perf_event *ev = kunit_kzalloc(test, sizeof(*ev), GFP_KERNEL);
	struct pghot_ibs_cpu pc = { .event = ev };

	if (!ev)
		kunit_skip(test, "no memory");
	ev->state = PERF_EVENT_STATE_ACTIVE;
	KUNIT_EXPECT_EQ(test, pghot_ibs_cpu_check(&pc), 0);
	KUNIT_EXPECT_STREQ(test, pghot_ibs_cpu_state_names[pghot_ibs_cpu_state(&pc)], "armed");
	/* Throttled by perf until a tick: still armed, but says so. */
	ev->hw.state = PERF_HES_STOPPED;
	KUNIT_EXPECT_EQ(test, pghot_ibs_cpu_check(&pc), 0);
	KUNIT_EXPECT_STREQ(test, pghot_ibs_cpu_state_names[pghot_ibs_cpu_state(&pc)],
			   "stopped");
	ev->hw.state = 0;
	/* A perf user holds the op PMU: pinned, unschedulable, error. */
	ev->state = PERF_EVENT_STATE_ERROR;
	KUNIT_EXPECT_EQ(test, pghot_ibs_cpu_check(&pc), -EBUSY);
	KUNIT_EXPECT_STREQ(test, pghot_ibs_cpu_state_names[pghot_ibs_cpu_state(&pc)], "error");
	ev->state = PERF_EVENT_STATE_OFF;
	KUNIT_EXPECT_EQ(test, pghot_ibs_cpu_check(&pc), -EBUSY);
	ev->state = PERF_EVENT_STATE_INACTIVE;
	KUNIT_EXPECT_EQ(test, pghot_ibs_cpu_check(&pc), -EBUSY);
	pc = (struct pghot_ibs_cpu) { .err = -ENOENT };
	KUNIT_EXPECT_EQ(test, pghot_ibs_cpu_check(&pc), -ENOENT);
	KUNIT_EXPECT_STREQ(test, pghot_ibs_cpu_state_names[pghot_ibs_cpu_state(&pc)], "failed");
}

/* A CPU whose event perf refuses still comes online, whatever "armed" says. */
static void pghot_ibs_test_online_never_fails(struct kunit *test)
{
	struct perf_event_attr attr = {
		.type = INT_MAX,	/* no such PMU */
		.size = sizeof(attr),
		.sample_period = 100000,
	};
	struct pghot_ibs_cpu pc = {};

	KUNIT_EXPECT_EQ(test, __pghot_ibs_cpu_online(&pc, &attr, raw_smp_processor_id()), 0);
	KUNIT_EXPECT_NULL(test, pc.event);
	KUNIT_EXPECT_LT(test, pc.err, 0);
	KUNIT_EXPECT_EQ(test, pghot_ibs_cpu_check(&pc), pc.err);
}

static void pghot_ibs_test_parse(struct kunit *test)
{
	static const char * const bad[] = { "", "x", "-1", "1x", "0x", " 1", "1 1" };
	unsigned long v;
	int i;

	KUNIT_EXPECT_EQ(test, pghot_ibs_parse("1", 1, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 1UL);
	KUNIT_EXPECT_EQ(test, pghot_ibs_parse("0x10000\n", 8, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0x10000UL);
	/* A NUL ends the string, not the input: "1\0junk" is garbage. */
	KUNIT_EXPECT_EQ(test, pghot_ibs_parse("1\0junk", 6, &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, pghot_ibs_parse("1\0", 2, &v), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, pghot_ibs_parse(bad[i], strlen(bad[i]), &v),
				    -EINVAL, "\"%s\"", bad[i]);
	KUNIT_EXPECT_EQ(test, pghot_ibs_parse("99999999999999999999999", 23, &v), -EINVAL);
}

/* No IBS here (or in most VMs): enabling fails cleanly, nothing is armed. */
static void pghot_ibs_test_no_hardware(struct kunit *test)
{
	if (get_ibs_caps() && amd_ibs_op_pmu_type() >= 0)
		kunit_skip(test, "this CPU has IBS");
	KUNIT_EXPECT_EQ(test, pghot_ibs_enabled_set(1), -ENODEV);
	KUNIT_EXPECT_FALSE(test, pghot_ibs_armed);
	KUNIT_EXPECT_EQ(test, pghot_ibs_enabled_set(2), -EINVAL);
	KUNIT_EXPECT_EQ(test, pghot_ibs_enabled_set(0), 0);
}

static struct kunit_case pghot_ibs_test_cases[] = {
	KUNIT_CASE(pghot_ibs_test_registers),
	KUNIT_CASE(pghot_ibs_test_phys_needs_lin),
	KUNIT_CASE(pghot_ibs_test_judge),
	KUNIT_CASE(pghot_ibs_test_op_gate),
	KUNIT_CASE(pghot_ibs_test_pm),
	KUNIT_CASE(pghot_ibs_test_kind),
	KUNIT_CASE(pghot_ibs_test_attr),
	KUNIT_CASE(pghot_ibs_test_default_period),
	KUNIT_CASE(pghot_ibs_test_cpu_check),
	KUNIT_CASE(pghot_ibs_test_online_never_fails),
	KUNIT_CASE(pghot_ibs_test_parse),
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
