// SPDX-License-Identifier: GPL-2.0-or-later
/* Where loadd keeps things, and making the directories on the way there. */
#ifndef LOADD_PATHS_H
#define LOADD_PATHS_H

#include <sys/types.h>

/* mkdir -p: dir and every missing parent; new directories get mode. Returns
 * 0, or -1 with errno set. */
int make_dirs(const char *dir, mode_t mode);
/* mkdir -p of the directory that holds path. */
int make_parent_dirs(const char *path, mode_t mode);
/* path made absolute against the current directory (not resolved); xmalloc'd. */
char *absolute_path(const char *path);
/* The work dir: /var/lib/loadd/work as root, $XDG_CACHE_HOME/loadd (or
 * ~/.cache/loadd) otherwise; xmalloc'd. */
char *workdir_default(void);

#endif
