// SPDX-License-Identifier: GPL-2.0-or-later
/* The report from a hand-made run: rounds pooled by phase name, failed jobs
 * and invalid rounds left out, Ratio against the first phase without
 * loads, loader windows cut at the probe window, each load's throughput in
 * the units the run recorded for it, PSI means, and the same figures in the
 * text and the JSON. */
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
#include <sqlite3.h>
#include <jansson.h>

#include "db.h"
#include "report.h"
#include "xalloc.h"

#define assert_near(got, want, eps)                                                                \
	do {                                                                                       \
		double got_ = (got), want_ = (want);                                               \
		if (!(fabs(got_ - want_) <= (eps)))                                                \
			fail_msg("%s = %.9g, want %.9g", #got, got_, want_);                       \
	} while (0)

struct fixture {
	char dir[64];
	char path[96];
	struct db *db;
	int64_t run;
};

static void add_sample(struct db *db, int64_t run, int64_t phase, int64_t seq, double wall,
		       bool failed, int64_t missed)
{
	struct sample s = {
		.phase_id = phase,
		.seq = seq,
		.started_at = 100 + (double)seq,
		.wall_ms = wall,
		.user_ms = wall / 4,
		.sys_ms = wall / 4,
		.cpu_pct = 50,
		.exit_code = failed,
		.failed = failed,
		.missed = missed,
	};
	assert_int_equal(db_sample_insert(db, run, &s), 0);
}

static void add_loader(struct db *db, int64_t run, int64_t phase, double t, uint64_t cycles,
		       double cpu_ms)
{
	struct loader_sample l = {
		.phase_id = phase,
		.load = "cpu",
		.t = t,
		.cycles = cycles,
		.ops = cycles * 8,
		.cpu_ms = cpu_ms,
		.procs = 2,
		.running = true,
	};
	assert_int_equal(db_loader_sample_insert(db, run, &l), 0);
}

static void add_psi(struct db *db, int64_t run, int64_t phase, double t, double cpu)
{
	struct sys_sample s = {
		.phase_id = phase,
		.t = t,
		.psi_cpu_some = cpu,
		.psi_mem_some = NAN,
		.psi_io_some = 1,
		.psi_cpu_full = NAN,
		.psi_mem_full = NAN,
		.psi_io_full = NAN,
	};
	assert_int_equal(db_sys_sample_insert(db, run, &s), 0);
}

/*  phase "none" (no loads): round 1 10 20 30 + a failed job, round 2 40 50
 *  phase "cpu"  (load cpu): round 1 60 60 90, round 2 invalid (1000)
 *  phase "io"   (load io):  round 1 only, invalid
 *  load "cpu" recorded with its units; load "io" not recorded */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	const struct run_info ri = {
		.profile_name = "t",
		.host = "h",
		.kernel = "k",
		.cpu_model = "c",
		.cores = 2,
		.ram_bytes = 1 << 30,
		.tree_fingerprint = "fp",
		.version = "v",
		.rounds = 2,
	};
	struct db *db;
	char *err = NULL;
	int64_t p, run;

	const char *tmp = getenv("TMPDIR");

	snprintf(f->dir, sizeof f->dir, "%s/test_report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof f->path, "%s/loadd.db", f->dir);
	db = db_open(f->path, DB_READWRITE, &err);
	if (db == NULL)
		return -1;
	run = db_run_begin(db, &ri, 50);
	const struct load_info cpu = {
		.name = "cpu",
		.type = "cpu",
		.cycle_unit = "trips",
		.ops_unit = "passes",
	};
	assert_int_equal(db_load_insert(db, run, &cpu), 0);

	p = db_phase_begin(db, run, 1, 0, "none", "warm", "", 99);
	db_phase_probe_start(db, p, 100);
	add_sample(db, run, p, 0, 10, false, 0);
	add_sample(db, run, p, 1, 20, false, 1);
	add_sample(db, run, p, 2, 999, true, 0);
	add_sample(db, run, p, 3, 30, false, 0);
	add_psi(db, run, p, 99.5, 90); /* before the window: not counted */
	add_psi(db, run, p, 101, 10);
	add_psi(db, run, p, 102, 20);
	db_phase_end(db, p, 104, true, NULL);

	p = db_phase_begin(db, run, 1, 1, "cpu", "warm", "cpu", 104);
	db_phase_probe_start(db, p, 100);
	add_sample(db, run, p, 0, 60, false, 0);
	add_sample(db, run, p, 1, 90, false, 0);
	add_sample(db, run, p, 2, 60, false, 0);
	add_loader(db, run, p, 99.5, 0, 0);      /* settle: before the window */
	add_loader(db, run, p, 99.9, 1000, 500); /* the snapshot just before it */
	add_loader(db, run, p, 101, 2000, 1000);
	add_loader(db, run, p, 102, 3100, 1550); /* the last one in it */
	add_loader(db, run, p, 103, 9999, 9999); /* after the end */
	db_phase_end(db, p, 102.1, true, NULL);

	p = db_phase_begin(db, run, 1, 2, "io", "warm", "io", 110);
	db_phase_probe_start(db, p, 111);
	add_sample(db, run, p, 0, 5, false, 0);
	db_phase_end(db, p, 112, false, "no progress during the probe window from load(s): io");

	p = db_phase_begin(db, run, 2, 0, "none", "warm", "", 120);
	db_phase_probe_start(db, p, 121);
	add_sample(db, run, p, 0, 40, false, 0);
	add_sample(db, run, p, 1, 50, false, 0);
	db_phase_end(db, p, 125, true, NULL);

	p = db_phase_begin(db, run, 2, 1, "cpu", "warm", "cpu", 126);
	db_phase_probe_start(db, p, 127);
	add_sample(db, run, p, 0, 1000, false, 5);
	add_loader(db, run, p, 127, 0, 0);
	add_loader(db, run, p, 128, 1, 1);
	db_phase_end(db, p, 129, false, "cpu stalled");

	db_run_end(db, run, "complete", 130);
	f->db = db;
	f->run = run;
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

static void test_build(void **state)
{
	struct fixture *f = *state;
	struct run_report rep;
	const struct report_phase *none, *cpu, *io;

	assert_int_equal(report_build(f->db, f->run, &rep), 0);
	assert_int_equal(rep.nphases, 3);
	none = &rep.phases[0];
	cpu = &rep.phases[1];
	io = &rep.phases[2];
	assert_string_equal(rep.baseline, "none");

	assert_string_equal(none->name, "none");
	assert_int_equal(none->nrounds, 2);
	assert_int_equal(none->valid_rounds, 2);
	assert_int_equal(none->time.n, 5); /* the failed job is out */
	assert_near(none->time.median, 30, 1e-9);
	assert_near(none->time.mean, 30, 1e-9);
	assert_near(none->time.sd, sqrt(250), 1e-9);
	assert_near(none->time.ci_high - none->time.mean, 2.776445 * sqrt(250) / sqrt(5), 1e-5);
	assert_int_equal(none->failed, 1);
	assert_int_equal(none->missed, 1);
	assert_near(none->ratio, 1, 1e-12);
	assert_true(isnan(none->load_cycles) && isnan(none->lcpu_pct));
	assert_near(none->psi_cpu, 15, 1e-9);
	assert_true(isnan(none->psi_mem));
	assert_near(none->psi_io, 1, 1e-9);
	assert_string_equal(none->note, "");

	/* round 2 is invalid: its 1000 ms and its 5 missed slots are out */
	assert_int_equal(cpu->valid_rounds, 1);
	assert_int_equal(cpu->time.n, 3);
	assert_near(cpu->time.median, 60, 1e-9);
	assert_int_equal(cpu->missed, 0);
	assert_near(cpu->ratio, 2, 1e-12);
	assert_string_equal(cpu->note, "INVALID: round 2: cpu stalled");
	/* loader window 99.9 .. 102: 2100 cycles and 1050 ms of CPU in 2.1 s */
	assert_int_equal(cpu->nload, 1);
	assert_string_equal(cpu->load[0].name, "cpu");
	assert_string_equal(cpu->load[0].type, "cpu");
	assert_string_equal(cpu->load[0].cycle_unit, "trips");
	assert_string_equal(cpu->load[0].ops_unit, "passes");
	assert_int_equal(cpu->load[0].windows, 1);
	assert_true(cpu->load[0].cycles == 2100);
	assert_near(cpu->load[0].seconds, 2.1, 1e-9);
	assert_near(cpu->load[0].cycles_per_s, 1000, 1e-6);
	assert_near(cpu->load[0].lcpu_pct, 50, 1e-6);
	assert_true(isnan(cpu->load[0].mib_per_s)); /* its loader moves no bytes */
	assert_near(cpu->load[0].ops_per_s, 8000, 1e-6);
	assert_near(cpu->load_cycles, 2100, 1e-9);
	assert_near(cpu->lcpu_pct, 50, 1e-6);

	/* every round invalid: no figures at all, and the reason */
	assert_int_equal(io->valid_rounds, 0);
	assert_int_equal(io->time.n, 0);
	assert_true(isnan(io->time.median) && isnan(io->ratio) && isnan(io->cpu_pct));
	assert_string_equal(io->note,
			    "INVALID: no progress during the probe window from load(s): io");
	assert_int_equal(io->nload, 1);
	assert_int_equal(io->load[0].windows, 0);
	assert_null(io->load[0].type); /* the run did not record it */
	assert_null(io->load[0].cycle_unit);
	report_free(&rep);

	assert_int_equal(report_build(f->db, f->run + 1, &rep), 1);
}

/* Finds the line of the main table that starts with the phase's name. */
static const char *table_line(const char *text, const char *name)
{
	const char *p = strstr(text, "\nPhase ");
	size_t len = strlen(name);

	assert_non_null(p);
	while ((p = strchr(p, '\n')) != NULL) {
		p++;
		if (strncmp(p, name, len) == 0 && p[len] == ' ')
			return p;
	}
	fail_msg("no line for phase %s", name);
	return NULL;
}

static void test_text(void **state)
{
	struct fixture *f = *state;
	char *buf = NULL, *line;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	char w[16][32];
	int n;

	assert_int_equal(report_print(f->db, f->run, fp), 0);
	fclose(fp);
	assert_non_null(strstr(buf, "Run       1 (complete)"));
	assert_non_null(strstr(buf, "Phase"));
	line = strndup(table_line(buf, "none"), strcspn(table_line(buf, "none"), "\n"));
	/* Phase Time CPU% Loads LCPU% Ratio n median p95 p99 max sd CI missed failed */
	n = sscanf(line,
		   "%31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s",
		   w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11], w[12],
		   w[13], w[14]);
	assert_int_equal(n, 15);
	assert_string_equal(w[1], "30.00");
	assert_string_equal(w[3], "-");
	assert_string_equal(w[5], "1.00");
	assert_string_equal(w[6], "5");
	assert_string_equal(w[10], "50.00");
	assert_string_equal(w[13], "1");
	assert_string_equal(w[14], "1");
	free(line);
	assert_non_null(strstr(table_line(buf, "cpu"), "2.00"));
	line = strndup(table_line(buf, "cpu"), strcspn(table_line(buf, "cpu"), "\n"));
	assert_non_null(strstr(line, "INVALID: round 2: cpu stalled"));
	free(line);
	assert_non_null(strstr(table_line(buf, "io"), "INVALID: no progress"));
	/* the pressure table */
	assert_non_null(strstr(buf, "n/a"));
	/* columns line up: each row's Ratio ends where the heading's does */
	const char *head = strstr(buf, "\nPhase ") + 1;
	size_t end = (size_t)(strstr(head, "Ratio") - head) + 5;
	const char *rows[] = { table_line(buf, "none"), table_line(buf, "cpu"),
			       table_line(buf, "io") };
	for (size_t i = 0; i < 3; i++) {
		assert_true(rows[i][end - 1] != ' ');
		assert_true(rows[i][end] == ' ');
	}
	free(buf);

	fp = open_memstream(&buf, &len);
	assert_int_equal(report_print(f->db, f->run + 7, fp), 1);
	fclose(fp);
	free(buf);
}

static void test_json(void **state)
{
	struct fixture *f = *state;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	json_error_t jerr;
	json_t *root, *phases, *cpu, *io;

	assert_int_equal(report_json(f->db, f->run, fp), 0);
	fclose(fp);
	root = json_loads(buf, 0, &jerr);
	if (root == NULL)
		fail_msg("report JSON does not parse: %s", jerr.text);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(root, "run"), "id")),
			 f->run);
	assert_string_equal(json_string_value(json_object_get(root, "baseline")), "none");
	phases = json_object_get(root, "phases");
	assert_int_equal(json_array_size(phases), 3);
	cpu = json_array_get(phases, 1);
	assert_near(json_real_value(json_object_get(cpu, "ratio")), 2, 1e-12);
	assert_near(json_number_value(json_object_get(json_object_get(cpu, "time_ms"), "median")),
		    60, 1e-12);
	assert_near(json_number_value(json_object_get(
			    json_array_get(json_object_get(cpu, "load_stats"), 0), "cycles_per_s")),
		    1000, 1e-6);
	assert_false(json_is_true(json_object_get(cpu, "valid")));
	/* what does not exist is null, not 0 */
	io = json_array_get(phases, 2);
	assert_true(json_is_null(json_object_get(io, "ratio")));
	assert_true(json_is_null(
		json_object_get(json_object_get(json_array_get(phases, 0), "psi_some"), "memory")));
	json_decref(root);
	free(buf);
}

/* The text of the loads table's cell under `col` in the row of load `name`:
 * a left-aligned column's cell starts where its heading does, a right-
 * aligned one (MiB/s) ends where its heading ends. */
static char *loads_cell(const char *text, const char *name, const char *col)
{
	const char *head = strstr(text, "\nLoads over the probe window");
	const char *p, *at;
	size_t load_at, col_at, len = strlen(name);
	bool right = strcmp(col, "MiB/s") == 0;

	assert_non_null(head);
	head = strstr(head, "\nPhase ");
	assert_non_null(head);
	head++;
	load_at = (size_t)(strstr(head, "Load") - head);
	at = strstr(head, col);
	assert_true(at != NULL && at < strchr(head, '\n'));
	col_at = (size_t)(at - head) + (right ? strlen(col) : 0);
	for (p = strchr(head, '\n') + 1; *p != '\0' && *p != '\n'; p = strchr(p, '\n') + 1) {
		size_t line_len = strcspn(p, "\n"), start, end;

		if (line_len <= load_at || strncmp(p + load_at, name, len) != 0 ||
		    p[load_at + len] != ' ')
			continue;
		assert_true(line_len > col_at);
		if (right) {
			end = col_at;
			for (start = end; start > 0 && p[start - 1] != ' '; start--)
				;
		} else {
			start = col_at;
			assert_true(start == 0 || p[start - 1] == ' ');
			/* a rate's number is padded to its column's widest */
			while (start < line_len && p[start] == ' ')
				start++;
			/* cells end at two blanks (a unit has one inside) */
			for (end = start; end < line_len && strncmp(p + end, "  ", 2) != 0; end++)
				;
		}
		return strndup(p + start, end - start);
	}
	fail_msg("no row for load %s", name);
	return NULL;
}

/* Each load's figures named in its loader's units as the run recorded them,
 * in the text and the JSON; a load the run has no units for falls back to
 * generic names, and MiB/s to whether bytes moved. */
static void test_units(void **state)
{
	static const struct {
		const char *sql; /* applied to the fixture's loads table first */
		const char *type, *cycles, *ops, *mib;
		const char *json_type, *json_cycle_unit, *json_ops_unit; /* NULL: null */
	} cases[] = {
		{ "SELECT 1", "cpu", "1000 trips/s", "8000 passes/s", "-", "cpu", "trips",
		  "passes" },
		{ "UPDATE loads SET ops_unit = NULL, reports_bytes = 1, cycle_unit = 'tar cycles'",
		  "cpu", "1000 tar cycles/s", "-", "0.0", "cpu", "tar cycles", NULL },
		{ "DELETE FROM loads", "-", "1000 cycles/s", "8000 ops/s", "-", NULL, NULL, NULL },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *buf = NULL, *cell, *errmsg = NULL;
		size_t len = 0;
		FILE *fp;
		sqlite3 *raw;
		json_error_t jerr;
		json_t *root, *load;
		const char *want_json[3] = { cases[i].json_type, cases[i].json_cycle_unit,
					     cases[i].json_ops_unit };
		static const char *const json_key[3] = { "type", "cycle_unit", "ops_unit" };
		const char *want_text[4] = { cases[i].type, cases[i].cycles, cases[i].ops,
					     cases[i].mib };
		static const char *const text_col[4] = { "Type", "Cycles", "Ops", "MiB/s" };

		assert_int_equal(sqlite3_open(f->path, &raw), SQLITE_OK);
		assert_int_equal(sqlite3_exec(raw, cases[i].sql, NULL, NULL, &errmsg), SQLITE_OK);
		sqlite3_close(raw);

		fp = open_memstream(&buf, &len);
		assert_int_equal(report_print(f->db, f->run, fp), 0);
		fclose(fp);
		for (size_t k = 0; k < 4; k++) {
			cell = loads_cell(buf, "cpu", text_col[k]);
			if (strcmp(cell, want_text[k]) != 0)
				fail_msg("case %zu: %s is '%s', want '%s':\n%s", i, text_col[k],
					 cell, want_text[k], buf);
			free(cell);
		}
		/* the io load has no window: its figures are bare dashes */
		cell = loads_cell(buf, "io", "Ops");
		assert_string_equal(cell, "-");
		free(cell);
		free(buf);

		buf = NULL;
		fp = open_memstream(&buf, &len);
		assert_int_equal(report_json(f->db, f->run, fp), 0);
		fclose(fp);
		root = json_loads(buf, 0, &jerr);
		if (root == NULL)
			fail_msg("report JSON does not parse: %s", jerr.text);
		load = json_array_get(
			json_object_get(json_array_get(json_object_get(root, "phases"), 1),
					"load_stats"),
			0);
		for (size_t k = 0; k < 3; k++) {
			json_t *v = json_object_get(load, json_key[k]);

			assert_non_null(v);
			if (want_json[k] == NULL)
				assert_true(json_is_null(v));
			else
				assert_string_equal(json_string_value(v), want_json[k]);
		}
		json_decref(root);
		free(buf);
	}
}

/* What report and compare print alike: a load looked up by name, a rate in
 * its unit, and notes joined. */
static void test_shared_cells(void **state)
{
	struct report_load loads[] = { { .name = "ring" }, { .name = "disk" } };
	struct report_phase p = { .load = loads, .nload = 2 };
	char *text, *note = NULL;

	assert_ptr_equal(report_phase_load(&p, "disk"), &loads[1]);
	assert_null(report_phase_load(&p, "none"));
	text = report_rate(17177, 7, "trips");
	assert_string_equal(text, "  17177 trips/s");
	free(text);
	text = report_rate(NAN, 3, "trips");
	assert_string_equal(text, "  -");
	free(text);
	text = report_rate(12, 0, NULL);
	assert_string_equal(text, "12.0");
	free(text);
	str_append(&note, "; ", "cache %s", "cold");
	str_append(&note, "; ", "round %d", 2);
	assert_string_equal(note, "cache cold; round 2");
	free(note);
}

/* A [run] baseline in the stored profile wins over the first no-load phase;
 * a baseline that names no phase of the run falls back to it. */
static void test_profile_baseline(void **state)
{
	static const struct {
		const char *profile;
		const char *want;
	} cases[] = {
		{ "[run]\nbaseline = cpu\n[phase none]\n[phase cpu]\nloads = c\n[load c]\ntype = cpu\n",
		  "cpu" },
		{ "[phase none]\n[phase cpu]\nloads = c\n[load c]\ntype = cpu\n", "none" },
		{ "[run]\nbaseline = gone\n[phase gone]\n", "none" },
		{ "not a profile", "none" },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char sql[512];
		char *errmsg = NULL;
		struct run_report rep;
		sqlite3 *raw;

		snprintf(sql, sizeof sql, "UPDATE runs SET profile_text = '%s'", cases[i].profile);
		assert_int_equal(sqlite3_open(f->path, &raw), SQLITE_OK);
		assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, &errmsg), SQLITE_OK);
		sqlite3_close(raw);
		assert_int_equal(report_build(f->db, f->run, &rep), 0);
		assert_non_null(rep.baseline);
		assert_string_equal(rep.baseline, cases[i].want);
		report_free(&rep);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_units, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_baseline, setup, teardown),
		cmocka_unit_test(test_shared_cells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
