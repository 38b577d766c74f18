// SPDX-License-Identifier: GPL-2.0-or-later
/* The report's study tables (study.h): each probe's figures placed in the
 * table its kind declares, a cell per row x column x phase holding the median
 * of the cell's figures over the phase's valid rounds (a histogram probe's
 * p50), printed as text, JSON and HTML. The layout works on figures alone, so
 * tests feed it synthetic ones; study_report_build reads them from a run. */
#ifndef LOADD_REPORT_STUDY_H
#define LOADD_REPORT_STUDY_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "db.h"
#include "hist.h"
#include "report.h"
#include "study.h"

/* The median of a cell's figures; NaN (printed as its note, or "-") when it
 * has none. */
struct study_cell {
	double median;
	size_t n;   /* figures behind it (a histogram's values) */
	char *note; /* a sample's note (study_place.note) when it has no figure; NULL */
};

struct study_table {
	char *title;
	char *rows; /* what the rows are */
	size_t nrow, ncol, nphase;
	char **row_label;
	char **col_label; /* "" for a table's one unnamed column */
	char **col_unit;
	char **phase;            /* the run's phase names that have a figure here, in run order */
	struct study_cell *cell; /* cell[(r * ncol + c) * nphase + p] */
};

struct study_report {
	size_t ntable; /* in the order the run's probes first name them */
	struct study_table *table;
};

/* The probe kinds' study tables for report_print/json/html to use (NULL:
 * none, the default). A program that prints reports hands them over once at
 * start (common/ does not read the probe table: see probe_study.h). */
void report_study_use(const struct study_kind *kinds);
const struct study_kind *report_study_kinds(void);

/* ---- the layout, from figures ---- */

struct study_layout;

struct study_layout *study_layout_new(void);
/* One figure, in sp->unit, of the run's probe_order-th probe (a kind k with
 * options_text as stored) in a phase. */
void study_layout_add(struct study_layout *l, const struct study_kind *k,
		      const struct study_place *sp, size_t probe_order, const char *options_text,
		      int variant, const char *phase, double figure);
/* A note for the cell (its first one stays), shown when it has no figure. */
void study_layout_note(struct study_layout *l, const struct study_kind *k,
		       const struct study_place *sp, size_t probe_order, const char *options_text,
		       int variant, const char *phase, const char *note);
/* A histogram's values (ns) for the same place, times scale in sp->unit. */
void study_layout_add_hist(struct study_layout *l, const struct study_kind *k,
			   const struct study_place *sp, size_t probe_order,
			   const char *options_text, int variant, const char *phase,
			   const struct hist *h, double scale);
/* The tables, phases in the order given (a phase without a figure in a
 * table is left out of it); frees l. */
void study_layout_finish(struct study_layout *l, const char *const *phases, size_t nphases,
			 struct study_report *out);
void study_report_free(struct study_report *sr);

/* A label template filled from options_text ("key = value" lines), a key
 * it lacks read as its default in options. xmalloc'd. */
char *study_label(const char *tpl, const struct option_def *options, const char *options_text,
		  int variant, const struct study_place *sp);
/* A figure as printed: about four significant digits, "-" for NaN. */
char *study_fmt(double v);
/* A cell as printed: its median, else its note, else "-". */
char *study_cell_text(const struct study_cell *c);

/* ---- from a run ---- */

/* Every study table of a built report, with kinds (NULL: none). 0, or -1 on
 * a database error (logged). */
int study_report_build(struct db *db, const struct run_report *rep, const struct study_kind *kinds,
		       struct study_report *out);
void study_text(const struct study_report *sr, FILE *out);
json_t *study_json(const struct study_report *sr); /* an array, one object per table */
void study_html(const struct study_report *sr, FILE *out);

/* What the report calls: the run's tables with the kinds in use, printed
 * after its probe rows (nothing when it has none). A database error is
 * logged and leaves the tables out. */
void report_study_print(struct db *db, const struct run_report *rep, FILE *out);
json_t *report_study_json(struct db *db, const struct run_report *rep);
void report_study_html(struct db *db, const struct run_report *rep, FILE *out);

#endif
