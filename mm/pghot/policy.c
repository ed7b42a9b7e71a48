// SPDX-License-Identifier: GPL-2.0
/*
 * May a hot folio go to its target? For a NUMA hint fault the fault path
 * asked the memory policy of the faulting task's VMA (mpol_misplaced()),
 * so the answer comes with the page. A page known only from hardware
 * hints (or sent elsewhere by target_nid) has no VMA and no task: ask the
 * owners that map it, through the reverse map. A target is allowed when,
 * for every VMA mapping the folio, the memory policy in force there (the
 * VMA's own, else the mapping task's) lets the page live on it, and the
 * task's cpuset mems contain it.
 *
 * The mapping task is found as the mm's owner, which exists with
 * CONFIG_MEMCG; other threads of the process are assumed to share its
 * policy and cpuset. Where an answer cannot be had without blocking (the
 * folio, the reverse map or an mmap lock is contended; no owner known) the
 * answer is "unknown" and the page is not promoted this time.
 */
#include <linux/cpuset.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/nodemask.h>
#include <linux/rmap.h>
#include <linux/sched/task.h>

#include "kmigrated.h"

/**
 * pghot_mpol_allows - may a page under @pol live on @target
 * @pol: a memory policy, or NULL for the default one
 * @target: the node
 *
 * Return: true unless @pol names nodes and @target is not one of them.
 */
static bool pghot_mpol_allows(const struct mempolicy *pol, int target)
{
	if (!pol)
		return true;
	switch (pol->mode) {
	case MPOL_DEFAULT:
	case MPOL_LOCAL:
		return true;
	default:
		/* Bind, preferred (many), (weighted) interleave. */
		return node_isset(target, pol->nodes);
	}
}

struct pghot_policy_walk {
	int target;
	enum pghot_policy verdict;
};

#ifdef CONFIG_MEMCG
/* The owner's policy (when @vma_pol is NULL) and cpuset allow @target? */
static enum pghot_policy pghot_owner_allows(struct mm_struct *mm,
					    bool vma_pol, int target)
{
	enum pghot_policy verdict = PGHOT_POLICY_UNKNOWN;
	struct task_struct *p;

	rcu_read_lock();
	p = rcu_dereference(mm->owner);
	if (p) {
		/* Guards ->mempolicy and ->mems_allowed, see do_set_mempolicy(). */
		task_lock(p);
		verdict = PGHOT_POLICY_ALLOWED;
		if (!vma_pol && !pghot_mpol_allows(p->mempolicy, target))
			verdict = PGHOT_POLICY_FORBIDDEN;
#ifdef CONFIG_CPUSETS
		if (!node_isset(target, p->mems_allowed))
			verdict = PGHOT_POLICY_FORBIDDEN;
#endif
		task_unlock(p);
	}
	rcu_read_unlock();
	return verdict;
}
#else
static enum pghot_policy pghot_owner_allows(struct mm_struct *mm,
					    bool vma_pol, int target)
{
	/* Without an owner: only a VMA policy and no cpusets can answer. */
	if (vma_pol && !cpusets_enabled())
		return PGHOT_POLICY_ALLOWED;
	return PGHOT_POLICY_UNKNOWN;
}
#endif

static bool pghot_policy_one(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long addr, void *arg)
{
	struct pghot_policy_walk *w = arg;
	struct mm_struct *mm = vma->vm_mm;
	enum pghot_policy verdict;
	struct mempolicy *pol;
	pgoff_t ilx;

	/* The VMA's policy may be replaced and freed under mmap_lock only. */
	if (!mmap_read_trylock(mm)) {
		w->verdict = PGHOT_POLICY_UNKNOWN;
		return false;
	}
	pol = __get_vma_policy(vma, addr, &ilx);
	verdict = pghot_mpol_allows(pol, w->target) ? PGHOT_POLICY_ALLOWED :
						      PGHOT_POLICY_FORBIDDEN;
	if (verdict == PGHOT_POLICY_ALLOWED)
		verdict = pghot_owner_allows(mm, pol, w->target);
	mpol_cond_put(pol);
	mmap_read_unlock(mm);
	if (verdict == PGHOT_POLICY_ALLOWED)
		return true;
	w->verdict = verdict;
	return false;
}

/**
 * pghot_policy_check - may @folio be promoted to @target
 * @folio: a referenced LRU folio, not isolated
 * @target: the node it would go to
 *
 * Walks the reverse map; never blocks on a lock.
 *
 * Return: PGHOT_POLICY_ALLOWED, _FORBIDDEN, or _UNKNOWN if it cannot tell.
 */
enum pghot_policy pghot_policy_check(struct folio *folio, int target)
{
	struct pghot_policy_walk w = {
		.target = target,
		.verdict = PGHOT_POLICY_ALLOWED,
	};
	struct rmap_walk_control rwc = {
		.rmap_one = pghot_policy_one,
		.arg = &w,
		.try_lock = true,
	};

	if (!folio_mapped(folio))
		return PGHOT_POLICY_ALLOWED;
	if (!folio_trylock(folio))
		return PGHOT_POLICY_UNKNOWN;
	rmap_walk(folio, &rwc);
	folio_unlock(folio);
	if (rwc.contended)
		return PGHOT_POLICY_UNKNOWN;
	return w.verdict;
}

#include "tests/policy-kunit.h"
