// SPDX-License-Identifier: GPL-2.0-or-later
/* Probes: what a desktop user feels, each kind one `const struct probe_ops`
 * in its own file (probe_wakeup.c exports probe_wakeup_ops), listed in
 * probe_table[]. Its options table both validates a profile's [probe NAME]
 * section and documents it (--list-probes). Every probe of a run has a thread
 * of its own (the prober), runs on its own schedule, and hands what it
 * measured to the main loop through a pipe, so no probe waits for another,
 * nor for the main loop. */
#ifndef LOADD_PROBE_H
#define LOADD_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"
#include "options.h"
#include "profile.h"
#include "records.h"
#include "study.h"

#define PROBE_OPS_VERSION 1

/* What every probe of a run may use. */
struct probe_env {
	const char *workdir;   /* a probe's scratch files go in <workdir>/probe-<name> */
	const char *tree_path; /* replaces {tree} in the job */
	const char *name;      /* the [probe NAME] */
};

/* One phase's probing window, on CLOCK_MONOTONIC. */
struct probe_window {
	int64_t phase_id;
	int64_t start_ns;
	int64_t end_ns;
	bool cold; /* the phase's cache = cold */
};

struct probe_ctx; /* the prober running the probe */

/* ---- kinds that time one operation per slot ----
 * Such a kind is its options table, its config and its measure function:
 *
 *   struct fault_config { struct probe_every every; struct size_spec size; };
 *   static const struct option_def fault_options[] = {
 *           PROBE_EVERY_OPTION(struct fault_config, "map + touch + unmap"), ... };
 *   .options = fault_options, .measure = fault_measure (no run)
 *
 * The prober calls measure once per slot of `every` on the job probe's
 * schedule (probe_run_slots), stamps s->started_at before the call and times
 * the call into s->wall_ms unless measure sets wall_ms itself (a kind that
 * times only part of its work); s->value defaults to wall_ms. A histogram
 * kind (.histogram) fills h instead, handed over when it counted anything
 * (the slot's sample is not). open and close are optional (both or neither):
 * without them state is NULL. */

/* The first member of such a kind's config. */
struct probe_every {
	int64_t every_ms;
};

/* The first row of such a kind's options table; what names one operation. */
#define PROBE_EVERY_OPTION(config_type, what)                                                      \
	{                                                                                          \
		"every", OPT_DURATION, offsetof(config_type, every.every_ms), "1s", 10, 3600000,   \
			NULL, NULL,                                                                \
			"one " what " per slot of this length; missed slots are counted"           \
	}

/* One timed operation: 0 with s (or h) filled (s->failed when it went
 * wrong), -1 when it could not run (s->failed, *err xmalloc'd), 1 when
 * stopped (stop_fd became readable; s and h unused). h is NULL but for a
 * histogram kind. */
typedef int (*probe_slot_fn)(const void *config, void *state, const struct probe_window *w,
			     int stop_fd, struct sample *s, struct hist *h, char **err);

struct probe_ops {
	int version;                      /* PROBE_OPS_VERSION */
	const char *name;                 /* the value of type = */
	const char *summary;              /* one line for --list-probes */
	const struct option_def *options; /* NULL-key terminated */
	size_t config_size;
	const char *units; /* of each figure: "ms" (samples), "us" (histograms) */
	bool histogram;    /* stores a histogram per second, not a row per op */
	/* Optional checks beyond the table (root for a real-time policy): print
	 * "file:line: message" to errs, return how many. */
	int (*check)(const void *config, const char *file, int line, FILE *errs);
	/* Before the first window (in the prober's thread): files, buffers.
	 * NULL with *err set when the probe cannot run at all. */
	void *(*open)(const void *config, const struct probe_env *env, char **err);
	/* Measures over one window, handing records to probe_emit_*(), until the
	 * window ends or probe_interrupted(). */
	void (*run)(void *state, struct probe_ctx *c, const struct probe_window *w);
	void (*close)(void *state);
	/* Optional: what it will do, logged at start ("1 thread, every 1ms"). */
	void (*describe)(const void *config, char *buf, size_t len);
	/* Optional: the study tables its figures go in (study.h), ended by a
	 * NULL table; the report prints them beside the per-probe rows. */
	const struct study_place *study;
	/* Instead of run, for a kind that times one operation per slot (below). */
	probe_slot_fn measure;
};

extern const struct probe_ops *const probe_table[];

const struct probe_ops *probe_find(const char *name);
/* "job, wakeup, fsync, launch, fault" */
void probe_names(char *buf, size_t len);
/* The kind NAME as a profile's parser needs it (struct profile_checks'
 * probe_kind); false when there is none. */
bool probe_kind_find(const char *name, struct probe_kind *k);
/* --list-probes */
void probe_print_all(FILE *fp);
/* The start-up check of every ops struct; fatal if one is broken. */
void probe_table_check(void);

/* ---- what travels from a prober to the main loop ---- */

enum probe_msg_kind {
	PROBE_MSG_SAMPLE, /* s: one timed operation */
	PROBE_MSG_HIST,   /* hist: one second of a high-rate probe */
	PROBE_MSG_DONE,   /* the window is over (s.seq == PROBE_PHASE_DONE, s.missed) */
};
#define PROBE_PHASE_DONE (-1)

struct probe_msg {
	int kind;          /* enum probe_msg_kind */
	int probe;         /* index of the probe in the run */
	int variant;       /* which of a probe's threads (0 for most) */
	double t;          /* HIST: wall time the second began */
	double steal_pct;  /* HIST: CPU steal time over the second, NaN when unknown */
	struct sample s;   /* SAMPLE and DONE; s.phase_id for all */
	struct hist *hist; /* HIST: the receiver frees it */
};

/* ---- for probe kinds (prober.c) ---- */

/* Hands a record over (blocking only while the pipe is full). */
void probe_emit_sample(struct probe_ctx *c, const struct sample *s);
/* Takes h (xmalloc'd). */
void probe_emit_hist(struct probe_ctx *c, int64_t phase_id, int variant, double t, double steal_pct,
		     struct hist *h);
/* True once the prober is stopping or a new window replaced this one. */
bool probe_interrupted(struct probe_ctx *c);
/* Sleeps until ns; -1 when interrupted. */
int probe_wait_until(struct probe_ctx *c, int64_t ns);
/* Readable once the prober is stopping: for poll() around a child. */
int probe_stop_fd(struct probe_ctx *c);
/* Logs a problem the first time it shows up, not on every slot; takes msg. */
void probe_complain(struct probe_ctx *c, char *msg);
/* Slots missed at the end of the window, for the DONE record. */
void probe_set_done_missed(struct probe_ctx *c, int64_t missed);

/* One timed operation: 0 with s filled (s->failed when it went wrong), -1
 * when it could not run (s->failed, *err), 1 when stopped (s unused). */
typedef int (*probe_measure_fn)(void *state, const struct probe_window *w, int stop_fd,
				struct sample *s, char **err);
/* The fixed schedule of the job probe, for every kind that times one
 * operation per slot: slot k begins at start + k * every; an operation that
 * overruns makes the next begin at the first slot after it, the skipped
 * slots counted as missed (no coordinated omission). Stamps and times each
 * call as for probe_ops.measure. */
void probe_run_slots(struct probe_ctx *c, const struct probe_window *w, int64_t every_ms,
		     probe_measure_fn measure, void *state);

/* ---- the job probe's pieces, for tests ---- */

/* Runs argv once with stdout and stderr drained through a pipe (as a terminal
 * would), stdin from /dev/null, and times it. drop_cache drops the page cache
 * first (not timed). A job past timeout_ms (0: none) is killed. Fills every
 * field of s but phase_id, seq and missed. Returns 0, or -1 when the job could
 * not be started (s->failed set, *err an xmalloc'd message). */
int probe_job_run(char *const argv[], bool drop_cache, int64_t timeout_ms, struct sample *s,
		  char **err);
/* The same, watching stop_fd (or -1): readable means kill it and give up.
 * Returns 0 with s filled, -1 when it could not run, 1 when stopped. */
int probe_job_exec(char *const argv[], bool drop_cache, int64_t timeout_ms, int stop_fd,
		   struct sample *s, char **err);
/* Writes 3 to /proc/sys/vm/drop_caches after sync(). -1 with errno. */
int drop_page_cache(void);

/* ---- the wakeup probe's pieces, for tests ---- */

/* Sets the calling thread's timer slack to ns (PR_SET_TIMERSLACK); returns
 * the slack it had, or -1 with errno. */
long probe_wakeup_set_slack(long ns);

/* ---- the prober (the main loop's side) ---- */

struct prober;

/* Starts a thread for one probe of the run; each record is written whole to
 * notify_fd (sizeof(struct probe_msg) bytes). config must outlive it. */
struct prober *prober_start(const struct probe_ops *ops, const void *config,
			    const struct probe_env *env, int index, int notify_fd);
/* Starts a window; a window still running is closed first (its DONE
 * record comes before any record of the new one). When the window is over
 * and its last operation has finished, the thread writes a DONE record (the
 * loads must keep running until then: the last operation is timed under them). */
void prober_begin_phase(struct prober *p, const struct probe_window *w);
/* Ends the thread (killing a running job, whose sample is dropped) and frees p. */
void prober_stop(struct prober *p);

#endif
