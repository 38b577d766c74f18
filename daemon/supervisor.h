// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor: starts each load as its own process tree, watches it once
 * a second (counters, CPU time, stalls, deaths), restarts it with back-off,
 * records everything, and stops it so that nothing is left behind. */
#ifndef LOADD_SUPERVISOR_H
#define LOADD_SUPERVISOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "db.h"
#include "profile.h"

struct event_base;
struct supervisor;

struct supervisor *supervisor_new(struct event_base *base, struct db *db, int64_t run_id,
				  const char *workdir);
/* Starts the loads of a phase (each a [load NAME] of the profile). Returns 0,
 * or -1 when a load could not be started at all (recorded as an event). */
int supervisor_start_phase(struct supervisor *sv, int64_t phase_id,
			   const struct load_def *const *loads, size_t n);
/* Records every load's counters now (called at the start of the probe window
 * and at the end of a phase, besides once a second). */
void supervisor_snapshot(struct supervisor *sv);
/* Names of the loads that made no progress since the probe window began, as
 * one xmalloc'd string ("fs net"), or NULL when every load progressed. */
char *supervisor_window_stalled(struct supervisor *sv);
void supervisor_mark_window(struct supervisor *sv);
/* Names of the loads still ramping up to a target they will hold (the
 * memory load's pressure mode), as one xmalloc'd string, or NULL when none
 * is: what a phase's settle waits for. */
char *supervisor_ramping(struct supervisor *sv);
/* SIGTERM to each group, a grace period, SIGKILL, everything reaped, scratch
 * dirs removed. Blocks (at most the grace period plus a little). */
void supervisor_stop_all(struct supervisor *sv);
/* Stops everything, then removes the loads' cache dirs: the run is over. */
void supervisor_free(struct supervisor *sv);
/* Reaps the supervisor's own children (by pid, never waitpid(-1): the probe
 * thread reaps its jobs itself); called on SIGCHLD. */
void supervisor_reap(struct supervisor *sv);
/* The user and group that own the loads' dirs (default: loadd's own). */
void supervisor_set_owner(struct supervisor *sv, uid_t uid, gid_t gid);

/* Live view for the control API: one entry per running load. */
struct load_status {
	const char *name;
	const char *type;
	int pgid;
	int procs;
	int restarts;
	bool stalled;
	bool ramping; /* still growing towards a target it will hold: the settle waits */
	uint64_t cycles, bytes, ops, errors;
	double cpu_ms;
};
size_t supervisor_status(struct supervisor *sv, struct load_status *out, size_t max);

#endif
