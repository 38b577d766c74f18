// SPDX-License-Identifier: GPL-2.0-or-later
/* The launch probe: what a user waits for when opening an application under
 * load. Every slot it evicts the program's files from the page cache
 * (POSIX_FADV_DONTNEED on the executable, its dynamic loader and every shared
 * library the loader resolves for it, plus any files named), then starts it
 * and times it until it is ready.
 *
 * Choices: the default program is loadctl --version, a real application of
 * this package with a dozen shared libraries (libcurl, sqlite, jansson and
 * theirs), found beside loadd first so the probe needs nothing installed.
 * Ready means exited: the default program exits as soon as it has printed,
 * so exit is its readiness signal, and the probe reuses the job probe's
 * spawn, drain, timeout and kill. Eviction needs no root (unlike
 * drop_caches) and touches only these files; pages that another process
 * keeps mapped (libc) stay cached, as they would on a desktop. The library
 * list comes from the dynamic loader itself (LD_TRACE_LOADED_OBJECTS, what
 * ldd does), once at start. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "parse.h"
#include "timeutil.h"
#include "xalloc.h"

struct launch_config {
	char *command;
	int64_t every_ms;
	int64_t timeout_ms;
	char *files;
};

/* clang-format off */
static const struct option_def launch_options[] = {
	{ "command", OPT_STRING, offsetof(struct launch_config, command), "loadctl --version", 0,
	  0, NULL, NULL,
	  "the program started cold; a bare name is looked for beside loadd, then on PATH; it "
	  "must exit once ready" },
	{ "every", OPT_DURATION, offsetof(struct launch_config, every_ms), "5s", 100, 3600000,
	  NULL, NULL, "one cold start per slot of this length; missed slots are counted" },
	{ "timeout", OPT_DURATION, offsetof(struct launch_config, timeout_ms), "30s", 100,
	  600000, NULL, NULL, "a start taking longer is killed and recorded as failed" },
	{ "files", OPT_STRING, offsetof(struct launch_config, files), NULL, 0, 0, NULL, NULL,
	  "more files to evict before each start (data the program reads), separated by "
	  "blanks" },
	{ NULL },
};
/* clang-format on */

struct launch_state {
	char **argv;  /* argv[0] resolved to a path */
	char **evict; /* NULL-terminated paths */
	size_t nevict;
	int64_t every_ms;
	int64_t timeout_ms;
};

static void evict_add(struct launch_state *st, const char *path)
{
	for (size_t i = 0; i < st->nevict; i++)
		if (strcmp(st->evict[i], path) == 0)
			return;
	st->evict = xreallocarray(st->evict, st->nevict + 2, sizeof *st->evict);
	st->evict[st->nevict++] = xstrdup(path);
	st->evict[st->nevict] = NULL;
}

/* A bare name: beside loadd's own executable first, then on PATH. */
static char *resolve_program(const char *name)
{
	char self[PATH_MAX], *slash, *path, *dirs, *dir, *save = NULL;
	ssize_t n;

	if (strchr(name, '/') != NULL)
		return xstrdup(name);
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash != NULL) {
			path = xasprintf("%.*s/%s", (int)(slash - self), self, name);
			if (access(path, X_OK) == 0)
				return path;
			free(path);
		}
	}
	dirs = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		path = xasprintf("%s/%s", *dir ? dir : ".", name);
		if (access(path, X_OK) == 0) {
			free(dirs);
			return path;
		}
		free(path);
	}
	free(dirs);
	return NULL;
}

/* The shared objects the dynamic loader maps for exe: its own answer to
 * LD_TRACE_LOADED_OBJECTS=1 ("libx.so => /path (0x...)", "/lib64/ld... (0x...)"). */
static void add_libraries(struct launch_state *st, const char *exe)
{
	int pfd[2];
	pid_t pid;
	FILE *fp;
	char line[1024];
	int status;

	/* Only async-signal-safe calls after fork: other threads run. */
	static char *const envp[] = { "LD_TRACE_LOADED_OBJECTS=1", NULL };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		return;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		close(null);
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(null, 0);
		dup2(pfd[1], 1);
		dup2(null, 2);
		execle(exe, exe, (char *)NULL, envp);
		_exit(127);
	}
	close(null);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return;
	}
	fp = fdopen(pfd[0], "r");
	while (fp != NULL && fgets(line, sizeof line, fp) != NULL) {
		char *p = strstr(line, "=> "), *end;

		p = p ? p + 3 : line + strspn(line, " \t");
		if (*p != '/')
			continue;
		end = p + strcspn(p, " \t\n");
		*end = '\0';
		evict_add(st, p);
	}
	if (fp != NULL)
		fclose(fp);
	else
		close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

static void launch_close(void *state)
{
	struct launch_state *st = state;

	argv_free(st->argv);
	argv_free(st->evict);
	free(st);
}

static void *launch_open(const void *config, const struct probe_env *env, char **err)
{
	const struct launch_config *cfg = config;
	struct launch_state *st = xcalloc(1, sizeof *st);
	const char *why;
	char *exe;

	st->every_ms = cfg->every_ms;
	st->timeout_ms = cfg->timeout_ms;
	st->argv = argv_split(cfg->command, &why);
	if (st->argv == NULL) {
		*err = xasprintf("command '%s': %s", cfg->command, why);
		free(st);
		return NULL;
	}
	exe = resolve_program(st->argv[0]);
	if (exe == NULL) {
		*err = xasprintf("no program '%s' beside loadd or on PATH", st->argv[0]);
		launch_close(st);
		return NULL;
	}
	free(st->argv[0]);
	st->argv[0] = exe;
	evict_add(st, exe);
	add_libraries(st, exe);
	if (cfg->files != NULL) {
		char **more = argv_split(cfg->files, &why);

		for (size_t i = 0; more != NULL && more[i] != NULL; i++)
			evict_add(st, more[i]);
		argv_free(more);
	}
	return st;
}

static void evict(const struct launch_state *st)
{
	for (size_t i = 0; i < st->nevict; i++) {
		int fd = open(st->evict[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

static int launch_measure(void *state, const struct probe_window *w, int stop_fd, struct sample *s,
			  char **err)
{
	struct launch_state *st = state;

	evict(st);
	return probe_job_exec(st->argv, false, st->timeout_ms, stop_fd, s, err);
}

static void launch_run(void *state, struct probe_ctx *c, const struct probe_window *w)
{
	struct launch_state *st = state;

	probe_run_slots(c, w, st->every_ms, launch_measure, st);
}

static void launch_describe(const void *config, char *buf, size_t len)
{
	const struct launch_config *cfg = config;
	char every[32];

	format_ms(cfg->every_ms, every, sizeof every);
	snprintf(buf, len, "'%s' started cold every %s", cfg->command, every);
}

const struct probe_ops probe_launch_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "launch",
	.summary = "a program started cold: its executable and libraries evicted from the page "
		   "cache (POSIX_FADV_DONTNEED), then started and timed until it exits ready",
	.options = launch_options,
	.config_size = sizeof(struct launch_config),
	.units = "ms",
	.open = launch_open,
	.run = launch_run,
	.close = launch_close,
	.describe = launch_describe,
};
