// SPDX-License-Identifier: GPL-2.0-or-later
/* What loadctl compare and loadctl check compare: runs named RUN or DB:RUN,
 * each read once, and per phase the figures both can compare (the job's time
 * and each load's throughput), round by round, with the change statistics of
 * change.h between every pair of runs and a ranking with ties. */
#ifndef LOADCTL_COMPARE_DATA_H
#define LOADCTL_COMPARE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "change.h"
#include "report.h"

struct cmp_walls {
	double *v; /* the phase's valid rounds' job times, round after round */
	size_t *len;
	size_t nrounds;
};

struct cmp_run {
	char *spec; /* as given: "3" or "old.db:2" */
	char *db_path;
	int64_t run_id;
	struct run_report rep;
	char *job;               /* the probe's job, from the stored profile */
	struct cmp_walls *walls; /* per report phase */
	size_t *ones;            /* len[] of rounds holding one value each */
};

/* "RUN" in default_db, or "DB:RUN"; -1 when spec is neither. */
int cmp_run_parse(const char *spec, const char *default_db, struct cmp_run *r);
/* Reads the run; -1 after a message. */
int cmp_run_load(struct cmp_run *r);
void cmp_run_free(struct cmp_run *r);
/* The phase of that name, or NULL; *at gets its index. */
const struct report_phase *cmp_find_phase(const struct cmp_run *r, const char *name, size_t *at);

/* A figure of a phase: the job's time, load NAME's throughput, or probe
 * NAME's times (a histogram probe's p99 of each second). */
struct cmp_figure {
	const char *load;   /* NULL: the job's wall time, or a probe's */
	const char *probe;  /* a probe other than the job */
	bool higher_better; /* throughput; a time is better lower */
};

/* The probes compare shows apart from the job's time: all but the [probe]
 * job itself. */
bool cmp_probe_shown(const struct report_probe *p);
/* A probe whose figure is a rate ("MB/s": ipcbw) is better higher; one in
 * time units (ms, us, ns) better lower. */
bool cmp_units_rate(const char *units);

/* The figure's values in run r's phase (by report index), grouped by valid
 * round; false when the run has no such phase or figure. */
bool cmp_figure_rounds(const struct cmp_run *r, size_t phase, const struct cmp_figure *f,
		       struct rounds *out);

/* Why a run's phase cannot be compared, or NULL when it can: "missing",
 * "invalid" (no valid round). */
const char *cmp_phase_unusable(const struct cmp_run *r, const char *phase);

/* One figure of one phase across n runs. */
struct cmp_ranking {
	size_t n;
	const char **why;    /* per run: NULL when compared, else why not */
	double *median;      /* per run, of all its values; NaN when not compared */
	struct change *pair; /* n x n: pair[i * n + j], j against i, for i < j */
	size_t *rank;        /* 1 + how many runs are clearly better; 0 not ranked */
};

void cmp_rank(struct cmp_run *runs, size_t n, const char *phase, const struct cmp_figure *f,
	      const struct change_opts *o, struct cmp_ranking *out);
void cmp_ranking_free(struct cmp_ranking *r);
/* j's change against i, whichever came first: computed for i < j, and for
 * i > j the same turned round (1 / ratio, the verdict mirrored). */
struct change cmp_pair(const struct cmp_ranking *r, size_t i, size_t j);
/* True when run j is clearly better than run i in figure f. */
bool cmp_better(const struct cmp_ranking *r, const struct cmp_figure *f, size_t i, size_t j);

/* "12%" or "12" is 0.12; -1 when s is not a percentage in (0, 100). */
double cmp_parse_threshold(const char *s);

#endif
