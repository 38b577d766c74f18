// SPDX-License-Identifier: GPL-2.0-or-later
/* Every loader of loader_table[], the same way, as loadd runs it: started
 * with its smallest options (below) in a process group of its own, its
 * counters must move within about a second (longer on a busy machine), and
 * SIGTERM to the group must end it within loadd's grace period, leaving no
 * process of the group and nothing in its scratch dir (what it keeps for the
 * whole run goes in its cache dir, which loadd removes at the end). A loader missing from
 * the table below fails the test: a new loader is conformance-tested from
 * its first day. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "loader.h"
#include "remove_tree.h"
#include "timeutil.h"
#include "xalloc.h"

#define RUN_MS 1000           /* how long each loader runs at least */
#define MOVE_TIMEOUT_MS 20000 /* for the counters to move on a loaded machine */

/* The smallest options of each loader: a few processes, a few MiB. */
static const struct {
	const char *loader;
	const char *keys[4][2];
} smallest[] = {
	{ "cpu", { { "procs", "2" } } },
	{ "memory", { { "size", "4M" } } },
	{ "read", { { "size", "2M" }, { "reserve", "0" } } },
	{ "write", { { "size", "2M" }, { "block", "64K" }, { "reserve", "0" } } },
	{ "fs", { { "clients", "1" }, { "runtime", "1s" } } },
	{ "net", { { "clients", "1" }, { "file_size", "4K" } } },
	{ "tree", { { "tree", "depth=1 fanout=2 files=2 size=1K" } } },
};

static void validate_smallest(const struct loader_ops *ops, struct load_def *def, struct kv *kvs)
{
	size_t n = 0, i;
	char *msgs = NULL;
	size_t len = 0;
	FILE *errs = open_memstream(&msgs, &len);

	for (i = 0; i < sizeof smallest / sizeof smallest[0]; i++)
		if (strcmp(smallest[i].loader, ops->name) == 0)
			break;
	if (i == sizeof smallest / sizeof smallest[0])
		fail_msg("loader %s has no smallest options in %s: add them", ops->name, __FILE__);
	for (; n < 4 && smallest[i].keys[n][0] != NULL; n++)
		kvs[n] = (struct kv){ .key = (char *)smallest[i].keys[n][0],
				      .value = (char *)smallest[i].keys[n][1],
				      .line = 2 + (int)n };
	*def = (struct load_def){
		.name = "c", .line = 1, .type = (char *)ops->name, .kvs = kvs, .nkv = n
	};
	if (loader_validate(def, "conformance.conf", errs) != 0) {
		fclose(errs);
		fail_msg("%s: its smallest options are refused: %s", ops->name, msgs);
	}
	fclose(errs);
	free(msgs);
}

static uint64_t moved(const struct loader_shm *shm)
{
	return atomic_load(&shm->cycles) + atomic_load(&shm->bytes) + atomic_load(&shm->ops);
}

static void nap_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The event pipe's lines, for a failure's message. */
static char *drain(int fd)
{
	char *text = NULL, buf[512];
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)n, fp);
	fclose(fp);
	return text;
}

static bool dir_is_empty(const char *dir)
{
	char *cmd = xasprintf("test -z \"$(ls -A '%s')\"", dir);
	int rc = system(cmd);

	free(cmd);
	return rc == 0;
}

/* The grace period, stretched by how overloaded the machine is (the 1-minute
 * load average per CPU, when above 1): on a machine running twenty things at
 * once a process may not even be scheduled within loadd's two seconds. A
 * loader that ignores SIGTERM still fails. */
static int grace_ms(void)
{
	double load = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double over;

	if (getloadavg(&load, 1) != 1 || cpus < 1)
		return LOADER_STOP_GRACE_MS;
	over = load / (double)cpus;
	return over > 1 ? (int)(LOADER_STOP_GRACE_MS * over) : LOADER_STOP_GRACE_MS;
}

/* SIGTERM to the group; the top process must be reaped and every process of
 * the group gone within the grace period. */
static void stop_within_grace(const struct loader_ops *ops, pid_t pid)
{
	int grace = grace_ms();
	int64_t deadline = mono_ns() + (int64_t)grace * 1000000;
	bool reaped = false;
	int status;

	kill(-pid, SIGTERM);
	while (mono_ns() < deadline) {
		if (!reaped && waitpid(pid, &status, WNOHANG) == pid)
			reaped = true;
		if (reaped && kill(-pid, 0) < 0 && errno == ESRCH)
			return;
		nap_ms(10);
	}
	kill(-pid, SIGKILL);
	if (!reaped)
		waitpid(pid, &status, 0);
	fail_msg("%s: %s %d ms after SIGTERM (grace %d ms, stretched for the load average)",
		 ops->name, reaped ? "processes of its group were left" : "still running", grace,
		 LOADER_STOP_GRACE_MS);
}

/* Each loader's temp dir, removed by the teardown even when a check failed. */
static char *base;

static int make_base(void **state)
{
	const char *tmp = getenv("TMPDIR");

	base = xasprintf("%s/loader_conformance.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(base) != NULL ? 0 : -1;
}

static int remove_base(void **state)
{
	int rc = remove_tree(base);

	free(base);
	base = NULL;
	return rc;
}

/* True when pid's System V IPC namespace is this process's. */
static bool same_ipc_namespace(pid_t pid)
{
	char path[64], theirs[64] = "", ours[64] = "";

	snprintf(path, sizeof path, "/proc/%d/ns/ipc", (int)pid);
	assert_true(readlink(path, theirs, sizeof theirs - 1) > 0);
	assert_true(readlink("/proc/self/ns/ipc", ours, sizeof ours - 1) > 0);
	return strcmp(theirs, ours) == 0;
}

static void conforms(void **state)
{
	const struct loader_ops *ops = *state;
	struct loader_shm *shm = mmap(NULL, sizeof *shm, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct load_def def;
	struct kv kvs[4];
	int pipefd[2];
	char *dir, *cache_dir;
	pid_t pid;
	int64_t start;

	assert_true(shm != MAP_FAILED);
	dir = xasprintf("%s/load-c", base);
	cache_dir = xasprintf("%s/cache-c", base); /* kept for the run: not checked */
	assert_int_equal(mkdir(dir, 0700), 0);
	validate_smallest(ops, &def, kvs);
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	fcntl(pipefd[1], F_SETFL, O_NONBLOCK);

	struct loader_ctx ctx = { .name = "c",
				  .config = def.config,
				  .dir = dir,
				  .cache_dir = cache_dir,
				  .shm = shm,
				  .event_fd = pipefd[1] };
	pid = loader_spawn(ops, &ctx);
	assert_true(pid > 0);
	close(pipefd[1]);

	start = mono_ns();
	nap_ms(RUN_MS);
	while (moved(shm) == 0 && mono_ns() - start < (int64_t)MOVE_TIMEOUT_MS * 1000000 &&
	       waitpid(pid, NULL, WNOHANG) == 0)
		nap_ms(50);
	if (moved(shm) == 0) {
		char *events = drain(pipefd[0]);

		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("%s: no counter moved in %d ms; its events: %s", ops->name,
			 (int)((mono_ns() - start) / 1000000), events);
	}
	if (geteuid() == 0 && same_ipc_namespace(pid))
		fail_msg("%s: runs in loadd's IPC namespace, not its own", ops->name);
	stop_within_grace(ops, pid);
	if (!dir_is_empty(dir))
		fail_msg("%s: its scratch dir %s is not empty after the stop", ops->name, dir);

	free(drain(pipefd[0]));
	close(pipefd[0]);
	options_free(ops->options, def.config);
	free(def.config);
	free(dir);
	free(cache_dir);
	munmap(shm, sizeof *shm);
}

int main(void)
{
	size_t n = 0;

	while (loader_table[n] != NULL)
		n++;
	struct CMUnitTest *tests = xcalloc(n, sizeof *tests);
	for (size_t i = 0; i < n; i++)
		tests[i] = (struct CMUnitTest){ .name = loader_table[i]->name,
						.test_func = conforms,
						.setup_func = make_base,
						.teardown_func = remove_base,
						.initial_state = (void *)loader_table[i] };
	/* _cmocka_run_group_tests takes a count: the table is built here. */
	return _cmocka_run_group_tests("loader_conformance", tests, n, NULL, NULL);
}
