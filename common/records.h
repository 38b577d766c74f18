/* The figures loadd records, as they travel from the probe, the samplers and
 * the supervisor to the database. One struct per table row. */
#ifndef LOADD_RECORDS_H
#define LOADD_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

/* One timed probe job. */
struct sample {
	int64_t phase_id;
	int64_t seq;          /* slot number within the phase, from 0 */
	double started_at;    /* wall clock, seconds since the epoch */
	double wall_ms;       /* CLOCK_MONOTONIC around spawn ... wait4 */
	double user_ms;       /* from wait4's rusage */
	double sys_ms;
	double cpu_pct;       /* (user + sys) / wall * 100 */
	long nvcsw;           /* voluntary context switches */
	long nivcsw;          /* involuntary context switches */
	int exit_code;        /* exit status, or 128 + signal when killed */
	bool failed;          /* non-zero exit, killed, timed out or not started */
	int64_t missed;       /* slots skipped before this job because the last one overran */
};

/* System-wide figures over the last second. PSI fields are NaN where the
 * kernel has no /proc/pressure. */
struct sys_sample {
	int64_t phase_id;     /* 0 between phases */
	double t;
	double cpu_busy_pct;  /* all CPUs, 100 = every CPU busy */
	double ctxt_per_s;
	double load1;
	uint64_t mem_available;
	uint64_t swap_used;
	double psi_cpu_some, psi_cpu_full;   /* % of the second stalled */
	double psi_mem_some, psi_mem_full;
	double psi_io_some, psi_io_full;
};

/* One loader's counters, taken once a second. Counters are cumulative over
 * the run (they survive restarts). */
struct loader_sample {
	int64_t phase_id;
	const char *load;     /* [load NAME] */
	double t;
	uint64_t cycles;
	uint64_t bytes;
	uint64_t ops;
	uint64_t errors;
	double cpu_ms;        /* CPU time of all the loader's processes */
	int procs;            /* processes alive in its group */
	int restarts;
	bool running;
	bool stalled;         /* no progress for the load's stall time */
};

/* Something that happened: a restart, an OOM kill, an error. */
struct event {
	int64_t phase_id;
	double t;
	const char *load;     /* NULL when not about one load */
	const char *kind;     /* "start", "exit", "signal", "oom-kill", "restart", "stall", "enospc", "error", ... */
	const char *message;
};

#endif
