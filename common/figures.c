// SPDX-License-Identifier: GPL-2.0-or-later
#include "figures.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnuplot.h"
#include "log.h"
#include "stats.h"
#include "xalloc.h"

const struct figure_def figure_defs[FIGURE_COUNT] = {
	[FIGURE_DISTRIBUTION] = { "distribution",
				  "The job's wall time per phase: the box spans the quartiles, "
				  "the whiskers p5 to p95, every job is a dot; the baseline phase "
				  "is blue and its median the dashed line.",
				  900, 440 },
	[FIGURE_ECDF] = { "ecdf",
			  "Empirical distribution of the job's wall time per phase (log x): "
			  "the fraction of jobs at or below a time; the baseline is black.",
			  900, 440 },
	[FIGURE_HISTOGRAM] = { "histogram",
			       "Histogram of the job's wall time per phase, ten bins per decade "
			       "(log x), as the fraction of the phase's jobs.",
			       900, 440 },
	[FIGURE_TIMELINE] = { "timeline",
			      "The whole run: each job's wall time, pressure stall (PSI some) "
			      "and each load's cycles per second in its own unit, on one time "
			      "axis; phases are the bands (blue: the baseline, red: invalid).",
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

/* A phase name with its valid jobs' wall times, sorted. */
struct fig_phase {
	char *label;
	double *walls;
	size_t n;
	bool baseline;
	bool invalid;
};

/* One round of one phase on the time axis. */
struct fig_band {
	char *label;
	double start, end;
	bool baseline, invalid;
};

struct fig_point {
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
	size_t nphases, nbands, npoints, npsi, nloads, nrates;
	struct fig_phase *phases;
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
			.per_s = (double)(rows[j].cycles - rows[i].cycles) / (rows[j].t - rows[i].t),
		};
	}
	db_loader_samples_free(rows, n);
	return 0;
}

static int add_band(struct run_figures *rf, struct db *db, const struct phase_row *ph,
		    const struct run_report *rep, long rounds)
{
	struct sample *s;
	struct sys_sample *sys;
	size_t n, i;
	struct fig_band *b;
	double last = ph->started_at;

	if (db_samples_list(db, ph->id, &s, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		rf->points = grow(rf->points, rf->npoints, &rf->cap_points, sizeof *rf->points);
		rf->points[rf->npoints++] = (struct fig_point){ s[i].started_at, s[i].wall_ms,
								s[i].failed };
		if (s[i].started_at > last)
			last = s[i].started_at;
	}
	free(s);
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
	return 0;
}

struct run_figures *run_figures_load(struct db *db, const struct run_report *rep)
{
	struct run_figures *rf = xcalloc(1, sizeof *rf);
	struct phase_row *ph;
	size_t nph, i;

	rf->t0 = rep->run.started_at;
	rf->phases = xcalloc(rep->nphases ? rep->nphases : 1, sizeof *rf->phases);
	for (i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];
		struct fig_phase *f = &rf->phases[rf->nphases++];

		f->label = xstrdup(p->name);
		f->baseline = p->name == rep->baseline;
		f->invalid = p->valid_rounds == 0;
		if (report_phase_walls(db, p, &f->walls, &f->n) < 0)
			goto fail;
		if (f->n > 0)
			qsort(f->walls, f->n, sizeof *f->walls, compare_double);
	}
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
	for (i = 0; i < rf->nphases; i++) {
		free(rf->phases[i].label);
		free(rf->phases[i].walls);
	}
	for (i = 0; i < rf->nbands; i++)
		free(rf->bands[i].label);
	for (i = 0; i < rf->nloads; i++)
		free(rf->loads[i]);
	free(rf->phases);
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

static void script_begin(FILE *f, const char *title)
{
	/* noenhanced: no markup in labels, whatever a name holds */
	fputs("set termoption noenhanced\nset encoding utf8\n", f);
	fprintf(f, "set title '%s'\n", title);
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

static bool any_walls(const struct fig_phase *phases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (phases[i].n > 0)
			return true;
	return false;
}

/* A deterministic spread of a box's dots: the golden ratio's fractions. */
static double jitter(size_t k, double width)
{
	double frac = fmod((double)k * 0.6180339887, 1.0);

	return (frac - 0.5) * width;
}

/* Boxes (p25..p75, whiskers p5..p95, the median) and dots at x, colour c. */
static void put_box_data(FILE *f, const struct fig_phase *p, double x, const char *c,
			 FILE *dots)
{
	unsigned col = (unsigned)strtoul(c + 1, NULL, 16);

	if (p->n == 0)
		return;
	put_num(f, x);
	fputc(' ', f);
	put_num(f, percentile_sorted(p->walls, p->n, 25));
	fputc(' ', f);
	put_num(f, percentile_sorted(p->walls, p->n, 5));
	fputc(' ', f);
	put_num(f, percentile_sorted(p->walls, p->n, 95));
	fputc(' ', f);
	put_num(f, percentile_sorted(p->walls, p->n, 75));
	fputc(' ', f);
	put_num(f, percentile_sorted(p->walls, p->n, 50));
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

static int script_distribution(const struct run_figures *rf, FILE *f)
{
	char *boxes = NULL, *dots = NULL;
	size_t blen = 0, dlen = 0, i;
	FILE *bf, *df;
	double base_median = NAN;

	if (!any_walls(rf->phases, rf->nphases))
		return 1;
	bf = open_memstream(&boxes, &blen);
	df = open_memstream(&dots, &dlen);
	for (i = 0; i < rf->nphases; i++) {
		const struct fig_phase *p = &rf->phases[i];

		put_box_data(bf, p, (double)i + 1, phase_colour(p, i), df);
		if (p->baseline && p->n > 0)
			base_median = percentile_sorted(p->walls, p->n, 50);
	}
	fclose(bf);
	fclose(df);
	script_begin(f, "job: wall time per phase");
	put_block(f, "box", boxes, blen);
	put_block(f, "dots", dots, dlen);
	free(boxes);
	free(dots);
	fputs("set logscale y\nset ylabel 'wall time (ms)'\nset key off\n"
	      "set boxwidth 0.5 absolute\n", f);
	fprintf(f, "set xrange [0.4:%zu.6]\nset xtics (", rf->nphases);
	for (i = 0; i < rf->nphases; i++) {
		fputs(i ? ", " : "", f);
		put_label(f, rf->phases[i].label);
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
static int script_per_phase(const struct run_figures *rf, FILE *f, const char *title,
			    void (*block)(FILE *, const struct fig_phase *), const char *ylabel)
{
	size_t i;
	bool first = true;

	if (!any_walls(rf->phases, rf->nphases))
		return 1;
	script_begin(f, title);
	for (i = 0; i < rf->nphases; i++) {
		if (rf->phases[i].n == 0)
			continue;
		fprintf(f, "$p%zu << EOD\n", i);
		block(f, &rf->phases[i]);
		fputs("EOD\n", f);
	}
	fprintf(f, "set logscale x\nset xlabel 'wall time (ms)'\nset ylabel '%s'\n"
		   "set yrange [0:*]\nset key outside right top\n",
		ylabel);
	for (i = 0; i < rf->nphases; i++) {
		const struct fig_phase *p = &rf->phases[i];

		if (p->n == 0)
			continue;
		fprintf(f, "%s$p%zu using 1:2 with steps lw %s lc rgb '%s' title ",
			first ? "plot " : ", \\\n  ", i, p->baseline ? "2.5" : "1.5", p->baseline ? "#000000" : phase_colour(p, i));
		put_label(f, p->label);
		first = false;
	}
	fputc('\n', f);
	return 0;
}

static void ecdf_block(FILE *f, const struct fig_phase *p)
{
	for (size_t k = 0; k < p->n; k++) {
		put_num(f, p->walls[k]);
		fputc(' ', f);
		put_num(f, (double)(k + 1) / (double)p->n);
		fputc('\n', f);
	}
}

#define BINS_PER_DECADE 10

static void histogram_block(FILE *f, const struct fig_phase *p)
{
	long lo = LONG_MAX, hi = LONG_MIN, b;
	size_t k = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (p->walls[i] <= 0)
			continue;
		b = (long)floor(log10(p->walls[i]) * BINS_PER_DECADE);
		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	if (lo > hi)
		return;
	/* walls are sorted: one pass counts every bin */
	for (b = lo; b <= hi + 1; b++) {
		size_t count = 0;

		while (b <= hi && k < p->n &&
		       (p->walls[k] <= 0 || (long)floor(log10(p->walls[k]) * BINS_PER_DECADE) <= b)) {
			count += p->walls[k] > 0;
			k++;
		}
		put_num(f, pow(10, (double)b / BINS_PER_DECADE));
		fputc(' ', f);
		/* the last edge closes the last step */
		put_num(f, b <= hi ? (double)count / (double)p->n : 0);
		fputc('\n', f);
	}
}

/* ---- the timeline ---- */

static void timeline_bands(const struct run_figures *rf, FILE *f)
{
	for (size_t i = 0; i < rf->nbands; i++) {
		const struct fig_band *b = &rf->bands[i];
		const char *c = b->invalid ? "#f4b6b6" : b->baseline ? "#cfe0f3" : i % 2 ? "#eeeeee"
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
	fprintf(f, "unset logscale y\nset yrange [0:1]\nset ytics ('' 0)\n"
		   "set label 999 '%s' at graph 0.5, graph 0.5 center front\n"
		   "plot 2 notitle\nunset label 999\nset yrange [*:*]\nset ytics auto\n",
		why);
}

static void timeline_jobs(const struct run_figures *rf, FILE *f)
{
	size_t i, ok = 0, failed = 0;
	double fastest = INFINITY;

	fputs("$jobs << EOD\n", f);
	for (i = 0; i < rf->npoints; i++) {
		if (rf->points[i].failed || !(rf->points[i].v > 0))
			continue;
		put_num(f, rf->points[i].t - rf->t0);
		fputc(' ', f);
		put_num(f, rf->points[i].v);
		fputc('\n', f);
		if (rf->points[i].v < fastest)
			fastest = rf->points[i].v;
		ok++;
	}
	fputs("EOD\n$failed << EOD\n", f);
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
	      "set ylabel 'job wall time (ms)'\n",
	      f);
	timeline_labels(rf, f);
	if (ok == 0) {
		empty_panel(f, "no job finished");
	} else {
		fputs("set logscale y\nplot $jobs using 1:2 with points pt 7 ps 0.4 lc rgb '"
		      BASELINE_COLOUR "' title 'job'",
		      f);
		if (failed > 0)
			fputs(", $failed using 1:2 with points pt 2 lc rgb '#d62728' "
			      "title 'failed'",
			      f);
		fputc('\n', f);
	}
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
	script_begin(f, "");
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

int figure_script(const struct run_figures *rf, enum figure_kind kind, char **script,
		  size_t *len)
{
	FILE *f;
	int rc;

	*script = NULL;
	*len = 0;
	f = open_memstream(script, len);
	if (f == NULL)
		fatal("open_memstream");
	switch (kind) {
	case FIGURE_DISTRIBUTION:
		rc = script_distribution(rf, f);
		break;
	case FIGURE_ECDF:
		rc = script_per_phase(rf, f, "job: ECDF of the wall time per phase", ecdf_block,
				      "fraction of jobs at or below");
		break;
	case FIGURE_HISTOGRAM:
		rc = script_per_phase(rf, f, "job: histogram of the wall time per phase",
				      histogram_block, "fraction of jobs");
		break;
	case FIGURE_TIMELINE:
		rc = script_timeline(rf, f);
		break;
	default:
		rc = 1;
	}
	fclose(f);
	if (rc != 0) {
		free(*script);
		*script = NULL;
		*len = 0;
	}
	return rc;
}

int figure_compare_script(const struct run_figures *const *runs, const char *const *labels,
			  size_t nruns, char **script, size_t *len)
{
	const struct run_figures *first = runs[0];
	char *boxes = NULL, *dots = NULL;
	size_t blen = 0, dlen = 0, i, r;
	double width = 0.8 / (double)nruns;
	bool any = false;
	FILE *f, *bf, *df;

	*script = NULL;
	*len = 0;
	bf = open_memstream(&boxes, &blen);
	df = open_memstream(&dots, &dlen);
	for (i = 0; i < first->nphases; i++) {
		for (r = 0; r < nruns; r++) {
			const struct fig_phase *p = NULL;
			double x = (double)i + 1 - 0.4 + width * ((double)r + 0.5);

			for (size_t k = 0; k < runs[r]->nphases && p == NULL; k++)
				if (strcmp(runs[r]->phases[k].label, first->phases[i].label) == 0)
					p = &runs[r]->phases[k];
			if (p == NULL || p->n == 0)
				continue;
			put_box_data(bf, p, x, r == 0 ? BASELINE_COLOUR : palette[(r - 1) % NPALETTE],
				     df);
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
	script_begin(f, "job: wall time per phase and run");
	put_block(f, "box", boxes, blen);
	put_block(f, "dots", dots, dlen);
	free(boxes);
	free(dots);
	fputs("set logscale y\nset ylabel 'wall time (ms)'\nset key outside right top\n", f);
	fprintf(f, "set boxwidth %g absolute\n", width * 0.8);
	fprintf(f, "set xrange [0.4:%zu.6]\nset xtics (", first->nphases);
	for (i = 0; i < first->nphases; i++) {
		fputs(i ? ", " : "", f);
		put_label(f, first->phases[i].label);
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
