// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl report: the per-phase report of a run, as text, JSON or an HTML
 * page with figures. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "loadctl.h"
#include "log.h"
#include "report.h"
#include "report_html.h"
#include "term_escape.h"

/* The page to path, or to stdout for "-"; what report_html returns, and -1
 * (after a message) when the file cannot be written. */
static int write_html(struct db *db, int64_t run_id, const char *path)
{
	FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	int rc;

	if (out == NULL) {
		log_error("%s: %s", path, strerror(errno));
		return -1;
	}
	rc = report_html(db, run_id, out);
	if (out != stdout && fclose(out) != 0 && rc == 0) {
		log_error("%s: %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

static int cmd_report_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc,
			   char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "html", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	const char *html = NULL;
	int64_t run_id = 0;
	struct db *db;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'H': html = optarg; break;
		case 'h': return loadctl_usage(self);
		default: return loadctl_usage_error(self, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return loadctl_usage_error(self, "too many arguments");
	if (json && html != NULL)
		return loadctl_usage_error(self, "--json and --html exclude each other");
	if (optind < argc && loadctl_parse_run(argv[optind], &run_id) < 0)
		return loadctl_usage_error(self, "'%s' is not a run id (see loadctl runs)",
					   argv[optind]);
	if (!json && html == NULL) /* a page is machine output, escaped as HTML */
		term_guard_stdout();
	if ((db = loadctl_open_db(lc)) == NULL)
		return LOADCTL_ERROR;
	if (loadctl_find_run(lc, db, &run_id) != LOADCTL_OK) {
		db_close(db);
		return LOADCTL_ERROR;
	}
	if (html != NULL)
		rc = write_html(db, run_id, html);
	else
		rc = json ? report_json(db, run_id, stdout) : report_print(db, run_id, stdout);
	db_close(db);
	if (rc == 1) /* gone between the two reads: only a deleted run can */
		log_error("no run %lld in %s", (long long)run_id, lc->db_path);
	return rc == 0 ? LOADCTL_OK : LOADCTL_ERROR;
}

const struct loadctl_cmd cmd_report_entry = {
	.name = "report",
	.args = "[RUN] [--json | --html FILE]",
	.summary =
		"a run's report (default: the latest), as text, JSON or an HTML page ('-': stdout)",
	.exec = cmd_report_exec,
};
