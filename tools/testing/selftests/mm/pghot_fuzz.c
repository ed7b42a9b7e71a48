// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to every pghot debugfs file, and who may touch them.
 *
 * bad_writes:  every writable file under /sys/kernel/debug/pghot (the
 *              provider subdirectories included) gets a corpus of
 *              malformed values and of random bytes. Every write must fail
 *              with EINVAL and leave the file reading exactly as before.
 *              Read-only files must refuse every write. The injection file
 *              must refuse every one of them without recording anything.
 * root_only:   every file under it belongs to root and is closed to group
 *              and others, and an unprivileged process can neither read
 *              nor write any of them.
 *
 * The kernel staying clean through all of it (no warning, no KASAN or
 * lockdep report) is checked by the test VM, which fails the run on any.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pghot_util.h"

#define MAX_FILES	64
#define VALUE_MAX	256
#define RANDOM_WRITES	200	/* random byte strings per file */
#define RANDOM_LEN_MAX	64
#define LONG_LEN	8192	/* longer than any value buffer */
#define UNPRIV_UID	65534	/* nobody */
/*
 * Thousands of writes: far beyond the harness's default 30 s on a debug
 * kernel in an emulator on a loaded host.
 */
#define BAD_WRITES_TIMEOUT_S	600

struct dfile {
	char path[512];
	mode_t mode;
	uid_t uid;
	bool is_dir;
};

/* Malformed for every file: no file takes anything but numbers or PFNs. */
static const char * const corpus[] = {
	"abc", "x", "-", "+", "--1", "+-1", "0x", "0xg", "1e3", "1.5",
	"12abc", "1 x", "1,2", "\n\n", " ", "\t", "0b101", "one", "true",
	"1:", ":1", "1::2", "0x1:x",
	"99999999999999999999999",		/* > u64 */
	"18446744073709551616",			/* 2^64 */
	"-99999999999999999999999",
	"\xff\xfe\xfd", "\xf0\x9f\x99\x82",	/* not ASCII, an emoji */
	"%s%s%s%n", "../../etc/passwd", "${IFS}",
};

/* Every file and directory below @dir, depth first. */
static int collect(const char *dir, struct dfile *files, int n)
{
	struct dirent *d;
	struct stat st;
	DIR *dp;

	dp = opendir(dir);
	if (!dp)
		return -1;
	while ((d = readdir(dp)) && n >= 0 && n < MAX_FILES) {
		struct dfile *f = &files[n];

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (path_join(f->path, sizeof(f->path), dir, d->d_name) ||
		    lstat(f->path, &st)) {
			n = -1;
			break;
		}
		f->mode = st.st_mode;
		f->uid = st.st_uid;
		f->is_dir = S_ISDIR(st.st_mode);
		n++;
		if (f->is_dir)
			n = collect(f->path, files, n);
	}
	closedir(dp);
	return n;
}

/* One write(2) of @len bytes; returns 0, the errno, or -1 if short. */
static int write_once(const char *path, const char *val, size_t len)
{
	ssize_t ret = write_raw(path, val, len);

	if (ret < 0)
		return errno;
	/* A short write is a write that half happened: not acceptable. */
	return (size_t)ret == len ? 0 : -1;
}

/*
 * Random bytes that cannot be a number or a PFN list: the first one is
 * printable punctuation or a letter beyond 'f', the others anything but
 * NUL (a NUL would end the string the kernel parses early).
 */
static size_t random_garbage(char *buf, unsigned int *seed)
{
	static const char first[] = "!#$%&()*,./;<=>?@[]^_{|}~ghjkmqrtuvwyzGHJKMQRTUVWYZ";
	size_t len = 1 + rand_r(seed) % RANDOM_LEN_MAX, i;

	buf[0] = first[rand_r(seed) % (sizeof(first) - 1)];
	for (i = 1; i < len; i++)
		buf[i] = 1 + rand_r(seed) % 255;
	return len;
}

static bool is_inject(const struct dfile *f)
{
	return !strcmp(f->path, PGHOT_DIR "inject");
}

FIXTURE(pghot_files) {
	struct dfile files[MAX_FILES];
	int nr;
	/* What each readable file held before the test, to put back. */
	char saved[MAX_FILES][VALUE_MAX];
	const char *prev[MAX_FILES];	/* saved[i], or NULL if unreadable */
};

FIXTURE_SETUP(pghot_files)
{
	int i;

	if (geteuid())
		SKIP(return, "must run as root");
	if (access(PGHOT_DIR, F_OK))
		SKIP(return, PGHOT_DIR " missing (no debugfs or no pghot)");
	self->nr = collect(PGHOT_DIR, self->files, 0);
	ASSERT_GT(self->nr, 0);
	ASSERT_LT(self->nr, MAX_FILES) TH_LOG("more files than the test expects");
	for (i = 0; i < self->nr; i++) {
		const struct dfile *f = &self->files[i];

		if (f->is_dir || !(f->mode & 0400) || !(f->mode & 0200))
			continue;
		ASSERT_EQ(read_str(f->path, self->saved[i], VALUE_MAX), 0)
			TH_LOG("cannot read %s", f->path);
		self->prev[i] = self->saved[i];
	}
}

FIXTURE_TEARDOWN(pghot_files)
{
	int i;

	/* Only matters if a bad write was taken; the test failed then. */
	for (i = 0; i < self->nr; i++) {
		char now[VALUE_MAX];

		if (!self->prev[i] ||
		    (!read_str(self->files[i].path, now, sizeof(now)) &&
		     !strcmp(now, self->saved[i])))
			continue;
		write_once(self->files[i].path, self->saved[i],
			   strlen(self->saved[i]));
	}
}

/* Hardware-hint reports so far (the injection file's effect), or 0. */
static unsigned long long hwhints_recorded(void)
{
	unsigned long long v = 0;

	read_vmstat("pghot_reported_hwhints", &v);
	return v;
}

/*
 * Write @val to @f: it must fail and change nothing. @saved is what @f
 * read before, NULL if it cannot be read.
 */
static void bad_write(struct __test_metadata *_metadata,
		      const struct dfile *f, const char *saved,
		      const char *val, size_t len, const char *what)
{
	char now[VALUE_MAX];
	int err;

	err = write_once(f->path, val, len);
	if (f->mode & 0200) {
		EXPECT_EQ(err, EINVAL)
			TH_LOG("%s: writing %s: %s", f->path, what,
			       err > 0 ? strerror(err) :
			       err ? "short write" : "accepted");
	} else {
		EXPECT_NE(err, 0) TH_LOG("%s (read-only) took %s", f->path, what);
	}
	if (!saved)
		return;
	ASSERT_EQ(read_str(f->path, now, sizeof(now)), 0);
	EXPECT_STREQ(now, saved)
		TH_LOG("%s changed after writing %s", f->path, what);
}

TEST_F_TIMEOUT(pghot_files, bad_writes, BAD_WRITES_TIMEOUT_S)
{
	unsigned long long hw_before = hwhints_recorded();
	unsigned int seed = 20261130, c, r;
	char buf[RANDOM_LEN_MAX + 1], desc[64];
	static char longval[LONG_LEN];
	int i, files = 0, writes = 0;

	memset(longval, '7', sizeof(longval));
	for (i = 0; i < self->nr; i++) {
		const struct dfile *f = &self->files[i];

		if (f->is_dir)
			continue;
		files++;
		for (c = 0; c < ARRAY_SIZE(corpus); c++) {
			snprintf(desc, sizeof(desc), "corpus entry %u", c);
			bad_write(_metadata, f, self->prev[i], corpus[c],
				  strlen(corpus[c]), desc);
			writes++;
		}
		/* All digits, but far too long for any value. */
		bad_write(_metadata, f, self->prev[i], longval, sizeof(longval),
			  "8192 digits");
		writes++;
		for (r = 0; r < RANDOM_WRITES; r++) {
			size_t len = random_garbage(buf, &seed);

			snprintf(desc, sizeof(desc), "random bytes #%u", r);
			bad_write(_metadata, f, self->prev[i], buf, len, desc);
			writes++;
		}
	}
	ksft_print_msg("%d bad writes to %d files\n", writes, files);
	EXPECT_EQ(hwhints_recorded(), hw_before)
		TH_LOG("bad writes to the injection file reported samples");
}

/* Injection takes whole lists or nothing: a bad entry anywhere fails all. */
TEST_F(pghot_files, inject_all_or_nothing)
{
	static const char * const lists[] = {
		"0x1000 zz", "0x1000:0 0x1000:abc", "0x1000:99999",
		"0x1000:-1", "0xffffffffffffffff", "0x1000\n\n#",
	};
	unsigned long long before;
	unsigned int i;
	int inject = -1, n;

	for (n = 0; n < self->nr; n++)
		if (is_inject(&self->files[n]))
			inject = n;
	if (inject < 0)
		SKIP(return, "no injection file (CONFIG_PGHOT_HWHINT_INJECT=n)");
	before = hwhints_recorded();
	for (i = 0; i < ARRAY_SIZE(lists); i++)
		bad_write(_metadata, &self->files[inject], NULL, lists[i],
			  strlen(lists[i]), lists[i]);
	EXPECT_EQ(hwhints_recorded(), before);
}

/* The child's exit status: 0 if @path is closed to it, 1 if not. */
static int unprivileged_probe(const char *path)
{
	int fd;

	if (setgid(UNPRIV_UID) || setuid(UNPRIV_UID))
		return 2;
	fd = open(path, O_RDONLY);
	if (fd >= 0 || errno != EACCES)
		return 1;
	fd = open(path, O_WRONLY);
	if (fd >= 0 || errno != EACCES)
		return 1;
	return 0;
}

TEST_F(pghot_files, root_only)
{
	int i, status;
	pid_t pid;

	for (i = 0; i < self->nr; i++) {
		const struct dfile *f = &self->files[i];

		EXPECT_EQ(f->uid, 0U) TH_LOG("%s is not owned by root", f->path);
		if (f->is_dir)
			continue;
		EXPECT_EQ(f->mode & 077, 0U)
			TH_LOG("%s has mode %o", f->path, f->mode & 0777);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid)
			_exit(unprivileged_probe(f->path));
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_NE(WEXITSTATUS(status), 2) TH_LOG("cannot drop privileges");
		EXPECT_EQ(WEXITSTATUS(status), 0)
			TH_LOG("uid %d can open %s", UNPRIV_UID, f->path);
	}
}

TEST_HARNESS_MAIN
