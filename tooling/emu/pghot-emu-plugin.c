// SPDX-License-Identifier: GPL-2.0
/*
 * pghot-emu-plugin: a QEMU TCG plugin that turns the test VM into a small
 * CXL box (see tooling/emu/README and tooling/vm.sh VM_SLOWMEM/VM_SAMPLER).
 *
 * Slow memory: every guest load and store whose guest-physical address
 * lies in one of the "slow" ranges (the lower-tier node's memory) makes
 * the vCPU busy-wait delay_ns on the host (TSC calibrated at start), so
 * the guest sees those accesses take longer. With line=1 (default)
 * consecutive slow accesses of a vCPU to the same 64-byte line pay once.
 *
 * IBS-like sampler: once armed by the guest, every N-th memory access of
 * each vCPU (N = period +- jitter, user-space addresses only, optionally
 * only slow ones) is sent with its guest-physical address, vCPU and host
 * time stamp as a 24-byte record to a unix socket (a QEMU virtio-serial
 * chardev, so the guest helper reads it from a port). The guest helper
 * (pghot-emu feed) reports them to pghot and acknowledges each batch, which
 * gives the delivery delay. With a RATE, N follows each vCPU's speed in
 * the user time the guest reports (see rate_report()) so that the vCPU
 * takes RATE samples per second of user time, of its counted accesses
 * (slow or not; with SLOW_ONLY only the slow ones are sent), as IBS does:
 * the emulator's own slowdowns (a TLB flush, the host's load) then change
 * neither the samples per second nor their spread over the pages.
 * Commands from the guest, one per line:
 *	arm PERIOD JITTER_PCT SLOW_ONLY USER_ONLY [RATE]	disarm
 *	user VCPU USER_NS (rate mode: the vCPU's user time so far)
 *	delay NS	ack OLDEST_STAMP NEWEST_STAMP COUNT	stats
 *
 * Arguments: slow=START-END (hex, END exclusive; repeatable), delay_ns=N,
 * line=on|off, kernel=on|off (instrument kernel code too; default off),
 * sock=PATH (sampler), stats=PATH (JSON, rewritten every second, on
 * "stats" and at exit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_RANGES	8
#define RING		4096		/* records per vCPU ring, power of 2 */
#define PENDING_MAX	(256 * 1024)	/* bytes waiting for the socket */
#define USER_TOP	0x0000800000000000ULL	/* x86-64 user half */
#define LINE_MASK	(~63ULL)
#define HIST		32		/* log2 buckets of the delivery delay */
#define CREDIT_MAX	100000		/* cycles: about 50 us */
#define PREEMPTED	4000		/* cycles between two reads: preempted */
#define RATE_REPORTS	10		/* rate mode: N from the last 10 reports */
#define RATE_MIN_USER_NS 10000000ULL	/* less user time in them: N kept */

enum { REC_SAMPLE = 1, REC_STATS = 2 };
enum { F_STORE = 1, F_SLOW = 2 };

/* What the guest helper reads: keep in sync with pghot-emu.c. */
struct emu_rec {
	uint64_t gpa;		/* sample: guest-physical address; stats: gen */
	uint64_t stamp;		/* host CLOCK_MONOTONIC ns */
	uint32_t seq;
	uint16_t vcpu;
	uint8_t type;
	uint8_t flags;
};

struct vcpu {
	/* Written by the vCPU thread only. */
	uint64_t ops, user_ops, slow_ops, delayed;
	uint64_t samples, dropped_ring;
	uint64_t last_line;
	uint64_t credit;		/* TSC cycles waited too long */
	int64_t countdown;
	uint64_t rng;
	uint32_t arm_gen;
	uint64_t counted;		/* accesses the countdown saw */
	/* Set by the I/O thread (rate mode), read by the vCPU thread. */
	_Atomic uint64_t period;
	/* I/O thread: counted and user ns at the last RATE_REPORTS reports. */
	uint64_t rate_counted[RATE_REPORTS], rate_user[RATE_REPORTS];
	unsigned int rate_reports;
	uint32_t rate_gen;		/* the arm they belong to */
	/* Single producer (vCPU), single consumer (I/O thread). */
	_Atomic uint32_t head, tail;
	struct emu_rec ring[RING];
} __attribute__((aligned(64)));

static struct {
	uint64_t start, end;
} ranges[MAX_RANGES];
static int nr_ranges;
static int line_coalesce = 1;
static int instrument_kernel;
static struct vcpu *vcpus;
static int max_vcpus;
static double tsc_per_ns;
static double spin_check_ns;	/* measured length of a delay_ns spin */
static const char *sock_path, *stats_path;

/* Knobs the guest changes at run time. */
static _Atomic uint64_t delay_ns, delay_cycles;
static _Atomic int armed;
static _Atomic uint32_t arm_gen;
static _Atomic uint32_t seq;
static uint64_t period = 10000, jitter_pct = 10, rate;
static int slow_only, user_only = 1;

/* I/O thread state. */
static int sock_fd = -1;
static int connected;
static char pending[PENDING_MAX];
static size_t pending_len;
static uint64_t sent, dropped_link, acked, acks, stats_gen, t_start;
static uint64_t delay_sum_ns, delay_max_ns, delay_n, hist[HIST];
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Wait @cycles of the vCPU thread's own running time, less what earlier
 * waits overshot (loop granularity): the mean delay is what was asked for.
 * A jump of the TSC between two reads means the host ran something else;
 * that time does not count, so on a loaded host the delay stretches like
 * the rest of the vCPU's work and the latency ratio holds.
 */
static inline void delay(struct vcpu *v, uint64_t cycles)
{
	uint64_t t, prev, end;

	if (v->credit >= cycles) {
		v->credit -= cycles;
		return;
	}
	prev = __rdtsc();
	end = prev + cycles - v->credit;
	while ((t = __rdtsc()) < end) {
		if (t - prev > PREEMPTED)
			end += t - prev;
		prev = t;
	}
	v->credit = t - end < CREDIT_MAX ? t - end : CREDIT_MAX;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static int64_t next_period(struct vcpu *v)
{
	uint64_t n = atomic_load_explicit(&v->period, memory_order_relaxed);
	uint64_t j = n * jitter_pct / 100;
	int64_t p = n;

	if (j)
		p += (int64_t)(xorshift(&v->rng) % (2 * j + 1)) - (int64_t)j;
	return p > 0 ? p : 1;
}

static inline int is_slow(uint64_t pa)
{
	for (int i = 0; i < nr_ranges; i++)
		if (pa >= ranges[i].start && pa < ranges[i].end)
			return 1;
	return 0;
}

static void take_sample(unsigned int idx, struct vcpu *v, uint64_t pa,
			int store, int slow)
{
	uint32_t h = atomic_load_explicit(&v->head, memory_order_relaxed);
	uint32_t t = atomic_load_explicit(&v->tail, memory_order_acquire);
	struct emu_rec *r;

	v->samples++;
	if (h - t >= RING) {
		v->dropped_ring++;
		return;
	}
	r = &v->ring[h % RING];
	r->gpa = pa;
	r->stamp = now_ns();
	r->seq = atomic_fetch_add_explicit(&seq, 1, memory_order_relaxed);
	r->vcpu = idx;
	r->type = REC_SAMPLE;
	r->flags = (store ? F_STORE : 0) | (slow ? F_SLOW : 0);
	atomic_store_explicit(&v->head, h + 1, memory_order_release);
}

static void mem_cb(unsigned int idx, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	struct vcpu *v = &vcpus[idx];
	struct qemu_plugin_hwaddr *hw;
	int user = vaddr < USER_TOP, slow, sample = 0;
	uint64_t pa, d;

	if (atomic_load_explicit(&armed, memory_order_relaxed) &&
	    (user || !user_only)) {
		uint32_t g = atomic_load_explicit(&arm_gen, memory_order_relaxed);

		if (v->arm_gen != g) {
			v->arm_gen = g;
			v->countdown = next_period(v);
		}
		sample = 1;
	}
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	slow = is_slow(pa);
	v->ops++;
	v->user_ops += user;
	if (slow) {
		v->slow_ops++;
		d = atomic_load_explicit(&delay_cycles, memory_order_relaxed);
		if (d && (!line_coalesce || (pa & LINE_MASK) != v->last_line)) {
			delay(v, d);
			v->delayed++;
		}
		v->last_line = pa & LINE_MASK;
	}
	/* Rate mode counts every access, so that N follows the vCPU's speed. */
	if (sample && (rate || slow || !slow_only)) {
		v->counted++;
		if (--v->countdown <= 0) {
			v->countdown = next_period(v);
			if (slow || !slow_only)
				take_sample(idx, v, pa,
					    qemu_plugin_mem_is_store(info), slow);
		}
	}
}

/*
 * Only user-space code is instrumented unless kernel=on: a callback costs
 * some 100 ns of host time per access, which would make the guest kernel's
 * memory-heavy paths (faults, migration, page copies) tens of times slower
 * relative to user code than on hardware.
 */
static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	if (!instrument_kernel && qemu_plugin_tb_vaddr(tb) >= USER_TOP)
		return;
	for (size_t i = 0; i < n; i++)
		qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i),
						 mem_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
}

static void set_delay(uint64_t ns)
{
	atomic_store(&delay_ns, ns);
	atomic_store(&delay_cycles, (uint64_t)(ns * tsc_per_ns + 0.5));
}

/* TSC ticks per ns, against CLOCK_MONOTONIC over 50 ms. */
static void calibrate_tsc(void)
{
	uint64_t t0 = now_ns(), c0 = __rdtsc(), t1;

	do {
		t1 = now_ns();
	} while (t1 - t0 < 50000000);
	tsc_per_ns = (double)(__rdtsc() - c0) / (t1 - t0);
}

/* How long a spin of the configured delay (200 ns if none) really lasts. */
static void check_spin(void)
{
	uint64_t d = atomic_load(&delay_cycles), t0;
	static struct vcpu check;
	const int n = 20000;

	if (!d)
		d = (uint64_t)(200 * tsc_per_ns);
	t0 = now_ns();
	for (int i = 0; i < n; i++)
		delay(&check, d);
	spin_check_ns = (double)(now_ns() - t0) / n;
}

static void write_stats(void)
{
	char tmp[4096];
	FILE *f;
	uint64_t ops = 0, samples = 0;

	if (!stats_path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", stats_path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	pthread_mutex_lock(&stats_lock);
	fprintf(f, "{\"gen\": %" PRIu64 ", \"t\": %.3f, \"delay_ns\": %" PRIu64
		", \"line\": %d, \"kernel\": %d, \"tsc_per_ns\": %.4f, \"spin_check_ns\": %.1f"
		", \"spin_check_for_ns\": %.1f,\n \"slow_ranges\": [",
		stats_gen, (now_ns() - t_start) / 1e9, atomic_load(&delay_ns),
		line_coalesce, instrument_kernel, tsc_per_ns, spin_check_ns,
		atomic_load(&delay_cycles) ? atomic_load(&delay_ns) : 200.0);
	for (int i = 0; i < nr_ranges; i++)
		fprintf(f, "%s[%" PRIu64 ", %" PRIu64 "]", i ? ", " : "",
			ranges[i].start, ranges[i].end);
	fprintf(f, "],\n \"sampler\": {\"socket\": %s, \"connected\": %d, "
		"\"armed\": %d, \"period\": %" PRIu64 ", \"rate\": %" PRIu64
		", \"jitter_pct\": %" PRIu64 ", \"slow_only\": %d, \"user_only\": %d, \"sent\": %" PRIu64
		", \"dropped_link\": %" PRIu64 ", \"acked\": %" PRIu64
		", \"acks\": %" PRIu64 ", \"delay_n\": %" PRIu64
		", \"delay_avg_ms\": %.3f, \"delay_max_ms\": %.3f, "
		"\"delay_hist_log2_us\": [",
		sock_path ? "true" : "false", connected, atomic_load(&armed),
		period, rate, jitter_pct, slow_only, user_only, sent, dropped_link,
		acked, acks, delay_n,
		delay_n ? delay_sum_ns / 1e6 / delay_n : 0.0, delay_max_ns / 1e6);
	for (int i = 0; i < HIST; i++)
		fprintf(f, "%s%" PRIu64, i ? ", " : "", hist[i]);
	fputs("]},\n \"vcpus\": [", f);
	for (int i = 0; i < max_vcpus; i++) {
		struct vcpu *v = &vcpus[i];

		ops += v->ops;
		samples += v->samples;
		fprintf(f, "%s\n  {\"ops\": %" PRIu64 ", \"user_ops\": %" PRIu64
			", \"slow_ops\": %" PRIu64 ", \"delayed\": %" PRIu64
			", \"samples\": %" PRIu64 ", \"dropped_ring\": %" PRIu64
			", \"counted\": %" PRIu64 ", \"period\": %" PRIu64 "}",
			i ? "," : "", v->ops, v->user_ops, v->slow_ops,
			v->delayed, v->samples, v->dropped_ring, v->counted,
			atomic_load(&v->period));
	}
	fprintf(f, "],\n \"ops\": %" PRIu64 ", \"samples\": %" PRIu64 "}\n",
		ops, samples);
	stats_gen++;
	pthread_mutex_unlock(&stats_lock);
	fclose(f);
	rename(tmp, stats_path);
}

static void queue_rec(const struct emu_rec *r)
{
	if (pending_len + sizeof(*r) > PENDING_MAX) {
		dropped_link++;
		return;
	}
	memcpy(pending + pending_len, r, sizeof(*r));
	pending_len += sizeof(*r);
}

static void flush_pending(void)
{
	ssize_t n;

	if (!connected || !pending_len)
		return;
	n = send(sock_fd, pending, pending_len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n > 0) {
		memmove(pending, pending + n, pending_len - n);
		pending_len -= n;
	} else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
		close(sock_fd);
		sock_fd = -1;
		connected = 0;
	}
}

static void account_delay(uint64_t stamp, uint64_t now)
{
	uint64_t d = now > stamp ? now - stamp : 0;
	int b = 0;

	delay_sum_ns += d;
	delay_n++;
	if (d > delay_max_ns)
		delay_max_ns = d;
	for (uint64_t us = d / 1000; us > 1 && b < HIST - 1; us >>= 1)
		b++;
	hist[b]++;
}

/*
 * Rate mode: the guest reports each vCPU's user time (USER_NS, as the
 * guest kernel accounts it; VCPU is the guest's CPU number, which is
 * QEMU's vCPU index in the test VM) every 100 ms or so; N is the vCPU's counted
 * accesses per second of user time over the last RATE_REPORTS reports,
 * over the rate, so that it takes @rate samples per second it runs user
 * code: as IBS counting a CPU's cycles with kernel samples filtered out.
 * The emulator's own slowdowns then change nothing (a TLB flush is kernel
 * time; an access that takes longer is in the speed), nor do the guest
 * kernel's: a vCPU in the kernel half the time gets half the samples, as
 * with IBS. Less than RATE_MIN_USER_NS of user time: N is kept.
 */
static void rate_report(unsigned int idx, uint64_t user_ns)
{
	uint32_t gen = atomic_load(&arm_gen);
	unsigned int cur, old;
	uint64_t ops, user, n;
	struct vcpu *v;

	if (idx >= (unsigned int)max_vcpus)
		return;
	v = &vcpus[idx];
	/* Armed again, or the guest's count went back: start over. */
	if (v->rate_gen != gen || (v->rate_reports && user_ns <
	    v->rate_user[(v->rate_reports - 1) % RATE_REPORTS])) {
		v->rate_gen = gen;
		v->rate_reports = 0;
	}
	cur = v->rate_reports % RATE_REPORTS;
	old = v->rate_reports < RATE_REPORTS ? 0 : cur;
	ops = v->counted - v->rate_counted[old];
	user = user_ns - v->rate_user[old];
	v->rate_counted[cur] = v->counted;
	v->rate_user[cur] = user_ns;
	if (!v->rate_reports++ || !rate || user < RATE_MIN_USER_NS)
		return;
	n = (uint64_t)(ops * 1e9 / user / rate);
	atomic_store_explicit(&v->period, n ? n : 1, memory_order_relaxed);
}

static void command(char *line)
{
	uint64_t a, b, c, d, e;
	int n = sscanf(line, "arm %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		       " %" SCNu64, &a, &b, &c, &d, &e);

	if ((n == 4 || n == 5) && a) {
		period = a;
		jitter_pct = b > 100 ? 100 : b;
		slow_only = !!c;
		user_only = !!d;
		rate = n == 5 ? e : 0;
		for (int i = 0; i < max_vcpus; i++)
			atomic_store(&vcpus[i].period, a);
		atomic_fetch_add(&arm_gen, 1);
		atomic_store(&armed, 1);
	} else if (sscanf(line, "user %" SCNu64 " %" SCNu64, &a, &b) == 2) {
		rate_report(a, b);
	} else if (!strcmp(line, "disarm")) {
		atomic_store(&armed, 0);
	} else if (sscanf(line, "delay %" SCNu64, &a) == 1) {
		set_delay(a);
	} else if (sscanf(line, "ack %" SCNu64 " %" SCNu64 " %" SCNu64,
			  &a, &b, &c) == 3) {
		uint64_t now = now_ns();

		pthread_mutex_lock(&stats_lock);
		account_delay(a, now);
		if (b != a)
			account_delay(b, now);
		acked += c;
		acks++;
		pthread_mutex_unlock(&stats_lock);
	} else if (!strcmp(line, "stats")) {
		struct emu_rec r = { .type = REC_STATS, .stamp = now_ns() };

		r.gpa = stats_gen;
		write_stats();
		queue_rec(&r);
	}
}

static void read_commands(void)
{
	static char buf[4096];
	static size_t len;
	ssize_t n;
	char *nl;

	for (;;) {
		n = recv(sock_fd, buf + len, sizeof(buf) - 1 - len, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
			close(sock_fd);
			sock_fd = -1;
			connected = 0;
			return;
		}
		if (n < 0)
			return;
		len += n;
		buf[len] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			command(buf);
			len -= nl + 1 - buf;
			memmove(buf, nl + 1, len + 1);
		}
		if (len == sizeof(buf) - 1)
			len = 0;	/* garbage: drop it */
	}
}

static void try_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	sock_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (sock_fd < 0)
		return;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (connect(sock_fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(sock_fd);
		sock_fd = -1;
		return;
	}
	connected = 1;
}

/* Moves samples to the socket, reads commands, writes the stats file. */
static void *io_thread(void *arg)
{
	uint64_t next_stats = now_ns() + 1000000000ULL;
	struct timespec ms = { 0, 1000000 };

	for (;;) {
		if (sock_path && !connected)
			try_connect();
		for (int i = 0; i < max_vcpus; i++) {
			struct vcpu *v = &vcpus[i];
			uint32_t t = atomic_load_explicit(&v->tail, memory_order_relaxed);
			uint32_t h = atomic_load_explicit(&v->head, memory_order_acquire);

			for (; t != h; t++) {
				if (connected) {
					queue_rec(&v->ring[t % RING]);
					sent++;
				} else {
					dropped_link++;
				}
			}
			atomic_store_explicit(&v->tail, t, memory_order_release);
		}
		if (connected)
			read_commands();
		flush_pending();
		if (now_ns() >= next_stats) {
			write_stats();
			next_stats += 1000000000ULL;
		}
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	write_stats();
}

static int parse_range(const char *v)
{
	char *end;
	uint64_t s, e;

	if (nr_ranges == MAX_RANGES)
		return -1;
	s = strtoull(v, &end, 16);
	if (*end != '-')
		return -1;
	e = strtoull(end + 1, &end, 16);
	if (*end || e <= s)
		return -1;
	ranges[nr_ranges].start = s;
	ranges[nr_ranges].end = e;
	nr_ranges++;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	pthread_t tid;
	bool b;

	if (!info->system_emulation) {
		fprintf(stderr, "pghot-emu: system emulation only\n");
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *k = argv[i], *v;

		if (!eq)
			goto bad;
		*eq = '\0';
		v = eq + 1;
		if (!strcmp(k, "slow")) {
			if (parse_range(v))
				goto bad;
		} else if (!strcmp(k, "delay_ns")) {
			atomic_store(&delay_ns, strtoull(v, NULL, 0));
		} else if (!strcmp(k, "line")) {
			if (!qemu_plugin_bool_parse(k, v, &b))
				goto bad;
			line_coalesce = b;
		} else if (!strcmp(k, "kernel")) {
			if (!qemu_plugin_bool_parse(k, v, &b))
				goto bad;
			instrument_kernel = b;
		} else if (!strcmp(k, "sock")) {
			sock_path = v;
		} else if (!strcmp(k, "stats")) {
			stats_path = v;
		} else {
			goto bad;
		}
		continue;
bad:
		fprintf(stderr, "pghot-emu: bad argument %s\n", argv[i]);
		return -1;
	}
	max_vcpus = info->system.max_vcpus;
	vcpus = aligned_alloc(64, sizeof(*vcpus) * max_vcpus);
	if (!vcpus)
		return -1;
	memset(vcpus, 0, sizeof(*vcpus) * max_vcpus);
	for (int i = 0; i < max_vcpus; i++) {
		vcpus[i].rng = 0x9e3779b97f4a7c15ULL * (i + 1) ^ now_ns();
		atomic_store(&vcpus[i].period, period);
	}
	t_start = now_ns();
	calibrate_tsc();
	set_delay(atomic_load(&delay_ns));
	check_spin();
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	if (pthread_create(&tid, NULL, io_thread, NULL))
		return -1;
	pthread_detach(tid);
	return 0;
}
