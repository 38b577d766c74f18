// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading runs for a comparison, their figures round by round, and ranking
 * them. See compare_data.h. */
#include "compare_data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loadctl.h"
#include "log.h"
#include "profile.h"
#include "stats.h"
#include "xalloc.h"

int cmp_run_parse(const char *spec, const char *default_db, struct cmp_run *r)
{
	const char *colon = strrchr(spec, ':');

	memset(r, 0, sizeof *r);
	if (colon == spec || loadctl_parse_run(colon ? colon + 1 : spec, &r->run_id) < 0)
		return -1;
	r->spec = xstrdup(spec);
	r->db_path = colon ? xstrndup(spec, (size_t)(colon - spec)) : xstrdup(default_db);
	return 0;
}

/* The job a stored profile timed: its [probe] job (the default when it sets
 * none); "?" when the text no longer parses. */
static char *profile_job(const struct run_row *run)
{
	struct profile p;
	char *job;

	if (profile_parse_text(run->profile_path, run->profile_text, &p, NULL, NULL) != 0)
		return xstrdup("?");
	job = xstrdup(p.probe.job);
	profile_free(&p);
	return job;
}

static int load_walls(struct db *db, struct cmp_run *r)
{
	size_t i, most = 1;

	r->walls = xcalloc(r->rep.nphases + 1, sizeof *r->walls);
	for (i = 0; i < r->rep.nphases; i++) {
		struct cmp_walls *w = &r->walls[i];
		size_t j;

		if (report_phase_round_walls(db, &r->rep.phases[i], &w->v, &w->len, &w->nrounds) <
		    0)
			return -1;
		for (j = 0; j < r->rep.phases[i].nload; j++)
			if (r->rep.phases[i].load[j].windows > most)
				most = r->rep.phases[i].load[j].windows;
	}
	r->ones = xcalloc(most, sizeof *r->ones);
	for (i = 0; i < most; i++)
		r->ones[i] = 1;
	return 0;
}

int cmp_run_load(struct cmp_run *r)
{
	struct loadctl lc = { .db_path = r->db_path };
	struct db *db = loadctl_open_db(&lc);
	int rc;

	if (db == NULL)
		return -1;
	if (loadctl_find_run(&lc, db, &r->run_id) != LOADCTL_OK) {
		db_close(db);
		return -1;
	}
	rc = report_build(db, r->run_id, &r->rep);
	if (rc != 0) {
		if (rc == 1) /* deleted since loadctl_find_run */
			log_error("no run %lld in %s", (long long)r->run_id, r->db_path);
		db_close(db);
		return -1;
	}
	rc = load_walls(db, r);
	db_close(db);
	r->job = profile_job(&r->rep.run);
	return rc;
}

void cmp_run_free(struct cmp_run *r)
{
	size_t i;

	for (i = 0; r->walls != NULL && i < r->rep.nphases; i++) {
		free(r->walls[i].v);
		free(r->walls[i].len);
	}
	free(r->walls);
	free(r->ones);
	report_free(&r->rep);
	free(r->spec);
	free(r->db_path);
	free(r->job);
	memset(r, 0, sizeof *r);
}

const struct report_phase *cmp_find_phase(const struct cmp_run *r, const char *name, size_t *at)
{
	size_t i;

	for (i = 0; i < r->rep.nphases; i++) {
		if (strcmp(r->rep.phases[i].name, name) == 0) {
			*at = i;
			return &r->rep.phases[i];
		}
	}
	return NULL;
}

bool cmp_figure_rounds(const struct cmp_run *r, size_t phase, const struct cmp_figure *f,
		       struct rounds *out)
{
	const struct report_phase *p = &r->rep.phases[phase];
	const struct report_load *l;
	size_t i;

	if (f->probe != NULL) {
		for (i = 0; i < p->nprobe; i++) {
			if (strcmp(p->probe[i].name, f->probe) == 0) {
				*out = (struct rounds){ p->probe[i].round_values,
							p->probe[i].round_len,
							p->probe[i].nround_len };
				return true;
			}
		}
		return false;
	}
	if (f->load == NULL) {
		*out = (struct rounds){ r->walls[phase].v, r->walls[phase].len,
					r->walls[phase].nrounds };
		return true;
	}
	l = report_phase_load(p, f->load);
	if (l == NULL)
		return false;
	*out = (struct rounds){ l->round_rates, r->ones, l->windows };
	return true;
}

bool cmp_units_rate(const char *units)
{
	size_t n = units != NULL ? strlen(units) : 0;

	return n > 2 && strcmp(units + n - 2, "/s") == 0;
}

bool cmp_probe_shown(const struct report_probe *p)
{
	return !(strcmp(p->type, "job") == 0 && strcmp(p->name, "job") == 0);
}

const char *cmp_phase_unusable(const struct cmp_run *r, const char *phase)
{
	const struct report_phase *p;
	size_t at;

	p = cmp_find_phase(r, phase, &at);
	if (p == NULL)
		return "missing";
	if (p->valid_rounds == 0)
		return "invalid";
	/* A load that fell short of what its profile expects makes the phase
	 * measure something else than it says. */
	if (p->weak != NULL && p->weak[0] != '\0')
		return "weak";
	return NULL;
}

/* ---- ranking ---- */

static enum change_verdict mirrored(enum change_verdict v)
{
	return v == CHANGE_LOWER ? CHANGE_HIGHER : v == CHANGE_HIGHER ? CHANGE_LOWER : v;
}

struct change cmp_pair(const struct cmp_ranking *r, size_t i, size_t j)
{
	struct change c;

	if (i < j)
		return r->pair[i * r->n + j];
	c = r->pair[j * r->n + i];
	c.ratio = 1 / c.ratio;
	{
		double lo = 1 / c.ci_high, hi = 1 / c.ci_low, ma = c.median_a;

		c.ci_low = lo;
		c.ci_high = hi;
		c.median_a = c.median_b;
		c.median_b = ma;
	}
	c.verdict = mirrored(c.verdict);
	return c;
}

bool cmp_better(const struct cmp_ranking *r, const struct cmp_figure *f, size_t i, size_t j)
{
	struct change c;

	if (i == j || r->why[i] != NULL || r->why[j] != NULL)
		return false;
	c = cmp_pair(r, i, j);
	return c.verdict == (f->higher_better ? CHANGE_HIGHER : CHANGE_LOWER);
}

static double rounds_median(const struct rounds *r)
{
	struct summary s;
	size_t i, n = 0;
	double *v;

	for (i = 0; i < r->nrounds; i++)
		n += r->len[i];
	if (n == 0)
		return NAN;
	v = xcalloc(n + 1, sizeof *v);
	memcpy(v, r->v, n * sizeof *v);
	summarize(v, n, &s);
	free(v);
	return s.median;
}

void cmp_rank(struct cmp_run *runs, size_t n, const char *phase, const struct cmp_figure *f,
	      const struct change_opts *o, struct cmp_ranking *out)
{
	struct rounds *data = xcalloc(n + 1, sizeof *data);
	size_t i, j, at = 0;

	out->n = n;
	out->why = xcalloc(n + 1, sizeof *out->why);
	out->pair = xcalloc(n * n + 1, sizeof *out->pair);
	out->rank = xcalloc(n + 1, sizeof *out->rank);
	out->median = xcalloc(n + 1, sizeof *out->median);
	for (i = 0; i < n; i++) {
		out->median[i] = NAN;
		out->why[i] = cmp_phase_unusable(&runs[i], phase);
		if (out->why[i] == NULL) {
			cmp_find_phase(&runs[i], phase, &at);
			if (!cmp_figure_rounds(&runs[i], at, f, &data[i]))
				out->why[i] = f->probe ? "no such probe" : "no such load";
			else
				out->median[i] = rounds_median(&data[i]);
			if (out->why[i] == NULL && isnan(out->median[i]))
				out->why[i] = "no values";
		}
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (out->why[i] == NULL && out->why[j] == NULL)
				change_estimate(&data[i], &data[j], o, &out->pair[i * n + j]);
	for (i = 0; i < n; i++) {
		if (out->why[i] != NULL)
			continue;
		out->rank[i] = 1;
		for (j = 0; j < n; j++)
			out->rank[i] += cmp_better(out, f, i, j);
	}
	free(data);
}

void cmp_ranking_free(struct cmp_ranking *r)
{
	free(r->why);
	free(r->pair);
	free(r->rank);
	free(r->median);
	memset(r, 0, sizeof *r);
}

double cmp_parse_threshold(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || (*end != '\0' && strcmp(end, "%") != 0) || !(v > 0 && v < 100))
		return -1;
	return v / 100;
}
