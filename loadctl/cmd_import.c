// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl import: copy runs of another database into this one, with new
 * ids, to gather a fleet's runs in one place. A run keeps its UUID, so a run
 * imported before is recognised and skipped. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loadctl.h"
#include "log.h"
#include "term_escape.h"
#include "xalloc.h"

/* Old ids of the run's phases (or probes) and the new ones they became. */
struct id_map {
	int64_t *old, *new;
	size_t n;
};

/* 0 for an id not copied: between phases, or a version-1 run's job probe. */
static int64_t map_id(const struct id_map *m, int64_t old)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->old[i] == old)
			return m->new[i];
	return 0;
}

static void map_add(struct id_map *m, int64_t old, int64_t new)
{
	m->old = xreallocarray(m->old, m->n + 1, sizeof *m->old);
	m->new = xreallocarray(m->new, m->n + 1, sizeof *m->new);
	m->old[m->n] = old;
	m->new[m->n++] = new;
}

/* The samples of every probe of a phase, and its probes' histograms. */
static int copy_probe_rows(struct db *src, struct db *dst, int64_t old, int64_t new, int64_t run,
			   const struct id_map *probes)
{
	void *rows;
	struct sample *s;
	struct hist_row *h;
	size_t n, i;
	int rc = 0;

	if (db_list(src, REC_SAMPLE, old, 0, &rows, &n) < 0)
		return -1;
	s = rows;
	for (i = 0; i < n && rc == 0; i++) {
		s[i].phase_id = new;
		s[i].probe_id = map_id(probes, s[i].probe_id);
		rc = db_insert(dst, REC_SAMPLE, run, &s[i]) < 0 ? -1 : 0;
	}
	db_rows_free(REC_SAMPLE, rows, n);
	if (rc < 0 || db_list(src, REC_HIST, old, 0, &rows, &n) < 0)
		return -1;
	h = rows;
	for (i = 0; i < n && rc == 0; i++) {
		h[i].phase_id = new;
		h[i].probe_id = map_id(probes, h[i].probe_id);
		rc = db_insert(dst, REC_HIST, run, &h[i]) < 0 ? -1 : 0;
	}
	db_rows_free(REC_HIST, rows, n);
	return rc;
}

/* One phase's samples, histograms, system figures and loader counters. */
static int copy_phase_rows(struct db *src, struct db *dst, int64_t old, int64_t new, int64_t run,
			   const struct id_map *probes)
{
	struct sys_sample *sys;
	struct loader_sample *ls;
	size_t n, i;
	int rc = 0;

	if (copy_probe_rows(src, dst, old, new, run, probes) < 0 ||
	    db_sys_samples_list(src, old, &sys, &n) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		sys[i].phase_id = new;
		rc = db_sys_sample_insert(dst, run, &sys[i]);
	}
	free(sys);
	if (rc < 0 || db_loader_samples_list(src, old, &ls, &n) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		ls[i].phase_id = new;
		rc = db_loader_sample_insert(dst, run, &ls[i]);
	}
	db_loader_samples_free(ls, n);
	return rc;
}

/* The run's probes first: samples and histograms name them. */
static int copy_probes(struct db *src, struct db *dst, int64_t old_run, int64_t run,
		       struct id_map *m)
{
	void *rows;
	struct probe_info *p;
	size_t n, i;
	int rc = 0;

	if (db_list(src, REC_PROBE, old_run, 0, &rows, &n) < 0)
		return -1;
	p = rows;
	for (i = 0; i < n && rc == 0; i++) {
		int64_t id = db_insert(dst, REC_PROBE, run, &p[i]);

		if (id < 0)
			rc = -1;
		else
			map_add(m, p[i].id, id);
	}
	db_rows_free(REC_PROBE, rows, n);
	return rc;
}

static int copy_phases(struct db *src, struct db *dst, int64_t old_run, int64_t run,
		       struct id_map *m, const struct id_map *probes)
{
	struct phase_row *ph;
	size_t n, i;
	int rc = 0;

	if (db_phases_list(src, old_run, &ph, &n) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		const struct phase_row *p = &ph[i];
		int64_t id = db_phase_begin(dst, run, p->round, p->seq, p->name, p->cache, p->loads,
					    p->started_at);

		if (id < 0) {
			rc = -1;
			break;
		}
		map_add(m, p->id, id);
		if (p->probe_start > 0)
			rc = db_phase_probe_start(dst, id, p->probe_start);
		if (rc == 0 && (p->ended_at > 0 || !p->valid))
			rc = db_phase_end(dst, id, p->ended_at, p->valid, p->invalid_reason);
		if (rc == 0)
			rc = copy_phase_rows(src, dst, p->id, id, run, probes);
	}
	db_phase_rows_free(ph, n);
	return rc;
}

static int copy_loads_events(struct db *src, struct db *dst, int64_t old_run, int64_t run,
			     const struct id_map *m)
{
	struct load_info *loads;
	void *rows;
	struct event *ev;
	size_t n, i;
	int rc = 0;

	if (db_loads_list(src, old_run, &loads, &n) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++)
		rc = db_load_insert(dst, run, &loads[i]);
	db_loads_free(loads, n);
	if (rc < 0 || db_list(src, REC_EVENT, old_run, 0, &rows, &n) < 0)
		return -1;
	ev = rows;
	/* listed newest first: written back oldest first */
	for (i = n; i-- > 0 && rc == 0;) {
		ev[i].phase_id = map_id(m, ev[i].phase_id);
		rc = db_event_insert(dst, run, &ev[i]);
	}
	db_rows_free(REC_EVENT, rows, n);
	return rc;
}

/* The run, then its probes, phases (with their rows), loads and events, in
 * one transaction; *new_id gets its id here. */
static int copy_run(struct db *src, struct db *dst, const struct run_row *r, int64_t *new_id)
{
	struct run_start rs = {
		.info = { r->profile_name, r->profile_path, r->profile_text, r->host, r->kernel,
			  r->cpu_model, r->cores, r->ram_bytes, r->swap_bytes, r->tree_fingerprint,
			  r->version, r->rounds, r->planned_ms, 0 },
		.status = r->status,
		.started_at = r->started_at,
		.uuid = r->uuid,
	};
	struct id_map m = { 0 }, probes = { 0 };
	int rc = -1;

	if (db_begin(dst) < 0)
		return -1;
	*new_id = db_insert(dst, REC_RUN_START, 0, &rs);
	if (*new_id > 0 &&
	    (r->ended_at <= 0 || db_run_end(dst, *new_id, r->status, r->ended_at) == 0) &&
	    copy_probes(src, dst, r->id, *new_id, &probes) == 0 &&
	    copy_phases(src, dst, r->id, *new_id, &m, &probes) == 0 &&
	    copy_loads_events(src, dst, r->id, *new_id, &m) == 0)
		rc = db_commit(dst);
	if (rc < 0)
		db_rollback(dst);
	free(m.old);
	free(m.new);
	free(probes.old);
	free(probes.new);
	return rc;
}

/* The run of this database with that UUID; 0 when none. */
static int64_t run_with_uuid(const struct run_row *here, size_t n, const char *uuid)
{
	size_t i;

	for (i = 0; uuid != NULL && uuid[0] != '\0' && i < n; i++)
		if (here[i].uuid != NULL && strcmp(here[i].uuid, uuid) == 0)
			return here[i].id;
	return 0;
}

struct import {
	struct db *src, *dst;
	const char *src_path;
	struct run_row *here;
	size_t nhere;
	int imported, skipped, failed;
};

static void import_one(struct import *im, int64_t id)
{
	struct run_row r;
	int64_t have, new_id;
	int rc = db_run_get(im->src, id, &r);

	if (rc != 0) {
		if (rc == 1)
			log_error("no run %lld in %s", (long long)id, im->src_path);
		im->failed++;
		return;
	}
	have = run_with_uuid(im->here, im->nhere, r.uuid);
	if (have > 0) {
		printf("run %lld of %s: already here as run %lld, skipped\n", (long long)id,
		       im->src_path, (long long)have);
		im->skipped++;
	} else if (strcmp(r.status, "running") == 0) {
		log_warn("run %lld of %s is still running: not imported", (long long)id,
			 im->src_path);
		im->skipped++;
	} else if (copy_run(im->src, im->dst, &r, &new_id) == 0) {
		printf("run %lld of %s: imported as run %lld\n", (long long)id, im->src_path,
		       (long long)new_id);
		im->imported++;
	} else {
		log_error("run %lld of %s: not imported", (long long)id, im->src_path);
		im->failed++;
	}
	db_run_row_free(&r);
}

/* The same file under two names would copy a database into itself. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static struct db *open_rw(const char *path)
{
	char *err = NULL;
	struct db *db = db_open(path, DB_READWRITE, &err);

	if (db == NULL) {
		log_error("%s", err);
		free(err);
	}
	return db;
}

static int cmd_import_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc,
			   char **argv)
{
	struct import im = { 0 };
	int64_t id;
	int i;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return loadctl_usage(self);
	if (argc < 2)
		return loadctl_usage_error(self, "import from which database?");
	for (i = 2; i < argc; i++)
		if (loadctl_parse_run(argv[i], &id) < 0)
			return loadctl_usage_error(self, "'%s' is not a run id", argv[i]);
	im.src_path = argv[1];
	if (access(im.src_path, F_OK) != 0) {
		log_error("no database at %s", im.src_path);
		return LOADCTL_ERROR;
	}
	if (same_file(im.src_path, lc->db_path)) {
		log_error("%s is the database runs are imported into", im.src_path);
		return LOADCTL_ERROR;
	}
	term_guard_stdout();
	/* Opened as loadd would: brought to this schema, so its runs have
	 * their UUIDs for good and a second import finds them. */
	im.src = open_rw(im.src_path);
	im.dst = im.src ? open_rw(lc->db_path) : NULL;
	if (im.dst == NULL || db_runs_list(im.dst, &im.here, &im.nhere) < 0) {
		im.failed++;
	} else if (argc > 2) {
		for (i = 2; i < argc; i++) {
			loadctl_parse_run(argv[i], &id);
			import_one(&im, id);
		}
	} else {
		struct run_row *all;
		size_t n, k;

		if (db_runs_list(im.src, &all, &n) < 0) {
			im.failed++;
		} else {
			for (k = n; k-- > 0;) /* oldest first */
				import_one(&im, all[k].id);
			for (k = 0; k < n; k++)
				db_run_row_free(&all[k]);
			free(all);
		}
	}
	if (im.src && im.dst)
		printf("%d imported, %d skipped, %d failed\n", im.imported, im.skipped, im.failed);
	for (size_t k = 0; k < im.nhere; k++)
		db_run_row_free(&im.here[k]);
	free(im.here);
	if (im.dst)
		db_close(im.dst);
	if (im.src)
		db_close(im.src);
	return im.failed ? LOADCTL_ERROR : LOADCTL_OK;
}

const struct loadctl_cmd cmd_import_entry = {
	.name = "import",
	.args = "OTHER.db [RUN...]",
	.summary = "copy runs of another database here (new ids; runs already here skipped)",
	.exec = cmd_import_exec,
};
