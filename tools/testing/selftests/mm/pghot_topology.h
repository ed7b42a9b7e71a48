/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory tiers of the box, from sysfs, for the pghot kselftests
 * (through pghot_util.h) and pghot-bench: which nodes are top tier, which
 * of them have CPUs, which lower-tier nodes have memory. Plain C on libc,
 * no kselftest headers, so that the benchmark can use it too.
 */
#ifndef __PGHOT_TOPOLOGY_H
#define __PGHOT_TOPOLOGY_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEMTIER_DIR		"/sys/devices/virtual/memory_tiering"
#define NODE_DIR		"/sys/devices/system/node"
#define TOPO_MAX_NODES		1024	/* MAX_NUMNODES with NODES_SHIFT=10 */

/* Read the first line of @path, without its newline. */
static inline int read_str(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -1;
	if (!fgets(buf, size, f))
		ret = -1;
	fclose(f);
	if (!ret)
		buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

/*
 * Parse the range list @list ("0-1", "2", "0,2-3", "" ...) and, unless
 * @set is NULL, mark its members in @set[0 .. @max - 1]. Returns how many
 * ids it lists (sysfs lists each once), or -1 if @list is malformed or,
 * with @set, names an id of @max or above.
 */
static inline int nodelist_parse(const char *list, bool *set, int max)
{
	const char *p = list;
	unsigned long lo, hi, id;
	int nr = 0;
	char *end;

	while (*p && *p != '\n') {
		if (!isdigit((unsigned char)*p))
			return -1;
		lo = strtoul(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				return -1;
			hi = strtoul(p, &end, 10);
			if (hi < lo)
				return -1;
		}
		if (set && hi >= (unsigned long)max)
			return -1;
		nr += hi - lo + 1;
		for (id = lo; set && id <= hi; id++)
			set[id] = true;
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return nr;
}

/*
 * The box's memory tiers, read from sysfs. memory-tiers puts every node
 * with memory in one memory_tierN directory, N growing with the abstract
 * distance (a larger N is a slower tier). As node_is_toptier() decides, a
 * node is top tier when its tier is no slower than the slowest tier that
 * holds a node with CPUs; every other node with memory is lower tier, a
 * candidate for promotion. Nodes without memory are in no tier.
 */
struct topology {
	int nr_node_ids;		/* every online node id is below this */
	bool online[TOPO_MAX_NODES];
	int tier[TOPO_MAX_NODES];	/* N of memory_tierN, -1 if in none */
	int nr_cpus[TOPO_MAX_NODES];	/* CPUs in the node's cpulist */
	int top_tier;			/* slowest top tier, -1 if none */
	int nr_top;			/* top-tier nodes, all with memory */
	int top[TOPO_MAX_NODES];
	int nr_top_cpu;			/* those of them with CPUs */
	int top_cpu[TOPO_MAX_NODES];
	int nr_lower;			/* lower-tier nodes, all with memory */
	int lower[TOPO_MAX_NODES];
};

static inline bool node_is_top(const struct topology *t, int nid)
{
	return nid >= 0 && nid < t->nr_node_ids && t->tier[nid] >= 0 &&
	       t->tier[nid] <= t->top_tier;
}

static inline bool node_is_lower(const struct topology *t, int nid)
{
	return nid >= 0 && nid < t->nr_node_ids && t->tier[nid] > t->top_tier;
}

/* The node the tests run their tasks on: the first top-tier one with CPUs. */
static inline int topo_cpu_node(const struct topology *t)
{
	return t->nr_top_cpu ? t->top_cpu[0] : -1;
}

/*
 * Read the tiers of the box into @t. Returns 0, or -1 with errno set if
 * sysfs cannot be read or parsed (ENOENT: no NUMA or no memory tiering).
 */
static inline int topology_read(struct topology *t)
{
	static bool set[TOPO_MAX_NODES];
	char path[512], list[4096];
	struct dirent *de;
	int nid, id;
	DIR *dir;

	memset(t, 0, sizeof(*t));
	t->top_tier = -1;
	for (nid = 0; nid < TOPO_MAX_NODES; nid++)
		t->tier[nid] = -1;

	/* The online nodes and their CPUs. */
	if (read_str(NODE_DIR "/online", list, sizeof(list)))
		return -1;
	if (nodelist_parse(list, t->online, TOPO_MAX_NODES) <= 0)
		goto inval;
	for (nid = 0; nid < TOPO_MAX_NODES; nid++) {
		if (!t->online[nid])
			continue;
		t->nr_node_ids = nid + 1;
		snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", nid);
		if (read_str(path, list, sizeof(list)))
			return -1;
		t->nr_cpus[nid] = nodelist_parse(list, NULL, 0);
		if (t->nr_cpus[nid] < 0)
			goto inval;
	}

	/* The tier of each node with memory. */
	dir = opendir(MEMTIER_DIR);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (sscanf(de->d_name, "memory_tier%d", &id) != 1 || id < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/nodelist", MEMTIER_DIR,
			 de->d_name);
		memset(set, 0, sizeof(set));
		if (read_str(path, list, sizeof(list)) ||
		    nodelist_parse(list, set, TOPO_MAX_NODES) < 0) {
			closedir(dir);
			goto inval;
		}
		for (nid = 0; nid < TOPO_MAX_NODES; nid++) {
			if (!set[nid])
				continue;
			/* In two tiers, or a node that is not online. */
			if (t->tier[nid] >= 0 || !t->online[nid]) {
				closedir(dir);
				goto inval;
			}
			t->tier[nid] = id;
			if (t->nr_cpus[nid] > 0 && id > t->top_tier)
				t->top_tier = id;
		}
	}
	closedir(dir);

	for (nid = 0; nid < t->nr_node_ids; nid++) {
		if (!t->online[nid])
			continue;
		if (t->tier[nid] < 0)
			continue;
		if (t->tier[nid] > t->top_tier) {
			t->lower[t->nr_lower++] = nid;
			continue;
		}
		t->top[t->nr_top++] = nid;
		if (t->nr_cpus[nid] > 0)
			t->top_cpu[t->nr_top_cpu++] = nid;
	}
	return 0;
inval:
	errno = EINVAL;
	return -1;
}

/*
 * Why the pghot tests cannot run with @t, or NULL if they can: they need
 * a top-tier node with CPUs and a lower-tier node with memory.
 */
static inline const char *topology_unsupported(const struct topology *t)
{
	if (!t->nr_top_cpu)
		return "no top-tier node with CPUs";
	if (!t->nr_lower)
		return "no lower memory tier: every node with memory is top tier";
	return NULL;
}

#endif /* __PGHOT_TOPOLOGY_H */
