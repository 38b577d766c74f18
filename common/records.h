// SPDX-License-Identifier: GPL-2.0-or-later
/* The figures loadd records, as they travel from the probe, the samplers and
 * the supervisor to the database, and the column table of each: every record
 * is declared once, here and in records.c, and the database layer, the CSV
 * and JSON exports, the JSON status, /metrics and loadtop's system panel
 * iterate those tables rather than naming each figure again.
 *
 * To add a figure: one field in its struct below, one row in its table in
 * records.c (with `since` = the new schema version), and the migration that
 * adds the column in db.c (plus a fixture of the old version in
 * tests/data/db/). Nothing else names it.
 * To add a record: its struct, a REC_ id, a record_type in records.c and the
 * migration that creates its table. */
#ifndef LOADD_RECORDS_H
#define LOADD_RECORDS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One timed probe job. */
struct sample {
	int64_t phase_id;
	int64_t seq;       /* slot number within the phase, from 0 */
	double started_at; /* wall clock, seconds since the epoch */
	double wall_ms;    /* CLOCK_MONOTONIC around spawn ... wait4 */
	double user_ms;    /* from wait4's rusage */
	double sys_ms;
	double cpu_pct;   /* (user + sys) / wall * 100 */
	long nvcsw;       /* voluntary context switches */
	long nivcsw;      /* involuntary context switches */
	int exit_code;    /* exit status, or 128 + signal when killed */
	bool failed;      /* non-zero exit, killed, timed out or not started */
	int64_t missed;   /* slots skipped before this job because the last one overran */
	int64_t probe_id; /* its probes row; 0 in runs from before probes had rows (the job) */
	double value;     /* the probe's figure in its units (the time, for every kind so far) */
	int variant;      /* which of the probe's threads, 0 for most (ipcbw: the size) */
	/* Not measured: the operation was over a system limit of this many
	 * bytes (ipcbw's message size); value NaN, failed false. 0 otherwise. */
	int64_t over_limit;
};

/* A sample's figure in its probe's units: `value`, or the time for rows
 * recorded before samples had values (the job's, in ms). */
static inline double sample_figure(const struct sample *s)
{
	return isnan(s->value) ? s->wall_ms : s->value;
}

/* A [probe NAME] of a run: its kind and the units of its figures. */
struct probe_info {
	int64_t id; /* when read; 0 for the job of a run without probe rows */
	const char *name;
	const char *type;    /* the kind, e.g. "wakeup" */
	const char *units;   /* "ms", "us" */
	bool histogram;      /* stored as histograms per second */
	const char *options; /* its keys as written */
};

/* Bytes stored as a BLOB. */
struct blob {
	unsigned char *data;
	size_t len;
};

/* One second of a high-rate probe (wakeup), as stored: hist.h's compact
 * form with its count, max and sum beside it. */
struct hist_row {
	int64_t phase_id;
	int64_t probe_id;
	int variant; /* which of the probe's threads */
	double t;    /* wall clock at the second's start */
	uint64_t count;
	uint64_t max_ns;
	uint64_t sum_ns;
	double steal_pct; /* CPU steal time over the second, NaN when unknown */
	struct blob buckets;
};

struct hist;

/* The same with the histogram itself, as the probes and readers see it. */
struct hist_record {
	int64_t phase_id;
	int64_t probe_id;
	int variant;
	double t;
	double steal_pct;
	struct hist *hist;
};

/* System-wide figures over the last second. PSI fields are NaN where the
 * kernel has no /proc/pressure. */
struct sys_sample {
	int64_t phase_id; /* 0 between phases */
	double t;
	double cpu_busy_pct; /* all CPUs, 100 = every CPU busy */
	double ctxt_per_s;
	double load1;
	uint64_t mem_available;
	uint64_t swap_used;
	double psi_cpu_some, psi_cpu_full; /* % of the second stalled */
	double psi_mem_some, psi_mem_full;
	double psi_io_some, psi_io_full;
};

/* One loader's counters, taken once a second. Counters are cumulative over
 * the run (they survive restarts). */
struct loader_sample {
	int64_t phase_id;
	const char *load; /* [load NAME] */
	double t;
	uint64_t cycles;
	uint64_t bytes;
	uint64_t ops;
	uint64_t errors;
	double cpu_ms; /* CPU time of all the loader's processes */
	int procs;     /* processes alive in its group */
	int restarts;
	bool running;
	bool stalled; /* no progress for the load's stall time */
};

/* Something that happened: a restart, an OOM kill, an error. */
struct event {
	int64_t phase_id;
	double t;
	const char *load; /* NULL when not about one load */
	const char *kind; /* "start", "exit", "signal", "oom-kill", "restart", "stall", "enospc",
			     "error", ... */
	const char *message;
};

/* A run as loadd starts it. */
struct run_info {
	const char *profile_name;
	const char *profile_path;
	const char *profile_text;
	const char *host;
	const char *kernel;
	const char *cpu_model;
	int cores;
	uint64_t ram_bytes;
	uint64_t swap_bytes;
	const char *tree_fingerprint;
	const char *version;
	long rounds;
	int64_t planned_ms;
	int pid;
};

/* A [load NAME] of a run: its loader and the units that loader counts in. */
struct load_info {
	const char *name;
	const char *type;       /* the loader, e.g. "cpu" */
	const char *cycle_unit; /* what a cycle is, plural: "trips" */
	const char *ops_unit;   /* what ops counts, plural: "passes"; NULL: no ops figure */
	bool reports_bytes;     /* its bytes make a MiB/s */
};

/* A run as the readers see it. */
struct run_row {
	int64_t id;
	char *status;
	char *profile_name;
	char *profile_path;
	char *profile_text;
	char *host;
	char *kernel;
	char *cpu_model;
	int cores;
	uint64_t ram_bytes;
	uint64_t swap_bytes;
	char *tree_fingerprint;
	char *version;
	long rounds;
	int64_t planned_ms;
	double started_at;
	double ended_at; /* 0 while running */
	int64_t samples; /* count of samples */
	char *uuid;      /* the same in every database the run is copied to; "" or
			  * NULL in a file older than schema version 4 */
};

/* One phase of a run (its id is 0 before it is recorded). */
struct phase_row {
	int64_t id;
	long round;
	long seq;
	char *name;
	char *cache;
	char *loads; /* space-separated [load] names, "" for none */
	double started_at;
	double probe_start; /* 0 before probing starts */
	double ended_at;    /* 0 while running */
	bool valid;
	char *invalid_reason;
	char *weak; /* NULL, or what its load reached against its expectation */
};

/* What a column holds in its struct, and how NULL reads back. */
enum column_type {
	COL_INT,       /* int */
	COL_LONG,      /* long */
	COL_I64,       /* int64_t */
	COL_U64,       /* uint64_t, stored as a signed 64-bit integer */
	COL_BOOL,      /* bool, stored 0/1 */
	COL_REAL,      /* double, NaN <-> NULL */
	COL_TIME,      /* double seconds since the epoch; NULL reads 0 */
	COL_TEXT,      /* char *; NULL reads "" */
	COL_TEXT_NULL, /* char *; NULL stays NULL */
	COL_PHASE_ID,  /* int64_t phase id; 0 ("between phases") <-> NULL */
	COL_BLOB,      /* struct blob; NULL reads empty */
};

/* Where a figure shows in the live outputs (the JSON status, /metrics,
 * loadtop's system panel). */
struct figure_view {
	const char *json;          /* dotted path in the JSON status: "psi.cpu.some" */
	const char *metric;        /* Prometheus family */
	const char *metric_type;   /* "gauge", "counter" */
	const char *help;          /* its HELP text */
	const char *const *labels; /* label name/value pairs, NULL-terminated; NULL none */
	double scale;              /* the metric is value * scale (0: 1) */
	const char *panel;         /* loadtop's label before the value; NULL: not shown */
	int panel_line;            /* which line of the panel, from 1 */
	int decimals;              /* loadtop's decimals (bytes: a binary unit) */
	const char *suffix;        /* after loadtop's value ("%") */
	double warn_at, bad_at;    /* loadtop colours from this value up (0: never) */
};

/* Column flags. */
enum {
	COLF_NO_INSERT = 1 << 0, /* set by SQL (the row id) or later by an UPDATE */
	COLF_KEY = 1 << 1,       /* an id, not a figure: left out of figure lists */
	COLF_NOT_NULL = 1 << 2,  /* a NOT NULL text: NULL is written as "" */
};

struct column {
	const char *name;     /* SQL column, and the figure's name in CSV and JSON */
	const char *sql_type; /* as its migration declares it */
	size_t offset;        /* offsetof into the record's struct */
	enum column_type type;
	const char *unit;               /* "ms", "%", "bytes", "s", "" */
	int since;                      /* the schema version that added it */
	unsigned flags;                 /* COLF_* */
	const char *expr;               /* SQL read in its place (a derived figure), else NULL */
	const struct figure_view *view; /* NULL: not in the live outputs */
};

/* One record type: a struct, a table, its columns. */
struct record_type {
	const char *name;     /* for messages: "sample" */
	const char *table;    /* SQL table */
	const char *owner;    /* column bound from the id given to an insert ("run_id"), or NULL */
	const char *list_key; /* column a list selects on ("phase_id"), NULL: every row */
	const char *list_order; /* ORDER BY of a list */
	size_t size;            /* sizeof the struct */
	int since;              /* the schema version that created the table */
	const struct column *columns;
	size_t ncolumns;
};

enum record_id {
	REC_RUN_START,     /* struct run_start: a run as written */
	REC_RUN,           /* struct run_row: a run as read */
	REC_LOAD,          /* struct load_info */
	REC_PHASE,         /* struct phase_row */
	REC_SAMPLE,        /* struct sample */
	REC_SYS_SAMPLE,    /* struct sys_sample */
	REC_LOADER_SAMPLE, /* struct loader_sample */
	REC_EVENT,         /* struct event */
	REC_PROBE,         /* struct probe_info */
	REC_HIST,          /* struct hist_row */
	REC_BASELINE,      /* struct baseline_row */
	REC_COUNT
};

/* What db_run_begin writes: the run, its status and its start. */
struct run_start {
	struct run_info info;
	const char *status;
	double started_at;
	const char *uuid; /* db_run_begin makes one; an import keeps the original's */
};

/* A name for a run to check others against (loadctl baseline). */
struct baseline_row {
	char *name;
	int64_t run_id;
	double set_at;
};

extern const struct record_type record_types[REC_COUNT];

/* A column's value as a number (NaN for text and for NaN/NULL). */
double column_number(const struct column *c, const void *row);
/* An integer column's value (0 for the others). */
int64_t column_integer(const struct column *c, const void *row);
/* A column's text (NULL for a NULL text); numbers are not text. */
const char *column_text(const struct column *c, const void *row);
bool column_is_text(const struct column *c);
bool column_is_integer(const struct column *c);
/* A column by name, NULL if the record has none. */
const struct column *record_column(const struct record_type *rt, const char *name);
/* Frees the text (and blob) columns of one row read from the database. */
void record_free_texts(const struct record_type *rt, void *row);

#endif
