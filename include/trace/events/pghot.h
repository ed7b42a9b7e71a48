/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pghot

#if !defined(_TRACE_PGHOT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_PGHOT_H

#include <linux/pghot.h>
#include <linux/tracepoint.h>

TRACE_DEFINE_ENUM(PGHOT_HINTFAULTS);
TRACE_DEFINE_ENUM(PGHOT_HWHINTS);
TRACE_DEFINE_ENUM(PGHOT_SKIP_STALE);
TRACE_DEFINE_ENUM(PGHOT_SKIP_NO_TARGET);
TRACE_DEFINE_ENUM(PGHOT_SKIP_PINNED);
TRACE_DEFINE_ENUM(PGHOT_SKIP_POLICY);
TRACE_DEFINE_ENUM(PGHOT_SKIP_POLICY_UNKNOWN);
TRACE_DEFINE_ENUM(PGHOT_SKIP_RATELIMITED);
TRACE_DEFINE_ENUM(PGHOT_SKIP_TARGET_FULL);
TRACE_DEFINE_ENUM(PGHOT_SKIP_ISOLATE_FAILED);
TRACE_DEFINE_ENUM(PGHOT_SKIP_FAILED);

#define show_pghot_src(src)						\
	__print_symbolic(src,						\
			 { PGHOT_HINTFAULTS,		"hintfault" },	\
			 { PGHOT_HWHINTS,		"hwhint" })

#define show_pghot_skip_reason(reason)					\
	__print_symbolic(reason,					\
			 { PGHOT_SKIP_STALE,		"stale" },	\
			 { PGHOT_SKIP_NO_TARGET,	"no_target" },	\
			 { PGHOT_SKIP_PINNED,		"pinned" },	\
			 { PGHOT_SKIP_POLICY,		"policy" },	\
			 { PGHOT_SKIP_POLICY_UNKNOWN,	"policy_unknown" }, \
			 { PGHOT_SKIP_RATELIMITED,	"ratelimited" }, \
			 { PGHOT_SKIP_TARGET_FULL,	"target_full" }, \
			 { PGHOT_SKIP_ISOLATE_FAILED,	"isolate_failed" }, \
			 { PGHOT_SKIP_FAILED,		"failed" })

/*
 * A recorded access made a page migrate-ready: it is queued for the
 * kmigrated thread of its node, to go to @target (-1: kmigrated picks).
 */
TRACE_EVENT(pghot_ready,
	    TP_PROTO(unsigned long pfn, int nid, int target, enum pghot_src src),
	    TP_ARGS(pfn, nid, target, src),
	    TP_STRUCT__entry(__field(unsigned long, pfn)
			     __field(int, nid)
			     __field(int, target)
			     __field(enum pghot_src, src)),
	    TP_fast_assign(__entry->pfn = pfn;
			   __entry->nid = nid;
			   __entry->target = target;
			   __entry->src = src;),
	    TP_printk("pfn=0x%lx nid=%d target=%d src=%s",
		      __entry->pfn, __entry->nid, __entry->target,
		      show_pghot_src(__entry->src))
);

/* kmigrated decided not to promote the ready page at @pfn, and why. */
TRACE_EVENT(pghot_promote_skip,
	    TP_PROTO(unsigned long pfn, int nid, int target,
		     enum pghot_skip_reason reason),
	    TP_ARGS(pfn, nid, target, reason),
	    TP_STRUCT__entry(__field(unsigned long, pfn)
			     __field(int, nid)
			     __field(int, target)
			     __field(enum pghot_skip_reason, reason)),
	    TP_fast_assign(__entry->pfn = pfn;
			   __entry->nid = nid;
			   __entry->target = target;
			   __entry->reason = reason;),
	    TP_printk("pfn=0x%lx nid=%d target=%d reason=%s",
		      __entry->pfn, __entry->nid, __entry->target,
		      show_pghot_skip_reason(__entry->reason))
);

/* kmigrated of node @nid handled one batch of ready pages. */
TRACE_EVENT(pghot_kmigrated_batch,
	    TP_PROTO(int nid, unsigned int taken, unsigned int promoted,
		     unsigned int skipped),
	    TP_ARGS(nid, taken, promoted, skipped),
	    TP_STRUCT__entry(__field(int, nid)
			     __field(unsigned int, taken)
			     __field(unsigned int, promoted)
			     __field(unsigned int, skipped)),
	    TP_fast_assign(__entry->nid = nid;
			   __entry->taken = taken;
			   __entry->promoted = promoted;
			   __entry->skipped = skipped;),
	    TP_printk("nid=%d taken=%u promoted=%u skipped=%u",
		      __entry->nid, __entry->taken, __entry->promoted,
		      __entry->skipped)
);

#endif /* _TRACE_PGHOT_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
