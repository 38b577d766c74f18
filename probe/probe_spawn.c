// SPDX-License-Identifier: GPL-2.0-or-later
/* The spawn probe: what creating and ending a thread or process costs, as
 * lmbench's lat_proc (fork, exec) and the threads study's lat_thread measure
 * it. Each sample times `count` create + destroy pairs in one mode:
 *   thread  pthread_create of a thread that returns at once + pthread_join;
 *   fork    fork, the child _exits at once, waitpid;
 *   exec    posix_spawn of loadd-spawn-helper (a program that only exits)
 *           + waitpid.
 * The figure is us per pair. Children are waited for by PID, never with
 * waitpid(-1), so the daemon's own children are not disturbed. */
#include "probe.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timeutil.h"
#include "xalloc.h"

#define SPAWN_HELPER "loadd-spawn-helper"

enum spawn_mode { SPAWN_THREAD, SPAWN_FORK, SPAWN_EXEC };

static const char *const spawn_modes[] = { "thread", "fork", "exec", NULL };

struct spawn_config {
	int64_t every_ms;
	int mode;
	long count;
};

/* clang-format off */
static const struct option_def spawn_options[] = {
	{ "every", OPT_DURATION, offsetof(struct spawn_config, every_ms), "1s", 10, 3600000,
	  NULL, NULL, "one sample of `count` pairs per slot of this length; missed slots are counted" },
	{ "mode", OPT_ENUM, offsetof(struct spawn_config, mode), "fork", 0, 0, spawn_modes,
	  NULL,
	  "thread: pthread_create + pthread_join of a null thread; fork: fork + _exit + "
	  "waitpid; exec: posix_spawn of " SPAWN_HELPER " + waitpid" },
	{ "count", OPT_INT, offsetof(struct spawn_config, count), "50", 1, 100000, NULL, NULL,
	  "create + destroy pairs timed together in one sample" },
	{ NULL },
};
/* clang-format on */

struct spawn_state {
	int mode;
	long count;
	int64_t every_ms;
	char *helper; /* mode exec */
};

extern char **environ;

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

static int one_exec(const char *helper, char **err)
{
	char *argv[] = { (char *)SPAWN_HELPER, NULL };
	pid_t pid;
	int rc = posix_spawn(&pid, helper, NULL, NULL, argv, environ);

	if (rc != 0) {
		*err = xasprintf("posix_spawn %s: %s", helper, strerror(rc));
		return -1;
	}
	return wait_child(pid, err);
}

static int spawn_measure(void *state, const struct probe_window *w, int stop_fd, struct sample *s,
			 char **err)
{
	struct spawn_state *st = state;
	int64_t t0, t1;
	int rc = 0;

	s->started_at = wall_now();
	t0 = mono_ns();
	for (long i = 0; i < st->count && rc == 0; i++)
		rc = st->mode == SPAWN_THREAD ? one_thread(err)
		     : st->mode == SPAWN_FORK ? one_fork(err)
					      : one_exec(st->helper, err);
	t1 = mono_ns();
	s->wall_ms = (double)(t1 - t0) / NSEC_PER_MSEC;
	s->failed = rc != 0;
	s->exit_code = s->failed ? 1 : 0;
	if (rc == 0)
		s->value = (double)(t1 - t0) / NSEC_PER_USEC / (double)st->count;
	return rc;
}

/* The helper beside the running binary (a build tree), else where
 * `make install` puts it. */
static char *find_helper(char **err)
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
			path = xasprintf("%s/%s", self, SPAWN_HELPER);
			if (access(path, X_OK) == 0)
				return path;
			free(path);
		}
	}
	path = xasprintf("%s/%s", LOADD_LIBEXECDIR, SPAWN_HELPER);
	if (access(path, X_OK) == 0)
		return path;
	*err = xasprintf("cannot find %s beside loadd or in %s: reinstall loadd", SPAWN_HELPER,
			 LOADD_LIBEXECDIR);
	free(path);
	return NULL;
}

static void *spawn_open(const void *config, const struct probe_env *env, char **err)
{
	const struct spawn_config *cfg = config;
	struct spawn_state *st = xcalloc(1, sizeof *st);

	st->mode = cfg->mode;
	st->count = cfg->count;
	st->every_ms = cfg->every_ms;
	if (st->mode == SPAWN_EXEC && (st->helper = find_helper(err)) == NULL) {
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

	free(st->helper);
	free(st);
}

static void spawn_describe(const void *config, char *buf, size_t len)
{
	const struct spawn_config *cfg = config;
	char every[32];

	format_ms(cfg->every_ms, every, sizeof every);
	snprintf(buf, len, "%ld %s create + destroy pairs every %s", cfg->count,
		 spawn_modes[cfg->mode], every);
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
		   "posix_spawn + exec + wait of a null program; us per pair",
	.options = spawn_options,
	.config_size = sizeof(struct spawn_config),
	.units = "us",
	.open = spawn_open,
	.run = spawn_run,
	.close = spawn_close,
	.describe = spawn_describe,
	.study = spawn_study,
};
