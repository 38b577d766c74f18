// SPDX-License-Identifier: GPL-2.0-or-later
/* The study tables of a run (report_study.h): each probe with a study kind
 * read back with its stored options, its figures over each phase's valid
 * rounds laid out by study_layout.c, and printed as text, JSON and HTML. */
#include "report_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "json_build.h"
#include "log.h"
#include "table.h"
#include "xalloc.h"

/* Cells per line of text before the phases wrap onto another block. */
#define STUDY_TEXT_CELLS 12

static const struct study_kind *kinds_in_use;

void report_study_use(const struct study_kind *kinds)
{
	kinds_in_use = kinds;
}

const struct study_kind *report_study_kinds(void)
{
	return kinds_in_use;
}

/* ---- building ---- */

/* Seconds per unit of a time unit, 0 for any other unit. */
static double unit_seconds(const char *unit)
{
	static const struct {
		const char *name;
		double s;
	} units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 } };

	for (size_t i = 0; unit && i < sizeof units / sizeof units[0]; i++)
		if (strcmp(unit, units[i].name) == 0)
			return units[i].s;
	return 0;
}

/* The factor from a figure in `from` to one in `to`: 1 unless both are times. */
static double unit_factor(const char *from, const char *to)
{
	double f = unit_seconds(from), t = unit_seconds(to);

	return f > 0 && t > 0 ? f / t : 1;
}

/* A sample's figure for a place, in the place's unit; NaN when it has none. */
static double place_figure(const struct study_place *sp, const char *units, const struct sample *s)
{
	double v = sample_figure(s);

	if (sp->figure == STUDY_SWITCHES_PER_OP) {
		double ops = s->wall_ms * unit_factor("ms", units) / v;

		return ops > 0 && isfinite(ops) ? (double)(s->nvcsw + s->nivcsw) / ops : NAN;
	}
	return v * unit_factor(units, sp->unit);
}

static const struct study_kind *kind_of(const struct study_kind *kinds, const char *type)
{
	for (const struct study_kind *k = kinds; k && k->type; k++)
		if (strcmp(k->type, type) == 0)
			return k;
	return NULL;
}

/* What one probe's figures need on their way into the layout. */
struct study_probe {
	struct study_layout *l;
	const struct study_kind *k;
	const struct probe_info *info;
	size_t order;
	const char *phase;
};

static int add_hist(void *arg, const struct hist_record *h)
{
	const struct study_probe *sp = arg;

	for (const struct study_place *pl = sp->k->places; pl->table; pl++)
		if (pl->figure == STUDY_VALUE)
			study_layout_add_hist(sp->l, sp->k, pl, sp->order, sp->info->options,
					      h->variant, sp->phase, h->hist,
					      unit_factor("ns", pl->unit));
	return 0;
}

/* A sample's figure for a place, or what it says when it has none. */
static void add_sample(const struct study_probe *sp, const struct study_place *pl,
		       const struct sample *s)
{
	double v = place_figure(pl, sp->info->units, s);
	char note[128] = "";

	if (isnan(v) && pl->note != NULL) {
		pl->note(s, note, sizeof note);
		study_layout_note(sp->l, sp->k, pl, sp->order, sp->info->options, s->variant,
				  sp->phase, note);
		return;
	}
	study_layout_add(sp->l, sp->k, pl, sp->order, sp->info->options, s->variant, sp->phase, v);
}

static int add_samples(struct db *db, const struct study_probe *sp, int64_t phase_id)
{
	struct sample *s;
	size_t n;

	if (db_probe_samples_list(db, phase_id, sp->info->id, &s, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i].failed)
			continue;
		for (const struct study_place *pl = sp->k->places; pl->table; pl++)
			add_sample(sp, pl, &s[i]);
	}
	free(s);
	return 0;
}

/* One probe over every valid round of every phase. */
static int add_study_probe(struct db *db, const struct run_report *rep, struct study_probe *sp)
{
	for (size_t j = 0; j < rep->nphases; j++) {
		const struct report_phase *p = &rep->phases[j];

		sp->phase = p->name;
		for (size_t r = 0; r < p->nrounds; r++) {
			int rc;

			if (!p->rounds[r].valid)
				continue;
			rc = sp->info->histogram ? db_hists_foreach(db, 0, p->rounds[r].phase_id,
								    sp->info->id, add_hist, sp)
						 : add_samples(db, sp, p->rounds[r].phase_id);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

int study_report_build(struct db *db, const struct run_report *rep, const struct study_kind *kinds,
		       struct study_report *out)
{
	struct study_layout *l = study_layout_new();
	const char **phases = xcalloc(rep->nphases + 1, sizeof *phases);
	struct probe_info *probes = NULL;
	size_t nprobes = 0;
	int rc = 0;

	if (kinds != NULL && rep->nphases > 0 &&
	    db_probes_list(db, rep->run.id, &probes, &nprobes) < 0)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < nprobes; i++) {
		struct study_probe sp = { .l = l, .info = &probes[i], .order = i };

		sp.k = kind_of(kinds, probes[i].type);
		if (sp.k != NULL)
			rc = add_study_probe(db, rep, &sp);
	}
	for (size_t j = 0; j < rep->nphases; j++)
		phases[j] = rep->phases[j].name;
	study_layout_finish(l, phases, rep->nphases, out);
	free(phases);
	db_probes_free(probes, nprobes);
	if (rc < 0)
		study_report_free(out);
	return rc;
}

/* ---- text ---- */

static const struct study_cell *cell_at(const struct study_table *t, size_t r, size_t c, size_t p)
{
	return &t->cell[(r * t->ncol + c) * t->nphase + p];
}

/* Whether the columns need a heading line of their own under the phases. */
static bool named_columns(const struct study_table *t)
{
	return t->ncol > 1 || (t->ncol == 1 && t->col_label[0][0] != '\0');
}

/* The phases [p0, p1) of a table, side by side. */
static void text_block(const struct study_table *t, size_t p0, size_t p1, FILE *out)
{
	size_t ncells = 1 + (p1 - p0) * t->ncol;
	const char **head = xcalloc(ncells, sizeof *head);
	char *align = xcalloc(ncells + 1, 1);
	bool named = named_columns(t);
	struct table tb;

	memset(align, 'r', ncells);
	align[0] = 'l';
	head[0] = named ? "" : t->rows;
	for (size_t p = p0; p < p1; p++)
		for (size_t c = 0; c < t->ncol; c++)
			head[1 + (p - p0) * t->ncol + c] = c == 0 ? t->phase[p] : "";
	table_init(&tb, head, align);
	tb.indent = "  ";
	if (named) {
		char **row = xcalloc(ncells, sizeof *row);

		row[0] = xstrdup(t->rows);
		for (size_t p = p0; p < p1; p++)
			for (size_t c = 0; c < t->ncol; c++)
				row[1 + (p - p0) * t->ncol + c] = xstrdup(t->col_label[c]);
		table_row(&tb, row);
		free(row);
	}
	for (size_t r = 0; r < t->nrow; r++) {
		char **row = xcalloc(ncells, sizeof *row);

		row[0] = xstrdup(t->row_label[r]);
		for (size_t p = p0; p < p1; p++)
			for (size_t c = 0; c < t->ncol; c++)
				row[1 + (p - p0) * t->ncol + c] = study_cell_text(
					cell_at(t, r, c, p));
		table_row(&tb, row);
		free(row);
	}
	table_print(&tb, out);
	table_free(&tb);
	free(head);
	free(align);
}

void study_text(const struct study_report *sr, FILE *out)
{
	if (sr->ntable == 0)
		return;
	fprintf(out, "\nStudy tables (each cell: the median over the phase's valid rounds; "
		     "a histogram probe's p50):\n");
	for (size_t i = 0; i < sr->ntable; i++) {
		const struct study_table *t = &sr->table[i];
		size_t per = t->ncol ? STUDY_TEXT_CELLS / t->ncol : 1;

		per = per ? per : 1;
		fprintf(out, "\n%s\n", t->title);
		if (t->nphase == 0)
			fprintf(out, "  (no figure in any valid round)\n");
		for (size_t p = 0; p < t->nphase; p += per)
			text_block(t, p, p + per < t->nphase ? p + per : t->nphase, out);
	}
}

void report_study_print(struct db *db, const struct run_report *rep, FILE *out)
{
	struct study_report sr;

	if (kinds_in_use == NULL || study_report_build(db, rep, kinds_in_use, &sr) < 0)
		return;
	study_text(&sr, out);
	study_report_free(&sr);
}

/* ---- JSON ---- */

static json_t *json_strings(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_text(v[i]));
	return a;
}

static json_t *json_study_table(const struct study_table *t)
{
	json_t *o = json_object(), *cols = json_array(), *cells = json_array();

	for (size_t c = 0; c < t->ncol; c++) {
		json_t *col = json_object();

		json_set(col, "label", json_text(t->col_label[c]));
		json_set(col, "unit", json_text(t->col_unit[c]));
		json_array_append_new(cols, col);
	}
	for (size_t r = 0; r < t->nrow; r++)
		for (size_t c = 0; c < t->ncol; c++)
			for (size_t p = 0; p < t->nphase; p++) {
				json_t *cell = json_object();

				json_set(cell, "row", json_text(t->row_label[r]));
				json_set(cell, "column", json_text(t->col_label[c]));
				json_set(cell, "phase", json_text(t->phase[p]));
				json_set(cell, "median",
					 json_real_or_null(cell_at(t, r, c, p)->median));
				json_set(cell, "n",
					 json_integer((json_int_t)cell_at(t, r, c, p)->n));
				json_array_append_new(cells, cell);
			}
	json_set(o, "title", json_text(t->title));
	json_set(o, "rows", json_text(t->rows));
	json_set(o, "statistic", json_text("median"));
	json_set(o, "row_labels", json_strings(t->row_label, t->nrow));
	json_set(o, "columns", cols);
	json_set(o, "phases", json_strings(t->phase, t->nphase));
	json_set(o, "cells", cells);
	return o;
}

json_t *study_json(const struct study_report *sr)
{
	json_t *a = json_array();

	for (size_t i = 0; i < sr->ntable; i++)
		json_array_append_new(a, json_study_table(&sr->table[i]));
	return a;
}

json_t *report_study_json(struct db *db, const struct run_report *rep)
{
	struct study_report sr;
	json_t *a;

	if (kinds_in_use == NULL || study_report_build(db, rep, kinds_in_use, &sr) < 0)
		return json_array();
	a = study_json(&sr);
	study_report_free(&sr);
	return a;
}

/* ---- HTML ---- */

static void html_table(const struct study_table *t, FILE *out)
{
	bool named = named_columns(t);

	html_raw(out, "<h3>");
	html_text(out, t->title);
	html_raw(out, "</h3>\n<div class=\"wide\"><table>\n<tr><th class=\"l\">");
	html_text(out, named ? "" : t->rows);
	html_raw(out, "</th>");
	for (size_t p = 0; p < t->nphase; p++) {
		html_raw(out, "<th colspan=\"%zu\">", t->ncol);
		html_text(out, t->phase[p]);
		html_raw(out, "</th>");
	}
	html_raw(out, "</tr>\n");
	if (named) {
		html_raw(out, "<tr><th class=\"l\">");
		html_text(out, t->rows);
		html_raw(out, "</th>");
		for (size_t p = 0; p < t->nphase; p++)
			for (size_t c = 0; c < t->ncol; c++) {
				html_raw(out, "<th>");
				html_text(out, t->col_label[c]);
				html_raw(out, "</th>");
			}
		html_raw(out, "</tr>\n");
	}
	for (size_t r = 0; r < t->nrow; r++) {
		html_raw(out, "<tr><td class=\"l\">");
		html_text(out, t->row_label[r]);
		html_raw(out, "</td>");
		for (size_t p = 0; p < t->nphase; p++)
			for (size_t c = 0; c < t->ncol; c++) {
				char *v = study_cell_text(cell_at(t, r, c, p));

				html_raw(out, "<td>");
				html_text(out, v);
				html_raw(out, "</td>");
				free(v);
			}
		html_raw(out, "</tr>\n");
	}
	html_raw(out, "</table></div>\n");
}

void study_html(const struct study_report *sr, FILE *out)
{
	if (sr->ntable == 0)
		return;
	html_raw(out, "<h2>Study tables</h2>\n<p>Each cell: the median of the probe's figures "
		      "over the phase's valid rounds (a histogram probe's p50).</p>\n");
	for (size_t i = 0; i < sr->ntable; i++)
		html_table(&sr->table[i], out);
}

void report_study_html(struct db *db, const struct run_report *rep, FILE *out)
{
	struct study_report sr;

	if (kinds_in_use == NULL || study_report_build(db, rep, kinds_in_use, &sr) < 0)
		return;
	study_html(&sr, out);
	study_report_free(&sr);
}
