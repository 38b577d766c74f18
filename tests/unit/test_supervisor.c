// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor driven for real: an event loop, a temp database and work
 * dir, and cpu rings of 2, 8 and 64 members as processes and as threads.
 * Each starts and counts; stopping leaves no process of its group; a member
 * killed from outside brings a restart and stored events; a group frozen
 * with SIGSTOP is flagged stalled, and moves again after SIGCONT. Waits are
 * bounded conditions, never fixed sleeps that decide the outcome. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "db.h"
#include "loader.h"
#include "log.h"
#include "procfs.h"
#include "remove_tree.h"
#include "supervisor.h"
#include "timeutil.h"

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))
/* Generous: a wait this long that is not over is a failure, not slowness. */
#define WAIT_MS 15000

struct fixture {
	char dir[64];
	char workdir[96];
	struct db *db;
	int64_t run_id;
	int64_t phase_id;
	struct event_base *base;
	struct event *sigchld;
	struct supervisor *sv;
};

static void on_sigchld(evutil_socket_t sig, short what, void *arg)
{
	struct fixture *f = arg;

	supervisor_reap(f->sv);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	const char *tmp = getenv("TMPDIR");
	struct run_info ri = {
		.profile_name = "test", .version = "test", .rounds = 1, .pid = getpid()
	};
	char path[128], *err = NULL;

	snprintf(f->dir, sizeof f->dir, "%s/test_sv.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->workdir, sizeof f->workdir, "%s/work", f->dir);
	if (mkdir(f->workdir, 0700) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/loadd.db", f->dir);
	f->db = db_open(path, DB_READWRITE, &err);
	if (f->db == NULL) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	f->run_id = db_run_begin(f->db, &ri, wall_now());
	f->phase_id = db_phase_begin(f->db, f->run_id, 1, 0, "cpu", "warm", "ring", wall_now());
	f->base = event_base_new();
	f->sigchld = evsignal_new(f->base, SIGCHLD, on_sigchld, f);
	event_add(f->sigchld, NULL);
	f->sv = supervisor_new(f->base, f->db, f->run_id, f->workdir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	supervisor_free(f->sv);
	event_free(f->sigchld);
	event_base_free(f->base);
	db_close(f->db);
	remove_tree(f->dir);
	free(f);
	return 0;
}

/* A validated [load NAME] of type cpu with the given keys (NULL-ended). */
static struct load_def *cpu_load(const char *name, const char *const *keys)
{
	struct load_def *def = calloc(1, sizeof *def);
	size_t n = 0;

	while (keys[2 * n] != NULL)
		n++;
	def->name = strdup(name);
	def->type = strdup("cpu");
	def->line = 1;
	def->kvs = calloc(n + 1, sizeof *def->kvs);
	for (size_t i = 0; i < n; i++)
		def->kvs[i] = (struct kv){ .key = (char *)keys[2 * i],
					   .value = (char *)keys[2 * i + 1],
					   .line = 2 + (int)i };
	def->nkv = n;
	assert_int_equal(loader_validate(def, "test.conf", stderr), 0);
	return def;
}

static void cpu_load_free(struct load_def *def)
{
	options_free(def->options, def->config);
	free(def->config);
	free(def->kvs);
	free(def->name);
	free(def->type);
	free(def);
}

static void start(struct fixture *f, const struct load_def *def)
{
	const struct load_def *loads[] = { def };

	assert_int_equal(supervisor_start_phase(f->sv, f->phase_id, loads, 1), 0);
}

static bool status_of(struct fixture *f, const char *name, struct load_status *out)
{
	struct load_status all[8];
	size_t n = supervisor_status(f->sv, all, NCASES(all));

	for (size_t i = 0; i < n; i++) {
		if (strcmp(all[i].name, name) == 0) {
			*out = all[i];
			return true;
		}
	}
	return false;
}

typedef bool (*done_fn)(const struct load_status *st, const void *arg);

/* Runs the event loop in short slices until done() holds for the load, or
 * WAIT_MS pass (a failure). */
static void run_until(struct fixture *f, const char *name, done_fn done, const void *arg,
		      const char *what)
{
	int64_t deadline = mono_ns() + WAIT_MS * NSEC_PER_MSEC;
	struct timeval slice = { 0, 50000 };
	struct load_status st;

	for (;;) {
		if (status_of(f, name, &st) && done(&st, arg))
			return;
		if (mono_ns() > deadline)
			fail_msg("load %s: not %s within %d ms", name, what, WAIT_MS);
		event_base_loopexit(f->base, &slice);
		event_base_dispatch(f->base);
	}
}

static bool cycles_above(const struct load_status *st, const void *arg)
{
	return st->cycles > *(const uint64_t *)arg;
}

static bool restarted(const struct load_status *st, const void *arg)
{
	return st->restarts >= 1 && st->pgid > 0;
}

static bool stalled(const struct load_status *st, const void *arg)
{
	return st->stalled;
}

static bool not_stalled(const struct load_status *st, const void *arg)
{
	return !st->stalled;
}

static void assert_group_gone(pid_t pgid)
{
	errno = 0;
	if (kill(-pgid, 0) == 0 || errno != ESRCH)
		fail_msg("process group %d still exists after stop_all", (int)pgid);
}

static void assert_gone(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 || errno != ENOENT)
		fail_msg("%s still exists", path);
}

/* True when an event of the run matches load, kind and a part of its message. */
static bool has_event(struct fixture *f, const char *load, const char *kind, const char *says)
{
	struct event *ev;
	size_t n;
	bool found = false;

	assert_int_equal(db_events_list(f->db, f->run_id, 0, &ev, &n), 0);
	for (size_t i = 0; i < n && !found; i++) {
		found = ev[i].load != NULL && strcmp(ev[i].load, load) == 0 &&
			strcmp(ev[i].kind, kind) == 0 &&
			(says == NULL || (ev[i].message && strstr(ev[i].message, says)));
	}
	db_events_free(ev, n);
	return found;
}

/* The newest process of the group other than its leader: the ring member
 * forked last. */
static pid_t ring_member_of(pid_t pgid)
{
	DIR *dir = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL) {
		char path[64], buf[1024];
		uint64_t own, children;
		pid_t pgrp, pid = (pid_t)atoi(de->d_name);

		if (pid <= 0 || pid == pgid)
			continue;
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		if (read_small_file(path, buf, sizeof buf) > 0 &&
		    procfs_parse_pid_stat(buf, &pgrp, &own, &children) == 0 && pgrp == pgid &&
		    pid > found)
			found = pid;
	}
	closedir(dir);
	return found;
}

static void test_rings_count_and_stop_clean(void **state)
{
	static const struct {
		const char *procs;
		const char *mode;
	} cases[] = {
		{ "2", "process" }, { "8", "process" }, { "64", "process" },
		{ "2", "thread" },  { "8", "thread" },  { "64", "thread" },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < NCASES(cases); i++) {
		/* One ring (tokens = 1): every member exists before the first trip. */
		const char *keys[] = { "procs",       cases[i].procs, "mode",
				       cases[i].mode, "tokens",       "1",
				       NULL };
		char name[32], *none, dir[160];
		struct load_def *def;
		long procs = atol(cases[i].procs);
		uint64_t some = 3, before;
		struct load_status st;
		pid_t pgid;

		/* A load of its own: counters are per load for the whole run. */
		snprintf(name, sizeof name, "ring%s%s", cases[i].procs, cases[i].mode);
		def = cpu_load(name, keys);
		start(f, def);
		run_until(f, name, cycles_above, &some, "counting trips");
		assert_true(status_of(f, name, &st));
		pgid = st.pgid;
		assert_true(pgid > 0);
		/* Every member has passed the token at least once by now. */
		assert_true(st.ops >= st.cycles);

		/* The whole group is seen: the top and its members, or one process. */
		supervisor_snapshot(f->sv);
		assert_true(status_of(f, name, &st));
		assert_int_equal(st.procs, strcmp(cases[i].mode, "process") == 0 ? procs + 1 : 1);
		assert_false(st.stalled);

		/* A running ring is never reported as stalled in a window: wait
		 * for a trip that starts after the window opened (counted from
		 * the counters read after the mark, not before it). */
		supervisor_mark_window(f->sv);
		assert_true(status_of(f, name, &st));
		before = st.cycles;
		run_until(f, name, cycles_above, &before, "counting on");
		none = supervisor_window_stalled(f->sv);
		assert_null(none);

		snprintf(dir, sizeof dir, "%s/load-%s", f->workdir, name);
		supervisor_stop_all(f->sv);
		assert_group_gone(pgid);
		assert_gone(dir);
		assert_int_equal(supervisor_status(f->sv, &st, 1), 0);
		cpu_load_free(def);
	}
	/* Counters were stored as they went, cumulative over the whole run. */
	{
		struct loader_sample *rows;
		size_t n, counted = 0;

		assert_int_equal(db_loader_samples_list(f->db, f->phase_id, &rows, &n), 0);
		for (size_t i = 0; i < n; i++) {
			bool same = i > 0 && strcmp(rows[i].load, rows[i - 1].load) == 0;

			if (same) {
				assert_true(rows[i].cycles >= rows[i - 1].cycles);
				assert_true(rows[i].ops >= rows[i - 1].ops);
			}
			/* A load's last row is the snapshot taken once it counted. */
			if (i + 1 == n || strcmp(rows[i].load, rows[i + 1].load) != 0) {
				assert_true(rows[i].cycles > 0);
				assert_true(rows[i].ops > 0);
				counted++;
			}
		}
		assert_int_equal(counted, NCASES(cases));
		db_loader_samples_free(rows, n);
	}
	assert_true(has_event(f, "ring8process", "start", "8 processes in a ring, 1 token"));
	assert_true(has_event(f, "ring64thread", "start", "64 threads in a ring, 1 token"));
}

static void test_killed_member_restarts(void **state)
{
	static const char *const keys[] = { "procs", "8", NULL };
	struct fixture *f = *state;
	struct load_def *def = cpu_load("victim", keys);
	uint64_t some = 3, at_restart;
	struct load_status st;
	pid_t first_pgid, member;
	char killed[64];

	start(f, def);
	run_until(f, "victim", cycles_above, &some, "counting trips");
	assert_true(status_of(f, "victim", &st));
	first_pgid = st.pgid;
	member = ring_member_of(first_pgid);
	assert_true(member > 0);
	assert_int_equal(kill(member, SIGKILL), 0);

	run_until(f, "victim", restarted, NULL, "restarted");
	assert_true(status_of(f, "victim", &st));
	assert_int_not_equal(st.pgid, first_pgid);
	at_restart = st.cycles;
	run_until(f, "victim", cycles_above, &at_restart, "counting after its restart");

	/* The loader named the member killed (not a neighbour that left after
	 * it); the supervisor said how its top ended and that it came back. */
	snprintf(killed, sizeof killed, "(pid %d) was killed by signal KILL", (int)member);
	assert_true(has_event(f, "victim", "error", killed));
	assert_true(has_event(f, "victim", "exit", "exited with status 1"));
	assert_true(has_event(f, "victim", "restart", "restart 1"));
	supervisor_stop_all(f->sv);
	assert_group_gone(st.pgid);
	assert_group_gone(first_pgid);
	cpu_load_free(def);
}

static void test_frozen_load_is_stalled(void **state)
{
	static const char *const keys[] = { "procs", "4", "stall", "1s", NULL };
	struct fixture *f = *state;
	struct load_def *def = cpu_load("frozen", keys);
	const struct timespec settle = { 0, 100 * NSEC_PER_MSEC };
	uint64_t some = 3, before;
	struct load_status st;
	char *names;
	pid_t pgid;

	start(f, def);
	run_until(f, "frozen", cycles_above, &some, "counting trips");
	assert_true(status_of(f, "frozen", &st));
	pgid = st.pgid;
	assert_int_equal(kill(-pgid, SIGSTOP), 0);
	/* Counts a member had not yet added are added before it stops, or
	 * never; either way the counters stop moving. */
	nanosleep(&settle, NULL);
	supervisor_mark_window(f->sv);

	run_until(f, "frozen", stalled, NULL, "flagged stalled");
	assert_true(has_event(f, "frozen", "stall", "no progress for"));
	names = supervisor_window_stalled(f->sv);
	assert_non_null(names);
	assert_string_equal(names, "frozen");
	free(names);

	assert_int_equal(kill(-pgid, SIGCONT), 0);
	assert_true(status_of(f, "frozen", &st));
	before = st.cycles;
	run_until(f, "frozen", cycles_above, &before, "counting after SIGCONT");
	run_until(f, "frozen", not_stalled, NULL, "cleared of its stall");
	assert_true(has_event(f, "frozen", "progress", NULL));
	/* Frozen is not dead: nothing was restarted. */
	assert_true(status_of(f, "frozen", &st));
	assert_int_equal(st.restarts, 0);
	assert_int_equal(st.pgid, pgid);

	supervisor_stop_all(f->sv);
	assert_group_gone(pgid);
	cpu_load_free(def);
}

/* A group frozen when the stop comes still goes: SIGCONT follows SIGTERM. */
static void test_stop_of_frozen_group(void **state)
{
	static const char *const keys[] = { "procs", "3", NULL };
	struct fixture *f = *state;
	struct load_def *def = cpu_load("ice", keys);
	uint64_t some = 1;
	struct load_status st;

	start(f, def);
	run_until(f, "ice", cycles_above, &some, "counting trips");
	assert_true(status_of(f, "ice", &st));
	assert_int_equal(kill(-st.pgid, SIGSTOP), 0);
	supervisor_stop_all(f->sv);
	assert_group_gone(st.pgid);
	assert_false(has_event(f, "ice", "exit", NULL));
	assert_false(has_event(f, "ice", "signal", NULL));
	cpu_load_free(def);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rings_count_and_stop_clean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_member_restarts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frozen_load_is_stalled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_of_frozen_group, setup, teardown),
	};

	log_init("test_supervisor", 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
