// SPDX-License-Identifier: GPL-2.0-or-later
/* The probe: times a fixed job on a fixed schedule from its own thread, so a
 * busy main loop never delays or skews a measurement. Samples travel to the
 * main loop through a pipe. */
#ifndef LOADD_PROBE_H
#define LOADD_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "records.h"

/* Runs argv once with stdout and stderr drained through a pipe (as a terminal
 * would), stdin from /dev/null, and times it. drop_cache drops the page cache
 * first (not timed). A job past timeout_ms (0: none) is killed. Fills every
 * field of s but phase_id, seq and missed. Returns 0, or -1 when the job could
 * not be started (s->failed set, *err an xmalloc'd message). */
int probe_job_run(char *const argv[], bool drop_cache, int64_t timeout_ms,
		  struct sample *s, char **err);

/* Writes 3 to /proc/sys/vm/drop_caches after sync(). -1 with errno. */
int drop_page_cache(void);

struct prober;

/* Starts the probe thread; each sample is written whole to notify_fd (a pipe
 * the main loop reads: sizeof(struct sample) bytes per record). argv is
 * copied; {tree} must already be replaced. */
struct prober *prober_start(char *const argv[], int64_t timeout_ms, int notify_fd);
/* Starts timing: slot k begins at start_ns + k * every_ms (CLOCK_MONOTONIC);
 * no slot begins at or after end_ns. When the window is over and its last job
 * has finished, the thread writes one more record with seq == PROBE_PHASE_DONE
 * (the loads must keep running until then: the last job is timed under them).
 * Its missed field counts the window's slots lost to that last job's overrun. */
void prober_begin_phase(struct prober *p, int64_t phase_id, int64_t start_ns, int64_t end_ns,
			int64_t every_ms, bool cold_cache);
#define PROBE_PHASE_DONE (-1)
/* Ends the thread (killing a running job, whose sample is dropped) and frees p. */
void prober_stop(struct prober *p);

#endif
