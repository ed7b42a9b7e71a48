// SPDX-License-Identifier: GPL-2.0
/*
 * pghot-bench: the tiered-memory promotion microbenchmark of the pghot
 * series, shaped like the one of the reference mails: threads on one node
 * make random 4K-page loads and stores over a "hot" set that starts out on
 * a lower-tier (CXL) node, and the benchmark records how fast the kernel
 * moves that set off the slow node and what it costs.
 *
 * Optionally a "cold" set beside it is touched once per interval (it should
 * not be promoted), or, with --warm-ratio, by the same threads as the hot
 * set but that many times less often per page (a warm set, as a sampler
 * sees it); a "hog" fills the top tier first (overcommit), and the
 * hot set's PFNs are written to the pghot debug injection file to emulate
 * hardware (IBS) samples where there is no sampling hardware.
 *
 * --layout says how the sets lie in physical memory, by the 2 MiB regions
 * that pghot judges sampled hints by: as the allocator hands pages out
 * (alloc), each set in blocks of its own (blocks, the best case for a rule
 * that judges regions), hot and cold pages alternating inside every block
 * (interleave) or one hot page in 8 with the rest placed and never touched
 * (sparse), as in a malloc heap or a key-value store.
 *
 * It prints one JSON object (parameters, throughput, time to promote 95% of
 * the hot set, /proc/vmstat deltas and a residency sample every --sample-ms)
 * and a one-line summary on stderr. It needs nothing but libnuma, so it runs
 * unchanged in the test VM and on a real CXL box. It is not a kselftest:
 * it has no pass/fail, it measures.
 *
 *	echo 2 > /proc/sys/kernel/numa_balancing
 *	pghot-bench --hot-mb 1024 --threads 8 --label numab2 --json out.json
 *
 * Exit status: 0 done, 1 bad option, 2 the system cannot run it (node
 * without memory, placement failed, no injection file, a failed system
 * call during the run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "pghot_topology.h"
#include "pghot_vmstat.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define PAGE_SZ			4096UL	/* accesses are per 4K page */
#define WORDS_PER_PAGE		(PAGE_SZ / sizeof(unsigned long))
#define MIB_SHIFT		20
#define MAX_MB			16777216ULL	/* 16 TiB: no overflow */

#define PLACED_PCT		99	/* of each set on --mem-node at start */
#define SETTLED_PCT		95	/* "seconds_to_95pct" */

#define QUERY_CHUNK		16384	/* pages per move_pages() call */
#define PAGEMAP_CHUNK		8192	/* pagemap entries per pread() */
#define BATCH_OPS		4096	/* accesses between stop checks */
#define CACHELINE		64

#define INJECT_PATH		PGHOT_DIR "inject"
#define INJECT_MAX		(60 * 1024)	/* bytes per write() */
#define INJECT_TOKEN_MAX	32	/* "0x" + 16 hex digits + ":NID " + NUL */
#define SPLIT_PATH		"/sys/kernel/debug/split_huge_pages"
#define BLOCK_SZ		(2UL << MIB_SHIFT)	/* --blocks */
#define BLOCK_PAGES		(BLOCK_SZ / PAGE_SZ)
#define SPARSE_GROUP		8	/* --layout sparse: one hot page in 8 */

/* How the sets lie in physical memory (--layout). */
enum {
	LAYOUT_ALLOC,		/* as the allocator hands pages out */
	LAYOUT_BLOCKS,		/* each set in 2 MiB blocks of its own */
	LAYOUT_INTERLEAVE,	/* hot and cold pages alternate in every block */
	LAYOUT_SPARSE,		/* one hot page in 8, the rest never touched */
};

static const char * const layout_names[] = {
	[LAYOUT_ALLOC] = "alloc", [LAYOUT_BLOCKS] = "blocks",
	[LAYOUT_INTERLEAVE] = "interleave", [LAYOUT_SPARSE] = "sparse",
};

#define EXIT_USAGE		1
#define EXIT_SETUP		2

/*
 * The /proc/vmstat counters of every sample. The first ones are the
 * promotion and NUMA balancing counters of any 7.x kernel; the rest exist
 * only with pghot. Counters the running kernel lacks are left out of the
 * output.
 */
static const char * const vmstat_names[] = {
	"pgpromote_success", "pgpromote_candidate", "pgpromote_candidate_nrl",
	"numa_pte_updates", "numa_hint_faults", "numa_pages_migrated",
	"pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged",
	"pgdemote_proactive", "pgmigrate_success",
	"pghot_recorded_accesses", "pghot_recorded_hintfaults",
	"pghot_recorded_hwhints", "pghot_reported_hwhints",
	"hwhint_total_events", "hwhint_useful_events", "hwhint_dropped_events",
	"hwhint_dram_accesses", "hwhint_extmem_accesses", "pghot_ready",
	"pghot_promoted",
	/* Why a ready page was not promoted (ping-pong, overcommit). */
	"pghot_ready_deferred", "pghot_promote_pingpong",
	"pghot_promote_ratelimited", "pghot_promote_target_full",
	"pghot_promote_isolate_failed", "pghot_promote_failed",
	"pghot_promote_stale", "pghot_promote_no_target",
	"pghot_promote_pinned", "pghot_promote_policy",
	"pghot_promote_policy_unknown",
	/* Reports pghot did not track (e.g. hints for promoted pages). */
	"pghot_ignored_toptier", "pghot_ignored_offline",
	"pghot_ignored_untracked", "pghot_ignored_nonlru",
	"pghot_region_hot", "pghot_region_ready",
};

#define NR_VMSTAT		ARRAY_SIZE(vmstat_names)

/* Tunables recorded in the output so that runs can be told apart. */
static const char * const setting_paths[] = {
	"/proc/sys/kernel/numa_balancing",
	"/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps",
	PGHOT_DIR "enabled_sources", PGHOT_DIR "target_nid",
	PGHOT_DIR "freq_threshold", PGHOT_DIR "promote_window_ms",
	PGHOT_DIR "rate_limit_MBps", PGHOT_DIR "kmigrated_sleep_ms",
	PGHOT_DIR "kmigrated_batch_nr",
};

struct options {
	int cpu_node;
	int mem_node;
	unsigned long long hot_mb;
	unsigned long long cold_mb;
	unsigned long long cold_interval_ms;
	unsigned long long warm_ratio;	/* 0: the workers leave the cold set */
	unsigned int threads;
	unsigned long long accesses;	/* per thread; 0: run duration_s */
	unsigned long long duration_s;
	unsigned int until_pct;		/* 0: run to the end */
	unsigned int store_pct;
	unsigned long long sample_ms;
	unsigned long long seed;
	const char *label;
	const char *json;		/* NULL: stdout */
	const char *ready_file;
	const char *pfns_out;
	unsigned long long hog_mb;
	int hog_node;
	int hog_locked;
	unsigned long long inject_rounds;
	unsigned long long inject_interval_ms;
	double zipf;		/* hot set skew; 0: uniform */
	int layout;		/* LAYOUT_* */
	int blocks;		/* faulted in by 2 MiB blocks, then split */
};

/*
 * A set of 4K pages in one anonymous mapping, or a view of some of the
 * pages of another set's mapping (--layout interleave, sparse): page @i
 * is page (@i / @per) * @group + @first + @i % @per of the mapping at
 * @buf; a set of its own has @group and @per 1, @first 0.
 */
struct set {
	const char *name;
	char *buf;
	size_t size;			/* of the mapping */
	unsigned long nr;
	unsigned long group, first, per;
	unsigned long long huge_kb;	/* --blocks: faulted in as THP */
};

/* Where page @i of @s is in its mapping, in pages. */
static inline unsigned long set_index(const struct set *s, unsigned long i)
{
	if (s->group == 1)
		return i;
	return i / s->per * s->group + s->first + i % s->per;
}

static inline char *set_page(const struct set *s, unsigned long i)
{
	return s->buf + set_index(s, i) * PAGE_SZ;
}

/*
 * Where the cold (warm) set lies against the hot set in physical memory,
 * by 2 MiB region (pghot's regions for sampled hints), as placed: @mixed
 * says per cold page whether its region also held hot pages. Needs the
 * PFNs pagemap shows root only; @known is false without them.
 */
struct layout {
	bool known;
	unsigned long hot_regions, cold_regions, mixed_regions;
	unsigned long hot_pages_mixed, cold_pages_mixed;
	unsigned char *mixed;
	/* At the end: cold pages on the top tier, from mixed regions or not. */
	unsigned long cold_top_mixed, cold_top_pure;
};

/* A snapshot of vmstat_names[]; present[i] is 0 if the kernel lacks it. */
struct counters {
	unsigned long long val[NR_VMSTAT];
	bool present[NR_VMSTAT];
};

/*
 * Pages of a set on the node it was placed on, elsewhere, and of those
 * on a top-tier node (promoted, not moved sideways).
 */
struct residency {
	unsigned long on;
	unsigned long off;
	unsigned long top;
};

/* Seconds within which a promoted page demoted again counts as churn. */
#define CHURN_WINDOW_S		10

/*
 * Every page of the hot set, sample by sample: when it last arrived on the
 * top tier, and how often pages went up and came down again. Measured
 * with move_pages(), not taken from the kernel's counters.
 */
struct churn {
	unsigned char *top;		/* per page: on the top tier last sample */
	float *up_at;			/* per page: when it last went up */
	unsigned long long up;		/* lower -> top transitions seen */
	unsigned long long down;	/* top -> lower transitions seen */
	unsigned long long down_soon;	/* of them within CHURN_WINDOW_S */
	/*
	 * When each page of down_soon had gone up: a page that went up in
	 * the last CHURN_WINDOW_S of the run had no chance to be counted
	 * there, so the share is taken over the earlier ones only.
	 */
	float *soon_up_at;
	size_t nr_soon, max_soon;
};

struct sample {
	double t;			/* seconds since the start */
	/* --zipf: share of the hot accesses to pages on the top tier now */
	double served;
	double query_s;			/* how long the residency query took */
	unsigned long long ops;		/* all threads, so far */
	unsigned long long ups;		/* churn.up, so far */
	struct residency hot, cold, hog;
	struct counters vm;
};

struct bench;

struct worker {
	struct bench *b;
	pthread_t tid;
	unsigned int id;
	unsigned long long seed;
	unsigned long long ops;		/* __atomic: read by the sampler */
	unsigned long long sink;	/* what the loads read */
	double end;			/* when it stopped */
	/* Keep the next worker's counters out of this one's cache line. */
	char pad[CACHELINE];
};

struct bench {
	struct options opt;
	struct set hot, cold, hog;
	/*
	 * --layout interleave: the mapping the hot and cold sets are views
	 * of; sparse: the hot set's, and @filler the pages between the hot
	 * ones (placed, never touched by the run).
	 */
	struct set shared, filler;
	struct residency filler_end;	/* the filler at the end of the run */
	struct worker *workers;
	/* move_pages() arrays; the sampler's, or main's when it is idle. */
	void **qpages;
	int *qstatus;
	struct counters vm_start;
	struct sample *samples;
	size_t nr_samples, max_samples;
	unsigned long long cold_passes;
	unsigned long long cold_sink;	/* what the cold loads read */
	unsigned long long inject_rounds_done;
	unsigned long long injected_pfns;
	struct churn churn;
	unsigned long start_top;	/* hot pages on the top tier at the start */
	long long kmigrated_ticks;	/* CPU time of kmigrated*, -1: none */
	struct layout layout;
};

/* The tiers of the box, when sysfs has them (see pghot_topology.h). */
static struct topology topo;
static bool have_topo;

static bool is_top_node(int nid, int mem_node)
{
	return have_topo ? node_is_top(&topo, nid) : nid != mem_node;
}

/*
 * --zipf: the hot set's pages drawn with weight 1/rank^s, the ranks
 * shuffled over the set (the hottest pages lie anywhere). An alias table
 * draws a page in O(1): column u of @n, kept with probability @prob[u],
 * else @alias[u]. @w is each page's share of the hot accesses, @best[k]
 * the share of the k hottest pages: what k pages on the top tier serve
 * at best.
 */
static struct {
	unsigned long n;
	float *prob;
	unsigned int *alias;
	double *w;
	double *best;
} zipf;

/*
 * Run state shared by all threads. Workers poll @stop; the other threads
 * sleep on @cond (CLOCK_MONOTONIC) so that a stop wakes them at once.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;			/* __atomic */
	int failed;			/* __atomic */
	double t0;			/* start of the accesses */
} run = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static const char *prog = "pghot-bench";
/* The option that placed the sets by 2 MiB blocks, for messages. */
static const char *blocks_opt = "--blocks";

static void msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define die(code, ...)		do { msg(__VA_ARGS__); exit(code); } while (0)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int stopped(void)
{
	return __atomic_load_n(&run.stop, __ATOMIC_ACQUIRE);
}

static void stop_run(void)
{
	pthread_mutex_lock(&run.lock);
	__atomic_store_n(&run.stop, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&run.cond);
	pthread_mutex_unlock(&run.lock);
}

/* A helper thread failed: say why and end the run; main exits 2. */
static void fail_run(const char *what)
{
	msg("%s: %s", what, strerror(errno));
	__atomic_store_n(&run.failed, 1, __ATOMIC_RELEASE);
	stop_run();
}

/* Sleep until the monotonic time @when or a stop; nonzero if stopped. */
static int wait_until(double when)
{
	struct timespec ts;
	int stop;

	ts.tv_sec = (time_t)when;
	ts.tv_nsec = (long)((when - ts.tv_sec) * 1e9);
	if (ts.tv_nsec > 999999999)
		ts.tv_nsec = 999999999;
	pthread_mutex_lock(&run.lock);
	while (!(stop = stopped()) && now_s() < when)
		pthread_cond_timedwait(&run.cond, &run.lock, &ts);
	pthread_mutex_unlock(&run.lock);
	return stop;
}

static int init_run(void)
{
	pthread_condattr_t attr;

	if (pthread_condattr_init(&attr) ||
	    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&run.cond, &attr))
		return -1;
	pthread_condattr_destroy(&attr);
	return 0;
}

/* ---- options ---- */

enum {
	OPT_CPU_NODE = 256, OPT_MEM_NODE, OPT_HOT_MB, OPT_COLD_MB,
	OPT_COLD_INTERVAL, OPT_THREADS, OPT_ACCESSES, OPT_DURATION,
	OPT_STORE_PCT, OPT_SAMPLE_MS, OPT_SEED, OPT_LABEL, OPT_JSON,
	OPT_HOG_MB, OPT_HOG_NODE, OPT_HOG_LOCKED, OPT_INJECT_ROUNDS, OPT_INJECT_INTERVAL,
	OPT_READY_FILE, OPT_PFNS_OUT, OPT_WARM_RATIO, OPT_BLOCKS, OPT_LAYOUT, OPT_ZIPF,
	OPT_UNTIL_PCT, OPT_HELP,
};

static const struct option long_opts[] = {
	{ "cpu-node",		required_argument, NULL, OPT_CPU_NODE },
	{ "mem-node",		required_argument, NULL, OPT_MEM_NODE },
	{ "hot-mb",		required_argument, NULL, OPT_HOT_MB },
	{ "cold-mb",		required_argument, NULL, OPT_COLD_MB },
	{ "cold-interval-ms",	required_argument, NULL, OPT_COLD_INTERVAL },
	{ "warm-ratio",		required_argument, NULL, OPT_WARM_RATIO },
	{ "threads",		required_argument, NULL, OPT_THREADS },
	{ "accesses",		required_argument, NULL, OPT_ACCESSES },
	{ "duration-s",		required_argument, NULL, OPT_DURATION },
	{ "until-pct",		required_argument, NULL, OPT_UNTIL_PCT },
	{ "store-pct",		required_argument, NULL, OPT_STORE_PCT },
	{ "sample-ms",		required_argument, NULL, OPT_SAMPLE_MS },
	{ "seed",		required_argument, NULL, OPT_SEED },
	{ "label",		required_argument, NULL, OPT_LABEL },
	{ "json",		required_argument, NULL, OPT_JSON },
	{ "hog-mb",		required_argument, NULL, OPT_HOG_MB },
	{ "hog-node",		required_argument, NULL, OPT_HOG_NODE },
	{ "hog-locked",		no_argument,       NULL, OPT_HOG_LOCKED },
	{ "inject-rounds",	required_argument, NULL, OPT_INJECT_ROUNDS },
	{ "inject-interval-ms",	required_argument, NULL, OPT_INJECT_INTERVAL },
	{ "ready-file",		required_argument, NULL, OPT_READY_FILE },
	{ "pfns-out",		required_argument, NULL, OPT_PFNS_OUT },
	{ "blocks",		no_argument,       NULL, OPT_BLOCKS },
	{ "layout",		required_argument, NULL, OPT_LAYOUT },
	{ "zipf",		required_argument, NULL, OPT_ZIPF },
	{ "help",		no_argument,       NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static const char usage_text[] =
	"Random 4K loads/stores from --cpu-node over a hot set placed on --mem-node;\n"
	"reports how fast the kernel promotes it, as one JSON object.\n"
	"\n"
	"  --cpu-node N            node the threads run on (default: the first\n"
	"                          top-tier node with CPUs)\n"
	"  --mem-node N            node the sets are placed on (default: the\n"
	"                          first lower-tier node with memory)\n"
	"  --hot-mb M              hot set size in MiB (default 256)\n"
	"  --cold-mb M             cold set size in MiB (default 0)\n"
	"  --cold-interval-ms I    touch every cold page once per I ms, from one\n"
	"                          thread (default 0: never)\n"
	"  --warm-ratio R          the access threads also touch the cold set,\n"
	"                          each cold page R times less often than a hot\n"
	"                          one (a warm set; excludes --cold-interval-ms)\n"
	"  --threads T             access threads (default 1)\n"
	"  --accesses N            accesses per thread; the run ends when all\n"
	"                          threads are done (excludes --duration-s)\n"
	"  --duration-s S          run for S seconds (default 30)\n"
	"  --until-pct P           end the run early at the first sample that\n"
	"                          finds P percent of the hot set on the top tier\n"
	"  --store-pct P           percent of accesses that are stores (default 50)\n"
	"  --sample-ms I           residency/vmstat sample period (default 1000)\n"
	"  --seed X                PRNG seed (default 1)\n"
	"  --label STR             copied into the JSON\n"
	"  --json FILE             write the JSON there (default stdout)\n"
	"  --hog-mb M              fill M MiB on --hog-node before the run and keep\n"
	"                          it mapped (overcommit scenario)\n"
	"  --hog-node N            node of the hog (default: --cpu-node)\n"
	"  --hog-locked            mlock the hog: reclaim cannot demote it, so\n"
	"                          the top tier is really that much smaller\n"
	"  --inject-rounds R       write the hot set's PFNs to\n"
	"                          " INJECT_PATH " R times (needs root)\n"
	"  --inject-interval-ms I  between rounds (default 1000)\n"
	"  --ready-file FILE       create FILE when the sets are placed and the\n"
	"                          run starts (to start an outside sampler)\n"
	"  --pfns-out FILE         write each set's PFNs at the start to FILE,\n"
	"                          a line each: 'hot 0xPFN' or 'cold 0xPFN'\n"
	"                          (needs root; to tell an outside sampler's\n"
	"                          samples apart by set)\n"
	"  --blocks                place each set in 2 MiB blocks of its own, as\n"
	"                          on memory nothing has used before: fault the\n"
	"                          sets in as THP and split the THPs in place\n"
	"                          (needs THP and " SPLIT_PATH ", root);\n"
	"                          the same as --layout blocks\n"
	"  --layout L              how the sets lie in physical memory:\n"
	"                          alloc (default: as the allocator hands pages\n"
	"                          out), blocks (--blocks), interleave (hot and\n"
	"                          cold pages alternate inside every 2 MiB block,\n"
	"                          in the ratio of --hot-mb to --cold-mb), sparse\n"
	"                          (one hot page in 8, the other 7 placed and never\n"
	"                          touched; a cold set in blocks of its own);\n"
	"                          all but alloc place by 2 MiB blocks as --blocks\n"
	"  --zipf S                skew the hot set: its k-th hottest page (pages\n"
	"                          ranked at random) drawn with weight 1/k^S\n"
	"                          (0 < S <= 4; default: uniform); the JSON then\n"
	"                          has the share of hot accesses served from the\n"
	"                          top tier against the best the same number of\n"
	"                          pages up could serve\n"
	"  --help                  this text\n"
	"\n"
	"Exit status: 0 done, 1 bad option, 2 the system cannot run it.\n";

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s [options]\n", prog);
	fputs(usage_text, f);
}

/* Parse @arg of --@name as a number in [@min, @max], or exit 1. */
static unsigned long long parse_num(const char *name, const char *arg,
				    int base, unsigned long long min,
				    unsigned long long max)
{
	unsigned long long val;
	char *end;

	errno = 0;
	val = strtoull(arg, &end, base);
	/* strtoull() takes "-1" as ULLONG_MAX; refuse any sign. */
	if (!*arg || *arg == '-' || *arg == '+' || *end || errno)
		die(EXIT_USAGE, "--%s: '%s' is not a non-negative integer",
		    name, arg);
	if (val < min || val > max)
		die(EXIT_USAGE, "--%s: %llu is out of range [%llu, %llu]",
		    name, val, min, max);
	return val;
}

/* Parse @arg of --@name as a real number in (@min, @max], or exit 1. */
static double parse_real(const char *name, const char *arg, double min,
			 double max)
{
	double val;
	char *end;

	errno = 0;
	val = strtod(arg, &end);
	if (!*arg || *end || errno || !(val > min && val <= max))
		die(EXIT_USAGE, "--%s: '%s' is not a number in (%g, %g]", name,
		    arg, min, max);
	return val;
}

static int parse_layout(const char *arg)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(layout_names); i++)
		if (!strcmp(arg, layout_names[i]))
			return i;
	die(EXIT_USAGE, "--layout: '%s' is not one of alloc, blocks, interleave, sparse",
	    arg);
}

/* --layout or --blocks: one layout, however often it is given. */
static void set_layout(struct options *o, int layout, int *have_layout)
{
	if (*have_layout && o->layout != layout)
		die(EXIT_USAGE, "two layouts given: %s and %s (--blocks is --layout blocks)",
		    layout_names[o->layout], layout_names[layout]);
	o->layout = layout;
	*have_layout = 1;
}

static unsigned long long gcd(unsigned long long a, unsigned long long b)
{
	while (b) {
		unsigned long long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Options that only make sense together, and nodes this box has. */
static void check_options(struct options *o, int have_acc, int have_dur,
			  int have_hog_node, int have_interval)
{
	if (have_acc && have_dur)
		die(EXIT_USAGE, "--accesses and --duration-s exclude each other");
	if (o->cold_interval_ms && !o->cold_mb)
		die(EXIT_USAGE, "--cold-interval-ms needs --cold-mb");
	if (o->warm_ratio && !o->cold_mb)
		die(EXIT_USAGE, "--warm-ratio needs --cold-mb");
	if (o->warm_ratio && o->cold_interval_ms)
		die(EXIT_USAGE, "--warm-ratio and --cold-interval-ms exclude each other");
	if (have_hog_node && !o->hog_mb)
		die(EXIT_USAGE, "--hog-node needs --hog-mb");
	if (o->hog_locked && !o->hog_mb)
		die(EXIT_USAGE, "--hog-locked needs --hog-mb");
	if (have_interval && !o->inject_rounds)
		die(EXIT_USAGE, "--inject-interval-ms needs --inject-rounds");
	if (!have_hog_node)
		o->hog_node = o->cpu_node;
	if (!have_acc && !have_dur)
		o->duration_s = 30;
	if (o->layout == LAYOUT_INTERLEAVE) {
		unsigned long long g;

		if (!o->cold_mb)
			die(EXIT_USAGE, "--layout interleave needs --cold-mb");
		/* Each run of hot then cold pages fits in one 2 MiB block. */
		g = gcd(o->hot_mb, o->cold_mb);
		if ((o->hot_mb + o->cold_mb) / g > BLOCK_PAGES)
			die(EXIT_USAGE,
			    "--layout interleave: --hot-mb %llu and --cold-mb %llu do not share 2 MiB blocks (their ratio, reduced, must add up to at most %lu pages)",
			    o->hot_mb, o->cold_mb, BLOCK_PAGES);
	}
	o->blocks = o->layout != LAYOUT_ALLOC;
	if (o->layout == LAYOUT_INTERLEAVE)
		blocks_opt = "--layout interleave";
	else if (o->layout == LAYOUT_SPARSE)
		blocks_opt = "--layout sparse";
}

static void parse_options(int argc, char **argv, struct options *o)
{
	int have_acc = 0, have_dur = 0, have_hog_node = 0, have_interval = 0;
	int have_layout = 0, c, idx = 0;

	*o = (struct options) {
		.cpu_node = -1, .mem_node = -1, .hot_mb = 256, .threads = 1,
		.store_pct = 50, .sample_ms = 1000, .seed = 1, .label = "",
		.inject_interval_ms = 1000,
	};

	while ((c = getopt_long(argc, argv, "", long_opts, &idx)) != -1) {
		const char *name = long_opts[idx].name;

		switch (c) {
		case OPT_CPU_NODE:
			o->cpu_node = parse_num(name, optarg, 10, 0, INT_MAX);
			break;
		case OPT_MEM_NODE:
			o->mem_node = parse_num(name, optarg, 10, 0, INT_MAX);
			break;
		case OPT_HOT_MB:
			o->hot_mb = parse_num(name, optarg, 10, 1, MAX_MB);
			break;
		case OPT_COLD_MB:
			o->cold_mb = parse_num(name, optarg, 10, 0, MAX_MB);
			break;
		case OPT_COLD_INTERVAL:
			o->cold_interval_ms = parse_num(name, optarg, 10, 0,
							86400000);
			break;
		case OPT_WARM_RATIO:
			o->warm_ratio = parse_num(name, optarg, 10, 1, 1000000);
			break;
		case OPT_THREADS:
			o->threads = parse_num(name, optarg, 10, 1, 4096);
			break;
		case OPT_ACCESSES:
			o->accesses = parse_num(name, optarg, 10, 1,
						ULLONG_MAX / 2);
			have_acc = 1;
			break;
		case OPT_DURATION:
			o->duration_s = parse_num(name, optarg, 10, 1,
						  7 * 86400);
			have_dur = 1;
			break;
		case OPT_UNTIL_PCT:
			o->until_pct = parse_num(name, optarg, 10, 1, 100);
			break;
		case OPT_STORE_PCT:
			o->store_pct = parse_num(name, optarg, 10, 0, 100);
			break;
		case OPT_SAMPLE_MS:
			o->sample_ms = parse_num(name, optarg, 10, 10,
						 3600000);
			break;
		case OPT_SEED:
			o->seed = parse_num(name, optarg, 0, 0, ULLONG_MAX);
			break;
		case OPT_LABEL:
			o->label = optarg;
			break;
		case OPT_READY_FILE:
			o->ready_file = optarg;
			break;
		case OPT_PFNS_OUT:
			o->pfns_out = optarg;
			break;
		case OPT_BLOCKS:
			set_layout(o, LAYOUT_BLOCKS, &have_layout);
			break;
		case OPT_ZIPF:
			o->zipf = parse_real(name, optarg, 0, 4);
			break;
		case OPT_LAYOUT:
			set_layout(o, parse_layout(optarg), &have_layout);
			break;
		case OPT_JSON:
			if (!*optarg)
				die(EXIT_USAGE, "--json: empty file name");
			o->json = optarg;
			break;
		case OPT_HOG_MB:
			o->hog_mb = parse_num(name, optarg, 10, 1, MAX_MB);
			break;
		case OPT_HOG_LOCKED:
			o->hog_locked = 1;
			break;
		case OPT_HOG_NODE:
			o->hog_node = parse_num(name, optarg, 10, 0, INT_MAX);
			have_hog_node = 1;
			break;
		case OPT_INJECT_ROUNDS:
			o->inject_rounds = parse_num(name, optarg, 10, 1,
						     1000000);
			break;
		case OPT_INJECT_INTERVAL:
			o->inject_interval_ms = parse_num(name, optarg, 10, 1,
							  86400000);
			have_interval = 1;
			break;
		case OPT_HELP:
			usage(stdout);
			exit(0);
		default:
			/* getopt_long() has said what was wrong. */
			fprintf(stderr, "Try '%s --help'.\n", prog);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		die(EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
	check_options(o, have_acc, have_dur, have_hog_node, have_interval);
}

/* ---- the system ---- */

static void check_node(const char *what, int node, int need_cpus)
{
	struct bitmask *cpus;
	long long free_b;

	if (node > numa_max_node())
		die(EXIT_USAGE, "%s %d: no such node (nodes 0-%d)", what, node,
		    numa_max_node());
	if (need_cpus) {
		cpus = numa_allocate_cpumask();
		if (numa_node_to_cpus(node, cpus) ||
		    !numa_bitmask_weight(cpus))
			die(EXIT_USAGE, "%s %d: node has no CPUs", what, node);
		numa_free_cpumask(cpus);
	} else if (numa_node_size64(node, &free_b) <= 0 ||
		   !numa_bitmask_isbitset(numa_all_nodes_ptr, node)) {
		die(EXIT_USAGE, "%s %d: node has no memory we may use", what,
		    node);
	}
}

/*
 * The nodes not given as options, from the memory tiers in sysfs: the
 * threads on the first top-tier node with CPUs, the sets on the first
 * lower-tier node with memory, the hog beside the threads.
 */
static void discover_nodes(struct options *o)
{
	struct topology *t = &topo;
	const char *why;

	have_topo = !topology_read(t);
	if (o->cpu_node >= 0 && o->mem_node >= 0 && o->hog_node >= 0)
		return;
	if (!have_topo)
		die(EXIT_SETUP, "cannot read the tiers from %s: %s (give --cpu-node, --mem-node)",
		    MEMTIER_DIR, strerror(errno));
	why = topology_unsupported(t);
	if (why)
		die(EXIT_SETUP, "%s (give --cpu-node and --mem-node)", why);
	if (o->cpu_node < 0)
		o->cpu_node = t->top_cpu[0];
	if (o->mem_node < 0)
		o->mem_node = t->lower[0];
	if (o->hog_node < 0)
		o->hog_node = o->cpu_node;
	msg("nodes: threads on %d, sets on %d%s", o->cpu_node, o->mem_node,
	    t->nr_lower > 1 ? " (other lower-tier nodes: see --mem-node)" : "");
}

static void check_system(struct options *o)
{
	if (numa_available() < 0)
		die(EXIT_SETUP, "NUMA is not available on this system");
	discover_nodes(o);
	check_node("--cpu-node", o->cpu_node, 1);
	check_node("--mem-node", o->mem_node, 0);
	if (o->hog_mb)
		check_node("--hog-node", o->hog_node, 0);
	/* Fail now, not after placing gigabytes. */
	if (o->inject_rounds && access(INJECT_PATH, W_OK))
		die(EXIT_SETUP,
		    "cannot write %s: %s (needs root, debugfs and a kernel with CONFIG_PGHOT_HWHINT_INJECT)",
		    INJECT_PATH, strerror(errno));
}

static int vmstat_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < NR_VMSTAT; i++)
		if (!strcmp(name, vmstat_names[i]))
			return i;
	return -1;
}

static int read_counters(struct counters *c)
{
	return vmstat_read(vmstat_names, c->val, c->present, NR_VMSTAT) < 0 ? -1 : 0;
}

/* ---- placement ---- */

/*
 * An anonymous mapping of @mb MiB, kept out of THP (accesses are per 4K),
 * unless @blocks: then aligned to 2 MiB and THP, for place_set() to fault
 * it in by blocks and split them.
 */
static void map_set(struct set *s, const char *name, unsigned long long mb,
		    int blocks)
{
	size_t len;
	char *p, *a;

	s->name = name;
	s->size = (size_t)mb << MIB_SHIFT;
	s->nr = s->size / PAGE_SZ;
	s->group = 1;
	s->per = 1;
	s->first = 0;
	len = s->size + (blocks ? BLOCK_SZ : 0);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die(EXIT_SETUP, "mmap of the %s set (%llu MiB): %s", name, mb,
		    strerror(errno));
	a = p;
	if (blocks) {
		/* Keep the aligned middle, unmap the slack on both sides. */
		a = (char *)(((unsigned long)p + BLOCK_SZ - 1) & ~(BLOCK_SZ - 1));
		if (a > p)
			munmap(p, a - p);
		if (p + len > a + s->size)
			munmap(a + s->size, p + len - (a + s->size));
		if (madvise(a, s->size, MADV_HUGEPAGE))
			die(EXIT_SETUP, "%s: madvise(MADV_HUGEPAGE): %s (no THP?)",
			    blocks_opt, strerror(errno));
	} else if (madvise(a, s->size, MADV_NOHUGEPAGE) && errno != EINVAL) {
		/* EINVAL: a kernel without THP, which is just as good. */
		die(EXIT_SETUP, "madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
	}
	s->buf = a;
}

/*
 * @v: the pages of @m whose index in every run of @group pages is in
 * [@first, @first + @per), @nr of them, where @m's pages lie.
 */
static void view_set(struct set *v, const char *name, const struct set *m,
		     unsigned long group, unsigned long first,
		     unsigned long per)
{
	*v = *m;
	v->name = name;
	v->group = group;
	v->first = first;
	v->per = per;
	v->nr = m->nr / group * per;
}

/* This process's PMD-mapped THP (AnonHugePages), in kB. */
static unsigned long long anon_huge_kb(void)
{
	unsigned long long kb;
	char line[256];
	FILE *f;

	f = fopen("/proc/self/smaps_rollup", "r");
	if (!f)
		die(EXIT_SETUP, "/proc/self/smaps_rollup: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
			fclose(f);
			return kb;
		}
	}
	fclose(f);
	die(EXIT_SETUP, "no AnonHugePages in /proc/self/smaps_rollup");
}

/*
 * --blocks: @s was just faulted in, as THP where the node had free 2 MiB
 * blocks (@huge0: this process's THP before). Split the THPs into 4K
 * pages where they lie, so that each set has regions of its own and is
 * promoted page by page, and keep khugepaged from collapsing them again.
 */
static void split_set(struct set *s, unsigned long long huge0)
{
	unsigned long long huge = anon_huge_kb();
	char cmd[96];
	int fd, len;

	s->huge_kb = huge > huge0 ? huge - huge0 : 0;
	if (!s->huge_kb)
		die(EXIT_SETUP,
		    "%s: no THP in the %s set (transparent_hugepage/enabled never, or no free 2 MiB block on the node?)",
		    blocks_opt, s->name);
	len = snprintf(cmd, sizeof(cmd), "%d,0x%lx,0x%lx", (int)getpid(),
		       (unsigned long)s->buf, (unsigned long)(s->buf + s->size));
	fd = open(SPLIT_PATH, O_WRONLY);
	if (fd < 0 || write(fd, cmd, len) != len)
		die(EXIT_SETUP, "%s: splitting the %s set through %s: %s",
		    blocks_opt, s->name, SPLIT_PATH, strerror(errno));
	close(fd);
	if (madvise(s->buf, s->size, MADV_NOHUGEPAGE))
		die(EXIT_SETUP, "madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
	huge = anon_huge_kb();
	if (huge > huge0)
		die(EXIT_SETUP, "%s: %llu kB of THP left after the split of the %s set",
		    blocks_opt, huge - huge0, s->name);
}

static int set_policy(const struct set *s, int mode, int node)
{
	struct bitmask *mask = NULL;
	int ret;

	if (mode == MPOL_DEFAULT)
		return mbind(s->buf, s->size, MPOL_DEFAULT, NULL, 0, 0);
	mask = numa_allocate_nodemask();
	numa_bitmask_setbit(mask, node);
	ret = mbind(s->buf, s->size, mode, mask->maskp, mask->size + 1, 0);
	numa_bitmask_free(mask);
	return ret;
}

/*
 * Fault every page of @s in. Nonzero: splitting a THP maps the shared zero
 * page where a 4K page holds only zeroes (--blocks).
 */
static void touch_set(const struct set *s)
{
	unsigned long i;

	for (i = 0; i < s->nr; i++)
		__atomic_store_n((unsigned long *)(s->buf + i * PAGE_SZ), i + 1,
				 __ATOMIC_RELAXED);
}

/*
 * Fault @s in on @node (by 2 MiB blocks if @blocks, see split_set()).
 * Unless @keep_bound, drop the policy afterwards:
 * NUMA balancing does not scan MPOL_BIND ranges, and the point is to let
 * it (or pghot) move the pages.
 */
static void place_set(struct set *s, int node, int keep_bound, int blocks)
{
	unsigned long long huge0 = blocks ? anon_huge_kb() : 0;

	if (set_policy(s, MPOL_BIND, node))
		die(EXIT_SETUP, "mbind(MPOL_BIND, node %d) of the %s set: %s",
		    node, s->name, strerror(errno));
	touch_set(s);
	if (blocks)
		split_set(s, huge0);
	if (!keep_bound && set_policy(s, MPOL_DEFAULT, 0))
		die(EXIT_SETUP, "mbind(MPOL_DEFAULT) of the %s set: %s",
		    s->name, strerror(errno));
}

/* Note a page that went up at @up_at and came down within the window. */
static void churn_soon(struct churn *c, float up_at)
{
	float *p;

	if (c->nr_soon == c->max_soon) {
		size_t max = c->max_soon ? 2 * c->max_soon : 1024;

		p = realloc(c->soon_up_at, max * sizeof(*p));
		if (!p)
			die(EXIT_SETUP, "out of memory");
		c->soon_up_at = p;
		c->max_soon = max;
	}
	c->soon_up_at[c->nr_soon++] = up_at;
}

/* Page @i of the hot set is (@top) or is not on the top tier at time @t. */
static void churn_track(struct churn *c, unsigned long i, bool top, double t)
{
	if (top == c->top[i])
		return;
	c->top[i] = top;
	if (top) {
		c->up++;
		c->up_at[i] = t;
	} else {
		c->down++;
		if (c->up_at[i] >= 0 && t - c->up_at[i] <= CHURN_WINDOW_S) {
			c->down_soon++;
			churn_soon(c, c->up_at[i]);
		}
	}
}

/*
 * Count the pages of @s on @node, elsewhere and on the top tier (absent
 * ones in none), and with @c, follow each page's moves at time @t.
 */
static int query_set(struct bench *b, const struct set *s, int node,
		     struct residency *r, struct churn *c, double t)
{
	unsigned long i, j, n;
	bool top;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < s->nr; i += n) {
		n = s->nr - i < QUERY_CHUNK ? s->nr - i : QUERY_CHUNK;
		for (j = 0; j < n; j++)
			b->qpages[j] = set_page(s, i + j);
		if (move_pages(0, n, b->qpages, NULL, b->qstatus, 0))
			return -1;
		for (j = 0; j < n; j++) {
			if (b->qstatus[j] < 0)
				continue;
			top = is_top_node(b->qstatus[j], node);
			if (b->qstatus[j] == node)
				r->on++;
			else
				r->off++;
			r->top += top;
			if (c)
				churn_track(c, i + j, top, t);
		}
	}
	return 0;
}

static void check_placed(struct bench *b, const struct set *s, int node)
{
	struct residency r;

	if (query_set(b, s, node, &r, NULL, 0))
		die(EXIT_SETUP, "move_pages: %s", strerror(errno));
	if (r.on * 100 < s->nr * PLACED_PCT)
		die(EXIT_SETUP,
		    "only %lu of %lu pages (%.1f%%) of the %s set landed on node %d; need %d%% (is the node full? see numactl -H)",
		    r.on, s->nr, 100.0 * r.on / s->nr, s->name, node,
		    PLACED_PCT);
}

static void check_free(const struct options *o)
{
	unsigned long long need = (o->hot_mb + o->cold_mb) << MIB_SHIFT;
	long long free_b;

	if (o->layout == LAYOUT_SPARSE)
		need += (o->hot_mb * (SPARSE_GROUP - 1)) << MIB_SHIFT;

	numa_node_size64(o->mem_node, &free_b);
	/* Binding more than there is would end in the OOM killer. */
	if (free_b < 0 || (unsigned long long)free_b < need)
		die(EXIT_SETUP, "node %d has %lld MiB free, the sets need %llu MiB",
		    o->mem_node, free_b >> MIB_SHIFT, need >> MIB_SHIFT);
}

/* Where each hot page is before the run: nothing moved yet. */
static void churn_init(struct bench *b)
{
	struct churn *c = &b->churn;
	struct residency r;
	unsigned long i;

	c->top = calloc(b->hot.nr, sizeof(*c->top));
	c->up_at = malloc(b->hot.nr * sizeof(*c->up_at));
	if (!c->top || !c->up_at)
		die(EXIT_SETUP, "out of memory");
	for (i = 0; i < b->hot.nr; i++)
		c->up_at[i] = -1;
	if (query_set(b, &b->hot, b->opt.mem_node, &r, c, 0))
		die(EXIT_SETUP, "move_pages: %s", strerror(errno));
	b->start_top = r.top;
	c->up = 0;
	c->down = 0;
	c->down_soon = 0;
}

/* The hot and cold sets on --mem-node, laid out as --layout says. */
static void place_sets(struct bench *b)
{
	const struct options *o = &b->opt;
	unsigned long long g;

	switch (o->layout) {
	case LAYOUT_INTERLEAVE:
		/* Runs of h hot then c cold pages, h:c as hot_mb:cold_mb. */
		g = gcd(o->hot_mb, o->cold_mb);
		map_set(&b->shared, "interleaved", o->hot_mb + o->cold_mb, 1);
		place_set(&b->shared, o->mem_node, 0, 1);
		view_set(&b->hot, "hot", &b->shared, (o->hot_mb + o->cold_mb) / g,
			 0, o->hot_mb / g);
		view_set(&b->cold, "cold", &b->shared, (o->hot_mb + o->cold_mb) / g,
			 o->hot_mb / g, o->cold_mb / g);
		return;
	case LAYOUT_SPARSE:
		map_set(&b->shared, "sparse", o->hot_mb * SPARSE_GROUP, 1);
		place_set(&b->shared, o->mem_node, 0, 1);
		view_set(&b->hot, "hot", &b->shared, SPARSE_GROUP, 0, 1);
		view_set(&b->filler, "filler", &b->shared, SPARSE_GROUP, 1,
			 SPARSE_GROUP - 1);
		break;
	default:
		map_set(&b->hot, "hot", o->hot_mb, o->blocks);
		place_set(&b->hot, o->mem_node, 0, o->blocks);
		break;
	}
	if (o->cold_mb) {
		map_set(&b->cold, "cold", o->cold_mb, o->blocks);
		place_set(&b->cold, o->mem_node, 0, o->blocks);
	}
}

static void place_all(struct bench *b)
{
	const struct options *o = &b->opt;
	struct residency r;

	b->qpages = calloc(QUERY_CHUNK, sizeof(*b->qpages));
	b->qstatus = calloc(QUERY_CHUNK, sizeof(*b->qstatus));
	if (!b->qpages || !b->qstatus)
		die(EXIT_SETUP, "out of memory");

	/*
	 * The hog first, so the sets are not what reclaim makes room from.
	 * It stays bound: NUMA balancing then leaves it alone, but reclaim
	 * may still demote it like any cold memory, unless it is locked.
	 */
	if (o->hog_mb) {
		map_set(&b->hog, "hog", o->hog_mb, 0);
		place_set(&b->hog, o->hog_node, 1, 0);
		if (o->hog_locked && mlock(b->hog.buf, b->hog.size))
			die(EXIT_SETUP, "mlock of the %llu MiB hog: %s (RLIMIT_MEMLOCK?)",
			    o->hog_mb, strerror(errno));
		if (query_set(b, &b->hog, o->hog_node, &r, NULL, 0))
			die(EXIT_SETUP, "move_pages: %s", strerror(errno));
		if (r.on * 100 < b->hog.nr * PLACED_PCT)
			msg("note: %lu of %lu hog pages on node %d",
			    r.on, b->hog.nr, o->hog_node);
	}

	check_free(o);
	place_sets(b);
	check_placed(b, &b->hot, o->mem_node);
	if (o->cold_mb)
		check_placed(b, &b->cold, o->mem_node);
	churn_init(b);
}

/* ---- threads ---- */

static unsigned long long splitmix64(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * A hot page by its weight (--zipf): the integer part of @r / 2^64 * n
 * picks the column, its fraction (uniform whatever the column) tosses the
 * coin.
 */
static inline unsigned long zipf_pick(unsigned long long r)
{
	__uint128_t x = (__uint128_t)r * zipf.n;
	unsigned long u = x >> 64;

	return ((unsigned long long)x >> 40) < zipf.prob[u] * 16777216.0f ?
	       u : zipf.alias[u];
}

/*
 * The --zipf tables for @n hot pages (Vose's alias method): weights
 * 1/rank^@s, normalised, given to the pages in a random order from @seed.
 */
static void zipf_init(unsigned long n, double s, unsigned long long seed)
{
	unsigned long *perm, *small, *large, ns = 0, nl = 0, i, j, t;
	double *scaled, sum = 0;

	zipf.n = n;
	zipf.prob = calloc(n, sizeof(*zipf.prob));
	zipf.alias = calloc(n, sizeof(*zipf.alias));
	zipf.w = calloc(n, sizeof(*zipf.w));
	zipf.best = calloc(n + 1, sizeof(*zipf.best));
	perm = calloc(n, sizeof(*perm));
	small = calloc(n, sizeof(*small));
	large = calloc(n, sizeof(*large));
	scaled = calloc(n, sizeof(*scaled));
	if (!zipf.prob || !zipf.alias || !zipf.w || !zipf.best || !perm ||
	    !small || !large || !scaled)
		die(EXIT_SETUP, "out of memory");
	for (i = 0; i < n; i++) {
		perm[i] = i;
		sum += pow(i + 1, -s);
	}
	/* Fisher-Yates: the page of rank i is perm[i]. */
	for (i = n - 1; i > 0; i--) {
		seed = splitmix64(seed);
		j = seed % (i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++) {
		zipf.w[perm[i]] = pow(i + 1, -s) / sum;
		zipf.best[i + 1] = zipf.best[i] + zipf.w[perm[i]];
	}
	for (i = 0; i < n; i++) {
		scaled[i] = zipf.w[i] * n;
		if (scaled[i] < 1)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		i = small[--ns];
		j = large[--nl];
		zipf.prob[i] = scaled[i];
		zipf.alias[i] = j;
		scaled[j] -= 1 - scaled[i];
		if (scaled[j] < 1)
			small[ns++] = j;
		else
			large[nl++] = j;
	}
	/* What is left is 1 but for rounding. */
	while (nl)
		zipf.prob[large[--nl]] = 1;
	while (ns)
		zipf.prob[small[--ns]] = 1;
	free(perm);
	free(small);
	free(large);
	free(scaled);
}

/* xorshift64*: fast, and good enough to pick pages. */
static inline unsigned long long xorshift64s(unsigned long long *s)
{
	unsigned long long x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/*
 * The page of access @r. Without a warm set, the high bits pick a hot page
 * (multiply-high avoids a division). With one, they pick one of
 * hot->nr * @ratio + cold->nr slots: @ratio slots per hot page, one per
 * cold page, so a cold page is accessed @ratio times less often.
 */
static inline char *pick_page(const struct set *hot, const struct set *cold,
			      unsigned long long ratio, unsigned long long r)
{
	unsigned long long slot;

	if (!ratio) {
		if (zipf.n)
			return set_page(hot, zipf_pick(r));
		return set_page(hot, ((__uint128_t)r * hot->nr) >> 64);
	}
	slot = ((__uint128_t)r * (hot->nr * ratio + cold->nr)) >> 64;
	if (slot < hot->nr * ratio)
		return set_page(hot, zipf.n ? zipf_pick(splitmix64(r)) :
					     slot / ratio);
	return set_page(cold, slot - hot->nr * ratio);
}

/*
 * One access per random number: the high bits pick the page, bits 16-24 the
 * word in it (spreads the accesses over the cache sets), the low 16 bits
 * load or store.
 */
static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	const struct set *hot = &w->b->hot, *cold = &w->b->cold;
	unsigned long long ratio = w->b->opt.warm_ratio;
	unsigned long long limit = w->b->opt.accesses;
	unsigned long long store_below = w->b->opt.store_pct * 65536ULL / 100;
	unsigned long long s = w->seed, done = 0, sink = 0, r, n, i;
	unsigned long *word;

	while (!stopped()) {
		n = BATCH_OPS;
		if (limit) {
			if (done >= limit)
				break;
			if (limit - done < n)
				n = limit - done;
		}
		for (i = 0; i < n; i++) {
			r = xorshift64s(&s);
			word = (unsigned long *)pick_page(hot, cold, ratio, r) +
			       ((r >> 16) & (WORDS_PER_PAGE - 1));
			if ((r & 0xffff) < store_below)
				__atomic_store_n(word, r, __ATOMIC_RELAXED);
			else
				sink += __atomic_load_n(word, __ATOMIC_RELAXED);
		}
		done += n;
		__atomic_store_n(&w->ops, done, __ATOMIC_RELAXED);
	}
	w->sink = sink;
	w->end = now_s();
	return NULL;
}

/* One pass over the cold set per interval, on the schedule of the start. */
static void *cold_fn(void *arg)
{
	struct bench *b = arg;
	double period = b->opt.cold_interval_ms / 1000.0;
	double next = run.t0;
	unsigned long long sink = 0;
	unsigned long i;

	do {
		for (i = 0; i < b->cold.nr && !stopped(); i++)
			sink += __atomic_load_n((unsigned long *)set_page(&b->cold, i),
						__ATOMIC_RELAXED);
		if (i < b->cold.nr)
			break;
		b->cold_passes++;
		/* A pass longer than the interval: start the next at once. */
		next += period;
		if (next < now_s())
			next = now_s();
	} while (!wait_until(next));
	b->cold_sink = sink;
	return NULL;
}

static unsigned long long total_ops(const struct bench *b)
{
	unsigned long long ops = 0;
	unsigned int i;

	for (i = 0; i < b->opt.threads; i++)
		ops += __atomic_load_n(&b->workers[i].ops, __ATOMIC_RELAXED);
	return ops;
}

/*
 * --zipf: the share of the hot set's accesses that pages on the top tier
 * serve, by where move_pages() last found each page (churn.top).
 */
static double served_share(const struct bench *b)
{
	double served = 0;
	unsigned long i;

	for (i = 0; i < zipf.n; i++)
		if (b->churn.top[i])
			served += zipf.w[i];
	return served;
}

/* Record where the sets are and the counters now. */
static int take_sample(struct bench *b)
{
	const struct options *o = &b->opt;
	struct sample *s;

	if (b->nr_samples == b->max_samples) {
		size_t max = b->max_samples ? 2 * b->max_samples : 256;

		s = realloc(b->samples, max * sizeof(*s));
		if (!s)
			return -1;
		b->samples = s;
		b->max_samples = max;
	}
	s = &b->samples[b->nr_samples];
	memset(s, 0, sizeof(*s));
	/*
	 * The counters at t; the residency takes a while on a big set, so
	 * it is gathered over [t, t + query_s].
	 */
	s->t = now_s() - run.t0;
	s->ops = total_ops(b);
	if (read_counters(&s->vm) ||
	    query_set(b, &b->hot, o->mem_node, &s->hot, &b->churn, s->t) ||
	    (o->cold_mb && query_set(b, &b->cold, o->mem_node, &s->cold, NULL, 0)) ||
	    (o->hog_mb && query_set(b, &b->hog, o->hog_node, &s->hog, NULL, 0)))
		return -1;
	s->query_s = now_s() - run.t0 - s->t;
	s->ups = b->churn.up;
	s->served = zipf.n ? served_share(b) : 0;
	b->nr_samples++;
	return 0;
}

/* --until-pct: the last sample found that share of the hot set up. */
static bool until_reached(const struct bench *b)
{
	const struct sample *s = &b->samples[b->nr_samples - 1];

	return b->opt.until_pct && b->hot.nr &&
	       s->hot.top * 100 >= (unsigned long long)b->opt.until_pct * b->hot.nr;
}

static void *sampler_fn(void *arg)
{
	struct bench *b = arg;
	double period = b->opt.sample_ms / 1000.0;
	double next = run.t0;

	do {
		if (take_sample(b)) {
			fail_run("sampling residency");
			break;
		}
		if (until_reached(b)) {
			stop_run();
			break;
		}
		/* Skip the periods a slow sample overran. */
		do {
			next += period;
		} while (next <= now_s());
	} while (!wait_until(next));
	return NULL;
}

/*
 * Read the PFNs of @s from pagemap into @pfns (0: not present), a chunk
 * of its mapping at a time into @chunk (PAGEMAP_CHUNK entries).
 */
static int read_pfns(const struct set *s, unsigned long long *pfns)
{
	unsigned long long *chunk;
	unsigned long i = 0, m, n, first, mapped;
	off_t base = (unsigned long)s->buf / PAGE_SZ * sizeof(*pfns);
	size_t len;
	int fd, ret = 0;

	chunk = malloc(PAGEMAP_CHUNK * sizeof(*chunk));
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || !chunk) {
		if (fd >= 0)
			close(fd);
		free(chunk);
		return -1;
	}
	errno = 0;
	mapped = s->nr ? set_index(s, s->nr - 1) + 1 : 0;
	for (first = 0; first < mapped && !ret; first += n) {
		n = mapped - first < PAGEMAP_CHUNK ? mapped - first : PAGEMAP_CHUNK;
		len = n * sizeof(*chunk);
		if (pread(fd, chunk, len, base + first * sizeof(*chunk)) != (ssize_t)len) {
			/* A short read leaves errno alone. */
			if (!errno)
				errno = EIO;
			ret = -1;
			break;
		}
		/* The set's pages in this chunk, in order. */
		for (; i < s->nr && (m = set_index(s, i)) < first + n; i++)
			pfns[i] = chunk[m - first] >> 63 ?
				  chunk[m - first] & ((1ULL << 55) - 1) : 0;
	}
	close(fd);
	free(chunk);
	return ret;
}

#define LAYOUT_REGION_SHIFT	9	/* 2 MiB of 4K pages */

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Measure how the cold set lies against the hot set (struct layout), once
 * both are placed. Keys are region << 32 | set << 31 | index, sorted, so
 * that each region's pages come together.
 */
static void measure_layout(struct bench *b)
{
	struct layout *l = &b->layout;
	unsigned long long *hp, *cp, *keys;
	unsigned long i, j, k, n = 0;

	if (!b->cold.nr)
		return;
	hp = calloc(b->hot.nr, sizeof(*hp));
	cp = calloc(b->cold.nr, sizeof(*cp));
	keys = calloc(b->hot.nr + b->cold.nr, sizeof(*keys));
	l->mixed = calloc(b->cold.nr, 1);
	if (!hp || !cp || !keys || !l->mixed)
		die(EXIT_SETUP, "out of memory");
	if (read_pfns(&b->hot, hp) || read_pfns(&b->cold, cp) || !hp[0])
		goto out;	/* not root: no PFNs, no layout */
	for (i = 0; i < b->hot.nr; i++)
		if (hp[i])
			keys[n++] = (hp[i] >> LAYOUT_REGION_SHIFT) << 32 | i;
	for (i = 0; i < b->cold.nr; i++)
		if (cp[i])
			keys[n++] = (cp[i] >> LAYOUT_REGION_SHIFT) << 32 |
				    1ULL << 31 | i;
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (i = 0; i < n; i = j) {
		unsigned long nh = 0, nc = 0;

		for (j = i; j < n && keys[j] >> 32 == keys[i] >> 32; j++) {
			if (keys[j] >> 31 & 1)
				nc++;
			else
				nh++;
		}
		l->hot_regions += nh > 0;
		l->cold_regions += nc > 0;
		if (!nh || !nc)
			continue;
		l->mixed_regions++;
		l->hot_pages_mixed += nh;
		l->cold_pages_mixed += nc;
		for (k = i; k < j; k++)
			if (keys[k] >> 31 & 1)
				l->mixed[keys[k] & 0x7fffffffULL] = 1;
	}
	l->known = true;
out:
	free(hp);
	free(cp);
	free(keys);
}

/*
 * --layout sparse, at the end: where the pages between the hot ones are.
 * Nothing touched them after placement: any on the top tier were promoted
 * for their hot neighbours' sake.
 */
static void filler_final(struct bench *b)
{
	if (b->filler.nr &&
	    query_set(b, &b->filler, b->opt.mem_node, &b->filler_end, NULL, 0))
		die(EXIT_SETUP, "move_pages: %s", strerror(errno));
}

/* At the end: which cold pages are on the top tier, by their layout. */
static void layout_final(struct bench *b)
{
	struct layout *l = &b->layout;
	unsigned long i, j, n;

	if (!l->known)
		return;
	for (i = 0; i < b->cold.nr; i += n) {
		n = b->cold.nr - i < QUERY_CHUNK ? b->cold.nr - i : QUERY_CHUNK;
		for (j = 0; j < n; j++)
			b->qpages[j] = set_page(&b->cold, i + j);
		if (move_pages(0, n, b->qpages, NULL, b->qstatus, 0)) {
			l->known = false;
			return;
		}
		for (j = 0; j < n; j++) {
			if (b->qstatus[j] < 0 ||
			    !is_top_node(b->qstatus[j], b->opt.mem_node))
				continue;
			if (l->mixed[i + j])
				l->cold_top_mixed++;
			else
				l->cold_top_pure++;
		}
	}
}

/* --blocks: the share of each set that was faulted in as 2 MiB blocks. */
static void json_blocks(FILE *f, const struct bench *b)
{
	if (!b->opt.blocks) {
		fputs("  \"blocks_pct\": null,\n", f);
		return;
	}
	fprintf(f, "  \"blocks_pct\": {\"hot\": %.1f, \"cold\": ",
		100.0 * (b->hot.huge_kb << 10) / b->hot.size);
	if (b->cold.size)
		fprintf(f, "%.1f},\n", 100.0 * (b->cold.huge_kb << 10) / b->cold.size);
	else
		fputs("null},\n", f);
}

static void json_layout(FILE *f, const struct layout *l)
{
	if (!l->known) {
		fputs("  \"layout\": null,\n", f);
		return;
	}
	fprintf(f, "  \"layout\": {\"region_pages\": %d, \"hot_regions\": %lu, ",
		1 << LAYOUT_REGION_SHIFT, l->hot_regions);
	fprintf(f, "\"cold_regions\": %lu, \"mixed_regions\": %lu, ",
		l->cold_regions, l->mixed_regions);
	fprintf(f, "\"hot_pages_mixed\": %lu, \"cold_pages_mixed\": %lu, ",
		l->hot_pages_mixed, l->cold_pages_mixed);
	fprintf(f, "\"cold_top_mixed\": %lu, \"cold_top_pure\": %lu},\n",
		l->cold_top_mixed, l->cold_top_pure);
}

/* All @len bytes of @text to the injection file in one write(2); 0 or -1. */
static int write_inject(const char *text, size_t len)
{
	ssize_t ret = write_raw(INJECT_PATH, text, len);

	if (ret >= 0 && (size_t)ret != len)
		errno = EIO;
	return ret >= 0 && (size_t)ret == len ? 0 : -1;
}

/*
 * Report every present page of the hot set once, as hex PFNs, at most
 * INJECT_MAX bytes a write. The PFNs are read afresh each round: like a
 * hardware sample, a round reports where a page is now, so pages already
 * promoted show up on the top tier (and pghot ignores them).
 */
static int inject_round(struct bench *b, unsigned long long *pfns,
			char *text)
{
	unsigned long i;
	size_t len = 0;

	if (read_pfns(&b->hot, pfns))
		return -1;
	for (i = 0; i < b->hot.nr; i++) {
		if (!pfns[i])
			continue;
		/* The workers' node accessed it, as a sample would say. */
		len += snprintf(text + len, INJECT_MAX - len, "0x%llx:%d ",
				pfns[i], b->opt.cpu_node);
		b->injected_pfns++;
		if (len + INJECT_TOKEN_MAX > INJECT_MAX) {
			if (write_inject(text, len))
				return -1;
			len = 0;
		}
	}
	return len ? write_inject(text, len) : 0;
}

static void *inject_fn(void *arg)
{
	struct bench *b = arg;
	double period = b->opt.inject_interval_ms / 1000.0;
	double next = run.t0;
	unsigned long long *pfns;
	char *text;

	pfns = calloc(b->hot.nr, sizeof(*pfns));
	text = malloc(INJECT_MAX);
	if (!pfns || !text) {
		fail_run("injection buffers");
		goto out;
	}
	while (b->inject_rounds_done < b->opt.inject_rounds) {
		if (inject_round(b, pfns, text)) {
			fail_run("writing " INJECT_PATH);
			break;
		}
		b->inject_rounds_done++;
		next += period;
		if (b->inject_rounds_done < b->opt.inject_rounds &&
		    wait_until(next))
			break;
	}
out:
	free(text);
	free(pfns);
	return NULL;
}

/* Without root, pagemap reads PFN 0: say so before the run, not during. */
static void check_pagemap(struct bench *b)
{
	unsigned long long *pfns = calloc(b->hot.nr, sizeof(*pfns));

	if (!pfns)
		die(EXIT_SETUP, "out of memory");
	if (read_pfns(&b->hot, pfns))
		die(EXIT_SETUP, "reading /proc/self/pagemap: %s",
		    strerror(errno));
	if (!pfns[0])
		die(EXIT_SETUP, "/proc/self/pagemap shows no PFNs: %s needs root",
		    b->opt.pfns_out ? "--pfns-out" : "--inject-rounds");
	free(pfns);
}

/*
 * --pfns-out: the PFN of every page of the hot and the cold set as the run
 * starts, so that an outside sampler's log can be split by set (each set's
 * delivered density). Pages not present are left out.
 */
static void write_pfns(struct bench *b)
{
	const struct set *sets[] = { &b->hot, &b->cold };
	unsigned long long *pfns;
	unsigned long i;
	unsigned int k;
	FILE *f;

	f = fopen(b->opt.pfns_out, "w");
	if (!f)
		die(EXIT_USAGE, "--pfns-out %s: %s", b->opt.pfns_out,
		    strerror(errno));
	for (k = 0; k < 2; k++) {
		const struct set *s = sets[k];

		if (!s->nr)
			continue;
		pfns = calloc(s->nr, sizeof(*pfns));
		if (!pfns)
			die(EXIT_SETUP, "out of memory");
		if (read_pfns(s, pfns))
			die(EXIT_SETUP, "reading /proc/self/pagemap: %s",
			    strerror(errno));
		for (i = 0; i < s->nr; i++)
			if (pfns[i])
				fprintf(f, "%s 0x%llx\n", k ? "cold" : "hot",
					pfns[i]);
		free(pfns);
	}
	if (fclose(f))
		die(EXIT_SETUP, "--pfns-out %s: %s", b->opt.pfns_out,
		    strerror(errno));
}

static void start_thread(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	int err = pthread_create(tid, NULL, fn, arg);

	if (err)
		die(EXIT_SETUP, "pthread_create: %s", strerror(err));
}

/*
 * A helper that only watches or reports (the sampler, the injector) runs
 * off the workers' CPUs where the box has others, so that it takes no time
 * from the workload it measures. Its node does not matter: move_pages()
 * queries move nothing, and injected PFNs name the workers' node.
 */
static void start_helper(pthread_t *tid, void *(*fn)(void *), void *arg,
			 int cpu_node)
{
	int cpu, nr = numa_num_configured_cpus(), err;
	bool any = false;
	cpu_set_t set;

	start_thread(tid, fn, arg);
	CPU_ZERO(&set);
	for (cpu = 0; cpu < nr && cpu < CPU_SETSIZE; cpu++) {
		if (numa_node_of_cpu(cpu) < 0 || numa_node_of_cpu(cpu) == cpu_node)
			continue;
		CPU_SET(cpu, &set);
		any = true;
	}
	if (!any)
		return;
	/* A CPU that is offline fails the call: then it stays where it is. */
	err = pthread_setaffinity_np(*tid, sizeof(set), &set);
	if (err)
		msg("helper thread stays on node %d's CPUs: %s", cpu_node,
		    strerror(err));
}

/*
 * Start everything at run.t0, wait for the end of the run (its duration,
 * or every worker's last access), stop the helpers and take the final
 * sample.
 */
/*
 * CPU time (user + system, clock ticks) of every kmigrated kernel thread
 * now, from /proc/<pid>/stat; -1 if there is none (a kernel without pghot).
 * A thread that goes away between the two readings is simply not counted.
 */
static long long kmigrated_ticks(void)
{
	unsigned long long ut, st;
	long long sum = -1;
	struct dirent *de;
	char path[300], buf[512], *p;
	DIR *d = opendir("/proc");
	FILE *f;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (p)
			p = strchr(buf, '(');
		if (!p || strncmp(p, "(kmigrated", 10))
			continue;
		p = strrchr(buf, ')');
		/* Fields 14 and 15 (utime, stime); p is at the end of field 2. */
		if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				 &ut, &st) != 2)
			continue;
		sum = (sum < 0 ? 0 : sum) + ut + st;
	}
	closedir(d);
	return sum;
}

static void run_bench(struct bench *b)
{
	const struct options *o = &b->opt;
	pthread_t sampler, cold, inject;
	unsigned int i;

	b->workers = calloc(o->threads, sizeof(*b->workers));
	if (!b->workers || init_run())
		die(EXIT_SETUP, "out of memory");
	for (i = 0; i < o->threads; i++) {
		b->workers[i].b = b;
		b->workers[i].id = i;
		/* Distinct, reproducible and never 0 (xorshift's fixpoint). */
		b->workers[i].seed = splitmix64(o->seed + i) | 1;
	}

	b->kmigrated_ticks = kmigrated_ticks();
	if (read_counters(&b->vm_start))
		die(EXIT_SETUP, "reading /proc/vmstat: %s", strerror(errno));
	if (o->ready_file) {
		int fd = open(o->ready_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			die(EXIT_SETUP, "--ready-file %s: %s", o->ready_file,
			    strerror(errno));
		close(fd);
	}
	run.t0 = now_s();
	for (i = 0; i < o->threads; i++)
		start_thread(&b->workers[i].tid, worker_fn, &b->workers[i]);
	start_helper(&sampler, sampler_fn, b, o->cpu_node);
	if (o->cold_interval_ms)
		start_thread(&cold, cold_fn, b);
	if (o->inject_rounds)
		start_helper(&inject, inject_fn, b, o->cpu_node);

	/* A failing helper stops the run early either way. */
	if (!o->accesses) {
		wait_until(run.t0 + o->duration_s);
		stop_run();
	}
	for (i = 0; i < o->threads; i++)
		pthread_join(b->workers[i].tid, NULL);
	stop_run();
	pthread_join(sampler, NULL);
	if (o->cold_interval_ms)
		pthread_join(cold, NULL);
	if (o->inject_rounds)
		pthread_join(inject, NULL);

	if (__atomic_load_n(&run.failed, __ATOMIC_ACQUIRE))
		exit(EXIT_SETUP);
	if (take_sample(b))
		die(EXIT_SETUP, "final sample: %s", strerror(errno));
	if (b->kmigrated_ticks >= 0) {
		long long now = kmigrated_ticks();

		b->kmigrated_ticks = now >= b->kmigrated_ticks ?
				     now - b->kmigrated_ticks : -1;
	}
}

/* ---- results ---- */

struct results {
	double elapsed;
	unsigned long long ops;
	const struct sample *last;
	double t95;			/* < 0: never */
	/* Hot pages seen going up by end - CHURN_WINDOW_S; of them down soon */
	unsigned long long ups_settled, down_soon_settled;
};

static bool settled(const struct bench *b, const struct sample *s)
{
	return s->hot.top * 100 >= b->hot.nr * SETTLED_PCT;
}

static void compute_results(const struct bench *b, struct results *res)
{
	const struct sample *s;
	double end = run.t0;
	unsigned int i;
	size_t k;

	for (i = 0; i < b->opt.threads; i++)
		if (b->workers[i].end > end)
			end = b->workers[i].end;
	res->elapsed = end - run.t0;
	res->ops = total_ops(b);
	res->last = &b->samples[b->nr_samples - 1];
	/*
	 * The first sample at SETTLED_PCT that the next one (if any) confirms,
	 * stamped with the end of its residency query: the pages counted may
	 * have arrived at any time until then.
	 */
	res->t95 = -1;
	for (k = 0; k < b->nr_samples; k++) {
		s = &b->samples[k];
		if (!settled(b, s))
			continue;
		if (k + 1 < b->nr_samples && !settled(b, s + 1))
			continue;
		res->t95 = s->t + s->query_s;
		break;
	}
	/* Censoring: only pages that had the whole window to come down. */
	res->ups_settled = 0;
	for (k = 0; k < b->nr_samples; k++)
		if (b->samples[k].t <= res->last->t - CHURN_WINDOW_S)
			res->ups_settled = b->samples[k].ups;
	res->down_soon_settled = 0;
	for (k = 0; k < b->churn.nr_soon; k++)
		if (b->churn.soon_up_at[k] <= res->last->t - CHURN_WINDOW_S)
			res->down_soon_settled++;
}

/* @str as a JSON string. */
static void json_str(FILE *f, const char *str)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* The counters of @now minus those at the start, as a JSON object. */
static void json_counters(FILE *f, const struct bench *b,
			  const struct counters *now)
{
	const char *sep = "";
	unsigned int i;

	fputc('{', f);
	for (i = 0; i < NR_VMSTAT; i++) {
		if (!b->vm_start.present[i] || !now->present[i])
			continue;
		fprintf(f, "%s\"%s\": %lld", sep, vmstat_names[i],
			(long long)(now->val[i] - b->vm_start.val[i]));
		sep = ", ";
	}
	fputc('}', f);
}

static void json_params(FILE *f, const struct options *o)
{
	fprintf(f, "  \"params\": {\"cpu_node\": %d, \"mem_node\": %d, ",
		o->cpu_node, o->mem_node);
	fprintf(f, "\"hot_mb\": %llu, \"cold_mb\": %llu, \"cold_interval_ms\": %llu, ",
		o->hot_mb, o->cold_mb, o->cold_interval_ms);
	fprintf(f, "\"warm_ratio\": %llu, \"blocks\": %s, ", o->warm_ratio,
		o->blocks ? "true" : "false");
	fprintf(f, "\"layout\": \"%s\", ", layout_names[o->layout]);
	if (o->zipf)
		fprintf(f, "\"zipf\": %g, ", o->zipf);
	else
		fputs("\"zipf\": null, ", f);
	fprintf(f, "\"threads\": %u, ", o->threads);
	if (o->accesses)
		fprintf(f, "\"accesses\": %llu, \"duration_s\": null, ",
			o->accesses);
	else
		fprintf(f, "\"accesses\": null, \"duration_s\": %llu, ",
			o->duration_s);
	if (o->until_pct)
		fprintf(f, "\"until_pct\": %u, ", o->until_pct);
	else
		fputs("\"until_pct\": null, ", f);
	fprintf(f, "\"store_pct\": %u, \"sample_ms\": %llu, \"seed\": %llu, ",
		o->store_pct, o->sample_ms, o->seed);
	if (o->hog_mb)
		fprintf(f, "\"hog_mb\": %llu, \"hog_node\": %d, \"hog_locked\": %s, ",
			o->hog_mb, o->hog_node, o->hog_locked ? "true" : "false");
	else
		fprintf(f, "\"hog_mb\": 0, \"hog_node\": null, \"hog_locked\": false, ");
	fprintf(f, "\"inject_rounds\": %llu, \"inject_interval_ms\": %llu, \"json\": ",
		o->inject_rounds, o->inject_interval_ms);
	if (o->json)
		json_str(f, o->json);
	else
		fputs("null", f);
	fputs("},\n", f);
}

/* The kernel and the tunables in force, so runs can be told apart. */
static void json_system(FILE *f)
{
	const char *sep = "";
	struct utsname u;
	char val[128];
	unsigned int i;

	fputs("  \"kernel\": ", f);
	if (uname(&u))
		fputs("null", f);
	else
		json_str(f, u.release);
	fputs(",\n  \"settings\": {", f);
	for (i = 0; i < ARRAY_SIZE(setting_paths); i++) {
		if (read_str(setting_paths[i], val, sizeof(val)))
			continue;
		fputs(sep, f);
		json_str(f, setting_paths[i]);
		fputs(": ", f);
		json_str(f, val);
		sep = ", ";
	}
	fputs("},\n", f);
}

static void json_samples(FILE *f, const struct bench *b)
{
	const struct sample *s;
	size_t k;

	fputs("  \"samples\": [\n", f);
	for (k = 0; k < b->nr_samples; k++) {
		s = &b->samples[k];
		fprintf(f, "    {\"t\": %.3f, \"query_s\": %.3f, \"ops\": %llu, ",
			s->t, s->query_s, s->ops);
		fprintf(f, "\"hot_top\": %lu, \"hot_mem\": %lu, \"hot_elsewhere\": %lu, ",
			s->hot.top, s->hot.on, s->hot.off - s->hot.top);
		fprintf(f, "\"cold_top\": %lu, \"cold_mem\": %lu, ",
			s->cold.top, s->cold.on);
		if (b->opt.hog_mb)
			fprintf(f, "\"hog_on_node\": %lu, ", s->hog.on);
		if (zipf.n)
			fprintf(f, "\"served_top\": %.4f, \"served_best\": %.4f, ",
				s->served, zipf.best[s->hot.top]);
		fputs("\"vmstat\": ", f);
		json_counters(f, b, &s->vm);
		fprintf(f, "}%s\n", k + 1 < b->nr_samples ? "," : "");
	}
	fputs("  ]\n", f);
}

/* Where the hot set ended, node by node. */
static void json_nodes(FILE *f, const struct bench *b)
{
	unsigned long *per = calloc(TOPO_MAX_NODES, sizeof(*per));
	const char *sep = "";
	unsigned long i, j, n;
	int nid;

	fputs("  \"hot_pages_by_node\": {", f);
	for (i = 0; per && i < b->hot.nr; i += n) {
		n = b->hot.nr - i < QUERY_CHUNK ? b->hot.nr - i : QUERY_CHUNK;
		for (j = 0; j < n; j++)
			b->qpages[j] = set_page(&b->hot, i + j);
		if (move_pages(0, n, b->qpages, NULL, b->qstatus, 0))
			break;
		for (j = 0; j < n; j++)
			if (b->qstatus[j] >= 0 && b->qstatus[j] < TOPO_MAX_NODES)
				per[b->qstatus[j]]++;
	}
	for (nid = 0; per && nid < TOPO_MAX_NODES; nid++) {
		if (!per[nid])
			continue;
		fprintf(f, "%s\"%d\": %lu", sep, nid, per[nid]);
		sep = ", ";
	}
	fputs("},\n", f);
	free(per);
}

static void print_json(FILE *f, const struct bench *b,
		       const struct results *res)
{
	unsigned int i;

	fputs("{\n  \"label\": ", f);
	json_str(f, b->opt.label);
	fputs(",\n", f);
	json_params(f, &b->opt);
	json_system(f);
	fprintf(f, "  \"elapsed_s\": %.3f,\n  \"ops\": %llu,\n  \"ops_per_sec\": %.1f,\n",
		res->elapsed, res->ops,
		res->elapsed > 0 ? res->ops / res->elapsed : 0.0);
	fputs("  \"ops_per_thread\": [", f);
	for (i = 0; i < b->opt.threads; i++)
		fprintf(f, "%s%llu", i ? ", " : "", b->workers[i].ops);
	fprintf(f, "],\n  \"hot_pages\": %lu,\n  \"promoted_hot_pages\": %lu,\n",
		b->hot.nr, res->last->hot.top);
	fprintf(f, "  \"hot_pages_top_at_start\": %lu,\n", b->start_top);
	if (b->kmigrated_ticks >= 0)
		fprintf(f, "  \"kmigrated_cpu_s\": %.2f,\n",
			(double)b->kmigrated_ticks / sysconf(_SC_CLK_TCK));
	else
		fputs("  \"kmigrated_cpu_s\": null,\n", f);
	json_nodes(f, b);
	json_layout(f, &b->layout);
	json_blocks(f, b);
	fprintf(f, "  \"churn\": {\"window_s\": %d, \"up\": %llu, ", CHURN_WINDOW_S,
		b->churn.up);
	fprintf(f, "\"down\": %llu, \"down_within_window\": %llu, ",
		b->churn.down, b->churn.down_soon);
	fprintf(f, "\"up_settled\": %llu, \"down_within_window_settled\": %llu},\n",
		res->ups_settled, res->down_soon_settled);
	if (res->t95 >= 0)
		fprintf(f, "  \"seconds_to_95pct\": %.3f,\n", res->t95);
	else
		fputs("  \"seconds_to_95pct\": null,\n", f);
	fprintf(f, "  \"cold_pages\": %lu,\n  \"promoted_cold_pages\": %lu,\n",
		b->cold.nr, res->last->cold.top);
	fprintf(f, "  \"cold_passes\": %llu,\n", b->cold_passes);
	if (b->filler.nr)
		fprintf(f, "  \"filler_pages\": %lu,\n  \"promoted_filler_pages\": %lu,\n",
			b->filler.nr, b->filler_end.top);
	if (b->opt.hog_mb)
		fprintf(f, "  \"hog_pages\": %lu,\n  \"hog_pages_on_node\": %lu,\n",
			b->hog.nr, res->last->hog.on);
	fprintf(f, "  \"inject_rounds_done\": %llu,\n  \"injected_pfns\": %llu,\n",
		b->inject_rounds_done, b->injected_pfns);
	fputs("  \"vmstat\": ", f);
	json_counters(f, b, &res->last->vm);
	fputs(",\n", f);
	json_samples(f, b);
	fputs("}\n", f);
}

static long long vm_delta(const struct bench *b, const struct counters *c,
			  const char *name)
{
	int i = vmstat_index(name);

	if (i < 0 || !b->vm_start.present[i] || !c->present[i])
		return 0;
	return c->val[i] - b->vm_start.val[i];
}

static void print_summary(const struct bench *b, const struct results *res)
{
	const struct counters *vm = &res->last->vm;
	char t95[32];

	if (res->t95 >= 0)
		snprintf(t95, sizeof(t95), "%d%% at %.1f s", SETTLED_PCT,
			 res->t95);
	else
		snprintf(t95, sizeof(t95), "%d%% never", SETTLED_PCT);
	/* One line, on stderr, so that it survives "| python3 -m json.tool". */
	fprintf(stderr, "%s: %s%s%.1f s, %llu ops (%.0f/s); ", prog,
		b->opt.label, *b->opt.label ? ": " : "", res->elapsed, res->ops,
		res->elapsed > 0 ? res->ops / res->elapsed : 0.0);
	fprintf(stderr, "hot %lu/%lu pages on the top tier (%.1f%%), %s; ",
		res->last->hot.top, b->hot.nr,
		100.0 * res->last->hot.top / b->hot.nr, t95);
	if (b->filler.nr)
		fprintf(stderr, "filler %lu/%lu up; ", b->filler_end.top,
			b->filler.nr);
	fprintf(stderr, "cold %lu/%lu up; promoted %lld, demoted %lld; ",
		res->last->cold.top, b->cold.nr,
		vm_delta(b, vm, "pgpromote_success"),
		vm_delta(b, vm, "pgdemote_kswapd") +
		vm_delta(b, vm, "pgdemote_direct") +
		vm_delta(b, vm, "pgdemote_khugepaged") +
		vm_delta(b, vm, "pgdemote_proactive"));
	fprintf(stderr, "%llu of %llu hot pages up by %.0f s down again within %d s\n",
		res->down_soon_settled, res->ups_settled,
		res->last->t - CHURN_WINDOW_S, CHURN_WINDOW_S);
}

static FILE *open_output(const char *path)
{
	FILE *f;

	if (!path)
		return stdout;
	/* Opened before the run, so a bad path fails in a second. */
	f = fopen(path, "w");
	if (!f)
		die(EXIT_USAGE, "--json %s: %s", path, strerror(errno));
	return f;
}

int main(int argc, char **argv)
{
	static struct bench b;
	struct results res;
	FILE *out;

	parse_options(argc, argv, &b.opt);
	check_system(&b.opt);
	out = open_output(b.opt.json);

	/* Every thread (and the placement) runs on the CPU node. */
	if (numa_run_on_node(b.opt.cpu_node))
		die(EXIT_SETUP, "numa_run_on_node(%d): %s", b.opt.cpu_node,
		    strerror(errno));
	place_all(&b);
	if (b.opt.zipf)
		zipf_init(b.hot.nr, b.opt.zipf, b.opt.seed);
	if (b.opt.inject_rounds)
		check_pagemap(&b);
	measure_layout(&b);
	if (b.opt.pfns_out) {
		check_pagemap(&b);
		write_pfns(&b);
	}

	run_bench(&b);
	layout_final(&b);
	filler_final(&b);
	compute_results(&b, &res);
	print_json(out, &b, &res);
	if (fflush(out) || (out != stdout && fclose(out)))
		die(EXIT_SETUP, "writing the JSON: %s", strerror(errno));
	print_summary(&b, &res);
	return 0;
}
