/* SPDX-License-Identifier: GPL-2.0 */
/*
 * May a hot folio go to its target: the memory policies and cpusets of the
 * folio's owners, for pages no fault path vetted (policy.c).
 */
#ifndef _MM_PGHOT_POLICY_H
#define _MM_PGHOT_POLICY_H

struct folio;

enum pghot_policy {
	PGHOT_POLICY_ALLOWED,
	PGHOT_POLICY_FORBIDDEN,
	PGHOT_POLICY_UNKNOWN,
};

enum pghot_policy pghot_policy_check(struct folio *folio, int target);

#endif /* _MM_PGHOT_POLICY_H */
