// SPDX-License-Identifier: GPL-2.0
/*
 * Debug injection of hardware hints: /sys/kernel/debug/pghot/inject.
 *
 * Each write is a list of PFNs, separated by white space, each optionally
 * followed by ":<nid>", the node of the CPU that supposedly made the
 * access (default: the writer's node). They are reported through the same
 * per-CPU hardware hint path as real samples, so the whole hwhint ->
 * record -> kmigrated pipeline can be tested on machines without sampling
 * hardware. The write is all or nothing: a token that is not a number, a
 * PFN that is not online memory or a node that is not online fails the
 * write with -EINVAL before anything is reported; so does a NUL byte,
 * which would otherwise end the list early. When the write returns, every
 * PFN has been recorded (or dropped by the enabled_sources gate).
 *
 * The injector is a hardware hint provider like any other: its first
 * write registers it, which allocates the per-CPU rings.
 */
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "internal.h"

/* Largest write accepted: some 4000 PFNs. */
#define PGHOT_INJECT_MAX	SZ_64K

struct pghot_inject {
	unsigned long pfn;
	int nid;
};

static struct pghot_hwhint_provider pghot_inject_provider = {
	.name = "inject",
};

/* Register the injector with the hardware hint path on first use. */
static int pghot_inject_register(void)
{
	static DEFINE_MUTEX(lock);
	static bool registered;
	int ret = 0;

	mutex_lock(&lock);
	if (!registered) {
		ret = pghot_hwhint_register(&pghot_inject_provider);
		if (!ret) {
			ret = pghot_hwhint_set_state(&pghot_inject_provider, true);
			if (ret)
				pghot_hwhint_unregister(&pghot_inject_provider);
			else
				registered = true;
		}
	}
	mutex_unlock(&lock);
	return ret;
}

/* Parse "PFN[:NID]"; NUMA_NO_NODE when no node is given. */
static int pghot_inject_parse(char *tok, struct pghot_inject *in)
{
	char *colon = strchr(tok, ':');
	int nid = NUMA_NO_NODE;

	if (colon) {
		*colon = '\0';
		if (kstrtoint(colon + 1, 0, &nid) || nid < 0 ||
		    nid >= MAX_NUMNODES || !node_online(nid))
			return -EINVAL;
	}
	if (kstrtoul(tok, 0, &in->pfn) || !pfn_to_online_page(in->pfn))
		return -EINVAL;
	in->nid = nid;
	return 0;
}

static ssize_t pghot_inject_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct pghot_inject *in;
	unsigned int n = 0, i;
	char *buf, *p, *tok;
	ssize_t ret = count;

	if (!count || count > PGHOT_INJECT_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* strsep() would stop at a NUL and take the list as shorter. */
	if (strlen(buf) != count) {
		kfree(buf);
		return -EINVAL;
	}
	/* At most one entry per two bytes ("1 1 1 ..."). */
	in = kvmalloc_array(count / 2 + 1, sizeof(*in), GFP_KERNEL);
	if (!in) {
		kfree(buf);
		return -ENOMEM;
	}
	p = buf;
	while ((tok = strsep(&p, " \t\n"))) {
		if (!*tok)
			continue;
		if (pghot_inject_parse(tok, &in[n])) {
			ret = -EINVAL;
			goto out;
		}
		n++;
	}
	if (!n) {
		ret = -EINVAL;
		goto out;
	}
	ret = pghot_inject_register();
	if (ret)
		goto out;
	ret = count;
	i = 0;
	while (i < n) {
		int nid;
		bool queued;

		preempt_disable();
		nid = in[i].nid == NUMA_NO_NODE ? numa_node_id() : in[i].nid;
		queued = pghot_hwhint_queue(in[i].pfn, nid, jiffies);
		preempt_enable();
		if (!queued) {
			/* Ring full: make room instead of dropping. */
			pghot_hwhint_flush_local();
			continue;
		}
		if (!(++i % 256))
			cond_resched();
	}
	/* Wherever the samples went, they are recorded when we return. */
	pghot_hwhint_flush_all();
out:
	kvfree(in);
	kfree(buf);
	return ret;
}

static const struct file_operations pghot_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pghot_inject_write,
	.llseek = noop_llseek,
};

static int __init pghot_inject_init(void)
{
	/* pghot_mode=off: no pghot, no interface. */
	if (pghot_off)
		return 0;
	debugfs_create_file("inject", 0200, pghot_debugfs_dir(), NULL,
			    &pghot_inject_fops);
	return 0;
}
late_initcall_sync(pghot_inject_init);
