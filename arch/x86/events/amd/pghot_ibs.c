// SPDX-License-Identifier: GPL-2.0
/*
 * AMD IBS op sampling as a pghot hardware hint provider.
 *
 * One pinned in-kernel perf event per online CPU on the ibs_op PMU,
 * counting ops (cycles on CPUs that cannot count ops) and, on Zen 4 and
 * later, tagging only ops that miss L3. The IBS driver decodes each
 * sample's linear and physical address and data source; the overflow
 * handler, in NMI context, keeps loads served by DRAM or by CXL memory
 * (extension memory) and stores that missed every cache, to user
 * addresses, and hands their page to pghot through pghot_hwhint_report().
 * Samples of pages on a top-tier node are dropped right there: pghot does
 * not track top-tier pages. The page's node decides, not the data source:
 * IBS calls DRAM "local" by the fabric, so CPU-less lower-tier DRAM on the
 * sampling CPU's socket (dax/kmem) reads as local DRAM.
 *
 * Knobs in /sys/kernel/debug/pghot/ibs/: enabled, period, l3miss_only and
 * user_only; the directory exists only where the CPU has IBS op sampling.
 * A CPU without it, or one whose IBS perf will not give us (another user
 * holds it), fails "enabled" with an error and a log line, and nothing
 * stays armed. Per-CPU state is in /sys/kernel/debug/pghot/stats.
 */
#define pr_fmt(fmt) "pghot_ibs: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/mem_encrypt.h>
#include <linux/memory-tiers.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/pghot.h>
#include <linux/processor.h>
#include <linux/seq_file.h>
#include <linux/suspend.h>
#include <linux/uaccess.h>

#include <asm/amd/ibs.h>
#include <asm/perf_event.h>

/*
 * The cost bound. A sample costs the CPU it interrupts about
 * PGHOT_IBS_SAMPLE_NS: NMI entry and exit, reading the IBS registers, the
 * driver's decode and this handler (the handler of the 2023 IBS-driven
 * NUMA balancing RFC took 1.26 us on average on Zen 4). The default period
 * keeps sampling under PGHOT_IBS_BUDGET_PPM of each CPU, 0.5%, i.e. at
 * most PGHOT_IBS_SAMPLES_PER_S samples a second, even when a CPU makes the
 * most events of the kind IBS counts that it can:
 */
#define PGHOT_IBS_SAMPLE_NS		2000ULL
#define PGHOT_IBS_BUDGET_PPM		5000ULL
#define PGHOT_IBS_SAMPLES_PER_S		(PGHOT_IBS_BUDGET_PPM * NSEC_PER_SEC / \
					 PGHOT_IBS_SAMPLE_NS / 1000000ULL)
/* Cycles: 5 GHz. */
#define PGHOT_IBS_CYCLES_PER_S		5000000000ULL
/* Ops: 6 dispatched per cycle. */
#define PGHOT_IBS_OPS_PER_S		30000000000ULL
/*
 * Ops that miss L3 (with the L3-miss filter only those raise a sample): a
 * core keeps a few dozen demand misses in flight, 25 at 100 ns each.
 */
#define PGHOT_IBS_L3MISS_OPS_PER_S	250000000ULL

/* Smallest period the knob takes; the largest is the hardware's. */
#define PGHOT_IBS_PERIOD_MIN		0x1000

/* attr.config2 bit 0 ("swfilt"): the driver drops kernel samples itself. */
#define PGHOT_IBS_SW_FILTER		1ULL

/* 0: chosen by pghot_ibs_default_period() when sampling is armed. */
static unsigned long pghot_ibs_period;
static unsigned long pghot_ibs_l3miss_only = 1;
static unsigned long pghot_ibs_user_only = 1;

/* What the NMI handler keeps; set before the events exist. */
struct pghot_ibs_filter {
	bool user_only;		/* only ops that ran in user mode */
	bool l3miss;		/* the hardware tags only ops that miss L3 */
};

/* What became of one CPU's samples since sampling was armed. */
enum pghot_ibs_count {
	PGHOT_IBS_N_SAMPLES,	/* every sample */
	PGHOT_IBS_N_DRAM,	/* kept: loads DRAM served */
	PGHOT_IBS_N_CXL,	/* kept: loads CXL memory served */
	PGHOT_IBS_N_STORES,	/* kept: stores that missed the caches */
	PGHOT_IBS_N_REPORTED,	/* kept, of a lower-tier page: to pghot */
	PGHOT_IBS_N_UNTRACKED,	/* kept, of a top-tier or unknown page */
	PGHOT_IBS_N_REJECTED,	/* no hint: cache, IO, kernel op, no address */
	PGHOT_IBS_N_GUEST,	/* taken while a guest ran */
	PGHOT_IBS_N_SOURCE_OFF,	/* enabled_sources lacked 0x2 */
	PGHOT_IBS_NR_COUNTS
};

static const char * const pghot_ibs_count_names[] = {
	[PGHOT_IBS_N_SAMPLES] = "samples",
	[PGHOT_IBS_N_DRAM] = "dram",
	[PGHOT_IBS_N_CXL] = "cxl",
	[PGHOT_IBS_N_STORES] = "stores",
	[PGHOT_IBS_N_REPORTED] = "reported",
	[PGHOT_IBS_N_UNTRACKED] = "untracked",
	[PGHOT_IBS_N_REJECTED] = "rejected",
	[PGHOT_IBS_N_GUEST] = "guest",
	[PGHOT_IBS_N_SOURCE_OFF] = "source_off",
};

/* One CPU's event, or why it has none, and its counts. */
struct pghot_ibs_cpu {
	struct perf_event *event;
	int err;
	unsigned long n[PGHOT_IBS_NR_COUNTS];	/* written by this CPU's NMI */
};

static DEFINE_MUTEX(pghot_ibs_lock);
static DEFINE_PER_CPU(struct pghot_ibs_cpu, pghot_ibs_cpus);
static enum cpuhp_state pghot_ibs_hp_state;
static bool pghot_ibs_armed;
static struct pghot_ibs_filter pghot_ibs_filter;
static struct perf_event_attr pghot_ibs_attr;

/* What a sample is to pghot. */
enum pghot_ibs_class {
	PGHOT_IBS_REJECT,	/* no hint: see pghot_ibs_classify() */
	PGHOT_IBS_DRAM_LOCAL,	/* load from DRAM of this CPU's node */
	PGHOT_IBS_DRAM_REMOTE,	/* load from DRAM of another node */
	PGHOT_IBS_EXTMEM,	/* load from CXL (extension) memory */
	PGHOT_IBS_STORE,	/* store that missed every cache */
};

/**
 * pghot_ibs_classify - judge one decoded IBS op sample
 * @data: the sample as the IBS driver decoded it
 * @user: the sampled op ran in user mode
 * @f: the filter sampling was armed with
 *
 * A hint is an access to a user address (valid linear address below
 * TASK_SIZE_MAX) with a valid physical address: a load the CPU says DRAM
 * or CXL memory served, or, when the hardware tags only L3 misses, a store
 * that missed L1 and L2 (stores have no data source). With @f->user_only,
 * the op must have run in user mode; without, kernel accesses to user
 * memory (copy_to_user() and friends) count as well.
 *
 * Return: whether and as what the sample is a hardware hint.
 */
static enum pghot_ibs_class pghot_ibs_classify(const struct perf_sample_data *data,
					       bool user,
					       const struct pghot_ibs_filter *f)
{
	const u64 need = PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR |
			 PERF_SAMPLE_DATA_SRC;
	union perf_mem_data_src src = data->data_src;

	if ((data->sample_flags & need) != need || !data->phys_addr)
		return PGHOT_IBS_REJECT;
	if (data->addr >= TASK_SIZE_MAX || (f->user_only && !user))
		return PGHOT_IBS_REJECT;

	switch (src.mem_op) {
	case PERF_MEM_OP_LOAD:
		if (src.mem_lvl_num == PERF_MEM_LVLNUM_CXL)
			return PGHOT_IBS_EXTMEM;
		if (src.mem_lvl_num == PERF_MEM_LVLNUM_RAM)
			return src.mem_remote ? PGHOT_IBS_DRAM_REMOTE :
						PGHOT_IBS_DRAM_LOCAL;
		/* Caches, IO, uncached, PMEM, or no data source. */
		return PGHOT_IBS_REJECT;
	case PERF_MEM_OP_STORE:
		/*
		 * The driver says "not available" for a cacheable store that
		 * missed L1 and L2 and no miss buffer; the L3-miss filter
		 * says it missed L3.
		 */
		if (f->l3miss && src.mem_lvl_num == PERF_MEM_LVLNUM_NA)
			return PGHOT_IBS_STORE;
		return PGHOT_IBS_REJECT;
	default:
		return PGHOT_IBS_REJECT;
	}
}

/**
 * pghot_ibs_judge - what the NMI handler does with a sample
 * @data: the sample as the IBS driver decoded it
 * @user: the sampled op ran in user mode
 * @guest: the sample was taken while a guest ran (perf_guest_state())
 * @f: the filter sampling was armed with
 * @src_on: the hardware hint source is enabled
 * @page_nid: node of the sampled page, NUMA_NO_NODE if it is not online
 *	memory
 * @report: set when the sample goes to pghot
 *
 * Nothing is reported while the source is off (pghot would drop it, after
 * it took a place in the ring), nor a sample of a page that pghot does not
 * track: one on a top-tier node or not in online memory. The page's node
 * decides, whatever the data source says: "local DRAM" is local to the
 * fabric, and CPU-less lower-tier DRAM on the sampling CPU's socket
 * (dax/kmem) is local DRAM to IBS. IBS cannot leave guests out: a sample
 * taken in a guest is rejected, as nothing says its physical address is a
 * host one.
 *
 * Return: the sample's class, for the counters.
 */
static enum pghot_ibs_class pghot_ibs_judge(const struct perf_sample_data *data,
					    bool user, bool guest,
					    const struct pghot_ibs_filter *f,
					    bool src_on, int page_nid,
					    bool *report)
{
	enum pghot_ibs_class class;

	*report = false;
	if (!src_on || guest)
		return PGHOT_IBS_REJECT;
	class = pghot_ibs_classify(data, user, f);
	if (class == PGHOT_IBS_REJECT)
		return class;
	*report = page_nid != NUMA_NO_NODE && !node_is_toptier(page_nid);
	return class;
}

/*
 * The node of the page at @pfn, NUMA_NO_NODE unless it is online memory.
 * NMI context: the memory map cannot go away under an NMI handler, which
 * RCU waits for like any other non-preemptible section.
 */
static int pghot_ibs_page_nid(unsigned long pfn)
{
	struct page *page = pfn_to_online_page(pfn);

	return page ? page_to_nid(page) : NUMA_NO_NODE;
}

/*
 * The per-CPU count a sample goes into by its kind (see ibs/stats): one of
 * dram/cxl/stores if it was kept, else why it was no hint. @class is what
 * pghot_ibs_judge() said.
 */
static enum pghot_ibs_count pghot_ibs_kind(enum pghot_ibs_class class,
					   bool src_on, bool guest)
{
	switch (class) {
	case PGHOT_IBS_DRAM_LOCAL:
	case PGHOT_IBS_DRAM_REMOTE:
		return PGHOT_IBS_N_DRAM;
	case PGHOT_IBS_EXTMEM:
		return PGHOT_IBS_N_CXL;
	case PGHOT_IBS_STORE:
		return PGHOT_IBS_N_STORES;
	default:
		return !src_on ? PGHOT_IBS_N_SOURCE_OFF :
		       guest ? PGHOT_IBS_N_GUEST : PGHOT_IBS_N_REJECTED;
	}
}

/* NMI context: no locks, no sleeping, no allocation. */
static void pghot_ibs_overflow(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	struct pghot_ibs_filter f = {
		.user_only = READ_ONCE(pghot_ibs_filter.user_only),
		.l3miss = READ_ONCE(pghot_ibs_filter.l3miss),
	};
	bool src_on = pghot_src_enabled(PGHOT_HWHINTS);
	bool guest = perf_guest_state();
	enum pghot_ibs_class class;
	unsigned long pfn = 0;
	bool report;

	count_vm_event(HWHINT_TOTAL_EVENTS);
	this_cpu_inc(pghot_ibs_cpus.n[PGHOT_IBS_N_SAMPLES]);
	/* Where SME is on, the encryption bit is not part of the address. */
	if (data->sample_flags & PERF_SAMPLE_PHYS_ADDR)
		pfn = PHYS_PFN(__sme_clr(data->phys_addr));
	class = pghot_ibs_judge(data, user_mode(regs), guest, &f, src_on,
				pghot_ibs_page_nid(pfn), &report);
	if (class == PGHOT_IBS_DRAM_LOCAL || class == PGHOT_IBS_DRAM_REMOTE)
		count_vm_event(HWHINT_DRAM_ACCESSES);
	else if (class == PGHOT_IBS_EXTMEM)
		count_vm_event(HWHINT_EXTMEM_ACCESSES);
	this_cpu_inc(pghot_ibs_cpus.n[pghot_ibs_kind(class, src_on, guest)]);
	if (class == PGHOT_IBS_REJECT)
		return;
	if (!report) {
		this_cpu_inc(pghot_ibs_cpus.n[PGHOT_IBS_N_UNTRACKED]);
		return;
	}
	this_cpu_inc(pghot_ibs_cpus.n[PGHOT_IBS_N_REPORTED]);
	count_vm_event(HWHINT_USEFUL_EVENTS);
	pghot_hwhint_report(pfn, numa_node_id(), jiffies);
}

/* The largest period the hardware counter takes. */
static u64 pghot_ibs_period_max(u32 caps)
{
	u64 max = IBS_OP_MAX_CNT << 4;

	if (caps & IBS_CAPS_OPCNTEXT)
		max |= IBS_OP_MAX_CNT_EXT_MASK;
	return max;
}

/**
 * pghot_ibs_default_period - the period that keeps sampling in budget
 * @caps: IBS capabilities (CPUID Fn8000_001B_EAX)
 * @l3miss: the L3-miss filter will be on
 *
 * Events per second at most, over samples per second allowed, rounded up
 * to the 16 the hardware counts in, and capped by the hardware: without
 * OpCntExt (before Zen) the cap is 1048560 and the bound does not hold.
 *
 * Return: the period, in the unit the event will count.
 */
static u64 pghot_ibs_default_period(u32 caps, bool l3miss)
{
	u64 rate, period;

	if (!(caps & IBS_CAPS_OPCNT))
		rate = PGHOT_IBS_CYCLES_PER_S;
	else if (l3miss)
		rate = PGHOT_IBS_L3MISS_OPS_PER_S;
	else
		rate = PGHOT_IBS_OPS_PER_S;
	period = round_up(DIV_ROUND_UP_ULL(rate, PGHOT_IBS_SAMPLES_PER_S), 16);
	return min(period, pghot_ibs_period_max(caps));
}

/* The period sampling uses: the knob's, or the default for this CPU. */
static u64 pghot_ibs_effective_period(u32 caps, bool l3miss, unsigned long knob)
{
	return knob ? knob : pghot_ibs_default_period(caps, l3miss);
}

/**
 * pghot_ibs_build_attr - the perf event attributes of pghot's IBS events
 * @attr: filled in
 * @caps: IBS capabilities
 * @type: perf type of the ibs_op PMU
 * @period: sample period
 * @l3miss: tag only ops that miss L3 (Zen 4 and later)
 * @user_only: sample user-mode ops only
 */
static void pghot_ibs_build_attr(struct perf_event_attr *attr, u32 caps,
				 int type, u64 period, bool l3miss,
				 bool user_only)
{
	*attr = (struct perf_event_attr) {
		.type = type,
		.size = sizeof(*attr),
		.sample_period = period,
		.sample_type = PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR |
			       PERF_SAMPLE_DATA_SRC,
		.exclude_kernel = user_only,
		.pinned = 1,
	};
	/* Count ops (IbsOpCntCtl) where the CPU can, cycles otherwise. */
	if (caps & IBS_CAPS_OPCNT)
		attr->config |= IBS_OP_CNT_CTL;
	if (l3miss)
		attr->config |= IBS_OP_L3MISSONLY;
	/* Without the hardware RIP filter the driver filters in software. */
	if (user_only && !(caps & IBS_CAPS_BIT63_FILTER))
		attr->config2 = PGHOT_IBS_SW_FILTER;
}

enum pghot_ibs_cpu_state {
	PGHOT_IBS_CPU_ARMED,
	PGHOT_IBS_CPU_ERROR,	/* perf could not schedule it: IBS is taken */
	PGHOT_IBS_CPU_OFF,
	PGHOT_IBS_CPU_INACTIVE,
	PGHOT_IBS_CPU_FAILED,	/* perf refused to create it */
	PGHOT_IBS_CPU_STOPPED,	/* active but stopped: throttled by perf */
};

static const char * const pghot_ibs_cpu_state_names[] = {
	[PGHOT_IBS_CPU_ARMED] = "armed",
	[PGHOT_IBS_CPU_ERROR] = "error",
	[PGHOT_IBS_CPU_OFF] = "off",
	[PGHOT_IBS_CPU_INACTIVE] = "inactive",
	[PGHOT_IBS_CPU_FAILED] = "failed",
	[PGHOT_IBS_CPU_STOPPED] = "stopped",
};

static enum pghot_ibs_cpu_state pghot_ibs_cpu_state(const struct pghot_ibs_cpu *pc)
{
	if (!pc->event)
		return PGHOT_IBS_CPU_FAILED;
	switch (READ_ONCE(pc->event->state)) {
	case PERF_EVENT_STATE_ACTIVE:
		/* Stopped: perf throttles one that samples too often. */
		if (READ_ONCE(pc->event->hw.state) & PERF_HES_STOPPED)
			return PGHOT_IBS_CPU_STOPPED;
		return PGHOT_IBS_CPU_ARMED;
	case PERF_EVENT_STATE_ERROR:
		return PGHOT_IBS_CPU_ERROR;
	case PERF_EVENT_STATE_OFF:
		return PGHOT_IBS_CPU_OFF;
	default:
		return PGHOT_IBS_CPU_INACTIVE;
	}
}

/* 0 if @pc samples; else -EBUSY (perf holds the event back) or perf's error. */
static int pghot_ibs_cpu_check(const struct pghot_ibs_cpu *pc)
{
	if (!pc->event)
		return pc->err ? pc->err : -ENODEV;
	switch (pghot_ibs_cpu_state(pc)) {
	case PGHOT_IBS_CPU_ARMED:
	case PGHOT_IBS_CPU_STOPPED:
		return 0;
	default:
		return -EBUSY;
	}
}

/*
 * Create @cpu's event in @pc. Never fails the CPU: pghot_ibs_arm() checks
 * every CPU afterwards, and a CPU coming online later must come online
 * whatever IBS does.
 */
static int __pghot_ibs_cpu_online(struct pghot_ibs_cpu *pc,
				  struct perf_event_attr *attr,
				  unsigned int cpu)
{
	struct perf_event *event;

	event = perf_event_create_kernel_counter(attr, cpu, NULL,
						 pghot_ibs_overflow, NULL);
	pc->event = IS_ERR(event) ? NULL : event;
	pc->err = IS_ERR(event) ? PTR_ERR(event) : 0;
	return 0;
}

static int pghot_ibs_cpu_online(unsigned int cpu)
{
	struct pghot_ibs_cpu *pc = per_cpu_ptr(&pghot_ibs_cpus, cpu);

	__pghot_ibs_cpu_online(pc, &pghot_ibs_attr, cpu);
	/* Only the log line looks at "armed": arming checks by itself. */
	if (READ_ONCE(pghot_ibs_armed) && pghot_ibs_cpu_check(pc))
		pr_warn("no IBS sampling on CPU %u: %s (%d)\n", cpu,
			pghot_ibs_cpu_state_names[pghot_ibs_cpu_state(pc)],
			pghot_ibs_cpu_check(pc));
	return 0;
}

static int pghot_ibs_cpu_offline(unsigned int cpu)
{
	struct pghot_ibs_cpu *pc = per_cpu_ptr(&pghot_ibs_cpus, cpu);
	struct perf_event *event = pc->event;

	pc->event = NULL;
	pc->err = 0;
	if (event)
		perf_event_release_kernel(event);
	return 0;
}

static void pghot_ibs_disarm(void)
{
	lockdep_assert_held(&pghot_ibs_lock);
	if (!pghot_ibs_armed)
		return;
	cpuhp_remove_state(pghot_ibs_hp_state);
	/* Every event is released: perf may have the op unit back. */
	amd_ibs_op_release(pghot_ibs_overflow);
	WRITE_ONCE(pghot_ibs_armed, false);
}

/* Arm sampling on every online CPU, or on none. */
static int pghot_ibs_arm(void)
{
	u32 caps = get_ibs_caps();
	int type, ret, cpu, bad = -1, nr_bad = 0;
	bool l3miss = pghot_ibs_l3miss_only, user_only = pghot_ibs_user_only;

	lockdep_assert_held(&pghot_ibs_lock);
	if (pghot_ibs_armed)
		return 0;
	type = amd_ibs_op_pmu_type();
	if (!(caps & IBS_CAPS_OPSAM) || type < 0) {
		pr_info("not started: this CPU has no IBS op sampling\n");
		return -ENODEV;
	}
	if (l3miss && !(caps & IBS_CAPS_ZEN4)) {
		pr_info("not started: l3miss_only needs Zen 4 or later; set it to 0\n");
		return -EOPNOTSUPP;
	}
	pghot_ibs_build_attr(&pghot_ibs_attr, caps, type,
			     pghot_ibs_effective_period(caps, l3miss, pghot_ibs_period),
			     l3miss, user_only);
	WRITE_ONCE(pghot_ibs_filter.user_only, user_only);
	WRITE_ONCE(pghot_ibs_filter.l3miss, l3miss);

	/*
	 * The op unit alone, or not at all: pinned events would take it from
	 * the flexible events of perf record, perf mem or perf c2c, which
	 * would stop sampling without an error. While pghot holds it, perf
	 * gets -EBUSY for new ibs_op events.
	 */
	ret = amd_ibs_op_claim(pghot_ibs_overflow);
	if (ret) {
		pr_info("not started: perf events are open on ibs_op (perf record, perf mem, perf c2c?): %d\n",
			ret);
		return ret;
	}
	/* No event of ours exists: no NMI handler runs on the counts. */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&pghot_ibs_cpus, cpu)->n, 0,
		       sizeof(pghot_ibs_cpus.n));
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/x86/amd/pghot_ibs:online",
				pghot_ibs_cpu_online, pghot_ibs_cpu_offline);
	if (ret < 0) {
		pr_info("not started: CPU hotplug state: %d\n", ret);
		amd_ibs_op_release(pghot_ibs_overflow);
		return ret;
	}
	pghot_ibs_hp_state = ret;

	/*
	 * A pinned event that perf cannot schedule (another in-kernel user
	 * of the op PMU on that CPU, a guest's) sits in the error state and
	 * never samples.
	 */
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (!pghot_ibs_cpu_check(per_cpu_ptr(&pghot_ibs_cpus, cpu)))
			continue;
		if (bad < 0)
			bad = cpu;
		nr_bad++;
	}
	if (bad >= 0) {
		const struct pghot_ibs_cpu *pc = per_cpu_ptr(&pghot_ibs_cpus, bad);

		ret = pghot_ibs_cpu_check(pc);
		pr_info("not started: no IBS op sampling on %d CPUs, CPU %d first: %s (%d); is perf using ibs_op?\n",
			nr_bad, bad,
			pghot_ibs_cpu_state_names[pghot_ibs_cpu_state(pc)], ret);
	}
	cpus_read_unlock();
	if (bad >= 0) {
		cpuhp_remove_state(pghot_ibs_hp_state);
		amd_ibs_op_release(pghot_ibs_overflow);
		return ret;
	}
	WRITE_ONCE(pghot_ibs_armed, true);
	if (!pghot_src_enabled(PGHOT_HWHINTS))
		pr_info("sampling, but enabled_sources lacks 0x2: samples are not used\n");
	return 0;
}

static void pghot_ibs_disable(void);
static void pghot_ibs_show(struct seq_file *m);

static struct pghot_hwhint_provider pghot_ibs_provider = {
	.name = "ibs_op",
	.disable = pghot_ibs_disable,
	.show = pghot_ibs_show,
};

static void pghot_ibs_disable(void)
{
	mutex_lock(&pghot_ibs_lock);
	pghot_ibs_disarm();
	pghot_hwhint_set_state(&pghot_ibs_provider, false);
	mutex_unlock(&pghot_ibs_lock);
}

/* Per-CPU state for /sys/kernel/debug/pghot/stats. */
static void pghot_ibs_show(struct seq_file *m)
{
	u32 caps = get_ibs_caps();
	int cpu;

	mutex_lock(&pghot_ibs_lock);
	if (pghot_ibs_armed)
		seq_printf(m, "ibs_op period %llu %s\n", pghot_ibs_attr.sample_period,
			   pghot_ibs_attr.config & IBS_OP_CNT_CTL ? "ops" : "cycles");
	else
		seq_printf(m, "ibs_op period %llu %s%s\n",
			   pghot_ibs_effective_period(caps, pghot_ibs_l3miss_only,
						      pghot_ibs_period),
			   caps & IBS_CAPS_OPCNT ? "ops" : "cycles",
			   pghot_ibs_period ? "" : " (default)");
	if (pghot_ibs_armed) {
		/* Hotplug callbacks, which change the events, are excluded. */
		cpus_read_lock();
		for_each_possible_cpu(cpu) {
			const struct pghot_ibs_cpu *pc = per_cpu_ptr(&pghot_ibs_cpus, cpu);

			seq_printf(m, "ibs_op cpu%d %s\n", cpu, cpu_online(cpu) ?
				   pghot_ibs_cpu_state_names[pghot_ibs_cpu_state(pc)] :
				   "offline");
		}
		cpus_read_unlock();
	}
	mutex_unlock(&pghot_ibs_lock);
}

/*
 * /sys/kernel/debug/pghot/ibs/stats: per CPU, its state and what became of
 * its samples since sampling was last armed; then the totals. Read-only,
 * so it can be read under kernel lockdown too.
 */
static int pghot_ibs_stats_show(struct seq_file *m, void *unused)
{
	unsigned long total[PGHOT_IBS_NR_COUNTS] = {};
	int cpu, i;

	mutex_lock(&pghot_ibs_lock);
	seq_printf(m, "armed %d\n", pghot_ibs_armed);
	/* Hotplug callbacks, which change the events, are excluded. */
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		const struct pghot_ibs_cpu *pc = per_cpu_ptr(&pghot_ibs_cpus, cpu);

		seq_printf(m, "cpu%d %s", cpu, !cpu_online(cpu) ? "offline" :
			   !pghot_ibs_armed ? "disarmed" :
			   pghot_ibs_cpu_state_names[pghot_ibs_cpu_state(pc)]);
		for (i = 0; i < PGHOT_IBS_NR_COUNTS; i++) {
			unsigned long n = READ_ONCE(pc->n[i]);

			total[i] += n;
			seq_printf(m, " %s %lu", pghot_ibs_count_names[i], n);
		}
		seq_putc(m, '\n');
	}
	cpus_read_unlock();
	seq_puts(m, "total");
	for (i = 0; i < PGHOT_IBS_NR_COUNTS; i++)
		seq_printf(m, " %s %lu", pghot_ibs_count_names[i], total[i]);
	seq_putc(m, '\n');
	mutex_unlock(&pghot_ibs_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pghot_ibs_stats);

/* The files of /sys/kernel/debug/pghot/ibs/. */
struct pghot_ibs_knob {
	const char *name;
	unsigned long *val;		/* NULL: "enabled" */
	unsigned long min, max;		/* max 0: the hardware's period max */
	bool zero_ok;			/* 0 means "default" */
};

static const struct pghot_ibs_knob pghot_ibs_knobs[] = {
	{ "enabled", NULL, 0, 1 },
	{ "period", &pghot_ibs_period, PGHOT_IBS_PERIOD_MIN, 0, true },
	{ "l3miss_only", &pghot_ibs_l3miss_only, 0, 1 },
	{ "user_only", &pghot_ibs_user_only, 0, 1 },
};

static int pghot_ibs_enabled_set(unsigned long val)
{
	int ret = 0;

	if (val > 1)
		return -EINVAL;
	mutex_lock(&pghot_ibs_lock);
	if (val) {
		/* pghot's rings are there before the first sample. */
		ret = pghot_hwhint_set_state(&pghot_ibs_provider, true);
		if (!ret)
			ret = pghot_ibs_arm();
	} else {
		pghot_ibs_disarm();
	}
	if (!pghot_ibs_armed)
		pghot_hwhint_set_state(&pghot_ibs_provider, false);
	mutex_unlock(&pghot_ibs_lock);
	return ret;
}

/* The sampling knobs apply when sampling is armed; change them while off. */
static int pghot_ibs_knob_set(const struct pghot_ibs_knob *k, unsigned long val)
{
	unsigned long max = k->max ? k->max : pghot_ibs_period_max(get_ibs_caps());
	int ret = 0;

	if (!k->val)
		return pghot_ibs_enabled_set(val);
	if (!(k->zero_ok && !val) && (val < k->min || val > max))
		return -EINVAL;
	mutex_lock(&pghot_ibs_lock);
	if (pghot_ibs_armed)
		ret = -EBUSY;
	else
		WRITE_ONCE(*k->val, val);
	mutex_unlock(&pghot_ibs_lock);
	return ret;
}

/* Longest input: "0x" and 16 hex digits, a newline, with room to spare. */
#define PGHOT_IBS_INPUT_MAX	24

/*
 * One unsigned number, decimal or 0x-prefixed, with an optional newline.
 * Anything else, a NUL byte that would end the number early included, is
 * -EINVAL.
 */
static int pghot_ibs_parse(const char *buf, size_t count, unsigned long *val)
{
	if (!count || count >= PGHOT_IBS_INPUT_MAX || strnlen(buf, count) != count)
		return -EINVAL;
	return kstrtoul(buf, 0, val) ? -EINVAL : 0;
}

static ssize_t pghot_ibs_knob_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	const struct pghot_ibs_knob *k = file->private_data;
	char buf[PGHOT_IBS_INPUT_MAX];
	unsigned long val;
	int ret;

	if (*ppos || !count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	ret = pghot_ibs_parse(buf, count, &val);
	if (!ret)
		ret = pghot_ibs_knob_set(k, val);
	return ret ? ret : count;
}

static ssize_t pghot_ibs_knob_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	const struct pghot_ibs_knob *k = file->private_data;
	char buf[PGHOT_IBS_INPUT_MAX];
	unsigned long val;
	int len;

	val = k->val ? READ_ONCE(*k->val) : READ_ONCE(pghot_ibs_armed);
	len = scnprintf(buf, sizeof(buf), "%lu\n", val);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations pghot_ibs_knob_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = pghot_ibs_knob_read,
	.write = pghot_ibs_knob_write,
	.llseek = default_llseek,
};

/*
 * Suspend and resume. The other CPUs go offline and come back through the
 * hotplug callbacks, but the boot CPU's event stays active across S3 (or
 * hibernation) while the op unit's control register is lost: it would
 * never sample again. So sampling is disarmed before the system sleeps
 * and armed again after, with the knobs it had.
 */
enum pghot_ibs_pm_action {
	PGHOT_IBS_PM_NONE,
	PGHOT_IBS_PM_DISARM,
	PGHOT_IBS_PM_REARM,
};

/**
 * pghot_ibs_pm_step - what a power-management event asks of the provider
 * @event: PM_SUSPEND_PREPARE, PM_POST_SUSPEND, ... (linux/suspend.h)
 * @armed: sampling is armed now
 * @rearm: sampling was armed when the system went to sleep; updated
 *
 * Return: what to do.
 */
static enum pghot_ibs_pm_action pghot_ibs_pm_step(unsigned long event,
						  bool armed, bool *rearm)
{
	switch (event) {
	case PM_SUSPEND_PREPARE:
	case PM_HIBERNATION_PREPARE:
	case PM_RESTORE_PREPARE:
		*rearm = armed;
		return armed ? PGHOT_IBS_PM_DISARM : PGHOT_IBS_PM_NONE;
	case PM_POST_SUSPEND:
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		if (!*rearm)
			return PGHOT_IBS_PM_NONE;
		*rearm = false;
		/* Armed again by hand in between: nothing to do. */
		return armed ? PGHOT_IBS_PM_NONE : PGHOT_IBS_PM_REARM;
	default:
		return PGHOT_IBS_PM_NONE;
	}
}

static int pghot_ibs_pm_notify(struct notifier_block *nb, unsigned long event,
			       void *unused)
{
	static bool rearm;
	int ret;

	mutex_lock(&pghot_ibs_lock);
	switch (pghot_ibs_pm_step(event, pghot_ibs_armed, &rearm)) {
	case PGHOT_IBS_PM_DISARM:
		pghot_ibs_disarm();
		pghot_hwhint_set_state(&pghot_ibs_provider, false);
		break;
	case PGHOT_IBS_PM_REARM:
		ret = pghot_hwhint_set_state(&pghot_ibs_provider, true);
		if (!ret)
			ret = pghot_ibs_arm();
		if (ret) {
			pghot_hwhint_set_state(&pghot_ibs_provider, false);
			pr_warn("not armed again after resume: %d\n", ret);
		}
		break;
	case PGHOT_IBS_PM_NONE:
		break;
	}
	mutex_unlock(&pghot_ibs_lock);
	return NOTIFY_DONE;
}

static struct notifier_block pghot_ibs_pm_nb = {
	.notifier_call = pghot_ibs_pm_notify,
};

/* late_initcall: after the IBS PMU (device_initcall) has registered. */
static int __init pghot_ibs_init(void)
{
	u32 caps = get_ibs_caps();
	struct dentry *dir;
	int i, ret;

	if (!(caps & IBS_CAPS_OPSAM) || amd_ibs_op_pmu_type() < 0) {
		/* Say so where IBS could be: an AMD CPU (BIOS, hypervisor). */
		if (boot_cpu_data.x86_vendor == X86_VENDOR_AMD)
			pr_info("this CPU has no IBS op sampling: no provider\n");
		return 0;
	}
	/* L3-miss-only by default where the CPU can do it. */
	pghot_ibs_l3miss_only = !!(caps & IBS_CAPS_ZEN4);
	ret = pghot_hwhint_register(&pghot_ibs_provider);
	if (ret) {
		/* pghot_mode=off: no knobs, no rings, nothing armed. */
		pr_info("pghot is off: no provider\n");
		return 0;
	}
	dir = debugfs_create_dir("ibs", pghot_debugfs_dir());
	for (i = 0; i < ARRAY_SIZE(pghot_ibs_knobs); i++)
		debugfs_create_file(pghot_ibs_knobs[i].name, 0600, dir,
				    (void *)&pghot_ibs_knobs[i],
				    &pghot_ibs_knob_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &pghot_ibs_stats_fops);
	register_pm_notifier(&pghot_ibs_pm_nb);
	return 0;
}

late_initcall(pghot_ibs_init);

#include "tests/pghot_ibs-kunit.h"
