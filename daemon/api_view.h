// SPDX-License-Identifier: GPL-2.0-or-later
/* The run as the control API sees it, and the documents made from it: the
 * status and runs JSON (json_status.c) and the Prometheus text (metrics.c).
 * Kept apart from the HTTP side so the renderers can be tested on their own. */
#ifndef LOADD_API_VIEW_H
#define LOADD_API_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "db.h"
#include "hist.h"
#include "profile.h"
#include "records.h"
#include "supervisor.h"

#define API_LATEST_SAMPLES 10

/* The series of one phase name: phases that share a name share it. */
struct phase_series {
	const char *phase;
};

/* Upper bounds of the every-probe latency histogram, in seconds (+Inf
 * implied): from a wake-up's tens of microseconds to a cold start's seconds. */
#define LATENCY_BUCKETS 20
extern const double latency_bucket_bounds[LATENCY_BUCKETS];

/* What one probe of the profile gave: in the current phase (for the status)
 * and per phase name over the run (for /metrics), as log-linear histograms
 * of its times in ns. */
struct probe_view {
	const char *name;
	const char *type;
	const char *units;
	bool histogram;
	struct hist *phase; /* the current phase */
	uint64_t phase_failed;
	struct hist **by_phase; /* per distinct phase name (hists index) */
	uint64_t *failed_by_phase;
	uint64_t *missed_by_phase; /* slots skipped because an operation overran */
};

enum phase_state { PHASE_NONE, PHASE_SETTLING, PHASE_PROBING };

/* One load's counters with its rates over the last second. */
struct load_view {
	struct load_status st;
	double cycles_per_s, bytes_per_s, ops_per_s;
	bool has_rates;
};

struct api_view {
	const struct profile *profile;
	int64_t run_id;
	int pid;
	double started_at; /* wall clock */
	double elapsed_s;  /* filled in when a document is made */
	bool stopping;
	const char *socket_path;
	const char *metrics_addr; /* the TCP listener, or NULL */

	long round; /* from 1 */
	size_t phase_index;
	int64_t phase_id; /* 0 between phases */
	enum phase_state state;
	double phase_started_at; /* wall clock */
	double phase_elapsed_s;

	/* The current phase's samples: counts and the latest, oldest first. */
	uint64_t phase_jobs, phase_failed;
	struct sample latest[API_LATEST_SAMPLES];
	size_t nlatest;

	struct phase_series *hists; /* one per distinct phase name */
	size_t nhists;
	size_t *hist_of_phase; /* profile phase index -> hists index */

	struct probe_view *probes; /* one per probe of the profile */
	size_t nprobes;

	struct sys_sample sys; /* the latest, when has_sys */
	bool has_sys;

	const struct load_view *loads; /* the loads running now */
	size_t nloads;

	/* The run's phases as recorded so far, the finished ones with their
	 * valid and weak figures; the API refreshes them for each document. */
	struct phase_row *phase_rows;
	size_t nphase_rows;
};

/* Sets up the histograms for the profile's phases; api_view_free frees them. */
void api_view_init(struct api_view *v, const struct profile *p);
void api_view_free(struct api_view *v);
void api_view_phase_begin(struct api_view *v, long round, size_t phase_index, int64_t phase_id,
			  double now);
void api_view_phase_end(struct api_view *v);
void api_view_add_sample(struct api_view *v, const struct sample *s);
/* Takes the run's phase rows (db_phases_list's), freeing the ones before. */
void api_view_set_phase_rows(struct api_view *v, struct phase_row *rows, size_t n);
/* Every probe's figures (probe: its index in the profile): an operation's
 * sample, or a second of a histogram probe. */
void api_view_add_probe_sample(struct api_view *v, size_t probe, const struct sample *s);
void api_view_add_probe_hist(struct api_view *v, size_t probe, int64_t phase_id,
			     const struct hist *h);

/* The documents. Both JSON builders return a new reference. */
json_t *status_json(const struct api_view *v);
json_t *runs_json(const struct run_row *rows, size_t n);
json_t *error_json(const char *message);
/* A double as JSON: null when it is not finite (JSON has no NaN). */
json_t *json_number_or_null(double x);

/* Prometheus text exposition format 0.0.4. */
void metrics_write(FILE *fp, const struct api_view *v);
/* A label value with \, " and newline escaped as the format requires. */
void metrics_write_label_value(FILE *fp, const char *s);
/* A sample value: shortest round-trip decimal, NaN, +Inf or -Inf. */
void metrics_write_value(FILE *fp, double x);

#endif
