// SPDX-License-Identifier: GPL-2.0-or-later
#include "api_view.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* Prometheus' default buckets, widened at both ends: a warm ls -R of a
 * small tree takes a few ms, a cold one under load several seconds. */
const double probe_bucket_bounds[PROBE_BUCKETS] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
};

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
}

void api_view_free(struct api_view *v)
{
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
}

void api_view_phase_end(struct api_view *v)
{
	v->phase_id = 0;
	v->state = PHASE_NONE;
}

void api_view_add_sample(struct api_view *v, const struct sample *s)
{
	struct probe_hist *h;

	if (v->state == PHASE_NONE || s->phase_id != v->phase_id ||
	    v->phase_index >= v->profile->nphases)
		return;
	h = &v->hists[v->hist_of_phase[v->phase_index]];
	v->phase_jobs++;
	h->missed += s->missed > 0 ? (uint64_t)s->missed : 0;
	if (s->failed) {
		v->phase_failed++;
		h->failed++;
	} else {
		double secs = s->wall_ms / 1000.0;
		size_t b = 0;
		while (b < PROBE_BUCKETS && secs > probe_bucket_bounds[b])
			b++;
		if (b < PROBE_BUCKETS)
			h->bucket[b]++;
		h->count++;
		h->sum_s += secs;
	}
	if (v->nlatest == API_LATEST_SAMPLES) {
		memmove(&v->latest[0], &v->latest[1], (API_LATEST_SAMPLES - 1) * sizeof v->latest[0]);
		v->nlatest--;
	}
	v->latest[v->nlatest++] = *s;
}
