// SPDX-License-Identifier: GPL-2.0-or-later
#include "api_view.h"

#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "xalloc.h"

/* 25 us (a good wake-up) to 60 s (a job at its limit), about 2.5x apart. */
const double latency_bucket_bounds[LATENCY_BUCKETS] = {
	0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.0167,
	0.025,    0.05,    0.1,    0.25,    0.5,    1,     2.5,    5,     10,   60,
};

static void probe_views_init(struct api_view *v, const struct profile *p)
{
	v->nprobes = p->nprobes;
	v->probes = xcalloc(p->nprobes ? p->nprobes : 1, sizeof *v->probes);
	for (size_t i = 0; i < p->nprobes; i++) {
		struct probe_view *pv = &v->probes[i];

		pv->name = p->probes[i].name;
		pv->type = p->probes[i].type;
		pv->units = p->probes[i].ops ? p->probes[i].ops->units : "ms";
		pv->histogram = p->probes[i].ops && p->probes[i].ops->histogram;
		pv->phase = xcalloc(1, sizeof *pv->phase);
		pv->by_phase = xcalloc(v->nhists ? v->nhists : 1, sizeof *pv->by_phase);
		pv->failed_by_phase = xcalloc(v->nhists ? v->nhists : 1,
					      sizeof *pv->failed_by_phase);
		pv->missed_by_phase = xcalloc(v->nhists ? v->nhists : 1,
					      sizeof *pv->missed_by_phase);
		for (size_t h = 0; h < v->nhists; h++)
			pv->by_phase[h] = xcalloc(1, sizeof *pv->by_phase[h]);
	}
}

void api_view_init(struct api_view *v, const struct profile *p)
{
	memset(v, 0, sizeof *v);
	v->profile = p;
	v->round = 1;
	v->hists = xcalloc(p->nphases ? p->nphases : 1, sizeof *v->hists);
	v->hist_of_phase = xcalloc(p->nphases ? p->nphases : 1, sizeof *v->hist_of_phase);
	/* Phases that share a name share a series: one label value, one histogram. */
	for (size_t i = 0; i < p->nphases; i++) {
		size_t h;
		for (h = 0; h < v->nhists; h++)
			if (strcmp(v->hists[h].phase, p->phases[i].name) == 0)
				break;
		if (h == v->nhists)
			v->hists[v->nhists++].phase = p->phases[i].name;
		v->hist_of_phase[i] = h;
	}
	probe_views_init(v, p);
}

void api_view_free(struct api_view *v)
{
	for (size_t i = 0; i < v->nprobes; i++) {
		struct probe_view *pv = &v->probes[i];

		for (size_t h = 0; h < v->nhists; h++)
			free(pv->by_phase[h]);
		free(pv->by_phase);
		free(pv->failed_by_phase);
		free(pv->missed_by_phase);
		free(pv->phase);
	}
	free(v->probes);
	v->probes = NULL;
	api_view_set_phase_rows(v, NULL, 0);
	v->nprobes = 0;
	free(v->hists);
	free(v->hist_of_phase);
	v->hists = NULL;
	v->hist_of_phase = NULL;
}

void api_view_phase_begin(struct api_view *v, long round, size_t phase_index, int64_t phase_id,
			  double now)
{
	v->round = round;
	v->phase_index = phase_index;
	v->phase_id = phase_id;
	v->state = PHASE_SETTLING;
	v->phase_started_at = now;
	v->phase_jobs = 0;
	v->phase_failed = 0;
	v->nlatest = 0;
	for (size_t i = 0; i < v->nprobes; i++) {
		hist_reset(v->probes[i].phase);
		v->probes[i].phase_failed = 0;
	}
}

/* The probe and the phase-name histogram a record of phase_id goes to; NULL
 * when it belongs to no current phase. */
static struct probe_view *probe_target(struct api_view *v, size_t probe, int64_t phase_id,
				       size_t *h)
{
	if (v->state == PHASE_NONE || phase_id != v->phase_id || probe >= v->nprobes ||
	    v->phase_index >= v->profile->nphases)
		return NULL;
	*h = v->hist_of_phase[v->phase_index];
	return &v->probes[probe];
}

void api_view_add_probe_sample(struct api_view *v, size_t probe, const struct sample *s)
{
	size_t h;
	struct probe_view *pv = probe_target(v, probe, s->phase_id, &h);

	if (pv == NULL)
		return;
	pv->missed_by_phase[h] += s->missed > 0 ? (uint64_t)s->missed : 0;
	if (s->failed) {
		pv->phase_failed++;
		pv->failed_by_phase[h]++;
		return;
	}
	hist_add(pv->phase, (uint64_t)(s->wall_ms > 0 ? s->wall_ms * 1e6 : 0));
	hist_add(pv->by_phase[h], (uint64_t)(s->wall_ms > 0 ? s->wall_ms * 1e6 : 0));
}

void api_view_add_probe_hist(struct api_view *v, size_t probe, int64_t phase_id,
			     const struct hist *hh)
{
	size_t h;
	struct probe_view *pv = probe_target(v, probe, phase_id, &h);

	if (pv == NULL)
		return;
	hist_merge(pv->phase, hh);
	hist_merge(pv->by_phase[h], hh);
}

void api_view_phase_end(struct api_view *v)
{
	v->phase_id = 0;
	v->state = PHASE_NONE;
}

void api_view_add_sample(struct api_view *v, const struct sample *s)
{
	if (v->state == PHASE_NONE || s->phase_id != v->phase_id ||
	    v->phase_index >= v->profile->nphases)
		return;
	v->phase_jobs++;
	if (s->failed)
		v->phase_failed++;
	if (v->nlatest == API_LATEST_SAMPLES) {
		memmove(&v->latest[0], &v->latest[1],
			(API_LATEST_SAMPLES - 1) * sizeof v->latest[0]);
		v->nlatest--;
	}
	v->latest[v->nlatest++] = *s;
}

void api_view_set_phase_rows(struct api_view *v, struct phase_row *rows, size_t n)
{
	for (size_t i = 0; i < v->nphase_rows; i++)
		record_free_texts(&record_types[REC_PHASE], &v->phase_rows[i]);
	free(v->phase_rows);
	v->phase_rows = rows;
	v->nphase_rows = n;
}
