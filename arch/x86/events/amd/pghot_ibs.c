// SPDX-License-Identifier: GPL-2.0
/*
 * AMD IBS op sampling as a pghot hardware hint provider.
 *
 * One in-kernel perf event per online CPU on the ibs_op PMU. The IBS
 * driver already decodes each sample's physical address and data source
 * (with the CXL level on Zen 4 and later); the overflow handler, in NMI
 * context, keeps user-space loads and stores that missed the caches and
 * have a valid physical address, counts them, and hands them to pghot
 * through pghot_hwhint_report().
 *
 * Knobs in /sys/kernel/debug/pghot/ibs/: enabled, period (ops between
 * samples), l3miss_only and user_only. A CPU without IBS, or a PMU that
 * perf cannot give, fails "enabled" with the error and one log line.
 */
#define pr_fmt(fmt) "pghot_ibs: " fmt

#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/pghot.h>

#include <asm/perf_event.h>

#define PGHOT_IBS_PERIOD_MIN	0x1000
#define PGHOT_IBS_PERIOD_MAX	0x1000000

static unsigned long pghot_ibs_period = 10000;
static unsigned long pghot_ibs_l3miss_only = 1;
static unsigned long pghot_ibs_user_only = 1;

static DEFINE_MUTEX(pghot_ibs_lock);
static DEFINE_PER_CPU(struct perf_event *, pghot_ibs_events);
static enum cpuhp_state pghot_ibs_hp_state;
static bool pghot_ibs_armed;
static bool pghot_ibs_l3miss_armed;	/* the hardware drops cache hits */
static struct perf_event_attr pghot_ibs_attr;

/* What a sample is to pghot. */
enum pghot_ibs_class {
	PGHOT_IBS_REJECT,	/* not a user load/store missing the caches */
	PGHOT_IBS_DRAM,		/* from DRAM */
	PGHOT_IBS_EXTMEM,	/* from CXL memory */
	PGHOT_IBS_MEMORY,	/* missed the caches, source not reported */
};

/**
 * pghot_ibs_classify - judge one decoded IBS op sample
 * @data: the sample as the IBS driver decoded it
 * @user: the sampled op ran in user mode
 * @l3miss_armed: the hardware only samples ops that missed L3
 *
 * Return: whether and as what the sample is a hardware hint.
 */
static enum pghot_ibs_class pghot_ibs_classify(const struct perf_sample_data *data,
					       bool user, bool l3miss_armed)
{
	union perf_mem_data_src src = data->data_src;

	if (!user)
		return PGHOT_IBS_REJECT;
	if (!(data->sample_flags & PERF_SAMPLE_PHYS_ADDR) || !data->phys_addr)
		return PGHOT_IBS_REJECT;
	if ((data->sample_flags & PERF_SAMPLE_ADDR) && data->addr >= TASK_SIZE_MAX)
		return PGHOT_IBS_REJECT;
	if (!(data->sample_flags & PERF_SAMPLE_DATA_SRC) ||
	    (src.mem_op != PERF_MEM_OP_LOAD && src.mem_op != PERF_MEM_OP_STORE))
		return PGHOT_IBS_REJECT;

	switch (src.mem_lvl_num) {
	case PERF_MEM_LVLNUM_RAM:
		return PGHOT_IBS_DRAM;
	case PERF_MEM_LVLNUM_CXL:
		return PGHOT_IBS_EXTMEM;
	case PERF_MEM_LVLNUM_L1:
	case PERF_MEM_LVLNUM_L2:
	case PERF_MEM_LVLNUM_L3:
	case PERF_MEM_LVLNUM_L4:
	case PERF_MEM_LVLNUM_ANY_CACHE:
	case PERF_MEM_LVLNUM_LFB:
		return PGHOT_IBS_REJECT;
	default:
		/* Stores carry no data source: trust the hardware filter. */
		return l3miss_armed ? PGHOT_IBS_MEMORY : PGHOT_IBS_REJECT;
	}
}

/* NMI context: no locks, no sleeping, no allocation. */
static void pghot_ibs_overflow(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	enum pghot_ibs_class class;

	count_vm_event(HWHINT_TOTAL_EVENTS);
	class = pghot_ibs_classify(data, user_mode(regs),
				   READ_ONCE(pghot_ibs_l3miss_armed));
	if (class == PGHOT_IBS_REJECT)
		return;
	count_vm_event(HWHINT_USEFUL_EVENTS);
	if (class == PGHOT_IBS_DRAM)
		count_vm_event(HWHINT_DRAM_ACCESSES);
	else if (class == PGHOT_IBS_EXTMEM)
		count_vm_event(HWHINT_EXTMEM_ACCESSES);
	pghot_hwhint_report(PHYS_PFN(data->phys_addr), numa_node_id(), jiffies);
}

static int pghot_ibs_cpu_online(unsigned int cpu)
{
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&pghot_ibs_attr, cpu, NULL,
						 pghot_ibs_overflow, NULL);
	if (IS_ERR(event)) {
		/* While arming: all CPUs or none. Later: never block a CPU. */
		if (!pghot_ibs_armed)
			return PTR_ERR(event);
		pr_warn("no IBS sampling on CPU %u: %ld\n", cpu, PTR_ERR(event));
		return 0;
	}
	per_cpu(pghot_ibs_events, cpu) = event;
	return 0;
}

static int pghot_ibs_cpu_offline(unsigned int cpu)
{
	struct perf_event *event = per_cpu(pghot_ibs_events, cpu);

	per_cpu(pghot_ibs_events, cpu) = NULL;
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
	pghot_ibs_armed = false;
}

static void pghot_ibs_disable(void);

static struct pghot_hwhint_provider pghot_ibs_provider = {
	.name = "ibs_op",
	.disable = pghot_ibs_disable,
};

static void pghot_ibs_disable(void)
{
	mutex_lock(&pghot_ibs_lock);
	pghot_ibs_disarm();
	mutex_unlock(&pghot_ibs_lock);
}

/* Arm sampling on every online CPU, or on none. */
static int pghot_ibs_arm(void)
{
	u32 caps = get_ibs_caps();
	int type, ret;

	lockdep_assert_held(&pghot_ibs_lock);
	if (pghot_ibs_armed)
		return 0;
	type = amd_ibs_op_pmu_type();
	if (!caps || type < 0) {
		pr_info("not started: this CPU has no IBS op sampling\n");
		return -ENODEV;
	}
	if (pghot_ibs_l3miss_only && !(caps & IBS_CAPS_ZEN4)) {
		pr_info("not started: l3miss_only needs Zen 4 or later; set it to 0\n");
		return -EOPNOTSUPP;
	}
	pghot_ibs_attr = (struct perf_event_attr) {
		.type = type,
		.size = sizeof(pghot_ibs_attr),
		.sample_period = pghot_ibs_period,
		.sample_type = PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_SRC |
			       PERF_SAMPLE_ADDR,
		.config = pghot_ibs_l3miss_only ? IBS_OP_L3MISSONLY : 0,
		.exclude_kernel = pghot_ibs_user_only,
		.pinned = 1,
	};
	/* Without the hardware RIP filter the driver filters in software. */
	if (pghot_ibs_user_only && !(caps & IBS_CAPS_BIT63_FILTER))
		pghot_ibs_attr.config2 = 1;
	WRITE_ONCE(pghot_ibs_l3miss_armed, pghot_ibs_l3miss_only);

	/* On failure the CPUs already armed are disarmed again. */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/x86/amd/pghot_ibs:online",
				pghot_ibs_cpu_online, pghot_ibs_cpu_offline);
	if (ret < 0) {
		pr_info("not started: perf cannot give the ibs_op events (%d)\n", ret);
		return ret;
	}
	pghot_ibs_hp_state = ret;
	pghot_ibs_armed = true;
	return 0;
}

static int pghot_ibs_enabled_get(void *data, u64 *val)
{
	*val = READ_ONCE(pghot_ibs_armed);
	return 0;
}

static int pghot_ibs_enabled_set(void *data, u64 val)
{
	int ret = 0;

	if (val > 1)
		return -EINVAL;
	mutex_lock(&pghot_ibs_lock);
	if (val)
		ret = pghot_ibs_arm();
	else
		pghot_ibs_disarm();
	pghot_hwhint_set_state(&pghot_ibs_provider, pghot_ibs_armed);
	mutex_unlock(&pghot_ibs_lock);
	return ret;
}

/*
 * simple_attr parses at most sizeof(set_buf) - 1 = 23 characters and
 * passes kstrtoull()'s -ERANGE on: reject longer input, which it would
 * silently cut, and numbers that do not fit, with -EINVAL like every other
 * pghot file.
 */
#define PGHOT_IBS_INPUT_MAX	24

static ssize_t pghot_ibs_attr_write(struct file *file, const char __user *buf,
				    size_t len, loff_t *ppos)
{
	ssize_t ret;

	if (len >= PGHOT_IBS_INPUT_MAX)
		return -EINVAL;
	ret = debugfs_attr_write(file, buf, len, ppos);
	return ret == -ERANGE ? -EINVAL : ret;
}

/* The sampling knobs apply when sampling is armed; change them while off. */
struct pghot_ibs_knob {
	const char *name;
	unsigned long *val;
	unsigned long min, max;
};

static const struct pghot_ibs_knob pghot_ibs_knobs[] = {
	{ "period", &pghot_ibs_period, PGHOT_IBS_PERIOD_MIN, PGHOT_IBS_PERIOD_MAX },
	{ "l3miss_only", &pghot_ibs_l3miss_only, 0, 1 },
	{ "user_only", &pghot_ibs_user_only, 0, 1 },
};

static int pghot_ibs_knob_get(void *data, u64 *val)
{
	const struct pghot_ibs_knob *k = data;

	*val = READ_ONCE(*k->val);
	return 0;
}

static int pghot_ibs_knob_set(void *data, u64 val)
{
	const struct pghot_ibs_knob *k = data;
	int ret = 0;

	if (val < k->min || val > k->max)
		return -EINVAL;
	mutex_lock(&pghot_ibs_lock);
	if (pghot_ibs_armed)
		ret = -EBUSY;
	else
		WRITE_ONCE(*k->val, val);
	mutex_unlock(&pghot_ibs_lock);
	return ret;
}

/* "enabled" has no private data, each knob its struct pghot_ibs_knob. */
static int pghot_ibs_attr_open(struct inode *inode, struct file *file)
{
	if (!inode->i_private)
		return simple_attr_open(inode, file, pghot_ibs_enabled_get,
					pghot_ibs_enabled_set, "%llu\n");
	return simple_attr_open(inode, file, pghot_ibs_knob_get,
				pghot_ibs_knob_set, "%llu\n");
}

static const struct file_operations pghot_ibs_attr_fops = {
	.owner = THIS_MODULE,
	.open = pghot_ibs_attr_open,
	.release = simple_attr_release,
	.read = debugfs_attr_read,
	.write = pghot_ibs_attr_write,
};

/* late_initcall: after the IBS PMU (device_initcall) has registered. */
static int __init pghot_ibs_init(void)
{
	struct dentry *dir;
	int i;

	/* L3-miss-only by default where the CPU can do it. */
	pghot_ibs_l3miss_only = !!(get_ibs_caps() & IBS_CAPS_ZEN4);
	dir = debugfs_create_dir("ibs", pghot_debugfs_dir());
	debugfs_create_file_unsafe("enabled", 0600, dir, NULL, &pghot_ibs_attr_fops);
	for (i = 0; i < ARRAY_SIZE(pghot_ibs_knobs); i++)
		debugfs_create_file_unsafe(pghot_ibs_knobs[i].name, 0600, dir,
					   (void *)&pghot_ibs_knobs[i],
					   &pghot_ibs_attr_fops);
	pghot_hwhint_register(&pghot_ibs_provider);
	return 0;
}

late_initcall(pghot_ibs_init);

#include "tests/pghot_ibs-kunit.h"
