// SPDX-License-Identifier: GPL-2.0-or-later
/* The timed job and the prober thread. Checks outcomes and the structure
 * of what the prober delivers (counts, order, DONE records), never tight
 * timings: the machine may be busy. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "probe.h"
#include "probe_study.h"
#include "profile.h"
#include "timeutil.h"
#include "xalloc.h"

#define MISSING_COMMAND "loadd-test-no-such-command"

static void test_job_outcomes(void **state)
{
	static const struct {
		const char *argv[4];
		int64_t timeout_ms;
		int exit_code;
		bool failed;
	} cases[] = {
		{ { "true" }, 0, 0, false },
		{ { "false" }, 0, 1, true },
		{ { "sh", "-c", "exit 3" }, 0, 3, true },
		{ { "sh", "-c", "kill -9 $$" }, 0, 128 + 9, true },
		{ { "sh", "-c", "kill -TERM $$" }, 0, 128 + 15, true },
		/* 1 MiB on stdout and on stderr: drained, so the job completes */
		{ { "sh", "-c", "head -c 1048576 /dev/zero; head -c 1048576 /dev/zero >&2" },
		  30000,
		  0,
		  false },
		/* stdin is /dev/null: cat ends at once with nothing */
		{ { "sh", "-c", "test -z \"$(cat)\"" }, 30000, 0, false },
		/* past its timeout: SIGKILL */
		{ { "sleep", "5" }, 200, 128 + 9, true },
		/* the whole process group is killed, or sleep would hold the pipe */
		{ { "sh", "-c", "sleep 5; true" }, 200, 128 + 9, true },
		/* a job that closed its output is still bound by the timeout */
		{ { "sh", "-c", "exec >/dev/null 2>&1; sleep 5" }, 200, 128 + 9, true },
		/* a job that never stops writing is too: the pipe never runs dry */
		{ { "yes" }, 200, 128 + 9, true },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sample s = { .phase_id = 42, .seq = 7, .missed = 3 };
		char *err = NULL;
		double before = wall_now();

		if (probe_job_run((char *const *)cases[i].argv, false, cases[i].timeout_ms, &s,
				  &err) != 0)
			fail_msg("%s: %s", cases[i].argv[0], err);
		if (s.exit_code != cases[i].exit_code)
			fail_msg("case %zu (%s): exit %d, want %d", i,
				 cases[i].argv[2] ? cases[i].argv[2] : cases[i].argv[0],
				 s.exit_code, cases[i].exit_code);
		assert_int_equal(s.failed, cases[i].failed);
		assert_true(s.wall_ms > 0);
		assert_true(s.user_ms >= 0 && s.sys_ms >= 0 && s.cpu_pct >= 0);
		assert_true(s.started_at >= before - 1);
		/* a timed-out job does not run to its end (5 s) */
		if (cases[i].timeout_ms == 200)
			assert_true(s.wall_ms < 4000);
		/* fields that are the caller's stay untouched */
		assert_int_equal(s.phase_id, 42);
		assert_int_equal(s.seq, 7);
		assert_int_equal(s.missed, 3);
	}
}

static void test_job_cannot_run(void **state)
{
	static const struct {
		const char *argv[2];
		const char *msg;
	} cases[] = {
		{ { MISSING_COMMAND },
		  "cannot run '" MISSING_COMMAND "': No such file or directory" },
		{ { "/nonexistent/dir/job" },
		  "cannot run '/nonexistent/dir/job': No such file or directory" },
		{ { "/dev/null" }, "cannot run '/dev/null': Permission denied" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sample s = { 0 };
		char *err = NULL;

		assert_int_equal(probe_job_run((char *const *)cases[i].argv, false, 0, &s, &err),
				 -1);
		assert_non_null(err);
		assert_string_equal(err, cases[i].msg);
		assert_true(s.failed);
		assert_int_equal(s.exit_code, -1);
		free(err);
	}
}

/* The job starts clean: no signal blocked or ignored, none of our fds. */
static void test_job_inherits_nothing(void **state)
{
	sigset_t block, old;
	char script[512];
	struct sample s = { 0 };
	char *err = NULL;
	int leak = open("/dev/null", O_RDONLY); /* no O_CLOEXEC on purpose */
	const char *argv[] = { "sh", "-c", script, NULL };

	assert_true(leak >= 0);
	/* glibc before 2.37 leaves its internal signals 32 and 33 ignored in
	 * a posix_spawn child: only the standard ones are checked there. */
	snprintf(script, sizeof script,
		 "blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/$$/status) && "
		 "ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status) && "
		 "test $((0x$blk)) -eq 0 && test $((0x$ign & 0x7fffffff)) -eq 0 && "
		 "test ! -e /proc/$$/fd/%d",
		 leak);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGUSR2, SIG_IGN);

	assert_int_equal(probe_job_run((char *const *)argv, false, 10000, &s, &err), 0);
	assert_int_equal(s.exit_code, 0);
	assert_false(s.failed);

	signal(SIGUSR2, SIG_DFL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(leak);
}

static void test_drop_page_cache(void **state)
{
	if (drop_page_cache() == 0)
		return;
	/* not root, or a read-only /proc/sys: the caller explains */
	assert_true(errno == EACCES || errno == EPERM || errno == EROFS);
	assert_true(geteuid() != 0 || errno == EROFS);
}

/* Reads one record; fails the test when none comes within timeout_ms. */
static void read_record(int fd, struct sample *s, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct probe_msg m;
	ssize_t n;

	if (poll(&pfd, 1, timeout_ms) != 1)
		fail_msg("no record from the prober within %d ms", timeout_ms);
	n = read(fd, &m, sizeof m);
	assert_int_equal(n, sizeof m);
	assert_int_equal(m.probe, 3);
	assert_int_equal(m.kind, m.s.seq == PROBE_PHASE_DONE ? PROBE_MSG_DONE : PROBE_MSG_SAMPLE);
	*s = m.s;
}

/* The job probe's config, kept until the prober stops. */
static struct probe_def job_config;

static struct prober *start_job(const char *const *argv, int64_t every_ms, int fd)
{
	static const struct probe_env env = { .name = "job" };

	job_config = (struct probe_def){ .job = "test job",
					 .argv = (char **)argv,
					 .every_ms = every_ms };
	return prober_start(probe_find("job"), &job_config, &env, 3, fd);
}

static void begin(struct prober *p, int64_t phase_id, int64_t start, int64_t end)
{
	struct probe_window w = { .phase_id = phase_id, .start_ns = start, .end_ns = end };

	prober_begin_phase(p, &w);
}

struct phase_result {
	int64_t samples;
	int64_t missed; /* sum over samples and the DONE record */
	int64_t max_missed;
	int64_t failed;
};

/* Reads a phase's samples up to its DONE record and checks their order:
 * each seq is the previous one plus one plus the slots it missed. */
static struct phase_result read_phase(int fd, int64_t phase_id)
{
	struct phase_result r = { 0 };
	int64_t expect_seq = 0;

	for (;;) {
		struct sample s;

		read_record(fd, &s, 20000);
		assert_int_equal(s.phase_id, phase_id);
		r.missed += s.missed;
		if (s.seq == PROBE_PHASE_DONE)
			return r;
		assert_int_equal(s.seq, expect_seq + s.missed);
		expect_seq = s.seq + 1;
		r.samples++;
		if (s.missed > r.max_missed)
			r.max_missed = s.missed;
		if (s.failed)
			r.failed++;
	}
}

static int make_pipe(int fds[2])
{
	return pipe2(fds, O_CLOEXEC);
}

static void test_prober_schedule(void **state)
{
	const char *argv[] = { "true", NULL };
	struct phase_result r;
	int fds[2];
	struct prober *p;
	int64_t start;

	assert_int_equal(make_pipe(fds), 0);
	p = start_job(argv, 50, fds[1]);
	assert_non_null(p);

	/* 500 ms in slots of 50 ms: 10 slots, each run or counted missed */
	start = mono_ns() + 20 * NSEC_PER_MSEC;
	begin(p, 7, start, start + 500 * NSEC_PER_MSEC);
	r = read_phase(fds[0], 7);
	assert_int_equal(r.samples + r.missed, 10);
	assert_true(r.samples >= 1);
	assert_int_equal(r.failed, 0);

	/* the thread serves the next phase too; a window of 120 ms in 50 ms
	 * slots has 3 */
	start = mono_ns();
	begin(p, 8, start, start + 120 * NSEC_PER_MSEC);
	r = read_phase(fds[0], 8);
	assert_int_equal(r.samples + r.missed, 3);

	/* an empty window: just the DONE record */
	start = mono_ns();
	begin(p, 9, start, start);
	r = read_phase(fds[0], 9);
	assert_int_equal(r.samples, 0);
	assert_int_equal(r.missed, 0);

	prober_stop(p);
	close(fds[0]);
	close(fds[1]);
}

static void test_prober_overrun(void **state)
{
	const char *argv[] = { "sleep", "0.12", NULL };
	struct phase_result r;
	int fds[2];
	struct prober *p;
	int64_t start;

	assert_int_equal(make_pipe(fds), 0);
	p = start_job(argv, 50, fds[1]);
	assert_non_null(p);
	start = mono_ns();
	begin(p, 3, start, start + 500 * NSEC_PER_MSEC);
	r = read_phase(fds[0], 3);
	/* a 120 ms job in 50 ms slots skips at least two slots each time */
	assert_true(r.max_missed >= 2);
	assert_true(r.samples <= 4);
	assert_int_equal(r.samples + r.missed, 10);
	prober_stop(p);
	close(fds[0]);
	close(fds[1]);
}

/* A new phase replaces one still running: the old one is closed with its
 * DONE record first, so the main loop never waits for it. */
static void test_prober_replace_phase(void **state)
{
	const char *argv[] = { "true", NULL };
	struct phase_result r;
	struct sample s;
	int fds[2];
	struct prober *p;
	int64_t start = mono_ns();

	assert_int_equal(make_pipe(fds), 0);
	p = start_job(argv, 50, fds[1]);
	assert_non_null(p);
	begin(p, 1, start, start + 60 * NSEC_PER_SEC);
	read_record(fds[0], &s, 20000);
	assert_int_equal(s.phase_id, 1);
	assert_int_equal(s.seq, 0);

	start = mono_ns();
	begin(p, 2, start, start + 100 * NSEC_PER_MSEC);
	do {
		read_record(fds[0], &s, 20000);
		assert_int_equal(s.phase_id, 1);
	} while (s.seq != PROBE_PHASE_DONE);
	r = read_phase(fds[0], 2);
	assert_int_equal(r.samples + r.missed, 2);
	prober_stop(p);
	close(fds[0]);
	close(fds[1]);
}

/* prober_stop kills the running job and delivers nothing more. */
static void test_prober_stop_kills_job(void **state)
{
	char dir[] = "/tmp/loadd-probe-test.XXXXXX", pidfile[64], script[256];
	const char *argv[] = { "sh", "-c", script, NULL };
	struct pollfd pfd;
	int fds[2], tries;
	struct prober *p;
	FILE *fp;
	int job = 0;
	int64_t start;

	assert_non_null(mkdtemp(dir));
	snprintf(pidfile, sizeof pidfile, "%s/pid", dir);
	snprintf(script, sizeof script, "echo $$ > %s.tmp && mv %s.tmp %s && exec sleep 60",
		 pidfile, pidfile, pidfile);
	assert_int_equal(make_pipe(fds), 0);
	p = start_job(argv, 1000, fds[1]);
	assert_non_null(p);
	start = mono_ns();
	begin(p, 5, start, start + 60 * NSEC_PER_SEC);

	for (tries = 0; tries < 2000 && job <= 0; tries++) {
		fp = fopen(pidfile, "r");
		if (fp) {
			if (fscanf(fp, "%d", &job) != 1)
				job = 0;
			fclose(fp);
		}
		if (job <= 0)
			usleep(10000);
	}
	assert_true(job > 0);
	assert_int_equal(kill(job, 0), 0);

	prober_stop(p);
	/* killed and reaped by the prober: the pid no longer exists */
	assert_int_equal(kill(job, 0), -1);
	assert_int_equal(errno, ESRCH);
	/* no sample and no DONE for a stopped phase */
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 0), 0);

	unlink(pidfile);
	rmdir(dir);
	close(fds[0]);
	close(fds[1]);
}

static void test_prober_failures(void **state)
{
	const char *argv[] = { MISSING_COMMAND, NULL };
	struct phase_result r;
	int fds[2];
	struct prober *p;
	int64_t start;

	/* stopping an idle prober */
	assert_int_equal(make_pipe(fds), 0);
	p = start_job(argv, 50, fds[1]);
	assert_non_null(p);
	prober_stop(p);
	prober_stop(NULL);

	/* a job that cannot start gives failed samples, not silence */
	p = start_job(argv, 50, fds[1]);
	start = mono_ns();
	begin(p, 4, start, start + 150 * NSEC_PER_MSEC);
	r = read_phase(fds[0], 4);
	assert_true(r.samples >= 1);
	assert_int_equal(r.failed, r.samples);
	assert_int_equal(r.samples + r.missed, 3);
	prober_stop(p);
	close(fds[0]);
	close(fds[1]);
}

/* The primitive probes declare study tables, and the table check accepts
 * every declaration (a label naming no option would be fatal). */
static void test_study_kinds(void **state)
{
	static const char *const want[] = { "spawn", "ctxswitch", "switchcost", "ipclat" };
	const struct study_kind *kinds = probe_study_kinds();

	(void)state;
	probe_table_check();
	for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
		const struct study_kind *k = kinds;

		while (k->type != NULL && strcmp(k->type, want[w]) != 0)
			k++;
		assert_non_null(k->type);
		assert_non_null(k->places[0].table);
		assert_ptr_equal(k->options, probe_find(want[w])->options);
	}
}

/* The wakeup probe's timer slack: its forms and range, and the thread
 * setup that applies it and gives back what the thread had. */
static long wakeup_slack_of(const char *value, bool *ok)
{
	const struct probe_ops *ops = probe_find("wakeup");
	const struct option_def *opt = options_find(ops->options, "slack");
	struct kv kv = { .key = "slack", .value = (char *)value, .line = 3 };
	char *cfg = xcalloc(1, ops->config_size);
	char *errs = NULL;
	size_t errs_len = 0;
	FILE *fp = open_memstream(&errs, &errs_len);
	long ns;

	assert_non_null(opt);
	*ok = options_apply(ops->options, cfg, &kv, value ? 1 : 0, "t.conf", "probe w", fp) == 0;
	fclose(fp);
	memcpy(&ns, cfg + opt->offset, sizeof ns);
	options_free(ops->options, cfg);
	free(cfg);
	free(errs);
	return ns;
}

static void test_wakeup_slack(void **state)
{
	static const struct {
		const char *in;
		long ns; /* -1: refused */
	} cases[] = {
		{ NULL, 50000 }, /* the default: Linux's */
		{ "1ns", 1 },    { "20us", 20000 }, { "2ms", 2000000 }, { "100ms", 100000000 },
		{ "0ns", -1 },   { "101ms", -1 },   { "1s", -1 },       { "5", -1 },
		{ "-1us", -1 },  { "1.5us", -1 },   { "us", -1 },       { "1 us", -1 },
	};
	long before, old;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool ok;
		long ns = wakeup_slack_of(cases[i].in, &ok);

		if (ok != (cases[i].ns >= 0) || (ok && ns != cases[i].ns))
			fail_msg("slack = %s: %s %ld", cases[i].in ? cases[i].in : "(default)",
				 ok ? "gave" : "refused", ns);
	}

	before = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	old = probe_wakeup_set_slack(1234);
	assert_int_equal(old, before);
	assert_int_equal(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), 1234);
	assert_int_equal(probe_wakeup_set_slack(old), 1234);
	assert_int_equal(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), before);
}

/* The fsync probe lays its file out before the first slot, as fio does, so
 * every timed write overwrites blocks already on disk; close removes it. */
static off_t fsync_file_size(const char *size)
{
	const struct probe_ops *ops = probe_find("fsync");
	struct kv kv = { .key = "size", .value = (char *)size, .line = 3 };
	char dir[] = "/tmp/loadd-fsync-XXXXXX";
	struct probe_env env = { .name = "save" };
	char *cfg = xcalloc(1, ops->config_size);
	char *path, *err = NULL;
	struct stat st, gone;
	void *probe;

	assert_non_null(mkdtemp(dir));
	env.workdir = dir;
	assert_int_equal(options_apply(ops->options, cfg, &kv, 1, "t.conf", "probe save", stderr),
			 0);
	probe = ops->open(cfg, &env, &err);
	assert_non_null(probe);
	path = xasprintf("%s/probe-save/state", dir);
	assert_int_equal(stat(path, &st), 0);
	ops->close(probe);
	assert_int_equal(stat(path, &gone), -1);
	assert_int_equal(rmdir(dir), 0);
	free(path);
	options_free(ops->options, cfg);
	free(cfg);
	return st.st_size;
}

static void test_fsync_lays_out(void **state)
{
	(void)state;
	assert_int_equal(fsync_file_size("4K"), 1 << 20);
	assert_int_equal(fsync_file_size("3000"), 349 * 3000); /* whole writes only */
	assert_int_equal(fsync_file_size("2M"), 2 << 20);      /* one write, larger */
}

/* ---- a kind that is only its measure (probe_ops.measure) ---- */

struct slot_kind_config {
	struct probe_every every;
};

/* clang-format off */
static const struct option_def slot_kind_options[] = {
	PROBE_EVERY_OPTION(struct slot_kind_config, "spin"),
	{ NULL },
};
/* clang-format on */

/* Spins 2 ms, leaving the timing to the prober; the histogram kind counts
 * three values. */
static int slot_kind_measure(const void *config, void *state, const struct probe_window *w,
			     int stop_fd, struct sample *s, struct hist *h, char **err)
{
	int64_t until = mono_ns() + 2 * NSEC_PER_MSEC;

	while (mono_ns() < until)
		;
	for (int i = 0; h != NULL && i < 3; i++)
		hist_add(h, 1000);
	return 0;
}

static const struct probe_ops slot_kind_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "spin",
	.summary = "spins",
	.options = slot_kind_options,
	.config_size = sizeof(struct slot_kind_config),
	.units = "ms",
	.measure = slot_kind_measure,
};

/* The prober stamps and times each call, and hands over a histogram kind's
 * histogram instead of its sample. */
static void test_prober_measure_kind(void **state)
{
	static const struct probe_env env = { .name = "spin" };
	struct probe_ops hist_ops = slot_kind_ops;
	struct slot_kind_config cfg = { { 50 } };
	const struct probe_ops *kinds[] = { &slot_kind_ops, &hist_ops };
	int fds[2];

	hist_ops.histogram = true;
	assert_int_equal(make_pipe(fds), 0);
	for (size_t k = 0; k < 2; k++) {
		struct prober *p = prober_start(kinds[k], &cfg, &env, 3, fds[1]);
		int64_t start = mono_ns();
		double before = wall_now();
		struct probe_msg m;

		begin(p, 5, start, start + 100 * NSEC_PER_MSEC);
		do {
			assert_int_equal(read(fds[0], &m, sizeof m), sizeof m);
			if (m.kind == PROBE_MSG_SAMPLE) {
				assert_false(kinds[k]->histogram);
				assert_true(m.s.wall_ms >= 2.0 && m.s.value == m.s.wall_ms);
				assert_true(m.s.started_at >= before - 1);
			} else if (m.kind == PROBE_MSG_HIST) {
				assert_true(kinds[k]->histogram);
				assert_int_equal(m.hist->count, 3);
				free(m.hist);
			}
		} while (m.kind != PROBE_MSG_DONE);
		prober_stop(p);
	}
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_outcomes),
		cmocka_unit_test(test_job_cannot_run),
		cmocka_unit_test(test_job_inherits_nothing),
		cmocka_unit_test(test_drop_page_cache),
		cmocka_unit_test(test_prober_schedule),
		cmocka_unit_test(test_prober_overrun),
		cmocka_unit_test(test_prober_replace_phase),
		cmocka_unit_test(test_prober_stop_kills_job),
		cmocka_unit_test(test_prober_failures),
		cmocka_unit_test(test_study_kinds),
		cmocka_unit_test(test_wakeup_slack),
		cmocka_unit_test(test_fsync_lays_out),
		cmocka_unit_test(test_prober_measure_kind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
