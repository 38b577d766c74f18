// SPDX-License-Identifier: GPL-2.0-or-later
/* Who the loads, dbench, tar and the probe's job run as. As root, loadd keeps
 * root for itself only (dropping caches, cgroups, SCHED_FIFO, reading what
 * only root may read) and starts all of them as an unprivileged user: the
 * profile's [run] user, else the invoking user from SUDO_USER, else a `loadd`
 * system user, else `nobody`; with no supplementary groups and
 * PR_SET_NO_NEW_PRIVS. Not as root, they run as loadd's own user. */
#ifndef LOADD_RUN_USER_H
#define LOADD_RUN_USER_H

#include <stdbool.h>
#include <sys/types.h>

struct run_user {
	bool drop; /* children change user (loadd runs as root) */
	uid_t uid;
	gid_t gid;
	char name[64];
	const char *why; /* where the choice came from, for the log */
};

/* Resolves the user; configured is the profile's [run] user or NULL.
 * Returns 0, or -1 with an xmalloc'd message in *err. */
int run_user_resolve(const char *configured, struct run_user *u, char **err);

/* The process-wide choice that run_user_enter() applies
 * (default: no change of user). */
void run_user_set(const struct run_user *u);
const struct run_user *run_user_get(void);

/* In a child just forked: drops supplementary groups, then the group and the
 * user (real, effective and saved), and sets PR_SET_NO_NEW_PRIVS. The
 * parent-death signal is cleared by a change of user: the caller sets it
 * again afterwards. Only system calls: safe in a vfork() child. Returns 0,
 * or -1 with errno. */
int run_user_enter(void);

#endif
