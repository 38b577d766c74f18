// SPDX-License-Identifier: GPL-2.0-or-later
/* Reads what loadtop shows from the database: one snapshot of a run per
 * tick. Finished phases never change, so their figures are computed once;
 * a finished run is not read again until the database changes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "profile.h"
#include "stats.h"
#include "timeutil.h"
#include "view.h"
#include "xalloc.h"

#define EVENTS_MAX 100

/* The probe figures of a finished phase. */
struct phase_figures {
	int64_t id;
	size_t n, failed;
	int64_t missed;
	double last_ms, median, p95, cpu_pct;
};

struct source {
	struct db *db;
	int64_t want;           /* the run asked for; 0: the latest, following new ones */
	int64_t run_id;         /* the run read last */
	struct profile profile; /* as stored with the run: phases, baseline */
	enum { PROFILE_UNREAD, PROFILE_OK, PROFILE_BAD } profile_state;
	/* The run's loads with their types and units, recorded with the run
	 * itself: read once. */
	struct load_info *load_info;
	size_t nload_info;
	bool load_info_read;
	struct phase_figures *done;
	size_t ndone;
	int64_t data_version;
	bool settled; /* the last read saw a finished run */
};

struct source *source_new(struct db *db, int64_t run_id)
{
	struct source *src = xcalloc(1, sizeof *src);

	src->db = db;
	src->want = run_id;
	src->data_version = -1;
	return src;
}

static void source_forget_run(struct source *src)
{
	if (src->profile_state == PROFILE_OK)
		profile_free(&src->profile);
	src->profile_state = PROFILE_UNREAD;
	db_loads_free(src->load_info, src->nload_info);
	src->load_info = NULL;
	src->nload_info = 0;
	src->load_info_read = false;
	free(src->done);
	src->done = NULL;
	src->ndone = 0;
	src->settled = false;
}

void source_free(struct source *src)
{
	if (src == NULL)
		return;
	source_forget_run(src);
	free(src);
}

int64_t source_run_id(const struct source *src)
{
	return src->run_id;
}

const char *load_state_name(enum load_state st)
{
	static const char *const names[] = {
		[LOAD_STARTING] = "starting",
		[LOAD_RUNNING] = "running",
		[LOAD_STALLED] = "stalled",
		[LOAD_STOPPED] = "stopped",
	};
	return names[st];
}

bool snapshot_running(const struct snapshot *s)
{
	return s->run.status != NULL && strcmp(s->run.status, "running") == 0;
}

const struct phase_view *snapshot_phase(const struct snapshot *s)
{
	return s->current >= 0 ? &s->phases[s->current] : NULL;
}

void snapshot_free(struct snapshot *s)
{
	db_run_row_free(&s->run);
	for (size_t i = 0; i < s->nphases; i++) {
		free(s->phases[i].name);
		free(s->phases[i].loads);
		free(s->phases[i].invalid_reason);
		free(s->phases[i].weak);
	}
	free(s->phases);
	for (size_t i = 0; i < s->nloads; i++) {
		free(s->loads[i].name);
		free(s->loads[i].type);
		free(s->loads[i].unit);
	}
	free(s->loads);
	for (size_t i = 0; i < s->nprobes; i++) {
		free(s->probes[i].name);
		free(s->probes[i].type);
		free(s->probes[i].units);
	}
	free(s->probes);
	db_events_free(s->events, s->nevents);
	memset(s, 0, sizeof *s);
	s->current = -1;
}

static const struct phase_figures *figures_cached(const struct source *src, int64_t id)
{
	for (size_t i = 0; i < src->ndone; i++)
		if (src->done[i].id == id)
			return &src->done[i];
	return NULL;
}

/* Figures of one phase from its samples; the newest jobs go to recent[]
 * when the snapshot is given. */
static int phase_figures_read(struct source *src, int64_t phase_id, struct phase_figures *f,
			      struct snapshot *recent_to)
{
	struct sample *rows;
	size_t n, i, ok = 0, first;
	double *walls, cpu = 0;
	struct summary sum;

	if (db_samples_list(src->db, phase_id, &rows, &n) < 0)
		return -1;
	memset(f, 0, sizeof *f);
	f->id = phase_id;
	f->last_ms = NAN;
	walls = xcalloc(n ? n : 1, sizeof *walls);
	for (i = 0; i < n; i++) {
		f->missed += rows[i].missed;
		if (rows[i].failed) {
			f->failed++;
			continue;
		}
		walls[ok++] = rows[i].wall_ms;
		cpu += rows[i].cpu_pct;
		f->last_ms = rows[i].wall_ms;
	}
	summarize(walls, ok, &sum);
	f->n = ok;
	f->median = sum.median;
	f->p95 = sum.p95;
	f->cpu_pct = ok ? cpu / (double)ok : NAN;
	if (recent_to != NULL) {
		first = n > RECENT_MAX ? n - RECENT_MAX : 0;
		recent_to->nrecent = n - first;
		for (i = first; i < n; i++) {
			recent_to->recent[i - first] = rows[i].wall_ms;
			recent_to->recent_failed[i - first] = rows[i].failed;
		}
	}
	free(walls);
	free(rows);
	return 0;
}

static void phase_view_fill(struct phase_view *v, const struct phase_row *r, bool running)
{
	v->id = r->id;
	v->round = r->round;
	v->seq = r->seq;
	v->name = xstrdup(r->name);
	v->loads = xstrdup(r->loads);
	v->invalid_reason = xstrdup(r->invalid_reason ? r->invalid_reason : "");
	v->weak = xstrdup(r->weak ? r->weak : "");
	v->started_at = r->started_at;
	v->probe_start = r->probe_start;
	v->ended_at = r->ended_at;
	v->valid = r->valid;
	/* A run that is over leaves no phase to wait for, even one it never
	 * closed (a crash). */
	v->done = r->ended_at != 0 || !running;
	v->ratio = NAN;
}

static void phase_view_set(struct phase_view *v, const struct phase_figures *f)
{
	v->n = f->n;
	v->failed = f->failed;
	v->missed = f->missed;
	v->last_ms = f->last_ms;
	v->median = f->median;
	v->p95 = f->p95;
	v->cpu_pct = f->cpu_pct;
}

static bool loads_empty(const char *loads)
{
	return strspn(loads, " \t,") == strlen(loads);
}

/* Ratio = median / the baseline phase's median in the same round, else in
 * the nearest earlier round that has one. */
static void ratios_fill(struct snapshot *s, const struct source *src)
{
	const struct phase_def *base_phase = src->profile_state == PROFILE_OK
						     ? profile_baseline(&src->profile)
						     : NULL;
	const char *base = base_phase != NULL ? base_phase->name : NULL;

	for (size_t i = 0; i < s->nphases; i++) {
		struct phase_view *v = &s->phases[i];
		const struct phase_view *b = NULL;

		for (size_t j = 0; j < s->nphases; j++) {
			const struct phase_view *c = &s->phases[j];
			bool is_base = base ? strcmp(c->name, base) == 0 : loads_empty(c->loads);
			if (!is_base || !c->done || c->n == 0 || c->round > v->round)
				continue;
			if (b == NULL || c->round > b->round)
				b = c;
		}
		if (b != NULL && v->n > 0 && b->median > 0)
			v->ratio = v->median / b->median;
	}
}

static int phases_read(struct source *src, struct snapshot *s, bool running)
{
	struct phase_row *rows;
	size_t n;

	if (db_phases_list(src->db, src->run_id, &rows, &n) < 0)
		return -1;
	s->phases = xcalloc(n ? n : 1, sizeof *s->phases);
	s->nphases = n;
	s->current = -1;
	for (size_t i = 0; i < n; i++) {
		phase_view_fill(&s->phases[i], &rows[i], running);
		if (!s->phases[i].done)
			s->current = (long)i;
	}
	/* Between phases and after the run: the last phase that ran. */
	if (s->current < 0 && n > 0)
		s->current = (long)n - 1;
	db_phase_rows_free(rows, n);

	for (size_t i = 0; i < n; i++) {
		struct phase_view *v = &s->phases[i];
		const struct phase_figures *cached = figures_cached(src, v->id);
		struct phase_figures f;
		bool current = (long)i == s->current;

		if (cached != NULL && !current) {
			phase_view_set(v, cached);
			continue;
		}
		if (phase_figures_read(src, v->id, &f, current ? s : NULL) < 0)
			return -1;
		phase_view_set(v, &f);
		if (v->done && cached == NULL) {
			src->done = xreallocarray(src->done, src->ndone + 1, sizeof *src->done);
			src->done[src->ndone++] = f;
		}
	}
	ratios_fill(s, src);
	return 0;
}

static uint64_t delta(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

enum load_figure { FIGURE_BYTES, FIGURE_OPS, FIGURE_CYCLES };

/* The figure a load's throughput shows: MiB/s for a loader that moves bytes,
 * else its own operations, else its cycles. A load the run did not record
 * gets the counter that moved, named generically. */
static enum load_figure load_figure(const struct load_info *info, const struct loader_sample *a)
{
	if (info != NULL) {
		if (info->reports_bytes)
			return FIGURE_BYTES;
		return info->ops_unit != NULL ? FIGURE_OPS : FIGURE_CYCLES;
	}
	if (a->bytes > 0)
		return FIGURE_BYTES;
	return a->ops > 0 ? FIGURE_OPS : FIGURE_CYCLES;
}

static char *load_unit(enum load_figure fig, const struct load_info *info)
{
	switch (fig) {
	case FIGURE_BYTES: return xstrdup("MiB/s");
	case FIGURE_OPS: return xasprintf("%s/s", info != NULL ? info->ops_unit : "ops");
	default: return xasprintf("%s/s", info != NULL ? info->cycle_unit : "cycles");
	}
}

/* State, throughput and CPU of one load from its newest row a and the one
 * before it, b (NULL when there is only one). */
static void load_view_fill(struct load_view *lv, const struct load_info *info,
			   const struct loader_sample *a, const struct loader_sample *b,
			   bool phase_done)
{
	enum load_figure fig = load_figure(info, a);

	lv->procs = a->procs;
	lv->restarts = a->restarts;
	lv->errors = a->errors;
	lv->stalled = a->stalled;
	if (phase_done || !a->running)
		lv->state = LOAD_STOPPED;
	else
		lv->state = a->stalled ? LOAD_STALLED : LOAD_RUNNING;
	free(lv->unit);
	lv->unit = load_unit(fig, info);
	if (b == NULL || a->t <= b->t)
		return;
	double dt = a->t - b->t;
	if (fig == FIGURE_BYTES)
		lv->rate = (double)delta(a->bytes, b->bytes) / dt / (1024.0 * 1024.0);
	else if (fig == FIGURE_OPS)
		lv->rate = (double)delta(a->ops, b->ops) / dt;
	else
		lv->rate = (double)delta(a->cycles, b->cycles) / dt;
	if (!isnan(a->cpu_ms) && !isnan(b->cpu_ms))
		lv->cpu_pct = fmax(a->cpu_ms - b->cpu_ms, 0) / dt / 10.0;
}

static int loads_read(struct source *src, struct snapshot *s)
{
	const struct phase_view *ph = snapshot_phase(s);
	struct loader_sample *rows;
	size_t n;
	char *names, *name, *save = NULL;

	if (ph == NULL)
		return 0;
	if (!src->load_info_read) {
		if (db_loads_list(src->db, src->run_id, &src->load_info, &src->nload_info) < 0)
			return -1;
		src->load_info_read = true;
	}
	if (db_loader_samples_latest(src->db, ph->id, 2, &rows, &n) < 0)
		return -1;
	names = xstrdup(ph->loads);
	for (name = strtok_r(names, " \t,", &save); name != NULL;
	     name = strtok_r(NULL, " \t,", &save)) {
		struct load_view *lv;
		const struct loader_sample *a = NULL, *b = NULL;
		const struct load_info *info = NULL;

		s->loads = xreallocarray(s->loads, s->nloads + 1, sizeof *s->loads);
		lv = &s->loads[s->nloads++];
		memset(lv, 0, sizeof *lv);
		lv->name = xstrdup(name);
		for (size_t i = 0; i < src->nload_info && info == NULL; i++)
			if (strcmp(src->load_info[i].name, name) == 0)
				info = &src->load_info[i];
		lv->type = xstrdup(info != NULL ? info->type : "");
		lv->state = ph->done ? LOAD_STOPPED : LOAD_STARTING;
		/* Known before the first counters when the run recorded it. */
		lv->unit = info != NULL ? load_unit(load_figure(info, NULL), info) : xstrdup("");
		lv->rate = NAN;
		lv->cpu_pct = NAN;
		/* Rows come newest first within each load. */
		for (size_t i = 0; i < n; i++) {
			if (strcmp(rows[i].load, name) != 0)
				continue;
			if (a == NULL)
				a = &rows[i];
			else if (b == NULL)
				b = &rows[i];
		}
		if (a != NULL)
			load_view_fill(lv, info, a, b, ph->done);
		if (a != NULL && a->t > s->last_data)
			s->last_data = a->t;
	}
	free(names);
	db_loader_samples_free(rows, n);
	return 0;
}

/* One second of a histogram probe: into the phase's, and its p99 into the
 * history. */
static int probe_second(void *arg, const struct hist_record *h)
{
	struct probe_line *pl = arg;

	hist_merge(pl->hist_acc, h->hist);
	if (pl->nrecent == RECENT_MAX) {
		memmove(pl->recent, pl->recent + 1, (RECENT_MAX - 1) * sizeof *pl->recent);
		pl->nrecent--;
	}
	pl->recent_failed[pl->nrecent] = false;
	pl->recent[pl->nrecent++] = hist_percentile(h->hist, 99) / 1e6;
	return 0;
}

static int probe_line_read(struct source *src, int64_t phase_id, const struct probe_info *pi,
			   struct probe_line *pl)
{
	struct sample *rows;
	size_t n, first;
	double *v;

	pl->name = xstrdup(pi->name);
	pl->type = xstrdup(pi->type);
	pl->units = xstrdup(pi->histogram || pi->units == NULL ? "ms" : pi->units);
	pl->histogram = pi->histogram;
	pl->last_ms = pl->p50 = pl->p99 = pl->max = NAN;
	if (pi->histogram) {
		pl->hist_acc = xcalloc(1, sizeof *pl->hist_acc);
		if (db_hists_foreach(src->db, 0, phase_id, pi->id, probe_second, pl) < 0) {
			free(pl->hist_acc);
			return -1;
		}
		pl->n = pl->hist_acc->count;
		if (pl->n > 0) {
			pl->p50 = hist_percentile(pl->hist_acc, 50) / 1e6;
			pl->p99 = hist_percentile(pl->hist_acc, 99) / 1e6;
			pl->max = (double)pl->hist_acc->max_ns / 1e6;
		}
		free(pl->hist_acc);
		pl->hist_acc = NULL;
		return 0;
	}
	if (db_probe_samples_list(src->db, phase_id, pi->id, &rows, &n) < 0)
		return -1;
	v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		if (rows[i].failed)
			pl->failed++;
		else
			v[pl->n++] = sample_figure(&rows[i]);
	}
	if (n > 0)
		pl->last_ms = rows[n - 1].failed ? NAN : sample_figure(&rows[n - 1]);
	first = n > RECENT_MAX ? n - RECENT_MAX : 0;
	for (size_t i = first; i < n; i++) {
		pl->recent[pl->nrecent] = sample_figure(&rows[i]);
		pl->recent_failed[pl->nrecent++] = rows[i].failed;
	}
	if (pl->n > 0) {
		struct summary sum;

		summarize(v, pl->n, &sum);
		pl->p50 = sum.median;
		pl->p99 = sum.p99;
		pl->max = sum.max;
	}
	free(v);
	free(rows);
	return 0;
}

/* Does the current phase run the probe NAME? Its stored profile says;
 * without one, every probe is shown. */
static bool phase_runs(const struct source *src, const char *phase, const char *probe)
{
	const struct profile *p = &src->profile;
	int i;

	if (src->profile_state != PROFILE_OK || (i = profile_probe_index(p, probe)) < 0)
		return true;
	for (size_t k = 0; k < p->nphases; k++)
		if (strcmp(p->phases[k].name, phase) == 0)
			return profile_phase_runs_probe(p, &p->phases[k], (size_t)i);
	return true;
}

/* The current phase's probes other than the job. */
static int probes_read(struct source *src, struct snapshot *s)
{
	struct probe_info *probes;
	size_t n;
	int rc = 0;

	if (s->current < 0)
		return 0;
	if (db_probes_list(src->db, src->run_id, &probes, &n) < 0)
		return -1;
	s->probes = xcalloc(n ? n : 1, sizeof *s->probes);
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (strcmp(probes[i].type, "job") == 0 ||
		    !phase_runs(src, s->phases[s->current].name, probes[i].name))
			continue;
		rc = probe_line_read(src, s->phases[s->current].id, &probes[i],
				     &s->probes[s->nprobes++]);
	}
	db_probes_free(probes, n);
	return rc;
}

enum source_result source_read(struct source *src, struct snapshot *out)
{
	int64_t version = db_data_version(src->db);
	int64_t id;
	struct snapshot s = { .current = -1 };
	bool running;
	int rc;

	if (version < 0)
		return SOURCE_ERROR;
	/* A finished run shown from an unchanged database looks the same. */
	if (src->settled && version == src->data_version)
		return SOURCE_OK;
	src->data_version = version;

	id = src->want ? src->want : db_latest_run(src->db);
	if (id < 0)
		return SOURCE_ERROR;
	if (id == 0)
		return SOURCE_NO_RUN;
	if (id != src->run_id) {
		source_forget_run(src);
		src->run_id = id;
	}
	rc = db_run_get(src->db, id, &s.run);
	if (rc < 0)
		return SOURCE_ERROR;
	if (rc > 0)
		return SOURCE_RUN_NOT_FOUND;
	if (src->profile_state == PROFILE_UNREAD)
		src->profile_state = profile_parse_text(s.run.profile_path, s.run.profile_text,
							&src->profile, NULL, NULL) == 0
					     ? PROFILE_OK
					     : PROFILE_BAD;
	s.phases_per_round = src->profile_state == PROFILE_OK ? src->profile.nphases : 0;
	running = snapshot_running(&s);

	if (phases_read(src, &s, running) < 0 || loads_read(src, &s) < 0 ||
	    probes_read(src, &s) < 0)
		goto fail;
	rc = db_sys_sample_latest(src->db, id, &s.sys);
	if (rc < 0)
		goto fail;
	s.have_sys = rc == 0;
	if (db_events_list(src->db, id, EVENTS_MAX, &s.events, &s.nevents) < 0)
		goto fail;

	s.last_data = fmax(s.last_data, s.run.started_at);
	if (s.have_sys)
		s.last_data = fmax(s.last_data, s.sys.t);
	for (size_t i = 0; i < s.nphases; i++)
		s.last_data = fmax(s.last_data, s.phases[i].started_at);
	if (running)
		s.now = wall_now();
	else
		s.now = s.run.ended_at > 0 ? s.run.ended_at : s.last_data;
	src->settled = !running;

	snapshot_free(out);
	*out = s;
	return SOURCE_OK;
fail:
	snapshot_free(&s);
	return SOURCE_ERROR;
}
