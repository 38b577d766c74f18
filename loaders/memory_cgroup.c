// SPDX-License-Identifier: GPL-2.0-or-later
#include "memory_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfs.h"

#define CGROUP_FS "/sys/fs/cgroup"
#define STALE_PREFIX "loadd-memory-"

/* The unified hierarchy's mount point below root (root itself, or the
 * hybrid layout's root/unified) when it offers the memory controller, in
 * unified[]; false when neither does. */
static bool v2_root(const char *root, char *unified, size_t len)
{
	static const char *const candidates[] = { "", "/unified" };
	char path[PATH_MAX], ctl[512], *save = NULL;

	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		snprintf(path, sizeof path, "%s%s/cgroup.controllers", root, candidates[i]);
		if (read_small_file(path, ctl, sizeof ctl) < 0)
			continue;
		for (char *w = strtok_r(ctl, " \n", &save); w != NULL;
		     w = strtok_r(NULL, " \n", &save)) {
			if (strcmp(w, "memory") == 0) {
				snprintf(unified, len, "%s%s", root, candidates[i]);
				return true;
			}
		}
	}
	return false;
}

bool memory_cgroup_find(struct memory_cgroup *cg)
{
	char groups[4096];

	*cg = (struct memory_cgroup){ 0 };
	if (read_small_file("/proc/self/cgroup", groups, sizeof groups) < 0)
		return false;
	return memory_cgroup_find_at(cg, CGROUP_FS, groups);
}

bool memory_cgroup_find_at(struct memory_cgroup *cg, const char *root, const char *self_cgroup)
{
	char groups[4096], unified[PATH_MAX], *save = NULL;
	bool has_v2 = v2_root(root, unified, sizeof unified);

	*cg = (struct memory_cgroup){ 0 };
	snprintf(groups, sizeof groups, "%s", self_cgroup);
	for (char *line = strtok_r(groups, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *ctrl = strchr(line, ':'), *where;

		if (ctrl == NULL || (where = strchr(ctrl + 1, ':')) == NULL)
			continue;
		*where++ = '\0';
		if (has_v2 && strncmp(line, "0:", 2) == 0 && ctrl[1] == '\0') {
			snprintf(cg->parent, sizeof cg->parent, "%s%s", unified,
				 strcmp(where, "/") == 0 ? "" : where);
			cg->version = 2;
			return true;
		}
		if (!has_v2 && strcmp(ctrl + 1, "memory") == 0) {
			snprintf(cg->parent, sizeof cg->parent, "%s/memory%s", root,
				 strcmp(where, "/") == 0 ? "" : where);
			cg->version = 1;
			return true;
		}
	}
	return false;
}

static int write_file(const char *dir, const char *file, const char *value)
{
	char path[PATH_MAX + 64];
	int fd, err;
	ssize_t n;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	n = write(fd, value, strlen(value));
	err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

/* Empty cgroups left by loads that were killed before they could leave. */
static void sweep_stale(const struct memory_cgroup *cg)
{
	DIR *d = opendir(cg->parent);
	struct dirent *e;
	char path[PATH_MAX + 256];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, STALE_PREFIX, strlen(STALE_PREFIX)) != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", cg->parent, e->d_name);
		rmdir(path); /* fails, harmlessly, while a process is inside */
	}
	closedir(d);
}

int memory_cgroup_enter(struct memory_cgroup *cg, const char *name, uint64_t high, uint64_t max,
			char *why, size_t whylen)
{
	char value[32];

	sweep_stale(cg);
	if ((size_t)snprintf(cg->dir, sizeof cg->dir, "%s/%s%s", cg->parent, STALE_PREFIX, name) >=
	    sizeof cg->dir) {
		snprintf(why, whylen, "the cgroup path is too long");
		cg->dir[0] = '\0';
		return -1;
	}
	if (cg->version == 2 && write_file(cg->parent, "cgroup.subtree_control", "+memory") < 0 &&
	    errno != EINVAL) {
		snprintf(why, whylen, "%s/cgroup.subtree_control: %s", cg->parent, strerror(errno));
		cg->dir[0] = '\0';
		return -1;
	}
	if (mkdir(cg->dir, 0755) < 0 && errno != EEXIST) {
		snprintf(why, whylen, "mkdir %s: %s", cg->dir, strerror(errno));
		cg->dir[0] = '\0';
		return -1;
	}
	snprintf(value, sizeof value, "%llu", (unsigned long long)max);
	if (write_file(cg->dir, cg->version == 2 ? "memory.max" : "memory.limit_in_bytes", value) <
	    0) {
		snprintf(why, whylen, "%s: its limit: %s", cg->dir, strerror(errno));
		memory_cgroup_leave(cg);
		return -1;
	}
	snprintf(value, sizeof value, "%llu", (unsigned long long)high);
	/* high throttles and reclaims before max kills: best effort */
	write_file(cg->dir, cg->version == 2 ? "memory.high" : "memory.soft_limit_in_bytes", value);
	if (write_file(cg->dir, "cgroup.procs", "0") < 0) {
		snprintf(why, whylen, "%s/cgroup.procs: %s", cg->dir, strerror(errno));
		memory_cgroup_leave(cg);
		return -1;
	}
	return 0;
}

void memory_cgroup_leave(struct memory_cgroup *cg)
{
	if (cg->dir[0] == '\0')
		return;
	write_file(cg->parent, "cgroup.procs", "0");
	rmdir(cg->dir);
	cg->dir[0] = '\0';
}

/* A number from a file of dir, or false. */
static bool read_number(const char *dir, const char *file, uint64_t *out)
{
	char path[PATH_MAX + 64], value[64];

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (read_small_file(path, value, sizeof value) < 0 || value[0] < '0' || value[0] > '9')
		return false;
	*out = strtoull(value, NULL, 10);
	return true;
}

bool memory_cgroup_usage(const struct memory_cgroup *cg, uint64_t *used, uint64_t *max)
{
	if (cg->dir[0] == '\0')
		return false;
	if (cg->version == 2)
		return read_number(cg->dir, "memory.current", used) &&
		       read_number(cg->dir, "memory.max", max);
	return read_number(cg->dir, "memory.usage_in_bytes", used) &&
	       read_number(cg->dir, "memory.limit_in_bytes", max);
}

/* A "key value" line of a memory.stat text. */
static bool stat_value(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (*p != '\0') {
		const char *nl = strchr(p, '\n');

		if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
			*out = strtoull(p + klen + 1, NULL, 10);
			return true;
		}
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return false;
}

bool memory_cgroup_room(const struct memory_cgroup *cg, uint64_t *room)
{
	char path[PATH_MAX + 64], value[64], stat[8192];
	uint64_t limit, anon = 0;

	if (cg->version == 0)
		return false;
	snprintf(path, sizeof path, "%s/%s", cg->parent,
		 cg->version == 2 ? "memory.max" : "memory.limit_in_bytes");
	if (read_small_file(path, value, sizeof value) < 0 || strncmp(value, "max", 3) == 0)
		return false;
	limit = strtoull(value, NULL, 10);
	/* v1 shows "no limit" as a huge page-aligned number */
	if (limit >= (1ULL << 60))
		return false;
	snprintf(path, sizeof path, "%s/memory.stat", cg->parent);
	if (read_small_file(path, stat, sizeof stat) >= 0)
		stat_value(stat, cg->version == 2 ? "anon" : "total_rss", &anon);
	*room = anon >= limit ? 0 : limit - anon;
	return true;
}
