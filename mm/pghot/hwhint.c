// SPDX-License-Identifier: GPL-2.0
/*
 * pghot hardware hints: the one path by which hardware access samples
 * (AMD IBS, and later PEBS, SPE, CXL hotness monitors) reach pghot.
 *
 * Providers sample in NMI or hard-IRQ context, where nothing may lock,
 * sleep or allocate. They hand each sample to pghot_hwhint_report(), which
 * only puts it in a per-CPU ring (a kfifo with this CPU's NMI or IRQ as its
 * single producer) and makes sure an irq_work is pending that queues this
 * CPU's drain work, and the work feeds the samples to
 * pghot_record_access() as source PGHOT_HWHINTS in process context. A full
 * ring drops the sample and counts it. A CPU that goes offline has its
 * ring drained by the CPU that takes it down.
 *
 * The core knows nothing about any provider. Providers register a struct
 * pghot_hwhint_provider (listed in debugfs stats, disabled on removal) and
 * keep their own knobs; the 0x2 bit of enabled_sources decides whether
 * what they report is recorded.
 */
#define pr_fmt(fmt) "pghot: " fmt

#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kfifo.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>

#include <asm/local.h>

#include "internal.h"

struct pghot_hwhint_sample {
	unsigned long pfn;
	unsigned long time;		/* jiffies */
	int nid;			/* node of the sampled CPU */
};

/* Samples per CPU; at the default IBS period this is a few ms of samples. */
#define PGHOT_HWHINT_RING	1024

struct pghot_hwhint_cpu {
	DECLARE_KFIFO(ring, struct pghot_hwhint_sample, PGHOT_HWHINT_RING);
	local_t producing;		/* a producer is inside */
	local_t dropped;		/* samples the ring could not take */
	spinlock_t drain_lock;		/* one consumer at a time */
	struct irq_work irq_work;
	struct work_struct work;
};

static DEFINE_PER_CPU(struct pghot_hwhint_cpu, pghot_hwhint_cpus);

/* Put @s in @hc's ring; false if it is full. Producer side only. */
static bool pghot_hwhint_push(struct pghot_hwhint_cpu *hc,
			      const struct pghot_hwhint_sample *s)
{
	bool ok;

	/*
	 * An NMI that lands while an IRQ-context provider is inside would
	 * be a second producer; it loses its sample instead.
	 */
	if (local_inc_return(&hc->producing) != 1) {
		local_dec(&hc->producing);
		return false;
	}
	ok = kfifo_put(&hc->ring, *s);
	local_dec(&hc->producing);
	return ok;
}

/**
 * pghot_hwhint_queue - queue a sample on this CPU's ring, without counting
 * a drop
 * @pfn: page frame number
 * @nid: node of the accessing CPU
 * @now: time of the access, in jiffies
 *
 * Return: false if the ring is full (or busy with another producer).
 */
bool pghot_hwhint_queue(unsigned long pfn, int nid, unsigned long now)
{
	struct pghot_hwhint_cpu *hc = this_cpu_ptr(&pghot_hwhint_cpus);
	const struct pghot_hwhint_sample s = {
		.pfn = pfn, .time = now, .nid = nid,
	};

	if (!pghot_hwhint_push(hc, &s))
		return false;
	/*
	 * Every sample makes sure a drain is coming: a ring may also be
	 * drained from another CPU (pghot_hwhint_flush_all()), so "was it
	 * empty" cannot tell. Queueing a pending irq_work again is a no-op.
	 */
	irq_work_queue(&hc->irq_work);
	return true;
}

/**
 * pghot_hwhint_report - hand a hardware access sample to pghot
 * @pfn: page frame number the sampled access touched
 * @nid: node of the CPU that made the access
 * @now: time of the access, in jiffies
 *
 * NMI-safe: takes no lock, never sleeps, allocates nothing. Must be called
 * with preemption disabled (NMI, IRQ, or a preempt_disable() section).
 *
 * Return: true if the sample was queued, false if it was dropped.
 */
bool pghot_hwhint_report(unsigned long pfn, int nid, unsigned long now)
{
	if (pghot_hwhint_queue(pfn, nid, now))
		return true;
	local_inc(this_cpu_ptr(&pghot_hwhint_cpus.dropped));
	return false;
}
EXPORT_SYMBOL_GPL(pghot_hwhint_report);

typedef void (*pghot_hwhint_consumer_t)(const struct pghot_hwhint_sample *s);

static void pghot_hwhint_record(const struct pghot_hwhint_sample *s)
{
	pghot_record_access(s->pfn, s->nid, PGHOT_HWHINTS, s->time);
}

/* Hand every queued sample of @hc to @consume once. */
static unsigned int pghot_hwhint_drain_to(struct pghot_hwhint_cpu *hc,
					  pghot_hwhint_consumer_t consume)
{
	struct pghot_hwhint_sample s;
	unsigned int n = 0;

	spin_lock(&hc->drain_lock);
	while (kfifo_get(&hc->ring, &s)) {
		consume(&s);
		n++;
	}
	spin_unlock(&hc->drain_lock);
	return n;
}

static void pghot_hwhint_drain(struct pghot_hwhint_cpu *hc)
{
	unsigned int n = pghot_hwhint_drain_to(hc, pghot_hwhint_record);

	count_vm_events(PGHOT_REPORTED_HWHINTS, n);
	count_vm_events(HWHINT_DROPPED_EVENTS, local_xchg(&hc->dropped, 0));
}

/**
 * pghot_hwhint_flush_local - drain this CPU's ring now
 *
 * For callers in process context that report many samples at once (the
 * debug injection path) and want them recorded before they return.
 */
void pghot_hwhint_flush_local(void)
{
	struct pghot_hwhint_cpu *hc = get_cpu_ptr(&pghot_hwhint_cpus);

	pghot_hwhint_drain(hc);
	put_cpu_ptr(&pghot_hwhint_cpus);
}

/**
 * pghot_hwhint_flush_all - drain every online CPU's ring now
 *
 * Process context. A ring may be drained from any CPU: its consumers are
 * serialised by its drain lock and its producer is lock-free.
 */
void pghot_hwhint_flush_all(void)
{
	int cpu;

	for_each_online_cpu(cpu) {
		pghot_hwhint_drain(per_cpu_ptr(&pghot_hwhint_cpus, cpu));
		cond_resched();
	}
}

static void pghot_hwhint_work_fn(struct work_struct *work)
{
	pghot_hwhint_drain(container_of(work, struct pghot_hwhint_cpu, work));
}

static void pghot_hwhint_irq_work_fn(struct irq_work *iw)
{
	struct pghot_hwhint_cpu *hc = container_of(iw, struct pghot_hwhint_cpu,
						   irq_work);

	/* Hard IRQ: pghot_record_access() runs from the work instead. */
	queue_work_on(smp_processor_id(), system_highpri_wq, &hc->work);
}

/* The CPU is gone: nothing produces any more, drain what it left. */
static int pghot_hwhint_cpu_dead(unsigned int cpu)
{
	struct pghot_hwhint_cpu *hc = per_cpu_ptr(&pghot_hwhint_cpus, cpu);

	irq_work_sync(&hc->irq_work);
	flush_work(&hc->work);
	pghot_hwhint_drain(hc);
	return 0;
}

/* Registered providers. */
static LIST_HEAD(pghot_hwhint_providers);
static DEFINE_MUTEX(pghot_hwhint_lock);

/**
 * pghot_hwhint_register - make a hardware hint provider known to pghot
 * @p: the provider; ->name and ->disable must be set
 *
 * The provider arms its sampling itself (typically from its own debugfs
 * knob, with pghot_hwhint_set_state() telling pghot) and reports with
 * pghot_hwhint_report().
 */
void pghot_hwhint_register(struct pghot_hwhint_provider *p)
{
	mutex_lock(&pghot_hwhint_lock);
	p->enabled = false;
	list_add_tail(&p->list, &pghot_hwhint_providers);
	mutex_unlock(&pghot_hwhint_lock);
}
EXPORT_SYMBOL_GPL(pghot_hwhint_register);

/**
 * pghot_hwhint_unregister - remove a provider, disabling it first
 * @p: the provider
 */
void pghot_hwhint_unregister(struct pghot_hwhint_provider *p)
{
	mutex_lock(&pghot_hwhint_lock);
	list_del(&p->list);
	mutex_unlock(&pghot_hwhint_lock);
	/* Outside our lock: the provider takes its own, then may tell us. */
	if (READ_ONCE(p->enabled))
		p->disable();
	WRITE_ONCE(p->enabled, false);
}
EXPORT_SYMBOL_GPL(pghot_hwhint_unregister);

/**
 * pghot_hwhint_set_state - record whether a provider is sampling
 * @p: a registered provider
 * @enabled: its state
 */
void pghot_hwhint_set_state(struct pghot_hwhint_provider *p, bool enabled)
{
	WRITE_ONCE(p->enabled, enabled);
}
EXPORT_SYMBOL_GPL(pghot_hwhint_set_state);

/**
 * pghot_hwhint_show - list the providers and their state
 * @m: seq_file of debugfs stats
 */
void pghot_hwhint_show(struct seq_file *m)
{
	struct pghot_hwhint_provider *p;

	mutex_lock(&pghot_hwhint_lock);
	list_for_each_entry(p, &pghot_hwhint_providers, list)
		seq_printf(m, "hwhint_provider %s %s\n", p->name,
			   READ_ONCE(p->enabled) ? "on" : "off");
	mutex_unlock(&pghot_hwhint_lock);
}

/* subsys_initcall: before any provider (device_initcall) can report. */
static int __init pghot_hwhint_init(void)
{
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		struct pghot_hwhint_cpu *hc = per_cpu_ptr(&pghot_hwhint_cpus, cpu);

		INIT_KFIFO(hc->ring);
		local_set(&hc->producing, 0);
		local_set(&hc->dropped, 0);
		spin_lock_init(&hc->drain_lock);
		init_irq_work(&hc->irq_work, pghot_hwhint_irq_work_fn);
		INIT_WORK(&hc->work, pghot_hwhint_work_fn);
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "mm/pghot/hwhint:dead",
					NULL, pghot_hwhint_cpu_dead);
	return ret < 0 ? ret : 0;
}

subsys_initcall(pghot_hwhint_init);

#include "tests/hwhint-kunit.h"
