/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of pghot shared by its interface files (debugfs,
 * hardware hints, injection) and not by anybody else.
 */
#ifndef _MM_PGHOT_INTERNAL_H
#define _MM_PGHOT_INTERNAL_H

#include <linux/pghot.h>

#include "kmigrated.h"
#include "record.h"
#include "rule.h"
#include "target.h"

/* hwhint.c */
struct seq_file;
bool pghot_hwhint_queue(unsigned long pfn, int nid, unsigned long now);
void pghot_hwhint_flush_local(void);
void pghot_hwhint_flush_all(void);
void pghot_hwhint_show(struct seq_file *m);

#endif /* _MM_PGHOT_INTERNAL_H */
