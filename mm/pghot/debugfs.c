// SPDX-License-Identifier: GPL-2.0
/*
 * pghot debugfs interface: /sys/kernel/debug/pghot/.
 *
 * Every tunable is one decimal (or 0x-prefixed) integer. A write that is
 * not a number, is out of range, names an unknown source bit or a node
 * that cannot take promotions fails with -EINVAL and changes nothing.
 * All files are root only.
 */
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/math64.h>
#include <linux/memory-tiers.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "internal.h"

struct pghot_tunable {
	const char *name;
	int *ival;			/* int tunables */
	unsigned int *uval;		/* unsigned tunables */
	long min, max;
	/* Extra validation beyond [min, max]; 0 or -EINVAL. */
	int (*check)(long val);
	/* Called after a new value is stored. */
	void (*changed)(void);
};

static DEFINE_MUTEX(pghot_tunables_lock);

static int pghot_check_sources(long val)
{
	return val & ~(long)PGHOT_SRC_MASK ? -EINVAL : 0;
}

static int pghot_check_target(long nid)
{
	if (nid == PGHOT_TARGET_AUTO || pghot_valid_target(nid))
		return 0;
	return -EINVAL;
}

static int pghot_check_threshold(long val)
{
	return val > pghot_freq_max(pghot_layout) ? -EINVAL : 0;
}

/* 0 turns regions off; otherwise a window of at least a second. */
static int pghot_check_region_ms(long val)
{
	return val && val < PGHOT_REGION_MS_MIN ? -EINVAL : 0;
}

static void pghot_window_changed(void)
{
	pghot_set_clock(READ_ONCE(pghot_promote_window_ms));
	pghot_region_ref_reset();
}

static const struct pghot_tunable pghot_tunables[] = {
	{ "enabled_sources", .uval = &pghot_enabled_sources,
	  .min = 0, .max = PGHOT_SRC_MASK, .check = pghot_check_sources },
	{ "target_nid", .ival = &pghot_target_nid,
	  .min = PGHOT_TARGET_AUTO, .max = MAX_NUMNODES - 1,
	  .check = pghot_check_target },
	{ "freq_threshold", .uval = &pghot_freq_threshold,
	  .min = 1, .max = 7, .check = pghot_check_threshold },
	{ "promote_window_ms", .uval = &pghot_promote_window_ms,
	  .min = PGHOT_WINDOW_MS_MIN, .max = PGHOT_WINDOW_MS_MAX,
	  .changed = pghot_window_changed },
	{ "hwhint_region_ms", .uval = &pghot_hwhint_region_ms,
	  .min = 0, .max = PGHOT_REGION_MS_MAX, .check = pghot_check_region_ms,
	  .changed = pghot_region_ref_reset },
	{ "hwhint_region_ref", .uval = &pghot_hwhint_region_ref,
	  .min = 0, .max = PGHOT_REGION_REF_MAX },
	{ "rate_limit_MBps", .uval = &sysctl_numa_balancing_promote_rate_limit,
	  .min = 0, .max = INT_MAX },
	{ "kmigrated_sleep_ms", .uval = &pghot_kmigrated_sleep_ms,
	  .min = PGHOT_SLEEP_MS_MIN, .max = PGHOT_SLEEP_MS_MAX },
	{ "kmigrated_batch_nr", .uval = &pghot_kmigrated_batch_nr,
	  .min = PGHOT_BATCH_NR_MIN, .max = PGHOT_BATCH_NR_MAX },
};

/* Longest input accepted: a sign, "0x" and a 64-bit value, and a newline. */
#define PGHOT_TUNABLE_BUF	24

/*
 * Parse and validate @buf (@len bytes) for @t. Everything that is not a
 * valid value, overflow and embedded NUL bytes included, is -EINVAL.
 */
static int pghot_tunable_parse(const struct pghot_tunable *t, const char *buf,
			       size_t len, long *val)
{
	if (strnlen(buf, len) != len || kstrtol(buf, 0, val))
		return -EINVAL;
	if (*val < t->min || *val > t->max)
		return -EINVAL;
	return t->check ? t->check(*val) : 0;
}

static ssize_t pghot_tunable_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	const struct pghot_tunable *t = file->private_data;
	char buf[PGHOT_TUNABLE_BUF];
	long val;
	int err;

	if (*ppos || !count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	mutex_lock(&pghot_tunables_lock);
	err = pghot_tunable_parse(t, buf, count, &val);
	if (!err) {
		if (t->ival)
			WRITE_ONCE(*t->ival, val);
		else
			WRITE_ONCE(*t->uval, val);
		if (t->changed)
			t->changed();
	}
	mutex_unlock(&pghot_tunables_lock);
	return err ? err : count;
}

static ssize_t pghot_tunable_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	const struct pghot_tunable *t = file->private_data;
	char buf[PGHOT_TUNABLE_BUF];
	int len;

	if (t->ival)
		len = scnprintf(buf, sizeof(buf), "%d\n", READ_ONCE(*t->ival));
	else if (t->uval == &pghot_enabled_sources)
		len = scnprintf(buf, sizeof(buf), "%#x\n", READ_ONCE(*t->uval));
	else
		len = scnprintf(buf, sizeof(buf), "%u\n", READ_ONCE(*t->uval));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations pghot_tunable_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = pghot_tunable_read,
	.write = pghot_tunable_write,
	.llseek = default_llseek,
};

static int pghot_stats_show(struct seq_file *m, void *v)
{
	struct pghot_store_stats st;
	unsigned long bytes = 0, pages = 0, window;
	int nid;
	u32 cents;
	u64 ref;

	for_each_node(nid) {
		pghot_store_stats(nid, &st);
		bytes += st.bytes;
		pages += st.pages;
	}
	seq_printf(m, "mode %s\n", pghot_layout->name);
	seq_printf(m, "record_bytes_per_page %u\n", pghot_layout->size);
	/* What the allocator handed out: records, headers and tables. */
	seq_printf(m, "record_memory_bytes %lu\n", bytes);
	seq_printf(m, "tracked_pages %lu\n", pages);
	/* Samples per second a region must reach 1/hwhint_region_ref of. */
	window = msecs_to_jiffies(READ_ONCE(pghot_hwhint_region_ms));
	for_each_node(nid) {
		ref = (u64)pghot_region_ref(nid, window) * HZ * 100 >>
		      PGHOT_REF_RATE_SHIFT;
		if (!ref)
			continue;
		ref = div_u64_rem(ref, 100, &cents);
		seq_printf(m, "region_ref_node%d %llu.%02u\n", nid, ref, cents);
	}
	pghot_kmigrated_show(m);
	pghot_hwhint_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pghot_stats);

/**
 * pghot_debugfs_dir - the /sys/kernel/debug/pghot directory
 *
 * For pghot's own files and for hardware hint providers' knobs (created
 * under a subdirectory of their own). Created on first use. Not exported:
 * every provider is built in.
 *
 * Return: the directory's dentry (an error pointer if debugfs is off).
 */
struct dentry *pghot_debugfs_dir(void)
{
	static struct dentry *dir;
	static DEFINE_MUTEX(lock);

	mutex_lock(&lock);
	if (!dir)
		dir = debugfs_create_dir("pghot", NULL);
	mutex_unlock(&lock);
	return dir;
}

static int __init pghot_debugfs_init(void)
{
	struct dentry *dir;
	int i;

	/* pghot_mode=off: no pghot, no interface. */
	if (pghot_off)
		return 0;
	dir = pghot_debugfs_dir();
	for (i = 0; i < ARRAY_SIZE(pghot_tunables); i++)
		debugfs_create_file(pghot_tunables[i].name, 0600, dir,
				    (void *)&pghot_tunables[i], &pghot_tunable_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &pghot_stats_fops);
	return 0;
}
late_initcall_sync(pghot_debugfs_init);

#include "tests/debugfs-kunit.h"
