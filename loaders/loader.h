// SPDX-License-Identifier: GPL-2.0-or-later
/* The loader interface. Every loader is one `const struct loader_ops` in its
 * own file (loader_cpu.c exports loader_cpu_ops), listed in loader_table[]. Its
 * options table both validates a profile's [load NAME] section and documents
 * it. loadd runs each load as a child process tree in its own process group;
 * the loader reports progress through shared memory and events through a pipe. */
#ifndef LOADD_LOADER_H
#define LOADD_LOADER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "options.h"
#include "profile.h"

#define LOADER_OPS_VERSION 1

/* How long a load has after SIGTERM to its group before loadd sends SIGKILL. */
#define LOADER_STOP_GRACE_MS 2000

/* Shared between a loader's processes and loadd (MAP_SHARED, made before the
 * fork). Counters only grow; loadd reads them once a second. */
struct loader_shm {
	_Atomic uint64_t cycles; /* whole load cycles (a ring trip, a file written, a dbench run) */
	_Atomic uint64_t bytes;  /* bytes moved, for MiB/s */
	_Atomic uint64_t ops;    /* the loader's own unit (token passes, transfers) */
	_Atomic uint64_t errors; /* failed operations that did not stop the load */
	_Atomic int64_t last_progress_ns; /* CLOCK_MONOTONIC of the last counter change */
	/* enum loader_reach: whether a load that grows towards a target it then
	 * holds (the memory load's pressure mode) has got there; a phase's
	 * settle waits while it is RAMPING. loadd sets it at every start, from
	 * the loader's ramps(). */
	_Atomic int reach;
};

enum loader_reach {
	LOADER_STEADY,  /* full strength from its start: nothing to wait for */
	LOADER_RAMPING, /* still growing towards its target */
	LOADER_HELD,    /* reached its target once */
};

struct loader_ctx {
	const char *name;   /* the [load NAME] */
	const void *config; /* the loader's parsed options */
	const char *dir; /* its own scratch dir under the work dir, made empty; removed by loadd */
	/* A dir of its own kept for the whole run (every phase and round), for
	 * files worth making once, like the read loader's; the loader creates it
	 * when it needs it. loadd removes it at the end of the run and sweeps it
	 * at the next start after a crash. NULL: none (use dir). */
	const char *cache_dir;
	struct loader_shm *shm;
	int event_fd; /* lines "KIND message\n" become events */
};

struct loader_ops {
	int version;                      /* LOADER_OPS_VERSION */
	const char *name;                 /* the value of type = */
	const char *summary;              /* one line for --list-loaders */
	const struct option_def *options; /* NULL-key terminated */
	size_t config_size;
	const char *cycle_unit; /* what a cycle is, plural: "trips", "files" */
	const char *ops_unit;   /* what ops counts, plural ("passes"); NULL: no ops figure */
	bool reports_bytes;     /* throughput in MiB/s */
	/* What the load must achieve over a probe window (common/expect.h),
	 * unless its section's expect = says otherwise. */
	const char *expect;
	/* Optional checks beyond the table (a program on PATH, a size that makes
	 * sense): print "file:line: message" to errs, return how many. */
	int (*check)(const void *config, const struct load_def *def, const char *file, FILE *errs);
	/* Runs in the loader's top process, already in its own process group, with
	 * the parent-death signal and oom_score_adj set. Runs until SIGTERM (see
	 * loader_stopping()); returns the exit status. */
	int (*run)(const struct loader_ctx *ctx);
	/* Optional: the resources it would use, logged at start ("8 processes, 64 KiB each"). */
	void (*describe)(const void *config, char *buf, size_t len);
	/* Optional: true when this configuration needs root inside the load (a
	 * cgroup of its own); it then keeps loadd's user instead of the run's. */
	bool (*needs_root)(const void *config);
	/* Optional: true when this configuration grows towards a target it then
	 * holds (loader_set_reach() says when it got there); loadd marks it
	 * RAMPING as it starts it, and a phase's settle waits for it. */
	bool (*ramps)(const void *config);
};

extern const struct loader_ops *const loader_table[];

const struct loader_ops *loader_find(const char *name);
/* load_validate_fn for profile_load(): type, the keys common to every load
 * (stall), then the loader's own options and check. */
int loader_validate(struct load_def *def, const char *file, FILE *errs);
/* --list-loaders */
void loader_print_all(FILE *fp);
/* The start-up check of every ops struct (version, fields); fatal if broken. */
void loader_table_check(void);
extern const struct option_def load_common_options[];

/* Starts a load's top process as loadd runs every load: in a process group
 * of its own (its id is the returned pid), with SIGKILL as parent-death
 * signal (the getppid race closed), oom_score_adj 1000, default signal
 * actions, stdin and stdout on /dev/null, and of its parent's descriptors only
 * stderr and ctx->event_fd. It runs ops->run(ctx) and exits with its status.
 * Returns the pid, or -1 with errno when fork failed. */
pid_t loader_spawn(const struct loader_ops *ops, const struct loader_ctx *ctx);

/* ---- helpers for loaders, in their own processes ---- */

/* Adds to the counters and stamps progress. */
void loader_progress(struct loader_shm *shm, uint64_t cycles, uint64_t bytes, uint64_t ops);
void loader_error(struct loader_shm *shm);
/* Says whether the load has reached the target it ramps to (enum loader_reach). */
void loader_set_reach(struct loader_shm *shm, enum loader_reach reach);
/* Reports an event to loadd (kind: one word, e.g. "enospc", "info"). */
void loader_event(const struct loader_ctx *ctx, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Installs the SIGTERM/SIGINT handler that loader_stopping() reads. */
void loader_catch_stop(void);
bool loader_stopping(void);
/* fork() for a loader's helper process: the child gets SIGKILL when its
 * parent dies (the getppid race closed), stays in the loader's group, and has
 * the default SIGTERM action. Returns as fork() does. */
pid_t loader_fork(void);
/* Stops one child the way fio's exec engine does: SIGTERM, up to grace_ms,
 * then SIGKILL; reaps it. Returns its wait status. */
int loader_stop_child(pid_t pid, int grace_ms);

/* The line of a key in a [load] section, for a message: the section's line
 * when the key is not given. */
int load_key_line(const struct load_def *def, const char *key);

/* The tree load's own trees, below the work dir beside the probe's
 * tree-<fingerprint>: made by loadd for the load's user, kept across runs. */
#define TREE_LOAD_DIR "tar-trees"

#endif
