// SPDX-License-Identifier: GPL-2.0-or-later
/* The report of a run, computed from the database alone: one struct of
 * figures per phase name (its rounds pooled), rendered as aligned text
 * tables (loadctl report, and loadd at the end of a run) or as JSON. */
#ifndef LOADD_REPORT_H
#define LOADD_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "db.h"
#include "stats.h"

/* One load of a phase, over the probe windows of the phase's valid rounds.
 * Counters are deltas between the first loader row at or after the window's
 * start and the last one at or before its end. Rates are NaN when unknown. */
struct report_load {
	char *name;
	/* As the run recorded the load; NULL when it did not (its figures are
	 * then named cycles and ops, and MiB/s shows when bytes moved). */
	char *type;
	char *cycle_unit; /* "trips" */
	char *ops_unit;   /* "passes"; NULL also when the loader keeps no ops figure */
	bool reports_bytes;
	size_t windows; /* rounds that gave this load a window */
	double seconds; /* their total length */
	uint64_t cycles, bytes, ops, errors;
	double cpu_ms;
	int restarts;
	bool counts_bytes; /* the loader counts bytes / ops at all */
	bool counts_ops;
	double cycles_per_s;
	double mib_per_s;
	double ops_per_s;
	double lcpu_pct;     /* its CPU time / window time * 100 */
	double *round_rates; /* cycles per second of each window, in order */
};

/* One probe over a phase's valid rounds. Sample probes (job, fsync, launch,
 * fault) give a summary of their times; histogram probes (wakeup) give
 * percentiles and counts over thresholds from the merged histograms. Every
 * figure in ms; NaN when it does not exist. */
struct report_probe {
	char *name;
	char *type;
	char *units; /* of the figures as printed: a histogram's in ms */
	bool histogram;
	bool ran;            /* some valid round has a figure of it */
	struct summary time; /* sample probes */
	int64_t missed, failed;
	uint64_t count; /* histogram probes: values measured */
	double p50, p99, p999, max, mean;
	uint64_t over_1ms, over_16ms, over_100ms; /* 16.7 ms: a frame missed at 60 Hz */
	double steal_pct; /* mean CPU steal over its seconds, NaN when unknown */
	double ratio;     /* median (histograms: p99) / the baseline phase's */
	/* Samples not measured because they were over a system limit (ipcbw's
	 * sizes), that limit in bytes, and the sysctl setting it (NULL: none
	 * known). Neither failed nor figures. */
	int64_t over_limit_n, over_limit;
	const char *limit_sysctl;
	/* For loadctl compare, by valid round: a sample probe's values, a
	 * histogram probe's p99 of each second, in ms; round r's round_len[r]
	 * values follow those of the rounds before it. */
	double *round_values;
	size_t *round_len;
	size_t nround_values, nround_len;
};

/* One round of a phase, for the record. */
struct report_round {
	long round;
	int64_t phase_id;
	bool valid;
	bool finished;
	char *reason; /* why it is invalid, "" otherwise */
	char *weak;   /* what a load that fell short reached, "" otherwise */
	size_t samples;
};

/* A phase name with all its rounds pooled; invalid rounds are left out of
 * every figure. NaN marks a figure that does not exist. */
struct report_phase {
	char *name;
	char *loads; /* its [load] names, "" for none */
	char *cache;
	size_t nrounds;
	struct report_round *rounds;
	size_t valid_rounds;
	char *note;          /* "INVALID: ...", "WEAK: ...", "unfinished" or "" */
	char *weak;          /* what its loads fell short with, per round; "" when none */
	struct summary time; /* job wall ms, failed jobs excluded */
	double cpu_pct;      /* mean job CPU% */
	double load_cycles;  /* load cycles in the probe window, all loads, mean per round */
	double lcpu_pct;     /* the loads' CPU% of the window, mean per round */
	double ratio;        /* median / the baseline's median */
	int64_t missed;
	int64_t failed;
	double psi_cpu, psi_mem, psi_io; /* PSI "some", mean over the window */
	size_t nload;
	struct report_load *load;
	size_t nprobe; /* every probe of the run, in its order */
	struct report_probe *probe;
};

struct run_report {
	struct run_row run;
	const char *baseline; /* the first phase without loads, or NULL */
	size_t nprobes;       /* of the run; every phase has a row for each */
	size_t nphases;
	struct report_phase *phases;
};

/* 0 done, 1 no such run, -1 database error (logged). */
int report_build(struct db *db, int64_t run_id, struct run_report *rep);
void report_free(struct run_report *rep);

/* ---- what `loadctl report` and `loadctl compare` print alike ---- */

/* The load NAME of a phase; NULL when the phase had none. */
const struct report_load *report_phase_load(const struct report_phase *p, const char *name);
/* A rate in its unit, "17177 trips/s", the number right-aligned in width (0:
 * as it comes) so that a column's numbers line up; a figure that does not
 * exist (NaN) or has no unit is the bare number or "-". */
char *report_rate(double per_s, int width, const char *unit);

/* Both return what report_build does, and -1 when out cannot be written. */
int report_print(struct db *db, int64_t run_id, FILE *out);
int report_json(struct db *db, int64_t run_id, FILE *out);

/* The job wall times (ms) behind a phase's time summary: its valid rounds,
 * failed jobs left out, in the order they ran. *out is xmalloc'd (NULL when
 * *n is 0). 0, or -1 on a database error (logged). */
int report_phase_walls(struct db *db, const struct report_phase *p, double **out, size_t *n);
/* The same grouped by valid round: round r's len[r] times follow those of
 * the rounds before it in *out. *len is xmalloc'd too. */
int report_phase_round_walls(struct db *db, const struct report_phase *p, double **out,
			     size_t **len, size_t *nrounds);

#endif
