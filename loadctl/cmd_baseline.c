// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl baseline: name a run to check others against (loadctl check
 * --against NAME), and list the names. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_build.h"
#include "loadctl.h"
#include "log.h"
#include "table.h"
#include "term_escape.h"
#include "timeutil.h"
#include "xalloc.h"

/* A name must not read as a run: check --against takes either. */
static bool name_ok(const char *name)
{
	int64_t id;

	return name[0] != '\0' && strlen(name) <= 64 && strchr(name, ':') == NULL &&
	       loadctl_parse_run(name, &id) < 0;
}

static int baseline_set(struct loadctl *lc, const struct loadctl_cmd *self, const char *run,
			const char *name)
{
	struct db *db;
	char *err = NULL;
	int64_t id;
	int status = LOADCTL_ERROR;

	if (loadctl_parse_run(run, &id) < 0)
		return loadctl_usage_error(self, "'%s' is not a run id of this database", run);
	if (name == NULL)
		return loadctl_usage_error(self, "which name? give --name NAME");
	if (!name_ok(name))
		return loadctl_usage_error(self,
					   "--name '%s': a name is 1 to 64 characters, no "
					   "':', and not a number",
					   name);
	db = db_open(lc->db_path, DB_READWRITE, &err);
	if (db == NULL) {
		log_error("%s", err);
		free(err);
		return LOADCTL_ERROR;
	}
	if (loadctl_find_run(lc, db, &id) == LOADCTL_OK &&
	    db_baseline_set(db, name, id, wall_now()) == 0) {
		printf("baseline %s: run %lld\n", name, (long long)id);
		status = LOADCTL_OK;
	}
	db_close(db);
	return status;
}

static void list_text(struct db *db, const struct baseline_row *b, size_t n)
{
	static const char *const head[] = { "Name",   "Run",     "Profile", "Host",
					    "Kernel", "Started", "Set" };
	struct table t;
	size_t i;

	table_init(&t, head, "lrlllll");
	for (i = 0; i < n; i++) {
		struct run_row r;
		char started[64] = "-", set[64];
		char *row[7];
		bool have = db_run_get(db, b[i].run_id, &r) == 0;

		if (have)
			format_wall(r.started_at, started, sizeof started);
		format_wall(b[i].set_at, set, sizeof set);
		row[0] = xstrdup(b[i].name);
		row[1] = xasprintf("%lld", (long long)b[i].run_id);
		row[2] = have ? xstrdup(r.profile_name) : xstrdup("-");
		row[3] = have ? xstrdup(r.host) : xstrdup("-");
		row[4] = have ? xstrdup(r.kernel) : xstrdup("-");
		row[5] = xstrdup(started);
		row[6] = xstrdup(set);
		table_row(&t, row);
		if (have)
			db_run_row_free(&r);
	}
	table_print(&t, stdout);
	table_free(&t);
}

static int list_json(const struct baseline_row *b, size_t n)
{
	json_t *arr = json_array();
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		json_t *o = json_object();

		json_set(o, "name", json_text(b[i].name));
		json_set(o, "run", json_integer(b[i].run_id));
		json_set(o, "set_at", json_real_or_null(b[i].set_at));
		json_array_append_new(arr, o);
	}
	rc = json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	json_decref(arr);
	if (rc == 0)
		putchar('\n');
	return rc == 0 ? LOADCTL_OK : LOADCTL_ERROR;
}

static int baseline_list(struct loadctl *lc, bool json)
{
	struct db *db = loadctl_open_db(lc);
	void *rows;
	size_t n;
	int status = LOADCTL_ERROR;

	if (db == NULL)
		return LOADCTL_ERROR;
	if (db_list(db, REC_BASELINE, 0, 0, &rows, &n) == 0) {
		if (json) {
			status = list_json(rows, n);
		} else {
			term_guard_stdout();
			if (n == 0)
				printf("No baselines in %s (loadctl baseline set RUN --name NAME).\n",
				       lc->db_path);
			else
				list_text(db, rows, n);
			status = LOADCTL_OK;
		}
		db_rows_free(REC_BASELINE, rows, n);
	}
	db_close(db);
	return status;
}

static int cmd_baseline_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc,
			     char **argv)
{
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = NULL;
	bool json = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "n:jh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': name = optarg; break;
		case 'j': json = true; break;
		case 'h': return loadctl_usage(self);
		default: return loadctl_usage_error(self, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && strcmp(argv[optind], "set") == 0) {
		if (argc - optind != 2)
			return loadctl_usage_error(self, "baseline set takes one run");
		return baseline_set(lc, self, argv[optind + 1], name);
	}
	if (optind < argc && strcmp(argv[optind], "list") == 0 && argc - optind == 1)
		return baseline_list(lc, json);
	return loadctl_usage_error(self, "set RUN --name NAME, or list");
}

const struct loadctl_cmd cmd_baseline_entry = {
	.name = "baseline",
	.args = "set RUN --name NAME | list [--json]",
	.summary = "name a run to check others against, or list the names",
	.exec = cmd_baseline_exec,
};
