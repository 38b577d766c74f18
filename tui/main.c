// SPDX-License-Identifier: GPL-2.0-or-later
/* loadtop: the live view of a loadd run, read from the database (read-only,
 * so it never gets in loadd's way), or plain-text snapshots with -b. */
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "db.h"
#include "log.h"
#include "screen.h"
#include "timeutil.h"
#include "view.h"
#include "xalloc.h"

/* Exit statuses: 0 done, 1 nothing to show or a database problem, 2 bad
 * usage, 128 + N stopped by signal N. */
enum { EXIT_FAILED = 1, EXIT_USAGE = 2 };

#define DELAY_MIN_S 0.1
#define DELAY_MAX_S 3600.0
/* The longest getch waits, so a signal is seen soon whatever the delay. */
#define KEY_WAIT_MAX_MS 250

struct args {
	const char *db;
	int64_t run;
	double delay_s;
	long count; /* snapshots, 0: until quit */
	bool batch;
};

static volatile sig_atomic_t stop_signal;

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: loadtop [--db PATH] [--run ID] [-d SECONDS] [-n COUNT]\n"
		"       loadtop -b [-n COUNT] [--db PATH] [--run ID] [-d SECONDS]\n"
		"\n"
		"Shows a loadd run as it happens: the probe's response times, the loads,\n"
		"the system's pressure, the phases so far and the latest events. Without\n"
		"--run it follows the latest run; a finished run shows its final state.\n"
		"\n"
		"      --db PATH     database (default %s)\n"
		"  -r, --run ID      show this run instead of the latest\n"
		"  -d, --delay SECS  refresh every SECS seconds, fractions allowed (default 1)\n"
		"  -b, --batch       print plain-text snapshots to stdout, no curses\n"
		"  -n, --count N     stop after N snapshots (default: run until quit)\n"
		"  -V, --version     print the version and exit\n"
		"  -h, --help        this help\n"
		"\n"
		"Keys: q quit, p pause, h or ? help, Tab switch list, arrows and PgUp/PgDn\n"
		"scroll. NO_COLOR in the environment turns colour off.\n",
		geteuid() == 0 ? "/var/lib/loadd/loadd.db" : "$XDG_STATE_HOME/loadd/loadd.db");
}

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "loadtop: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'loadtop --help'.\n");
	exit(EXIT_USAGE);
}

/* A whole number above 0. */
static bool parse_positive(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *out > 0;
}

static void parse_args(int argc, char **argv, struct args *a)
{
	enum { OPT_DB = 256 };
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, OPT_DB }, { "run", required_argument, NULL, 'r' },
		{ "delay", required_argument, NULL, 'd' }, { "batch", no_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'n' }, { "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int c;

	a->delay_s = 1.0;
	while ((c = getopt_long(argc, argv, "r:d:bn:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DB: a->db = optarg; break;
		case 'r':
			if (!parse_positive(optarg, &v))
				usage_error("invalid run id '%s': expected a number from "
					    "'loadctl runs'",
					    optarg);
			a->run = v;
			break;
		case 'd':
			errno = 0;
			a->delay_s = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' || !isfinite(a->delay_s) ||
			    a->delay_s < DELAY_MIN_S || a->delay_s > DELAY_MAX_S)
				usage_error("invalid delay '%s': expected seconds from 0.1 to 3600",
					    optarg);
			break;
		case 'b': a->batch = true; break;
		case 'n':
			if (!parse_positive(optarg, &a->count))
				usage_error("invalid count '%s': expected a number of snapshots, "
					    "1 or more",
					    optarg);
			break;
		case 'V': printf("loadtop %s\n", LOADD_VERSION); exit(0);
		case 'h': usage(stdout); exit(0);
		default: fprintf(stderr, "Try 'loadtop --help'.\n"); exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
}

/* The first read: every reason there is nothing to show, said plainly. */
static int first_read(struct source *src, struct snapshot *snap, const char *path, int64_t run)
{
	switch (source_read(src, snap)) {
	case SOURCE_OK: return 0;
	case SOURCE_NO_RUN:
		fprintf(stderr, "loadtop: no run in %s yet; start one with loadd --profile quick\n",
			path);
		return -1;
	case SOURCE_RUN_NOT_FOUND:
		fprintf(stderr, "loadtop: no run %lld in %s ('loadctl runs' lists them)\n",
			(long long)run, path);
		return -1;
	case SOURCE_ERROR: break;
	}
	fprintf(stderr, "loadtop: cannot read the run from %s\n", path);
	return -1;
}

static int run_batch(struct source *src, struct snapshot *snap, const struct args *a,
		     const char *path)
{
	int64_t next = mono_ns();

	for (long i = 1; a->count == 0 || i <= a->count; i++) {
		if (i > 1) {
			next += (int64_t)(a->delay_s * NSEC_PER_SEC);
			sleep_until_ns(next);
			if (source_read(src, snap) != SOURCE_OK) {
				fprintf(stderr, "loadtop: cannot read run %lld from %s any more\n",
					(long long)source_run_id(src), path);
				return EXIT_FAILED;
			}
		}
		batch_print(stdout, snap, i, a->count);
		if (ferror(stdout)) {
			fprintf(stderr, "loadtop: writing the snapshot: %s\n", strerror(errno));
			return EXIT_FAILED;
		}
	}
	return 0;
}

static void on_stop_signal(int signo)
{
	stop_signal = signo;
}

/* SIGINT, SIGTERM and SIGHUP only set a flag: the loop then leaves the way
 * q does, so the terminal is always given back. Installed before curses
 * starts, so curses keeps its hands off them; no SA_RESTART, so a waiting
 * getch returns at once. */
static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
		sigaction(signals[i], &sa, NULL);
}

static void read_into(struct screen *scr, struct source *src, struct snapshot *snap)
{
	char msg[256];

	switch (source_read(src, snap)) {
	case SOURCE_OK: screen_set_status(scr, ""); break;
	case SOURCE_NO_RUN:
	case SOURCE_RUN_NOT_FOUND:
		snprintf(msg, sizeof msg, "run %lld is no longer in the database",
			 (long long)source_run_id(src));
		screen_set_status(scr, msg);
		break;
	case SOURCE_ERROR:
		/* Shown with the last figures; the next tick tries again. */
		snprintf(msg, sizeof msg, "database read failed, retrying: %s", screen_last_log());
		screen_set_status(scr, msg);
		break;
	}
	screen_update(scr, snap);
}

static int run_interactive(struct source *src, struct snapshot *snap, const struct args *a)
{
	int64_t delay_ns = (int64_t)(a->delay_s * NSEC_PER_SEC);
	int64_t next = mono_ns() + delay_ns;
	bool paused = false;
	long shown = 1;
	struct screen *scr;
	char *err = NULL;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "loadtop: not a terminal; use -b for plain-text snapshots\n");
		return EXIT_USAGE;
	}
	catch_stop_signals();
	scr = screen_start(getenv("NO_COLOR") == NULL, &err);
	if (scr == NULL) {
		fprintf(stderr, "loadtop: %s\n", err);
		free(err);
		return EXIT_FAILED;
	}
	screen_update(scr, snap);
	while (stop_signal == 0) {
		int64_t now = mono_ns();

		if (now >= next) {
			next += delay_ns;
			if (next <= now)
				next = now + delay_ns;
			if (!paused) {
				read_into(scr, src, snap);
				shown++;
			}
		}
		screen_render(scr);
		if (a->count > 0 && shown >= a->count && !paused)
			break;
		int wait_ms = (int)((next - mono_ns()) / NSEC_PER_MSEC) + 1;
		if (wait_ms > KEY_WAIT_MAX_MS)
			wait_ms = KEY_WAIT_MAX_MS;
		if (wait_ms < 0)
			wait_ms = 0;
		enum screen_action act = screen_wait_key(scr, wait_ms);
		if (act == ACT_QUIT)
			break;
		if (act == ACT_PAUSE) {
			paused = !paused;
			screen_set_paused(scr, paused);
			if (!paused) {
				/* Resuming shows the present at once. */
				read_into(scr, src, snap);
				next = mono_ns() + delay_ns;
			}
		}
	}
	screen_stop(scr);
	return stop_signal ? 128 + stop_signal : 0;
}

int main(int argc, char **argv)
{
	struct args a = { 0 };
	struct snapshot snap = { .current = -1 };
	struct source *src;
	struct stat sb;
	struct db *db;
	char *path, *err = NULL;
	int status;

	setlocale(LC_ALL, "");
	view_utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	log_init("loadtop", 0);
	parse_args(argc, argv, &a);

	path = a.db ? xstrdup(a.db) : db_default_path();
	if (stat(path, &sb) < 0 && errno == ENOENT) {
		fprintf(stderr,
			"loadtop: no database at %s; start a run with loadd --profile quick\n",
			path);
		free(path);
		return EXIT_FAILED;
	}
	db = db_open(path, DB_READONLY, &err);
	if (db == NULL) {
		fprintf(stderr, "loadtop: %s\n", err);
		free(err);
		free(path);
		return EXIT_FAILED;
	}
	src = source_new(db, a.run);
	if (first_read(src, &snap, path, a.run) < 0)
		status = EXIT_FAILED;
	else if (a.batch)
		status = run_batch(src, &snap, &a, path);
	else
		status = run_interactive(src, &snap, &a);

	snapshot_free(&snap);
	source_free(src);
	db_close(db);
	free(path);
	return status;
}
