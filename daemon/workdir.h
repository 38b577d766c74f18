// SPDX-License-Identifier: GPL-2.0-or-later
/* The work dir: where the probe's tree and the loads' scratch files live.
 * loadd takes it for itself with a lock, refuses one that another user could
 * redirect (a symbolic link, someone else's, writable by group or others, or
 * below such a directory), marks it as its own with a stamp, and records in a
 * manifest every directory it makes there, so that cleanup and the start-up
 * sweep delete only what loadd made. */
#ifndef LOADD_WORKDIR_H
#define LOADD_WORKDIR_H

#include <stdbool.h>
#include <sys/types.h>

#include "paths.h" /* workdir_default() */

/* The stamp that marks a directory as a loadd work dir, and the manifest of
 * what loadd made in it (one name per line). */
#define WORKDIR_STAMP ".loadd-workdir"
#define WORKDIR_MANIFEST ".loadd-manifest"

/* Checks dir and every directory above it, creates it when missing (0711
 * as root, so an unprivileged load can reach its own dir inside, else 0700),
 * stamps it when it is new or empty, refuses / and system directories and a
 * non-empty unmarked directory, and locks it. Returns the lock's fd and the
 * absolute, symlink-free path in *resolved, or -1 with an xmalloc'd message
 * saying what is wrong and how to fix it in *err. */
int workdir_open(const char *dir, char **resolved, char **err);

/* Makes <workdir>/<name> (mode 0700, owned by uid:gid), recording it in the
 * manifest first. An existing one is reused only when the manifest has it
 * (emptied first when empty is true); anything else there is refused. */
int workdir_make(const char *workdir, const char *name, uid_t uid, gid_t gid, bool empty,
		 char **err);

/* At start-up: removes the load-* and cache-* directories an earlier run
 * recorded and left (after a crash); what loadd did not record stays, with a
 * warning. */
void workdir_sweep(const char *workdir);

/* Takes an exclusive lock on the database file so that a second loadd on the
 * same database refuses to start. Returns the fd or -1 with *err. */
int db_lock(const char *db_path, char **err);

#endif
