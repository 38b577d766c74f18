// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl: one const struct per command, each in its own cmd_*.c, gathered
 * in one table in main.c. A new command is a new file and a table entry. */
#ifndef LOADCTL_H
#define LOADCTL_H

#include <stdint.h>

#include "db.h"

/* Exit statuses: 2 for a command line that makes no sense, 1 for
 * everything else that went wrong. */
#define LOADCTL_OK 0
#define LOADCTL_ERROR 1
#define LOADCTL_USAGE 2

struct loadctl {
	char *db_path; /* --db PATH, or the default */
};

struct loadctl_cmd {
	const char *name;
	const char *args;    /* what follows the name in a usage line */
	const char *summary; /* one line for `loadctl help` */
	/* argv[0] is the command's name; returns an exit status. */
	int (*exec)(struct loadctl *lc, const struct loadctl_cmd *self, int argc, char **argv);
};

extern const struct loadctl_cmd cmd_baseline_entry;
extern const struct loadctl_cmd cmd_check_entry;
extern const struct loadctl_cmd cmd_compare_entry;
extern const struct loadctl_cmd cmd_import_entry;
extern const struct loadctl_cmd cmd_export_entry;
extern const struct loadctl_cmd cmd_plot_entry;
extern const struct loadctl_cmd cmd_report_entry;
extern const struct loadctl_cmd cmd_runs_entry;
extern const struct loadctl_cmd cmd_status_entry;
extern const struct loadctl_cmd cmd_stop_entry;

/* Prints "loadctl: error: MESSAGE" (when fmt is not NULL) and the command's
 * usage line to stderr; returns LOADCTL_USAGE. */
int loadctl_usage_error(const struct loadctl_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The command's usage line to stdout (for CMD --help); returns LOADCTL_OK. */
int loadctl_usage(const struct loadctl_cmd *cmd);
/* Opens the database read-only; NULL after one line on stderr. */
struct db *loadctl_open_db(struct loadctl *lc);
/* Parses a run id (a positive integer); -1 when it is not one. */
int loadctl_parse_run(const char *s, int64_t *id);
/* Settles which run a command is about: *id 0 means the latest. Returns
 * LOADCTL_OK, or LOADCTL_ERROR after a message (no such run, no runs). */
int loadctl_find_run(struct loadctl *lc, struct db *db, int64_t *id);

#endif
