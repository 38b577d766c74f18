// SPDX-License-Identifier: GPL-2.0-or-later
/* Raising the open-file limit, for the API's connections and the cpu
 * loader's pipe rings. */
#ifndef LOADD_FD_LIMIT_H
#define LOADD_FD_LIMIT_H

#include <sys/resource.h>

/* Raises RLIMIT_NOFILE's soft limit to at least `want` (root may raise the
 * hard limit too). 0 when the limit is now at least `want`; else -1 with
 * errno set, the soft limit raised as far as the hard one lets, and the hard
 * limit in *hard (if hard is not NULL). */
int raise_fd_limit(rlim_t want, rlim_t *hard);

#endif
