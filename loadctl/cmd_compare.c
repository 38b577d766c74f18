// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl compare: two or more runs, phase by phase and figure by figure
 * (the job's time, each load's throughput): the change with its confidence
 * interval and a verdict against a band of equivalence (change.h), and for
 * three runs or more a ranking with ties and a best/second summary. */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare_data.h"
#include "compare_html.h"
#include "json_build.h"
#include "loadctl.h"
#include "log.h"
#include "table.h"
#include "term_escape.h"
#include "timeutil.h"
#include "xalloc.h"

/* What one invocation compares. */
struct cmp {
	struct cmp_run *runs;
	size_t n;
	struct change_opts opts;
	bool same_tree;
	char **phases; /* every phase name, in order of first appearance */
	size_t nphases;
};

/* A phase's figures: the job's time, then every load any run had in it. */
struct phase_figures {
	struct cmp_figure *f;
	size_t n;
};

static void add_name(char ***names, size_t *n, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return;
	*names = xreallocarray(*names, *n + 1, sizeof **names);
	(*names)[(*n)++] = xstrdup(name);
}

static void collect_phases(struct cmp *c)
{
	size_t i, j;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->runs[i].rep.nphases; j++)
			add_name(&c->phases, &c->nphases, c->runs[i].rep.phases[j].name);
}

/* The job's time, then every load, then every other probe any run had in
 * the phase. */
static void figures_of(const struct cmp *c, const char *phase, struct phase_figures *pf)
{
	char **loads = NULL, **probes = NULL;
	size_t nloads = 0, nprobes = 0, i, j, at;
	bool *rate = NULL;

	for (i = 0; i < c->n; i++) {
		const struct report_phase *p = cmp_find_phase(&c->runs[i], phase, &at);

		for (j = 0; p != NULL && j < p->nload; j++)
			add_name(&loads, &nloads, p->load[j].name);
		for (j = 0; p != NULL && j < p->nprobe; j++)
			if (cmp_probe_shown(&p->probe[j])) {
				size_t before = nprobes;

				add_name(&probes, &nprobes, p->probe[j].name);
				if (nprobes > before) {
					rate = xreallocarray(rate, nprobes, sizeof *rate);
					rate[before] = cmp_units_rate(p->probe[j].units);
				}
			}
	}
	pf->n = 1 + nloads + nprobes;
	pf->f = xcalloc(pf->n, sizeof *pf->f);
	pf->f[0] = (struct cmp_figure){ NULL, NULL, false };
	for (i = 0; i < nloads; i++)
		pf->f[1 + i] = (struct cmp_figure){ loads[i], NULL, true };
	for (i = 0; i < nprobes; i++)
		pf->f[1 + nloads + i] = (struct cmp_figure){ NULL, probes[i], rate[i] };
	/* the names now belong to pf */
	free(loads);
	free(probes);
	free(rate);
}

static void figures_free(struct phase_figures *pf)
{
	size_t i;

	for (i = 1; i < pf->n; i++) {
		free((char *)pf->f[i].load);
		free((char *)pf->f[i].probe);
	}
	free(pf->f);
}

/* ---- words ---- */

static const char *verdict_key(enum change_verdict v)
{
	static const char *const keys[] = { "untestable", "equivalent", "lower", "higher",
					    "inconclusive" };

	return keys[v];
}

/* "faster", "slower" for a time; "higher", "lower" for a throughput. */
static char *verdict_text(const struct change *ch, const struct cmp_figure *f)
{
	switch (ch->verdict) {
	case CHANGE_EQUIVALENT: return xstrdup("no significant change");
	case CHANGE_LOWER: return xstrdup(f->higher_better ? "lower" : "faster");
	case CHANGE_HIGHER: return xstrdup(f->higher_better ? "higher" : "slower");
	case CHANGE_INCONCLUSIVE:
		if (ch->rounds_needed >= CHANGE_MAX_ROUNDS_NEEDED)
			return xasprintf("inconclusive: need more rounds (> %u)",
					 CHANGE_MAX_ROUNDS_NEEDED - 1);
		return xasprintf("inconclusive: need more rounds (≈ %zu)", ch->rounds_needed);
	case CHANGE_UNTESTABLE: break;
	}
	return xstrdup("no figures to compare");
}

static char *fmt_pct(double ratio)
{
	return isfinite(ratio) ? xasprintf("%+.1f%%", (ratio - 1) * 100) : xstrdup("-");
}

/* Beyond ten times, the figure says nothing more than "far". */
static char *fmt_end(double ratio)
{
	return ratio > 10 ? xstrdup(">+900%") : xasprintf("%+.1f%%", (ratio - 1) * 100);
}

static char *fmt_interval(const struct change *ch)
{
	char *lo, *hi, *s;

	if (!isfinite(ch->ci_low) || !isfinite(ch->ci_high))
		return xstrdup("-");
	lo = fmt_end(ch->ci_low);
	hi = fmt_end(ch->ci_high);
	s = xasprintf("%s .. %s", lo, hi);
	free(lo);
	free(hi);
	return s;
}

static char *ranked_value(const struct cmp_figure *f, double v)
{
	return f->load == NULL ? fmt_ms(v) : fmt_count(v);
}

static const char *figure_name(const struct cmp_figure *f, char *buf, size_t len)
{
	if (f->probe != NULL)
		snprintf(buf, len, "probe %s", f->probe);
	else if (f->load != NULL)
		snprintf(buf, len, "load %s", f->load);
	else
		return "job time";
	return buf;
}

/* ---- two runs: side by side ---- */

static void print_run_line(const char *which, const struct cmp_run *r)
{
	const struct run_row *row = &r->rep.run;
	char started[64];

	format_wall(row->started_at, started, sizeof started);
	printf("%-5s run %lld in %s (%s), profile %s, started %s\n", which, (long long)row->id,
	       r->db_path, row->status, row->profile_name, started);
	printf("      host %s, kernel %s\n", row->host, row->kernel);
}

/* "No significant change" between loads that did not load says nothing:
 * the weak side is named instead. NULL when neither was weak. */
static const char *weak_verdict(const struct report_phase *pa, const struct report_phase *pb)
{
	bool wa = pa->weak[0] != '\0', wb = pb->weak[0] != '\0';

	if (wa && wb)
		return "weak load in both";
	if (wa || wb)
		return wa ? "weak load in A" : "weak load in B";
	return NULL;
}

/* What differs between the two phases, and their own notes. */
static char *pair_note(const struct report_phase *pa, const struct report_phase *pb)
{
	char *note = NULL;

	if (strcmp(pa->cache, pb->cache) != 0)
		str_append(&note, "; ", "cache %s/%s", pa->cache, pb->cache);
	if (strcmp(pa->loads, pb->loads) != 0)
		str_append(&note, "; ", "loads '%s'/'%s'", pa->loads, pb->loads);
	if (pa->note[0] != '\0')
		str_append(&note, "; ", "A: %s", pa->note);
	if (pb->note[0] != '\0')
		str_append(&note, "; ", "B: %s", pb->note);
	return note;
}

/* A job timed against a load that did clearly more or less work is not
 * timed under the same load: say so beside the job's verdict. */
static void note_load_changes(const struct cmp *c, const char *phase, char **note)
{
	struct phase_figures pf;
	size_t k;

	figures_of(c, phase, &pf);
	for (k = 1; k < pf.n; k++) {
		struct cmp_ranking rk;
		struct change ch;

		if (pf.f[k].load == NULL)
			continue;
		cmp_rank(c->runs, 2, phase, &pf.f[k], &c->opts, &rk);
		ch = cmp_pair(&rk, 0, 1);
		if (rk.why[0] == NULL && rk.why[1] == NULL &&
		    (ch.verdict == CHANGE_LOWER || ch.verdict == CHANGE_HIGHER))
			str_append(note, "; ", "load %s %+.0f%%: not the same load", pf.f[k].load,
				   (ch.ratio - 1) * 100);
		cmp_ranking_free(&rk);
	}
	figures_free(&pf);
}

static char *unusable_text(const struct cmp_ranking *rk)
{
	const char *wa = rk->why[0], *wb = rk->why[1];

	if (wa != NULL && wb != NULL && strcmp(wa, wb) == 0)
		return xasprintf("%s in both", wa);
	return wa != NULL ? xasprintf("%s in A", wa) : xasprintf("%s in B", wb);
}

static void times_row(const struct cmp *c, const char *phase, struct table *t)
{
	const struct cmp_figure f = { NULL, NULL, false };
	const struct report_phase *pa, *pb;
	struct cmp_ranking rk;
	struct change ch;
	size_t ia, ib;
	char *row[12];

	pa = cmp_find_phase(&c->runs[0], phase, &ia);
	pb = cmp_find_phase(&c->runs[1], phase, &ib);
	if (pa == NULL || pb == NULL)
		return;
	cmp_rank(c->runs, 2, phase, &f, &c->opts, &rk);
	ch = cmp_pair(&rk, 0, 1);
	row[0] = xstrdup(phase);
	row[1] = fmt_ms(pa->time.median);
	row[2] = fmt_ms(pb->time.median);
	row[3] = fmt_pct(ch.ratio);
	row[4] = fmt_interval(&ch);
	row[5] = fmt_fixed(pa->ratio, 2);
	row[6] = fmt_fixed(pb->ratio, 2);
	row[7] = xasprintf("%zu/%zu", pa->valid_rounds, pb->valid_rounds);
	row[8] = xasprintf("%zu", pa->time.n);
	row[9] = xasprintf("%zu", pb->time.n);
	row[10] = rk.why[0] || rk.why[1] ? unusable_text(&rk) : verdict_text(&ch, &f);
	if (ch.verdict == CHANGE_EQUIVALENT && weak_verdict(pa, pb) != NULL) {
		free(row[10]);
		row[10] = xstrdup(weak_verdict(pa, pb));
	}
	row[11] = pair_note(pa, pb);
	note_load_changes(c, phase, &row[11]);
	if (row[11] == NULL)
		row[11] = xstrdup("");
	table_row(t, row);
	cmp_ranking_free(&rk);
}

static void print_times(const struct cmp *c)
{
	static const char *const head[] = {
		"Phase",   "Time A", "Time B", "change", "95% interval", "Ratio A",
		"Ratio B", "rounds", "n A",    "n B",    "B vs A",       "",
	};
	static const char align[] = "lrrrrrrrrrll";
	_Static_assert(sizeof align - 1 == sizeof head / sizeof head[0], "one per column");
	struct table t;
	size_t i;

	table_init(&t, head, align);
	for (i = 0; i < c->nphases; i++)
		times_row(c, c->phases[i], &t);
	if (t.nrows > 1)
		table_print(&t, stdout);
	else
		printf("No phase name in both runs.\n");
	table_free(&t);
	printf("(Time: median job wall time, ms; change: B / A - 1 and its 95%% interval over "
	       "rounds and jobs;\n verdict: outside the ±%g%% band faster or slower, inside it "
	       "no significant change,\n across its edge inconclusive; Ratio: to the run's own "
	       "no-load phase)\n",
	       c->opts.threshold * 100);
}

static double load_lcpu(const struct report_phase *p, const char *load)
{
	const struct report_load *l = report_phase_load(p, load);

	return l ? l->lcpu_pct : NAN;
}

/* A load's rate as the report prints it, in its loader's unit. */
static char *load_rate(const struct report_phase *p, const char *load, double per_s)
{
	const struct report_load *l = report_phase_load(p, load);

	return report_rate(per_s, 0, l && l->cycle_unit ? l->cycle_unit : "cycles");
}

static void loads_rows(const struct cmp *c, const char *phase, struct table *t)
{
	const struct report_phase *pa, *pb;
	struct phase_figures pf;
	size_t ia, ib, k;

	pa = cmp_find_phase(&c->runs[0], phase, &ia);
	pb = cmp_find_phase(&c->runs[1], phase, &ib);
	if (pa == NULL || pb == NULL)
		return;
	figures_of(c, phase, &pf);
	for (k = 1; k < pf.n; k++) {
		struct cmp_ranking rk;
		struct change ch;
		char *row[9];

		if (pf.f[k].load == NULL)
			continue;
		cmp_rank(c->runs, 2, phase, &pf.f[k], &c->opts, &rk);
		ch = cmp_pair(&rk, 0, 1);
		row[0] = xstrdup(phase);
		row[1] = xstrdup(pf.f[k].load);
		row[2] = rk.why[0] ? xstrdup("-") : load_rate(pa, pf.f[k].load, ch.median_a);
		row[3] = rk.why[1] ? xstrdup("-") : load_rate(pb, pf.f[k].load, ch.median_b);
		row[4] = fmt_pct(ch.ratio);
		row[5] = fmt_interval(&ch);
		row[6] = fmt_fixed(load_lcpu(pa, pf.f[k].load), 1);
		row[7] = fmt_fixed(load_lcpu(pb, pf.f[k].load), 1);
		row[8] = rk.why[0] || rk.why[1] ? unusable_text(&rk) : verdict_text(&ch, &pf.f[k]);
		table_row(t, row);
		cmp_ranking_free(&rk);
	}
	figures_free(&pf);
}

static void print_loads(const struct cmp *c)
{
	static const char *const head[] = {
		"Phase",        "Load",    "Rate A",  "Rate B", "change",
		"95% interval", "LCPU% A", "LCPU% B", "B vs A",
	};
	static const char align[] = "llrrrrrrl";
	_Static_assert(sizeof align - 1 == sizeof head / sizeof head[0], "one per column");
	struct table t;
	size_t i;

	table_init(&t, head, align);
	for (i = 0; i < c->nphases; i++)
		loads_rows(c, c->phases[i], &t);
	if (t.nrows > 1) {
		printf("\nLoads' throughput (cycles per second over each round's probe window, "
		       "median of the rounds;\n a load that does less work has not made the "
		       "job's time comparable)\n");
		table_print(&t, stdout);
	}
	table_free(&t);
}

static void probes_rows(const struct cmp *c, const char *phase, struct table *t)
{
	struct phase_figures pf;
	size_t ia, ib, k;

	if (cmp_find_phase(&c->runs[0], phase, &ia) == NULL ||
	    cmp_find_phase(&c->runs[1], phase, &ib) == NULL)
		return;
	figures_of(c, phase, &pf);
	for (k = 1; k < pf.n; k++) {
		struct cmp_ranking rk;
		struct change ch;
		char *row[7];

		if (pf.f[k].probe == NULL)
			continue;
		cmp_rank(c->runs, 2, phase, &pf.f[k], &c->opts, &rk);
		ch = cmp_pair(&rk, 0, 1);
		row[0] = xstrdup(phase);
		row[1] = xstrdup(pf.f[k].probe);
		row[2] = fmt_ms(rk.median[0]);
		row[3] = fmt_ms(rk.median[1]);
		row[4] = rk.why[0] || rk.why[1] ? xstrdup("-") : fmt_pct(ch.ratio);
		row[5] = rk.why[0] || rk.why[1] ? xstrdup("-") : fmt_interval(&ch);
		row[6] = rk.why[0] || rk.why[1] ? unusable_text(&rk) : verdict_text(&ch, &pf.f[k]);
		table_row(t, row);
		cmp_ranking_free(&rk);
	}
	figures_free(&pf);
}

static void print_probe_verdicts(const struct cmp *c)
{
	static const char *const head[] = {
		"Phase", "Probe", "Time A", "Time B", "change", "95% interval", "B vs A",
	};
	static const char align[] = "llrrrrl";
	_Static_assert(sizeof align - 1 == sizeof head / sizeof head[0], "one per column");
	struct table t;
	size_t i;

	table_init(&t, head, align);
	for (i = 0; i < c->nphases; i++)
		probes_rows(c, c->phases[i], &t);
	if (t.nrows > 1) {
		printf("\nProbes' changes (median ms of each probe's values, a histogram probe's of "
		       "the p99 of each second,\n with the interval and verdict as for the job's "
		       "time)\n");
		table_print(&t, stdout);
	}
	table_free(&t);
}

static void print_only(const struct cmp *c, size_t which, const char *label)
{
	size_t i, at;
	bool any = false;

	for (i = 0; i < c->nphases; i++) {
		if (cmp_find_phase(&c->runs[which], c->phases[i], &at) == NULL ||
		    cmp_find_phase(&c->runs[1 - which], c->phases[i], &at) != NULL)
			continue;
		if (any)
			printf(", %s", c->phases[i]);
		else
			printf("\nOnly in %s: %s", label, c->phases[i]);
		any = true;
	}
	if (any)
		putchar('\n');
}

static void print_header(const struct cmp *c, const char *const *labels)
{
	const char *f0 = c->runs[0].rep.run.tree_fingerprint;
	size_t i;
	bool same_job = true;

	for (i = 0; i < c->n; i++)
		print_run_line(labels[i], &c->runs[i]);
	if (c->same_tree) {
		printf("Tree  %s\n", f0[0] ? f0 : "-");
	} else {
		printf("Tree ");
		for (i = 0; i < c->n; i++) {
			const char *fp = c->runs[i].rep.run.tree_fingerprint;

			printf(" %s %s%s", labels[i], fp[0] ? fp : "none", i + 1 < c->n ? "," : "");
		}
		printf(": compared anyway (--force)\n");
	}
	for (i = 1; i < c->n; i++)
		same_job &= strcmp(c->runs[i].job, c->runs[0].job) == 0;
	if (same_job) {
		printf("Job   %s\n", c->runs[0].job);
	} else {
		printf("Job  ");
		for (i = 0; i < c->n; i++)
			printf(" %s %s%s", labels[i], c->runs[i].job, i + 1 < c->n ? "," : "");
		putchar('\n');
	}
	putchar('\n');
}

/* ---- every probe: its figure per run, side by side ---- */

/* The probe's figure of a phase: its median, or a histogram probe's p99
 * (what its Ratio in the report divides); NaN when the run has none. */
static double probe_figure(const struct cmp_run *r, const char *phase, const char *probe)
{
	size_t at;
	const struct report_phase *p = cmp_find_phase(r, phase, &at);

	for (size_t k = 0; p != NULL && k < p->nprobe; k++) {
		const struct report_probe *rp = &p->probe[k];

		if (strcmp(rp->name, probe) == 0 && rp->ran)
			return rp->histogram ? rp->p99 : rp->time.median;
	}
	return NAN;
}

/* The probes other than the job that any run had, in order of first sight,
 * with whether each is a histogram probe. */
static size_t other_probes(const struct cmp *c, char ***names, bool **hist)
{
	size_t n = 0;

	*names = NULL;
	*hist = NULL;
	for (size_t i = 0; i < c->n; i++) {
		const struct run_report *rep = &c->runs[i].rep;

		for (size_t j = 0; j < rep->nphases; j++) {
			for (size_t k = 0; k < rep->phases[j].nprobe; k++) {
				const struct report_probe *rp = &rep->phases[j].probe[k];
				size_t before = n;

				if (strcmp(rp->type, "job") == 0)
					continue;
				add_name(names, &n, rp->name);
				if (n > before) {
					*hist = xreallocarray(*hist, n, sizeof **hist);
					(*hist)[n - 1] = rp->histogram;
				}
			}
		}
	}
	return n;
}

/* Each other probe's figure per phase in every run, and each run's change
 * against the first: a side-by-side view, not a verdict (the job's time and
 * the loads above carry the statistics). */
static void print_probe_figures(const struct cmp *c)
{
	char **names;
	bool *hist;
	size_t np = other_probes(c, &names, &hist);
	char **head;
	char *align;
	struct table t;

	if (np == 0)
		return;
	head = xcalloc(3 + 2 * c->n, sizeof *head);
	align = xcalloc(3 + 2 * c->n + 1, 1);
	head[0] = "Phase";
	head[1] = "Probe";
	head[2] = "Figure";
	strcpy(align, "lll");
	/* A and B for two runs, as the tables above; numbers for more */
	for (size_t i = 0; i < c->n; i++) {
		head[3 + i] = c->n == 2 ? xstrdup(i ? "B" : "A") : xasprintf("run %zu", i + 1);
		strcat(align, "r");
	}
	for (size_t i = 1; i < c->n; i++) {
		head[3 + c->n + i - 1] = c->n == 2 ? xstrdup("B vs A")
						   : xasprintf("%zu vs 1", i + 1);
		strcat(align, "r");
	}
	head[3 + 2 * c->n - 1] = NULL;
	align[3 + 2 * c->n - 1] = '\0';
	table_init(&t, (const char *const *)head, align);
	for (size_t ph = 0; ph < c->nphases; ph++) {
		for (size_t k = 0; k < np; k++) {
			char **row = xcalloc(3 + 2 * c->n, sizeof *row);
			double first = probe_figure(&c->runs[0], c->phases[ph], names[k]);
			bool any = false;

			row[0] = xstrdup(c->phases[ph]);
			row[1] = xstrdup(names[k]);
			row[2] = xstrdup(hist[k] ? "p99 ms" : "median ms");
			for (size_t i = 0; i < c->n; i++) {
				double v = probe_figure(&c->runs[i], c->phases[ph], names[k]);

				any |= !isnan(v);
				row[3 + i] = fmt_ms(v);
				if (i > 0)
					row[3 + c->n + i - 1] = fmt_pct(v / first);
			}
			if (any)
				table_row(&t, row);
			else
				for (size_t i = 0; i < 3 + 2 * c->n - 1; i++)
					free(row[i]);
			free(row);
		}
	}
	if (t.nrows > 1) {
		printf("\nProbes (each run's median, a histogram probe's p99, over the phase's "
		       "valid rounds; side by side, no verdict)\n");
		table_print(&t, stdout);
	}
	table_free(&t);
	for (size_t i = 3; i < 3 + 2 * c->n - 1; i++)
		free(head[i]);
	free(head);
	free(align);
	for (size_t k = 0; k < np; k++)
		free(names[k]);
	free(names);
	free(hist);
}

static json_t *probe_figures_json(const struct cmp *c)
{
	json_t *a = json_array();
	char **names;
	bool *hist;
	size_t np = other_probes(c, &names, &hist);

	for (size_t ph = 0; ph < c->nphases; ph++) {
		for (size_t k = 0; k < np; k++) {
			json_t *o = json_object(), *v = json_array();

			for (size_t i = 0; i < c->n; i++)
				json_array_append_new(
					v, json_real_or_null(probe_figure(
						   &c->runs[i], c->phases[ph], names[k])));
			json_set(o, "phase", json_text(c->phases[ph]));
			json_set(o, "probe", json_text(names[k]));
			json_set(o, "figure", json_string(hist[k] ? "p99_ms" : "median_ms"));
			json_set(o, "values", v);
			json_array_append_new(a, o);
		}
	}
	for (size_t k = 0; k < np; k++)
		free(names[k]);
	free(names);
	free(hist);
	return a;
}

static void print_two(const struct cmp *c)
{
	static const char *const labels[] = { "A", "B" };

	print_header(c, labels);
	print_times(c);
	print_loads(c);
	print_probe_verdicts(c);
	print_probe_figures(c);
	print_only(c, 0, "A");
	print_only(c, 1, "B");
}

/* ---- many runs: ranked ---- */

/* "1", "2 = 4": the runs of one rank, by their position on the command line. */
static char *runs_of_rank(const struct cmp_ranking *rk, size_t rank)
{
	char *s = NULL;
	size_t i;

	for (i = 0; i < rk->n; i++) {
		char *next;

		if (rk->rank[i] != rank)
			continue;
		next = s ? xasprintf("%s = %zu", s, i + 1) : xasprintf("%zu", i + 1);
		free(s);
		s = next;
	}
	return s ? s : xstrdup("-");
}

/* The lowest rank above `above` any run holds; 0 when none. */
static size_t next_rank(const struct cmp_ranking *rk, size_t above)
{
	size_t i, best = 0;

	for (i = 0; i < rk->n; i++)
		if (rk->rank[i] > above && (best == 0 || rk->rank[i] < best))
			best = rk->rank[i];
	return best;
}

/* The run the others are set against: the best-ranked, with the better
 * median among those tied. */
static size_t leader(const struct cmp_ranking *rk, const struct cmp_figure *f)
{
	size_t i, lead = rk->n;

	for (i = 0; i < rk->n; i++) {
		struct change ch;

		if (rk->rank[i] != 1)
			continue;
		if (lead == rk->n) {
			lead = i;
			continue;
		}
		ch = cmp_pair(rk, lead, i);
		if (f->higher_better ? ch.ratio > 1 : ch.ratio < 1)
			lead = i;
	}
	return lead;
}

static void ranked_table(const struct cmp *c, const char *phase, const struct cmp_figure *f,
			 const struct cmp_ranking *rk)
{
	static const char *const head[] = {
		"Rank", "Run", "Value", "vs best", "95% interval", "rounds", "verdict vs best",
	};
	static const char align[] = "lrrrrrl";
	_Static_assert(sizeof align - 1 == sizeof head / sizeof head[0], "one per column");
	size_t lead = leader(rk, f), rank, i;
	struct table t;
	char name[128];

	printf("\n%s, %s (%s)\n", phase, figure_name(f, name, sizeof name),
	       f->load                        ? "cycles per second, higher is better"
	       : f->probe && f->higher_better ? "median in the probe's rate unit, higher is better"
	       : f->probe ? "median ms (histograms: of each second's p99), lower is better"
			  : "median ms, lower is better");
	table_init(&t, head, align);
	for (rank = next_rank(rk, 0); rank != 0; rank = next_rank(rk, rank)) {
		for (i = 0; i < rk->n; i++) {
			struct change ch;
			size_t at;
			char *row[7];

			if (rk->rank[i] != rank)
				continue;
			cmp_find_phase(&c->runs[i], phase, &at);
			row[0] = xasprintf("%zu", rank);
			row[1] = xasprintf("%zu", i + 1);
			row[2] = ranked_value(f, rk->median[i]);
			if (i == lead) {
				row[3] = xstrdup("");
				row[4] = xstrdup("");
				row[6] = xstrdup("(best)");
			} else {
				ch = cmp_pair(rk, lead, i);
				row[3] = fmt_pct(ch.ratio);
				row[4] = fmt_interval(&ch);
				row[6] = verdict_text(&ch, f);
			}
			row[5] = xasprintf("%zu", c->runs[i].rep.phases[at].valid_rounds);
			table_row(&t, row);
		}
	}
	for (i = 0; i < rk->n; i++) {
		char *row[7];

		if (rk->why[i] == NULL)
			continue;
		row[0] = xstrdup("-");
		row[1] = xasprintf("%zu", i + 1);
		row[2] = xstrdup("-");
		row[3] = xstrdup("");
		row[4] = xstrdup("");
		row[5] = xstrdup("");
		row[6] = xstrdup(rk->why[i]);
		table_row(&t, row);
	}
	table_print(&t, stdout);
	table_free(&t);
}

/* One row of the summary: the runs ranked first and second. */
static void summary_row(const char *phase, const struct cmp_figure *f, const struct cmp_ranking *rk,
			struct table *t)
{
	size_t first = next_rank(rk, 0), second = first ? next_rank(rk, first) : 0;
	char name[128], *row[4];

	row[0] = xstrdup(phase);
	row[1] = xstrdup(figure_name(f, name, sizeof name));
	row[2] = first ? runs_of_rank(rk, first) : xstrdup("-");
	row[3] = second ? runs_of_rank(rk, second) : xstrdup("-");
	table_row(t, row);
}

static void print_many(const struct cmp *c)
{
	static const char *const head[] = { "Phase", "Figure", "best", "second" };
	struct table summary;
	char **labels = xcalloc(c->n, sizeof *labels);
	size_t i, k;

	for (i = 0; i < c->n; i++)
		labels[i] = xasprintf("%zu", i + 1);
	print_header(c, (const char *const *)labels);
	printf("Runs are numbered as given. Ranks: 1 + how many runs are better beyond the "
	       "±%g%% band;\nruns within it, or too close to tell, share a rank.\n",
	       c->opts.threshold * 100);
	table_init(&summary, head, "llll");
	for (i = 0; i < c->nphases; i++) {
		struct phase_figures pf;

		figures_of(c, c->phases[i], &pf);
		for (k = 0; k < pf.n; k++) {
			struct cmp_ranking rk;

			cmp_rank(c->runs, c->n, c->phases[i], &pf.f[k], &c->opts, &rk);
			ranked_table(c, c->phases[i], &pf.f[k], &rk);
			summary_row(c->phases[i], &pf.f[k], &rk, &summary);
			cmp_ranking_free(&rk);
		}
		figures_free(&pf);
	}
	printf("\nSummary (runs by number; '=' joins runs that share a rank)\n");
	table_print(&summary, stdout);
	table_free(&summary);
	print_probe_figures(c);
	for (i = 0; i < c->n; i++)
		free(labels[i]);
	free(labels);
}

/* ---- JSON ---- */

static json_t *json_run(const struct cmp_run *r)
{
	const struct run_row *row = &r->rep.run;
	json_t *o = json_object();

	json_set(o, "spec", json_text(r->spec));
	json_set(o, "db", json_text(r->db_path));
	json_set(o, "id", json_integer(row->id));
	json_set(o, "status", json_text(row->status));
	json_set(o, "profile", json_text(row->profile_name));
	json_set(o, "host", json_text(row->host));
	json_set(o, "kernel", json_text(row->kernel));
	json_set(o, "started_at", json_real_or_null(row->started_at));
	json_set(o, "tree_fingerprint", json_text(row->tree_fingerprint));
	json_set(o, "job", json_text(r->job));
	return o;
}

static json_t *json_change(const struct change *ch, const struct cmp_figure *f, size_t a, size_t b)
{
	json_t *o = json_object();
	char *text = verdict_text(ch, f);

	json_set(o, "a", json_integer((json_int_t)a));
	json_set(o, "b", json_integer((json_int_t)b));
	json_set(o, "median_a", json_real_or_null(ch->median_a));
	json_set(o, "median_b", json_real_or_null(ch->median_b));
	json_set(o, "ratio", json_real_or_null(ch->ratio));
	json_set(o, "ci_low", json_real_or_null(ch->ci_low));
	json_set(o, "ci_high", json_real_or_null(ch->ci_high));
	json_set(o, "verdict", json_string(verdict_key(ch->verdict)));
	json_set(o, "verdict_text", json_string(text));
	json_set(o, "rounds_needed",
		 ch->rounds_needed ? json_integer((json_int_t)ch->rounds_needed) : json_null());
	free(text);
	return o;
}

static json_t *json_figure(const struct cmp *c, const char *phase, const struct cmp_figure *f,
			   const struct cmp_ranking *rk)
{
	json_t *o = json_object(), *runs = json_array(), *pairs = json_array();
	size_t i, j, at;

	for (i = 0; i < rk->n; i++) {
		const struct report_phase *p = cmp_find_phase(&c->runs[i], phase, &at);
		json_t *r = json_object();

		json_set(r, "run", json_integer((json_int_t)i));
		json_set(r, "rank",
			 rk->rank[i] ? json_integer((json_int_t)rk->rank[i]) : json_null());
		json_set(r, "why_not", rk->why[i] ? json_text(rk->why[i]) : json_null());
		json_set(r, "median", json_real_or_null(rk->median[i]));
		json_set(r, "valid_rounds",
			 p ? json_integer((json_int_t)p->valid_rounds) : json_null());
		json_set(r, "note", p && p->note[0] ? json_text(p->note) : json_null());
		json_set(r, "weak", p && p->weak[0] ? json_text(p->weak) : json_null());
		json_array_append_new(runs, r);
	}
	for (i = 0; i < rk->n; i++)
		for (j = i + 1; j < rk->n; j++)
			if (rk->why[i] == NULL && rk->why[j] == NULL)
				json_array_append_new(
					pairs, json_change(&rk->pair[i * rk->n + j], f, i, j));
	json_set(o, "figure", json_string(f->load ? "load" : f->probe ? "probe" : "time"));
	json_set(o, "load", f->load ? json_text(f->load) : json_null());
	json_set(o, "probe", f->probe ? json_text(f->probe) : json_null());
	json_set(o, "unit", json_string(f->load ? "cycles/s" : "ms"));
	json_set(o, "higher_is_better", json_boolean(f->higher_better));
	json_set(o, "runs", runs);
	json_set(o, "pairs", pairs);
	return o;
}

static json_t *build_json(const struct cmp *c)
{
	json_t *root = json_object(), *runs = json_array(), *phases = json_array();
	size_t i, k;

	for (i = 0; i < c->n; i++)
		json_array_append_new(runs, json_run(&c->runs[i]));
	for (i = 0; i < c->nphases; i++) {
		json_t *ph = json_object(), *figs = json_array();
		struct phase_figures pf;

		figures_of(c, c->phases[i], &pf);
		for (k = 0; k < pf.n; k++) {
			struct cmp_ranking rk;

			cmp_rank(c->runs, c->n, c->phases[i], &pf.f[k], &c->opts, &rk);
			json_array_append_new(figs, json_figure(c, c->phases[i], &pf.f[k], &rk));
			cmp_ranking_free(&rk);
		}
		figures_free(&pf);
		json_set(ph, "name", json_text(c->phases[i]));
		json_set(ph, "figures", figs);
		json_array_append_new(phases, ph);
	}
	json_set(root, "runs", runs);
	json_set(root, "same_tree", json_boolean(c->same_tree));
	json_set(root, "method",
		 json_string("ratio of medians, 95% interval from a hierarchical "
			     "bootstrap (rounds, then jobs), t-stretched"));
	json_set(root, "threshold", json_real(c->opts.threshold));
	json_set(root, "resamples", json_integer(c->opts.resamples));
	json_set(root, "phases", phases);
	json_set(root, "probes", probe_figures_json(c));
	return root;
}

static int print_json(const struct cmp *c)
{
	json_t *root = build_json(c);
	int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15));

	json_decref(root);
	if (rc == 0)
		putchar('\n');
	return rc;
}

/* ---- the command ---- */

/* Refuses runs over different trees unless forced; warns of other jobs. */
static int check_comparable(struct cmp *c, bool force)
{
	const struct cmp_run *r0 = &c->runs[0];
	size_t i;

	c->same_tree = true;
	for (i = 1; i < c->n; i++) {
		const struct cmp_run *r = &c->runs[i];
		const char *fa = r0->rep.run.tree_fingerprint, *fb = r->rep.run.tree_fingerprint;

		if (strcmp(fa, fb) != 0) {
			c->same_tree = false;
			if (!force) {
				log_error("runs %s and %s timed different trees (fingerprints %s "
					  "and %s): their times are not comparable (--force "
					  "compares them anyway)",
					  r0->spec, r->spec, fa[0] ? fa : "none",
					  fb[0] ? fb : "none");
				return -1;
			}
			log_warn("runs %s and %s timed different trees (fingerprints %s and %s): "
				 "compared anyway, as --force asks",
				 r0->spec, r->spec, fa[0] ? fa : "none", fb[0] ? fb : "none");
		}
		if (strcmp(r0->job, r->job) != 0)
			log_warn("runs %s and %s timed different jobs ('%s' and '%s')", r0->spec,
				 r->spec, r0->job, r->job);
	}
	return 0;
}

static void cmp_free(struct cmp *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		cmp_run_free(&c->runs[i]);
	free(c->runs);
	for (i = 0; i < c->nphases; i++)
		free(c->phases[i]);
	free(c->phases);
}

static int cmd_compare_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc,
			    char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },  { "html", required_argument, NULL, 'H' },
		{ "force", no_argument, NULL, 'f' }, { "threshold", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },  { NULL, 0, NULL, 0 },
	};
	struct cmp c = { 0 };
	bool json = false, force = false;
	const char *html = NULL;
	int opt, status = LOADCTL_ERROR;
	size_t i;

	change_opts_default(&c.opts);
	while ((opt = getopt_long(argc, argv, "jft:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'f': force = true; break;
		case 'H': html = optarg; break;
		case 't':
			c.opts.threshold = cmp_parse_threshold(optarg);
			if (c.opts.threshold < 0)
				return loadctl_usage_error(self,
							   "--threshold '%s' is not a "
							   "percentage between 0 and 100",
							   optarg);
			break;
		case 'h': return loadctl_usage(self);
		default: return loadctl_usage_error(self, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return loadctl_usage_error(self, "which runs? give two or more");
	if (json && html != NULL)
		return loadctl_usage_error(self, "--json and --html exclude each other");
	c.n = (size_t)(argc - optind);
	c.runs = xcalloc(c.n, sizeof *c.runs);
	for (i = 0; i < c.n; i++) {
		const char *spec = argv[optind + (int)i];

		if (cmp_run_parse(spec, lc->db_path, &c.runs[i]) < 0) {
			cmp_free(&c);
			return loadctl_usage_error(self,
						   "'%s' is not a run: give RUN or DB:RUN "
						   "(see loadctl runs)",
						   spec);
		}
	}
	if (!json && html == NULL) /* a page is machine output, escaped as HTML */
		term_guard_stdout();
	for (i = 0; i < c.n; i++)
		if (cmp_run_load(&c.runs[i]) < 0)
			goto out;
	if (check_comparable(&c, force) < 0)
		goto out;
	collect_phases(&c);
	if (html != NULL) {
		json_t *root = build_json(&c);

		status = compare_html(html, root) == 0 ? LOADCTL_OK : LOADCTL_ERROR;
		json_decref(root);
	} else if (json) {
		status = print_json(&c) == 0 ? LOADCTL_OK : LOADCTL_ERROR;
	} else {
		if (c.n == 2)
			print_two(&c);
		else
			print_many(&c);
		status = LOADCTL_OK;
	}
out:
	cmp_free(&c);
	return status;
}

const struct loadctl_cmd cmd_compare_entry = {
	.name = "compare",
	.args = "RUN RUN... [--threshold PCT] [--json | --html FILE] [--force]",
	.summary = "two or more runs (RUN or DB:RUN) phase by phase: changes, verdicts, ranking",
	.exec = cmd_compare_exec,
};
