// SPDX-License-Identifier: GPL-2.0-or-later
/* All SQL lives here. loadd writes; loadtop and loadctl read. Statements are
 * prepared once and reused; every SQLite error is logged with its place and
 * sqlite3_errmsg(). Schema changes are migrations keyed on PRAGMA user_version. */
#ifndef LOADD_DB_H
#define LOADD_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "expect.h"
#include "records.h"

#define DB_SCHEMA_VERSION 6

struct db;

enum db_mode { DB_READWRITE, DB_READONLY };

/* Opens (read-write: creating the file and its directory, and migrating) the
 * database. On failure returns NULL and an xmalloc'd message in *err. */
struct db *db_open(const char *path, enum db_mode mode, char **err);
void db_close(struct db *db);
/* Default path: /var/lib/loadd/loadd.db as root, $XDG_STATE_HOME/loadd/loadd.db
 * (or ~/.local/state/loadd/loadd.db) otherwise. xmalloc'd. */
char *db_default_path(void);
/* The schema version of the open file: DB_SCHEMA_VERSION once loadd has
 * opened it read-write; a reader may see an older one. */
int db_schema_version(const struct db *db);
int db_begin(struct db *db);
int db_commit(struct db *db);
/* Undoes the open transaction, if any. */
void db_rollback(struct db *db);

/* ---- writing (loadd) ---- */

/* Any record, through its column table (records.h): the owner id fills the
 * record's owner column (run_id) if it has one. Returns the new row's id,
 * -1 on error. */
int64_t db_insert(struct db *db, enum record_id rec, int64_t owner_id, const void *row);
/* A record's rows whose list key (records.h) is `key`, in its list order,
 * at most `limit` (0: all); none from a file older than the record. *out is
 * an xmalloc'd array of the record's struct; free with db_rows_free. */
int db_list(struct db *db, enum record_id rec, int64_t key, int limit, void **out, size_t *n);
void db_rows_free(enum record_id rec, void *rows, size_t n);

/* Marks every run still 'running' as 'crashed' (call while holding the
 * database lock, so no live loadd owns them). Returns how many. */
int db_mark_crashed(struct db *db);
int64_t db_run_begin(struct db *db, const struct run_info *ri, double started_at);
int db_run_end(struct db *db, int64_t run_id, const char *status, double ended_at);
/* Names run_id `name` (replacing what the name named before); list them
 * with db_list(REC_BASELINE). */
int db_baseline_set(struct db *db, const char *name, int64_t run_id, double set_at);
/* Whether a write has failed because the database's disk was full. */
bool db_disk_full(const struct db *db);
/* Once per [load NAME] of the run's profile, right after db_run_begin. */
int db_load_insert(struct db *db, int64_t run_id, const struct load_info *l);
int64_t db_phase_begin(struct db *db, int64_t run_id, long round, long seq, const char *name,
		       const char *cache, const char *loads, double started_at);
int db_phase_probe_start(struct db *db, int64_t phase_id, double t);
int db_phase_end(struct db *db, int64_t phase_id, double ended_at, bool valid, const char *why);
/* Once per probe of the run's profile, right after db_run_begin; its id. */
int64_t db_probe_insert(struct db *db, int64_t run_id, const struct probe_info *p);
/* What the phase's probe window saw (system means, the load's rates). */
int db_phase_achieved(struct db *db, int64_t phase_id, const char *load, struct achieved *out);
/* Marks a phase weak, with what its load reached. */
int db_phase_set_weak(struct db *db, int64_t phase_id, const char *why);
int db_sample_insert(struct db *db, int64_t run_id, const struct sample *s);
int db_hist_insert(struct db *db, int64_t run_id, const struct hist_record *h);
int db_sys_sample_insert(struct db *db, int64_t run_id, const struct sys_sample *s);
int db_loader_sample_insert(struct db *db, int64_t run_id, const struct loader_sample *s);
int db_event_insert(struct db *db, int64_t run_id, const struct event *e);

/* ---- reading (loadctl, loadtop, the report) ---- */

/* Latest run's id, 0 when there is none, -1 on error. */
int64_t db_latest_run(struct db *db);
/* 0 found, 1 not found, -1 error. */
int db_run_get(struct db *db, int64_t run_id, struct run_row *out);
void db_run_row_free(struct run_row *r);
/* Newest first. *out is xmalloc'd; free each with db_run_row_free. */
int db_runs_list(struct db *db, struct run_row **out, size_t *n);
/* A run's loads in the order they were recorded; strings are owned by the
 * returned array: free with db_loads_free. */
int db_loads_list(struct db *db, int64_t run_id, struct load_info **out, size_t *n);
void db_loads_free(struct load_info *rows, size_t n);
/* In order of start. */
int db_phases_list(struct db *db, int64_t run_id, struct phase_row **out, size_t *n);
void db_phase_rows_free(struct phase_row *rows, size_t n);
/* Every sample of a phase's job probe, in order. */
int db_samples_list(struct db *db, int64_t phase_id, struct sample **out, size_t *n);
/* A run's probes in the order they were recorded; a run recorded before
 * probes had rows gives its job probe (id 0). Free with db_probes_free. */
int db_probes_list(struct db *db, int64_t run_id, struct probe_info **out, size_t *n);
void db_probes_free(struct probe_info *rows, size_t n);
/* Every sample of one probe in a phase, in order (probe_id 0: the job of an
 * old run). */
int db_probe_samples_list(struct db *db, int64_t phase_id, int64_t probe_id, struct sample **out,
			  size_t *n);
/* Every histogram second of one probe (probe_id 0: of every probe) in a
 * phase (phase_id 0: in every phase of run_id), in time order; h->hist is
 * valid during the call only. A stored histogram that does not decode is
 * skipped with a warning. */
typedef int (*db_hist_cb)(void *arg, const struct hist_record *h);
int db_hists_foreach(struct db *db, int64_t run_id, int64_t phase_id, int64_t probe_id,
		     db_hist_cb cb, void *arg);
/* Loader counters of a phase (every row, in time order); load strings are
 * owned by the returned array: free with db_loader_samples_free. */
int db_loader_samples_list(struct db *db, int64_t phase_id, struct loader_sample **out, size_t *n);
void db_loader_samples_free(struct loader_sample *rows, size_t n);
int db_sys_samples_list(struct db *db, int64_t phase_id, struct sys_sample **out, size_t *n);
/* The newest `limit` events of a run, newest first; free with db_events_free. */
int db_events_list(struct db *db, int64_t run_id, int limit, struct event **out, size_t *n);
void db_events_free(struct event *rows, size_t n);

/* For live views. The newest per_load rows of each load of a phase, by load
 * name, newest first within a load; free with db_loader_samples_free. */
int db_loader_samples_latest(struct db *db, int64_t phase_id, int per_load,
			     struct loader_sample **out, size_t *n);
/* The newest system figures of a run: 0 found, 1 none yet, -1 error. */
int db_sys_sample_latest(struct db *db, int64_t run_id, struct sys_sample *out);
/* Changes whenever another connection commits (PRAGMA data_version), so a
 * reader can skip reading an unchanged database. -1 on error. */
int64_t db_data_version(struct db *db);

/* Every sample of a run (run_id 0: of every run) in order, with its phase. */
typedef int (*db_sample_cb)(void *arg, int64_t run_id, const struct phase_row *phase,
			    const struct sample *s);
int db_samples_foreach(struct db *db, int64_t run_id, db_sample_cb cb, void *arg);

#endif
