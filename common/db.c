#include "db.h"

#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "log.h"
#include "paths.h"
#include "trust.h"
#include "xalloc.h"

#ifdef __FILE_NAME__
#define DB_HERE __FILE_NAME__, __LINE__
#else
#define DB_HERE __FILE__, __LINE__
#endif

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
};

_Static_assert(sizeof migrations / sizeof migrations[0] == DB_SCHEMA_VERSION,
	       "one migration per schema version");

#define RUN_COLUMNS                                                                    \
	"r.id, r.status, r.profile_name, r.profile_path, r.profile_text, r.host, "     \
	"r.kernel, r.cpu_model, r.cores, r.ram_bytes, r.swap_bytes, "                  \
	"r.tree_fingerprint, r.version, r.rounds, r.planned_ms, r.started_at, "        \
	"r.ended_at, (SELECT count(*) FROM samples s WHERE s.run_id = r.id)"
#define PHASE_COLUMNS                                                                  \
	"p.id, p.round, p.seq, p.name, p.cache, p.loads, p.started_at, p.probe_start, " \
	"p.ended_at, p.valid, p.invalid_reason"
#define SAMPLE_COLUMNS                                                                 \
	"s.phase_id, s.seq, s.started_at, s.wall_ms, s.user_ms, s.sys_ms, s.cpu_pct, "  \
	"s.nvcsw, s.nivcsw, s.exit_code, s.failed, s.missed"

/* Every statement, prepared once at open and reused. */
enum stmt_id {
	STMT_BEGIN,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_MARK_CRASHED,
	STMT_RUN_INSERT,
	STMT_RUN_END,
	STMT_LOAD_INSERT,
	STMT_PHASE_INSERT,
	STMT_PHASE_PROBE_START,
	STMT_PHASE_END,
	STMT_SAMPLE_INSERT,
	STMT_SYS_INSERT,
	STMT_LOADER_INSERT,
	STMT_EVENT_INSERT,
	STMT_LATEST_RUN,
	STMT_RUN_GET,
	STMT_RUNS_LIST,
	STMT_LOADS_LIST,
	STMT_PHASES_LIST,
	STMT_SAMPLES_LIST,
	STMT_LOADER_LIST,
	STMT_SYS_LIST,
	STMT_EVENTS_LIST,
	STMT_FOREACH_RUN,
	STMT_FOREACH_ALL,
	STMT_LOADER_LATEST,
	STMT_SYS_LATEST,
	STMT_DATA_VERSION,
	STMT_COUNT
};

static const char *const stmt_sql[STMT_COUNT] = {
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
	[STMT_RUN_INSERT] =
		"INSERT INTO runs (status, profile_name, profile_path, profile_text, host,"
		" kernel, cpu_model, cores, ram_bytes, swap_bytes, tree_fingerprint, version,"
		" rounds, planned_ms, pid, started_at)"
		" VALUES ('running', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
		" ?15)",
	[STMT_RUN_END] = "UPDATE runs SET status = ?2, ended_at = ?3 WHERE id = ?1",
	[STMT_LOAD_INSERT] =
		"INSERT INTO loads (run_id, name, type, cycle_unit, ops_unit, reports_bytes)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[STMT_PHASE_INSERT] =
		"INSERT INTO phases (run_id, round, seq, name, cache, loads, started_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[STMT_PHASE_PROBE_START] = "UPDATE phases SET probe_start = ?2 WHERE id = ?1",
	[STMT_PHASE_END] =
		"UPDATE phases SET ended_at = ?2, valid = ?3, invalid_reason = ?4 WHERE id = ?1",
	[STMT_SAMPLE_INSERT] =
		"INSERT INTO samples (run_id, phase_id, seq, started_at, wall_ms, user_ms, sys_ms,"
		" cpu_pct, nvcsw, nivcsw, exit_code, failed, missed)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[STMT_SYS_INSERT] =
		"INSERT INTO system_stats (run_id, phase_id, t, cpu_busy_pct, ctxt_per_s, load1,"
		" mem_available, swap_used, psi_cpu_some, psi_cpu_full, psi_mem_some,"
		" psi_mem_full, psi_io_some, psi_io_full)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
	[STMT_LOADER_INSERT] =
		"INSERT INTO loader_stats (run_id, phase_id, load, t, cycles, bytes, ops, errors,"
		" cpu_ms, procs, restarts, running, stalled)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[STMT_EVENT_INSERT] =
		"INSERT INTO events (run_id, phase_id, t, load, kind, message)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[STMT_LATEST_RUN] = "SELECT max(id) FROM runs",
	[STMT_RUN_GET] = "SELECT " RUN_COLUMNS " FROM runs r WHERE r.id = ?1",
	[STMT_RUNS_LIST] = "SELECT " RUN_COLUMNS " FROM runs r ORDER BY r.id DESC",
	[STMT_LOADS_LIST] = "SELECT name, type, cycle_unit, ops_unit, reports_bytes FROM loads"
			    " WHERE run_id = ?1 ORDER BY id",
	[STMT_PHASES_LIST] = "SELECT " PHASE_COLUMNS " FROM phases p WHERE p.run_id = ?1"
			     " ORDER BY p.started_at, p.id",
	[STMT_SAMPLES_LIST] = "SELECT " SAMPLE_COLUMNS " FROM samples s WHERE s.phase_id = ?1"
			      " ORDER BY s.seq, s.id",
	[STMT_LOADER_LIST] =
		"SELECT phase_id, load, t, cycles, bytes, ops, errors, cpu_ms, procs, restarts,"
		" running, stalled FROM loader_stats WHERE phase_id = ?1 ORDER BY t, id",
	[STMT_SYS_LIST] =
		"SELECT phase_id, t, cpu_busy_pct, ctxt_per_s, load1, mem_available, swap_used,"
		" psi_cpu_some, psi_cpu_full, psi_mem_some, psi_mem_full, psi_io_some,"
		" psi_io_full FROM system_stats WHERE phase_id = ?1 ORDER BY t, id",
	[STMT_EVENTS_LIST] = "SELECT phase_id, t, load, kind, message FROM events"
			     " WHERE run_id = ?1 ORDER BY t DESC, id DESC LIMIT ?2",
	/* One pass for an export of any size: phases in order, each phase's
	 * samples through the (phase_id, seq) index, no sorting. */
	[STMT_FOREACH_RUN] = "SELECT p.run_id, " PHASE_COLUMNS ", " SAMPLE_COLUMNS
			     " FROM phases p JOIN samples s ON s.phase_id = p.id"
			     " WHERE p.run_id = ?1 ORDER BY p.id, s.seq",
	[STMT_FOREACH_ALL] = "SELECT p.run_id, " PHASE_COLUMNS ", " SAMPLE_COLUMNS
			     " FROM phases p JOIN samples s ON s.phase_id = p.id"
			     " ORDER BY p.run_id, p.id, s.seq",
	/* Live views: the newest rows only, through the (phase_id, t) and
	 * (run_id, t) indexes. */
	[STMT_LOADER_LATEST] =
		"SELECT phase_id, load, t, cycles, bytes, ops, errors, cpu_ms, procs, restarts,"
		" running, stalled FROM (SELECT *, row_number() OVER"
		" (PARTITION BY load ORDER BY t DESC, id DESC) AS newest"
		" FROM loader_stats WHERE phase_id = ?1)"
		" WHERE newest <= ?2 ORDER BY load, t DESC, id DESC",
	[STMT_SYS_LATEST] =
		"SELECT phase_id, t, cpu_busy_pct, ctxt_per_s, load1, mem_available, swap_used,"
		" psi_cpu_some, psi_cpu_full, psi_mem_some, psi_mem_full, psi_io_some,"
		" psi_io_full FROM system_stats WHERE run_id = ?1 ORDER BY t DESC, id DESC LIMIT 1",
	[STMT_DATA_VERSION] = "PRAGMA data_version",
};

struct db {
	sqlite3 *sql;
	char *path;
	enum db_mode mode;
	sqlite3_stmt *stmt[STMT_COUNT];
};

static void db_log_error(struct db *db, const char *what, const char *file, int line)
{
	log_error("%s:%d: %s in %s: %s", file, line, what, db->path, sqlite3_errmsg(db->sql));
}

/* Runs a statement that returns no rows (or whose rows are not wanted) and
 * resets it for the next use. */
static int step_done(struct db *db, sqlite3_stmt *st, const char *what, const char *file,
		     int line)
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

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/* phase_id 0 means "between phases": NULL, which the foreign key allows. */
static void bind_phase(sqlite3_stmt *st, int i, int64_t phase_id)
{
	if (phase_id == 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, phase_id);
}

/* NaN is stored as NULL by SQLite itself; this keeps that explicit. */
static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return xstrdup(s ? (const char *)s : "");
}

static char *col_str_or_null(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

static double col_real(sqlite3_stmt *st, int i, double if_null)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return if_null;
	return sqlite3_column_double(st, i);
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
	if (version < DB_SCHEMA_VERSION && version > 0)
		log_info("database %s upgraded from schema version %d to %d", db->path, version,
			 DB_SCHEMA_VERSION);
	return 0;
fail:
	sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

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
	if (version < DB_SCHEMA_VERSION) {
		*err = xasprintf("database %s has schema version %d, older than this program's %d; "
				 "run this version's loadd once to upgrade it",
				 db->path, version, DB_SCHEMA_VERSION);
		return -1;
	}
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

static int prepare_all(struct db *db, char **err)
{
	int i;

	for (i = 0; i < STMT_COUNT; i++) {
		if (sqlite3_prepare_v3(db->sql, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				       &db->stmt[i], NULL) != SQLITE_OK) {
			*err = xasprintf("database %s: cannot prepare statement %d: %s",
					 db->path, i, sqlite3_errmsg(db->sql));
			return -1;
		}
	}
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

/* ---- writing ---- */

int db_mark_crashed(struct db *db)
{
	if (step_done(db, stmt_get(db, STMT_MARK_CRASHED), "marking crashed runs", DB_HERE) < 0)
		return -1;
	return sqlite3_changes(db->sql);
}

int64_t db_run_begin(struct db *db, const struct run_info *ri, double started_at)
{
	sqlite3_stmt *st = stmt_get(db, STMT_RUN_INSERT);

	bind_text(st, 1, ri->profile_name ? ri->profile_name : "");
	bind_text(st, 2, ri->profile_path);
	bind_text(st, 3, ri->profile_text);
	bind_text(st, 4, ri->host);
	bind_text(st, 5, ri->kernel);
	bind_text(st, 6, ri->cpu_model);
	sqlite3_bind_int(st, 7, ri->cores);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)ri->ram_bytes);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)ri->swap_bytes);
	bind_text(st, 10, ri->tree_fingerprint);
	bind_text(st, 11, ri->version);
	sqlite3_bind_int64(st, 12, ri->rounds);
	sqlite3_bind_int64(st, 13, ri->planned_ms);
	sqlite3_bind_int(st, 14, ri->pid);
	sqlite3_bind_double(st, 15, started_at);
	if (step_done(db, st, "recording a run", DB_HERE) < 0)
		return -1;
	return sqlite3_last_insert_rowid(db->sql);
}

int db_run_end(struct db *db, int64_t run_id, const char *status, double ended_at)
{
	sqlite3_stmt *st = stmt_get(db, STMT_RUN_END);

	sqlite3_bind_int64(st, 1, run_id);
	bind_text(st, 2, status);
	sqlite3_bind_double(st, 3, ended_at);
	return step_done(db, st, "ending a run", DB_HERE);
}

int db_load_insert(struct db *db, int64_t run_id, const struct load_info *l)
{
	sqlite3_stmt *st = stmt_get(db, STMT_LOAD_INSERT);

	sqlite3_bind_int64(st, 1, run_id);
	bind_text(st, 2, l->name);
	bind_text(st, 3, l->type);
	bind_text(st, 4, l->cycle_unit);
	bind_text(st, 5, l->ops_unit);
	sqlite3_bind_int(st, 6, l->reports_bytes);
	return step_done(db, st, "recording a load", DB_HERE);
}

int64_t db_phase_begin(struct db *db, int64_t run_id, long round, long seq, const char *name,
		       const char *cache, const char *loads, double started_at)
{
	sqlite3_stmt *st = stmt_get(db, STMT_PHASE_INSERT);

	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, round);
	sqlite3_bind_int64(st, 3, seq);
	bind_text(st, 4, name);
	bind_text(st, 5, cache);
	bind_text(st, 6, loads ? loads : "");
	sqlite3_bind_double(st, 7, started_at);
	if (step_done(db, st, "recording a phase", DB_HERE) < 0)
		return -1;
	return sqlite3_last_insert_rowid(db->sql);
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
	bind_text(st, 4, valid ? NULL : why);
	return step_done(db, st, "ending a phase", DB_HERE);
}

int db_sample_insert(struct db *db, int64_t run_id, const struct sample *s)
{
	sqlite3_stmt *st = stmt_get(db, STMT_SAMPLE_INSERT);

	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, s->phase_id);
	sqlite3_bind_int64(st, 3, s->seq);
	sqlite3_bind_double(st, 4, s->started_at);
	bind_real(st, 5, s->wall_ms);
	bind_real(st, 6, s->user_ms);
	bind_real(st, 7, s->sys_ms);
	bind_real(st, 8, s->cpu_pct);
	sqlite3_bind_int64(st, 9, s->nvcsw);
	sqlite3_bind_int64(st, 10, s->nivcsw);
	sqlite3_bind_int(st, 11, s->exit_code);
	sqlite3_bind_int(st, 12, s->failed);
	sqlite3_bind_int64(st, 13, s->missed);
	return step_done(db, st, "recording a sample", DB_HERE);
}

int db_sys_sample_insert(struct db *db, int64_t run_id, const struct sys_sample *s)
{
	sqlite3_stmt *st = stmt_get(db, STMT_SYS_INSERT);

	sqlite3_bind_int64(st, 1, run_id);
	bind_phase(st, 2, s->phase_id);
	sqlite3_bind_double(st, 3, s->t);
	bind_real(st, 4, s->cpu_busy_pct);
	bind_real(st, 5, s->ctxt_per_s);
	bind_real(st, 6, s->load1);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)s->mem_available);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)s->swap_used);
	bind_real(st, 9, s->psi_cpu_some);
	bind_real(st, 10, s->psi_cpu_full);
	bind_real(st, 11, s->psi_mem_some);
	bind_real(st, 12, s->psi_mem_full);
	bind_real(st, 13, s->psi_io_some);
	bind_real(st, 14, s->psi_io_full);
	return step_done(db, st, "recording system figures", DB_HERE);
}

int db_loader_sample_insert(struct db *db, int64_t run_id, const struct loader_sample *s)
{
	sqlite3_stmt *st = stmt_get(db, STMT_LOADER_INSERT);

	sqlite3_bind_int64(st, 1, run_id);
	bind_phase(st, 2, s->phase_id);
	bind_text(st, 3, s->load ? s->load : "");
	sqlite3_bind_double(st, 4, s->t);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)s->cycles);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)s->bytes);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)s->ops);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)s->errors);
	bind_real(st, 9, s->cpu_ms);
	sqlite3_bind_int(st, 10, s->procs);
	sqlite3_bind_int(st, 11, s->restarts);
	sqlite3_bind_int(st, 12, s->running);
	sqlite3_bind_int(st, 13, s->stalled);
	return step_done(db, st, "recording loader counters", DB_HERE);
}

int db_event_insert(struct db *db, int64_t run_id, const struct event *e)
{
	sqlite3_stmt *st = stmt_get(db, STMT_EVENT_INSERT);

	sqlite3_bind_int64(st, 1, run_id);
	bind_phase(st, 2, e->phase_id);
	sqlite3_bind_double(st, 3, e->t);
	bind_text(st, 4, e->load);
	bind_text(st, 5, e->kind ? e->kind : "");
	bind_text(st, 6, e->message);
	return step_done(db, st, "recording an event", DB_HERE);
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

/* Grows a result array by one element, doubling its capacity. */
static void *grow(void *rows, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return rows;
	*cap = *cap ? *cap * 2 : 16;
	return xreallocarray(rows, *cap, size);
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

static void read_run_row(sqlite3_stmt *st, struct run_row *r)
{
	r->id = sqlite3_column_int64(st, 0);
	r->status = col_str(st, 1);
	r->profile_name = col_str(st, 2);
	r->profile_path = col_str(st, 3);
	r->profile_text = col_str(st, 4);
	r->host = col_str(st, 5);
	r->kernel = col_str(st, 6);
	r->cpu_model = col_str(st, 7);
	r->cores = sqlite3_column_int(st, 8);
	r->ram_bytes = (uint64_t)sqlite3_column_int64(st, 9);
	r->swap_bytes = (uint64_t)sqlite3_column_int64(st, 10);
	r->tree_fingerprint = col_str(st, 11);
	r->version = col_str(st, 12);
	r->rounds = (long)sqlite3_column_int64(st, 13);
	r->planned_ms = sqlite3_column_int64(st, 14);
	r->started_at = col_real(st, 15, 0);
	r->ended_at = col_real(st, 16, 0);
	r->samples = sqlite3_column_int64(st, 17);
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
	read_run_row(st, out);
	sqlite3_reset(st);
	return 0;
}

void db_run_row_free(struct run_row *r)
{
	if (r == NULL)
		return;
	free(r->status);
	free(r->profile_name);
	free(r->profile_path);
	free(r->profile_text);
	free(r->host);
	free(r->kernel);
	free(r->cpu_model);
	free(r->tree_fingerprint);
	free(r->version);
	memset(r, 0, sizeof *r);
}

int db_runs_list(struct db *db, struct run_row **out, size_t *n)
{
	sqlite3_stmt *st = stmt_get(db, STMT_RUNS_LIST);
	struct run_row *rows = NULL;
	size_t count = 0, cap = 0, i;
	int rc;

	while ((rc = step_row(db, st, "listing runs", DB_HERE)) > 0) {
		rows = grow(rows, count, &cap, sizeof *rows);
		read_run_row(st, &rows[count++]);
	}
	if (rc < 0) {
		for (i = 0; i < count; i++)
			db_run_row_free(&rows[i]);
		free(rows);
		*out = NULL;
		*n = 0;
		return -1;
	}
	*out = rows;
	*n = count;
	return 0;
}

int db_loads_list(struct db *db, int64_t run_id, struct load_info **out, size_t *n)
{
	sqlite3_stmt *st = stmt_get(db, STMT_LOADS_LIST);
	struct load_info *rows = NULL;
	size_t count = 0, cap = 0;
	int rc;

	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = step_row(db, st, "listing loads", DB_HERE)) > 0) {
		struct load_info *l;

		rows = grow(rows, count, &cap, sizeof *rows);
		l = &rows[count++];
		l->name = col_str(st, 0);
		l->type = col_str(st, 1);
		l->cycle_unit = col_str(st, 2);
		l->ops_unit = col_str_or_null(st, 3);
		l->reports_bytes = sqlite3_column_int(st, 4) != 0;
	}
	if (rc < 0) {
		db_loads_free(rows, count);
		rows = NULL;
		count = 0;
	}
	*out = rows;
	*n = count;
	return rc < 0 ? -1 : 0;
}

void db_loads_free(struct load_info *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free((char *)rows[i].name);
		free((char *)rows[i].type);
		free((char *)rows[i].cycle_unit);
		free((char *)rows[i].ops_unit);
	}
	free(rows);
}

/* Phase columns start at column `c` (PHASE_COLUMNS order). */
static void read_phase_row(sqlite3_stmt *st, int c, struct phase_row *p)
{
	p->id = sqlite3_column_int64(st, c);
	p->round = (long)sqlite3_column_int64(st, c + 1);
	p->seq = (long)sqlite3_column_int64(st, c + 2);
	p->name = col_str(st, c + 3);
	p->cache = col_str(st, c + 4);
	p->loads = col_str(st, c + 5);
	p->started_at = col_real(st, c + 6, 0);
	p->probe_start = col_real(st, c + 7, 0);
	p->ended_at = col_real(st, c + 8, 0);
	p->valid = sqlite3_column_int(st, c + 9) != 0;
	p->invalid_reason = col_str(st, c + 10);
}

static void phase_row_clear(struct phase_row *p)
{
	free(p->name);
	free(p->cache);
	free(p->loads);
	free(p->invalid_reason);
	memset(p, 0, sizeof *p);
}

void db_phase_rows_free(struct phase_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		phase_row_clear(&rows[i]);
	free(rows);
}

int db_phases_list(struct db *db, int64_t run_id, struct phase_row **out, size_t *n)
{
	sqlite3_stmt *st = stmt_get(db, STMT_PHASES_LIST);
	struct phase_row *rows = NULL;
	size_t count = 0, cap = 0;
	int rc;

	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = step_row(db, st, "listing phases", DB_HERE)) > 0) {
		rows = grow(rows, count, &cap, sizeof *rows);
		read_phase_row(st, 0, &rows[count++]);
	}
	if (rc < 0) {
		db_phase_rows_free(rows, count);
		rows = NULL;
		count = 0;
	}
	*out = rows;
	*n = count;
	return rc < 0 ? -1 : 0;
}

/* Sample columns start at column `c` (SAMPLE_COLUMNS order). */
static void read_sample(sqlite3_stmt *st, int c, struct sample *s)
{
	s->phase_id = sqlite3_column_int64(st, c);
	s->seq = sqlite3_column_int64(st, c + 1);
	s->started_at = col_real(st, c + 2, 0);
	s->wall_ms = col_real(st, c + 3, NAN);
	s->user_ms = col_real(st, c + 4, NAN);
	s->sys_ms = col_real(st, c + 5, NAN);
	s->cpu_pct = col_real(st, c + 6, NAN);
	s->nvcsw = (long)sqlite3_column_int64(st, c + 7);
	s->nivcsw = (long)sqlite3_column_int64(st, c + 8);
	s->exit_code = sqlite3_column_int(st, c + 9);
	s->failed = sqlite3_column_int(st, c + 10) != 0;
	s->missed = sqlite3_column_int64(st, c + 11);
}

int db_samples_list(struct db *db, int64_t phase_id, struct sample **out, size_t *n)
{
	sqlite3_stmt *st = stmt_get(db, STMT_SAMPLES_LIST);
	struct sample *rows = NULL;
	size_t count = 0, cap = 0;
	int rc;

	sqlite3_bind_int64(st, 1, phase_id);
	while ((rc = step_row(db, st, "listing samples", DB_HERE)) > 0) {
		rows = grow(rows, count, &cap, sizeof *rows);
		read_sample(st, 0, &rows[count++]);
	}
	if (rc < 0) {
		free(rows);
		rows = NULL;
		count = 0;
	}
	*out = rows;
	*n = count;
	return rc < 0 ? -1 : 0;
}

int db_loader_samples_list(struct db *db, int64_t phase_id, struct loader_sample **out, size_t *n)
{
	sqlite3_stmt *st = stmt_get(db, STMT_LOADER_LIST);
	struct loader_sample *rows = NULL;
	size_t count = 0, cap = 0;
	int rc;

	sqlite3_bind_int64(st, 1, phase_id);
	while ((rc = step_row(db, st, "listing loader counters", DB_HERE)) > 0) {
		struct loader_sample *l;

		rows = grow(rows, count, &cap, sizeof *rows);
		l = &rows[count++];
		l->phase_id = sqlite3_column_int64(st, 0);
		l->load = col_str(st, 1);
		l->t = col_real(st, 2, 0);
		l->cycles = (uint64_t)sqlite3_column_int64(st, 3);
		l->bytes = (uint64_t)sqlite3_column_int64(st, 4);
		l->ops = (uint64_t)sqlite3_column_int64(st, 5);
		l->errors = (uint64_t)sqlite3_column_int64(st, 6);
		l->cpu_ms = col_real(st, 7, NAN);
		l->procs = sqlite3_column_int(st, 8);
		l->restarts = sqlite3_column_int(st, 9);
		l->running = sqlite3_column_int(st, 10) != 0;
		l->stalled = sqlite3_column_int(st, 11) != 0;
	}
	if (rc < 0) {
		db_loader_samples_free(rows, count);
		rows = NULL;
		count = 0;
	}
	*out = rows;
	*n = count;
	return rc < 0 ? -1 : 0;
}

void db_loader_samples_free(struct loader_sample *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free((char *)rows[i].load);
	free(rows);
}

int db_sys_samples_list(struct db *db, int64_t phase_id, struct sys_sample **out, size_t *n)
{
	sqlite3_stmt *st = stmt_get(db, STMT_SYS_LIST);
	struct sys_sample *rows = NULL;
	size_t count = 0, cap = 0;
	int rc;

	sqlite3_bind_int64(st, 1, phase_id);
	while ((rc = step_row(db, st, "listing system figures", DB_HERE)) > 0) {
		struct sys_sample *s;

		rows = grow(rows, count, &cap, sizeof *rows);
		s = &rows[count++];
		s->phase_id = sqlite3_column_int64(st, 0);
		s->t = col_real(st, 1, 0);
		s->cpu_busy_pct = col_real(st, 2, NAN);
		s->ctxt_per_s = col_real(st, 3, NAN);
		s->load1 = col_real(st, 4, NAN);
		s->mem_available = (uint64_t)sqlite3_column_int64(st, 5);
		s->swap_used = (uint64_t)sqlite3_column_int64(st, 6);
		s->psi_cpu_some = col_real(st, 7, NAN);
		s->psi_cpu_full = col_real(st, 8, NAN);
		s->psi_mem_some = col_real(st, 9, NAN);
		s->psi_mem_full = col_real(st, 10, NAN);
		s->psi_io_some = col_real(st, 11, NAN);
		s->psi_io_full = col_real(st, 12, NAN);
	}
	if (rc < 0) {
		free(rows);
		rows = NULL;
		count = 0;
	}
	*out = rows;
	*n = count;
	return rc < 0 ? -1 : 0;
}

int db_events_list(struct db *db, int64_t run_id, int limit, struct event **out, size_t *n)
{
	sqlite3_stmt *st = stmt_get(db, STMT_EVENTS_LIST);
	struct event *rows = NULL;
	size_t count = 0, cap = 0;
	int rc;

	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : -1); /* -1: no limit */
	while ((rc = step_row(db, st, "listing events", DB_HERE)) > 0) {
		struct event *e;

		rows = grow(rows, count, &cap, sizeof *rows);
		e = &rows[count++];
		e->phase_id = sqlite3_column_int64(st, 0);
		e->t = col_real(st, 1, 0);
		e->load = col_str_or_null(st, 2);
		e->kind = col_str(st, 3);
		e->message = col_str_or_null(st, 4);
	}
	if (rc < 0) {
		db_events_free(rows, count);
		rows = NULL;
		count = 0;
	}
	*out = rows;
	*n = count;
	return rc < 0 ? -1 : 0;
}

void db_events_free(struct event *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free((char *)rows[i].load);
		free((char *)rows[i].kind);
		free((char *)rows[i].message);
	}
	free(rows);
}

int db_samples_foreach(struct db *db, int64_t run_id, db_sample_cb cb, void *arg)
{
	sqlite3_stmt *st = stmt_get(db, run_id != 0 ? STMT_FOREACH_RUN : STMT_FOREACH_ALL);
	struct phase_row phase = { 0 };
	int64_t phase_run = 0;
	struct sample s;
	int rc, ret = 0;

	if (run_id != 0)
		sqlite3_bind_int64(st, 1, run_id);
	while ((rc = step_row(db, st, "reading samples", DB_HERE)) > 0) {
		/* Column 0 is the run, 1..11 the phase, 12.. the sample; the
		 * phase is decoded again only when it changes. */
		if (sqlite3_column_int64(st, 1) != phase.id) {
			phase_row_clear(&phase);
			phase_run = sqlite3_column_int64(st, 0);
			read_phase_row(st, 1, &phase);
		}
		read_sample(st, 12, &s);
		ret = cb(arg, phase_run, &phase, &s);
		if (ret != 0) {
			sqlite3_reset(st);
			break;
		}
	}
	phase_row_clear(&phase);
	if (rc < 0)
		return -1;
	return ret;
}

/* ---- live views (loadtop) ---- */

static void read_loader_sample(sqlite3_stmt *st, struct loader_sample *l)
{
	l->phase_id = sqlite3_column_int64(st, 0);
	l->load = col_str(st, 1);
	l->t = col_real(st, 2, 0);
	l->cycles = (uint64_t)sqlite3_column_int64(st, 3);
	l->bytes = (uint64_t)sqlite3_column_int64(st, 4);
	l->ops = (uint64_t)sqlite3_column_int64(st, 5);
	l->errors = (uint64_t)sqlite3_column_int64(st, 6);
	l->cpu_ms = col_real(st, 7, NAN);
	l->procs = sqlite3_column_int(st, 8);
	l->restarts = sqlite3_column_int(st, 9);
	l->running = sqlite3_column_int(st, 10) != 0;
	l->stalled = sqlite3_column_int(st, 11) != 0;
}

int db_loader_samples_latest(struct db *db, int64_t phase_id, int per_load,
			     struct loader_sample **out, size_t *n)
{
	sqlite3_stmt *st = stmt_get(db, STMT_LOADER_LATEST);
	struct loader_sample *rows = NULL;
	size_t count = 0, cap = 0;
	int rc;

	sqlite3_bind_int64(st, 1, phase_id);
	sqlite3_bind_int(st, 2, per_load);
	while ((rc = step_row(db, st, "reading the latest loader counters", DB_HERE)) > 0) {
		rows = grow(rows, count, &cap, sizeof *rows);
		read_loader_sample(st, &rows[count++]);
	}
	if (rc < 0) {
		db_loader_samples_free(rows, count);
		rows = NULL;
		count = 0;
	}
	*out = rows;
	*n = count;
	return rc < 0 ? -1 : 0;
}

int db_sys_sample_latest(struct db *db, int64_t run_id, struct sys_sample *out)
{
	sqlite3_stmt *st = stmt_get(db, STMT_SYS_LATEST);
	int rc;

	sqlite3_bind_int64(st, 1, run_id);
	rc = step_row(db, st, "reading the latest system figures", DB_HERE);
	if (rc <= 0)
		return rc < 0 ? -1 : 1;
	out->phase_id = sqlite3_column_int64(st, 0);
	out->t = col_real(st, 1, 0);
	out->cpu_busy_pct = col_real(st, 2, NAN);
	out->ctxt_per_s = col_real(st, 3, NAN);
	out->load1 = col_real(st, 4, NAN);
	out->mem_available = (uint64_t)sqlite3_column_int64(st, 5);
	out->swap_used = (uint64_t)sqlite3_column_int64(st, 6);
	out->psi_cpu_some = col_real(st, 7, NAN);
	out->psi_cpu_full = col_real(st, 8, NAN);
	out->psi_mem_some = col_real(st, 9, NAN);
	out->psi_mem_full = col_real(st, 10, NAN);
	out->psi_io_some = col_real(st, 11, NAN);
	out->psi_io_full = col_real(st, 12, NAN);
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
