// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer: the database reader on a mutated database file: open it read
 * only, list its runs, and print every run's report as text and JSON. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "log.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static FILE *sink;
	struct run_row *runs = NULL;
	struct db *db;
	char *err = NULL;
	size_t n = 0;
	FILE *f;

	if (sink == NULL) {
		log_init("fuzz_db", -1);
		snprintf(path, sizeof path, "/tmp/fuzz_db.%ld.db", (long)getpid());
		sink = fopen("/dev/null", "w");
	}
	unlink(path);
	if ((f = fopen(path, "wb")) == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	db = db_open(path, DB_READONLY, &err);
	free(err);
	if (db != NULL) {
		if (db_runs_list(db, &runs, &n) == 0) {
			for (size_t i = 0; i < n && i < 8; i++) {
				report_print(db, runs[i].id, sink);
				report_json(db, runs[i].id, sink);
			}
			for (size_t i = 0; i < n; i++)
				db_run_row_free(&runs[i]);
			free(runs);
		}
		db_close(db);
	}
	unlink(path);
	return 0;
}
