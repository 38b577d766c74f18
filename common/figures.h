// SPDX-License-Identifier: GPL-2.0-or-later
/* The figures of a run, as gnuplot scripts: per probe, its time per phase
 * (box and points, the baseline beside), its ECDFs and log-x histograms;
 * and a timeline of the whole run (probe times, PSI, the loads' throughput,
 * with the phases as bands). The data is read once; each script is made from it. */
#ifndef LOADD_FIGURES_H
#define LOADD_FIGURES_H

#include <stdbool.h>
#include <stddef.h>

#include "db.h"
#include "report.h"

enum figure_kind {
	FIGURE_DISTRIBUTION,
	FIGURE_ECDF,
	FIGURE_HISTOGRAM,
	FIGURE_TIMELINE,
	FIGURE_COUNT
};

struct figure_def {
	const char *name;    /* as `loadctl plot NAME` takes it */
	const char *caption; /* a sentence under the figure */
	int width, height;   /* pixels */
};

extern const struct figure_def figure_defs[FIGURE_COUNT];

/* By name; -1 when there is no such figure. */
int figure_find(const char *name);

struct run_figures;

/* Reads what the figures of rep's run need. NULL on a database error (logged). */
struct run_figures *run_figures_load(struct db *db, const struct run_report *rep);
void run_figures_free(struct run_figures *rf);

/* The run's probes, in its order (the first is the job); each has its own
 * distribution, ecdf and histogram. NULL past the last. */
size_t run_figures_nprobes(const struct run_figures *rf);
const char *run_figures_probe(const struct run_figures *rf, size_t probe);

/* The gnuplot script (no terminal line) of one figure, xmalloc'd in
 * *script; probe says whose values (the timeline has every probe's). 0, or
 * 1 when the run has nothing to draw in it (no *script). */
int figure_script(const struct run_figures *rf, enum figure_kind kind, size_t probe, char **script,
		  size_t *len);

/* The runs' times of the first run's probe number probe (0: the job), found
 * by name in the others, side by side per phase name (the phases of the
 * first run, in order), one colour per run, labels[i] naming run i. 0, or 1 when
 * there is nothing to draw. */
int figure_compare_script(const struct run_figures *const *runs, const char *const *labels,
			  size_t nruns, size_t probe, char **script, size_t *len);

/* A knee search: the job's median and p95 (ms) at each step's value of
 * key, the knee (the last acceptable step, from 0; -1 for none) marked.
 * 0, or 1 when no step has a figure. */
int figure_ramp_script(const char *search, const char *key, const char *const *values,
		       const double *median, const double *p95, size_t n, long knee, char **script,
		       size_t *len);

#endif
