// SPDX-License-Identifier: GPL-2.0-or-later
#include "report_html.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "figures.h"
#include "gnuplot.h"
#include "html.h"
#include "log.h"
#include "profile.h"
#include "ramp.h"
#include "report.h"
#include "report_study.h"
#include "table.h"
#include "timeutil.h"
#include "xalloc.h"

#define EVENTS_SHOWN 200

int html_figure(FILE *out, const char *script, size_t len, int width, int height,
		const char *prefix, const char *caption)
{
	char *svg, *err;
	size_t svg_len;

	html_raw(out, "<figure id=\"%s\">\n", prefix);
	if (gnuplot_render(script, len, PLOT_SVG, width, height, &svg, &svg_len, &err) < 0) {
		log_warn("figure %s left out: %s", prefix, err);
		html_raw(out, "<p class=\"missing\">This figure could not be drawn: ");
		html_text(out, err);
		html_raw(out, "</p>\n</figure>\n");
		free(err);
		return -1;
	}
	html_inline_svg(out, svg, svg_len, prefix);
	free(svg);
	html_raw(out, "<figcaption>");
	html_text(out, caption);
	html_raw(out, "</figcaption>\n</figure>\n");
	return 0;
}

/* A cell: the string escaped, then freed (the table.h formatters' strings). */
static void cell(FILE *out, char *s, const char *cls)
{
	html_raw(out, cls ? "<td class=\"%s\">" : "<td>", cls);
	html_text(out, s);
	html_raw(out, "</td>");
	free(s);
}

static void fact(FILE *out, const char *name, const char *value)
{
	html_raw(out, "<dt>%s</dt><dd>", name);
	html_text(out, value);
	html_raw(out, "</dd>\n");
}

static void write_header(FILE *out, const struct run_row *r)
{
	char start[64], dur[32], *s;
	time_t secs = (time_t)r->started_at;
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(start, sizeof start, "%Y-%m-%d %H:%M:%S %z", &tm);
	format_ms((int64_t)llround(((r->ended_at > 0 ? r->ended_at : wall_now()) - r->started_at) *
				   1000),
		  dur, sizeof dur);
	html_raw(out, "<h1>loadd run %lld: ", (long long)r->id);
	html_text(out, r->profile_name);
	html_raw(out, " on ");
	html_text(out, r->host);
	html_raw(out, "</h1>\n<dl class=\"facts\">\n");
	fact(out, "Status", r->status);
	s = r->profile_path[0] ? xasprintf("%s (%s)", r->profile_name, r->profile_path)
			       : xstrdup(r->profile_name);
	fact(out, "Profile", s);
	free(s);
	fact(out, "Host", r->host);
	fact(out, "Kernel", r->kernel);
	s = xasprintf("%s, %d core%s", r->cpu_model[0] ? r->cpu_model : "unknown", r->cores,
		      r->cores == 1 ? "" : "s");
	fact(out, "CPU", s);
	free(s);
	s = xasprintf("%.1f GiB, swap %.1f GiB", (double)r->ram_bytes / 1073741824.0,
		      (double)r->swap_bytes / 1073741824.0);
	fact(out, "RAM", s);
	free(s);
	fact(out, "Started", start);
	s = xasprintf("%s%s, %ld round%s", dur, r->ended_at > 0 ? "" : " so far", r->rounds,
		      r->rounds == 1 ? "" : "s");
	fact(out, "Duration", s);
	free(s);
	fact(out, "Tree", r->tree_fingerprint[0] ? r->tree_fingerprint : "-");
	if (r->version[0] != '\0')
		fact(out, "loadd", r->version);
	html_raw(out, "</dl>\n");
}

static const char *phase_class(const struct run_report *rep, const struct report_phase *p)
{
	if (strncmp(p->note, "INVALID", 7) == 0)
		return "invalid";
	/* a load that fell short of what it should have done */
	if (p->weak[0] != '\0')
		return "weak";
	if (p->name == rep->baseline)
		return "baseline";
	return "";
}

static void write_phases(FILE *out, const struct run_report *rep)
{
	static const char *const head[] = {
		"Phase", "Time", "CPU%", "Loads", "LCPU%",  "Ratio",  "n",      "median",
		"p95",   "p99",  "max",  "sd",    "95% CI", "missed", "failed", "Note",
	};
	size_t i;

	html_raw(out, "<h2>Phases</h2>\n<div class=\"wide\"><table class=\"phases\">\n<tr>");
	for (i = 0; i < sizeof head / sizeof head[0]; i++)
		html_raw(out, "<th%s>%s</th>", i == 0 || i == 15 ? " class=\"l\"" : "", head[i]);
	html_raw(out, "</tr>\n");
	for (i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];
		const struct summary *s = &p->time;
		char *lo = fmt_ms(s->ci_low), *hi = fmt_ms(s->ci_high);

		html_raw(out, "<tr class=\"%s\">", phase_class(rep, p));
		cell(out, xstrdup(p->name), "l");
		cell(out, fmt_ms(s->median), NULL);
		cell(out, fmt_fixed(p->cpu_pct, 1), NULL);
		cell(out, fmt_count(p->load_cycles), NULL);
		cell(out, fmt_fixed(p->lcpu_pct, 1), NULL);
		cell(out, fmt_fixed(p->ratio, 2), NULL);
		cell(out, xasprintf("%zu", s->n), NULL);
		cell(out, fmt_ms(s->median), NULL);
		cell(out, fmt_ms(s->p95), NULL);
		cell(out, fmt_ms(s->p99), NULL);
		cell(out, fmt_ms(s->max), NULL);
		cell(out, fmt_ms(s->sd), NULL);
		cell(out, s->n ? xasprintf("%s..%s", lo, hi) : xstrdup("-"), NULL);
		cell(out, xasprintf("%lld", (long long)p->missed), NULL);
		cell(out, xasprintf("%lld", (long long)p->failed), NULL);
		cell(out, xstrdup(p->note),
		     strcmp(phase_class(rep, p), "weak") == 0 ? "l weakmark"
		     : p->note[0]                             ? "l mark"
							      : "l");
		html_raw(out, "</tr>\n");
		free(lo);
		free(hi);
	}
	html_raw(out, "</table></div>\n<p>");
	if (rep->baseline == NULL) {
		html_raw(out, "No phase ran without loads: no Ratio.");
	} else {
		html_raw(out,
			 "Times: the job's wall time in ms (Time = median); Ratio = median / ");
		html_text(out, rep->baseline);
		html_raw(
			out,
			"'s median (the baseline, blue). Loads: load cycles in the probe "
			"window; LCPU%%: the loads' CPU time / the window's time. Red rows are "
			"invalid: a load failed, so their figures are left out; yellow rows are weak: a load fell short of its "
			"expectation, so a small slowdown there proves little.");
	}
	html_raw(out, "</p>\n");
}

static char *count_cell(const struct report_probe *rp, uint64_t n)
{
	return rp->histogram ? xasprintf("%llu", (unsigned long long)n) : xstrdup("-");
}

/* One row per phase and probe that ran there, when the run has more than
 * its job (the phase table is the job's); as the text report has it. */
static void write_probes(FILE *out, const struct run_report *rep)
{
	static const char *const head[] = {
		"Phase",     "Probe", "Type",   "Unit",   "n",       "median",
		"p95",       "p99",   "p99.9",  "max",    "&gt;1ms", "&gt;16.7ms",
		"&gt;100ms", "Ratio", "missed", "failed",
	};

	if (rep->nprobes < 2 && (rep->nprobes == 0 || rep->nphases == 0 ||
				 strcmp(rep->phases[0].probe[0].type, "job") == 0))
		return;
	html_raw(out, "<h2>Probes</h2>\n<div class=\"wide\"><table>\n<tr>");
	for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
		html_raw(out, "<th%s>%s</th>", i < 4 ? " class=\"l\"" : "", head[i]);
	html_raw(out, "</tr>\n");
	for (size_t i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];
		bool first = true;

		for (size_t k = 0; k < p->nprobe; k++) {
			const struct report_probe *rp = &p->probe[k];
			const struct summary *sm = &rp->time;

			if (!rp->ran)
				continue;
			html_raw(out, "<tr class=\"%s\">", phase_class(rep, p));
			cell(out, xstrdup(first ? p->name : ""), "l");
			cell(out, xstrdup(rp->name), "l");
			cell(out, xstrdup(rp->type), "l");
			cell(out, xstrdup(rp->units), "l");
			if (rp->histogram) {
				cell(out, xasprintf("%llu", (unsigned long long)rp->count), NULL);
				cell(out, fmt_ms(rp->p50), NULL);
				cell(out, xstrdup("-"), NULL);
				cell(out, fmt_ms(rp->p99), NULL);
				cell(out, fmt_ms(rp->p999), NULL);
				cell(out, fmt_ms(rp->max), NULL);
			} else {
				cell(out, xasprintf("%zu", sm->n), NULL);
				cell(out, fmt_ms(sm->median), NULL);
				cell(out, fmt_ms(sm->p95), NULL);
				cell(out, fmt_ms(sm->p99), NULL);
				cell(out, xstrdup("-"), NULL);
				cell(out, fmt_ms(sm->max), NULL);
			}
			cell(out, count_cell(rp, rp->over_1ms), NULL);
			cell(out, count_cell(rp, rp->over_16ms), NULL);
			cell(out, count_cell(rp, rp->over_100ms), NULL);
			cell(out, fmt_fixed(rp->ratio, 2), NULL);
			cell(out,
			     rp->histogram ? xstrdup("-")
					   : xasprintf("%lld", (long long)rp->missed),
			     NULL);
			cell(out,
			     rp->histogram ? xstrdup("-")
					   : xasprintf("%lld", (long long)rp->failed),
			     NULL);
			html_raw(out, "</tr>\n");
			first = false;
		}
	}
	html_raw(
		out,
		"</table></div>\n<p>Valid rounds; each probe in its Unit; a histogram probe's median "
		"is its p50. Ratio = median / the baseline's median of the same probe "
		"(histogram probes: p99 / p99); &gt;1ms, &gt;16.7ms, &gt;100ms: wake-ups "
		"later than that.</p>\n");
}

static char *rate_cell(double v, const char *unit)
{
	char *n = fmt_count(v), *s;

	if (strcmp(n, "-") == 0 || unit == NULL)
		return n;
	s = xasprintf("%s %s/s", n, unit);
	free(n);
	return s;
}

static void write_loads(FILE *out, const struct run_report *rep)
{
	size_t i, j, n = 0;

	for (i = 0; i < rep->nphases; i++)
		n += rep->phases[i].nload;
	if (n == 0)
		return;
	html_raw(out, "<h2>Loads over the probe window</h2>\n<table>\n<tr><th class=\"l\">Phase"
		      "</th><th class=\"l\">Load</th><th class=\"l\">Type</th><th>Cycles</th>"
		      "<th>Ops</th><th>MiB/s</th><th>LCPU%%</th><th>errors</th><th>restarts</th>"
		      "</tr>\n");
	for (i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];

		for (j = 0; j < p->nload; j++) {
			const struct report_load *l = &p->load[j];
			bool known = l->cycle_unit != NULL;

			html_raw(out, "<tr>");
			cell(out, xstrdup(j == 0 ? p->name : ""), "l");
			cell(out, xstrdup(l->name), "l");
			cell(out, xstrdup(known ? l->type : "-"), "l");
			cell(out, rate_cell(l->cycles_per_s, known ? l->cycle_unit : "cycles"),
			     NULL);
			cell(out, rate_cell(l->ops_per_s, known ? l->ops_unit : "ops"), NULL);
			cell(out, fmt_fixed(l->mib_per_s, 1), NULL);
			cell(out, fmt_fixed(l->lcpu_pct, 1), NULL);
			cell(out,
			     l->windows ? xasprintf("%llu", (unsigned long long)l->errors)
					: xstrdup("-"),
			     NULL);
			cell(out, l->windows ? xasprintf("%d", l->restarts) : xstrdup("-"), NULL);
			html_raw(out, "</tr>\n");
		}
	}
	html_raw(out, "</table>\n");
}

static void write_pressure(FILE *out, const struct run_report *rep)
{
	html_raw(out, "<h2>Pressure stall</h2>\n<p>PSI some, %% of the time, mean over the probe "
		      "window.</p>\n<table>\n<tr><th class=\"l\">Phase</th><th>cpu</th>"
		      "<th>memory</th><th>io</th></tr>\n");
	for (size_t i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];

		html_raw(out, "<tr>");
		cell(out, xstrdup(p->name), "l");
		cell(out, fmt_fixed(p->psi_cpu, 2), NULL);
		cell(out, fmt_fixed(p->psi_mem, 2), NULL);
		cell(out, fmt_fixed(p->psi_io, 2), NULL);
		html_raw(out, "</tr>\n");
	}
	html_raw(out, "</table>\n");
}

static void write_one(FILE *out, const struct run_figures *rf, enum figure_kind k, size_t probe,
		      const char *prefix)
{
	const struct figure_def *d = &figure_defs[k];
	char *script;
	size_t len;

	if (figure_script(rf, k, probe, &script, &len) != 0)
		return;
	html_figure(out, script, len, d->width, d->height, prefix, d->caption);
	free(script);
}

/* The phase row of a knee search's step: NAME@VALUE; NULL when it did not run. */
static const struct report_phase *ramp_step(const struct run_report *rep,
					    const struct phase_def *ph, const char *value)
{
	char *name = xasprintf("%s@%s", ph->name, value);
	const struct report_phase *found = NULL;

	for (size_t i = 0; i < rep->nphases && found == NULL; i++)
		if (strcmp(rep->phases[i].name, name) == 0)
			found = &rep->phases[i];
	free(name);
	return found;
}

/* One knee search: its steps that ran (phases NAME@VALUE) and the knee, the
 * last step before the first that meets until (as the text report finds it). */
static void write_ramp(FILE *out, const struct run_report *rep, const struct phase_def *ph,
		       size_t nth)
{
	const char *values[RAMP_MAX_STEPS];
	double median[RAMP_MAX_STEPS], p95[RAMP_MAX_STEPS];
	size_t n = 0, first_bad = SIZE_MAX;
	char *script, *prefix;
	size_t len;

	for (size_t s = 0; s < ph->ramp.nsteps && s < RAMP_MAX_STEPS; s++) {
		const struct report_phase *p = ramp_step(rep, ph, ph->ramp.values[s]);

		if (p == NULL)
			break;
		if (first_bad == SIZE_MAX && ph->until.nterms > 0 &&
		    until_met(&ph->until, p->time.median, p->time.p95, p->ratio))
			first_bad = n;
		values[n] = ph->ramp.values[s];
		median[n] = p->time.median;
		p95[n++] = p->time.p95;
	}
	if (figure_ramp_script(ph->name, ph->ramp.key, values, median, p95, n,
			       first_bad > 0 && first_bad < n ? (long)first_bad - 1 : -1, &script,
			       &len) != 0)
		return;
	prefix = xasprintf("fig-knee-%zu-", nth);
	html_figure(out, script, len, 900, 440, prefix,
		    "The job's median and p95 at each step of the knee search; the dashed line "
		    "marks the knee, the last step before the one that met the search's until "
		    "condition (none when no step met it, or the first did).");
	free(prefix);
	free(script);
}

/* Every knee search of the run's profile. */
static void write_ramps(FILE *out, const struct run_report *rep)
{
	struct profile prof;
	size_t nth = 0;

	if (profile_parse_text(rep->run.profile_path, rep->run.profile_text, &prof, NULL, NULL) !=
	    0)
		return;
	for (size_t i = 0; i < prof.nphases; i++) {
		if (prof.phases[i].ramp.nsteps == 0)
			continue;
		if (nth == 0)
			html_raw(out, "<h2>Knee searches</h2>\n");
		write_ramp(out, rep, &prof.phases[i], nth++);
	}
	profile_free(&prof);
}

/* The timeline of the run, then each probe's distributions. */
static void write_figures(FILE *out, struct db *db, const struct run_report *rep)
{
	struct run_figures *rf = run_figures_load(db, rep);

	html_raw(out, "<h2>The run over time</h2>\n");
	if (rf == NULL) {
		html_raw(out, "<p class=\"missing\">The figures' data could not be read.</p>\n");
		return;
	}
	write_one(out, rf, FIGURE_TIMELINE, 0, "fig-timeline-");
	write_ramps(out, rep);
	for (size_t p = 0; p < run_figures_nprobes(rf); p++) {
		html_raw(out, "<h2>Probe ");
		html_text(out, run_figures_probe(rf, p));
		html_raw(out, ": its times per phase</h2>\n");
		for (int k = 0; k < FIGURE_COUNT; k++) {
			char *prefix;

			if (k == FIGURE_TIMELINE)
				continue;
			prefix = xasprintf("fig-%s-%zu-", figure_defs[k].name, p);
			write_one(out, rf, k, p, prefix);
			free(prefix);
		}
	}
	run_figures_free(rf);
}

static void write_events(FILE *out, struct db *db, int64_t run_id)
{
	struct event *ev;
	size_t n, i;

	if (db_events_list(db, run_id, EVENTS_SHOWN, &ev, &n) < 0 || n == 0)
		return;
	html_raw(out, "<h2>Events</h2>\n<table>\n<tr><th class=\"l\">Time</th><th class=\"l\">"
		      "Load</th><th class=\"l\">Kind</th><th class=\"l\">Message</th></tr>\n");
	/* oldest first, as they happened */
	for (i = n; i-- > 0;) {
		char when[64];

		format_wall(ev[i].t, when, sizeof when);
		html_raw(out, "<tr>");
		cell(out, xstrdup(when), "l");
		cell(out, xstrdup(ev[i].load ? ev[i].load : "-"), "l");
		cell(out, xstrdup(ev[i].kind), "l");
		cell(out, xstrdup(ev[i].message ? ev[i].message : ""), "l");
		html_raw(out, "</tr>\n");
	}
	html_raw(out, "</table>\n");
	db_events_free(ev, n);
}

int report_html(struct db *db, int64_t run_id, FILE *out)
{
	struct run_report rep;
	char *title;
	int rc = report_build(db, run_id, &rep);

	if (rc != 0)
		return rc;
	title = xasprintf("loadd run %lld: %s on %s", (long long)rep.run.id, rep.run.profile_name,
			  rep.run.host);
	html_page_begin(out, title);
	free(title);
	write_header(out, &rep.run);
	if (rep.nphases == 0) {
		html_raw(out, "<p>No phase has started yet.</p>\n");
	} else {
		write_phases(out, &rep);
		write_probes(out, &rep);
		report_study_html(db, &rep, out);
		write_figures(out, db, &rep);
		write_loads(out, &rep);
		write_pressure(out, &rep);
	}
	write_events(out, db, run_id);
	html_raw(out, "<h2>Profile</h2>\n<details><summary>the profile as the run read it"
		      "</summary>\n<pre>");
	html_text(out, rep.run.profile_text);
	html_raw(out, "</pre></details>\n");
	html_page_end(out);
	report_free(&rep);
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}
