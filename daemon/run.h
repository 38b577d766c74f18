// SPDX-License-Identifier: GPL-2.0-or-later
/* One run of a profile: the phase list, round after round, each phase
 * starting its loads, settling, then probing; everything stored as it comes. */
#ifndef LOADD_RUN_H
#define LOADD_RUN_H

#include <signal.h>
#include <stdint.h>

#include "db.h"
#include "profile.h"

struct api_listen;

struct run_options {
	const struct profile *profile;
	struct db *db;
	int64_t run_id;
	const char *workdir;
	const char *tree_path;        /* replaces {tree} in the job */
	const struct api_listen *api; /* the control API's sockets; NULL: no API */
	/* A stop signal caught before the loop took over (0: none): the run
	 * ends as aborted at once. */
	const volatile sig_atomic_t *pending_signal;
	/* Space kept back beside the database, removed when the disk fills. */
	const char *reserve_path;
};

enum run_result {
	RUN_COMPLETE,
	RUN_ABORTED, /* SIGINT, SIGTERM, SIGHUP, SIGQUIT or a stop request */
	RUN_FAILED,  /* the machinery broke (database, fork) */
};

/* Runs the whole plan in an event loop. *signo gets the signal that aborted
 * the run, 0 otherwise. */
enum run_result run_execute(const struct run_options *ro, int *signo);

#endif
