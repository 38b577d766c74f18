// SPDX-License-Identifier: GPL-2.0-or-later
/* The spawn probe: what creating and ending a thread or process costs, as
 * lmbench's lat_proc (fork, exec) and the threads study's lat_thread measure
 * it. Each sample times `count` create + destroy pairs in one mode:
 *   thread  pthread_create of a thread that returns at once + pthread_join;
 *   fork    fork, the child _exits at once, waitpid;
 *   exec    fork, the child execs loadd-spawn-helper (a program that only
 *           exits), waitpid.
 * The figure is us per pair.
 *
 * A fork copies the page tables of the process that forks, so who forks is
 * half the figure. With from = helper (the default) the pairs are made by
 * loadd-fork-server, a small process the probe starts and asks for each
 * sample, which times its own loop as lat_proc times its own: the figure
 * lat_proc gives. With from = daemon the prober's thread makes them in loadd
 * itself: what a process of loadd's size (and, in a sanitizer build, its
 * instrumented thread start) pays.
 * Children are waited for by PID, never with waitpid(-1), so the daemon's
 * own children are not disturbed. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timeutil.h"
#include "xalloc.h"

extern char **environ;

#define SPAWN_HELPER "loadd-spawn-helper"
#define FORK_SERVER "loadd-fork-server"

enum spawn_mode { SPAWN_THREAD, SPAWN_FORK, SPAWN_EXEC };
enum spawn_from { FROM_HELPER, FROM_DAEMON };

static const char *const spawn_modes[] = { "thread", "fork", "exec", NULL };
static const char *const spawn_froms[] = { "helper", "daemon", NULL };

struct spawn_config {
	int64_t every_ms;
	int mode;
	long count;
	int from;
};

/* clang-format off */
static const struct option_def spawn_options[] = {
	{ "every", OPT_DURATION, offsetof(struct spawn_config, every_ms), "1s", 10, 3600000,
	  NULL, NULL, "one sample of `count` pairs per slot of this length; missed slots are counted" },
	{ "mode", OPT_ENUM, offsetof(struct spawn_config, mode), "fork", 0, 0, spawn_modes,
	  NULL,
	  "thread: pthread_create + pthread_join of a null thread; fork: fork + _exit + "
	  "waitpid; exec: fork + execve of " SPAWN_HELPER " + waitpid" },
	{ "count", OPT_INT, offsetof(struct spawn_config, count), "50", 1, 100000, NULL, NULL,
	  "create + destroy pairs timed together in one sample" },
	{ "from", OPT_ENUM, offsetof(struct spawn_config, from), "helper", 0, 0, spawn_froms,
	  NULL,
	  "who creates: helper: " FORK_SERVER ", a small process, as lmbench's lat_proc; "
	  "daemon: loadd itself, whose page tables each fork copies" },
	{ NULL },
};
/* clang-format on */

/* The fork server, while it runs: requests go to req, replies come on rep. */
struct fork_server {
	pid_t pid; /* 0: not running */
	int req, rep;
};

struct spawn_state {
	int mode;
	int from;
	long count;
	int64_t every_ms;
	char *helper; /* mode exec */
	char *server; /* from helper */
	struct fork_server fs;
};

static void *null_thread(void *arg)
{
	return arg;
}

static int one_thread(char **err)
{
	pthread_t t;
	int rc = pthread_create(&t, NULL, null_thread, NULL);

	if (rc != 0) {
		*err = xasprintf("pthread_create: %s", strerror(rc));
		return -1;
	}
	pthread_join(t, NULL);
	return 0;
}

static int wait_child(pid_t pid, char **err)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			*err = xasprintf("waitpid: %s", strerror(errno));
			return -1;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*err = xasprintf("the child ended with status %#x", status);
		return -1;
	}
	return 0;
}

static int one_fork(char **err)
{
	pid_t pid = fork();

	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		_exit(0);
	return wait_child(pid, err);
}

/* As the fork server does it: stdout closed and an empty environment, as
 * lat_proc's. The child of this threaded process makes only system calls. */
static int one_exec(const char *helper, char **err)
{
	char *const argv[] = { (char *)helper, NULL };
	char *const envp[] = { NULL };
	pid_t pid = fork();

	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (close(STDOUT_FILENO) == 0 || errno == EBADF)
			execve(helper, argv, envp);
		_exit(127);
	}
	return wait_child(pid, err);
}

/* Ends the server (it holds nothing worth a graceful end) and reaps it. */
static void server_stop(struct fork_server *fs)
{
	if (fs->pid > 0) {
		kill(fs->pid, SIGKILL);
		while (waitpid(fs->pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(fs->req);
		close(fs->rep);
	}
	*fs = (struct fork_server){ 0 };
}

/* Starts the server, its stdin and stdout our two pipes; its stderr and
 * environment stay loadd's (the programs it execs get none, as lat_proc's). */
static int server_start(struct spawn_state *st, char **err)
{
	char *const argv[] = { st->server, st->helper, NULL };
	posix_spawn_file_actions_t fa;
	int req[2], rep[2], rc;

	if (pipe2(req, O_CLOEXEC) < 0) {
		*err = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(rep, O_CLOEXEC) < 0) {
		*err = xasprintf("pipe: %s", strerror(errno));
		close(req[0]);
		close(req[1]);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, req[0], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, rep[1], STDOUT_FILENO);
	rc = posix_spawn(&st->fs.pid, st->server, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(req[0]);
	close(rep[1]);
	if (rc != 0) {
		*err = xasprintf("cannot start %s: %s", st->server, strerror(rc));
		close(req[1]);
		close(rep[0]);
		st->fs.pid = 0;
		return -1;
	}
	st->fs.req = req[1];
	st->fs.rep = rep[0];
	return 0;
}

/* Reads the server's reply line into buf, watching stop_fd: 0, 1 when
 * stopped, -1 when the server is gone. */
static int server_reply(const struct fork_server *fs, int stop_fd, char *buf, size_t len)
{
	size_t have = 0;

	while (have < len - 1) {
		struct pollfd pfd[2] = { { .fd = fs->rep, .events = POLLIN },
					 { .fd = stop_fd, .events = POLLIN } };
		ssize_t n;

		if (poll(pfd, stop_fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (stop_fd >= 0 && pfd[1].revents != 0)
			return 1;
		n = read(fs->rep, buf + have, len - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		have += (size_t)n;
		buf[have] = '\0';
		if (strchr(buf, '\n') != NULL)
			return 0;
	}
	return -1;
}

/* `count` pairs done and timed by the fork server (started on first use,
 * again after it died): 0 with *ns, 1 when stopped, -1 with *err. */
static int server_measure(struct spawn_state *st, int stop_fd, int64_t *ns, char **err)
{
	char line[200];
	long long got;
	int rc;

	if (st->fs.pid == 0 && server_start(st, err) < 0)
		return -1;
	snprintf(line, sizeof line, "%s %ld\n", spawn_modes[st->mode], st->count);
	if (write(st->fs.req, line, strlen(line)) != (ssize_t)strlen(line)) {
		*err = xasprintf("%s is gone: %s", FORK_SERVER, strerror(errno));
		server_stop(&st->fs);
		return -1;
	}
	rc = server_reply(&st->fs, stop_fd, line, sizeof line);
	if (rc != 0) {
		if (rc < 0)
			*err = xasprintf("%s is gone", FORK_SERVER);
		server_stop(&st->fs);
		return rc;
	}
	if (sscanf(line, "ok %lld", &got) != 1 || got < 0) {
		line[strcspn(line, "\n")] = '\0';
		*err = xasprintf("%s: %s", FORK_SERVER, line);
		return -1;
	}
	*ns = got;
	return 0;
}

/* `count` pairs in this process (threads, or from = daemon): their time. */
static int measure_here(struct spawn_state *st, int64_t *ns, char **err)
{
	int64_t t0 = mono_ns();
	int rc = 0;

	for (long i = 0; i < st->count && rc == 0; i++)
		rc = st->mode == SPAWN_THREAD ? one_thread(err)
		     : st->mode == SPAWN_FORK ? one_fork(err)
					      : one_exec(st->helper, err);
	*ns = mono_ns() - t0;
	return rc;
}

static int spawn_measure(void *state, const struct probe_window *w, int stop_fd, struct sample *s,
			 char **err)
{
	struct spawn_state *st = state;
	int64_t ns = 0;
	int rc;

	s->started_at = wall_now();
	if (st->from == FROM_HELPER)
		rc = server_measure(st, stop_fd, &ns, err);
	else
		rc = measure_here(st, &ns, err);
	if (rc > 0)
		return 1;
	s->wall_ms = (double)ns / NSEC_PER_MSEC;
	s->failed = rc != 0;
	s->exit_code = s->failed ? 1 : 0;
	if (rc == 0)
		s->value = (double)ns / NSEC_PER_USEC / (double)st->count;
	return rc;
}

/* A program of loadd's beside the running binary (a build tree), else
 * where `make install` puts it. */
static char *find_libexec(const char *name, char **err)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *path;

	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash != NULL) {
			*slash = '\0';
			path = xasprintf("%s/%s", self, name);
			if (access(path, X_OK) == 0)
				return path;
			free(path);
		}
	}
	path = xasprintf("%s/%s", LOADD_LIBEXECDIR, name);
	if (access(path, X_OK) == 0)
		return path;
	*err = xasprintf("cannot find %s beside loadd or in %s: reinstall loadd", name,
			 LOADD_LIBEXECDIR);
	free(path);
	return NULL;
}

static void *spawn_open(const void *config, const struct probe_env *env, char **err)
{
	const struct spawn_config *cfg = config;
	struct spawn_state *st = xcalloc(1, sizeof *st);

	st->mode = cfg->mode;
	st->from = cfg->from;
	st->count = cfg->count;
	st->every_ms = cfg->every_ms;
	if (st->from == FROM_HELPER && (st->server = find_libexec(FORK_SERVER, err)) == NULL) {
		free(st);
		return NULL;
	}
	/* the server needs a program to exec even for fork requests */
	if ((st->mode == SPAWN_EXEC || st->server != NULL) &&
	    (st->helper = find_libexec(SPAWN_HELPER, err)) == NULL) {
		free(st->server);
		free(st);
		return NULL;
	}
	return st;
}

static void spawn_run(void *state, struct probe_ctx *c, const struct probe_window *w)
{
	struct spawn_state *st = state;

	probe_run_slots(c, w, st->every_ms, spawn_measure, st);
}

static void spawn_close(void *state)
{
	struct spawn_state *st = state;

	server_stop(&st->fs);
	free(st->helper);
	free(st->server);
	free(st);
}

static void spawn_describe(const void *config, char *buf, size_t len)
{
	const struct spawn_config *cfg = config;
	char every[32];

	format_ms(cfg->every_ms, every, sizeof every);
	snprintf(buf, len, "%ld %s create + destroy pairs every %s%s", cfg->count,
		 spawn_modes[cfg->mode], every,
		 cfg->from == FROM_HELPER ? ", in " FORK_SERVER : ", in loadd itself");
}

/* lat_proc's and the threads study's table: a row per mode. */
static const struct study_place spawn_study[] = {
	{ .table = "Creation: us per create + destroy (spawn)",
	  .rows = "mode",
	  .row = "{mode}",
	  .unit = "us" },
	{ 0 },
};

const struct probe_ops probe_spawn_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "spawn",
	.summary = "thread and process creation: pthread_create + join, fork + exit + wait, or "
		   "fork + exec + wait of a null program, from a small process as lat_proc; us "
		   "per pair",
	.options = spawn_options,
	.config_size = sizeof(struct spawn_config),
	.units = "us",
	.open = spawn_open,
	.run = spawn_run,
	.close = spawn_close,
	.describe = spawn_describe,
	.study = spawn_study,
};
