// SPDX-License-Identifier: GPL-2.0
/*
 * pghot-emu: the guest side of the emulated CXL box (tooling/emu/README).
 * Runs inside the test VM started with VM_SLOWMEM=1 or VM_SAMPLER=1; talks
 * to the QEMU plugin (pghot-emu-plugin.c) over the virtio-serial port
 * "org.pghot.emu".
 *
 *   pghot-emu probe -n NODE [-m MB] [-s SECONDS] [-a]
 *	pointer-chasing latency (ns per dependent load over random cache
 *	lines) and a streaming read (MB/s) on memory of node N; one JSON
 *	line. -a: run even if the memory is not (or no longer) all there
 *   pghot-emu calibrate [-r R] [-f A] [-l B] [-m MB] [-s SLICE]
 *	set the plugin's delay so that B's latency is R times A's, as the
 *	probe measures them, and check it; one JSON line
 *   pghot-emu ratio [-f A] [-l B] [-m MB] [-s SLICE]
 *	B's latency over A's with the current delay, measured in alternation
 *	(median of 7 rounds, so that a change of the host's load hits both)
 *   pghot-emu ctl 'COMMAND'
 *	send one command to the plugin (e.g. 'delay 150')
 *   pghot-emu feed [--period N] [--rate R] [--jitter PCT] [--slow-only]
 *		    [--kernel] [--seconds S] [--json FILE] [--pfn-log FILE]
 *	arm the sampler (every N-th access; with --rate, N follows each
 *	vCPU's speed so that it takes R samples per second of user time,
 *	which the feeder reports from /proc/stat every 100 ms) and report
 *	every sample to pghot through
 *	/sys/kernel/debug/pghot/inject as PFN:NID (NID: the node of the
 *	sampled vCPU) until SIGTERM/SIGINT or S seconds; then write a JSON
 *	summary with the plugin's statistics before and after.
 *	--pfn-log: every sample's PFN and when the feeder read it, in
 *	seconds since it armed the sampler, a line each (0xPFN T), to split
 *	the samples by set afterwards (pghot-bench --pfns-out).
 *   pghot-emu tick [--hz H] [--seconds S]
 *	wake a process on every CPU H times a second (default 5) until
 *	SIGTERM/SIGINT or S seconds: the same emulated-TLB flushes in every
 *	configuration (see cmd_tick()).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <numaif.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PORT_NAME	"org.pghot.emu"
#define INJECT		"/sys/kernel/debug/pghot/inject"
#define INJECT_MAX	(60 * 1024)
#define LINE		64
#define MAX_CPUS	1024

enum { REC_SAMPLE = 1, REC_STATS = 2 };

struct emu_rec {		/* as in pghot-emu-plugin.c */
	uint64_t gpa;
	uint64_t stamp;
	uint32_t seq;
	uint16_t vcpu;
	uint8_t type;
	uint8_t flags;
};

static volatile sig_atomic_t stop;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "pghot-emu: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the port ---- */

/*
 * The port named PORT_NAME. The host sends a port's name after the port
 * appears (virtio-console control message), and devtmpfs creates its
 * node asynchronously: a command run right after boot may look before
 * either is there, so look again for up to PORT_WAIT_S.
 */
#define PORT_WAIT_S	30
#define STR_(x)		#x
#define STR(x)		STR_(x)

static int find_port(char *path, size_t len)
{
	char name[128], npath[512];
	struct dirent *d;
	DIR *dir = opendir("/sys/class/virtio-ports");
	int found = 0;
	FILE *f;

	if (!dir)
		return 0;
	while (!found && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(npath, sizeof(npath), "/sys/class/virtio-ports/%s/name",
			 d->d_name);
		f = fopen(npath, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) &&
		    !strncmp(name, PORT_NAME, strlen(PORT_NAME))) {
			snprintf(path, len, "/dev/%s", d->d_name);
			found = 1;
		}
		fclose(f);
	}
	closedir(dir);
	return found;
}

static int open_port(void)
{
	double t0 = now_s();
	char path[300];
	int fd;

	for (;;) {
		if (find_port(path, sizeof(path))) {
			fd = open(path, O_RDWR | O_NONBLOCK);
			if (fd >= 0)
				return fd;
		}
		if (now_s() - t0 > PORT_WAIT_S)
			break;
		usleep(100000);
	}
	if (find_port(path, sizeof(path)))
		die("cannot open %s", path);
	die("no port %s after " STR(PORT_WAIT_S) " s: was the VM started with VM_SLOWMEM=1 or VM_SAMPLER=1?",
	    PORT_NAME);
	return -1;
}

static void send_cmd(int fd, const char *cmd)
{
	size_t len = strlen(cmd), done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, cmd + done, len - done);
		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			poll(&p, 1, 100);
			continue;
		}
		if (n < 0)
			die("writing to the port: %s", strerror(errno));
		done += n;
	}
}

/* ---- probe ---- */

static int strict = 1;

static char *map_on(int node, size_t size)
{
	unsigned long mask[16] = { 0 };
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void **pages;
	int *status;
	size_t on = 0;
	size_t n = size / 4096;

	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	mask[node / 64] = 1UL << (node % 64);
	if (mbind(p, size, MPOL_BIND, mask, 1024, 0))
		die("mbind: %s", strerror(errno));
	madvise(p, size, MADV_NOHUGEPAGE);
	memset(p, 1, size);
	pages = calloc(n, sizeof(*pages));
	status = calloc(n, sizeof(*status));
	for (size_t i = 0; i < n; i++)
		pages[i] = p + i * 4096;
	if (move_pages(0, n, pages, NULL, status, 0))
		die("move_pages: %s", strerror(errno));
	for (size_t i = 0; i < n; i++)
		on += status[i] == node;
	if (strict && on < n * 99 / 100)
		die("memory not on the node asked for%s", "");
	free(pages);
	free(status);
	return p;
}

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* One cycle through every line in random order (Sattolo). */
static void build_chase(char *buf, size_t size)
{
	size_t n = size / LINE, i, j;
	uint32_t *perm = malloc(n * sizeof(*perm));

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = rnd() % i;
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		*(char **)(buf + (size_t)i * LINE) = buf + (size_t)perm[i] * LINE;
	free(perm);
}

/* ns per dependent load, over at least @secs. */
static double chase(char *buf, double secs)
{
	char **p = (char **)buf;
	uint64_t hops = 0;
	double t0 = now_s(), t;

	do {
		for (int i = 0; i < 65536; i++)
			p = (char **)*p;
		hops += 65536;
		t = now_s();
	} while (t - t0 < secs);
	__asm__ volatile("" : : "r"(p));
	return (t - t0) * 1e9 / hops;
}

/* MB/s of 8-byte loads streaming over the buffer. */
static double stream(char *buf, size_t size, double secs)
{
	uint64_t sum = 0, bytes = 0;
	double t0 = now_s(), t;

	do {
		const uint64_t *w = (const uint64_t *)buf;

		for (size_t i = 0; i < size / 8; i++)
			sum += w[i];
		bytes += size;
		t = now_s();
	} while (t - t0 < secs);
	__asm__ volatile("" : : "r"(sum));
	return bytes / (t - t0) / 1e6;
}

struct probe {
	double lat_ns, mbps;
};

static struct probe probe_node(int node, size_t mb, double secs, int bw)
{
	size_t size = mb << 20;
	char *buf = map_on(node, size);
	struct probe r = { 0 };

	build_chase(buf, size);
	chase(buf, 0.1);		/* warm the emulator's TLB */
	r.lat_ns = chase(buf, secs);
	if (bw)
		r.mbps = stream(buf, size, secs);
	munmap(buf, size);
	return r;
}

static int cmd_probe(int argc, char **argv)
{
	int node = 0, opt;
	size_t mb = 64;
	double secs = 1;
	struct probe r;

	while ((opt = getopt(argc, argv, "an:m:s:")) != -1) {
		switch (opt) {
		case 'a': strict = 0; break;
		case 'n': node = atoi(optarg); break;
		case 'm': mb = strtoul(optarg, NULL, 0); break;
		case 's': secs = atof(optarg); break;
		default: return 1;
		}
	}
	r = probe_node(node, mb, secs, 1);
	printf("{\"node\": %d, \"mb\": %zu, \"latency_ns\": %.1f, \"stream_MBps\": %.1f}\n",
	       node, mb, r.lat_ns, r.mbps);
	return 0;
}

static int cmd_ctl(int argc, char **argv)
{
	char buf[256];
	int fd;

	if (argc < 2)
		return 1;
	fd = open_port();
	snprintf(buf, sizeof(buf), "%s\n", argv[1]);
	send_cmd(fd, buf);
	close(fd);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define ROUNDS	7

/*
 * Latency of two nodes measured in alternation, ROUNDS slices each, so
 * that a change of the host's load hits both alike: medians of the
 * per-round latencies and of the per-round ratios.
 */
struct pair {
	double fast_ns, slow_ns, ratio;
};

static struct pair measure_pair(char *fbuf, char *sbuf, double slice)
{
	double f[ROUNDS], sl[ROUNDS], r[ROUNDS];
	struct pair p;

	for (int i = 0; i < ROUNDS; i++) {
		f[i] = chase(fbuf, slice);
		sl[i] = chase(sbuf, slice);
		r[i] = sl[i] / f[i];
	}
	p.fast_ns = median(f, ROUNDS);
	p.slow_ns = median(sl, ROUNDS);
	p.ratio = median(r, ROUNDS);
	return p;
}

static void set_delay(int fd, double ns)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "delay %ld\n", ns > 0 ? (long)(ns + 0.5) : 0L);
	send_cmd(fd, cmd);
	usleep(20000);
}

static int pair_opts(int argc, char **argv, int *fast, int *slow, size_t *mb,
		     double *slice, double *ratio)
{
	int opt;

	while ((opt = getopt(argc, argv, "r:f:l:m:s:")) != -1) {
		switch (opt) {
		case 'r': *ratio = atof(optarg); break;
		case 'f': *fast = atoi(optarg); break;
		case 'l': *slow = atoi(optarg); break;
		case 'm': *mb = strtoul(optarg, NULL, 0); break;
		case 's': *slice = atof(optarg); break;
		default: return -1;
		}
	}
	return 0;
}

/* The latency ratio of two nodes with the plugin's current delay. */
static int cmd_ratio(int argc, char **argv)
{
	int fast = 0, slow = 2;
	double ratio = 0, slice = 0.2;
	size_t mb = 64, size;
	char *fb, *sb;
	struct pair p;

	if (pair_opts(argc, argv, &fast, &slow, &mb, &slice, &ratio))
		return 1;
	size = mb << 20;
	fb = map_on(fast, size);
	sb = map_on(slow, size);
	build_chase(fb, size);
	build_chase(sb, size);
	chase(fb, 0.1);
	chase(sb, 0.1);
	p = measure_pair(fb, sb, slice);
	printf("{\"fast_node\": %d, \"slow_node\": %d, \"fast_ns\": %.1f, "
	       "\"slow_ns\": %.1f, \"ratio\": %.3f}\n", fast, slow, p.fast_ns,
	       p.slow_ns, p.ratio);
	return 0;
}

/*
 * Delay for node @slow to be @ratio times as slow as @fast. Under TCG the
 * fast node's latency is what the shared host moves most (351 to 573 ns
 * in one boot, while the delay added 694-857 ns steadily), so a ratio
 * measured once is a poor guide: a calibration that corrected on it and
 * stopped on one or two measurements within 5% converged on the low or
 * high end of the noise (3.57-3.79 measured after it for 3.125) or never
 * (ten corrections). So the delay is corrected on the latency it adds,
 * which the host hardly moves, towards (@ratio - 1) times the median of
 * every latency of @fast measured so far (delay 0 included), and stops
 * once within 5% of that after at least CALIB_MIN_TRIES measurements
 * with a delay (at most CALIB_TRIES corrections).
 */
#define CALIB_TRIES	8
#define CALIB_MIN_TRIES	3

static int cmd_calibrate(int argc, char **argv)
{
	int fast = 0, slow = 2, fd;
	double ratio = 250.0 / 80.0, slice = 0.2, delay, want, added;
	double pool[CALIB_TRIES + 3], sorted[CALIB_TRIES + 3];
	size_t mb = 64, size;
	struct pair p0, p;
	struct probe fs, ss;
	int tries, converged = 0, np = 0;
	char *fb, *sb;

	if (pair_opts(argc, argv, &fast, &slow, &mb, &slice, &ratio))
		return 1;
	size = mb << 20;
	fd = open_port();
	set_delay(fd, 0);
	fb = map_on(fast, size);
	sb = map_on(slow, size);
	build_chase(fb, size);
	build_chase(sb, size);
	chase(fb, 0.1);
	chase(sb, 0.1);
	p0 = measure_pair(fb, sb, slice);
	/* Without a delay both nodes are the fast one. */
	pool[np++] = p0.fast_ns;
	pool[np++] = p0.slow_ns;
	delay = (ratio - 1) * p0.fast_ns;
	for (tries = 0; tries < CALIB_TRIES; tries++) {
		set_delay(fd, delay);
		p = measure_pair(fb, sb, slice);
		pool[np++] = p.fast_ns;
		memcpy(sorted, pool, np * sizeof(*pool));
		want = (ratio - 1) * median(sorted, np);
		added = p.slow_ns - p.fast_ns;
		/*
		 * Not before CALIB_MIN_TRIES measurements with a delay: the
		 * pool starts with two latencies from delay 0, the first of
		 * the boot, which can be the slowest (616 ns, then 377-464
		 * ns in one boot): on their own they set the median.
		 */
		if (tries + 1 >= CALIB_MIN_TRIES &&
		    added > 0.95 * want && added < 1.05 * want) {
			converged = 1;
			break;
		}
		/* Damped (half way): one noisy draw cannot throw it far. */
		if (added > 1)
			delay *= (1 + want / added) / 2;
		else
			delay *= 2;
	}
	set_delay(fd, delay);
	close(fd);
	p = measure_pair(fb, sb, slice);
	munmap(fb, size);
	munmap(sb, size);
	fs = probe_node(fast, mb, 0.5, 1);
	ss = probe_node(slow, mb, 0.5, 1);
	printf("{\"ratio_wanted\": %.3f, \"fast_node\": %d, \"slow_node\": %d, "
	       "\"fast_ns_calib\": %.1f, \"ratio_calib\": %.3f, \"delay_ns\": %ld, "
	       "\"fast_ns\": %.1f, \"slow_ns\": %.1f, \"ratio\": %.3f, "
	       "\"fast_MBps\": %.1f, \"slow_MBps\": %.1f, \"tries\": %d, "
	       "\"converged\": %s, \"fast_ns_median\": %.1f}\n", ratio, fast,
	       slow, p0.fast_ns, p0.ratio, (long)(delay + 0.5), p.fast_ns,
	       p.slow_ns, p.ratio, fs.mbps, ss.mbps, tries,
	       converged ? "true" : "false", median(pool, np));
	return 0;
}

/* ---- feed ---- */

static int cpu_node[MAX_CPUS];

static void read_cpu_nodes(void)
{
	char path[128];
	struct dirent *d;
	DIR *dir;

	for (int c = 0; c < MAX_CPUS; c++) {
		cpu_node[c] = -1;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", c);
		dir = opendir(path);
		if (!dir)
			continue;
		while ((d = readdir(dir)))
			if (!strncmp(d->d_name, "node", 4))
				cpu_node[c] = atoi(d->d_name + 4);
		closedir(dir);
	}
}

static char *read_file(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

static struct {
	uint64_t records, samples, injected, rejected, writes, bad_records;
	uint64_t per_vcpu[MAX_CPUS];
} fs;

static int inject_fd = -1;

/* Report a batch; on EINVAL (a page went offline), token by token. */
static void inject(char *text, size_t len, uint64_t count)
{
	char *p, *tok;

	if (!len)
		return;
	fs.writes++;
	if (write(inject_fd, text, len) == (ssize_t)len) {
		fs.injected += count;
		return;
	}
	text[len] = '\0';
	p = text;
	while ((tok = strsep(&p, " "))) {
		if (!*tok)
			continue;
		if (write(inject_fd, tok, strlen(tok)) == (ssize_t)strlen(tok))
			fs.injected++;
		else
			fs.rejected++;
	}
}

static void on_signal(int sig)
{
	stop = 1;
}

/* Ask the plugin to write its stats file; wait for the marker record. */
static char *plugin_stats(int fd, const char *path, char *rbuf, size_t *rlen)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	double end = now_s() + 5;

	send_cmd(fd, "stats\n");
	while (now_s() < end) {
		ssize_t n;

		poll(&p, 1, 100);
		n = read(fd, rbuf + *rlen, 4096 * sizeof(struct emu_rec) - *rlen);
		if (n <= 0)
			continue;
		*rlen += n;
		for (size_t off = 0; off + sizeof(struct emu_rec) <= *rlen;
		     off += sizeof(struct emu_rec)) {
			struct emu_rec *r = (struct emu_rec *)(rbuf + off);

			if (r->type == REC_STATS) {
				*rlen = 0;
				return path ? read_file(path) : NULL;
			}
		}
		/* Samples: not counted. Keep a partial record's bytes. */
		memmove(rbuf, rbuf + *rlen - *rlen % sizeof(struct emu_rec),
			*rlen % sizeof(struct emu_rec));
		*rlen %= sizeof(struct emu_rec);
	}
	return NULL;
}

/*
 * Rate mode: tell the plugin each CPU's user time so far (user + nice in
 * /proc/stat), from which it sets the CPU's sampling period.
 */
static void report_user_time(int fd)
{
	static long tck;
	char line[512], cmd[64];
	unsigned long long user, nice;
	FILE *f;
	int cpu;

	if (!tck)
		tck = sysconf(_SC_CLK_TCK);
	if (tck <= 0 || !(f = fopen("/proc/stat", "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		/* Not the "cpu " line of all CPUs, whose total %d would read. */
		if (!isdigit((unsigned char)line[3]) ||
		    sscanf(line, "cpu%d %llu %llu", &cpu, &user, &nice) != 3)
			continue;
		snprintf(cmd, sizeof(cmd), "user %d %llu\n", cpu,
			 (user + nice) * (1000000000ULL / tck));
		send_cmd(fd, cmd);
	}
	fclose(f);
}

/* The number @arg of option @name, or die: no sign, nothing after it. */
static unsigned long parse_ulong(const char *name, const char *arg)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (end == arg || *end || errno || *arg == '-' || *arg == '+') {
		fprintf(stderr, "pghot-emu: %s takes a number, not '%s'\n",
			name, arg);
		exit(2);
	}
	return v;
}

static int cmd_feed(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "period", required_argument, NULL, 'p' },
		{ "rate", required_argument, NULL, 'r' },
		{ "jitter", required_argument, NULL, 'j' },
		{ "slow-only", no_argument, NULL, 'o' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "seconds", required_argument, NULL, 's' },
		{ "json", required_argument, NULL, 'J' },
		{ "stats", required_argument, NULL, 'S' },
		{ "pfn-log", required_argument, NULL, 'L' },
		{ }
	};
	unsigned long period = 10000, jitter = 10, rate = 0;
	int slow_only = 0, user_only = 1, fd, opt;
	const char *json = NULL, *stats = getenv("PGHOT_EMU_STATS");
	double secs = 0, t0, t_end, t_user = 0;
	char cmd[128], *text, *rbuf, *start_stats = NULL, *end_stats;
	size_t rlen = 0, tlen = 0;
	uint64_t count = 0, oldest = 0, newest = 0;
	struct pollfd p;
	FILE *out, *pfn_log = NULL;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'p': period = parse_ulong("--period", optarg); break;
		case 'r': rate = parse_ulong("--rate", optarg); break;
		case 'j': jitter = parse_ulong("--jitter", optarg); break;
		case 'o': slow_only = 1; break;
		case 'k': user_only = 0; break;
		case 's': secs = atof(optarg); break;
		case 'J': json = optarg; break;
		case 'S': stats = optarg; break;
		case 'L':
			pfn_log = fopen(optarg, "w");
			if (!pfn_log)
				die("cannot write %s", optarg);
			break;
		default: return 1;
		}
	}
	if (!period)
		die("--period must be at least 1%s", "");
	if (jitter > 100)
		die("--jitter is a percentage of the period, at most 100%s", "");
	read_cpu_nodes();
	inject_fd = open(INJECT, O_WRONLY);
	if (inject_fd < 0)
		die("cannot open " INJECT ": %s", strerror(errno));
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	text = malloc(INJECT_MAX + 64);
	rbuf = malloc(4096 * sizeof(struct emu_rec));
	fd = open_port();
	send_cmd(fd, "disarm\n");
	/* Drop what an earlier run left in flight. */
	start_stats = plugin_stats(fd, stats, rbuf, &rlen);
	if (start_stats)
		start_stats = strdup(start_stats);
	snprintf(cmd, sizeof(cmd), "arm %lu %lu %d %d %lu\n", period, jitter,
		 slow_only, user_only, rate);
	send_cmd(fd, cmd);
	t0 = now_s();
	t_end = secs > 0 ? t0 + secs : 0;
	p.fd = fd;
	p.events = POLLIN;
	while (!stop && (!t_end || now_s() < t_end)) {
		ssize_t n;
		int ready = poll(&p, 1, tlen ? 0 : 50);

		if (rate && now_s() >= t_user + 0.1) {
			t_user = now_s();
			report_user_time(fd);
		}

		if (ready > 0) {
			n = read(fd, rbuf + rlen, 4096 * sizeof(struct emu_rec) - rlen);
			if (n > 0)
				rlen += n;
		}
		size_t off;

		for (off = 0; off + sizeof(struct emu_rec) <= rlen;
		     off += sizeof(struct emu_rec)) {
			struct emu_rec *r = (struct emu_rec *)(rbuf + off);
			int nid;

			fs.records++;
			if (r->type != REC_SAMPLE || r->vcpu >= MAX_CPUS) {
				fs.bad_records += r->type != REC_STATS;
				continue;
			}
			fs.samples++;
			fs.per_vcpu[r->vcpu]++;
			nid = cpu_node[r->vcpu];
			if (pfn_log)
				fprintf(pfn_log, "0x%llx %.3f\n",
					(unsigned long long)(r->gpa >> 12),
					now_s() - t0);
			tlen += nid >= 0 ?
				sprintf(text + tlen, "0x%llx:%d ",
					(unsigned long long)(r->gpa >> 12), nid) :
				sprintf(text + tlen, "0x%llx ",
					(unsigned long long)(r->gpa >> 12));
			if (!count++)
				oldest = r->stamp;
			newest = r->stamp;
			if (tlen + 40 > INJECT_MAX) {
				inject(text, tlen, count);
				snprintf(cmd, sizeof(cmd), "ack %llu %llu %llu\n",
					 (unsigned long long)oldest,
					 (unsigned long long)newest,
					 (unsigned long long)count);
				send_cmd(fd, cmd);
				tlen = count = 0;
			}
		}
		memmove(rbuf, rbuf + off, rlen - off);
		rlen -= off;
		/* Nothing more waiting: report what we have. */
		if (ready == 0 && count) {
			inject(text, tlen, count);
			snprintf(cmd, sizeof(cmd), "ack %llu %llu %llu\n",
				 (unsigned long long)oldest,
				 (unsigned long long)newest,
				 (unsigned long long)count);
			send_cmd(fd, cmd);
			tlen = count = 0;
		}
	}
	send_cmd(fd, "disarm\n");
	if (count) {
		inject(text, tlen, count);
		snprintf(cmd, sizeof(cmd), "ack %llu %llu %llu\n",
			 (unsigned long long)oldest, (unsigned long long)newest,
			 (unsigned long long)count);
		send_cmd(fd, cmd);
	}
	t_end = now_s();
	if (pfn_log && fclose(pfn_log))
		die("writing the --pfn-log: %s", strerror(errno));
	usleep(10000);
	rlen = 0;
	end_stats = plugin_stats(fd, stats, rbuf, &rlen);
	close(fd);
	out = json ? fopen(json, "w") : stdout;
	if (!out)
		die("cannot write %s", json);
	fprintf(out, "{\"period\": %lu, \"rate\": %lu, \"jitter_pct\": %lu, "
		"\"slow_only\": %d, \"user_only\": %d, \"seconds\": %.3f, \"records\": %llu, "
		"\"samples\": %llu, \"injected\": %llu, \"rejected\": %llu, "
		"\"inject_writes\": %llu, \"bad_records\": %llu, \"per_vcpu\": [",
		period, rate, jitter, slow_only, user_only, t_end - t0,
		(unsigned long long)fs.records, (unsigned long long)fs.samples,
		(unsigned long long)fs.injected, (unsigned long long)fs.rejected,
		(unsigned long long)fs.writes, (unsigned long long)fs.bad_records);
	for (int c = 0; c < MAX_CPUS; c++)
		if (cpu_node[c] >= 0)
			fprintf(out, "%s%llu", c ? ", " : "",
				(unsigned long long)fs.per_vcpu[c]);
	fprintf(out, "],\n \"plugin_start\": %s,\n \"plugin_end\": %s}\n",
		start_stats ? start_stats : "null",
		end_stats ? end_stats : "null");
	if (json)
		fclose(out);
	fprintf(stderr, "pghot-emu feed: %.1f s, %llu samples (%.0f/s), %llu injected, %llu rejected\n",
		t_end - t0, (unsigned long long)fs.samples,
		fs.samples / (t_end - t0), (unsigned long long)fs.injected,
		(unsigned long long)fs.rejected);
	return 0;
}

/*
 * tick: a process per CPU that wakes @hz times a second and sleeps again.
 * Each wakeup switches the CPU to another address space and back (two CR3
 * writes, each a full flush of the emulated TLB); TCG sizes a vCPU's TLB
 * only when it is flushed, so without such switches a program that runs
 * alone keeps the TLB it started with while one whose pages migrate gets
 * a larger one. The same ticks in every configuration give each the TLB
 * its accesses need.
 */
static int cmd_tick(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "hz", required_argument, NULL, 'h' },
		{ "seconds", required_argument, NULL, 's' },
		{ }
	};
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long hz = 5;
	double secs = 0, end;
	pid_t pids[MAX_CPUS];
	int opt, n = 0;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'h': hz = parse_ulong("--hz", optarg); break;
		case 's': secs = atof(optarg); break;
		default: return 1;
		}
	}
	if (!hz || hz > 1000)
		die("--hz takes 1 to 1000%s", "");
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	for (int c = 0; c < ncpu && c < MAX_CPUS; c++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (!pid) {
			struct timespec ts = { .tv_sec = 0,
					       .tv_nsec = 1000000000L / hz };
			cpu_set_t set;

			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			CPU_ZERO(&set);
			CPU_SET(c, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(0);	/* CPU offline: nothing to tick */
			for (;;)
				nanosleep(&ts, NULL);
		}
		pids[n++] = pid;
	}
	end = secs > 0 ? now_s() + secs : 0;
	while (!stop && (!end || now_s() < end))
		usleep(100000);
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGTERM);
	while (wait(NULL) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "probe"))
		return cmd_probe(argc - 1, argv + 1);
	if (!strcmp(argv[1], "calibrate"))
		return cmd_calibrate(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ratio"))
		return cmd_ratio(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ctl"))
		return cmd_ctl(argc - 1, argv + 1);
	if (!strcmp(argv[1], "feed"))
		return cmd_feed(argc - 1, argv + 1);
	if (!strcmp(argv[1], "tick"))
		return cmd_tick(argc - 1, argv + 1);
usage:
	fprintf(stderr, "usage: pghot-emu probe|calibrate|ctl|feed|tick ... (see the source)\n");
	return 1;
}
