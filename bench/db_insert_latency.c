// SPDX-License-Identifier: GPL-2.0-or-later
/* db-insert-latency: how long loadd takes to store one probe sample. Opens
 * a database with loadd's own storage code (db.c: WAL, synchronous =
 * NORMAL), records a run and a phase, then times each db_sample_insert on
 * its own, each committed by itself as loadd commits it.
 *
 *	db-insert-latency [-n SAMPLES] [-i MS] PATH
 *
 * -i spaces the inserts as a probe would (0: back to back). It prints one
 * line: n=... median_us=... p95_us=... p99_us=... max_us=... mean_us=... */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "db.h"
#include "log.h"
#include "parse.h"
#include "stats.h"
#include "timeutil.h"
#include "xalloc.h"

static void usage(void)
{
	fprintf(stderr, "usage: db-insert-latency [-n SAMPLES] [-i MS] PATH\n"
			"  -n  samples to store and time (default 2000)\n"
			"  -i  pause between two samples, ms (default 0)\n");
	exit(2);
}

static long number_arg(const char *s, const char *what, long min, long max)
{
	const char *err;
	long v;

	if (parse_long(s, &v, &err) < 0 || v < min || v > max) {
		fprintf(stderr, "db-insert-latency: %s: a number from %ld to %ld, not '%s'\n", what,
			min, max, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long n = 2000, interval_ms = 0;
	const char *path;
	struct db *db;
	struct summary sum;
	char *err = NULL;
	double *us;
	int c;

	log_init("db-insert-latency", 0);
	while ((c = getopt(argc, argv, "n:i:h")) != -1) {
		switch (c) {
		case 'n': n = number_arg(optarg, "-n", 1, 10000000); break;
		case 'i': interval_ms = number_arg(optarg, "-i", 0, 60000); break;
		default: usage();
		}
	}
	if (argc - optind != 1)
		usage();
	path = argv[optind];
	if (access(path, F_OK) == 0)
		fatalx("db-insert-latency: %s exists; give a new file", path);
	db = db_open(path, DB_READWRITE, &err);
	if (db == NULL)
		fatalx("db-insert-latency: %s", err);

	struct run_info ri = {
		.profile_name = "bench",
		.profile_text = "",
		.host = "bench",
		.version = LOADD_VERSION,
		.rounds = 1,
		.pid = getpid(),
	};
	int64_t run_id = db_run_begin(db, &ri, wall_now());
	int64_t phase_id = run_id > 0 ? db_phase_begin(db, run_id, 1, 0, "none", "warm", "",
						       wall_now())
				      : -1;
	if (phase_id <= 0)
		fatalx("db-insert-latency: cannot record a run and a phase in %s", path);

	us = xcalloc((size_t)n, sizeof *us);
	for (long i = 0; i < n; i++) {
		struct sample s = {
			.phase_id = phase_id,
			.seq = i,
			.started_at = wall_now(),
			.wall_ms = 60 + i % 7,
			.user_ms = 12,
			.sys_ms = 30,
			.cpu_pct = 70,
			.nvcsw = 40,
			.nivcsw = 3,
		};
		int64_t t0 = mono_ns();

		if (db_sample_insert(db, run_id, &s) < 0)
			fatalx("db-insert-latency: storing sample %ld failed", i);
		us[i] = (mono_ns() - t0) / 1e3;
		if (interval_ms > 0)
			sleep_until_ns(t0 + interval_ms * NSEC_PER_MSEC);
	}
	db_run_end(db, run_id, "complete", wall_now());
	db_close(db);

	summarize(us, (size_t)n, &sum);
	printf("n=%zu median_us=%.1f p95_us=%.1f p99_us=%.1f max_us=%.1f mean_us=%.1f\n", sum.n,
	       sum.median, sum.p95, sum.p99, sum.max, sum.mean);
	free(us);
	return 0;
}
