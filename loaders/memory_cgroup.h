// SPDX-License-Identifier: GPL-2.0-or-later
/* A memory cgroup of the memory load's own, so that its limit, not the
 * kernel's global OOM killer, stops it short of the floor: cgroup v2
 * memory.max and memory.high, or on a cgroup v1 memory controller
 * memory.limit_in_bytes and memory.soft_limit_in_bytes. It is made below the
 * cgroup the load was started in, which needs write access there (root, or
 * a delegated hierarchy). */
#ifndef LOADD_MEMORY_CGROUP_H
#define LOADD_MEMORY_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memory_cgroup {
	int version;           /* 1 or 2; 0: none */
	char parent[PATH_MAX]; /* the cgroup the process was in */
	char dir[PATH_MAX];    /* its own, made by memory_cgroup_enter() */
};

/* The memory cgroup the calling process is in now (v2 when the unified
 * hierarchy has the memory controller, else v1). false when neither. */
bool memory_cgroup_find(struct memory_cgroup *cg);
/* The same against a cgroup file system mounted at root (v2 at root or
 * root/unified, v1's memory controller at root/memory), for the process
 * whose /proc/self/cgroup reads self_cgroup: how tests run the v2 path on a
 * machine without it, on a tree of plain files. */
bool memory_cgroup_find_at(struct memory_cgroup *cg, const char *root, const char *self_cgroup);
/* Makes cg->parent/NAME, sets its limits (high below max) and moves the
 * calling process into it. Removes any empty loadd-memory-* sibling left by
 * a load that was killed. 0, or -1 with why[] saying what failed. */
int memory_cgroup_enter(struct memory_cgroup *cg, const char *name, uint64_t high, uint64_t max,
			char *why, size_t whylen);
/* Moves the calling process back to the parent and removes its own cgroup. */
void memory_cgroup_leave(struct memory_cgroup *cg);
/* What its own cgroup (cg->dir) is charged now and its limit: what the
 * OOM killer goes by inside it. false when not in one, or unreadable. */
bool memory_cgroup_usage(const struct memory_cgroup *cg, uint64_t *used, uint64_t *max);
/* What the cgroup cg->parent leaves to its members: its limit minus its
 * anonymous memory (page cache can be reclaimed). false when unlimited. */
bool memory_cgroup_room(const struct memory_cgroup *cg, uint64_t *room);

#endif
