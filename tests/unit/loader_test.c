// SPDX-License-Identifier: GPL-2.0-or-later
/* What the loaders' unit tests share: a [load] section through
 * loader_validate, and a loader run for real in a child of its own process
 * group, counted, stopped and cleaned up. */
#include "loader_test.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "remove_tree.h"
#include "xalloc.h"

const char *(*section_value)(const char *value);

char *make_temp_dir(void)
{
	char *dir = xstrdup("/tmp/loadd-unit-loader.XXXXXX");

	assert_non_null(mkdtemp(dir));
	return dir;
}

void remove_all(const char *dir)
{
	assert_int_equal(remove_tree(dir), 0);
}

int validate(const struct section *sec, struct load_def *def, char **msgs)
{
	struct kv kvs[3];
	size_t len = 0, n = 0;
	FILE *errs = open_memstream(msgs, &len);
	int problems;

	assert_non_null(errs);
	for (; n < 3 && sec->keys[n][0] != NULL; n++)
		kvs[n] = (struct kv){ .key = (char *)sec->keys[n][0],
				      .value = (char *)(section_value
								? section_value(sec->keys[n][1])
								: sec->keys[n][1]),
				      .line = 11 + (int)n };
	*def = (struct load_def){
		.name = "x", .line = 10, .type = (char *)sec->type, .kvs = kvs, .nkv = n
	};
	problems = loader_validate(def, "t.conf", errs);
	fclose(errs);
	def->kvs = NULL;
	def->nkv = 0;
	return problems;
}

void release(struct load_def *def)
{
	const struct loader_ops *ops = def->loader;

	if (ops == NULL)
		return;
	options_free(ops->options, def->config);
	free(def->config);
	def->config = NULL;
}

struct loader_shm *shm_new(void)
{
	struct loader_shm *shm = mmap(NULL, sizeof *shm, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(shm != MAP_FAILED);
	memset(shm, 0, sizeof *shm);
	return shm;
}

/* Starts the validated load in a child of its own process group, as loadd
 * would (the parent-death signal aside: the test outlives it anyway). */
void child_start(struct child_run *r, const struct load_def *def, const char *workdir)
{
	const struct loader_ops *ops = def->loader;
	int pipefd[2];

	r->shm = shm_new();
	r->workdir = xstrdup(workdir);
	r->dir = xasprintf("%s/load-x", workdir);
	assert_int_equal(mkdir(r->dir, 0700), 0);
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	fcntl(pipefd[1], F_SETFL, O_NONBLOCK);
	r->events = pipefd[0];
	r->pid = fork();
	assert_true(r->pid >= 0);
	if (r->pid == 0) {
		struct loader_ctx ctx = { .name = "x",
					  .config = def->config,
					  .dir = r->dir,
					  .shm = r->shm,
					  .event_fd = pipefd[1] };

		setpgid(0, 0);
		close(pipefd[0]);
		loader_catch_stop();
		_exit(ops->run(&ctx));
	}
	setpgid(r->pid, r->pid);
	close(pipefd[1]);
}

bool wait_cycles(struct child_run *r, uint64_t cycles)
{
	const struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };

	for (int i = 0; i < COUNT_TIMEOUT_S * 50; i++) {
		if (atomic_load(&r->shm->cycles) >= cycles)
			return true;
		if (waitpid(r->pid, NULL, WNOHANG) == r->pid) {
			r->pid = 0;
			return false;
		}
		nanosleep(&tick, NULL);
	}
	return false;
}

/* Everything the loader wrote to its event pipe. */
char *child_events(struct child_run *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	char buf[512];
	ssize_t n;

	while ((n = read(r->events, buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)n, fp);
	fclose(fp);
	return text;
}

/* SIGTERM to the group as loadd sends it; returns the loader's wait status.
 * Then no process of the group may be left. */
int child_stop(struct child_run *r)
{
	int status = 0;

	const struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };

	if (r->pid <= 0)
		return 0;
	kill(-r->pid, SIGTERM);
	assert_int_equal(waitpid(r->pid, &status, 0), r->pid);
	/* The loader reaped its own children; what they started (dbench's
	 * clients) got the same SIGTERM and goes within the grace loadd gives. */
	for (int i = 0; kill(-r->pid, 0) == 0; i++) {
		if (i == 250)
			fail_msg("processes of group %d are left 5 s after the stop", (int)r->pid);
		nanosleep(&tick, NULL);
	}
	assert_int_equal(errno, ESRCH);
	return status;
}

void child_free(struct child_run *r)
{
	close(r->events);
	munmap(r->shm, sizeof *r->shm);
	free(r->dir);
	free(r->workdir);
}

/* True when dir has nothing in it. */
bool dir_empty(const char *dir)
{
	char *cmd = xasprintf("test -z \"$(ls -A '%s')\"", dir);
	int rc = system(cmd);

	free(cmd);
	return rc == 0;
}

/* The loader is in the table with these units, and the table is sound. */
void check_listed(const char *name, const char *cycle_unit, bool has_ops)
{
	const struct loader_ops *ops = loader_find(name);

	if (ops == NULL)
		fail_msg("loader %s is not in loader_table", name);
	assert_string_equal(ops->cycle_unit, cycle_unit);
	assert_int_equal(ops->ops_unit != NULL, has_ops);
	assert_true(ops->reports_bytes);
	loader_table_check();
}

void check_valid(const struct section *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct load_def def;
		char *msgs;
		int problems = validate(&cases[i], &def, &msgs);

		if (problems != 0)
			fail_msg("case %zu (%s): %d problem(s): %s", i, cases[i].type, problems,
				 msgs);
		assert_non_null(def.config);
		release(&def);
		free(msgs);
	}
}

void check_refused(const struct refused *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct load_def def;
		char *msgs;
		int problems = validate(&cases[i].sec, &def, &msgs);

		if (problems == 0)
			fail_msg("case %zu (%s): accepted", i, cases[i].sec.type);
		if (strstr(msgs, cases[i].message) != msgs)
			fail_msg("case %zu: expected \"%s\", got \"%s\"", i, cases[i].message,
				 msgs);
		assert_null(def.config);
		free(msgs);
	}
}

/* The programs are looked up on loadd's own PATH, as execvp would. */
void check_needs_program(const char *type, const char *message)
{
	char *saved = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	char *empty = make_temp_dir();
	struct section sec = { type, { { NULL } } };
	struct load_def def;
	char *msgs;

	setenv("PATH", empty, 1);
	assert_int_equal(validate(&sec, &def, &msgs), 1);
	assert_string_equal(msgs, message);
	free(msgs);
	setenv("PATH", saved, 1);
	rmdir(empty);
	free(empty);
	free(saved);
}
