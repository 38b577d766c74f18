// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl: the command line of loadd. Global options, then a command from
 * the table below. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loadctl.h"
#include "log.h"
#include "probe_study.h"
#include "report_study.h"
#include "xalloc.h"

#define ROOT_DB_PATH "/var/lib/loadd/loadd.db"

static const struct loadctl_cmd cmd_help_entry;

/* Every command, in the order `loadctl help` lists them. */
static const struct loadctl_cmd *const commands[] = {
	&cmd_status_entry, &cmd_stop_entry,    &cmd_runs_entry,     &cmd_report_entry,
	&cmd_export_entry, &cmd_compare_entry, &cmd_baseline_entry, &cmd_check_entry,
	&cmd_import_entry, &cmd_plot_entry,    &cmd_help_entry,
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void print_usage_line(FILE *fp, const struct loadctl_cmd *cmd)
{
	fprintf(fp, "usage: %s [--db PATH] %s%s%s\n", log_progname(), cmd->name,
		cmd->args[0] ? " " : "", cmd->args);
}

int loadctl_usage_error(const struct loadctl_cmd *cmd, const char *fmt, ...)
{
	if (fmt != NULL) {
		va_list ap;
		char *msg;

		va_start(ap, fmt);
		if (vasprintf(&msg, fmt, ap) < 0)
			fatalx("out of memory formatting a string");
		va_end(ap);
		log_error("%s", msg);
		free(msg);
	}
	print_usage_line(stderr, cmd);
	return LOADCTL_USAGE;
}

int loadctl_usage(const struct loadctl_cmd *cmd)
{
	print_usage_line(stdout, cmd);
	printf("%s\n", cmd->summary);
	return LOADCTL_OK;
}

struct db *loadctl_open_db(struct loadctl *lc)
{
	char *err = NULL;
	struct db *db = db_open(lc->db_path, DB_READONLY, &err);

	if (db != NULL)
		return db;
	/* loadd run with sudo keeps its data where a user's loadctl does not
	 * look by default: say so. */
	if (geteuid() != 0 && strcmp(lc->db_path, ROOT_DB_PATH) != 0 &&
	    access(ROOT_DB_PATH, F_OK) == 0)
		log_error("%s; loadd run as root keeps its runs in %s: try --db %s", err,
			  ROOT_DB_PATH, ROOT_DB_PATH);
	else
		log_error("%s", err);
	free(err);
	return NULL;
}

int loadctl_parse_run(const char *s, int64_t *id)
{
	char *end;
	long long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	v = strtoll(s, &end, 10);
	if (*end != '\0' || v <= 0)
		return -1;
	*id = v;
	return 0;
}

int loadctl_find_run(struct loadctl *lc, struct db *db, int64_t *id)
{
	struct run_row r;
	int rc;

	if (*id == 0) {
		int64_t latest = db_latest_run(db);

		if (latest < 0)
			return LOADCTL_ERROR;
		if (latest == 0) {
			log_error("no runs in %s", lc->db_path);
			return LOADCTL_ERROR;
		}
		*id = latest;
		return LOADCTL_OK;
	}
	rc = db_run_get(db, *id, &r);
	if (rc < 0)
		return LOADCTL_ERROR;
	if (rc == 1) {
		log_error("no run %lld in %s", (long long)*id, lc->db_path);
		return LOADCTL_ERROR;
	}
	db_run_row_free(&r);
	return LOADCTL_OK;
}

static void print_help(FILE *fp)
{
	char *def = db_default_path();
	size_t i, width = 0;

	fprintf(fp, "usage: %s [--db PATH] COMMAND [ARGS]\n\n", log_progname());
	fprintf(fp,
		"Asks the running loadd what it does and stops it; reads what loadd recorded:\n"
		"lists runs, reports them, exports their samples, compares and ranks them.\n\n");
	fprintf(fp, "Commands:\n");
	for (i = 0; i < NCOMMANDS; i++) {
		size_t len = strlen(commands[i]->name) + 1 + strlen(commands[i]->args);
		if (len > width)
			width = len;
	}
	for (i = 0; i < NCOMMANDS; i++) {
		char *head = xasprintf("%s %s", commands[i]->name, commands[i]->args);
		fprintf(fp, "  %-*s  %s\n", (int)width, head, commands[i]->summary);
		free(head);
	}
	fprintf(fp,
		"\nOptions:\n"
		"  --db PATH      the database (here: %s)\n"
		"  -h, --help     this help\n"
		"  -V, --version  the version\n",
		def);
	free(def);
}

static const struct loadctl_cmd *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static int cmd_help_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc, char **argv)
{
	const struct loadctl_cmd *cmd;

	if (argc > 2)
		return loadctl_usage_error(self, "too many arguments");
	if (argc == 1) {
		print_help(stdout);
		return LOADCTL_OK;
	}
	if ((cmd = find_command(argv[1])) == NULL)
		return loadctl_usage_error(self, "unknown command '%s'", argv[1]);
	return loadctl_usage(cmd);
}

static const struct loadctl_cmd cmd_help_entry = {
	.name = "help",
	.args = "[COMMAND]",
	.summary = "this list, or one command's usage",
	.exec = cmd_help_exec,
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct loadctl lc = { 0 };
	const struct loadctl_cmd *cmd;
	int c, status;

	log_init("loadctl", 0);
	report_study_use(probe_study_kinds());
	opterr = 0;
	/* '+': stop at the command; its options are its own. */
	while ((c = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			free(lc.db_path);
			lc.db_path = xstrdup(optarg);
			break;
		case 'h':
			print_help(stdout);
			free(lc.db_path);
			return LOADCTL_OK;
		case 'V':
			printf("loadctl %s\n", LOADD_VERSION);
			free(lc.db_path);
			return LOADCTL_OK;
		default:
			if (optopt == 'd' || strncmp(argv[optind - 1], "--db", 4) == 0)
				log_error("--db needs a PATH");
			else
				log_error("unknown option '%s'", argv[optind - 1]);
			fprintf(stderr, "usage: %s [--db PATH] COMMAND [ARGS]; see '%s help'\n",
				log_progname(), log_progname());
			free(lc.db_path);
			return LOADCTL_USAGE;
		}
	}
	if (optind >= argc) {
		print_help(stderr);
		free(lc.db_path);
		return LOADCTL_USAGE;
	}
	if ((cmd = find_command(argv[optind])) == NULL) {
		log_error("unknown command '%s'", argv[optind]);
		fprintf(stderr, "usage: %s [--db PATH] COMMAND [ARGS]; see '%s help'\n",
			log_progname(), log_progname());
		free(lc.db_path);
		return LOADCTL_USAGE;
	}
	if (lc.db_path == NULL)
		lc.db_path = db_default_path();
	argc -= optind;
	argv += optind;
	/* The command parses from its own argv[1] with a fresh getopt. */
	optind = 0;
	status = cmd->exec(&lc, cmd, argc, argv);
	free(lc.db_path);
	/* Output that never reached its file is a failure too. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		log_error("writing to standard output failed");
		if (status == LOADCTL_OK)
			status = LOADCTL_ERROR;
	}
	return status;
}
