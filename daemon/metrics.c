// SPDX-License-Identifier: GPL-2.0-or-later
/* GET /metrics: the Prometheus text exposition format, version 0.0.4. Every
 * family has HELP and TYPE lines; counters end in _total; label values are
 * escaped; a figure the machine does not have (PSI on old kernels) is left
 * out rather than sent as NaN. */
#include "api_view.h"

#include <math.h>
#include <string.h>

#include "csv.h"

void metrics_write_label_value(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; s != NULL && *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\\\", fp);
		else if (*s == '"')
			fputs("\\\"", fp);
		else if (*s == '\n')
			fputs("\\n", fp);
		else
			fputc(*s, fp);
	}
	fputc('"', fp);
}

void metrics_write_value(FILE *fp, double x)
{
	char buf[40];

	if (isnan(x))
		fputs("NaN", fp);
	else if (isinf(x))
		fputs(x > 0 ? "+Inf" : "-Inf", fp);
	else {
		csv_format_double(buf, sizeof buf, x);
		fputs(buf, fp);
	}
}

static void family(FILE *fp, const char *name, const char *type, const char *help)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample line; labels are name/value pairs ending with NULL. */
static void series(FILE *fp, const char *name, const char *const *labels, double value)
{
	fputs(name, fp);
	if (labels != NULL && labels[0] != NULL) {
		fputc('{', fp);
		for (size_t i = 0; labels[i] != NULL; i += 2) {
			fprintf(fp, "%s%s=", i ? "," : "", labels[i]);
			metrics_write_label_value(fp, labels[i + 1]);
		}
		fputc('}', fp);
	}
	fputc(' ', fp);
	metrics_write_value(fp, value);
	fputc('\n', fp);
}

static void write_run(FILE *fp, const struct api_view *v)
{
	const struct profile *p = v->profile;
	char run_id[24], round[24];

	snprintf(run_id, sizeof run_id, "%lld", (long long)v->run_id);
	family(fp, "loadd_run_info", "gauge", "The run loadd is doing (always 1).");
	series(fp, "loadd_run_info",
	       (const char *[]){ "run_id", run_id, "profile", p->name, "version", LOADD_VERSION,
				 NULL },
	       1);
	family(fp, "loadd_run_elapsed_seconds", "gauge", "Time since the run began.");
	series(fp, "loadd_run_elapsed_seconds", NULL, v->elapsed_s);
	family(fp, "loadd_run_planned_seconds", "gauge",
	       "Time the profile's plan takes: rounds x (settle + duration) of every phase.");
	series(fp, "loadd_run_planned_seconds", NULL, profile_total_ms(p) / 1000.0);

	family(fp, "loadd_phase_info", "gauge",
	       "The phase running now and its round (always 1; absent between phases).");
	if (v->state != PHASE_NONE && v->phase_index < p->nphases) {
		snprintf(round, sizeof round, "%ld", v->round);
		series(fp, "loadd_phase_info",
		       (const char *[]){ "phase", p->phases[v->phase_index].name, "round", round,
					 NULL },
		       1);
	}
	family(fp, "loadd_phase_probing", "gauge",
	       "1 while the probe is timing its job, 0 while loads settle or between phases.");
	series(fp, "loadd_phase_probing", NULL, v->state == PHASE_PROBING);
}

/* Every probe's figures, the job's too, each in one family only: a series
 * per probe and phase name, counted from its log-linear histogram (a value
 * sits in the bucket of its histogram bucket's midpoint: within 0.8%). */
static void write_probe_latency(FILE *fp, const struct api_view *v)
{
	const char *name = "loadd_probe_latency_seconds";

	family(fp, name, "histogram",
	       "Times of every probe (job, wake-up lateness, fsync, launch, fault), per probe and "
	       "phase, over the run.");
	for (size_t i = 0; i < v->nprobes; i++) {
		const struct probe_view *pv = &v->probes[i];

		for (size_t h = 0; h < v->nhists; h++) {
			const struct hist *hs = pv->by_phase[h];
			const char *phase = v->hists[h].phase;
			char le[40];

			for (size_t b = 0; b < LATENCY_BUCKETS; b++) {
				uint64_t ns = (uint64_t)(latency_bucket_bounds[b] * 1e9);

				csv_format_double(le, sizeof le, latency_bucket_bounds[b]);
				series(fp, "loadd_probe_latency_seconds_bucket",
				       (const char *[]){ "probe", pv->name, "type", pv->type,
							 "phase", phase, "le", le, NULL },
				       (double)(hs->count - hist_count_above(hs, ns)));
			}
			series(fp, "loadd_probe_latency_seconds_bucket",
			       (const char *[]){ "probe", pv->name, "type", pv->type, "phase",
						 phase, "le", "+Inf", NULL },
			       (double)hs->count);
			series(fp, "loadd_probe_latency_seconds_sum",
			       (const char *[]){ "probe", pv->name, "type", pv->type, "phase",
						 phase, NULL },
			       (double)hs->sum_ns / 1e9);
			series(fp, "loadd_probe_latency_seconds_count",
			       (const char *[]){ "probe", pv->name, "type", pv->type, "phase",
						 phase, NULL },
			       (double)hs->count);
		}
	}
	family(fp, "loadd_probe_operation_failures_total", "counter",
	       "Operations of every probe that failed, per probe and phase.");
	for (size_t i = 0; i < v->nprobes; i++)
		for (size_t h = 0; h < v->nhists; h++)
			series(fp, "loadd_probe_operation_failures_total",
			       (const char *[]){ "probe", v->probes[i].name, "type",
						 v->probes[i].type, "phase", v->hists[h].phase,
						 NULL },
			       (double)v->probes[i].failed_by_phase[h]);
	family(fp, "loadd_probe_missed_slots_total", "counter",
	       "Slots of every probe skipped because its operation before was still running, "
	       "per probe and phase.");
	for (size_t i = 0; i < v->nprobes; i++)
		for (size_t h = 0; h < v->nhists; h++)
			series(fp, "loadd_probe_missed_slots_total",
			       (const char *[]){ "probe", v->probes[i].name, "type",
						 v->probes[i].type, "phase", v->hists[h].phase,
						 NULL },
			       (double)v->probes[i].missed_by_phase[h]);
}

/* The loader counters, one family per figure, a series per running load. */
static void write_loads(FILE *fp, const struct api_view *v)
{
	static const struct {
		const char *name, *type, *help;
	} figures[] = {
		{ "loadd_load_cycles_total", "counter", "Whole load cycles, over the run." },
		{ "loadd_load_bytes_total", "counter", "Bytes a load moved, over the run." },
		{ "loadd_load_ops_total", "counter",
		  "A load's own operations (token passes, "
		  "transfers), over the run." },
		{ "loadd_load_errors_total", "counter",
		  "Failed operations that did not stop a load." },
		{ "loadd_load_restarts_total", "counter", "Times loadd restarted a load." },
		{ "loadd_load_cpu_seconds_total", "counter",
		  "CPU time of a load's live processes and their reaped children." },
		{ "loadd_load_processes", "gauge", "Processes alive in a load's process group." },
		{ "loadd_load_stalled", "gauge",
		  "1 when a load made no progress for its stall time." },
	};

	for (size_t f = 0; f < sizeof figures / sizeof figures[0]; f++) {
		family(fp, figures[f].name, figures[f].type, figures[f].help);
		for (size_t i = 0; i < v->nloads; i++) {
			const struct load_status *st = &v->loads[i].st;
			const double values[] = {
				(double)st->cycles, (double)st->bytes,    (double)st->ops,
				(double)st->errors, (double)st->restarts, st->cpu_ms / 1000.0,
				(double)st->procs,  (double)st->stalled,
			};
			series(fp, figures[f].name,
			       (const char *[]){ "load", st->name, "type", st->type, NULL },
			       values[f]);
		}
	}
}

/* Every figure of the system record (records.c) that has a metric: a family
 * is announced once, before its first series, even with no figures yet; a
 * figure the machine lacks (NaN) is left out. */
static void write_system(FILE *fp, const struct api_view *v)
{
	const struct record_type *rt = &record_types[REC_SYS_SAMPLE];
	const char *family_name = NULL;

	for (size_t i = 0; i < rt->ncolumns; i++) {
		const struct column *c = &rt->columns[i];
		const struct figure_view *fv = c->view;
		double x;

		if (fv == NULL || fv->metric == NULL)
			continue;
		if (family_name == NULL || strcmp(family_name, fv->metric) != 0)
			family(fp, fv->metric, fv->metric_type, fv->help);
		family_name = fv->metric;
		x = column_number(c, &v->sys) * (fv->scale != 0 ? fv->scale : 1);
		if (v->has_sys && isfinite(x))
			series(fp, fv->metric, fv->labels, x);
	}
}

/* Every figure of the phase record (records.c) that has a metric, a series
 * per finished phase and round; a text figure (weak) is 1 when set. */
static void write_phase_figures(FILE *fp, const struct api_view *v)
{
	const struct record_type *rt = &record_types[REC_PHASE];

	for (size_t i = 0; i < rt->ncolumns; i++) {
		const struct column *c = &rt->columns[i];

		if (c->view == NULL || c->view->metric == NULL)
			continue;
		family(fp, c->view->metric, c->view->metric_type, c->view->help);
		for (size_t p = 0; p < v->nphase_rows; p++) {
			const struct phase_row *row = &v->phase_rows[p];
			const char *text = column_text(c, row);
			char round[24];

			if (row->ended_at <= 0)
				continue;
			snprintf(round, sizeof round, "%ld", row->round);
			series(fp, c->view->metric,
			       (const char *[]){ "phase", row->name, "round", round, NULL },
			       column_is_text(c) ? (text != NULL && *text != '\0')
						 : column_number(c, row));
		}
	}
}

void metrics_write(FILE *fp, const struct api_view *v)
{
	write_run(fp, v);
	write_probe_latency(fp, v);
	write_loads(fp, v);
	write_phase_figures(fp, v);
	write_system(fp, v);
}
