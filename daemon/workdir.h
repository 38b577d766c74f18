/* The work dir: where the probe's tree and the loaders' scratch files live.
 * loadd takes it for itself with a lock, refuses places where deleting its
 * own files could hurt the system, and deletes only what it made. */
#ifndef LOADD_WORKDIR_H
#define LOADD_WORKDIR_H

#include "paths.h"  /* workdir_default() */
/* Resolves dir (an absolute, symlink-free path is returned in *resolved),
 * refuses / and system directories, creates it, and locks it. Returns the
 * lock's fd, or -1 with an xmalloc'd message in *err. */
int workdir_open(const char *dir, char **resolved, char **err);
/* Takes an exclusive lock on the database file so that a second loadd on the
 * same database refuses to start. Returns the fd or -1 with *err. */
int db_lock(const char *db_path, char **err);

#endif
