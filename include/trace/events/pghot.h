/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pghot

#if !defined(_TRACE_PGHOT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_PGHOT_H

#include <linux/pghot.h>
#include <linux/tracepoint.h>

TRACE_DEFINE_ENUM(PGHOT_HINTFAULTS);
TRACE_DEFINE_ENUM(PGHOT_HWHINTS);

/*
 * A recorded access made a page migrate-ready: it is queued for the
 * kmigrated thread of its node.
 */
TRACE_EVENT(pghot_ready,
	    TP_PROTO(unsigned long pfn, int nid, int accessor_nid, enum pghot_src src),
	    TP_ARGS(pfn, nid, accessor_nid, src),
	    TP_STRUCT__entry(__field(unsigned long, pfn)
			     __field(int, nid)
			     __field(int, accessor_nid)
			     __field(enum pghot_src, src)),
	    TP_fast_assign(__entry->pfn = pfn;
			   __entry->nid = nid;
			   __entry->accessor_nid = accessor_nid;
			   __entry->src = src;),
	    TP_printk("pfn=0x%lx nid=%d accessor_nid=%d src=%s",
		      __entry->pfn, __entry->nid, __entry->accessor_nid,
		      __print_symbolic(__entry->src,
				       { PGHOT_HINTFAULTS, "hintfault" },
				       { PGHOT_HWHINTS, "hwhint" }))
);

/* kmigrated of node @nid handled one batch of ready pages. */
TRACE_EVENT(pghot_kmigrated_batch,
	    TP_PROTO(int nid, unsigned int taken, unsigned int promoted,
		     unsigned int ratelimited, unsigned int failed),
	    TP_ARGS(nid, taken, promoted, ratelimited, failed),
	    TP_STRUCT__entry(__field(int, nid)
			     __field(unsigned int, taken)
			     __field(unsigned int, promoted)
			     __field(unsigned int, ratelimited)
			     __field(unsigned int, failed)),
	    TP_fast_assign(__entry->nid = nid;
			   __entry->taken = taken;
			   __entry->promoted = promoted;
			   __entry->ratelimited = ratelimited;
			   __entry->failed = failed;),
	    TP_printk("nid=%d taken=%u promoted=%u ratelimited=%u failed=%u",
		      __entry->nid, __entry->taken, __entry->promoted,
		      __entry->ratelimited, __entry->failed)
);

#endif /* _TRACE_PGHOT_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
