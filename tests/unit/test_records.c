// SPDX-License-Identifier: GPL-2.0-or-later
/* The column tables (records.c) against the database: every table matches
 * the schema its migrations create, every record type round-trips through
 * the database from its table alone (NULLs and NaNs included), and a
 * database written by loadd 0.1.0 reads back the rows it was written with. */
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

#include "db.h"
#include "records.h"

#define FIELD(type, c, row) ((type *)((char *)(row) + (c)->offset))

struct fixture {
	char dir[64];
	char path[128];
	struct db *db;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	const char *tmp = getenv("TMPDIR");
	char *err;

	snprintf(f->dir, sizeof f->dir, "%s/test_records.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof f->path, "%s/loadd.db", f->dir);
	f->db = db_open(f->path, DB_READWRITE, &err);
	if (f->db == NULL) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[160];

	db_close(f->db);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* ---- the tables match the schema ---- */

static void test_tables_match_schema(void **state)
{
	struct fixture *f = *state;
	sqlite3 *sql;

	assert_int_equal(sqlite3_open_v2(f->path, &sql, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	for (int r = 0; r < REC_COUNT; r++) {
		const struct record_type *rt = &record_types[r];

		for (size_t i = 0; i < rt->ncolumns; i++) {
			const struct column *c = &rt->columns[i];
			char *q;
			sqlite3_stmt *st;

			if (c->expr != NULL)
				continue;
			q = sqlite3_mprintf(
				"SELECT type, \"notnull\", pk FROM pragma_table_info(%Q)"
				" WHERE name = %Q",
				rt->table, c->name);
			assert_int_equal(sqlite3_prepare_v2(sql, q, -1, &st, NULL), SQLITE_OK);
			if (sqlite3_step(st) != SQLITE_ROW)
				fail_msg("%s.%s: no such column", rt->table, c->name);
			/* "REAL NOT NULL" = type REAL, notnull 1 */
			assert_true(strncmp(c->sql_type, (const char *)sqlite3_column_text(st, 0),
					    strlen((const char *)sqlite3_column_text(st, 0))) == 0);
			if ((strstr(c->sql_type, "NOT NULL") != NULL) !=
			    (sqlite3_column_int(st, 1) != 0))
				fail_msg("%s.%s: NOT NULL differs from the schema", rt->table,
					 c->name);
			if ((c->flags & COLF_NOT_NULL) && sqlite3_column_int(st, 1) == 0)
				fail_msg("%s.%s: COLF_NOT_NULL on a nullable column", rt->table,
					 c->name);
			sqlite3_finalize(st);
			sqlite3_free(q);
			assert_true(c->since >= 1 && c->since <= DB_SCHEMA_VERSION);
			assert_true(c->offset < rt->size);
		}
	}
	sqlite3_close(sql);
}

/* ---- every record round-trips ---- */

/* A distinct value for column i of a row, in the column's own type. */
static void fill_column(const struct column *c, void *row, int i, bool nulls, int64_t phase_id)
{
	static char texts[64][32];

	switch (c->type) {
	case COL_INT: *FIELD(int, c, row) = 100 + i; break;
	case COL_LONG: *FIELD(long, c, row) = 200 + i; break;
	case COL_I64: *FIELD(int64_t, c, row) = ((int64_t)1 << 40) + i; break;
	case COL_U64: *FIELD(uint64_t, c, row) = ((uint64_t)1 << 62) + (uint64_t)i; break;
	case COL_BOOL: *FIELD(bool, c, row) = i % 2 == 0; break;
	case COL_REAL: *FIELD(double, c, row) = nulls ? NAN : 0.1 * i + 1.0 / 3; break;
	case COL_TIME: *FIELD(double, c, row) = 1.7e9 + 0.125 * i; break;
	case COL_TEXT:
	case COL_TEXT_NULL:
		snprintf(texts[i], sizeof texts[i], "%s-%d%s", c->name, i, nulls ? "-n" : "");
		*FIELD(const char *, c, row) = nulls && !(c->flags & COLF_NOT_NULL) ? NULL
										    : texts[i];
		break;
	case COL_PHASE_ID:
		*FIELD(int64_t, c, row) = nulls && !strstr(c->sql_type, "NOT NULL") ? 0 : phase_id;
		break;
	case COL_BLOB:
		/* bytes a text would cut: a NUL and a high byte */
		snprintf(texts[i], sizeof texts[i], "b%c%d", nulls ? 'n' : 'x', i);
		texts[i][0] = '\0';
		texts[i][1] = (char)0xff;
		*FIELD(struct blob, c, row) = (struct blob){ (unsigned char *)texts[i],
							     strlen(texts[i] + 2) + 2 };
		break;
	}
}

static void fill_record(const struct record_type *rt, void *row, bool nulls, int64_t phase_id)
{
	memset(row, 0, rt->size);
	for (size_t i = 0; i < rt->ncolumns; i++)
		fill_column(&rt->columns[i], row, (int)i, nulls, phase_id);
}

/* What column c of `got` should read after writing `want` (columns not
 * inserted are not compared; a NULL text reads "" unless COL_TEXT_NULL). */
static void check_column(const struct record_type *rt, const struct column *c, const void *want,
			 const void *got)
{
	if (column_is_text(c)) {
		const char *w = column_text(c, want), *g = column_text(c, got);

		if (w == NULL && c->type == COL_TEXT)
			w = "";
		if ((w == NULL) != (g == NULL) || (w != NULL && strcmp(w, g) != 0))
			fail_msg("%s.%s: wrote %s, read %s", rt->table, c->name, w ? w : "NULL",
				 g ? g : "NULL");
	} else if (c->type == COL_BLOB) {
		const struct blob *w = FIELD(const struct blob, c, want);
		const struct blob *g = FIELD(const struct blob, c, got);

		if (w->len != g->len || memcmp(w->data, g->data, w->len) != 0)
			fail_msg("%s.%s: the blob read back differs", rt->table, c->name);
	} else if (column_is_integer(c)) {
		if (column_integer(c, want) != column_integer(c, got))
			fail_msg("%s.%s: wrote %lld, read %lld", rt->table, c->name,
				 (long long)column_integer(c, want),
				 (long long)column_integer(c, got));
	} else {
		double w = column_number(c, want), g = column_number(c, got);

		if (!(w == g || (isnan(w) && isnan(g))))
			fail_msg("%s.%s: wrote %.17g, read %.17g", rt->table, c->name, w, g);
	}
}

/* Writes a record through db_insert, reads it back through db_list, and
 * compares every inserted column. */
static void round_trip(struct db *db, enum record_id rec, int64_t owner, int64_t key, bool nulls,
		       int64_t phase_id)
{
	const struct record_type *rt = &record_types[rec];
	char want[512];
	void *rows;
	size_t n;

	assert_true(rt->size <= sizeof want);
	fill_record(rt, want, nulls, phase_id);
	if (rt->list_key != NULL && strcmp(rt->list_key, "phase_id") == 0)
		*FIELD(int64_t, record_column(rt, "phase_id"), want) = phase_id; /* to list it */
	assert_true(db_insert(db, rec, owner, want) > 0);
	assert_int_equal(db_list(db, rec, key, 0, &rows, &n), 0);
	assert_true(n >= 1);
	for (size_t i = 0; i < rt->ncolumns; i++) {
		const struct column *c = &rt->columns[i];
		/* the newest row: lists by time run oldest first, events newest first */
		const void *got = (char *)rows + (rec == REC_EVENT ? 0 : n - 1) * rt->size;

		if (!(c->flags & COLF_NO_INSERT))
			check_column(rt, c, want, got);
	}
	db_rows_free(rec, rows, n);
}

static void test_every_record_round_trips(void **state)
{
	struct db *db = ((struct fixture *)*state)->db;
	struct run_start run;
	struct phase_row phase;
	struct run_row *runs;
	size_t n;
	int64_t run_id, phase_id;

	/* a run is written as a run_start and read as a run_row */
	fill_record(&record_types[REC_RUN_START], &run, false, 0);
	run_id = db_insert(db, REC_RUN_START, 0, &run);
	assert_true(run_id > 0);
	assert_int_equal(db_runs_list(db, &runs, &n), 0);
	assert_int_equal(n, 1);
	for (size_t i = 0; i < record_types[REC_RUN_START].ncolumns; i++) {
		const struct column *w = &record_types[REC_RUN_START].columns[i];
		const struct column *g = record_column(&record_types[REC_RUN], w->name);

		if (g == NULL) /* pid: written, not read */
			continue;
		if (column_is_text(w))
			assert_string_equal(column_text(w, &run), column_text(g, &runs[0]));
		else
			assert_true(column_number(w, &run) == column_number(g, &runs[0]));
	}
	db_rows_free(REC_RUN, runs, n);

	round_trip(db, REC_LOAD, run_id, run_id, false, 0);
	round_trip(db, REC_LOAD, run_id, run_id, true, 0);
	fill_record(&record_types[REC_PHASE], &phase, false, 0);
	phase_id = db_insert(db, REC_PHASE, run_id, &phase);
	assert_true(phase_id > 0);
	round_trip(db, REC_PHASE, run_id, run_id, true, 0);
	for (int nulls = 0; nulls <= 1; nulls++) {
		round_trip(db, REC_SAMPLE, run_id, phase_id, nulls, phase_id);
		round_trip(db, REC_SYS_SAMPLE, run_id, phase_id, nulls, phase_id);
		round_trip(db, REC_LOADER_SAMPLE, run_id, phase_id, nulls, phase_id);
		round_trip(db, REC_EVENT, run_id, run_id, nulls, phase_id);
		round_trip(db, REC_HIST, run_id, phase_id, nulls, phase_id);
	}
	round_trip(db, REC_PROBE, run_id, run_id, false, 0);
	round_trip(db, REC_PROBE, run_id, run_id, true, 0);
	/* system figures between phases (phase 0, stored NULL), PSI NaN */
	{
		struct sys_sample want, got;

		fill_record(&record_types[REC_SYS_SAMPLE], &want, true, phase_id);
		want.t = 2e9;
		assert_true(db_insert(db, REC_SYS_SAMPLE, run_id, &want) > 0);
		assert_int_equal(db_sys_sample_latest(db, run_id, &got), 0);
		assert_int_equal(got.phase_id, 0);
		assert_true(isnan(got.psi_io_full) && isnan(got.cpu_busy_pct));
		assert_int_equal(got.mem_available, want.mem_available);
	}
}

/* ---- a database of loadd 0.1.0 ---- */

static struct db *open_fixture(struct fixture *f, enum db_mode mode)
{
	char cmd[512], *err = NULL, path[160];
	struct db *db;

	snprintf(path, sizeof path, "%s/v1.db", f->dir);
	snprintf(cmd, sizeof cmd, "cp '%s/db/records-v1.db' '%s'", TEST_DATA_DIR, path);
	assert_int_equal(system(cmd), 0);
	db = db_open(path, mode, &err);
	if (db == NULL)
		fail_msg("%s", err);
	return db;
}

static void check_v1_rows(struct db *db)
{
	struct run_row run;
	struct load_info *loads;
	struct phase_row *phases;
	struct sample *samples;
	struct sys_sample *sys, latest;
	struct loader_sample *ls;
	struct event *ev;
	size_t n;
	int64_t run_id = db_latest_run(db);

	assert_int_equal(db_run_get(db, run_id, &run), 0);
	assert_string_equal(run.status, "stopped");
	assert_string_equal(run.profile_name, "tiny");
	assert_string_equal(run.profile_text, "[run]\nrounds = 1\n");
	assert_int_equal(run.cores, 2);
	assert_int_equal(run.ram_bytes, 1ULL << 33);
	assert_int_equal(run.planned_ms, 4000);
	assert_true(run.started_at == 1000.25 && run.ended_at == 1005.0);
	assert_int_equal(run.samples, 2);
	db_run_row_free(&run);

	assert_int_equal(db_loads_list(db, run_id, &loads, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(loads[0].ops_unit, "passes");
	assert_null(loads[1].ops_unit);
	assert_true(loads[1].reports_bytes && !loads[0].reports_bytes);
	db_loads_free(loads, n);

	assert_int_equal(db_phases_list(db, run_id, &phases, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(phases[0].name, "idle");
	assert_false(phases[0].valid);
	assert_string_equal(phases[0].invalid_reason, "too few samples");
	assert_true(phases[0].probe_start == 1002.5 && phases[0].ended_at == 1004.0);
	assert_true(phases[1].valid && phases[1].ended_at == 0 && phases[1].probe_start == 0);
	assert_string_equal(phases[1].loads, "spin");

	assert_int_equal(db_samples_list(db, phases[0].id, &samples, &n), 0);
	assert_int_equal(n, 2);
	assert_true(samples[0].wall_ms == 12.5 && samples[0].cpu_pct == 30);
	assert_int_equal(samples[0].nivcsw, 4);
	assert_true(isnan(samples[1].wall_ms) && samples[1].failed);
	assert_int_equal(samples[1].exit_code, 137);
	assert_int_equal(samples[1].missed, 2);
	free(samples);

	assert_int_equal(db_sys_samples_list(db, phases[0].id, &sys, &n), 0);
	assert_int_equal(n, 1);
	assert_true(sys[0].psi_io_full == 0.75 && sys[0].psi_mem_full == 1.25);
	assert_int_equal(sys[0].swap_used, 4096);
	free(sys);
	assert_int_equal(db_sys_sample_latest(db, run_id, &latest), 0);
	assert_true(latest.t == 1002.0 && latest.load1 == 1.5);

	assert_int_equal(db_loader_samples_list(db, phases[0].id, &ls, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ls[0].load, "spin");
	assert_true(ls[0].cpu_ms == 15.5 && ls[0].running && !ls[0].stalled);
	assert_int_equal(ls[0].ops, 20);
	db_loader_samples_free(ls, n);

	assert_int_equal(db_events_list(db, run_id, 0, &ev, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ev[0].kind, "restart"); /* newest first */
	assert_string_equal(ev[0].message, "exited 1");
	assert_null(ev[1].load);
	assert_null(ev[1].message);
	assert_int_equal(ev[1].phase_id, 0);
	db_events_free(ev, n);
	db_phase_rows_free(phases, 2);
}

static void test_v1_database_reads_the_same(void **state)
{
	struct db *db = open_fixture(*state, DB_READONLY);

	assert_int_equal(db_schema_version(db), 1);
	check_v1_rows(db);
	db_close(db);
	db = open_fixture(*state, DB_READWRITE); /* migrated to this version */
	assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
	check_v1_rows(db);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tables_match_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_record_round_trips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_database_reads_the_same, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
