// SPDX-License-Identifier: GPL-2.0-or-later
#include "db.h"

#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hist.h"
#include "log.h"
#include "paths.h"
#include "trust.h"
#include "uuid.h"
#include "xalloc.h"

#ifdef __FILE_NAME__
#define DB_HERE __FILE_NAME__, __LINE__
#else
#define DB_HERE __FILE__, __LINE__
#endif

/* A random (version 4) UUID in SQL, for the runs a migration finds. */
#define UUID_SQL                                                                                   \
	"lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||"                         \
	" substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) ||"   \
	" substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))"

/* Schema migrations: migrations[i] takes user_version i to i + 1. A new
 * version is one more entry at the end; never edit an entry once released. */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  status TEXT NOT NULL,"
	"  profile_name TEXT NOT NULL,"
	"  profile_path TEXT,"
	"  profile_text TEXT,"
	"  host TEXT,"
	"  kernel TEXT,"
	"  cpu_model TEXT,"
	"  cores INTEGER,"
	"  ram_bytes INTEGER,"
	"  swap_bytes INTEGER,"
	"  tree_fingerprint TEXT,"
	"  version TEXT,"
	"  rounds INTEGER,"
	"  planned_ms INTEGER,"
	"  pid INTEGER,"
	"  started_at REAL NOT NULL,"
	"  ended_at REAL"
	");"
	"CREATE INDEX runs_status ON runs(status);"
	/* Each [load NAME] of a run, with the units its loader counts in, so
	 * that readers without the loaders name its figures. */
	"CREATE TABLE loads ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  type TEXT NOT NULL,"
	"  cycle_unit TEXT NOT NULL,"
	"  ops_unit TEXT,"
	"  reports_bytes INTEGER NOT NULL DEFAULT 0,"
	"  UNIQUE (run_id, name)"
	");"
	"CREATE TABLE phases ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  round INTEGER NOT NULL,"
	"  seq INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  cache TEXT,"
	"  loads TEXT NOT NULL DEFAULT '',"
	"  started_at REAL NOT NULL,"
	"  probe_start REAL,"
	"  ended_at REAL,"
	"  valid INTEGER NOT NULL DEFAULT 1,"
	"  invalid_reason TEXT"
	");"
	"CREATE INDEX phases_run ON phases(run_id);"
	"CREATE TABLE samples ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  phase_id INTEGER NOT NULL REFERENCES phases(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  started_at REAL NOT NULL,"
	"  wall_ms REAL,"
	"  user_ms REAL,"
	"  sys_ms REAL,"
	"  cpu_pct REAL,"
	"  nvcsw INTEGER,"
	"  nivcsw INTEGER,"
	"  exit_code INTEGER,"
	"  failed INTEGER NOT NULL DEFAULT 0,"
	"  missed INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE INDEX samples_phase ON samples(phase_id, seq);"
	"CREATE INDEX samples_run ON samples(run_id);"
	"CREATE TABLE system_stats ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  phase_id INTEGER REFERENCES phases(id) ON DELETE CASCADE,"
	"  t REAL NOT NULL,"
	"  cpu_busy_pct REAL,"
	"  ctxt_per_s REAL,"
	"  load1 REAL,"
	"  mem_available INTEGER,"
	"  swap_used INTEGER,"
	"  psi_cpu_some REAL, psi_cpu_full REAL,"
	"  psi_mem_some REAL, psi_mem_full REAL,"
	"  psi_io_some REAL, psi_io_full REAL"
	");"
	"CREATE INDEX system_stats_phase ON system_stats(phase_id, t);"
	"CREATE INDEX system_stats_run ON system_stats(run_id, t);"
	"CREATE TABLE loader_stats ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  phase_id INTEGER REFERENCES phases(id) ON DELETE CASCADE,"
	"  load TEXT NOT NULL,"
	"  t REAL NOT NULL,"
	"  cycles INTEGER,"
	"  bytes INTEGER,"
	"  ops INTEGER,"
	"  errors INTEGER,"
	"  cpu_ms REAL,"
	"  procs INTEGER,"
	"  restarts INTEGER,"
	"  running INTEGER,"
	"  stalled INTEGER"
	");"
	"CREATE INDEX loader_stats_phase ON loader_stats(phase_id, t);"
	"CREATE INDEX loader_stats_run ON loader_stats(run_id, t);"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  phase_id INTEGER REFERENCES phases(id) ON DELETE CASCADE,"
	"  t REAL NOT NULL,"
	"  load TEXT,"
	"  kind TEXT NOT NULL,"
	"  message TEXT"
	");"
	"CREATE INDEX events_run ON events(run_id, t);",
	/* 1 -> 2: probes of several kinds. Each run's probes with their units;
	 * samples say which probe took them (NULL: the job of a version-1 run);
	 * high-rate probes keep a histogram per second (hist.h's compact form)
	 * instead of a row per value. */
	"CREATE TABLE probes ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  type TEXT NOT NULL,"
	"  units TEXT NOT NULL,"
	"  histogram INTEGER NOT NULL DEFAULT 0,"
	"  options TEXT,"
	"  UNIQUE (run_id, name)"
	");"
	"ALTER TABLE samples ADD COLUMN probe_id INTEGER;"
	"ALTER TABLE samples ADD COLUMN value REAL;"
	"ALTER TABLE samples ADD COLUMN variant INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE histograms ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  phase_id INTEGER NOT NULL REFERENCES phases(id) ON DELETE CASCADE,"
	"  probe_id INTEGER NOT NULL,"
	"  variant INTEGER NOT NULL DEFAULT 0,"
	"  t REAL NOT NULL,"
	"  count INTEGER NOT NULL,"
	"  max_ns INTEGER NOT NULL,"
	"  sum_ns INTEGER NOT NULL,"
	"  steal_pct REAL,"
	"  buckets BLOB NOT NULL"
	");"
	"CREATE INDEX histograms_phase ON histograms(phase_id, t);"
	"CREATE INDEX histograms_run ON histograms(run_id, t);",
	/* 2 -> 3: a phase whose load fell short of its expectation, and what
	 * it reached ("cpu: busy 41.2% (expected >= 90%)"); NULL: not weak. */
	"ALTER TABLE phases ADD COLUMN weak TEXT;",
	/* 3 -> 4: a run keeps one UUID in every database it is copied to, so
	 * loadctl import knows a run it already has. Existing runs get theirs
	 * here (random, version 4). */
	"ALTER TABLE runs ADD COLUMN uuid TEXT;"
	"UPDATE runs SET uuid = " UUID_SQL ";"
	"CREATE UNIQUE INDEX runs_uuid ON runs(uuid);",
	/* 4 -> 5: names for runs to check others against (loadctl baseline). */
	"CREATE TABLE baselines ("
	"  name TEXT NOT NULL PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  set_at REAL NOT NULL"
	");",
	/* 5 -> 6: a sample not measured because it was over a system limit
	 * (an ipcbw message size over fs.mqueue.msgsize_max): the limit in
	 * bytes, 0 for every measured sample. */
	"ALTER TABLE samples ADD COLUMN over_limit INTEGER NOT NULL DEFAULT 0;",
};

_Static_assert(sizeof migrations / sizeof migrations[0] == DB_SCHEMA_VERSION,
	       "one migration per schema version");

/* Statements whose SQL is written out; those that move whole records are
 * built from the records' column tables (see build_sql). */
enum stmt_id {
	STMT_BEGIN,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_MARK_CRASHED,
	STMT_RUN_END,
	STMT_PHASE_PROBE_START,
	STMT_PHASE_END,
	STMT_PHASE_SYSTEM_MEANS,
	STMT_PHASE_LOAD_DELTAS,
	STMT_LATEST_RUN,
	STMT_DATA_VERSION,
	STMT_FIXED_COUNT,
	/* built from the column tables */
	STMT_RUN_GET = STMT_FIXED_COUNT,
	STMT_FOREACH_RUN,
	STMT_FOREACH_ALL,
	STMT_LOADER_LATEST,
	STMT_SYS_LATEST,
	STMT_JOB_SAMPLES,
	STMT_COUNT
};

static const char *const fixed_sql[STMT_FIXED_COUNT] = {
	[STMT_BEGIN] = "BEGIN IMMEDIATE",
	[STMT_COMMIT] = "COMMIT",
	[STMT_ROLLBACK] = "ROLLBACK",
	/* A crashed run ends where its last record does, so its duration
	 * still says how far it got. */
	[STMT_MARK_CRASHED] =
		"UPDATE runs SET status = 'crashed', ended_at = max(started_at,"
		" coalesce((SELECT max(t) FROM system_stats WHERE run_id = runs.id), 0),"
		" coalesce((SELECT max(t) FROM loader_stats WHERE run_id = runs.id), 0),"
		" coalesce((SELECT max(t) FROM events WHERE run_id = runs.id), 0),"
		" coalesce((SELECT max(started_at) FROM samples WHERE run_id = runs.id), 0),"
		" coalesce((SELECT max(started_at) FROM phases WHERE run_id = runs.id), 0))"
		" WHERE status = 'running'",
	[STMT_RUN_END] = "UPDATE runs SET status = ?2, ended_at = ?3 WHERE id = ?1",
	[STMT_PHASE_PROBE_START] = "UPDATE phases SET probe_start = ?2 WHERE id = ?1",
	/* What a phase's probe window saw, for its loads' expectations. */
	[STMT_PHASE_SYSTEM_MEANS] =
		"SELECT avg(s.cpu_busy_pct), avg(s.psi_cpu_some), avg(s.psi_mem_some),"
		" avg(s.psi_io_some), min(s.mem_available) FROM system_stats s"
		" JOIN phases p ON p.id = s.phase_id WHERE s.phase_id = ?1 AND s.t >= p.probe_start",
	[STMT_PHASE_LOAD_DELTAS] =
		"SELECT max(l.cycles) - min(l.cycles), max(l.bytes) - min(l.bytes),"
		" max(l.ops) - min(l.ops), max(l.t) - min(l.t) FROM loader_stats l"
		" JOIN phases p ON p.id = l.phase_id"
		" WHERE l.phase_id = ?1 AND l.load = ?2 AND l.t >= p.probe_start",
	[STMT_PHASE_END] =
		"UPDATE phases SET ended_at = ?2, valid = ?3, invalid_reason = ?4 WHERE id = ?1",
	[STMT_LATEST_RUN] = "SELECT max(id) FROM runs",
	[STMT_DATA_VERSION] = "PRAGMA data_version",
};

/* A query over one record (or a phase and its samples): SELECT head, the
 * first record's columns as alias.name, the second's, then the tail. */
struct query {
	const char *head;
	enum record_id rec;
	const char *alias;
	int rec2; /* -1: none */
	const char *alias2;
	const char *tail;
	int since; /* the schema version it needs (0: any); NULL statement on older files */
};

/* clang-format off */
static const struct query queries[STMT_COUNT - STMT_FIXED_COUNT] = {
	[STMT_RUN_GET - STMT_FIXED_COUNT] = { "", REC_RUN, "r", -1, NULL,
					      "FROM runs r WHERE r.id = ?1" },
	/* One pass for an export of any size: phases in order, each phase's
	 * samples through the (phase_id, seq) index, no sorting. */
	[STMT_FOREACH_RUN - STMT_FIXED_COUNT] = {
		"p.run_id, ", REC_PHASE, "p", REC_SAMPLE, "s",
		"FROM phases p JOIN samples s ON s.phase_id = p.id WHERE p.run_id = ?1"
		" ORDER BY p.id, s.seq" },
	[STMT_FOREACH_ALL - STMT_FIXED_COUNT] = {
		"p.run_id, ", REC_PHASE, "p", REC_SAMPLE, "s",
		"FROM phases p JOIN samples s ON s.phase_id = p.id"
		" ORDER BY p.run_id, p.id, s.seq" },
	/* Live views: the newest rows only, through the (phase_id, t) and
	 * (run_id, t) indexes. */
	[STMT_LOADER_LATEST - STMT_FIXED_COUNT] = {
		"", REC_LOADER_SAMPLE, "l", -1, NULL,
		"FROM (SELECT *, row_number() OVER"
		" (PARTITION BY load ORDER BY t DESC, id DESC) AS newest"
		" FROM loader_stats WHERE phase_id = ?1) l"
		" WHERE newest <= ?2 ORDER BY load, t DESC, id DESC" },
	[STMT_SYS_LATEST - STMT_FIXED_COUNT] = {
		"", REC_SYS_SAMPLE, "r", -1, NULL,
		"FROM system_stats r WHERE run_id = ?1 ORDER BY t DESC, id DESC LIMIT 1" },
	/* The job probe's samples of a phase (a version-1 file has no other). */
	[STMT_JOB_SAMPLES - STMT_FIXED_COUNT] = {
		"", REC_SAMPLE, "s", -1, NULL,
		"FROM samples s WHERE s.phase_id = ?1 AND (coalesce(s.probe_id, 0) = 0 OR s.probe_id IN"
		" (SELECT id FROM probes WHERE type = 'job')) ORDER BY s.seq, s.id", 2 },
};
/* clang-format on */

struct db {
	sqlite3 *sql;
	char *path;
	enum db_mode mode;
	int version; /* the schema version of the file, which the SELECTs follow */
	sqlite3_stmt *stmt[STMT_COUNT];
	sqlite3_stmt *insert[REC_COUNT]; /* read-write only */
	sqlite3_stmt *list[REC_COUNT];   /* NULL where the file has no such table */
	bool full;                       /* a write failed for want of space */
};

static void db_log_error(struct db *db, const char *what, const char *file, int line)
{
	if ((sqlite3_extended_errcode(db->sql) & 0xff) == SQLITE_FULL)
		db->full = true;
	log_error("%s:%d: %s in %s: %s", file, line, what, db->path, sqlite3_errmsg(db->sql));
}

/* Runs a statement that returns no rows (or whose rows are not wanted) and
 * resets it for the next use. */
static int step_done(struct db *db, sqlite3_stmt *st, const char *what, const char *file, int line)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		db_log_error(db, what, file, line);
		sqlite3_reset(st);
		return -1;
	}
	sqlite3_reset(st);
	return 0;
}

/* Takes a statement for a query: rows are read with sqlite3_step until
 * SQLITE_DONE, then the statement is reset by the caller. */
static sqlite3_stmt *stmt_get(struct db *db, enum stmt_id id)
{
	sqlite3_stmt *st = db->stmt[id];

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
}

/* ---- one column, one record ---- */

#define FIELD(type, c, row) ((type *)((char *)(row) + (c)->offset))

static void bind_column(sqlite3_stmt *st, int i, const struct column *c, const void *row)
{
	const struct blob *b;
	const char *s;
	double v;

	switch (c->type) {
	case COL_TEXT:
	case COL_TEXT_NULL:
		s = column_text(c, row);
		if (s == NULL && (c->flags & COLF_NOT_NULL))
			s = "";
		if (s == NULL)
			sqlite3_bind_null(st, i);
		else
			sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
		return;
	case COL_REAL:
	case COL_TIME:
		/* NaN is stored as NULL by SQLite itself; this keeps that explicit. */
		v = *FIELD(const double, c, row);
		if (isnan(v))
			sqlite3_bind_null(st, i);
		else
			sqlite3_bind_double(st, i, v);
		return;
	case COL_PHASE_ID:
		/* phase_id 0 means "between phases": NULL, which the foreign key allows. */
		if (*FIELD(const int64_t, c, row) == 0)
			sqlite3_bind_null(st, i);
		else
			sqlite3_bind_int64(st, i, *FIELD(const int64_t, c, row));
		return;
	case COL_U64:
	case COL_INT:
	case COL_LONG:
	case COL_I64:
	case COL_BOOL: sqlite3_bind_int64(st, i, column_integer(c, row)); return;
	case COL_BLOB:
		/* never NULL: an empty blob is an empty histogram */
		b = FIELD(const struct blob, c, row);
		sqlite3_bind_blob(st, i, b->data ? (const void *)b->data : "", (int)b->len,
				  SQLITE_TRANSIENT);
		return;
	}
}

static void read_column(sqlite3_stmt *st, int i, const struct column *c, void *row)
{
	bool null = sqlite3_column_type(st, i) == SQLITE_NULL;
	const unsigned char *s;

	switch (c->type) {
	case COL_TEXT:
	case COL_TEXT_NULL:
		s = sqlite3_column_text(st, i);
		if (s == NULL && c->type == COL_TEXT)
			s = (const unsigned char *)"";
		*FIELD(char *, c, row) = s ? xstrdup((const char *)s) : NULL;
		return;
	case COL_REAL: *FIELD(double, c, row) = null ? NAN : sqlite3_column_double(st, i); return;
	case COL_TIME: *FIELD(double, c, row) = null ? 0 : sqlite3_column_double(st, i); return;
	case COL_INT: *FIELD(int, c, row) = sqlite3_column_int(st, i); return;
	case COL_LONG: *FIELD(long, c, row) = (long)sqlite3_column_int64(st, i); return;
	case COL_I64:
	case COL_PHASE_ID: *FIELD(int64_t, c, row) = sqlite3_column_int64(st, i); return;
	case COL_U64: *FIELD(uint64_t, c, row) = (uint64_t)sqlite3_column_int64(st, i); return;
	case COL_BOOL: *FIELD(bool, c, row) = sqlite3_column_int(st, i) != 0; return;
	case COL_BLOB: {
		const void *data = sqlite3_column_blob(st, i);
		int len = sqlite3_column_bytes(st, i);
		struct blob *b = FIELD(struct blob, c, row);

		b->len = data != NULL && len > 0 ? (size_t)len : 0;
		b->data = xmalloc(b->len ? b->len : 1);
		if (b->len)
			memcpy(b->data, data, b->len);
		return;
	}
	}
}

/* Binds a record's inserted columns from parameter `first` on. */
static void bind_record(sqlite3_stmt *st, int first, const struct record_type *rt, const void *row)
{
	for (size_t i = 0; i < rt->ncolumns; i++)
		if (!(rt->columns[i].flags & COLF_NO_INSERT))
			bind_column(st, first++, &rt->columns[i], row);
}

/* Reads a record from result column `first` on; returns the column after it. */
static int read_record(sqlite3_stmt *st, int first, const struct record_type *rt, void *row)
{
	memset(row, 0, rt->size);
	for (size_t i = 0; i < rt->ncolumns; i++)
		read_column(st, first++, &rt->columns[i], row);
	return first;
}

/* ---- statements built from the column tables ---- */

static FILE *sql_stream(char **sql, size_t *len)
{
	FILE *f = open_memstream(sql, len);

	if (f == NULL)
		fatalx("out of memory building SQL");
	return f;
}

/* A record's columns for a SELECT on a file of schema `version`: a column
 * added later than the file reads as NULL, i.e. as its "none" value. */
static void put_select_list(FILE *f, const struct record_type *rt, const char *alias, int version)
{
	for (size_t i = 0; i < rt->ncolumns; i++) {
		const struct column *c = &rt->columns[i];

		fputs(i ? ", " : "", f);
		if (c->since > version)
			fputs("NULL", f);
		else if (c->expr != NULL)
			fputs(c->expr, f);
		else
			fprintf(f, "%s.%s", alias, c->name);
	}
}

static char *insert_sql(const struct record_type *rt)
{
	char *sql = NULL;
	size_t len = 0, i;
	int n = 0;
	FILE *f = sql_stream(&sql, &len);
	fprintf(f, "INSERT INTO %s (", rt->table);
	if (rt->owner != NULL)
		fprintf(f, "%s", rt->owner), n++;
	for (i = 0; i < rt->ncolumns; i++)
		if (!(rt->columns[i].flags & COLF_NO_INSERT))
			fprintf(f, "%s%s", n++ ? ", " : "", rt->columns[i].name);
	fputs(") VALUES (", f);
	for (i = 0; i < (size_t)n; i++)
		fprintf(f, "%s?%zu", i ? ", " : "", i + 1);
	fputc(')', f);
	fclose(f);
	return sql;
}

/* A record's list: ?1 the key (if it has one), ?2 a LIMIT (-1: none). */
static char *list_sql(const struct record_type *rt, int version)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *f = sql_stream(&sql, &len);
	fputs("SELECT ", f);
	put_select_list(f, rt, "r", version);
	fprintf(f, " FROM %s r", rt->table);
	if (rt->list_key != NULL)
		fprintf(f, " WHERE r.%s = ?1", rt->list_key);
	fprintf(f, " ORDER BY %s LIMIT ?2", rt->list_order);
	fclose(f);
	return sql;
}

static char *query_sql(const struct query *q, int version)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *f = sql_stream(&sql, &len);
	fprintf(f, "SELECT %s", q->head);
	put_select_list(f, &record_types[q->rec], q->alias, version);
	if (q->rec2 >= 0) {
		fputs(", ", f);
		put_select_list(f, &record_types[q->rec2], q->alias2, version);
	}
	fprintf(f, " %s", q->tail);
	fclose(f);
	return sql;
}

static int prepare(struct db *db, const char *sql, sqlite3_stmt **st, char **err)
{
	if (sqlite3_prepare_v3(db->sql, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) !=
	    SQLITE_OK) {
		*err = xasprintf("database %s: cannot prepare \"%s\": %s", db->path, sql,
				 sqlite3_errmsg(db->sql));
		return -1;
	}
	return 0;
}

/* Prepares a built statement and frees its SQL. */
static int prepare_built(struct db *db, char *sql, sqlite3_stmt **st, char **err)
{
	int rc = prepare(db, sql, st, err);

	free(sql);
	return rc;
}

static int prepare_all(struct db *db, char **err)
{
	int i;

	for (i = 0; i < STMT_FIXED_COUNT; i++)
		if (prepare(db, fixed_sql[i], &db->stmt[i], err) < 0)
			return -1;
	for (i = STMT_FIXED_COUNT; i < STMT_COUNT; i++) {
		const struct query *q = &queries[i - STMT_FIXED_COUNT];

		if (q->since > db->version)
			continue;
		if (prepare_built(db, query_sql(q, db->version), &db->stmt[i], err) < 0)
			return -1;
	}
	for (i = 0; i < REC_COUNT; i++) {
		const struct record_type *rt = &record_types[i];

		if (rt->since > db->version)
			continue;
		if (prepare_built(db, list_sql(rt, db->version), &db->list[i], err) < 0)
			return -1;
		if (db->mode == DB_READWRITE &&
		    prepare_built(db, insert_sql(rt), &db->insert[i], err) < 0)
			return -1;
	}
	return 0;
}

/* ---- opening ---- */

char *db_default_path(void)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");

	if (geteuid() == 0)
		return xstrdup("/var/lib/loadd/loadd.db");
	/* The XDG spec says a relative $XDG_STATE_HOME is to be ignored. */
	if (state != NULL && state[0] == '/')
		return xasprintf("%s/loadd/loadd.db", state);
	if (home == NULL || home[0] == '\0') {
		struct passwd *pw = getpwuid(getuid());
		home = pw != NULL ? pw->pw_dir : ".";
	}
	return xasprintf("%s/.local/state/loadd/loadd.db", home);
}

static int exec_sql(struct db *db, const char *sql, char **err)
{
	char *msg = NULL;

	if (sqlite3_exec(db->sql, sql, NULL, NULL, &msg) != SQLITE_OK) {
		*err = xasprintf("database %s: %s", db->path, msg ? msg : sqlite3_errmsg(db->sql));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int read_user_version(struct db *db, int *version, char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->sql, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) {
		*err = xasprintf("cannot read database %s: %s", db->path, sqlite3_errmsg(db->sql));
		return -1;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		*err = xasprintf("cannot read database %s: %s", db->path, sqlite3_errmsg(db->sql));
		sqlite3_finalize(st);
		return -1;
	}
	*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

static char *newer_schema_message(struct db *db, int version)
{
	return xasprintf("database %s has schema version %d, newer than this program's %d; "
			 "upgrade loadd",
			 db->path, version, DB_SCHEMA_VERSION);
}

/* Brings the schema to DB_SCHEMA_VERSION in one transaction: another loadd
 * opening the same file at the same time waits, then finds nothing to do. */
static int migrate(struct db *db, char **err)
{
	int version, v;

	if (exec_sql(db, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	if (read_user_version(db, &version, err) < 0)
		goto fail;
	if (version > DB_SCHEMA_VERSION) {
		*err = newer_schema_message(db, version);
		goto fail;
	}
	for (v = version; v < DB_SCHEMA_VERSION; v++) {
		char pragma[64];

		if (exec_sql(db, migrations[v], err) < 0)
			goto fail;
		snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v + 1);
		if (exec_sql(db, pragma, err) < 0)
			goto fail;
	}
	if (exec_sql(db, "COMMIT", err) < 0)
		goto fail;
	db->version = DB_SCHEMA_VERSION;
	if (version < DB_SCHEMA_VERSION && version > 0)
		log_info("database %s upgraded from schema version %d to %d", db->path, version,
			 DB_SCHEMA_VERSION);
	return 0;
fail:
	sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* A reader takes a file as it is: an older schema is read through SELECTs
 * built for its version (see put_select_list), so that loadctl can read a
 * database its loadd has not upgraded yet. */
static int check_version_readonly(struct db *db, char **err)
{
	int version;

	if (read_user_version(db, &version, err) < 0)
		return -1;
	if (version > DB_SCHEMA_VERSION) {
		*err = newer_schema_message(db, version);
		return -1;
	}
	if (version == 0) {
		*err = xasprintf("%s is not a loadd database yet (has loadd run yet?)", db->path);
		return -1;
	}
	db->version = version;
	return 0;
}

static int set_pragmas(struct db *db, char **err)
{
	sqlite3_busy_timeout(db->sql, 5000);
	if (exec_sql(db, "PRAGMA foreign_keys = ON", err) < 0)
		return -1;
	if (db->mode == DB_READONLY)
		return 0;
	/* WAL: readers (loadctl, loadtop) never block the writer. NORMAL
	 * syncs at checkpoints only: every committed transaction survives the
	 * death of the process, only an OS crash may lose the last ones. */
	if (exec_sql(db, "PRAGMA journal_mode = WAL", err) < 0)
		return -1;
	if (exec_sql(db, "PRAGMA synchronous = NORMAL", err) < 0)
		return -1;
	/* Keep the -wal and -shm files when loadd exits: without them a user
	 * who may read the database but not write its directory (loadctl on
	 * root's /var/lib/loadd) could not open it at all. The limit keeps
	 * the kept WAL small. */
	int persist = 1;
	sqlite3_file_control(db->sql, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
	if (exec_sql(db, "PRAGMA journal_size_limit = 4194304", err) < 0)
		return -1;
	return 0;
}

struct db *db_open(const char *path, enum db_mode mode, char **err)
{
	struct db *db = xcalloc(1, sizeof *db);
	int flags = SQLITE_OPEN_NOMUTEX;
	struct stat sb;

	*err = NULL;
	db->path = xstrdup(path);
	db->mode = mode;
	if (mode == DB_READONLY) {
		if (stat(path, &sb) < 0) {
			if (errno == ENOENT)
				*err = xasprintf("no database at %s (has loadd run yet?)", path);
			else
				*err = xasprintf("cannot open database %s: %s", path,
						 strerror(errno));
			goto fail;
		}
		flags |= SQLITE_OPEN_READONLY;
	} else {
		if (trust_make_parent_dirs(path, 0755, "database", err) < 0)
			goto fail;
		flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	}
	if (sqlite3_open_v2(path, &db->sql, flags, NULL) != SQLITE_OK) {
		*err = xasprintf("cannot open database %s: %s", path,
				 db->sql ? sqlite3_errmsg(db->sql) : "out of memory");
		goto fail;
	}
	sqlite3_extended_result_codes(db->sql, 1);
	if (set_pragmas(db, err) < 0)
		goto fail;
	if (mode == DB_READWRITE ? migrate(db, err) < 0 : check_version_readonly(db, err) < 0)
		goto fail;
	if (prepare_all(db, err) < 0)
		goto fail;
	return db;
fail:
	db_close(db);
	return NULL;
}

void db_close(struct db *db)
{
	int i;

	if (db == NULL)
		return;
	for (i = 0; i < STMT_COUNT; i++)
		sqlite3_finalize(db->stmt[i]);
	for (i = 0; i < REC_COUNT; i++) {
		sqlite3_finalize(db->insert[i]);
		sqlite3_finalize(db->list[i]);
	}
	if (db->sql != NULL) {
		/* Keeps the planner's statistics fresh for the readers. */
		if (db->mode == DB_READWRITE)
			sqlite3_exec(db->sql, "PRAGMA optimize", NULL, NULL, NULL);
		if (sqlite3_close(db->sql) != SQLITE_OK)
			log_error("closing database %s: %s", db->path, sqlite3_errmsg(db->sql));
	}
	free(db->path);
	free(db);
}

int db_schema_version(const struct db *db)
{
	return db->version;
}

int db_begin(struct db *db)
{
	return step_done(db, stmt_get(db, STMT_BEGIN), "starting a transaction", DB_HERE);
}

int db_commit(struct db *db)
{
	if (step_done(db, stmt_get(db, STMT_COMMIT), "committing", DB_HERE) < 0) {
		/* Leave no transaction open behind a failed commit. */
		if (!sqlite3_get_autocommit(db->sql))
			step_done(db, stmt_get(db, STMT_ROLLBACK), "rolling back", DB_HERE);
		return -1;
	}
	return 0;
}

void db_rollback(struct db *db)
{
	if (!sqlite3_get_autocommit(db->sql))
		step_done(db, stmt_get(db, STMT_ROLLBACK), "rolling back", DB_HERE);
}

/* ---- writing ---- */

int64_t db_insert(struct db *db, enum record_id rec, int64_t owner_id, const void *row)
{
	const struct record_type *rt = &record_types[rec];
	sqlite3_stmt *st = db->insert[rec];
	char what[64];

	snprintf(what, sizeof what, "recording a %s", rt->name);
	if (st == NULL) {
		log_error("%s:%d: %s in %s: the database is open read-only", DB_HERE, what,
			  db->path);
		return -1;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rt->owner != NULL)
		sqlite3_bind_int64(st, 1, owner_id);
	bind_record(st, rt->owner != NULL ? 2 : 1, rt, row);
	if (step_done(db, st, what, DB_HERE) < 0)
		return -1;
	return sqlite3_last_insert_rowid(db->sql);
}

int db_mark_crashed(struct db *db)
{
	if (step_done(db, stmt_get(db, STMT_MARK_CRASHED), "marking crashed runs", DB_HERE) < 0)
		return -1;
	return sqlite3_changes(db->sql);
}

int64_t db_run_begin(struct db *db, const struct run_info *ri, double started_at)
{
	char uuid[UUID_LEN + 1];
	struct run_start r = {
		.info = *ri, .status = "running", .started_at = started_at, .uuid = uuid
	};

	uuid_v4(uuid);
	return db_insert(db, REC_RUN_START, 0, &r);
}

bool db_disk_full(const struct db *db)
{
	return db->full;
}

int db_baseline_set(struct db *db, const char *name, int64_t run_id, double set_at)
{
	struct baseline_row b = { (char *)name, run_id, set_at };
	sqlite3_stmt *st;
	int rc = -1;

	if (sqlite3_prepare_v2(db->sql, "DELETE FROM baselines WHERE name = ?1", -1, &st, NULL) !=
	    SQLITE_OK) {
		db_log_error(db, "preparing to replace a baseline", DB_HERE);
		return -1;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	if (db_begin(db) == 0) {
		if (step_done(db, st, "replacing a baseline", DB_HERE) == 0 &&
		    db_insert(db, REC_BASELINE, 0, &b) >= 0)
			rc = db_commit(db);
		else
			sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	}
	sqlite3_finalize(st);
	return rc;
}

int db_run_end(struct db *db, int64_t run_id, const char *status, double ended_at)
{
	sqlite3_stmt *st = stmt_get(db, STMT_RUN_END);

	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 3, ended_at);
	return step_done(db, st, "ending a run", DB_HERE);
}

int db_load_insert(struct db *db, int64_t run_id, const struct load_info *l)
{
	return db_insert(db, REC_LOAD, run_id, l) < 0 ? -1 : 0;
}

int64_t db_phase_begin(struct db *db, int64_t run_id, long round, long seq, const char *name,
		       const char *cache, const char *loads, double started_at)
{
	struct phase_row p = {
		.round = round,
		.seq = seq,
		.name = (char *)name,
		.cache = (char *)cache,
		.loads = (char *)loads,
		.started_at = started_at,
	};

	return db_insert(db, REC_PHASE, run_id, &p);
}

int db_phase_probe_start(struct db *db, int64_t phase_id, double t)
{
	sqlite3_stmt *st = stmt_get(db, STMT_PHASE_PROBE_START);

	sqlite3_bind_int64(st, 1, phase_id);
	sqlite3_bind_double(st, 2, t);
	return step_done(db, st, "recording a probe window", DB_HERE);
}

int db_phase_end(struct db *db, int64_t phase_id, double ended_at, bool valid, const char *why)
{
	sqlite3_stmt *st = stmt_get(db, STMT_PHASE_END);

	sqlite3_bind_int64(st, 1, phase_id);
	sqlite3_bind_double(st, 2, ended_at);
	sqlite3_bind_int(st, 3, valid);
	if (!valid && why != NULL)
		sqlite3_bind_text(st, 4, why, -1, SQLITE_TRANSIENT);
	return step_done(db, st, "ending a phase", DB_HERE);
}

static double col_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int db_phase_achieved(struct db *db, int64_t phase_id, const char *load, struct achieved *out)
{
	sqlite3_stmt *st = stmt_get(db, STMT_PHASE_SYSTEM_MEANS);
	double span;

	for (int i = 0; i < EXP_METRIC_COUNT; i++)
		out->value[i] = NAN;
	sqlite3_bind_int64(st, 1, phase_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		out->value[EXP_BUSY] = col_or_nan(st, 0);
		out->value[EXP_PSI_CPU] = col_or_nan(st, 1);
		out->value[EXP_PSI_MEMORY] = col_or_nan(st, 2);
		out->value[EXP_PSI_IO] = col_or_nan(st, 3);
		out->value[EXP_AVAILABLE] = col_or_nan(st, 4);
	}
	sqlite3_reset(st);
	st = stmt_get(db, STMT_PHASE_LOAD_DELTAS);
	sqlite3_bind_int64(st, 1, phase_id);
	sqlite3_bind_text(st, 2, load, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 3) != SQLITE_NULL) {
		span = sqlite3_column_double(st, 3);
		out->value[EXP_CYCLES] = sqlite3_column_double(st, 0);
		if (span > 0) {
			out->value[EXP_MIB_S] = sqlite3_column_double(st, 1) / 1048576.0 / span;
			out->value[EXP_OPS_S] = sqlite3_column_double(st, 2) / span;
		}
	}
	sqlite3_reset(st);
	return 0;
}

/* Prepared when needed: only the writer, on a migrated file, marks phases. */
int db_phase_set_weak(struct db *db, int64_t phase_id, const char *why)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->sql, "UPDATE phases SET weak = ?2 WHERE id = ?1", -1, &st,
			       NULL) != SQLITE_OK) {
		db_log_error(db, "marking a phase weak", DB_HERE);
		return -1;
	}
	sqlite3_bind_int64(st, 1, phase_id);
	sqlite3_bind_text(st, 2, why, -1, SQLITE_TRANSIENT);
	rc = step_done(db, st, "marking a phase weak", DB_HERE);
	sqlite3_finalize(st);
	return rc;
}

int db_sample_insert(struct db *db, int64_t run_id, const struct sample *s)
{
	return db_insert(db, REC_SAMPLE, run_id, s) < 0 ? -1 : 0;
}

int db_sys_sample_insert(struct db *db, int64_t run_id, const struct sys_sample *s)
{
	return db_insert(db, REC_SYS_SAMPLE, run_id, s) < 0 ? -1 : 0;
}

int db_loader_sample_insert(struct db *db, int64_t run_id, const struct loader_sample *s)
{
	return db_insert(db, REC_LOADER_SAMPLE, run_id, s) < 0 ? -1 : 0;
}

int db_event_insert(struct db *db, int64_t run_id, const struct event *e)
{
	return db_insert(db, REC_EVENT, run_id, e) < 0 ? -1 : 0;
}

/* ---- reading ---- */

/* Steps a query; returns 1 with a row, 0 at the end (statement reset),
 * -1 on error (logged, statement reset). */
static int step_row(struct db *db, sqlite3_stmt *st, const char *what, const char *file, int line)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE)
		db_log_error(db, what, file, line);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Reads every row of a bound query into an xmalloc'd array of records. */
static int read_rows(struct db *db, sqlite3_stmt *st, enum record_id rec, void **out, size_t *n)
{
	const struct record_type *rt = &record_types[rec];
	char *rows = NULL, what[64];
	size_t count = 0, cap = 0;
	int rc;

	snprintf(what, sizeof what, "listing %s rows", rt->name);
	while ((rc = step_row(db, st, what, DB_HERE)) > 0) {
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			rows = xreallocarray(rows, cap, rt->size);
		}
		read_record(st, 0, rt, rows + count++ * rt->size);
	}
	if (rc < 0) {
		db_rows_free(rec, rows, count);
		rows = NULL;
		count = 0;
	}
	*out = rows;
	*n = count;
	return rc < 0 ? -1 : 0;
}

int db_list(struct db *db, enum record_id rec, int64_t key, int limit, void **out, size_t *n)
{
	sqlite3_stmt *st = db->list[rec];

	if (st == NULL) { /* a file older than the record */
		*out = NULL;
		*n = 0;
		return 0;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	sqlite3_bind_int64(st, 1, key);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : -1); /* -1: no limit */
	return read_rows(db, st, rec, out, n);
}

void db_rows_free(enum record_id rec, void *rows, size_t n)
{
	const struct record_type *rt = &record_types[rec];

	for (size_t i = 0; i < n; i++)
		record_free_texts(rt, (char *)rows + i * rt->size);
	free(rows);
}

int64_t db_latest_run(struct db *db)
{
	sqlite3_stmt *st = stmt_get(db, STMT_LATEST_RUN);
	int64_t id;
	int rc = step_row(db, st, "finding the latest run", DB_HERE);

	if (rc <= 0)
		return rc;
	id = sqlite3_column_int64(st, 0); /* NULL (no runs) reads as 0 */
	sqlite3_reset(st);
	return id;
}

int db_run_get(struct db *db, int64_t run_id, struct run_row *out)
{
	sqlite3_stmt *st = stmt_get(db, STMT_RUN_GET);
	int rc;

	sqlite3_bind_int64(st, 1, run_id);
	rc = step_row(db, st, "reading a run", DB_HERE);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return 1;
	read_record(st, 0, &record_types[REC_RUN], out);
	sqlite3_reset(st);
	return 0;
}

void db_run_row_free(struct run_row *r)
{
	if (r == NULL)
		return;
	record_free_texts(&record_types[REC_RUN], r);
	memset(r, 0, sizeof *r);
}

int db_runs_list(struct db *db, struct run_row **out, size_t *n)
{
	return db_list(db, REC_RUN, 0, 0, (void **)out, n);
}

int db_loads_list(struct db *db, int64_t run_id, struct load_info **out, size_t *n)
{
	return db_list(db, REC_LOAD, run_id, 0, (void **)out, n);
}

void db_loads_free(struct load_info *rows, size_t n)
{
	db_rows_free(REC_LOAD, rows, n);
}

void db_phase_rows_free(struct phase_row *rows, size_t n)
{
	db_rows_free(REC_PHASE, rows, n);
}

int db_phases_list(struct db *db, int64_t run_id, struct phase_row **out, size_t *n)
{
	return db_list(db, REC_PHASE, run_id, 0, (void **)out, n);
}

int db_samples_list(struct db *db, int64_t phase_id, struct sample **out, size_t *n)
{
	sqlite3_stmt *st = db->stmt[STMT_JOB_SAMPLES];

	if (st == NULL) /* a version-1 file: every sample is the job's */
		return db_list(db, REC_SAMPLE, phase_id, 0, (void **)out, n);
	st = stmt_get(db, STMT_JOB_SAMPLES);
	sqlite3_bind_int64(st, 1, phase_id);
	return read_rows(db, st, REC_SAMPLE, (void **)out, n);
}

int64_t db_probe_insert(struct db *db, int64_t run_id, const struct probe_info *p)
{
	return db_insert(db, REC_PROBE, run_id, p);
}

int db_hist_insert(struct db *db, int64_t run_id, const struct hist_record *h)
{
	struct hist_row row = {
		.phase_id = h->phase_id,
		.probe_id = h->probe_id,
		.variant = h->variant,
		.t = h->t,
		.count = h->hist->count,
		.max_ns = h->hist->max_ns,
		.sum_ns = h->hist->sum_ns,
		.steal_pct = h->steal_pct,
	};
	int64_t id;

	row.buckets.data = hist_encode(h->hist, &row.buckets.len);
	id = db_insert(db, REC_HIST, run_id, &row);
	free(row.buckets.data);
	return id < 0 ? -1 : 0;
}

int db_probes_list(struct db *db, int64_t run_id, struct probe_info **out, size_t *n)
{
	if (db_list(db, REC_PROBE, run_id, 0, (void **)out, n) < 0)
		return -1;
	if (*n == 0) {
		/* a run recorded before probes had rows: its samples are the job's */
		free(*out);
		*out = xcalloc(1, sizeof **out);
		**out = (struct probe_info){ .name = xstrdup("job"),
					     .type = xstrdup("job"),
					     .units = xstrdup("ms"),
					     .options = xstrdup("") };
		*n = 1;
	}
	return 0;
}

void db_probes_free(struct probe_info *rows, size_t n)
{
	db_rows_free(REC_PROBE, rows, n);
}

int db_probe_samples_list(struct db *db, int64_t phase_id, int64_t probe_id, struct sample **out,
			  size_t *n)
{
	size_t kept = 0;

	if (db_list(db, REC_SAMPLE, phase_id, 0, (void **)out, n) < 0)
		return -1;
	for (size_t i = 0; i < *n; i++)
		if ((*out)[i].probe_id == probe_id)
			(*out)[kept++] = (*out)[i];
	*n = kept;
	return 0;
}

/* One phase's histogram seconds of one probe (0: every probe). */
static int hists_of_phase(struct db *db, int64_t phase_id, int64_t probe_id, struct hist *h,
			  db_hist_cb cb, void *arg)
{
	struct hist_row *rows;
	size_t n;
	int ret = 0;

	if (db_list(db, REC_HIST, phase_id, 0, (void **)&rows, &n) < 0)
		return -1;
	for (size_t i = 0; i < n && ret == 0; i++) {
		struct hist_row *r = &rows[i];
		struct hist_record rec = {
			.phase_id = r->phase_id,
			.probe_id = r->probe_id,
			.variant = r->variant,
			.t = r->t,
			.steal_pct = r->steal_pct,
			.hist = h,
		};

		if (probe_id != 0 && r->probe_id != probe_id)
			continue;
		h->max_ns = r->max_ns;
		h->sum_ns = r->sum_ns;
		if (hist_decode(r->buckets.data, r->buckets.len, h) < 0 || h->count != r->count) {
			log_warn("%s: a histogram of phase %lld (row at t=%.3f) does not decode; "
				 "skipped",
				 db->path, (long long)r->phase_id, r->t);
			continue;
		}
		ret = cb(arg, &rec);
	}
	db_rows_free(REC_HIST, rows, n);
	return ret;
}

int db_hists_foreach(struct db *db, int64_t run_id, int64_t phase_id, int64_t probe_id,
		     db_hist_cb cb, void *arg)
{
	struct hist *h = xcalloc(1, sizeof *h);
	struct phase_row *phases = NULL;
	size_t nphases = 0;
	int ret = 0;

	if (phase_id != 0) {
		ret = hists_of_phase(db, phase_id, probe_id, h, cb, arg);
	} else if (db_phases_list(db, run_id, &phases, &nphases) < 0) {
		ret = -1;
	} else {
		for (size_t i = 0; i < nphases && ret == 0; i++)
			ret = hists_of_phase(db, phases[i].id, probe_id, h, cb, arg);
		db_phase_rows_free(phases, nphases);
	}
	free(h);
	return ret;
}

int db_loader_samples_list(struct db *db, int64_t phase_id, struct loader_sample **out, size_t *n)
{
	return db_list(db, REC_LOADER_SAMPLE, phase_id, 0, (void **)out, n);
}

void db_loader_samples_free(struct loader_sample *rows, size_t n)
{
	db_rows_free(REC_LOADER_SAMPLE, rows, n);
}

int db_sys_samples_list(struct db *db, int64_t phase_id, struct sys_sample **out, size_t *n)
{
	return db_list(db, REC_SYS_SAMPLE, phase_id, 0, (void **)out, n);
}

int db_events_list(struct db *db, int64_t run_id, int limit, struct event **out, size_t *n)
{
	return db_list(db, REC_EVENT, run_id, limit, (void **)out, n);
}

void db_events_free(struct event *rows, size_t n)
{
	db_rows_free(REC_EVENT, rows, n);
}

int db_samples_foreach(struct db *db, int64_t run_id, db_sample_cb cb, void *arg)
{
	const struct record_type *phase_rt = &record_types[REC_PHASE];
	sqlite3_stmt *st = stmt_get(db, run_id != 0 ? STMT_FOREACH_RUN : STMT_FOREACH_ALL);
	struct phase_row phase = { 0 };
	int64_t phase_run = 0;
	struct sample s;
	int rc, ret = 0;

	if (run_id != 0)
		sqlite3_bind_int64(st, 1, run_id);
	while ((rc = step_row(db, st, "reading samples", DB_HERE)) > 0) {
		/* Column 0 is the run, then the phase, then the sample; the
		 * phase is decoded again only when it changes (its id is its
		 * first column). */
		if (sqlite3_column_int64(st, 1) != phase.id) {
			record_free_texts(phase_rt, &phase);
			phase_run = sqlite3_column_int64(st, 0);
			read_record(st, 1, phase_rt, &phase);
		}
		read_record(st, 1 + (int)phase_rt->ncolumns, &record_types[REC_SAMPLE], &s);
		ret = cb(arg, phase_run, &phase, &s);
		if (ret != 0) {
			sqlite3_reset(st);
			break;
		}
	}
	record_free_texts(phase_rt, &phase);
	if (rc < 0)
		return -1;
	return ret;
}

/* ---- live views (loadtop) ---- */

int db_loader_samples_latest(struct db *db, int64_t phase_id, int per_load,
			     struct loader_sample **out, size_t *n)
{
	sqlite3_stmt *st = stmt_get(db, STMT_LOADER_LATEST);

	sqlite3_bind_int64(st, 1, phase_id);
	sqlite3_bind_int(st, 2, per_load);
	return read_rows(db, st, REC_LOADER_SAMPLE, (void **)out, n);
}

int db_sys_sample_latest(struct db *db, int64_t run_id, struct sys_sample *out)
{
	sqlite3_stmt *st = stmt_get(db, STMT_SYS_LATEST);
	int rc;

	sqlite3_bind_int64(st, 1, run_id);
	rc = step_row(db, st, "reading the latest system figures", DB_HERE);
	if (rc <= 0)
		return rc < 0 ? -1 : 1;
	read_record(st, 0, &record_types[REC_SYS_SAMPLE], out);
	sqlite3_reset(st);
	return 0;
}

int64_t db_data_version(struct db *db)
{
	sqlite3_stmt *st = stmt_get(db, STMT_DATA_VERSION);
	int64_t v;

	if (step_row(db, st, "reading the data version", DB_HERE) <= 0)
		return -1;
	v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return v;
}
