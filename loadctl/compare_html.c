// SPDX-License-Identifier: GPL-2.0-or-later
#include "compare_html.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "html.h"
#include "loadctl.h"
#include "log.h"
#include "report.h"
#include "report_html.h"
#include "timeutil.h"
#include "xalloc.h"

/* The run objects of the comparison, in order: "a", "b", or "runs". */
static size_t comparison_runs(json_t *cmp, json_t **runs, size_t max)
{
	json_t *arr = json_object_get(cmp, "runs"), *v;
	size_t n = 0, i;

	if (json_is_array(arr)) {
		json_array_foreach(arr, i, v) if (n < max && json_is_object(v)) runs[n++] = v;
		return n;
	}
	if (json_is_object(v = json_object_get(cmp, "a")))
		runs[n++] = v;
	if (json_is_object(v = json_object_get(cmp, "b")) && n < max)
		runs[n++] = v;
	return n;
}

/* A scalar as a cell's text: reals to four significant digits, null "-". */
static char *scalar_text(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING: return xstrdup(json_string_value(v));
	case JSON_INTEGER: return xasprintf("%lld", (long long)json_integer_value(v));
	case JSON_REAL: return xasprintf("%.4g", json_real_value(v));
	case JSON_TRUE: return xstrdup("yes");
	case JSON_FALSE: return xstrdup("no");
	default: return xstrdup("-");
	}
}

/* Every scalar of v under its dotted path, depth first, in the JSON's order. */
struct flat {
	char **keys;
	json_t **vals;
	size_t n;
};

static void flatten(json_t *v, const char *path, struct flat *f)
{
	const char *key;
	json_t *sub;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, key, sub)
		{
			char *p = path[0] ? xasprintf("%s.%s", path, key) : xstrdup(key);

			flatten(sub, p, f);
			free(p);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, sub)
		{
			char *p = xasprintf("%s[%zu]", path, i);

			flatten(sub, p, f);
			free(p);
		}
	} else {
		f->keys = xreallocarray(f->keys, f->n + 1, sizeof *f->keys);
		f->vals = xreallocarray(f->vals, f->n + 1, sizeof *f->vals);
		f->keys[f->n] = xstrdup(path);
		f->vals[f->n++] = v;
	}
}

static void flat_free(struct flat *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->keys[i]);
	free(f->keys);
	free(f->vals);
}

static json_t *flat_get(const struct flat *f, const char *key)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->keys[i], key) == 0)
			return f->vals[i];
	return NULL;
}

/* A time stamp ("started_at") as local time, other figures as they are. */
static char *cell_text(json_t *v, const char *key)
{
	size_t n = strlen(key);
	char buf[64];

	if (v == NULL)
		return xstrdup("");
	if (json_is_number(v) && n > 3 && strcmp(key + n - 3, "_at") == 0) {
		format_wall(json_number_value(v), buf, sizeof buf);
		return xstrdup(buf);
	}
	return scalar_text(v);
}

/* Where a column goes: the phase, then the verdict and the change, then
 * everything else in the JSON's order. */
static int column_rank(const char *key)
{
	if (strcmp(key, "name") == 0)
		return 0;
	if (strstr(key, "verdict") != NULL)
		return 1;
	if (strstr(key, "change") != NULL || strstr(key, "ci_") != NULL)
		return 2;
	return 3;
}

static void order_columns(struct flat *cols)
{
	for (size_t i = 1; i < cols->n; i++) {
		for (size_t j = i;
		     j > 0 && column_rank(cols->keys[j]) < column_rank(cols->keys[j - 1]); j--) {
			char *k = cols->keys[j];
			json_t *v = cols->vals[j];

			cols->keys[j] = cols->keys[j - 1];
			cols->vals[j] = cols->vals[j - 1];
			cols->keys[j - 1] = k;
			cols->vals[j - 1] = v;
		}
	}
}

static void text_cell(FILE *out, json_t *v, const char *key)
{
	char *s = cell_text(v, key);
	bool verdict = strstr(key, "verdict") != NULL;

	html_raw(out, json_is_string(v) ? "<td class=\"l%s\">" : "<td class=\"%s\">",
		 verdict ? " verdict" : "");
	html_text(out, s);
	html_raw(out, "</td>");
	free(s);
}

/* One row per element of arr, one column per path any element has. */
static void json_table(FILE *out, json_t *arr)
{
	struct flat *rows, cols = { 0 };
	size_t n = json_array_size(arr), i, c;

	if (n == 0)
		return;
	rows = xcalloc(n, sizeof *rows);
	for (i = 0; i < n; i++) {
		flatten(json_array_get(arr, i), "", &rows[i]);
		for (c = 0; c < rows[i].n; c++)
			if (flat_get(&cols, rows[i].keys[c]) == NULL && rows[i].keys[c][0] != '\0')
				flatten(rows[i].vals[c], rows[i].keys[c], &cols);
	}
	order_columns(&cols);
	html_raw(out, "<div class=\"wide\"><table>\n<tr>");
	for (c = 0; c < cols.n; c++) {
		html_raw(out, "<th>");
		html_text(out, cols.keys[c]);
		html_raw(out, "</th>");
	}
	html_raw(out, "</tr>\n");
	for (i = 0; i < n; i++) {
		html_raw(out, "<tr>");
		for (c = 0; c < cols.n; c++)
			text_cell(out, flat_get(&rows[i], cols.keys[c]), cols.keys[c]);
		html_raw(out, "</tr>\n");
		flat_free(&rows[i]);
	}
	html_raw(out, "</table></div>\n");
	free(rows);
	flat_free(&cols);
}

static void str_cell(FILE *out, const char *cls, const char *text)
{
	html_raw(out, "<td class=\"%s\">", cls);
	html_text(out, text ? text : "-");
	html_raw(out, "</td>");
}

/* A figure to four digits, or as a change in % when pct. */
static void num_cell(FILE *out, json_t *v, bool pct)
{
	char *s;

	if (!json_is_number(v))
		s = xstrdup("-");
	else if (pct)
		s = xasprintf("%+.1f%%", (json_number_value(v) - 1) * 100);
	else if (fabs(json_number_value(v)) >= 1000)
		s = xasprintf("%.0f", json_number_value(v));
	else
		s = xasprintf("%.4g", json_number_value(v));
	str_cell(out, "", s);
	free(s);
}

/* "A 1, B 2": each run's rank in a figure, from its "runs" array. */
static char *ranks_text(json_t *runs)
{
	char *s = xstrdup(""), *t;
	json_t *r;
	size_t i;

	json_array_foreach(runs, i, r)
	{
		json_t *rank = json_object_get(r, "rank");
		int run = (int)json_integer_value(json_object_get(r, "run"));

		t = json_is_integer(rank)
			    ? xasprintf("%s%s%c %lld", s, i ? ", " : "", 'A' + run % 26,
					(long long)json_integer_value(rank))
			    : xasprintf("%s%s%c -", s, i ? ", " : "", 'A' + run % 26);
		free(s);
		s = t;
	}
	return s;
}

/* One figure of a phase: a row per pair of runs it compares. */
static void figure_rows(FILE *out, const char *phase, json_t *fig)
{
	const char *what = json_string_value(json_object_get(fig, "figure"));
	const char *load = json_string_value(json_object_get(fig, "load"));
	const char *unit = json_string_value(json_object_get(fig, "unit"));
	char *name = load ? xasprintf("%s %s (%s)", what ? what : "?", load, unit ? unit : "")
			  : xasprintf("%s (%s)", what ? what : "?", unit ? unit : "");
	char *ranks = ranks_text(json_object_get(fig, "runs"));
	json_t *pair;
	size_t i;

	json_array_foreach(json_object_get(fig, "pairs"), i, pair)
	{
		int a = (int)json_integer_value(json_object_get(pair, "a"));
		int b = (int)json_integer_value(json_object_get(pair, "b"));
		char *vs = xasprintf("%c vs %c", 'A' + b % 26, 'A' + a % 26);
		json_t *lo = json_object_get(pair, "ci_low"),
		       *hi = json_object_get(pair, "ci_high");
		char *ci = json_is_number(lo) && json_is_number(hi)
				   ? xasprintf("%+.1f%% .. %+.1f%%",
					       (json_number_value(lo) - 1) * 100,
					       (json_number_value(hi) - 1) * 100)
				   : xstrdup("-");
		const char *verdict = json_string_value(json_object_get(pair, "verdict_text"));

		html_raw(out, "<tr>");
		str_cell(out, "l", phase);
		str_cell(out, "l", name);
		str_cell(out, "l", vs);
		num_cell(out, json_object_get(pair, "median_a"), false);
		num_cell(out, json_object_get(pair, "median_b"), false);
		num_cell(out, json_object_get(pair, "ratio"), true);
		str_cell(out, "", ci);
		str_cell(out, "l verdict",
			 verdict ? verdict : json_string_value(json_object_get(pair, "verdict")));
		str_cell(out, "l", ranks);
		html_raw(out, "</tr>\n");
		free(vs);
		free(ci);
	}
	free(name);
	free(ranks);
}

/* The comparison's phases as a row per phase, figure and pair of runs;
 * false when they are not in that form. */
static bool verdict_table(FILE *out, json_t *phases)
{
	json_t *ph, *fig;
	size_t i, j;

	json_array_foreach(phases, i,
			   ph) if (!json_is_array(json_object_get(ph, "figures"))) return false;
	html_raw(out, "<div class=\"wide\"><table>\n<tr><th class=\"l\">Phase</th>"
		      "<th class=\"l\">Figure</th><th class=\"l\">Runs</th><th>median (first)</th>"
		      "<th>median (second)</th><th>change</th><th>95%% interval</th>"
		      "<th class=\"l\">verdict</th><th class=\"l\">rank</th></tr>\n");
	json_array_foreach(phases, i, ph)
	{
		const char *name = json_string_value(json_object_get(ph, "name"));

		json_array_foreach(json_object_get(ph, "figures"), j, fig)
			figure_rows(out, name, fig);
	}
	html_raw(out, "</table></div>\n");
	return true;
}

/* The run a comparison's run object names, with its figures' data. */
struct cmp_run {
	struct run_report rep;
	struct run_figures *rf;
	char *label;
};

static int load_run(json_t *obj, size_t i, struct cmp_run *r)
{
	const char *db_path = json_string_value(json_object_get(obj, "db"));
	const char *spec = json_string_value(json_object_get(obj, "spec"));
	int64_t id = json_integer_value(json_object_get(obj, "id"));
	struct loadctl lc = { .db_path = (char *)db_path };
	struct db *db;

	r->label = xasprintf("%c: %s", (int)('A' + i), spec ? spec : "?");
	if (db_path == NULL || id <= 0 || (db = loadctl_open_db(&lc)) == NULL)
		return -1;
	if (report_build(db, id, &r->rep) != 0) {
		db_close(db);
		log_error("no run %lld in %s", (long long)id, db_path);
		return -1;
	}
	r->rf = run_figures_load(db, &r->rep);
	db_close(db);
	return r->rf != NULL ? 0 : -1;
}

#define MAX_RUNS 26

/* Per probe of the first run, every run's times side by side. */
static void write_figure(FILE *out, struct cmp_run *runs, size_t n)
{
	const struct run_figures *rf[MAX_RUNS];
	const char *labels[MAX_RUNS];
	char *script, *prefix;
	size_t len, i;

	for (i = 0; i < n; i++) {
		rf[i] = runs[i].rf;
		labels[i] = runs[i].label;
	}
	for (size_t p = 0; n > 0 && p < run_figures_nprobes(rf[0]); p++) {
		if (figure_compare_script(rf, labels, n, p, &script, &len) != 0)
			continue;
		/* the job's figure keeps the plain id the first pages had */
		prefix = p == 0 ? xstrdup("fig-compare-") : xasprintf("fig-compare-%zu-", p);
		html_figure(out, script, len, 1000, 480, prefix,
			    "A probe's times per phase and run (log y): boxes from p25 to p75 with "
			    "the median, whiskers from p5 to p95, every sample a dot; A is blue.");
		free(prefix);
		free(script);
	}
}

static void write_page(FILE *out, json_t *cmp, json_t **objs, struct cmp_run *runs, size_t n)
{
	json_t *runs_arr = json_array(), *v;

	html_page_begin(out, "loadd: a comparison of runs");
	html_raw(out, "<h1>loadd: runs compared</h1>\n<h2>Runs</h2>\n");
	for (size_t i = 0; i < n; i++)
		json_array_append(runs_arr, objs[i]);
	json_table(out, runs_arr);
	json_decref(runs_arr);
	html_raw(out, "<h2>Phases</h2>\n");
	if (json_is_array(v = json_object_get(cmp, "phases")) && json_array_size(v) > 0) {
		if (!verdict_table(out, v))
			json_table(out, v);
		if (json_is_string(json_object_get(cmp, "method"))) {
			html_raw(out, "<p>Change: the second run's median / the first's - 1; "
				      "interval: ");
			html_text(out, json_string_value(json_object_get(cmp, "method")));
			html_raw(out, ". Ranks: 1 is the best run of a figure; runs whose "
				      "difference is not established share a rank.</p>\n");
		}
	} else

		html_raw(out, "<p>No phase name in both runs.</p>\n");
	html_raw(out, "<h2>Distributions</h2>\n");
	write_figure(out, runs, n);
	html_raw(out, "<h2>The comparison as JSON</h2>\n<details><summary>what "
		      "<code>loadctl compare --json</code> prints</summary>\n<pre>");
	{
		char *text = json_dumps(cmp, JSON_INDENT(2) | JSON_REAL_PRECISION(15));

		html_text(out, text);
		free(text);
	}
	html_raw(out, "</pre></details>\n");
	html_page_end(out);
}

int compare_html(const char *path, json_t *cmp)
{
	json_t *objs[MAX_RUNS];
	struct cmp_run runs[MAX_RUNS] = { 0 };
	size_t n = comparison_runs(cmp, objs, MAX_RUNS), i;
	FILE *out = NULL;
	int rc = -1;

	for (i = 0; i < n; i++)
		if (load_run(objs[i], i, &runs[i]) < 0)
			goto done;
	out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (out == NULL) {
		log_error("%s: %s", path, strerror(errno));
		goto done;
	}
	write_page(out, cmp, objs, runs, n);
	rc = fflush(out) != 0 || ferror(out) ? -1 : 0;
	if (out != stdout && fclose(out) != 0)
		rc = -1;
	if (rc < 0)
		log_error("%s: %s", path, strerror(errno));
done:
	for (i = 0; i < n; i++) {
		run_figures_free(runs[i].rf);
		report_free(&runs[i].rep);
		free(runs[i].label);
	}
	return rc;
}
