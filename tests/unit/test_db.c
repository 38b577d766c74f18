// SPDX-License-Identifier: GPL-2.0-or-later
/* The database layer on a temp file: schema and migration, every writer
 * and reader, reopening, read-only use beside a writer, version checks,
 * crashed runs and durability after SIGKILL. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "db.h"

#define assert_near(got, want, eps)                                                                \
	do {                                                                                       \
		double got_ = (got), want_ = (want);                                               \
		if (!(fabs(got_ - want_) <= (eps)))                                                \
			fail_msg("%s = %.9g, want %.9g", #got, got_, want_);                       \
	} while (0)

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	const char *tmp = getenv("TMPDIR");

	snprintf(f->dir, sizeof f->dir, "%s/test_db.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	/* two levels that do not exist yet: db_open must create them */
	snprintf(f->path, sizeof f->path, "%s/state/loadd/loadd.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[160];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static struct db *open_ok(const char *path, enum db_mode mode)
{
	char *err = NULL;
	struct db *db = db_open(path, mode, &err);

	if (db == NULL)
		fail_msg("db_open(%s): %s", path, err);
	assert_null(err);
	return db;
}

/* Opening must fail with exactly this message. */
static void open_fails(const char *path, enum db_mode mode, const char *want)
{
	char *err = NULL;
	struct db *db = db_open(path, mode, &err);

	assert_null(db);
	assert_non_null(err);
	assert_string_equal(err, want);
	free(err);
}

/* A plain query on the file, behind the module's back. */
static long long sql_int(const char *path, const char *query)
{
	sqlite3 *s;
	sqlite3_stmt *st;
	long long v = -1;

	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(s, query, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(s);
	return v;
}

static void sql_exec(const char *path, const char *query)
{
	sqlite3 *s;

	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, query, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
}

static const struct run_info test_run = {
	.profile_name = "desktop",
	.profile_path = "/etc/loadd/desktop.conf",
	.profile_text = "[run]\nrounds = 2\n",
	.host = "testhost",
	.kernel = "6.18.0",
	.cpu_model = "Test CPU, 2 GHz",
	.cores = 2,
	.ram_bytes = 24ULL << 30,
	.swap_bytes = 0,
	.tree_fingerprint = "d4f8-10",
	.version = "0.1.0",
	.rounds = 2,
	.planned_ms = 60000,
	.pid = 4242,
};

/* The run's loads: one with an ops figure, one without. */
static const struct load_info test_loads[] = {
	{ .name = "cpu", .type = "cpu", .cycle_unit = "trips", .ops_unit = "passes" },
	{ .name = "mem", .type = "write", .cycle_unit = "files", .reports_bytes = true },
};

static struct sample mk_sample(int64_t phase_id, int64_t seq, double wall)
{
	struct sample s = {
		.phase_id = phase_id,
		.seq = seq,
		.started_at = 1700000000.125 + (double)seq,
		.wall_ms = wall,
		.user_ms = wall / 4,
		.sys_ms = wall / 2,
		.cpu_pct = 75,
		.nvcsw = 10 + seq,
		.nivcsw = 3,
		.exit_code = seq == 2 ? 1 : 0,
		.failed = seq == 2,
		.missed = seq == 1 ? 2 : 0,
	};
	return s;
}

/* Fills a database with one run of two phases; returns the run id. */
static int64_t write_run(struct db *db, int64_t *phase_ids)
{
	int64_t run = db_run_begin(db, &test_run, 1700000000.0);
	struct sample s;
	int i;

	assert_true(run > 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(db_load_insert(db, run, &test_loads[i]), 0);
	phase_ids[0] = db_phase_begin(db, run, 1, 0, "none", "warm", "", 1700000000.5);
	phase_ids[1] = db_phase_begin(db, run, 1, 1, "cpu", "warm", "cpu mem", 1700000031.0);
	assert_true(phase_ids[0] > 0 && phase_ids[1] > phase_ids[0]);
	assert_int_equal(db_phase_probe_start(db, phase_ids[0], 1700000001.0), 0);
	/* samples in autocommit, then a batch in a transaction */
	for (i = 0; i < 3; i++) {
		s = mk_sample(phase_ids[0], i, 80 + i);
		assert_int_equal(db_sample_insert(db, run, &s), 0);
	}
	assert_int_equal(db_phase_end(db, phase_ids[0], 1700000030.0, true, "ignored when valid"),
			 0);
	assert_int_equal(db_begin(db), 0);
	for (i = 0; i < 4; i++) {
		s = mk_sample(phase_ids[1], i, 190 + i);
		assert_int_equal(db_sample_insert(db, run, &s), 0);
	}
	assert_int_equal(db_commit(db), 0);
	assert_int_equal(db_phase_probe_start(db, phase_ids[1], 1700000034.0), 0);
	assert_int_equal(db_phase_end(db, phase_ids[1], 1700000064.0, false,
				      "no progress during the probe window from load(s): mem"),
			 0);

	struct sys_sample sys = {
		.phase_id = phase_ids[1],
		.t = 1700000035.0,
		.cpu_busy_pct = 99.5,
		.ctxt_per_s = 12345,
		.load1 = 2.5,
		.mem_available = 20ULL << 30,
		.swap_used = 0,
		.psi_cpu_some = 42.5,
		.psi_cpu_full = 0,
		.psi_mem_some = NAN,
		.psi_mem_full = NAN,
		.psi_io_some = 1.25,
		.psi_io_full = 0.5,
	};
	assert_int_equal(db_sys_sample_insert(db, run, &sys), 0);
	sys.phase_id = 0; /* between phases */
	sys.t = 1700000032.0;
	assert_int_equal(db_sys_sample_insert(db, run, &sys), 0);

	struct loader_sample ls = {
		.phase_id = phase_ids[1],
		.load = "cpu",
		.t = 1700000034.0,
		.cycles = 1000,
		.bytes = 0,
		.ops = 5,
		.errors = 0,
		.cpu_ms = 500.5,
		.procs = 8,
		.restarts = 0,
		.running = true,
		.stalled = false,
	};
	assert_int_equal(db_loader_sample_insert(db, run, &ls), 0);
	ls.load = "mem";
	ls.bytes = UINT64_MAX - 1; /* stored signed, must read back the same */
	ls.stalled = true;
	assert_int_equal(db_loader_sample_insert(db, run, &ls), 0);
	ls.load = "cpu";
	ls.t = 1700000035.0;
	ls.cycles = 2000;
	ls.bytes = 0;
	ls.stalled = false;
	assert_int_equal(db_loader_sample_insert(db, run, &ls), 0);

	struct event ev = { .phase_id = phase_ids[1],
			    .t = 1700000040.0,
			    .load = "mem",
			    .kind = "stall",
			    .message = "no progress for 10s" };
	assert_int_equal(db_event_insert(db, run, &ev), 0);
	ev = (struct event){ .phase_id = 0,
			     .t = 1700000041.0,
			     .load = NULL,
			     .kind = "error",
			     .message = "something, with \"quotes\"" };
	assert_int_equal(db_event_insert(db, run, &ev), 0);
	return run;
}

static void check_run(struct db *db, int64_t run, int64_t *phase_ids)
{
	struct run_row r;
	struct phase_row *ph;
	struct sample *s;
	struct loader_sample *ls;
	struct sys_sample *sys;
	struct event *ev;
	struct load_info *li;
	size_t n;

	assert_int_equal(db_latest_run(db), run);
	assert_int_equal(db_run_get(db, run, &r), 0);
	assert_int_equal(r.id, run);
	assert_string_equal(r.status, "running");
	assert_string_equal(r.profile_name, "desktop");
	assert_string_equal(r.profile_path, test_run.profile_path);
	assert_string_equal(r.profile_text, test_run.profile_text);
	assert_string_equal(r.host, "testhost");
	assert_string_equal(r.kernel, "6.18.0");
	assert_string_equal(r.cpu_model, test_run.cpu_model);
	assert_int_equal(r.cores, 2);
	assert_true(r.ram_bytes == 24ULL << 30);
	assert_int_equal(r.swap_bytes, 0);
	assert_string_equal(r.tree_fingerprint, "d4f8-10");
	assert_string_equal(r.version, "0.1.0");
	assert_int_equal(r.rounds, 2);
	assert_int_equal(r.planned_ms, 60000);
	assert_near(r.started_at, 1700000000.0, 1e-6);
	assert_near(r.ended_at, 0, 0);
	assert_int_equal(r.samples, 7);
	db_run_row_free(&r);
	assert_int_equal(db_run_get(db, run + 100, &r), 1);

	assert_int_equal(db_loads_list(db, run, &li, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(li[i].name, test_loads[i].name);
		assert_string_equal(li[i].type, test_loads[i].type);
		assert_string_equal(li[i].cycle_unit, test_loads[i].cycle_unit);
		assert_int_equal(li[i].reports_bytes, test_loads[i].reports_bytes);
	}
	assert_string_equal(li[0].ops_unit, "passes");
	assert_null(li[1].ops_unit); /* no ops figure stays NULL, not "" */
	db_loads_free(li, n);
	assert_int_equal(db_loads_list(db, run + 100, &li, &n), 0);
	assert_int_equal(n, 0);
	db_loads_free(li, n);

	assert_int_equal(db_phases_list(db, run, &ph, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ph[0].id, phase_ids[0]);
	assert_int_equal(ph[0].round, 1);
	assert_int_equal(ph[0].seq, 0);
	assert_string_equal(ph[0].name, "none");
	assert_string_equal(ph[0].cache, "warm");
	assert_string_equal(ph[0].loads, "");
	assert_near(ph[0].started_at, 1700000000.5, 1e-6);
	assert_near(ph[0].probe_start, 1700000001.0, 1e-6);
	assert_near(ph[0].ended_at, 1700000030.0, 1e-6);
	assert_true(ph[0].valid);
	assert_string_equal(ph[0].invalid_reason, "");
	assert_string_equal(ph[1].name, "cpu");
	assert_string_equal(ph[1].loads, "cpu mem");
	assert_false(ph[1].valid);
	assert_string_equal(ph[1].invalid_reason,
			    "no progress during the probe window from load(s): mem");
	db_phase_rows_free(ph, n);

	assert_int_equal(db_samples_list(db, phase_ids[1], &s, &n), 0);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		struct sample want = mk_sample(phase_ids[1], (int64_t)i, 190 + (double)i);

		assert_int_equal(s[i].phase_id, want.phase_id);
		assert_int_equal(s[i].seq, want.seq);
		assert_near(s[i].started_at, want.started_at, 1e-6);
		assert_near(s[i].wall_ms, want.wall_ms, 0);
		assert_near(s[i].user_ms, want.user_ms, 0);
		assert_near(s[i].sys_ms, want.sys_ms, 0);
		assert_near(s[i].cpu_pct, want.cpu_pct, 0);
		assert_int_equal(s[i].nvcsw, want.nvcsw);
		assert_int_equal(s[i].nivcsw, want.nivcsw);
		assert_int_equal(s[i].exit_code, want.exit_code);
		assert_int_equal(s[i].failed, want.failed);
		assert_int_equal(s[i].missed, want.missed);
	}
	free(s);

	assert_int_equal(db_loader_samples_list(db, phase_ids[1], &ls, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(ls[0].load, "cpu");
	assert_true(ls[0].cycles == 1000 && ls[0].ops == 5 && ls[0].procs == 8);
	assert_near(ls[0].cpu_ms, 500.5, 0);
	assert_true(ls[0].running && !ls[0].stalled);
	assert_string_equal(ls[1].load, "mem");
	assert_true(ls[1].bytes == UINT64_MAX - 1);
	assert_true(ls[1].stalled);
	assert_string_equal(ls[2].load, "cpu");
	assert_true(ls[2].cycles == 2000);
	assert_near(ls[2].t, 1700000035.0, 1e-6);
	db_loader_samples_free(ls, n);
	assert_int_equal(db_loader_samples_list(db, phase_ids[0], &ls, &n), 0);
	assert_int_equal(n, 0);
	db_loader_samples_free(ls, n);

	assert_int_equal(db_sys_samples_list(db, phase_ids[1], &sys, &n), 0);
	assert_int_equal(n, 1); /* the row between phases belongs to none */
	assert_near(sys[0].cpu_busy_pct, 99.5, 0);
	assert_near(sys[0].ctxt_per_s, 12345, 0);
	assert_near(sys[0].load1, 2.5, 0);
	assert_true(sys[0].mem_available == 20ULL << 30);
	assert_near(sys[0].psi_cpu_some, 42.5, 0);
	assert_true(isnan(sys[0].psi_mem_some) && isnan(sys[0].psi_mem_full));
	assert_near(sys[0].psi_io_some, 1.25, 0);
	assert_near(sys[0].psi_io_full, 0.5, 0);
	free(sys);

	assert_int_equal(db_events_list(db, run, 10, &ev, &n), 0);
	assert_int_equal(n, 2);
	/* newest first */
	assert_string_equal(ev[0].kind, "error");
	assert_null(ev[0].load);
	assert_int_equal(ev[0].phase_id, 0);
	assert_string_equal(ev[0].message, "something, with \"quotes\"");
	assert_string_equal(ev[1].kind, "stall");
	assert_string_equal(ev[1].load, "mem");
	assert_int_equal(ev[1].phase_id, phase_ids[1]);
	db_events_free(ev, n);
	assert_int_equal(db_events_list(db, run, 1, &ev, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ev[0].kind, "error");
	db_events_free(ev, n);
}

static void test_schema(void **state)
{
	struct fixture *f = *state;
	struct db *db = open_ok(f->path, DB_READWRITE);

	db_close(db);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
					  " AND name IN ('runs', 'loads', 'phases', 'samples',"
					  " 'system_stats', 'loader_stats', 'events')"),
			 7);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
					  " AND name IN ('phases_run', 'samples_phase')"),
			 2);
	/* WAL is a property of the file: it stays after closing */
	sqlite3 *s;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(f->path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(s, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(s);
	/* reopening does not migrate again */
	db = open_ok(f->path, DB_READWRITE);
	db_close(db);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), DB_SCHEMA_VERSION);
}

static void test_write_read(void **state)
{
	struct fixture *f = *state;
	struct db *db = open_ok(f->path, DB_READWRITE);
	int64_t phases[2], run;

	assert_int_equal(db_latest_run(db), 0);
	run = write_run(db, phases);
	check_run(db, run, phases);
	db_close(db);

	/* everything is still there after a reopen, read-write and read-only */
	db = open_ok(f->path, DB_READWRITE);
	check_run(db, run, phases);
	db_close(db);
	db = open_ok(f->path, DB_READONLY);
	check_run(db, run, phases);
	/* a read-only handle refuses to write */
	struct sample s = mk_sample(phases[0], 9, 1);
	assert_int_equal(db_sample_insert(db, run, &s), -1);
	db_close(db);

	/* the foreign keys are on: a sample of no phase is refused */
	db = open_ok(f->path, DB_READWRITE);
	s = mk_sample(phases[1] + 1000, 0, 1);
	assert_int_equal(db_sample_insert(db, run, &s), -1);
	/* a load of no run, or a second load of one name in a run, is refused */
	assert_int_equal(db_load_insert(db, run + 1000, &test_loads[0]), -1);
	assert_int_equal(db_load_insert(db, run, &test_loads[1]), -1);
	assert_int_equal(db_run_end(db, run, "complete", 1700000065.0), 0);
	struct run_row r;
	assert_int_equal(db_run_get(db, run, &r), 0);
	assert_string_equal(r.status, "complete");
	assert_near(r.ended_at, 1700000065.0, 1e-6);
	db_run_row_free(&r);
	db_close(db);
}

struct foreach_seen {
	size_t n;
	int64_t run[16];
	int64_t phase[16];
	int64_t seq[16];
	char name[16][8];
	size_t stop_after;
};

static int foreach_cb(void *arg, int64_t run_id, const struct phase_row *phase,
		      const struct sample *s)
{
	struct foreach_seen *seen = arg;

	assert_true(seen->n < 16);
	assert_int_equal(s->phase_id, phase->id);
	seen->run[seen->n] = run_id;
	seen->phase[seen->n] = phase->id;
	seen->seq[seen->n] = s->seq;
	snprintf(seen->name[seen->n], sizeof seen->name[0], "%s", phase->name);
	seen->n++;
	return seen->stop_after && seen->n == seen->stop_after ? 7 : 0;
}

static void test_foreach_and_runs(void **state)
{
	struct fixture *f = *state;
	struct db *db = open_ok(f->path, DB_READWRITE);
	int64_t p1[2], p2[2], run1, run2;
	struct foreach_seen seen = { 0 };
	struct run_row *runs;
	size_t n, i;

	run1 = write_run(db, p1);
	run2 = write_run(db, p2);
	assert_int_equal(db_latest_run(db), run2);

	assert_int_equal(db_samples_foreach(db, run1, foreach_cb, &seen), 0);
	assert_int_equal(seen.n, 7);
	for (i = 0; i < 7; i++) {
		assert_int_equal(seen.run[i], run1);
		assert_int_equal(seen.phase[i], i < 3 ? p1[0] : p1[1]);
		assert_int_equal(seen.seq[i], i < 3 ? i : i - 3);
		assert_string_equal(seen.name[i], i < 3 ? "none" : "cpu");
	}

	memset(&seen, 0, sizeof seen);
	assert_int_equal(db_samples_foreach(db, 0, foreach_cb, &seen), 0);
	assert_int_equal(seen.n, 14);
	assert_int_equal(seen.run[6], run1);
	assert_int_equal(seen.run[7], run2);
	assert_int_equal(seen.phase[13], p2[1]);

	/* a callback's non-zero return stops the walk and is passed on */
	memset(&seen, 0, sizeof seen);
	seen.stop_after = 4;
	assert_int_equal(db_samples_foreach(db, run2, foreach_cb, &seen), 7);
	assert_int_equal(seen.n, 4);
	/* and the statement is usable again afterwards */
	memset(&seen, 0, sizeof seen);
	assert_int_equal(db_samples_foreach(db, run2, foreach_cb, &seen), 0);
	assert_int_equal(seen.n, 7);
	memset(&seen, 0, sizeof seen);
	assert_int_equal(db_samples_foreach(db, run2 + 5, foreach_cb, &seen), 0);
	assert_int_equal(seen.n, 0);

	assert_int_equal(db_runs_list(db, &runs, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].id, run2); /* newest first */
	assert_int_equal(runs[1].id, run1);
	assert_int_equal(runs[0].samples, 7);
	for (i = 0; i < n; i++)
		db_run_row_free(&runs[i]);
	free(runs);
	db_close(db);
}

static void test_readonly_beside_writer(void **state)
{
	struct fixture *f = *state;
	struct db *w = open_ok(f->path, DB_READWRITE);
	struct db *r = open_ok(f->path, DB_READONLY);
	int64_t run;
	struct run_row row;

	assert_int_equal(db_latest_run(r), 0);
	/* the writer holds a transaction open: the reader is not blocked and
	 * sees only what was committed */
	assert_int_equal(db_begin(w), 0);
	run = db_run_begin(w, &test_run, 1.0);
	assert_int_equal(db_latest_run(r), 0);
	assert_int_equal(db_commit(w), 0);
	assert_int_equal(db_latest_run(r), run);
	db_close(w);
	assert_int_equal(db_run_get(r, run, &row), 0);
	db_run_row_free(&row);
	db_close(r);
}

static void test_open_errors(void **state)
{
	struct fixture *f = *state;
	char path[160], want[320];
	struct db *db;

	snprintf(path, sizeof path, "%s/missing.db", f->dir);
	snprintf(want, sizeof want, "no database at %s (has loadd run yet?)", path);
	open_fails(path, DB_READONLY, want);
	assert_int_equal(access(path, F_OK), -1); /* and it was not created */

	/* a newer schema is refused by both modes, and left untouched */
	db = open_ok(f->path, DB_READWRITE);
	db_close(db);
	snprintf(want, sizeof want, "PRAGMA user_version = %d", DB_SCHEMA_VERSION + 1);
	sql_exec(f->path, want);
	snprintf(want, sizeof want,
		 "database %s has schema version %d, newer than this program's %d; upgrade loadd",
		 f->path, DB_SCHEMA_VERSION + 1, DB_SCHEMA_VERSION);
	open_fails(f->path, DB_READWRITE, want);
	open_fails(f->path, DB_READONLY, want);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), DB_SCHEMA_VERSION + 1);

	/* an empty file is not (yet) a loadd database to a reader */
	snprintf(path, sizeof path, "%s/empty.db", f->dir);
	fclose(fopen(path, "w"));
	snprintf(want, sizeof want, "%s is not a loadd database yet (has loadd run yet?)", path);
	open_fails(path, DB_READONLY, want);

	/* something else entirely */
	snprintf(path, sizeof path, "%s/text.db", f->dir);
	FILE *fp = fopen(path, "w");
	for (int i = 0; i < 100; i++)
		fputs("this is not a database\n", fp);
	fclose(fp);
	char *err = NULL;
	assert_null(db_open(path, DB_READWRITE, &err));
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "not a database"));
	free(err);
}

static void test_mark_crashed(void **state)
{
	struct fixture *f = *state;
	struct db *db = open_ok(f->path, DB_READWRITE);
	int64_t phases[2], done, crashed;
	struct run_row r;

	done = write_run(db, phases);
	assert_int_equal(db_run_end(db, done, "complete", 1700000065.0), 0);
	crashed = write_run(db, phases);
	assert_int_equal(db_mark_crashed(db), 1);
	assert_int_equal(db_mark_crashed(db), 0);

	assert_int_equal(db_run_get(db, crashed, &r), 0);
	assert_string_equal(r.status, "crashed");
	/* it ended where its last record is: the last event, at ...41 */
	assert_near(r.ended_at, 1700000041.0, 1e-6);
	db_run_row_free(&r);
	assert_int_equal(db_run_get(db, done, &r), 0);
	assert_string_equal(r.status, "complete");
	db_run_row_free(&r);
	db_close(db);
}

/* A writer killed by SIGKILL loses nothing it committed. */
static void test_survives_sigkill(void **state)
{
	struct fixture *f = *state;
	struct db *db = open_ok(f->path, DB_READWRITE);
	int64_t phases[2];
	int64_t run = write_run(db, phases);
	pid_t pid;
	int status;

	db_close(db);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *err;
		struct db *child = db_open(f->path, DB_READWRITE, &err);

		if (child == NULL)
			_exit(3);
		for (int i = 0; i < 50; i++) {
			struct sample s = mk_sample(phases[0], 100 + i, 1);
			if (db_sample_insert(child, run, &s) < 0)
				_exit(4);
		}
		/* an open, uncommitted transaction dies with the process */
		db_begin(child);
		struct sample s = mk_sample(phases[0], 999, 1);
		db_sample_insert(child, run, &s);
		raise(SIGKILL);
		_exit(5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	db = open_ok(f->path, DB_READONLY);
	struct run_row r;
	assert_int_equal(db_run_get(db, run, &r), 0);
	assert_int_equal(r.samples, 7 + 50);
	db_run_row_free(&r);
	db_close(db);
}

/* A user who may read the database but not write its directory (loadctl
 * on root's /var/lib/loadd) can still open it once loadd has closed it. */
static void test_readonly_other_user(void **state)
{
	struct fixture *f = *state;
	struct db *db;
	int64_t phases[2], run;
	pid_t pid;
	int status;

	if (geteuid() != 0)
		skip(); /* needs root to become another user */
	db = open_ok(f->path, DB_READWRITE);
	run = write_run(db, phases);
	db_close(db);
	assert_int_equal(chmod(f->dir, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *err = NULL;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		db = db_open(f->path, DB_READONLY, &err);
		if (db == NULL) {
			fprintf(stderr, "%s\n", err);
			_exit(4);
		}
		_exit(db_latest_run(db) == run ? 0 : 5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_default_path(void **state)
{
	char *p;

	if (geteuid() == 0) {
		p = db_default_path();
		assert_string_equal(p, "/var/lib/loadd/loadd.db");
		free(p);
		return;
	}
	setenv("XDG_STATE_HOME", "/xdg/state", 1);
	p = db_default_path();
	assert_string_equal(p, "/xdg/state/loadd/loadd.db");
	free(p);
	setenv("XDG_STATE_HOME", "relative/is/ignored", 1);
	setenv("HOME", "/home/someone", 1);
	p = db_default_path();
	assert_string_equal(p, "/home/someone/.local/state/loadd/loadd.db");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreach_and_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly_beside_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mark_crashed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_survives_sigkill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly_other_user, setup, teardown),
		cmocka_unit_test(test_default_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
