// SPDX-License-Identifier: GPL-2.0-or-later
/* The study tables: labels from stored options and their defaults, rows and
 * columns in the order of the values behind them, phases side by side and
 * left out when they have no figure, a missing cell shown as "-", medians of
 * samples and a histogram's p50, switches per operation, and the same tables
 * from a hand-made run in text and JSON. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "db.h"
#include "report.h"
#include "report_study.h"
#include "xalloc.h"

static const char *const modes[] = { "process", "thread", NULL };
static const struct option_def ring_options[] = {
	{ "mode", OPT_ENUM, 0, "process", 0, 0, modes, NULL, "" },
	{ "members", OPT_INT, 0, "2", 2, 1024, NULL, NULL, "" },
	{ "size", OPT_SIZE, 0, "0", 0, 0, NULL, NULL, "" },
	{ NULL, 0, 0, NULL, 0, 0, NULL, NULL, NULL },
};
static const struct study_place ring_places[] = {
	{ .table = "Ring",
	  .rows = "members",
	  .row = "{members} {mode}",
	  .column = "{size}",
	  .unit = "us" },
	{ 0 },
};
static const struct study_kind ring_kind = { "ring", ring_options, ring_places };

static void size_label(const char *options_text, int variant, char *buf, size_t len)
{
	(void)options_text;
	snprintf(buf, len, "%dK", 1 << variant);
}

static const struct study_place bw_places[] = {
	{ .table = "Bandwidth",
	  .rows = "size",
	  .row = "{variant}",
	  .column = "{mode}",
	  .unit = "MB/s",
	  .variant_label = size_label },
	{ 0 },
};
static const struct study_kind bw_kind = { "bw", ring_options, bw_places };

static const struct study_place count_places[] = {
	{ .table = "Counting", .rows = "mode", .row = "{mode}", .column = "ns/incr", .unit = "ns" },
	{ .table = "Counting",
	  .rows = "mode",
	  .row = "{mode}",
	  .column = "switches/incr",
	  .unit = "",
	  .figure = STUDY_SWITCHES_PER_OP },
	{ 0 },
};
static const struct study_place lat_places[] = {
	{ .table = "Latency", .rows = "mode", .row = "{mode}", .unit = "us" },
	{ 0 },
};
static const struct study_kind study_kinds[] = {
	{ "counting", ring_options, count_places },
	{ "latency", ring_options, lat_places },
	{ NULL, NULL, NULL },
};

static const struct study_cell *at(const struct study_table *t, size_t r, size_t c, size_t p)
{
	return &t->cell[(r * t->ncol + c) * t->nphase + p];
}

static void test_label(void **state)
{
	char *s;

	(void)state;
	s = study_label("{members} {mode}", ring_options, "members = 8\n", 0, NULL);
	assert_string_equal(s, "8 process"); /* mode not written: its default */
	free(s);
	s = study_label("{size} bytes", ring_options, "mode = thread\nsize = 16K\n", 0, NULL);
	assert_string_equal(s, "16K bytes");
	free(s);
	s = study_label("{variant}", ring_options, "", 3, &bw_places[0]);
	assert_string_equal(s, "8K");
	free(s);
	s = study_label("{variant}", ring_options, "", 3, NULL);
	assert_string_equal(s, "3");
	free(s);
	s = study_label(NULL, ring_options, "", 0, NULL);
	assert_string_equal(s, "");
	free(s);
	s = study_option(ring_options, "mode = thread\nsize = 16K\n", "size");
	assert_string_equal(s, "16K");
	free(s);
	s = study_option(ring_options, "mode = thread\n", "members");
	assert_string_equal(s, "2"); /* its default */
	free(s);
	s = study_option(ring_options, "", "nokey");
	assert_string_equal(s, "");
	free(s);
	s = study_fmt(NAN);
	assert_string_equal(s, "-");
	free(s);
	s = study_fmt(0.000123);
	assert_string_equal(s, "0.000123");
	free(s);
	s = study_fmt(1234.56);
	assert_string_equal(s, "1235");
	free(s);
}

/* Probes added in an order the labels do not follow; a phase without any
 * figure is left out, a cell without one is NaN. */
static void test_layout(void **state)
{
	static const char *const phases[] = { "idle", "cpu", "write" };
	struct study_layout *l = study_layout_new();
	struct study_report sr;
	const struct study_table *t;

	(void)state;
	/* probe 0: 8 threads, 16K; probe 1: 2 processes (defaults), 0; probe 2: 8 threads, 0 */
	study_layout_add(l, &ring_kind, ring_places, 0, "mode = thread\nmembers = 8\nsize = 16K\n",
			 0, "cpu", 5);
	study_layout_add(l, &ring_kind, ring_places, 0, "mode = thread\nmembers = 8\nsize = 16K\n",
			 0, "idle", 3);
	study_layout_add(l, &ring_kind, ring_places, 0, "mode = thread\nmembers = 8\nsize = 16K\n",
			 0, "idle", 1);
	study_layout_add(l, &ring_kind, ring_places, 0, "mode = thread\nmembers = 8\nsize = 16K\n",
			 0, "idle", 2);
	study_layout_add(l, &ring_kind, ring_places, 1, "", 0, "idle", 7);
	study_layout_add(l, &ring_kind, ring_places, 2, "mode = thread\nmembers = 8\n", 0, "cpu",
			 9);
	study_layout_finish(l, phases, 3, &sr);

	assert_int_equal(sr.ntable, 1);
	t = &sr.table[0];
	assert_string_equal(t->title, "Ring");
	assert_string_equal(t->rows, "members");
	assert_int_equal(t->nrow, 2);
	assert_string_equal(t->row_label[0], "2 process"); /* 2 < 8 though added later */
	assert_string_equal(t->row_label[1], "8 thread");
	assert_int_equal(t->ncol, 2);
	assert_string_equal(t->col_label[0], "0"); /* 0 < 16K */
	assert_string_equal(t->col_label[1], "16K");
	assert_string_equal(t->col_unit[1], "us");
	assert_int_equal(t->nphase, 2); /* write has nothing */
	assert_string_equal(t->phase[0], "idle");
	assert_string_equal(t->phase[1], "cpu");
	assert_true(at(t, 1, 1, 0)->median == 2); /* median of 3, 1, 2 */
	assert_int_equal(at(t, 1, 1, 0)->n, 3);
	assert_true(at(t, 1, 1, 1)->median == 5);
	assert_true(at(t, 0, 0, 0)->median == 7);
	assert_true(isnan(at(t, 0, 0, 1)->median)); /* 2 processes never ran under cpu */
	assert_int_equal(at(t, 0, 0, 1)->n, 0);
	assert_true(isnan(at(t, 0, 1, 0)->median)); /* nor with 16K */
	assert_true(at(t, 1, 0, 1)->median == 9);
	study_report_free(&sr);
}

/* Rows from the variant, named by the place; histogram cells give their p50. */
static void test_layout_variants_and_hist(void **state)
{
	static const char *const phases[] = { "idle" };
	struct study_layout *l = study_layout_new();
	struct study_report sr;
	struct hist h = { 0 };
	const struct study_table *t;
	char *text;

	(void)state;
	for (int v = 3; v >= 0; v--)
		study_layout_add(l, &bw_kind, bw_places, 0, "mode = thread\n", v, "idle",
				 100.0 * v);
	for (int i = 0; i < 100; i++)
		hist_add(&h, 20000); /* 20 us */
	study_layout_add_hist(l, &bw_kind, bw_places, 1, "", 0, "idle", &h, 1e-3);
	/* a size too large: a note and no figure; a note beside a figure is not shown */
	study_layout_note(l, &bw_kind, bw_places, 0, "mode = thread\n", 4, "idle", "over 8192");
	study_layout_note(l, &bw_kind, bw_places, 0, "mode = thread\n", 3, "idle", "not shown");
	study_layout_finish(l, phases, 1, &sr);
	t = &sr.table[0];
	assert_int_equal(t->nrow, 5);
	assert_string_equal(t->row_label[0], "1K");
	assert_string_equal(t->row_label[3], "8K");
	assert_string_equal(t->row_label[4], "16K");
	text = study_cell_text(at(t, 4, 1, 0));
	assert_string_equal(text, "over 8192");
	free(text);
	text = study_cell_text(at(t, 3, 1, 0));
	assert_string_equal(text, "300.0");
	free(text);
	text = study_cell_text(at(t, 4, 0, 0)); /* nothing at all */
	assert_string_equal(text, "-");
	free(text);
	assert_int_equal(t->ncol, 2);
	assert_string_equal(t->col_label[0], "process"); /* choices in their table's order */
	assert_string_equal(t->col_label[1], "thread");
	assert_true(at(t, 3, 1, 0)->median == 300);
	assert_true(fabs(at(t, 0, 0, 0)->median - 20) < 0.5);
	assert_int_equal(at(t, 0, 0, 0)->n, 100);
	study_report_free(&sr);
}

/* Three columns in five phases: twelve cells a line, so the fifth phase
 * goes to a block of its own, its rows labelled again. */
static void test_text_wraps(void **state)
{
	static const char *const phases[] = { "p1", "p2", "p3", "p4", "p5" };
	struct study_layout *l = study_layout_new();
	struct study_report sr;
	char *buf = NULL, *second;
	size_t len = 0;
	FILE *fp;

	(void)state;
	for (int p = 0; p < 5; p++)
		for (int size = 0; size < 3; size++) {
			char opts[64];

			snprintf(opts, sizeof opts, "size = %dK\n", 1 << size);
			study_layout_add(l, &ring_kind, ring_places, 0, opts, 0, phases[p], p + 1);
		}
	study_layout_finish(l, phases, 5, &sr);
	fp = open_memstream(&buf, &len);
	study_text(&sr, fp);
	fclose(fp);
	assert_non_null(strstr(buf, "\nRing\n"));
	assert_non_null(strstr(buf, "p4"));
	second = strstr(buf, " p5\n"); /* the heading of the second block */
	assert_non_null(second);
	assert_null(strstr(second, "p1")); /* p5 starts a block of its own */
	assert_non_null(strstr(second, "members"));
	assert_non_null(strstr(second, "2 process"));
	free(buf);
	study_report_free(&sr);
}

/* ---- from a hand-made run ---- */

struct fixture {
	char dir[64];
	char path[96];
	struct db *db;
	int64_t run;
};

static void add_count(struct db *db, int64_t run, int64_t phase, int64_t probe, double ns,
		      long switches)
{
	struct sample s = {
		.phase_id = phase,
		.started_at = 100,
		.wall_ms = ns, /* a million increments of ns each */
		.cpu_pct = NAN,
		.nvcsw = switches,
		.probe_id = probe,
		.value = ns,
	};
	assert_int_equal(db_sample_insert(db, run, &s), 0);
}

static void add_lat(struct db *db, int64_t run, int64_t phase, int64_t probe, uint64_t ns)
{
	struct hist h = { 0 };
	struct hist_record r = {
		.phase_id = phase, .probe_id = probe, .t = 100, .steal_pct = NAN, .hist = &h
	};

	for (int i = 0; i < 10; i++)
		hist_add(&h, ns);
	assert_int_equal(db_hist_insert(db, run, &r), 0);
}

/* Phases idle (valid) and cpu (round 1 valid, round 2 invalid); probes
 * one and alternate (counting), pipe (latency, a histogram), job. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	const struct run_info ri = { .profile_name = "t",
				     .host = "h",
				     .kernel = "k",
				     .cpu_model = "c",
				     .cores = 2,
				     .ram_bytes = 1 << 30,
				     .tree_fingerprint = "fp",
				     .version = "v",
				     .rounds = 2 };
	const struct probe_info pr[] = {
		{ .name = "job", .type = "job", .units = "ms", .options = "" },
		{ .name = "alt", .type = "counting", .units = "ns", .options = "mode = thread\n" },
		{ .name = "one", .type = "counting", .units = "ns", .options = "" },
		{ .name = "pipe",
		  .type = "latency",
		  .units = "us",
		  .histogram = true,
		  .options = "" },
	};
	const char *tmp = getenv("TMPDIR");
	int64_t id[4], p;
	char *err = NULL;

	snprintf(f->dir, sizeof f->dir, "%s/test_study.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof f->path, "%s/loadd.db", f->dir);
	f->db = db_open(f->path, DB_READWRITE, &err);
	if (f->db == NULL)
		return -1;
	f->run = db_run_begin(f->db, &ri, 50);
	for (int i = 0; i < 4; i++)
		id[i] = db_probe_insert(f->db, f->run, &pr[i]);
	p = db_phase_begin(f->db, f->run, 1, 0, "idle", "warm", "", 99);
	add_count(f->db, f->run, p, id[1], 400, 2000000); /* 2 switches per increment */
	add_count(f->db, f->run, p, id[2], 1, 0);
	add_lat(f->db, f->run, p, id[3], 5000);
	db_phase_end(f->db, p, 104, true, NULL);
	p = db_phase_begin(f->db, f->run, 1, 1, "cpu", "warm", "cpu", 104);
	add_count(f->db, f->run, p, id[1], 800, 2000000);
	add_lat(f->db, f->run, p, id[3], 9000);
	db_phase_end(f->db, p, 110, true, NULL);
	p = db_phase_begin(f->db, f->run, 2, 1, "cpu", "warm", "cpu", 110);
	add_count(f->db, f->run, p, id[1], 99999, 0); /* an invalid round: left out */
	db_phase_end(f->db, p, 120, false, "cpu stalled");
	db_run_end(f->db, f->run, "complete", 130);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	db_close(f->db);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void test_from_run(void **state)
{
	struct fixture *f = *state;
	struct run_report rep;
	struct study_report sr;
	const struct study_table *t;

	assert_int_equal(report_build(f->db, f->run, &rep), 0);
	assert_int_equal(study_report_build(f->db, &rep, study_kinds, &sr), 0);
	assert_int_equal(sr.ntable, 2);
	t = &sr.table[0];
	assert_string_equal(t->title, "Counting");
	assert_int_equal(t->nrow, 2);
	assert_string_equal(t->row_label[0], "process"); /* "one": the default mode */
	assert_string_equal(t->row_label[1], "thread");
	assert_int_equal(t->ncol, 2);
	assert_string_equal(t->col_label[1], "switches/incr");
	assert_int_equal(t->nphase, 2);
	assert_true(at(t, 1, 0, 0)->median == 400);
	assert_true(fabs(at(t, 1, 1, 0)->median - 2) < 1e-9);
	assert_true(at(t, 1, 0, 1)->median == 800); /* the invalid round's 99999 left out */
	assert_true(isnan(at(t, 0, 0, 1)->median));
	t = &sr.table[1];
	assert_string_equal(t->title, "Latency");
	assert_true(fabs(at(t, 0, 0, 0)->median - 5) < 0.1); /* ns to us */
	assert_true(fabs(at(t, 0, 0, 1)->median - 9) < 0.2);
	study_report_free(&sr);
	assert_int_equal(study_report_build(f->db, &rep, NULL, &sr), 0);
	assert_int_equal(sr.ntable, 0);
	study_report_free(&sr);
	report_free(&rep);
}

static char *print_text(struct fixture *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_int_equal(report_print(f->db, f->run, fp), 0);
	fclose(fp);
	return buf;
}

/* The report prints the tables once the kinds are handed over, and not
 * before; the JSON has them too. */
static void test_report_outputs(void **state)
{
	struct fixture *f = *state;
	char *text, *line, *end, *buf = NULL;
	size_t len = 0;
	FILE *fp;
	json_t *root, *studies, *cells;

	report_study_use(NULL);
	text = print_text(f);
	assert_null(strstr(text, "Study tables"));
	free(text);
	report_study_use(study_kinds);
	text = print_text(f);
	assert_non_null(strstr(text, "Study tables"));
	assert_non_null(strstr(text, "\nCounting\n"));
	assert_non_null(strstr(text, "switches/incr"));
	line = strstr(text, "\n  thread ");
	assert_non_null(line);
	end = strchr(line + 1, '\n');
	assert_non_null(end);
	*end = '\0';
	assert_non_null(strstr(line, " 400.0"));
	assert_non_null(strstr(line, " 800.0"));
	free(text);

	fp = open_memstream(&buf, &len);
	assert_int_equal(report_json(f->db, f->run, fp), 0);
	fclose(fp);
	root = json_loads(buf, 0, NULL);
	assert_non_null(root);
	studies = json_object_get(root, "studies");
	assert_int_equal(json_array_size(studies), 2);
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(studies, 0), "statistic")),
		"median");
	cells = json_object_get(json_array_get(studies, 0), "cells");
	assert_int_equal(json_array_size(cells), 2 * 2 * 2);
	assert_true(json_is_null(json_object_get(json_array_get(cells, 1), "median")));
	json_decref(root);
	free(buf);
	report_study_use(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_layout_variants_and_hist),
		cmocka_unit_test(test_text_wraps),
		cmocka_unit_test_setup_teardown(test_from_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_outputs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
