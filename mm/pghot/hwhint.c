// SPDX-License-Identifier: GPL-2.0
/*
 * pghot hardware hints: the one path by which hardware access samples
 * (AMD IBS, and later PEBS, SPE, CXL hotness monitors) reach pghot.
 *
 * Providers sample in NMI or hard-IRQ context, where nothing may lock,
 * sleep or allocate. They hand each sample to pghot_hwhint_report(), which
 * only packs it into 8 bytes and puts it in a per-CPU ring (a kfifo with
 * this CPU's NMI or IRQ as its single producer). A sample that finds no
 * drain pending raises an irq_work that queues this CPU's drain work; the
 * work clears "pending" before it drains, so a busy ring costs one
 * interrupt per drain, not one per sample. The work feeds the samples to
 * pghot_record_access() as source PGHOT_HWHINTS in process context, a chunk
 * at a time: the ring lock is held only to copy a chunk out, and after a
 * few chunks the work requeues itself. A full ring drops the sample and
 * counts it. A CPU that goes offline has its ring drained by the CPU that
 * takes it down.
 *
 * The rings are allocated when the first provider starts sampling (the
 * debug injector counts as one, on its first write), so a kernel whose
 * hardware has nothing to report, or whose provider is never armed, pays
 * nothing for them; under pghot_mode=off no provider registers. NMI
 * handlers may be using them at any time, so they are never freed.
 *
 * The core knows nothing about any provider. Providers register a struct
 * pghot_hwhint_provider (listed in debugfs stats, disabled on removal) and
 * keep their own knobs; the 0x2 bit of enabled_sources decides whether
 * what they report is recorded. Providers are built in: nothing here is
 * exported to modules.
 */
#define pr_fmt(fmt) "pghot: " fmt

#include <linux/bitops.h>
#include <linux/cpuhotplug.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kfifo.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/numa.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>

#include <asm/local.h>

#include "internal.h"

/*
 * A sample is one u64: from bit 0 up, the low bits of the jiffies of the
 * access, the node of the accessing CPU and the page frame number. The
 * drain, a few milliseconds later, puts the time back together from its
 * own jiffies; the time field covers at least 2^12 jiffies (4 s at
 * HZ=1000) between report and drain.
 */
#ifdef MAX_POSSIBLE_PHYSMEM_BITS
#define PGHOT_HWHINT_PHYS_BITS		MAX_POSSIBLE_PHYSMEM_BITS
#else
#define PGHOT_HWHINT_PHYS_BITS		MAX_PHYSMEM_BITS
#endif
#define PGHOT_HWHINT_PFN_BITS		(PGHOT_HWHINT_PHYS_BITS - PAGE_SHIFT)
#define PGHOT_HWHINT_NID_BITS		NODES_SHIFT
#define PGHOT_HWHINT_TIME_BITS		(64 - PGHOT_HWHINT_PFN_BITS - \
					 PGHOT_HWHINT_NID_BITS)
#define PGHOT_HWHINT_TIME_BITS_MIN	12
#define PGHOT_HWHINT_TIME_MASK		((1UL << PGHOT_HWHINT_TIME_BITS) - 1)
#define PGHOT_HWHINT_NID_SHIFT		PGHOT_HWHINT_TIME_BITS
#define PGHOT_HWHINT_PFN_SHIFT		(PGHOT_HWHINT_TIME_BITS + \
					 PGHOT_HWHINT_NID_BITS)

/* Samples per CPU: 8 KiB, some 400 ms of samples at the default IBS cost bound. */
#define PGHOT_HWHINT_RING		1024
/* Samples copied out of a ring per lock hold. */
#define PGHOT_HWHINT_CHUNK		64
/* Samples one run of the drain work records before it requeues itself. */
#define PGHOT_HWHINT_WORK_BUDGET	(4 * PGHOT_HWHINT_CHUNK)

/* Bit of pghot_hwhint_ring.flags: a drain is coming. */
#define PGHOT_HWHINT_PENDING		0

struct pghot_hwhint;

struct pghot_hwhint_ring {
	DECLARE_KFIFO_PTR(fifo, u64);
	struct pghot_hwhint *hw;	/* the set this ring belongs to */
	local_t producing;		/* a producer is inside */
	atomic_long_t dropped;		/* samples the ring could not take */
	unsigned long flags;		/* PGHOT_HWHINT_PENDING */
	spinlock_t lock;		/* one consumer at a time */
	struct irq_work irq_work;
	struct work_struct work;
};

/*
 * @consume gets the samples of a chunk and the drops counted since the
 * last chunk. One struct exists (pghot_hwhint below); the KUnit tests make
 * private ones.
 */
struct pghot_hwhint {
	struct pghot_hwhint_ring __percpu *rings;	/* NULL: no provider yet */
	void (*consume)(const u64 *samples, unsigned int nr,
			unsigned long dropped);
	struct list_head providers;
	struct mutex lock;		/* providers */
	/*
	 * Ring allocation, from a provider's knob: under the provider's own
	 * lock, which its ->show() takes under @lock.
	 */
	struct mutex rings_lock;
};

static void pghot_hwhint_record(const u64 *samples, unsigned int nr,
				unsigned long dropped);

static struct pghot_hwhint pghot_hwhint = {
	.consume = pghot_hwhint_record,
	.providers = LIST_HEAD_INIT(pghot_hwhint.providers),
	.lock = __MUTEX_INITIALIZER(pghot_hwhint.lock),
	.rings_lock = __MUTEX_INITIALIZER(pghot_hwhint.rings_lock),
};

/* Pack a sample; false if @pfn or @nid does not fit. */
static bool pghot_hwhint_pack(unsigned long pfn, int nid, unsigned long now,
			      u64 *s)
{
	BUILD_BUG_ON(PGHOT_HWHINT_TIME_BITS < PGHOT_HWHINT_TIME_BITS_MIN);
	BUILD_BUG_ON(PGHOT_HWHINT_TIME_BITS > BITS_PER_LONG);
	BUILD_BUG_ON(MAX_NUMNODES > (1UL << PGHOT_HWHINT_NID_BITS));
	BUILD_BUG_ON(PGHOT_HWHINT_PFN_SHIFT + PGHOT_HWHINT_PFN_BITS != 64);

	if (pfn >> PGHOT_HWHINT_PFN_BITS || (unsigned int)nid >= MAX_NUMNODES)
		return false;
	*s = (u64)pfn << PGHOT_HWHINT_PFN_SHIFT |
	     (u64)nid << PGHOT_HWHINT_NID_SHIFT | (now & PGHOT_HWHINT_TIME_MASK);
	return true;
}

static unsigned long pghot_hwhint_pfn(u64 s)
{
	return s >> PGHOT_HWHINT_PFN_SHIFT;
}

static int pghot_hwhint_nid(u64 s)
{
	return (s >> PGHOT_HWHINT_NID_SHIFT) & ((1U << PGHOT_HWHINT_NID_BITS) - 1);
}

/* The jiffies of @s: the latest time not after @now with its low bits. */
static unsigned long pghot_hwhint_time(u64 s, unsigned long now)
{
	return now - ((now - s) & PGHOT_HWHINT_TIME_MASK);
}

/*
 * Put @s in @r; false if the ring is full or another producer is inside.
 * Producer side only, on the CPU that owns @r. *@kick tells whether the
 * caller must make sure a drain comes: only the first sample after a drain
 * started does.
 */
static bool pghot_hwhint_put(struct pghot_hwhint_ring *r, u64 s, bool *kick)
{
	bool ok;

	*kick = false;
	/*
	 * An NMI that lands while an IRQ-context provider is inside would
	 * be a second producer; it loses its sample instead.
	 */
	if (local_inc_return(&r->producing) != 1) {
		local_dec(&r->producing);
		return false;
	}
	ok = kfifo_put(&r->fifo, s);
	local_dec(&r->producing);
	/*
	 * Pairs with the barrier after the drain clears the bit: either the
	 * drain sees this sample, or this sees the bit clear and kicks.
	 */
	if (ok)
		*kick = !test_and_set_bit(PGHOT_HWHINT_PENDING, &r->flags);
	return ok;
}

/* Queue @s on @r and kick a drain if none is pending; false if dropped. */
static bool pghot_hwhint_ring_queue(struct pghot_hwhint_ring *r, u64 s)
{
	bool kick;

	if (!pghot_hwhint_put(r, s, &kick))
		return false;
	if (kick)
		irq_work_queue(&r->irq_work);
	return true;
}

/* The rings of @hw, NULL until a provider registered. */
static struct pghot_hwhint_ring __percpu *pghot_hwhint_rings(struct pghot_hwhint *hw)
{
	/* Pairs with the release in __pghot_hwhint_register(). */
	return smp_load_acquire(&hw->rings);
}

/* This CPU's ring, or NULL when no provider ever registered. */
static struct pghot_hwhint_ring *pghot_hwhint_this_ring(struct pghot_hwhint *hw)
{
	struct pghot_hwhint_ring __percpu *rings = pghot_hwhint_rings(hw);

	return rings ? this_cpu_ptr(rings) : NULL;
}

/**
 * pghot_hwhint_queue - queue a sample on this CPU's ring, without counting
 * a drop
 * @pfn: page frame number
 * @nid: node of the accessing CPU
 * @now: time of the access, in jiffies
 *
 * Preemption must be disabled. Only for a registered provider.
 *
 * Return: false if the ring is full (or busy with another producer), or
 * the sample cannot be represented.
 */
bool pghot_hwhint_queue(unsigned long pfn, int nid, unsigned long now)
{
	struct pghot_hwhint_ring *r = pghot_hwhint_this_ring(&pghot_hwhint);
	u64 s;

	if (!r || !pghot_hwhint_pack(pfn, nid, now, &s))
		return false;
	return pghot_hwhint_ring_queue(r, s);
}

/* Report @pfn on @r, counting a drop. */
static bool pghot_hwhint_ring_report(struct pghot_hwhint_ring *r,
				     unsigned long pfn, int nid,
				     unsigned long now)
{
	u64 s;

	if (pghot_hwhint_pack(pfn, nid, now, &s) &&
	    pghot_hwhint_ring_queue(r, s))
		return true;
	atomic_long_inc(&r->dropped);
	return false;
}

/**
 * pghot_hwhint_report - hand a hardware access sample to pghot
 * @pfn: page frame number the sampled access touched
 * @nid: node of the CPU that made the access
 * @now: time of the access, in jiffies
 *
 * NMI-safe: takes no lock, never sleeps, allocates nothing. Must be called
 * with preemption disabled (NMI, IRQ, or a preempt_disable() section), by
 * a provider registered with pghot_hwhint_register().
 *
 * Return: true if the sample was queued, false if it was dropped.
 */
bool pghot_hwhint_report(unsigned long pfn, int nid, unsigned long now)
{
	struct pghot_hwhint_ring *r = pghot_hwhint_this_ring(&pghot_hwhint);

	return r && pghot_hwhint_ring_report(r, pfn, nid, now);
}

/* pghot's consumer: record the samples, count them and the drops. */
static void pghot_hwhint_record(const u64 *samples, unsigned int nr,
				unsigned long dropped)
{
	unsigned long now = jiffies;
	unsigned int i;

	for (i = 0; i < nr; i++)
		pghot_record_access(pghot_hwhint_pfn(samples[i]),
				    pghot_hwhint_nid(samples[i]), PGHOT_HWHINTS,
				    pghot_hwhint_time(samples[i], now));
	count_vm_events(PGHOT_REPORTED_HWHINTS, nr);
	count_vm_events(HWHINT_DROPPED_EVENTS, dropped);
}

/*
 * Hand the samples of @r to its consumer a chunk at a time, until the ring
 * is empty or at least @budget samples are done. Process context. The
 * ring lock covers only the copy: the consumer runs without it, and the
 * CPU is given up between chunks.
 *
 * Return: true if the ring may still hold samples.
 */
static bool pghot_hwhint_drain(struct pghot_hwhint_ring *r, unsigned int budget)
{
	u64 chunk[PGHOT_HWHINT_CHUNK];
	unsigned int n, done = 0;

	do {
		spin_lock(&r->lock);
		n = kfifo_out(&r->fifo, chunk, ARRAY_SIZE(chunk));
		spin_unlock(&r->lock);
		r->hw->consume(chunk, n, atomic_long_xchg(&r->dropped, 0));
		done += n;
		if (n == ARRAY_SIZE(chunk))
			cond_resched();
	} while (n == ARRAY_SIZE(chunk) && done < budget);
	return n == ARRAY_SIZE(chunk);
}

static void pghot_hwhint_work_fn(struct work_struct *work)
{
	struct pghot_hwhint_ring *r = container_of(work, struct pghot_hwhint_ring,
						   work);

	clear_bit(PGHOT_HWHINT_PENDING, &r->flags);
	/* Pairs with test_and_set_bit() in pghot_hwhint_put(). */
	smp_mb__after_atomic();
	if (pghot_hwhint_drain(r, PGHOT_HWHINT_WORK_BUDGET))
		queue_work(system_highpri_wq, work);
}

static void pghot_hwhint_irq_work_fn(struct irq_work *iw)
{
	struct pghot_hwhint_ring *r = container_of(iw, struct pghot_hwhint_ring,
						   irq_work);

	/* Hard IRQ: pghot_record_access() runs from the work instead. */
	queue_work_on(smp_processor_id(), system_highpri_wq, &r->work);
}

/* Drain every ring of @hw now; process context. */
static void pghot_hwhint_flush(struct pghot_hwhint *hw)
{
	struct pghot_hwhint_ring __percpu *rings = pghot_hwhint_rings(hw);
	int cpu;

	if (!rings)
		return;
	for_each_possible_cpu(cpu) {
		pghot_hwhint_drain(per_cpu_ptr(rings, cpu), UINT_MAX);
		cond_resched();
	}
}

/**
 * pghot_hwhint_flush_local - drain this CPU's ring now
 *
 * For callers in process context that report many samples at once (the
 * debug injection path) and want room in the ring. A ring may be drained
 * from any CPU: its consumers are serialised by its lock and its producer
 * is lock-free, so being moved meanwhile does no harm.
 */
void pghot_hwhint_flush_local(void)
{
	struct pghot_hwhint_ring __percpu *rings = pghot_hwhint_rings(&pghot_hwhint);

	if (rings)
		pghot_hwhint_drain(raw_cpu_ptr(rings), UINT_MAX);
}

/**
 * pghot_hwhint_flush_all - drain every CPU's ring now
 *
 * Process context.
 */
void pghot_hwhint_flush_all(void)
{
	pghot_hwhint_flush(&pghot_hwhint);
}

/* The CPU is gone: nothing produces any more, drain what it left. */
static int pghot_hwhint_cpu_dead(unsigned int cpu)
{
	struct pghot_hwhint_ring __percpu *rings = pghot_hwhint_rings(&pghot_hwhint);
	struct pghot_hwhint_ring *r;

	if (!rings)
		return 0;
	r = per_cpu_ptr(rings, cpu);
	irq_work_sync(&r->irq_work);
	flush_work(&r->work);
	pghot_hwhint_drain(r, UINT_MAX);
	/* The first sample after the CPU returns kicks a drain again. */
	clear_bit(PGHOT_HWHINT_PENDING, &r->flags);
	return 0;
}

static void pghot_hwhint_rings_free(struct pghot_hwhint_ring __percpu *rings)
{
	int cpu;

	for_each_possible_cpu(cpu)
		kfifo_free(&per_cpu_ptr(rings, cpu)->fifo);
	free_percpu(rings);
}

static struct pghot_hwhint_ring __percpu *
pghot_hwhint_rings_alloc(struct pghot_hwhint *hw)
{
	struct pghot_hwhint_ring __percpu *rings;
	int cpu;

	rings = alloc_percpu(struct pghot_hwhint_ring);
	if (!rings)
		return NULL;
	for_each_possible_cpu(cpu) {
		struct pghot_hwhint_ring *r = per_cpu_ptr(rings, cpu);

		if (kfifo_alloc_node(&r->fifo, PGHOT_HWHINT_RING, GFP_KERNEL,
				     cpu_to_node(cpu))) {
			pghot_hwhint_rings_free(rings);
			return NULL;
		}
		r->hw = hw;
		local_set(&r->producing, 0);
		atomic_long_set(&r->dropped, 0);
		r->flags = 0;
		spin_lock_init(&r->lock);
		init_irq_work(&r->irq_work, pghot_hwhint_irq_work_fn);
		INIT_WORK(&r->work, pghot_hwhint_work_fn);
	}
	return rings;
}

static void __pghot_hwhint_register(struct pghot_hwhint *hw,
				    struct pghot_hwhint_provider *p)
{
	mutex_lock(&hw->lock);
	p->enabled = false;
	list_add_tail(&p->list, &hw->providers);
	mutex_unlock(&hw->lock);
}

static int __pghot_hwhint_set_state(struct pghot_hwhint *hw,
				    struct pghot_hwhint_provider *p,
				    bool enabled)
{
	int ret = 0;

	mutex_lock(&hw->rings_lock);
	if (enabled && !hw->rings) {
		struct pghot_hwhint_ring __percpu *rings;

		rings = pghot_hwhint_rings_alloc(hw);
		if (!rings) {
			ret = -ENOMEM;
			enabled = false;
		} else {
			/*
			 * Reporters see the rings only once they are set up:
			 * pairs with the acquire in pghot_hwhint_rings().
			 */
			smp_store_release(&hw->rings, rings);
		}
	}
	WRITE_ONCE(p->enabled, enabled);
	mutex_unlock(&hw->rings_lock);
	return ret;
}

static void __pghot_hwhint_unregister(struct pghot_hwhint *hw,
				      struct pghot_hwhint_provider *p)
{
	mutex_lock(&hw->lock);
	list_del(&p->list);
	mutex_unlock(&hw->lock);
	/* Outside our lock: the provider takes its own, then may tell us. */
	if (READ_ONCE(p->enabled) && p->disable)
		p->disable();
	WRITE_ONCE(p->enabled, false);
}

/**
 * pghot_hwhint_register - make a hardware hint provider known to pghot
 * @p: the provider; ->name must be set, ->disable and ->show may be NULL
 *
 * The provider arms its sampling itself (typically from its own debugfs
 * knob), calling pghot_hwhint_set_state() before it arms and after it
 * disarms, and reports with pghot_hwhint_report(). Process context.
 *
 * Return: 0, or -ENODEV if pghot is off (pghot_mode=off): then the
 * provider should leave no trace (no knobs, no sampling).
 */
int pghot_hwhint_register(struct pghot_hwhint_provider *p)
{
	if (pghot_off)
		return -ENODEV;
	__pghot_hwhint_register(&pghot_hwhint, p);
	return 0;
}

/**
 * pghot_hwhint_unregister - remove a provider, disabling it first
 * @p: the provider
 *
 * The rings stay: another provider's NMI handler may be using them.
 */
void pghot_hwhint_unregister(struct pghot_hwhint_provider *p)
{
	__pghot_hwhint_unregister(&pghot_hwhint, p);
}

/**
 * pghot_hwhint_set_state - record whether a provider samples
 * @p: a registered provider
 * @enabled: true before it arms its sampling, false once it has disarmed
 *
 * The first provider to start allocates the per-CPU rings, so that they
 * are there for its first sample. Process context.
 *
 * Return: 0; for @enabled, -ENODEV if pghot is off or -ENOMEM if the rings
 * could not be allocated: the provider must then not arm.
 */
int pghot_hwhint_set_state(struct pghot_hwhint_provider *p, bool enabled)
{
	if (enabled && pghot_off)
		return -ENODEV;
	return __pghot_hwhint_set_state(&pghot_hwhint, p, enabled);
}

static void __pghot_hwhint_show(struct pghot_hwhint *hw, struct seq_file *m)
{
	struct pghot_hwhint_provider *p;

	mutex_lock(&hw->lock);
	seq_printf(m, "hwhint_ring_bytes %lu\n", hw->rings ?
		   (unsigned long)num_possible_cpus() * PGHOT_HWHINT_RING *
		   sizeof(u64) : 0UL);
	list_for_each_entry(p, &hw->providers, list) {
		seq_printf(m, "hwhint_provider %s %s\n", p->name,
			   READ_ONCE(p->enabled) ? "on" : "off");
		if (p->show)
			p->show(m);
	}
	mutex_unlock(&hw->lock);
}

/**
 * pghot_hwhint_show - list the providers and their state
 * @m: seq_file of debugfs stats
 */
void pghot_hwhint_show(struct seq_file *m)
{
	__pghot_hwhint_show(&pghot_hwhint, m);
}

/* subsys_initcall: before any provider (device_initcall) can register. */
static int __init pghot_hwhint_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "mm/pghot/hwhint:dead",
					NULL, pghot_hwhint_cpu_dead);
	return ret < 0 ? ret : 0;
}

subsys_initcall(pghot_hwhint_init);

#include "tests/hwhint-kunit.h"
