// SPDX-License-Identifier: GPL-2.0-or-later
/* The job probe: times a command (ls -R over the generated tree by default)
 * on a fixed schedule, its output drained as a terminal would. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "parse.h"
#include "profile.h"
#include "run_user.h"
#include "timeutil.h"
#include "xalloc.h"

/* The job's output is read as a terminal would take it, in large gulps. */
#define DRAIN_BUF_LEN (64 * 1024)

enum job_end {
	JOB_EXITED,  /* ran to its end (any status) */
	JOB_TIMEOUT, /* killed at its deadline */
	JOB_STOPPED, /* killed because the prober is stopping */
};

int drop_page_cache(void)
{
	ssize_t n;
	int fd, saved;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, "3", 1);
	saved = errno;
	close(fd);
	if (n != 1) {
		errno = n < 0 ? saved : EIO;
		return -1;
	}
	return 0;
}

static double tv_ms(struct timeval tv)
{
	return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

/* Milliseconds poll() may sleep before the deadline (0: none, -1 forever). */
static int poll_wait_ms(int64_t deadline)
{
	int64_t left;

	if (deadline == 0)
		return -1;
	left = deadline - mono_ns();
	if (left <= 0)
		return 0;
	left = (left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
	return left > INT_MAX ? INT_MAX : (int)left;
}

/* Reads the job's output until EOF, its deadline or a stop request. The
 * pipe is read dry before sleeping in poll(): on a VM a poll() that sleeps
 * costs several times the read, and a job like ls -R writes hundreds of
 * 4 KiB blocks, so polling only when nothing is there keeps the probe's own
 * CPU use (which competes with the job) down. */
static enum job_end drain(int fd, int64_t deadline, int stop_fd)
{
	struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN },
				 { .fd = stop_fd, .events = POLLIN } };
	nfds_t nfds = stop_fd >= 0 ? 2 : 1;
	char buf[DRAIN_BUF_LEN];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		int wait;

		if (n == 0)
			return JOB_EXITED; /* EOF: every writer has closed its end */
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return JOB_EXITED; /* cannot happen; wait4 still collects the job */
		wait = poll_wait_ms(deadline);
		if (wait == 0)
			return JOB_TIMEOUT;
		if (n > 0)
			continue;
		if (poll(pfd, nfds, wait) < 0 && errno != EINTR)
			return JOB_EXITED;
		if (nfds == 2 && pfd[1].revents)
			return JOB_STOPPED;
	}
}

/* After EOF a job may still run (it closed its output): wait for its exit
 * within the deadline, watching for a stop request. Without either, the
 * caller's blocking wait4 does the waiting. */
static enum job_end wait_exit(pid_t pid, int64_t deadline, int stop_fd)
{
	struct pollfd pfd[2] = { { .events = POLLIN }, { .fd = stop_fd, .events = POLLIN } };
	nfds_t nfds = stop_fd >= 0 ? 2 : 1;
	enum job_end end = JOB_EXITED;

	if (deadline == 0 && stop_fd < 0)
		return JOB_EXITED;
	pfd[0].fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd[0].fd < 0)
		return JOB_EXITED; /* kernel before 5.3: wait4 blocks */
	for (;;) {
		int wait = poll_wait_ms(deadline), n;

		if (wait == 0) {
			end = JOB_TIMEOUT;
			break;
		}
		n = poll(pfd, nfds, wait);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0 && nfds == 2 && pfd[1].revents)
			end = JOB_STOPPED;
		if (n != 0)
			break;
	}
	close(pfd[0].fd);
	return end;
}

static void sample_from_status(struct sample *s, int status, const struct rusage *ru, int64_t t0,
			       int64_t t1)
{
	s->wall_ms = (double)(t1 - t0) / NSEC_PER_MSEC;
	s->user_ms = tv_ms(ru->ru_utime);
	s->sys_ms = tv_ms(ru->ru_stime);
	s->cpu_pct = s->wall_ms > 0 ? (s->user_ms + s->sys_ms) / s->wall_ms * 100.0 : 0;
	s->nvcsw = ru->ru_nvcsw;
	s->nivcsw = ru->ru_nivcsw;
	if (WIFEXITED(status))
		s->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		s->exit_code = 128 + WTERMSIG(status);
	else
		s->exit_code = -1;
	s->failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

static void sample_not_run(struct sample *s)
{
	s->wall_ms = s->user_ms = s->sys_ms = s->cpu_pct = 0;
	s->nvcsw = s->nivcsw = 0;
	s->exit_code = -1;
	s->failed = true;
}

/* Starts the job: stdin from /dev/null, stdout and stderr into out_fd,
 * nothing else of ours; default signal handling and an empty mask (the
 * calling thread blocks everything); its own process group so a timeout
 * kills every process it started; as the run's unprivileged user
 * (run_user.h); and killed if loadd dies (posix_spawn cannot ask for
 * that). The vfork child makes only system calls until it
 * execs. Returns 0, or an errno value. */
static int job_spawn(char *const argv[], int out_fd, pid_t *pidp)
{
	pid_t parent = getpid(), pid;
	volatile int child_errno = 0;

	pid = vfork();
	if (pid < 0) {
		int e = errno;

		return e != 0 ? e : EAGAIN;
	}
	if (pid == 0) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigset_t none;
		int null;

		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				sigaction(sig, &dfl, NULL);
		/* The run's user first: a change of user clears the
		 * parent-death signal. */
		if (setpgid(0, 0) < 0 || run_user_enter() < 0 ||
		    prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			goto fail;
		null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
			goto fail;
		if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
			for (int fd = 3; fd < 1024; fd++)
				close(fd);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvp(argv[0], argv);
	fail:
		child_errno = errno != 0 ? errno : ECHILD;
		_exit(127);
	}
	if (child_errno != 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return child_errno;
	}
	*pidp = pid;
	return 0;
}

/* Runs one job; stop_fd (or -1) readable means "kill it and give up".
 * Returns 0 with s filled, -1 when the job could not run (s->failed, *err),
 * or 1 when stopped (s is not meaningful). */
int probe_job_exec(char *const argv[], bool drop_cache, int64_t timeout_ms, int stop_fd,
		   struct sample *s, char **err)
{
	enum job_end end;
	struct rusage ru;
	int64_t t0, t1, deadline;
	int pipefd[2], status = 0, rc;
	pid_t pid;

	s->started_at = wall_now();
	sample_not_run(s);
	if (drop_cache && drop_page_cache() < 0) {
		*err = xasprintf("cannot drop the page cache for a cold-cache job: %s "
				 "(cache = cold needs root)",
				 strerror(errno));
		return -1;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		*err = xasprintf("cannot make a pipe for the job: %s", strerror(errno));
		return -1;
	}
	/* Our end only: the job's writes must block on a full pipe, as on a
	 * terminal. */
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);

	s->started_at = wall_now();
	t0 = mono_ns();
	rc = job_spawn(argv, pipefd[1], &pid);
	if (rc != 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		*err = xasprintf("cannot run '%s': %s", argv[0], strerror(rc));
		return -1;
	}
	close(pipefd[1]);
	deadline = timeout_ms > 0 ? t0 + timeout_ms * NSEC_PER_MSEC : 0;
	end = drain(pipefd[0], deadline, stop_fd);
	if (end == JOB_EXITED)
		end = wait_exit(pid, deadline, stop_fd);
	if (end != JOB_EXITED)
		kill(-pid, SIGKILL);
	while ((rc = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
		;
	t1 = mono_ns();

	close(pipefd[0]);
	if (end == JOB_STOPPED)
		return 1;
	if (rc < 0) {
		/* Someone else reaped it (SIGCHLD ignored, or a waitpid(-1)). */
		*err = xasprintf("cannot collect '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	sample_from_status(s, status, &ru, t0, t1);
	if (end == JOB_TIMEOUT)
		s->failed = true;
	return 0;
}

int probe_job_run(char *const argv[], bool drop_cache, int64_t timeout_ms, struct sample *s,
		  char **err)
{
	int rc = probe_job_exec(argv, drop_cache, timeout_ms, -1, s, err);

	return rc < 0 ? -1 : 0;
}

/* ---- the probe kind ---- */

struct job_state {
	char **argv; /* {tree} replaced */
	int64_t timeout_ms;
	int64_t every_ms;
};

/* Replaces {tree} in every word of the job with the tree's path. */
static char **job_argv(char *const *words, const char *tree)
{
	size_t n = 0;
	char **argv;

	while (words[n] != NULL)
		n++;
	argv = xcalloc(n + 1, sizeof *argv);
	for (size_t i = 0; i < n; i++) {
		const char *w = words[i];
		const char *at = tree ? strstr(w, "{tree}") : NULL;

		argv[i] = at == NULL ? xstrdup(w)
				     : xasprintf("%.*s%s%s", (int)(at - w), w, tree, at + 6);
	}
	return argv;
}

static void *job_open(const void *config, const struct probe_env *env, char **err)
{
	const struct probe_def *def = config;
	struct job_state *st = xcalloc(1, sizeof *st);

	st->argv = job_argv(def->argv, env->tree_path);
	st->timeout_ms = def->timeout_ms;
	st->every_ms = def->every_ms;
	return st;
}

static int job_measure(void *state, const struct probe_window *w, int stop_fd, struct sample *s,
		       char **err)
{
	struct job_state *st = state;

	return probe_job_exec(st->argv, w->cold, st->timeout_ms, stop_fd, s, err);
}

static void job_run_window(void *state, struct probe_ctx *c, const struct probe_window *w)
{
	struct job_state *st = state;

	probe_run_slots(c, w, st->every_ms, job_measure, st);
}

static void job_close(void *state)
{
	struct job_state *st = state;

	argv_free(st->argv);
	free(st);
}

static void job_describe(const void *config, char *buf, size_t len)
{
	const struct probe_def *def = config;
	char every[32];

	format_ms(def->every_ms, every, sizeof every);
	snprintf(buf, len, "'%s' every %s", def->job, every);
}

const struct probe_ops probe_job_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "job",
	.summary = "times a command (ls -R over the generated tree) on a fixed schedule, "
		   "output drained as a terminal would; cache = cold drops the page cache first",
	.options = probe_options,
	.config_size = sizeof(struct probe_def),
	.units = "ms",
	.open = job_open,
	.run = job_run_window,
	.close = job_close,
	.describe = job_describe,
};
