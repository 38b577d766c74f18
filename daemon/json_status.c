// SPDX-License-Identifier: GPL-2.0-or-later
/* The JSON documents of the control API, built with jansson. */
#include "api_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "loader.h"
#include "xalloc.h"

static const char *const phase_state_names[] = {
	[PHASE_NONE] = "between phases",
	[PHASE_SETTLING] = "settling",
	[PHASE_PROBING] = "probing",
};

json_t *json_number_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* Text from outside (paths, names, uname) may not be UTF-8, which JSON
 * strings must be: such bytes become '?' rather than failing the document. */
static json_t *jstr(const char *s)
{
	json_t *j;
	char *copy;

	if (s == NULL)
		return json_null();
	j = json_string(s);
	if (j != NULL)
		return j;
	copy = xstrdup(s);
	for (char *c = copy; *c != '\0'; c++)
		if ((unsigned char)*c >= 0x80 || (unsigned char)*c < 0x20)
			*c = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

/* jansson keeps 64-bit integers; a counter never comes near 2^63. */
static json_t *json_u64(uint64_t x)
{
	return json_integer((json_int_t)x);
}

json_t *error_json(const char *message)
{
	return json_pack("{s:o}", "error", jstr(message));
}

static json_t *run_json(const struct api_view *v)
{
	const struct profile *p = v->profile;

	return json_pack("{s:I, s:o, s:o, s:s, s:o, s:o, s:o, s:I, s:I}", "id",
			 (json_int_t)v->run_id, "profile", jstr(p->name), "profile_path",
			 jstr(p->path), "status", v->stopping ? "stopping" : "running",
			 "started_at", json_number_or_null(v->started_at), "elapsed_s",
			 json_number_or_null(v->elapsed_s), "planned_s",
			 json_number_or_null(profile_total_ms(p) / 1000.0), "round",
			 (json_int_t)v->round, "rounds", (json_int_t)p->run.rounds);
}

static json_t *phase_json(const struct api_view *v)
{
	const struct profile *p = v->profile;
	const struct phase_def *ph;
	json_t *loads;
	int64_t settle;

	if (v->state == PHASE_NONE || v->phase_index >= p->nphases)
		return json_null();
	ph = &p->phases[v->phase_index];
	settle = ph->settle_ms >= 0 ? ph->settle_ms : p->run.settle_ms;
	loads = json_array();
	for (size_t i = 0; i < ph->nloads; i++)
		json_array_append_new(loads, jstr(ph->loads[i]));
	return json_pack(
		"{s:I, s:I, s:o, s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:I}", "index",
		(json_int_t)v->phase_index, "count", (json_int_t)p->nphases, "name", jstr(ph->name),
		"id", (json_int_t)v->phase_id, "state", phase_state_names[v->state], "cache",
		ph->cache == CACHE_COLD ? "cold" : "warm", "loads", loads, "started_at",
		json_number_or_null(v->phase_started_at), "elapsed_s",
		json_number_or_null(v->phase_elapsed_s), "settle_s", json_real(settle / 1000.0),
		"duration_s", json_real(ph->duration_ms / 1000.0), "jobs",
		(json_int_t)v->phase_jobs, "failed", (json_int_t)v->phase_failed);
}

static json_t *load_json(const struct load_view *lv)
{
	const struct load_status *st = &lv->st;
	json_t *o = json_pack("{s:o, s:o, s:i, s:i, s:i, s:b, s:o, s:o, s:o, s:o, s:o}", "name",
			      jstr(st->name), "type", jstr(st->type), "pgid", st->pgid, "procs",
			      st->procs, "restarts", st->restarts, "stalled", st->stalled, "cycles",
			      json_u64(st->cycles), "bytes", json_u64(st->bytes), "ops",
			      json_u64(st->ops), "errors", json_u64(st->errors), "cpu_s",
			      json_number_or_null(st->cpu_ms / 1000.0));
	const struct loader_ops *ops = loader_find(st->type);

	json_object_set_new(o, "ramping", json_boolean(st->ramping));
	/* Units make the counters readable without the loader's source. */
	json_object_set_new(o, "cycle_unit", ops ? json_string(ops->cycle_unit) : json_null());
	json_object_set_new(o, "ops_unit",
			    ops && ops->ops_unit ? json_string(ops->ops_unit) : json_null());
	if (lv->has_rates) {
		json_object_set_new(o, "cycles_per_s", json_number_or_null(lv->cycles_per_s));
		json_object_set_new(o, "bytes_per_s", json_number_or_null(lv->bytes_per_s));
		json_object_set_new(o, "ops_per_s", json_number_or_null(lv->ops_per_s));
	} else {
		json_object_set_new(o, "cycles_per_s", json_null());
		json_object_set_new(o, "bytes_per_s", json_null());
		json_object_set_new(o, "ops_per_s", json_null());
	}
	return o;
}

static json_t *column_json(const struct column *c, const void *row)
{
	if (column_is_text(c))
		return jstr(column_text(c, row));
	if (c->type == COL_BOOL)
		return json_boolean(column_integer(c, row));
	if (column_is_integer(c))
		return json_integer((json_int_t)column_integer(c, row));
	return json_number_or_null(column_number(c, row));
}

/* Sets a dotted path ("psi.cpu.some") in obj, making the objects on the way. */
static void json_set_path(json_t *obj, const char *path, json_t *value)
{
	const char *dot;

	while ((dot = strchr(path, '.')) != NULL) {
		char *key = xstrndup(path, (size_t)(dot - path));
		json_t *next = json_object_get(obj, key);

		if (!json_is_object(next)) {
			next = json_object();
			json_object_set_new(obj, key, next);
		}
		free(key);
		obj = next;
		path = dot + 1;
	}
	json_object_set_new(obj, path, value);
}

/* Every figure of a record (records.c), at its JSON path or by its name. */
static json_t *record_json(enum record_id rec, const void *row)
{
	const struct record_type *rt = &record_types[rec];
	json_t *o = json_object();

	for (size_t i = 0; i < rt->ncolumns; i++) {
		const struct column *c = &rt->columns[i];

		if (!(c->flags & COLF_KEY))
			json_set_path(o, c->view && c->view->json ? c->view->json : c->name,
				      column_json(c, row));
	}
	return o;
}

/* Every probe over the current phase: its count, failures and percentiles
 * (ms) from its histogram. */
static json_t *probes_json(const struct api_view *v)
{
	json_t *a = json_array();

	for (size_t i = 0; i < v->nprobes; i++) {
		const struct probe_view *pv = &v->probes[i];
		const struct hist *h = pv->phase;

		json_array_append_new(
			a,
			json_pack("{s:o, s:o, s:o, s:b, s:I, s:I, s:o, s:o, s:o, s:o, s:I}", "name",
				  jstr(pv->name), "type", jstr(pv->type), "units", jstr(pv->units),
				  "histogram", pv->histogram, "n", (json_int_t)h->count, "failed",
				  (json_int_t)pv->phase_failed, "p50_ms",
				  json_number_or_null(hist_percentile(h, 50) / 1e6), "p99_ms",
				  json_number_or_null(hist_percentile(h, 99) / 1e6), "p999_ms",
				  json_number_or_null(hist_percentile(h, 99.9) / 1e6), "max_ms",
				  json_number_or_null(h->count ? (double)h->max_ns / 1e6 : NAN),
				  "over_16_7ms", (json_int_t)hist_count_above(h, 16700000)));
	}
	return a;
}

static json_t *system_json(const struct api_view *v)
{
	if (!v->has_sys)
		return json_null();
	return record_json(REC_SYS_SAMPLE, &v->sys);
}

/* The run's phases so far, every figure of the phase record (weak among them). */
static json_t *phases_json(const struct api_view *v)
{
	json_t *a = json_array();

	for (size_t i = 0; i < v->nphase_rows; i++)
		json_array_append_new(a, record_json(REC_PHASE, &v->phase_rows[i]));
	return a;
}

json_t *status_json(const struct api_view *v)
{
	json_t *loads = json_array(), *samples = json_array(), *doc;

	for (size_t i = 0; i < v->nloads; i++)
		json_array_append_new(loads, load_json(&v->loads[i]));
	for (size_t i = 0; i < v->nlatest; i++)
		json_array_append_new(samples, record_json(REC_SAMPLE, &v->latest[i]));
	doc = json_pack("{s:i, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "api",
			API_VERSION, "version", LOADD_VERSION, "pid", v->pid, "socket",
			jstr(v->socket_path), "metrics_listen", jstr(v->metrics_addr), "run",
			run_json(v), "phase", phase_json(v), "loads", loads, "samples", samples,
			"probes", probes_json(v), "system", system_json(v));
	json_object_set_new(doc, "phases", phases_json(v));
	return doc;
}

static json_t *run_row_json(const struct run_row *r)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:I}", "id",
			 (json_int_t)r->id, "status", jstr(r->status), "profile",
			 jstr(r->profile_name), "host", jstr(r->host), "kernel", jstr(r->kernel),
			 "version", jstr(r->version), "tree_fingerprint", jstr(r->tree_fingerprint),
			 "rounds", (json_int_t)r->rounds, "planned_s",
			 json_real(r->planned_ms / 1000.0), "started_at",
			 json_number_or_null(r->started_at), "ended_at",
			 r->ended_at > 0 ? json_real(r->ended_at) : json_null(), "samples",
			 (json_int_t)r->samples);
}

json_t *runs_json(const struct run_row *rows, size_t n)
{
	json_t *runs = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(runs, run_row_json(&rows[i]));
	return json_pack("{s:i, s:o}", "api", API_VERSION, "runs", runs);
}
