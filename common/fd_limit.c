// SPDX-License-Identifier: GPL-2.0-or-later
#include "fd_limit.h"

#include <errno.h>
#include <stddef.h>

int raise_fd_limit(rlim_t want, rlim_t *hard)
{
	struct rlimit rl;
	int saved;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	if (hard != NULL)
		*hard = rl.rlim_max;
	if (rl.rlim_cur >= want)
		return 0;
	if (rl.rlim_max < want) {
		struct rlimit raised = { want, want };

		/* Root may raise the hard limit too (up to fs.nr_open). */
		if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
			return 0;
		saved = errno;
		rl.rlim_cur = rl.rlim_max; /* as far as it goes */
		setrlimit(RLIMIT_NOFILE, &rl);
		errno = saved;
		return -1;
	}
	rl.rlim_cur = want;
	return setrlimit(RLIMIT_NOFILE, &rl);
}
