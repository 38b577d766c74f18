// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl runs: every run in the database, newest first. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadctl.h"
#include "term_escape.h"
#include "timeutil.h"
#include "xalloc.h"

enum {
	COL_ID,
	COL_STATUS,
	COL_PROFILE,
	COL_HOST,
	COL_KERNEL,
	COL_STARTED,
	COL_DURATION,
	COL_SAMPLES,
	NCOLS
};

static const char *const heading[NCOLS] = {
	"ID", "Status", "Profile", "Host", "Kernel", "Started", "Duration", "Samples",
};

/* Numbers right-aligned, words left-aligned. */
static const bool right[NCOLS] = { [COL_ID] = true, [COL_DURATION] = true, [COL_SAMPLES] = true };

static void run_cells(const struct run_row *r, char **cell)
{
	char buf[64];
	double end = r->ended_at > 0 ? r->ended_at : wall_now();

	cell[COL_ID] = xasprintf("%lld", (long long)r->id);
	/* Names from a database that may come from anywhere: escaped. */
	cell[COL_STATUS] = term_escape(r->status);
	cell[COL_PROFILE] = term_escape(r->profile_name);
	cell[COL_HOST] = term_escape(r->host);
	cell[COL_KERNEL] = term_escape(r->kernel);
	format_wall(r->started_at, buf, sizeof buf);
	cell[COL_STARTED] = xstrdup(buf);
	/* A crashed run from before its end was recorded has no end. */
	if (r->ended_at <= 0 && strcmp(r->status, "running") != 0) {
		cell[COL_DURATION] = xstrdup("-");
	} else {
		format_ms((int64_t)llround((end - r->started_at) * 1000), buf, sizeof buf);
		cell[COL_DURATION] = xstrdup(buf);
	}
	cell[COL_SAMPLES] = xasprintf("%lld", (long long)r->samples);
}

static void print_row(char *const *cell, const size_t *width)
{
	size_t c;

	for (c = 0; c < NCOLS; c++) {
		const char *sep = c + 1 < NCOLS ? "  " : "";

		if (c + 1 == NCOLS && !right[c])
			printf("%s", cell[c]);
		else
			printf(right[c] ? "%*s%s" : "%-*s%s", (int)width[c], cell[c], sep);
	}
	putchar('\n');
}

static int cmd_runs_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_row *runs;
	struct db *db;
	size_t n, i, c, width[NCOLS];
	char **cells;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == 'h')
			return loadctl_usage(self);
		return loadctl_usage_error(self, "unknown option '%s'", argv[optind - 1]);
	}
	if (optind < argc)
		return loadctl_usage_error(self, "unexpected argument '%s'", argv[optind]);
	term_guard_stdout();
	if ((db = loadctl_open_db(lc)) == NULL)
		return LOADCTL_ERROR;
	if (db_runs_list(db, &runs, &n) < 0) {
		db_close(db);
		return LOADCTL_ERROR;
	}
	db_close(db);
	if (n == 0) {
		printf("no runs in %s\n", lc->db_path);
		free(runs);
		return LOADCTL_OK;
	}

	cells = xcalloc(n * NCOLS, sizeof *cells);
	for (c = 0; c < NCOLS; c++)
		width[c] = strlen(heading[c]);
	for (i = 0; i < n; i++) {
		run_cells(&runs[i], &cells[i * NCOLS]);
		for (c = 0; c < NCOLS; c++) {
			size_t len = strlen(cells[i * NCOLS + c]);
			if (len > width[c])
				width[c] = len;
		}
		db_run_row_free(&runs[i]);
	}
	free(runs);
	print_row((char *const *)heading, width);
	for (i = 0; i < n; i++)
		print_row(&cells[i * NCOLS], width);
	for (i = 0; i < n * NCOLS; i++)
		free(cells[i]);
	free(cells);
	return LOADCTL_OK;
}

const struct loadctl_cmd cmd_runs_entry = {
	.name = "runs",
	.args = "",
	.summary = "list the runs, newest first",
	.exec = cmd_runs_exec,
};
