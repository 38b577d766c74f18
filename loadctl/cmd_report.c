/* loadctl report: the per-phase report of a run, as text or JSON. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "loadctl.h"
#include "log.h"
#include "report.h"
#include "term_escape.h"

static int cmd_report_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc,
			   char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	int64_t run_id = 0;
	struct db *db;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'h':
			return loadctl_usage(self);
		default:
			return loadctl_usage_error(self, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return loadctl_usage_error(self, "too many arguments");
	if (optind < argc && loadctl_parse_run(argv[optind], &run_id) < 0)
		return loadctl_usage_error(self, "'%s' is not a run id (see loadctl runs)",
					   argv[optind]);
	if (!json)
		term_guard_stdout();
	if ((db = loadctl_open_db(lc)) == NULL)
		return LOADCTL_ERROR;
	if (loadctl_find_run(lc, db, &run_id) != LOADCTL_OK) {
		db_close(db);
		return LOADCTL_ERROR;
	}
	rc = json ? report_json(db, run_id, stdout) : report_print(db, run_id, stdout);
	db_close(db);
	if (rc == 1) /* gone between the two reads: only a deleted run can */
		log_error("no run %lld in %s", (long long)run_id, lc->db_path);
	return rc == 0 ? LOADCTL_OK : LOADCTL_ERROR;
}

const struct loadctl_cmd cmd_report_entry = {
	.name = "report",
	.args = "[RUN] [--json]",
	.summary = "a run's report (default: the latest), as text or JSON",
	.exec = cmd_report_exec,
};
