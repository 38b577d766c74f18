/* The JSON documents of the control API, built with jansson. */
#include "api_view.h"

#include <math.h>
#include <stdlib.h>

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

	return json_pack("{s:I, s:o, s:o, s:s, s:o, s:o, s:o, s:I, s:I}",
			 "id", (json_int_t)v->run_id,
			 "profile", jstr(p->name),
			 "profile_path", jstr(p->path),
			 "status", v->stopping ? "stopping" : "running",
			 "started_at", json_number_or_null(v->started_at),
			 "elapsed_s", json_number_or_null(v->elapsed_s),
			 "planned_s", json_number_or_null(profile_total_ms(p) / 1000.0),
			 "round", (json_int_t)v->round,
			 "rounds", (json_int_t)p->run.rounds);
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
	return json_pack("{s:I, s:I, s:o, s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:I}",
			 "index", (json_int_t)v->phase_index,
			 "count", (json_int_t)p->nphases,
			 "name", jstr(ph->name),
			 "id", (json_int_t)v->phase_id,
			 "state", phase_state_names[v->state],
			 "cache", ph->cache == CACHE_COLD ? "cold" : "warm",
			 "loads", loads,
			 "started_at", json_number_or_null(v->phase_started_at),
			 "elapsed_s", json_number_or_null(v->phase_elapsed_s),
			 "settle_s", json_real(settle / 1000.0),
			 "duration_s", json_real(ph->duration_ms / 1000.0),
			 "jobs", (json_int_t)v->phase_jobs,
			 "failed", (json_int_t)v->phase_failed);
}

static json_t *load_json(const struct load_view *lv)
{
	const struct load_status *st = &lv->st;
	json_t *o = json_pack("{s:o, s:o, s:i, s:i, s:i, s:b, s:o, s:o, s:o, s:o, s:o}",
			      "name", jstr(st->name),
			      "type", jstr(st->type),
			      "pgid", st->pgid,
			      "procs", st->procs,
			      "restarts", st->restarts,
			      "stalled", st->stalled,
			      "cycles", json_u64(st->cycles),
			      "bytes", json_u64(st->bytes),
			      "ops", json_u64(st->ops),
			      "errors", json_u64(st->errors),
			      "cpu_s", json_number_or_null(st->cpu_ms / 1000.0));
	const struct loader_ops *ops = loader_find(st->type);

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

static json_t *sample_json(const struct sample *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:i, s:b, s:I}",
			 "seq", (json_int_t)s->seq,
			 "started_at", json_number_or_null(s->started_at),
			 "wall_ms", json_number_or_null(s->wall_ms),
			 "user_ms", json_number_or_null(s->user_ms),
			 "sys_ms", json_number_or_null(s->sys_ms),
			 "cpu_pct", json_number_or_null(s->cpu_pct),
			 "nvcsw", (json_int_t)s->nvcsw,
			 "nivcsw", (json_int_t)s->nivcsw,
			 "exit_code", s->exit_code,
			 "failed", s->failed,
			 "missed", (json_int_t)s->missed);
}

static json_t *psi_json(double some, double full)
{
	return json_pack("{s:o, s:o}", "some", json_number_or_null(some), "full",
			 json_number_or_null(full));
}

static json_t *system_json(const struct api_view *v)
{
	const struct sys_sample *s = &v->sys;

	if (!v->has_sys)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o}}",
			 "t", json_number_or_null(s->t),
			 "cpu_busy_pct", json_number_or_null(s->cpu_busy_pct),
			 "ctxt_per_s", json_number_or_null(s->ctxt_per_s),
			 "load1", json_number_or_null(s->load1),
			 "mem_available", json_u64(s->mem_available),
			 "swap_used", json_u64(s->swap_used),
			 "psi",
			 "cpu", psi_json(s->psi_cpu_some, s->psi_cpu_full),
			 "memory", psi_json(s->psi_mem_some, s->psi_mem_full),
			 "io", psi_json(s->psi_io_some, s->psi_io_full));
}

json_t *status_json(const struct api_view *v)
{
	json_t *loads = json_array(), *samples = json_array();

	for (size_t i = 0; i < v->nloads; i++)
		json_array_append_new(loads, load_json(&v->loads[i]));
	for (size_t i = 0; i < v->nlatest; i++)
		json_array_append_new(samples, sample_json(&v->latest[i]));
	return json_pack("{s:i, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "api", API_VERSION,
			 "version", LOADD_VERSION,
			 "pid", v->pid,
			 "socket", jstr(v->socket_path),
			 "metrics_listen", jstr(v->metrics_addr),
			 "run", run_json(v),
			 "phase", phase_json(v),
			 "loads", loads,
			 "samples", samples,
			 "system", system_json(v));
}

static json_t *run_row_json(const struct run_row *r)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:I}",
			 "id", (json_int_t)r->id,
			 "status", jstr(r->status),
			 "profile", jstr(r->profile_name),
			 "host", jstr(r->host),
			 "kernel", jstr(r->kernel),
			 "version", jstr(r->version),
			 "tree_fingerprint", jstr(r->tree_fingerprint),
			 "rounds", (json_int_t)r->rounds,
			 "planned_s", json_real(r->planned_ms / 1000.0),
			 "started_at", json_number_or_null(r->started_at),
			 "ended_at", r->ended_at > 0 ? json_real(r->ended_at) : json_null(),
			 "samples", (json_int_t)r->samples);
}

json_t *runs_json(const struct run_row *rows, size_t n)
{
	json_t *runs = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(runs, run_row_json(&rows[i]));
	return json_pack("{s:i, s:o}", "api", API_VERSION, "runs", runs);
}
