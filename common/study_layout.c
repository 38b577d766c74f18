// SPDX-License-Identifier: GPL-2.0-or-later
/* The study tables' layout: figures in, rows x columns x phases out. Labels
 * come from each probe's stored options through its place's templates; rows
 * and columns sort by the values behind their labels, so lat_ctx's sizes
 * read 0, 16K, 64K and the spawn modes thread, fork, exec. */
#include "report_study.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "stats.h"
#include "xalloc.h"

#define STUDY_MAX_KEYS 4 /* placeholders of a label that sort it */

/* A row or a column: its label and what sorts it. */
struct lay_label {
	char *label;
	char *unit;                 /* columns: of their cells */
	double key[STUDY_MAX_KEYS]; /* NaN: no order by value */
	size_t order;               /* first seen, for ties */
	size_t index;               /* its place once sorted */
};

struct lay_axis {
	struct lay_label *v;
	size_t n;
};

struct lay_cell {
	size_t row, col;
	const char *phase; /* the caller's string */
	double *values;
	size_t n;
	struct hist *hist; /* histogram figures, in ns */
	char *note;
	double scale; /* from the histogram's ns to the cell's unit */
};

struct lay_table {
	char *title;
	char *rows;
	struct lay_axis row_axis, col_axis;
	struct lay_cell *cell;
	size_t ncell;
};

struct study_layout {
	struct lay_table *t;
	size_t n;
};

/* ---- labels ---- */

/* The value of key in "key = value" lines, NULL when it is not there. */
static char *option_value(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; line != NULL && *line != '\0';) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len > klen + 3 && strncmp(line, key, klen) == 0 &&
		    strncmp(line + klen, " = ", 3) == 0)
			return xstrndup(line + klen + 3, len - klen - 3);
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

char *study_option(const struct option_def *options, const char *text, const char *key)
{
	const struct option_def *def = options ? options_find(options, key) : NULL;
	char *v = option_value(text ? text : "", key);

	if (v != NULL)
		return v;
	return xstrdup(def && def->def ? def->def : "");
}

/* What sorts a value: a number or a size by value, a choice by its place
 * in the table; NaN when nothing does. */
static double option_order(const struct option_def *def, const char *value)
{
	struct size_spec size;
	const char *err;
	int64_t ms;
	long n;

	if (def == NULL)
		return NAN;
	switch (def->type) {
	case OPT_INT: return parse_long(value, &n, &err) == 0 ? (double)n : NAN;
	case OPT_DURATION: return parse_duration_ms(value, &ms, &err) == 0 ? (double)ms : NAN;
	case OPT_SIZE:
		return parse_size(value, &size, &err) == 0 && size.kind == SIZE_BYTES
			       ? (double)size.bytes
			       : NAN;
	case OPT_ENUM:
		for (size_t i = 0; def->choices && def->choices[i]; i++)
			if (strcmp(def->choices[i], value) == 0)
				return (double)i;
		return NAN;
	default: return NAN;
	}
}

/* One {key} of a template: its text and its order. */
static char *placeholder(const char *key, const struct option_def *options, const char *text,
			 int variant, const struct study_place *sp, double *order)
{
	char buf[64];
	char *v;

	if (strcmp(key, "variant") == 0) {
		*order = variant;
		if (sp && sp->variant_label) {
			sp->variant_label(text ? text : "", variant, buf, sizeof buf);
			return xstrdup(buf);
		}
		return xasprintf("%d", variant);
	}
	v = study_option(options, text, key);
	*order = option_order(options ? options_find(options, key) : NULL, v);
	return v;
}

/* Fills a template; keys[] gets each placeholder's order (NaN-padded). */
static char *expand(const char *tpl, const struct option_def *options, const char *text,
		    int variant, const struct study_place *sp, double *keys)
{
	char *out = xstrdup("");
	size_t nkey = 0;

	for (size_t i = 0; i < STUDY_MAX_KEYS; i++)
		keys[i] = NAN;
	while (tpl && *tpl) {
		const char *open = strchr(tpl, '{'), *close = open ? strchr(open, '}') : NULL;
		size_t lit = close ? (size_t)(open - tpl) : strlen(tpl);
		char *key, *v, *more;
		double order;

		more = xasprintf("%s%.*s", out, (int)lit, tpl);
		free(out);
		out = more;
		if (close == NULL)
			break;
		key = xstrndup(open + 1, (size_t)(close - open - 1));
		v = placeholder(key, options, text, variant, sp, &order);
		if (nkey < STUDY_MAX_KEYS)
			keys[nkey++] = order;
		more = xasprintf("%s%s", out, v);
		free(out);
		free(key);
		free(v);
		out = more;
		tpl = close + 1;
	}
	return out;
}

char *study_label(const char *tpl, const struct option_def *options, const char *options_text,
		  int variant, const struct study_place *sp)
{
	double keys[STUDY_MAX_KEYS];

	return expand(tpl, options, options_text, variant, sp, keys);
}

char *study_fmt(double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		return xstrdup("-");
	if (a >= 1000 || a == 0)
		return xasprintf("%.0f", v);
	if (a >= 1)
		return xasprintf(a >= 100 ? "%.1f" : a >= 10 ? "%.2f" : "%.3f", v);
	return xasprintf("%.3g", v);
}

char *study_cell_text(const struct study_cell *c)
{
	if (isnan(c->median) && c->note != NULL)
		return xstrdup(c->note);
	return study_fmt(c->median);
}

/* ---- gathering ---- */

struct study_layout *study_layout_new(void)
{
	return xcalloc(1, sizeof(struct study_layout));
}

static struct lay_table *find_table(struct study_layout *l, const struct study_place *sp)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->t[i].title, sp->table) == 0)
			return &l->t[i];
	l->t = xreallocarray(l->t, l->n + 1, sizeof *l->t);
	l->t[l->n] = (struct lay_table){ .title = xstrdup(sp->table), .rows = xstrdup(sp->rows) };
	return &l->t[l->n++];
}

/* The label's index on the axis, added (taking label) when new. */
static size_t axis_index(struct lay_axis *a, char *label, const double *keys, size_t order,
			 const char *unit)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].label, label) == 0) {
			free(label);
			return i;
		}
	a->v = xreallocarray(a->v, a->n + 1, sizeof *a->v);
	a->v[a->n] = (struct lay_label){ .label = label,
					 .unit = xstrdup(unit ? unit : ""),
					 .order = order };
	memcpy(a->v[a->n].key, keys, sizeof a->v[a->n].key);
	return a->n++;
}

static struct lay_cell *find_cell(struct study_layout *l, const struct study_kind *k,
				  const struct study_place *sp, size_t probe_order,
				  const char *text, int variant, const char *phase)
{
	struct lay_table *t = find_table(l, sp);
	double rkeys[STUDY_MAX_KEYS], ckeys[STUDY_MAX_KEYS];
	char *rl = expand(sp->row, k->options, text, variant, sp, rkeys);
	char *cl = expand(sp->column, k->options, text, variant, sp, ckeys);
	/* labels that no value sorts keep the run's probe order, then the variant's */
	size_t order = probe_order * 65536 + (size_t)(variant & 0xffff);
	size_t r = axis_index(&t->row_axis, rl, rkeys, order, NULL);
	size_t c = axis_index(&t->col_axis, cl, ckeys, order, sp->unit);
	for (size_t i = 0; i < t->ncell; i++)
		if (t->cell[i].row == r && t->cell[i].col == c &&
		    strcmp(t->cell[i].phase, phase) == 0)
			return &t->cell[i];
	t->cell = xreallocarray(t->cell, t->ncell + 1, sizeof *t->cell);
	t->cell[t->ncell] = (struct lay_cell){ .row = r, .col = c, .phase = phase, .scale = 1 };
	return &t->cell[t->ncell++];
}

void study_layout_add(struct study_layout *l, const struct study_kind *k,
		      const struct study_place *sp, size_t probe_order, const char *options_text,
		      int variant, const char *phase, double figure)
{
	struct lay_cell *c = find_cell(l, k, sp, probe_order, options_text, variant, phase);

	if (!isfinite(figure))
		return;
	c->values = xreallocarray(c->values, c->n + 1, sizeof *c->values);
	c->values[c->n++] = figure;
}

void study_layout_note(struct study_layout *l, const struct study_kind *k,
		       const struct study_place *sp, size_t probe_order, const char *options_text,
		       int variant, const char *phase, const char *note)
{
	struct lay_cell *c = find_cell(l, k, sp, probe_order, options_text, variant, phase);

	if (c->note == NULL && note != NULL && *note != '\0')
		c->note = xstrdup(note);
}

void study_layout_add_hist(struct study_layout *l, const struct study_kind *k,
			   const struct study_place *sp, size_t probe_order,
			   const char *options_text, int variant, const char *phase,
			   const struct hist *h, double scale)
{
	struct lay_cell *c = find_cell(l, k, sp, probe_order, options_text, variant, phase);

	if (c->hist == NULL)
		c->hist = xcalloc(1, sizeof *c->hist);
	hist_merge(c->hist, h);
	c->scale = scale;
}

/* ---- the tables ---- */

static int label_cmp(const void *pa, const void *pb)
{
	const struct lay_label *a = *(const struct lay_label *const *)pa;
	const struct lay_label *b = *(const struct lay_label *const *)pb;

	for (size_t i = 0; i < STUDY_MAX_KEYS; i++) {
		if (isnan(a->key[i]) || isnan(b->key[i]))
			break;
		if (a->key[i] != b->key[i])
			return a->key[i] < b->key[i] ? -1 : 1;
	}
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Sorts the axis (its index fields) and hands its labels over. */
static char **axis_finish(struct lay_axis *a, char ***units)
{
	struct lay_label **by = xcalloc(a->n ? a->n : 1, sizeof *by);
	char **labels = xcalloc(a->n ? a->n : 1, sizeof *labels);

	for (size_t i = 0; i < a->n; i++)
		by[i] = &a->v[i];
	qsort(by, a->n, sizeof *by, label_cmp);
	if (units != NULL)
		*units = xcalloc(a->n ? a->n : 1, sizeof **units);
	for (size_t i = 0; i < a->n; i++) {
		by[i]->index = i;
		labels[i] = by[i]->label;
		if (units != NULL)
			(*units)[i] = by[i]->unit;
		else
			free(by[i]->unit);
	}
	free(by);
	return labels;
}

static struct study_cell cell_median(struct lay_cell *c)
{
	struct study_cell out = { .median = NAN, .note = c->note };

	if (c->n > 0) {
		qsort(c->values, c->n, sizeof *c->values, cmp_double);
		out.median = percentile_sorted(c->values, c->n, 50);
		out.n = c->n;
	} else if (c->hist != NULL && c->hist->count > 0) {
		out.median = hist_percentile(c->hist, 50) * c->scale;
		out.n = c->hist->count;
	}
	free(c->values);
	free(c->hist);
	return out;
}

static void table_finish(struct lay_table *lt, const char *const *phases, size_t nphases,
			 struct study_table *t)
{
	size_t *pidx = xcalloc(nphases ? nphases : 1, sizeof *pidx);

	*t = (struct study_table){ .title = lt->title, .rows = lt->rows };
	t->row_label = axis_finish(&lt->row_axis, NULL);
	t->col_label = axis_finish(&lt->col_axis, &t->col_unit);
	t->nrow = lt->row_axis.n;
	t->ncol = lt->col_axis.n;
	t->phase = xcalloc(nphases ? nphases : 1, sizeof *t->phase);
	for (size_t p = 0; p < nphases; p++) {
		bool used = false;

		for (size_t i = 0; i < lt->ncell && !used; i++)
			used = strcmp(lt->cell[i].phase, phases[p]) == 0;
		pidx[p] = t->nphase;
		if (used)
			t->phase[t->nphase++] = xstrdup(phases[p]);
	}
	t->cell = xcalloc(t->nrow * t->ncol * t->nphase + 1, sizeof *t->cell);
	for (size_t i = 0; i < t->nrow * t->ncol * t->nphase; i++)
		t->cell[i].median = NAN;
	for (size_t i = 0; i < lt->ncell; i++) {
		struct lay_cell *c = &lt->cell[i];
		size_t r = lt->row_axis.v[c->row].index, col = lt->col_axis.v[c->col].index, p;

		for (p = 0; p < nphases && strcmp(phases[p], c->phase) != 0; p++)
			;
		if (p == nphases) { /* a phase the caller did not list */
			free(c->values);
			free(c->hist);
			free(c->note);
			continue;
		}
		t->cell[(r * t->ncol + col) * t->nphase + pidx[p]] = cell_median(c);
	}
	free(pidx);
	free(lt->row_axis.v);
	free(lt->col_axis.v);
	free(lt->cell);
}

void study_layout_finish(struct study_layout *l, const char *const *phases, size_t nphases,
			 struct study_report *out)
{
	out->ntable = l->n;
	out->table = xcalloc(l->n ? l->n : 1, sizeof *out->table);
	for (size_t i = 0; i < l->n; i++)
		table_finish(&l->t[i], phases, nphases, &out->table[i]);
	free(l->t);
	free(l);
}

void study_report_free(struct study_report *sr)
{
	for (size_t i = 0; i < sr->ntable; i++) {
		struct study_table *t = &sr->table[i];

		for (size_t r = 0; r < t->nrow; r++)
			free(t->row_label[r]);
		for (size_t c = 0; c < t->ncol; c++) {
			free(t->col_label[c]);
			free(t->col_unit[c]);
		}
		for (size_t p = 0; p < t->nphase; p++)
			free(t->phase[p]);
		for (size_t c = 0; c < t->nrow * t->ncol * t->nphase; c++)
			free(t->cell[c].note);
		free(t->row_label);
		free(t->col_label);
		free(t->col_unit);
		free(t->phase);
		free(t->cell);
		free(t->title);
		free(t->rows);
	}
	free(sr->table);
	memset(sr, 0, sizeof *sr);
}
