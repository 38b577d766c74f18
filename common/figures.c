// SPDX-License-Identifier: GPL-2.0-or-later
#include "figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnuplot.h"
#include "hist.h"
#include "log.h"
#include "stats.h"
#include "xalloc.h"

const struct figure_def figure_defs[FIGURE_COUNT] = {
	[FIGURE_DISTRIBUTION] = { "distribution",
				  "The probe's times per phase (log y): the box spans the "
				  "quartiles, the whiskers p5 to p95, every sample is a dot (a "
				  "histogram probe has none); the baseline phase is blue and its "
				  "median the dashed line.",
				  900, 440 },
	[FIGURE_ECDF] = { "ecdf",
			  "Empirical distribution of the probe's times per phase (log x): the "
			  "fraction at or below a time; the baseline is black.",
			  900, 440 },
	[FIGURE_HISTOGRAM] = { "histogram",
			       "Histogram of the probe's times per phase, ten bins per decade "
			       "(log x), as the fraction of the phase's values.",
			       900, 440 },
	[FIGURE_TIMELINE] = { "timeline",
			      "The whole run: each probe's times (a histogram probe's p99 of "
			      "each second), pressure stall (PSI some) and each load's cycles "
			      "per second in its own unit, on one time axis; phases are the "
			      "bands (blue: the baseline, yellow: weak, red: invalid).",
			      1000, 760 },
};

/* Distinct on screen and in grey print; the baseline has its own. */
static const char *const palette[] = {
	"#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define NPALETTE (sizeof palette / sizeof palette[0])
#define BASELINE_COLOUR "#1f77b4"
#define INVALID_COLOUR "#bbbbbb"

int figure_find(const char *name)
{
	for (int i = 0; i < FIGURE_COUNT; i++)
		if (strcmp(figure_defs[i].name, name) == 0)
			return i;
	return -1;
}

/* A phase name with one probe's times in its valid rounds: sorted values
 * (ms) for a probe that keeps every sample, or a merged histogram. */
struct fig_phase {
	char *label;
	double *walls;
	size_t n;
	struct hist *hist; /* histogram probes; NULL otherwise */
	bool baseline;
	bool invalid;
	bool weak; /* a load fell short: the tick says so */
};

/* One probe of the run, with a row per phase name (rf->nphases of them). */
struct fig_probe {
	char *name;
	char *unit;   /* of its values: its samples' own, ms for a histogram */
	double to_ms; /* what turns one into ms, for the timeline */
	int64_t id;   /* its probes row (0: the job of a run without them) */
	bool histogram;
	struct fig_phase *phases;
};

/* One round of one phase on the time axis. */
struct fig_band {
	char *label;
	double start, end;
	bool baseline, invalid, weak;
};

/* A sample on the timeline: a job's time, or a histogram probe's p99 of
 * one second. */
struct fig_point {
	size_t probe;
	double t, v;
	bool failed;
};

struct fig_psi {
	double t, cpu, mem, io;
};

struct fig_rate {
	size_t load;
	double t, per_s;
};

struct run_figures {
	double t0;
	size_t nprobes, nphases, nbands, npoints, npsi, nloads, nrates;
	struct fig_probe *probes;
	struct fig_band *bands;
	struct fig_point *points;
	struct fig_psi *psi;
	char **loads;
	struct fig_rate *rates;
	size_t cap_points, cap_psi, cap_rates;
};

static void *grow(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	return xreallocarray(p, *cap, size);
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static size_t load_index(struct run_figures *rf, const char *name)
{
	size_t i;

	for (i = 0; i < rf->nloads; i++)
		if (strcmp(rf->loads[i], name) == 0)
			return i;
	rf->loads = xreallocarray(rf->loads, rf->nloads + 1, sizeof *rf->loads);
	rf->loads[rf->nloads] = xstrdup(name);
	return rf->nloads++;
}

/* Per load, its cycles per second between consecutive rows. */
static int add_rates(struct run_figures *rf, struct db *db, int64_t phase_id)
{
	struct loader_sample *rows;
	size_t n, i, j;

	if (db_loader_samples_list(db, phase_id, &rows, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n && strcmp(rows[j].load, rows[i].load) != 0; j++)
			;
		if (j == n || rows[j].t <= rows[i].t || rows[j].cycles < rows[i].cycles)
			continue;
		rf->rates = grow(rf->rates, rf->nrates, &rf->cap_rates, sizeof *rf->rates);
		rf->rates[rf->nrates++] = (struct fig_rate){
			.load = load_index(rf, rows[i].load),
			.t = rows[j].t,
			.per_s = (double)(rows[j].cycles - rows[i].cycles) /
				 (rows[j].t - rows[i].t),
		};
	}
	db_loader_samples_free(rows, n);
	return 0;
}

static void add_point(struct run_figures *rf, struct fig_point pt, double *last)
{
	rf->points = grow(rf->points, rf->npoints, &rf->cap_points, sizeof *rf->points);
	rf->points[rf->npoints++] = pt;
	if (pt.t > *last)
		*last = pt.t;
}

/* What a histogram second adds to the timeline: its p99. */
struct second_acc {
	struct run_figures *rf;
	size_t probe;
	double *last;
};

static int add_second(void *arg, const struct hist_record *h)
{
	struct second_acc *a = arg;

	if (h->hist->count > 0)
		add_point(a->rf,
			  (struct fig_point){ a->probe, h->t, hist_percentile(h->hist, 99) / 1e6,
					      false },
			  a->last);
	return 0;
}

/* A probe's values of one phase row on the time axis. */
static int add_probe_points(struct run_figures *rf, struct db *db, int64_t phase_id, size_t p,
			    double *last)
{
	const struct fig_probe *pr = &rf->probes[p];
	struct sample *s;
	size_t n;

	if (pr->histogram) {
		struct second_acc a = { rf, p, last };

		return db_hists_foreach(db, 0, phase_id, pr->id, add_second, &a);
	}
	if (db_probe_samples_list(db, phase_id, pr->id, &s, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		add_point(rf,
			  (struct fig_point){ p, s[i].started_at, sample_figure(&s[i]) * pr->to_ms,
					      s[i].failed },
			  last);
	free(s);
	return 0;
}

static int add_band(struct run_figures *rf, struct db *db, const struct phase_row *ph,
		    const struct run_report *rep, long rounds)
{
	struct sys_sample *sys;
	size_t n, i;
	struct fig_band *b;
	double last = ph->started_at;

	for (size_t p = 0; p < rf->nprobes; p++)
		if (add_probe_points(rf, db, ph->id, p, &last) < 0)
			return -1;
	if (db_sys_samples_list(db, ph->id, &sys, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		rf->psi = grow(rf->psi, rf->npsi, &rf->cap_psi, sizeof *rf->psi);
		rf->psi[rf->npsi++] = (struct fig_psi){ sys[i].t, sys[i].psi_cpu_some,
							sys[i].psi_mem_some, sys[i].psi_io_some };
		if (sys[i].t > last)
			last = sys[i].t;
	}
	free(sys);
	if (add_rates(rf, db, ph->id) < 0)
		return -1;
	rf->bands = xreallocarray(rf->bands, rf->nbands + 1, sizeof *rf->bands);
	b = &rf->bands[rf->nbands++];
	b->label = rounds > 1 ? xasprintf("%s r%ld", ph->name, ph->round) : xstrdup(ph->name);
	b->start = ph->started_at;
	b->end = ph->ended_at > 0 ? ph->ended_at : last;
	b->baseline = rep->baseline != NULL && strcmp(ph->name, rep->baseline) == 0;
	b->invalid = !ph->valid;
	b->weak = ph->weak != NULL && ph->weak[0] != '\0';
	return 0;
}

static int merge_second(void *arg, const struct hist_record *h)
{
	struct fig_phase *f = arg;

	if (f->hist == NULL) {
		f->hist = xmalloc(sizeof *f->hist);
		hist_reset(f->hist);
	}
	hist_merge(f->hist, h->hist);
	return 0;
}

/* One probe's values in a phase name's valid rounds, as the report takes
 * them: finished samples, sorted, or the seconds' histograms merged. */
static int load_phase(struct db *db, const struct fig_probe *pr, const struct report_phase *p,
		      struct fig_phase *f)
{
	struct dvec {
		double *v;
		size_t n, cap;
	} d = { 0 };

	for (size_t r = 0; r < p->nrounds; r++) {
		struct sample *s;
		size_t n;

		if (!p->rounds[r].valid)
			continue;
		if (pr->histogram) {
			if (db_hists_foreach(db, 0, p->rounds[r].phase_id, pr->id, merge_second,
					     f) < 0)
				goto fail;
			continue;
		}
		if (db_probe_samples_list(db, p->rounds[r].phase_id, pr->id, &s, &n) < 0)
			goto fail;
		for (size_t i = 0; i < n; i++) {
			if (s[i].failed || !(sample_figure(&s[i]) > 0))
				continue;
			d.v = grow(d.v, d.n, &d.cap, sizeof *d.v);
			d.v[d.n++] = sample_figure(&s[i]);
		}
		free(s);
	}
	if (d.n > 0)
		qsort(d.v, d.n, sizeof *d.v, compare_double);
	f->walls = d.v;
	f->n = d.n;
	return 0;
fail:
	free(d.v);
	return -1;
}

/* How many ms one of unit is; 1 for a unit that is not a time. */
static double unit_to_ms(const char *unit)
{
	if (strcmp(unit, "us") == 0)
		return 1e-3;
	if (strcmp(unit, "ns") == 0)
		return 1e-6;
	if (strcmp(unit, "s") == 0)
		return 1e3;
	return 1;
}

static int add_probe(struct run_figures *rf, struct db *db, const struct run_report *rep,
		     const struct probe_info *pi)
{
	struct fig_probe *pr;

	rf->probes = xreallocarray(rf->probes, rf->nprobes + 1, sizeof *rf->probes);
	pr = &rf->probes[rf->nprobes++];
	pr->name = xstrdup(pi->name);
	pr->unit = xstrdup(pi->histogram || pi->units == NULL ? "ms" : pi->units);
	pr->to_ms = unit_to_ms(pr->unit);
	pr->id = pi->id;
	pr->histogram = pi->histogram;
	pr->phases = xcalloc(rf->nphases ? rf->nphases : 1, sizeof *pr->phases);
	for (size_t i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];
		struct fig_phase *f = &pr->phases[i];

		f->label = xstrdup(p->name);
		f->weak = p->weak[0] != '\0';
		f->baseline = p->name == rep->baseline;
		f->invalid = p->valid_rounds == 0;
		if (load_phase(db, pr, p, f) < 0)
			return -1;
	}
	return 0;
}

struct run_figures *run_figures_load(struct db *db, const struct run_report *rep)
{
	struct run_figures *rf = xcalloc(1, sizeof *rf);
	struct phase_row *ph;
	size_t nph, i;

	struct probe_info *pi;
	size_t npi;

	rf->t0 = rep->run.started_at;
	rf->nphases = rep->nphases;
	if (db_probes_list(db, rep->run.id, &pi, &npi) < 0)
		goto fail;
	for (i = 0; i < npi; i++) {
		if (add_probe(rf, db, rep, &pi[i]) < 0) {
			db_probes_free(pi, npi);
			goto fail;
		}
	}
	db_probes_free(pi, npi);
	if (db_phases_list(db, rep->run.id, &ph, &nph) < 0)
		goto fail;
	if (nph > 0)
		rf->t0 = ph[0].started_at;
	for (i = 0; i < nph; i++) {
		if (add_band(rf, db, &ph[i], rep, rep->run.rounds) < 0) {
			db_phase_rows_free(ph, nph);
			goto fail;
		}
	}
	db_phase_rows_free(ph, nph);
	return rf;
fail:
	run_figures_free(rf);
	return NULL;
}

void run_figures_free(struct run_figures *rf)
{
	size_t i;

	if (rf == NULL)
		return;
	for (size_t p = 0; p < rf->nprobes; p++) {
		for (i = 0; i < rf->nphases; i++) {
			free(rf->probes[p].phases[i].label);
			free(rf->probes[p].phases[i].walls);
			free(rf->probes[p].phases[i].hist);
		}
		free(rf->probes[p].phases);
		free(rf->probes[p].name);
		free(rf->probes[p].unit);
	}
	for (i = 0; i < rf->nbands; i++)
		free(rf->bands[i].label);
	for (i = 0; i < rf->nloads; i++)
		free(rf->loads[i]);
	free(rf->probes);
	free(rf->bands);
	free(rf->points);
	free(rf->psi);
	free(rf->loads);
	free(rf->rates);
	free(rf);
}

/* ---- scripts ---- */

/* Numbers only ever reach a script through these, in the C locale's form. */
static void put_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("NaN", f);
}

/* 'text' as a gnuplot string, made safe by gnuplot_label(). */
static void put_label(FILE *f, const char *s)
{
	char *safe = gnuplot_label(s);

	fprintf(f, "'%s'", safe);
	free(safe);
}

/* "set ylabel 'time (us)'", the unit made safe. */
static void put_unit_label(FILE *f, const char *which, const char *unit)
{
	char *label = xasprintf("time (%s)", unit);

	fprintf(f, "set %s ", which);
	put_label(f, label);
	fputc('\n', f);
	free(label);
}

/* A phase's tick label, marked when its figures prove little. */
static void put_tick(FILE *f, const struct fig_phase *p)
{
	char *label = xasprintf("%s%s", p->label,
				p->invalid ? " (invalid)"
				: p->weak  ? " (weak)"
					   : "");

	put_label(f, label);
	free(label);
}

static void script_begin(FILE *f, const char *probe, const char *title)
{
	/* noenhanced: no markup in labels, whatever a name holds */
	fputs("set termoption noenhanced\nset encoding utf8\n", f);
	if (probe != NULL) {
		char *safe = gnuplot_label(probe);

		fprintf(f, "set title '%s: %s'\n", safe, title);
		free(safe);
	} else {
		fprintf(f, "set title '%s'\n", title);
	}
	fputs("set grid\nset border 3\nset tics nomirror\n", f);
}

static const char *phase_colour(const struct fig_phase *p, size_t i)
{
	if (p->baseline)
		return BASELINE_COLOUR;
	if (p->invalid)
		return INVALID_COLOUR;
	return palette[i % NPALETTE];
}

static bool has_values(const struct fig_phase *p)
{
	return p->n > 0 || (p->hist != NULL && p->hist->count > 0);
}

static bool any_values(const struct fig_probe *pr, size_t nphases)
{
	for (size_t i = 0; i < nphases; i++)
		if (has_values(&pr->phases[i]))
			return true;
	return false;
}

/* Percentile q (0..100) of a phase's values, in ms. */
static double quantile(const struct fig_phase *p, double q)
{
	if (p->hist != NULL)
		return hist_percentile(p->hist, q) / 1e6;
	return percentile_sorted(p->walls, p->n, q);
}

/* A deterministic spread of a box's dots: the golden ratio's fractions. */
static double jitter(size_t k, double width)
{
	double frac = fmod((double)k * 0.6180339887, 1.0);

	return (frac - 0.5) * width;
}

/* Boxes (p25..p75, whiskers p5..p95, the median) and dots at x, colour c. */
static void put_box_data(FILE *f, const struct fig_phase *p, double x, const char *c, FILE *dots)
{
	unsigned col = (unsigned)strtoul(c + 1, NULL, 16);

	if (!has_values(p))
		return;
	put_num(f, x);
	fputc(' ', f);
	put_num(f, quantile(p, 25));
	fputc(' ', f);
	put_num(f, quantile(p, 5));
	fputc(' ', f);
	put_num(f, quantile(p, 95));
	fputc(' ', f);
	put_num(f, quantile(p, 75));
	fputc(' ', f);
	put_num(f, quantile(p, 50));
	fprintf(f, " %u\n", col);
	for (size_t k = 0; k < p->n; k++) {
		put_num(dots, x + jitter(k, 0.5));
		fputc(' ', dots);
		put_num(dots, p->walls[k]);
		/* translucent: where dots pile up, the colour deepens */
		fprintf(dots, " %u\n", 0x70000000u | col);
	}
}

static void box_plot_cmd(FILE *f)
{
	fputs("set style fill solid 0.25 border\n"
	      "plot $box using 1:2:3:4:5:7 with candlesticks whiskerbars 0.5 lw 1.2 "
	      "lc rgb variable notitle, \\\n"
	      "  $box using 1:6:6:6:6:7 with candlesticks lw 2.5 lc rgb variable notitle, \\\n"
	      "  $dots using 1:2:3 with points pt 7 ps 0.5 lc rgb variable notitle\n",
	      f);
}

static void put_block(FILE *f, const char *name, char *text, size_t len)
{
	fprintf(f, "$%s << EOD\n", name);
	fwrite(text, 1, len, f);
	fputs("EOD\n", f);
}

static int script_distribution(const struct run_figures *rf, const struct fig_probe *pr, FILE *f)
{
	char *boxes = NULL, *dots = NULL;
	size_t blen = 0, dlen = 0, i;
	FILE *bf, *df;
	double base_median = NAN;

	if (!any_values(pr, rf->nphases))
		return 1;
	bf = open_memstream(&boxes, &blen);
	df = open_memstream(&dots, &dlen);
	for (i = 0; i < rf->nphases; i++) {
		const struct fig_phase *p = &pr->phases[i];

		put_box_data(bf, p, (double)i + 1, phase_colour(p, i), df);
		if (p->baseline && has_values(p))
			base_median = quantile(p, 50);
	}
	fclose(bf);
	fclose(df);
	script_begin(f, pr->name, "time per phase");
	put_unit_label(f, "ylabel", pr->unit);
	put_block(f, "box", boxes, blen);
	put_block(f, "dots", dots, dlen);
	free(boxes);
	free(dots);
	fputs("set logscale y\nset key off\n"
	      "set boxwidth 0.5 absolute\n",
	      f);
	fprintf(f, "set xrange [0.4:%zu.6]\nset xtics (", rf->nphases);
	for (i = 0; i < rf->nphases; i++) {
		fputs(i ? ", " : "", f);
		put_tick(f, &pr->phases[i]);
		fprintf(f, " %zu", i + 1);
	}
	fputs(") rotate by -30 left\n", f);
	if (isfinite(base_median)) {
		fputs("set arrow 1 from graph 0, first ", f);
		put_num(f, base_median);
		fputs(" to graph 1, first ", f);
		put_num(f, base_median);
		fputs(" nohead dt 2 lc rgb '" BASELINE_COLOUR "'\n", f);
	}
	box_plot_cmd(f);
	return 0;
}

/* Plots one curve per phase with data from block(), baseline in black. */
static int script_per_phase(const struct run_figures *rf, const struct fig_probe *pr, FILE *f,
			    const char *title, void (*block)(FILE *, const struct fig_phase *),
			    const char *ylabel)
{
	size_t i;
	bool first = true;

	if (!any_values(pr, rf->nphases))
		return 1;
	script_begin(f, pr->name, title);
	for (i = 0; i < rf->nphases; i++) {
		if (!has_values(&pr->phases[i]))
			continue;
		fprintf(f, "$p%zu << EOD\n", i);
		block(f, &pr->phases[i]);
		fputs("EOD\n", f);
	}
	put_unit_label(f, "xlabel", pr->unit);
	fprintf(f,
		"set logscale x\nset ylabel '%s'\n"
		"set yrange [0:*]\nset key outside right top\n",
		ylabel);
	for (i = 0; i < rf->nphases; i++) {
		const struct fig_phase *p = &pr->phases[i];

		if (!has_values(p))
			continue;
		fprintf(f, "%s$p%zu using 1:2 with steps lw %s lc rgb '%s' title ",
			first ? "plot " : ", \\\n  ", i, p->baseline ? "2.5" : "1.5",
			p->baseline ? "#000000" : phase_colour(p, i));
		put_label(f, p->label);
		first = false;
	}
	fputc('\n', f);
	return 0;
}

/* A phase's values (ms) in ascending order, each with how many times it
 * occurred: a probe's samples once each, a histogram's bucket midpoints
 * with their counts. xmalloc'd; *total is the count of all. */
struct weighted {
	double v, w;
};

static struct weighted *weighted_values(const struct fig_phase *p, size_t *n, double *total)
{
	struct weighted *out;
	size_t k = 0;

	*total = 0;
	if (p->hist == NULL) {
		out = xcalloc(p->n ? p->n : 1, sizeof *out);
		for (size_t i = 0; i < p->n; i++)
			if (p->walls[i] > 0)
				out[k++] = (struct weighted){ p->walls[i], 1 };
	} else {
		out = xcalloc(HIST_BUCKETS, sizeof *out);
		for (size_t b = 0; b < HIST_BUCKETS; b++) {
			double mid = ((double)hist_bucket_lo(b) + (double)hist_bucket_hi(b)) / 2;

			if (p->hist->bucket[b] > 0 && mid > 0)
				out[k++] = (struct weighted){ mid / 1e6, p->hist->bucket[b] };
		}
	}
	for (size_t i = 0; i < k; i++)
		*total += out[i].w;
	*n = k;
	return out;
}

static void ecdf_block(FILE *f, const struct fig_phase *p)
{
	double total, sum = 0;
	size_t n;
	struct weighted *wv = weighted_values(p, &n, &total);

	for (size_t k = 0; k < n; k++) {
		sum += wv[k].w;
		put_num(f, wv[k].v);
		fputc(' ', f);
		put_num(f, sum / total);
		fputc('\n', f);
	}
	free(wv);
}

#define BINS_PER_DECADE 10

static long bin_of(double ms)
{
	return (long)floor(log10(ms) * BINS_PER_DECADE);
}

static void histogram_block(FILE *f, const struct fig_phase *p)
{
	double total, w;
	size_t n, k = 0;
	struct weighted *wv = weighted_values(p, &n, &total);
	long lo, hi, b;

	if (n == 0) {
		free(wv);
		return;
	}
	lo = bin_of(wv[0].v);
	hi = bin_of(wv[n - 1].v);
	/* the values are sorted: one pass fills every bin */
	for (b = lo; b <= hi + 1; b++) {
		for (w = 0; b <= hi && k < n && bin_of(wv[k].v) <= b; k++)
			w += wv[k].w;
		put_num(f, pow(10, (double)b / BINS_PER_DECADE));
		fputc(' ', f);
		/* the last edge closes the last step */
		put_num(f, b <= hi ? w / total : 0);
		fputc('\n', f);
	}
	free(wv);
}

/* ---- the timeline ---- */

static void timeline_bands(const struct run_figures *rf, FILE *f)
{
	for (size_t i = 0; i < rf->nbands; i++) {
		const struct fig_band *b = &rf->bands[i];
		const char *c = b->invalid    ? "#f4b6b6"
				: b->weak     ? "#fbe7b0"
				: b->baseline ? "#cfe0f3"
				: i % 2       ? "#eeeeee"
					      : "#e2e2e2";

		fprintf(f, "set object %zu rect from first ", i + 1);
		put_num(f, b->start - rf->t0);
		fputs(", graph 0 to first ", f);
		put_num(f, b->end - rf->t0);
		fprintf(f, ", graph 1 behind fc rgb '%s' fs solid 1.0 noborder\n", c);
	}
}

static void timeline_labels(const struct run_figures *rf, FILE *f)
{
	for (size_t i = 0; i < rf->nbands; i++) {
		fprintf(f, "set label %zu ", i + 1);
		put_label(f, rf->bands[i].label);
		fputs(" at first ", f);
		put_num(f, rf->bands[i].start - rf->t0);
		fputs(", graph 0.97 rotate by 90 right offset 1,0 font ',8' front\n", f);
	}
}

/* A panel with nothing in it still shows the bands, and says why. */
static void empty_panel(FILE *f, const char *why)
{
	fprintf(f,
		"unset logscale y\nset yrange [0:1]\nset ytics ('' 0)\n"
		"set label 999 '%s' at graph 0.5, graph 0.5 center front\n"
		"plot 2 notitle\nunset label 999\nset yrange [*:*]\nset ytics auto\n",
		why);
}

/* Writes probe p's finished samples as $tP; how many. */
static size_t timeline_block(const struct run_figures *rf, size_t p, FILE *f, double *fastest)
{
	size_t n = 0;

	fprintf(f, "$t%zu << EOD\n", p);
	for (size_t i = 0; i < rf->npoints; i++) {
		const struct fig_point *pt = &rf->points[i];

		if (pt->probe != p || pt->failed || !(pt->v > 0))
			continue;
		put_num(f, pt->t - rf->t0);
		fputc(' ', f);
		put_num(f, pt->v);
		fputc('\n', f);
		if (pt->v < *fastest)
			*fastest = pt->v;
		n++;
	}
	fputs("EOD\n", f);
	return n;
}

/* Each sample probe's times as dots, each histogram probe's per-second p99
 * as a line; failed samples as crosses at the bottom. */
static void timeline_jobs(const struct run_figures *rf, FILE *f)
{
	size_t i, p, failed = 0;
	double fastest = INFINITY;
	bool *drawn = xcalloc(rf->nprobes + 1, sizeof *drawn), any = false;

	for (p = 0; p < rf->nprobes; p++)
		any |= drawn[p] = timeline_block(rf, p, f, &fastest) > 0;
	fputs("$failed << EOD\n", f);
	for (i = 0; i < rf->npoints; i++) {
		if (!rf->points[i].failed)
			continue;
		put_num(f, rf->points[i].t - rf->t0);
		fputc(' ', f);
		/* drawn at the bottom of the panel's log axis */
		put_num(f, isfinite(fastest) ? fastest : 1);
		fputc('\n', f);
		failed++;
	}
	fputs("EOD\n", f);
	fputs("set tmargin at screen 0.95\nset bmargin at screen 0.69\nset format x ''\n"
	      "set ylabel 'probe time (ms)'\n",
	      f);
	timeline_labels(rf, f);
	if (!any) {
		empty_panel(f, "no probe value");
	} else {
		fputs("set logscale y\nplot ", f);
		for (p = 0, any = false; p < rf->nprobes; p++) {
			const char *c = p == 0 ? BASELINE_COLOUR : palette[(p - 1) % NPALETTE];
			char *title = rf->probes[p].histogram
					      ? xasprintf("%s p99", rf->probes[p].name)
					      : xstrdup(rf->probes[p].name);

			if (!drawn[p]) {
				free(title);
				continue;
			}
			fprintf(f, "%s$t%zu using 1:2 %s lc rgb '%s' title ", any ? ", \\\n  " : "",
				p,
				rf->probes[p].histogram ? "with lines lw 1.5"
							: "with points pt 7 ps 0.4",
				c);
			put_label(f, title);
			free(title);
			any = true;
		}
		if (failed > 0)
			fputs(", \\\n  $failed using 1:2 with points pt 2 lc rgb '#d62728' title 'failed'",
			      f);
		fputc('\n', f);
	}
	free(drawn);
	fputs("unset label\nunset logscale y\n", f);
}

static void timeline_psi(const struct run_figures *rf, FILE *f)
{
	size_t i, finite = 0;

	fputs("$psi << EOD\n", f);
	for (i = 0; i < rf->npsi; i++) {
		const struct fig_psi *p = &rf->psi[i];

		finite += isfinite(p->cpu) || isfinite(p->mem) || isfinite(p->io);
		put_num(f, p->t - rf->t0);
		fputc(' ', f);
		put_num(f, p->cpu);
		fputc(' ', f);
		put_num(f, p->mem);
		fputc(' ', f);
		put_num(f, p->io);
		fputc('\n', f);
	}
	fputs("EOD\n", f);
	fputs("set tmargin at screen 0.67\nset bmargin at screen 0.41\n"
	      "set ylabel 'PSI some (%)'\n",
	      f);
	if (finite == 0) {
		empty_panel(f, "no pressure figures (no /proc/pressure)");
		return;
	}
	fputs("set yrange [0:*]\n"
	      "plot $psi using 1:2 with lines lw 1.5 lc rgb '#d62728' title 'cpu', \\\n"
	      "  $psi using 1:3 with lines lw 1.5 lc rgb '#9467bd' title 'memory', \\\n"
	      "  $psi using 1:4 with lines lw 1.5 lc rgb '#8c564b' title 'io'\n"
	      "set yrange [*:*]\n",
	      f);
}

static void timeline_loads(const struct run_figures *rf, FILE *f)
{
	size_t i, l;
	bool first = true;

	fputs("set tmargin at screen 0.39\nset bmargin at screen 0.10\nset format x '%g'\n"
	      "set xlabel 'seconds since the first phase started'\n"
	      "set ylabel 'load cycles/s'\n",
	      f);
	for (l = 0; l < rf->nloads; l++) {
		fprintf(f, "$l%zu << EOD\n", l);
		for (i = 0; i < rf->nrates; i++) {
			if (rf->rates[i].load != l || !(rf->rates[i].per_s > 0))
				continue;
			put_num(f, rf->rates[i].t - rf->t0);
			fputc(' ', f);
			put_num(f, rf->rates[i].per_s);
			fputc('\n', f);
		}
		fputs("EOD\n", f);
	}
	for (l = 0; l < rf->nloads; l++) {
		bool any = false;

		for (i = 0; i < rf->nrates && !any; i++)
			any = rf->rates[i].load == l && rf->rates[i].per_s > 0;
		if (!any)
			continue;
		if (first)
			fputs("set logscale y\nplot ", f);
		else
			fputs(", \\\n  ", f);
		fprintf(f, "$l%zu using 1:2 with steps lw 1.5 lc rgb '%s' title ", l,
			palette[l % NPALETTE]);
		put_label(f, rf->loads[l]);
		first = false;
	}
	if (first)
		empty_panel(f, "no load ran");
	else
		fputs("\nunset logscale y\n", f);
}

static int script_timeline(const struct run_figures *rf, FILE *f)
{
	double end = 1;

	if (rf->nbands == 0)
		return 1;
	for (size_t i = 0; i < rf->nbands; i++)
		if (rf->bands[i].end - rf->t0 > end)
			end = rf->bands[i].end - rf->t0;
	script_begin(f, NULL, "");
	fputs("unset title\nset multiplot title 'The run over time'\n"
	      "set lmargin at screen 0.09\nset rmargin at screen 0.84\n"
	      "set key outside right top\n",
	      f);
	fputs("set xrange [0:", f);
	put_num(f, end);
	fputs("]\n", f);
	timeline_bands(rf, f);
	timeline_jobs(rf, f);
	timeline_psi(rf, f);
	timeline_loads(rf, f);
	fputs("unset multiplot\n", f);
	return 0;
}

size_t run_figures_nprobes(const struct run_figures *rf)
{
	return rf->nprobes;
}

const char *run_figures_probe(const struct run_figures *rf, size_t probe)
{
	return probe < rf->nprobes ? rf->probes[probe].name : NULL;
}

int figure_script(const struct run_figures *rf, enum figure_kind kind, size_t probe, char **script,
		  size_t *len)
{
	const struct fig_probe *pr = probe < rf->nprobes ? &rf->probes[probe] : NULL;
	FILE *f;
	int rc;

	*script = NULL;
	*len = 0;
	f = open_memstream(script, len);
	if (f == NULL)
		fatal("open_memstream");
	switch (kind) {
	case FIGURE_DISTRIBUTION: rc = pr ? script_distribution(rf, pr, f) : 1; break;
	case FIGURE_ECDF:
		rc = pr ? script_per_phase(rf, pr, f, "ECDF of the time per phase", ecdf_block,
					   "fraction at or below")
			: 1;
		break;
	case FIGURE_HISTOGRAM:
		rc = pr ? script_per_phase(rf, pr, f, "histogram of the time per phase",
					   histogram_block, "fraction of the phase values")
			: 1;
		break;
	case FIGURE_TIMELINE: rc = script_timeline(rf, f); break;
	default: rc = 1;
	}
	fclose(f);
	if (rc != 0) {
		free(*script);
		*script = NULL;
		*len = 0;
	}
	return rc;
}

static const struct fig_probe *find_probe(const struct run_figures *rf, const char *name)
{
	for (size_t i = 0; i < rf->nprobes; i++)
		if (strcmp(rf->probes[i].name, name) == 0)
			return &rf->probes[i];
	return NULL;
}

int figure_compare_script(const struct run_figures *const *runs, const char *const *labels,
			  size_t nruns, size_t probe, char **script, size_t *len)
{
	const struct run_figures *first = runs[0];
	const struct fig_probe *fp = probe < first->nprobes ? &first->probes[probe] : NULL;
	char *boxes = NULL, *dots = NULL;
	size_t blen = 0, dlen = 0, i, r;
	double width = 0.8 / (double)nruns;
	bool any = false;
	FILE *f, *bf, *df;

	*script = NULL;
	*len = 0;
	if (fp == NULL)
		return 1;
	bf = open_memstream(&boxes, &blen);
	df = open_memstream(&dots, &dlen);
	for (i = 0; i < first->nphases; i++) {
		for (r = 0; r < nruns; r++) {
			const struct fig_probe *pr = find_probe(runs[r], fp->name);
			const struct fig_phase *p = NULL;
			double x = (double)i + 1 - 0.4 + width * ((double)r + 0.5);

			for (size_t k = 0; pr != NULL && k < runs[r]->nphases && p == NULL; k++)
				if (strcmp(pr->phases[k].label, fp->phases[i].label) == 0)
					p = &pr->phases[k];
			if (p == NULL || !has_values(p))
				continue;
			put_box_data(bf, p, x,
				     r == 0 ? BASELINE_COLOUR : palette[(r - 1) % NPALETTE], df);
			any = true;
		}
	}
	fclose(bf);
	fclose(df);
	if (!any) {
		free(boxes);
		free(dots);
		return 1;
	}
	f = open_memstream(script, len);
	script_begin(f, fp->name, "time per phase and run");
	put_unit_label(f, "ylabel", fp->unit);
	put_block(f, "box", boxes, blen);
	put_block(f, "dots", dots, dlen);
	free(boxes);
	free(dots);
	fputs("set logscale y\nset key outside right top\n", f);
	fprintf(f, "set boxwidth %g absolute\n", width * 0.8);
	fprintf(f, "set xrange [0.4:%zu.6]\nset xtics (", first->nphases);
	for (i = 0; i < first->nphases; i++) {
		fputs(i ? ", " : "", f);
		put_label(f, fp->phases[i].label);
		fprintf(f, " %zu", i + 1);
	}
	fputs(") rotate by -30 left\n", f);
	/* the key: one invisible line per run in its colour */
	fputs("set style fill solid 0.25 border\n"
	      "plot $box using 1:2:3:4:5:7 with candlesticks whiskerbars 0.5 lw 1.2 "
	      "lc rgb variable notitle, \\\n"
	      "  $box using 1:6:6:6:6:7 with candlesticks lw 2.5 lc rgb variable notitle, \\\n"
	      "  $dots using 1:2:3 with points pt 7 ps 0.3 lc rgb variable notitle",
	      f);
	for (r = 0; r < nruns; r++) {
		fprintf(f, ", \\\n  NaN with lines lw 6 lc rgb '%s' title ",
			r == 0 ? BASELINE_COLOUR : palette[(r - 1) % NPALETTE]);
		put_label(f, labels[r]);
	}
	fputc('\n', f);
	fclose(f);
	return 0;
}

int figure_ramp_script(const char *search, const char *key, const char *const *values,
		       const double *median, const double *p95, size_t n, long knee, char **script,
		       size_t *len)
{
	FILE *f;
	char *title = xasprintf("knee search %s: the job against %s", search, key);
	bool any = false;

	*script = NULL;
	*len = 0;
	for (size_t i = 0; i < n; i++)
		any |= median[i] > 0 || p95[i] > 0;
	if (!any) {
		free(title);
		return 1;
	}
	f = open_memstream(script, len);
	script_begin(f, NULL, "");
	fputs("set title ", f);
	put_label(f, title);
	free(title);
	fputs("\n$steps << EOD\n", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%zu ", i + 1);
		put_num(f, median[i] > 0 ? median[i] : NAN);
		fputc(' ', f);
		put_num(f, p95[i] > 0 ? p95[i] : NAN);
		fputc('\n', f);
	}
	fputs("EOD\nset logscale y\nset ylabel 'job time (ms)'\nset key outside right top\n", f);
	fprintf(f, "set xrange [0.5:%zu.5]\nset xtics (", n);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		put_label(f, values[i]);
		fprintf(f, " %zu", i + 1);
	}
	fputs(")\nset xlabel ", f);
	put_label(f, key);
	fputc('\n', f);
	if (knee >= 0) {
		fprintf(f,
			"set arrow 1 from first %ld, graph 0 to first %ld, graph 1 nohead dt 2 lw 2 "
			"lc rgb '#d62728'\nset label 1 'knee' at first %ld, graph 0.95 left "
			"offset 0.5,0 textcolor rgb '#d62728'\n",
			knee + 1, knee + 1, knee + 1);
	}
	fputs("plot $steps using 1:2 with linespoints pt 7 lw 2 lc rgb '" BASELINE_COLOUR
	      "' title 'median', \\\n  $steps using 1:3 with linespoints pt 5 lw 2 lc rgb "
	      "'#ff7f0e' title 'p95'\n",
	      f);
	fclose(f);
	return 0;
}
