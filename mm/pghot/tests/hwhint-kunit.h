/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the hardware hint path, on private rings and a private
 * consumer only: nothing here touches the rings, counters or records of
 * the running system.
 *
 * - a sample packs into 8 bytes and comes back whole, the time across a
 *   jiffies wrap too; what does not fit is refused;
 * - a full ring drops and counts, a nested producer loses its sample;
 * - only the first sample after a drain started kicks a drain;
 * - a drain hands samples over in chunks without the ring lock held,
 *   stops at its budget and delivers every sample once, in order;
 * - the first registration allocates the rings, and samples reported on
 *   them reach the consumer through the irq_work and the drain work.
 */
#ifdef CONFIG_PGHOT_KUNIT_TEST

#ifndef _PGHOT_HWHINT_KUNIT_TEST_H
#define _PGHOT_HWHINT_KUNIT_TEST_H

#include <kunit/test.h>

/* What the private consumer saw. */
static struct {
	u64 seen[PGHOT_HWHINT_RING + 1];
	unsigned int nr;
	unsigned int calls;
	unsigned int max_chunk;
	unsigned long dropped;
	struct pghot_hwhint_ring *ring;	/* whose lock must be free */
	bool locked;			/* consumed with that lock held */
} pghot_test_sink;

static void pghot_test_consume(const u64 *samples, unsigned int nr,
			       unsigned long dropped)
{
	unsigned int i;

	pghot_test_sink.calls++;
	pghot_test_sink.dropped += dropped;
	pghot_test_sink.max_chunk = max(pghot_test_sink.max_chunk, nr);
	if (pghot_test_sink.ring) {
		if (spin_trylock(&pghot_test_sink.ring->lock))
			spin_unlock(&pghot_test_sink.ring->lock);
		else
			pghot_test_sink.locked = true;
	}
	for (i = 0; i < nr; i++) {
		if (pghot_test_sink.nr < ARRAY_SIZE(pghot_test_sink.seen))
			pghot_test_sink.seen[pghot_test_sink.nr] = samples[i];
		pghot_test_sink.nr++;
	}
}

static void pghot_test_sink_reset(struct pghot_hwhint_ring *r)
{
	memset(&pghot_test_sink, 0, sizeof(pghot_test_sink));
	pghot_test_sink.ring = r;
}

static void pghot_test_hw_init(struct pghot_hwhint *hw)
{
	hw->rings = NULL;
	hw->consume = pghot_test_consume;
	INIT_LIST_HEAD(&hw->providers);
	mutex_init(&hw->lock);
	mutex_init(&hw->rings_lock);
}

/* Free a private set's rings once nothing can run on them any more. */
static void pghot_test_hw_free(struct pghot_hwhint *hw)
{
	int cpu;

	if (!hw->rings)
		return;
	for_each_possible_cpu(cpu) {
		struct pghot_hwhint_ring *r = per_cpu_ptr(hw->rings, cpu);

		irq_work_sync(&r->irq_work);
		cancel_work_sync(&r->work);
	}
	pghot_hwhint_rings_free(hw->rings);
	hw->rings = NULL;
}

/* One private ring on the heap. */
static struct pghot_hwhint_ring *pghot_test_ring(struct kunit *test,
						 struct pghot_hwhint *hw)
{
	struct pghot_hwhint_ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	if (!r || kfifo_alloc(&r->fifo, PGHOT_HWHINT_RING, GFP_KERNEL))
		return NULL;
	pghot_test_hw_init(hw);
	r->hw = hw;
	spin_lock_init(&r->lock);
	return r;
}

static void pghot_test_pack(struct kunit *test)
{
	unsigned long pfn_max = (1UL << PGHOT_HWHINT_PFN_BITS) - 1;
	unsigned long t = ULONG_MAX - 5;	/* just before jiffies wraps */
	u64 s;

	/* 8 bytes a sample, 8 KiB a CPU (it was 24 bytes and 24 KiB). */
	KUNIT_EXPECT_EQ(test, sizeof(s) * PGHOT_HWHINT_RING, (size_t)SZ_8K);
	/* The widest PFN x86-64 can have: 52 physical address bits. */
	if (IS_ENABLED(CONFIG_X86_64))
		KUNIT_EXPECT_GE(test, PGHOT_HWHINT_PFN_BITS, 52 - PAGE_SHIFT);

	KUNIT_ASSERT_TRUE(test, pghot_hwhint_pack(pfn_max, MAX_NUMNODES - 1, t, &s));
	KUNIT_EXPECT_EQ(test, pghot_hwhint_pfn(s), pfn_max);
	KUNIT_EXPECT_EQ(test, pghot_hwhint_nid(s), MAX_NUMNODES - 1);
	KUNIT_EXPECT_EQ(test, pghot_hwhint_time(s, t), t);
	/* Drained later, across the wrap: the time is still the sample's. */
	KUNIT_EXPECT_EQ(test, pghot_hwhint_time(s, t + 100), t);
	KUNIT_EXPECT_EQ(test, pghot_hwhint_time(s, t + (1UL << PGHOT_HWHINT_TIME_BITS_MIN) - 1), t);

	KUNIT_ASSERT_TRUE(test, pghot_hwhint_pack(0x123456, 0, 7, &s));
	KUNIT_EXPECT_EQ(test, pghot_hwhint_pfn(s), 0x123456UL);
	KUNIT_EXPECT_EQ(test, pghot_hwhint_nid(s), 0);
	KUNIT_EXPECT_EQ(test, pghot_hwhint_time(s, 1000), 7UL);

	/* What does not fit is refused, not truncated. */
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_pack(pfn_max + 1, 0, t, &s));
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_pack(1, -1, t, &s));
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_pack(1, MAX_NUMNODES, t, &s));
}

static void pghot_test_full_ring(struct kunit *test)
{
	struct pghot_hwhint hw;
	struct pghot_hwhint_ring *r = pghot_test_ring(test, &hw);
	unsigned int i;
	bool kick;
	u64 s = 1;

	if (!r)
		kunit_skip(test, "no memory");
	/* Kicks are looked at in pghot_test_kick_once; keep irq_work out. */
	set_bit(PGHOT_HWHINT_PENDING, &r->flags);
	for (i = 0; i < PGHOT_HWHINT_RING; i++)
		KUNIT_ASSERT_TRUE(test, pghot_hwhint_ring_report(r, 1000 + i, 0, i));
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_ring_report(r, 1, 0, 0));
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_ring_report(r, 1, 0, 0));
	/* Out of range: dropped and counted as well. */
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_ring_report(r, 1, MAX_NUMNODES, 0));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&r->dropped), 3L);

	/* A producer inside blocks a nested one. */
	pghot_hwhint_drain(r, 1);
	local_set(&r->producing, 1);
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_put(r, s, &kick));
	local_set(&r->producing, 0);
	KUNIT_EXPECT_TRUE(test, pghot_hwhint_put(r, s, &kick));
	kfifo_free(&r->fifo);
}

/* A busy ring kicks one drain, not one per sample. */
static void pghot_test_kick_once(struct kunit *test)
{
	struct pghot_hwhint hw;
	struct pghot_hwhint_ring *r = pghot_test_ring(test, &hw);
	unsigned int i, kicks = 0;
	bool kick;

	if (!r)
		kunit_skip(test, "no memory");
	for (i = 0; i < 100; i++) {
		KUNIT_ASSERT_TRUE(test, pghot_hwhint_put(r, i, &kick));
		kicks += kick;
	}
	KUNIT_EXPECT_EQ(test, kicks, 1U);
	KUNIT_EXPECT_TRUE(test, test_bit(PGHOT_HWHINT_PENDING, &r->flags));

	/* The drain starts: the next sample must kick again ... */
	clear_bit(PGHOT_HWHINT_PENDING, &r->flags);
	KUNIT_ASSERT_TRUE(test, pghot_hwhint_put(r, 100, &kick));
	KUNIT_EXPECT_TRUE(test, kick);
	KUNIT_ASSERT_TRUE(test, pghot_hwhint_put(r, 101, &kick));
	KUNIT_EXPECT_FALSE(test, kick);
	/* ... and a sample the ring refused never kicks. */
	clear_bit(PGHOT_HWHINT_PENDING, &r->flags);
	local_set(&r->producing, 1);
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_put(r, 102, &kick));
	KUNIT_EXPECT_FALSE(test, kick);
	local_set(&r->producing, 0);
	kfifo_free(&r->fifo);
}

static void pghot_test_drain_chunks(struct kunit *test)
{
	struct pghot_hwhint hw;
	struct pghot_hwhint_ring *r = pghot_test_ring(test, &hw);
	unsigned int i;
	bool kick;

	if (!r)
		kunit_skip(test, "no memory");
	for (i = 0; i < PGHOT_HWHINT_RING; i++)
		KUNIT_ASSERT_TRUE(test, pghot_hwhint_put(r, 1000 + i, &kick));
	atomic_long_set(&r->dropped, 5);

	/* One run of the work: its budget, then "more to do". */
	pghot_test_sink_reset(r);
	KUNIT_EXPECT_TRUE(test, pghot_hwhint_drain(r, PGHOT_HWHINT_WORK_BUDGET));
	KUNIT_EXPECT_EQ(test, pghot_test_sink.nr, (unsigned int)PGHOT_HWHINT_WORK_BUDGET);
	KUNIT_EXPECT_EQ(test, pghot_test_sink.dropped, 5UL);
	KUNIT_EXPECT_EQ(test, kfifo_len(&r->fifo),
			(unsigned int)(PGHOT_HWHINT_RING - PGHOT_HWHINT_WORK_BUDGET));

	/* The rest, without a budget. */
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_drain(r, UINT_MAX));
	KUNIT_ASSERT_EQ(test, pghot_test_sink.nr, (unsigned int)PGHOT_HWHINT_RING);
	for (i = 0; i < PGHOT_HWHINT_RING; i++)
		KUNIT_EXPECT_EQ(test, pghot_test_sink.seen[i], 1000ULL + i);
	/* Never more than a chunk per call, never under the ring lock. */
	KUNIT_EXPECT_LE(test, pghot_test_sink.max_chunk, (unsigned int)PGHOT_HWHINT_CHUNK);
	KUNIT_EXPECT_FALSE(test, pghot_test_sink.locked);
	/* Each sample once. */
	KUNIT_EXPECT_FALSE(test, pghot_hwhint_drain(r, UINT_MAX));
	KUNIT_EXPECT_EQ(test, pghot_test_sink.nr, (unsigned int)PGHOT_HWHINT_RING);
	kfifo_free(&r->fifo);
}

static struct pghot_hwhint_provider pghot_test_provider = { .name = "test" };
static struct pghot_hwhint_provider pghot_test_provider2 = { .name = "test2" };

static void pghot_test_register(struct kunit *test)
{
	struct pghot_hwhint hw;
	struct pghot_hwhint_ring __percpu *rings;
	struct pghot_hwhint_ring *r;
	unsigned int i;

	pghot_test_hw_init(&hw);
	/* No provider, no rings: a report is refused, nothing allocated. */
	KUNIT_EXPECT_NULL(test, pghot_hwhint_this_ring(&hw));
	/* A provider that is not sampling costs no rings either. */
	__pghot_hwhint_register(&hw, &pghot_test_provider);
	KUNIT_EXPECT_NULL(test, pghot_hwhint_this_ring(&hw));
	KUNIT_EXPECT_FALSE(test, pghot_test_provider.enabled);
	/* The first to start allocates them. */
	if (__pghot_hwhint_set_state(&hw, &pghot_test_provider, true))
		kunit_skip(test, "no memory for the rings");
	KUNIT_EXPECT_TRUE(test, pghot_test_provider.enabled);
	rings = hw.rings;
	KUNIT_ASSERT_TRUE(test, !!rings);
	/* A second provider shares them. */
	__pghot_hwhint_register(&hw, &pghot_test_provider2);
	KUNIT_ASSERT_EQ(test, __pghot_hwhint_set_state(&hw, &pghot_test_provider2,
						       true), 0);
	KUNIT_EXPECT_TRUE(test, hw.rings == rings);
	/* Stopping keeps them (NMI handlers may be inside). */
	KUNIT_EXPECT_EQ(test, __pghot_hwhint_set_state(&hw, &pghot_test_provider2,
						       false), 0);
	KUNIT_EXPECT_FALSE(test, pghot_test_provider2.enabled);
	KUNIT_EXPECT_TRUE(test, hw.rings == rings);

	/* Samples reach the consumer through the irq_work and the work. */
	pghot_test_sink_reset(NULL);
	preempt_disable();
	r = pghot_hwhint_this_ring(&hw);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_TRUE(test, pghot_hwhint_ring_report(r, 2000 + i, 0, i));
	preempt_enable();
	irq_work_sync(&r->irq_work);
	flush_work(&r->work);
	KUNIT_EXPECT_EQ(test, pghot_test_sink.nr, 10U);
	KUNIT_EXPECT_EQ(test, pghot_hwhint_pfn(pghot_test_sink.seen[9]), 2009UL);
	KUNIT_EXPECT_FALSE(test, test_bit(PGHOT_HWHINT_PENDING, &r->flags));

	__pghot_hwhint_unregister(&hw, &pghot_test_provider2);
	__pghot_hwhint_unregister(&hw, &pghot_test_provider);
	KUNIT_EXPECT_TRUE(test, list_empty(&hw.providers));
	/* The rings outlive their providers (NMI handlers may be inside). */
	KUNIT_EXPECT_TRUE(test, hw.rings == rings);
	pghot_test_hw_free(&hw);
}

static struct kunit_case pghot_hwhint_test_cases[] = {
	KUNIT_CASE(pghot_test_pack),
	KUNIT_CASE(pghot_test_full_ring),
	KUNIT_CASE(pghot_test_kick_once),
	KUNIT_CASE(pghot_test_drain_chunks),
	KUNIT_CASE(pghot_test_register),
	{}
};

static struct kunit_suite pghot_hwhint_test_suite = {
	.name = "pghot-hwhint",
	.test_cases = pghot_hwhint_test_cases,
};

kunit_test_suite(pghot_hwhint_test_suite);

#endif /* _PGHOT_HWHINT_KUNIT_TEST_H */

#endif /* CONFIG_PGHOT_KUNIT_TEST */
