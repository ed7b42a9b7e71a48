/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/vmstat and pghot's debugfs directory (its path, one write(2) to a
 * file of it) for the pghot kselftests and pghot-bench: plain C on libc,
 * no kselftest headers, so that the benchmark can use it too.
 */
#ifndef __PGHOT_VMSTAT_H
#define __PGHOT_VMSTAT_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* pghot's tunables, stats and inject file; with its trailing slash. */
#define PGHOT_DIR	"/sys/kernel/debug/pghot/"

/*
 * Read the counters @names[0] .. @names[@nr - 1] of /proc/vmstat into
 * @vals, in one pass; @found[i] (if @found is not NULL) says whether the
 * kernel has @names[i], whose value is otherwise left at 0. Returns how
 * many were found, or -1 if /proc/vmstat cannot be read.
 */
static inline int vmstat_read(const char * const *names,
			      unsigned long long *vals, bool *found, int nr)
{
	unsigned long long val;
	char name[128];
	int i, n = 0;
	FILE *f;

	for (i = 0; i < nr; i++) {
		vals[i] = 0;
		if (found)
			found[i] = false;
	}
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%127s %llu", name, &val) == 2) {
		for (i = 0; i < nr; i++) {
			if (strcmp(name, names[i]))
				continue;
			vals[i] = val;
			if (found)
				found[i] = true;
			n++;
			break;
		}
	}
	fclose(f);
	return n;
}

/*
 * One write(2) of exactly @len bytes of @val to @path, opened afresh (the
 * pghot files only take writes at offset 0). Returns what write() returned,
 * or -1 if the open failed; errno is that of the failing call.
 */
static inline ssize_t write_raw(const char *path, const char *val, size_t len)
{
	ssize_t ret;
	int fd, err;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = write(fd, val, len);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

#endif /* __PGHOT_VMSTAT_H */
