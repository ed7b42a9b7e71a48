// SPDX-License-Identifier: GPL-2.0
/*
 * May a hot folio go to its target? For a NUMA hint fault the fault path
 * asked the memory policy of the faulting task's VMA (mpol_misplaced())
 * and the hook checked the task's cpuset, so the answer comes with the
 * page. A page known only from hardware hints (or sent elsewhere by
 * target_nid) has no VMA and no task: ask the owners that map it, through
 * the reverse map. A target is allowed when, for every VMA mapping the
 * folio, the memory policy in force there (the VMA's own, else the mapping
 * task's) would have NUMA balancing move the folio to it, were the target
 * the accessing node (mpol_misplaced_nid(): no move without MPOL_F_MOF, so
 * interleaved and bound ranges stay), and the task's cpuset mems contain
 * it. A folio no process maps answers to its file's shared policy (a shmem
 * file's, a tmpfs mpol=), if it has one.
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
#include <linux/shmem_fs.h>

#include "policy.h"

/**
 * pghot_mpol_allows - would @pol have a folio on @curnid promoted to @target
 * @pol: a memory policy, or NULL for the default one
 * @ilx: the folio's interleave index under @pol
 * @curnid: the node the folio is on
 * @target: the node it would go to, taken as the accessing node
 *
 * Return: true if NUMA balancing, faulting on the folio from @target,
 * would move it there as far as @pol is concerned.
 */
static bool pghot_mpol_allows(struct mempolicy *pol, pgoff_t ilx, int curnid,
			      int target)
{
	/* The default policies move towards the accessing node. */
	if (!pol)
		return true;
	return mpol_misplaced_nid(pol, ilx, curnid, target) == target;
}

struct pghot_policy_walk {
	int target;
	enum pghot_policy verdict;
};

#ifdef CONFIG_MEMCG
/*
 * The owner's policy (unless the VMA has its own, @vma_pol) and cpuset
 * allow @folio on @target?
 */
static enum pghot_policy pghot_owner_allows(struct mm_struct *mm,
					    struct folio *folio, bool vma_pol,
					    int target)
{
	enum pghot_policy verdict = PGHOT_POLICY_UNKNOWN;
	struct task_struct *p;

	rcu_read_lock();
	p = rcu_dereference(mm->owner);
	if (p) {
		/* Guards ->mempolicy and ->mems_allowed, see do_set_mempolicy(). */
		task_lock(p);
		verdict = PGHOT_POLICY_ALLOWED;
		if (!vma_pol && !pghot_mpol_allows(p->mempolicy, 0,
						   folio_nid(folio), target))
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
					    struct folio *folio, bool vma_pol,
					    int target)
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
	/*
	 * The interleave index get_vma_policy() would add is left out: an
	 * interleave policy never has MPOL_F_MOF, so it never moves a folio.
	 */
	pol = __get_vma_policy(vma, addr, &ilx);
	verdict = pghot_mpol_allows(pol, ilx, folio_nid(folio), w->target) ?
		  PGHOT_POLICY_ALLOWED : PGHOT_POLICY_FORBIDDEN;
	if (verdict == PGHOT_POLICY_ALLOWED)
		verdict = pghot_owner_allows(mm, folio, pol, w->target);
	mpol_cond_put(pol);
	mmap_read_unlock(mm);
	if (verdict == PGHOT_POLICY_ALLOWED)
		return true;
	w->verdict = verdict;
	return false;
}

/* A locked folio nobody maps: its file's shared policy, if any. */
static enum pghot_policy pghot_unmapped_allows(struct folio *folio, int target)
{
	struct address_space *mapping = folio_mapping(folio);
	struct mempolicy *pol;
	bool allowed;

	if (!mapping || !shmem_mapping(mapping))
		return PGHOT_POLICY_ALLOWED;
	pol = mpol_shared_policy_lookup(&SHMEM_I(mapping->host)->policy,
					folio->index);
	allowed = pghot_mpol_allows(pol, folio->index, folio_nid(folio), target);
	mpol_cond_put(pol);
	return allowed ? PGHOT_POLICY_ALLOWED : PGHOT_POLICY_FORBIDDEN;
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

	if (!folio_trylock(folio))
		return PGHOT_POLICY_UNKNOWN;
	if (folio_mapped(folio))
		rmap_walk(folio, &rwc);
	else
		w.verdict = pghot_unmapped_allows(folio, target);
	folio_unlock(folio);
	if (rwc.contended)
		return PGHOT_POLICY_UNKNOWN;
	return w.verdict;
}

#include "tests/policy-kunit.h"
