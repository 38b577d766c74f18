// SPDX-License-Identifier: GPL-2.0-or-later
/* loadd-fork-server: the small process the spawn probe creates processes
 * and threads from, so that a fork copies the page tables of a program this
 * size, as lmbench's lat_proc does, not those of loadd (SQLite, libevent, a
 * thread per probe, and in a sanitizer build an instrumented thread start).
 *
 * Usage: loadd-fork-server PROGRAM, with requests on stdin and replies on
 * stdout, one line each:
 *   fork N   N times: fork, the child _exits at once, waitpid
 *   exec N   N times: fork, the child closes its stdout and execs PROGRAM
 *            (argv {PROGRAM}, an empty environment), waitpid: as lat_proc
 *            execs its hello
 *   thread N N times: pthread_create of a thread that returns at once,
 *            pthread_join
 * It times the N together on CLOCK_MONOTONIC and replies "ok NS", or
 * "error WHAT". It ends at the end of its input, or with the thread that
 * started it (PR_SET_PDEATHSIG). It links libc alone and opens no streams,
 * so its address space stays as small as lat_proc's. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void reply(const char *line)
{
	size_t len = strlen(line), done = 0;

	while (done < len) {
		ssize_t n = write(STDOUT_FILENO, line + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1); /* the probe is gone */
		done += (size_t)n;
	}
}

/* One fork + (exec of program or _exit) + wait; NULL, or what failed. */
static const char *one_child(const char *program)
{
	static char why[96];
	char *const argv[] = { (char *)program, NULL };
	char *const envp[] = { NULL };
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		snprintf(why, sizeof why, "fork: %s", strerror(errno));
		return why;
	}
	if (pid == 0) {
		/* stdout is the reply pipe: the program may not write into it
		 * (lat_proc closes it too, for its hello prints) */
		if (program != NULL && (close(STDOUT_FILENO) == 0 || errno == EBADF))
			execve(program, argv, envp);
		_exit(program != NULL ? 127 : 0);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(why, sizeof why, "waitpid: %s", strerror(errno));
			return why;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return program != NULL ? "the program did not exit 0 (could it be run?)"
				       : "the child did not exit 0";
	return NULL;
}

static void *null_thread(void *arg)
{
	return arg;
}

/* One pthread_create + pthread_join; NULL, or what failed. */
static const char *one_thread(void)
{
	static char why[96];
	pthread_t t;
	int rc = pthread_create(&t, NULL, null_thread, NULL);

	if (rc != 0) {
		snprintf(why, sizeof why, "pthread_create: %s", strerror(rc));
		return why;
	}
	pthread_join(t, NULL);
	return NULL;
}

static void serve(const char *request, const char *program)
{
	char line[160];
	long count;
	const char *failed = NULL;
	int64_t t0, t1;
	bool exec_it = strncmp(request, "exec ", 5) == 0;
	bool thread = strncmp(request, "thread ", 7) == 0;

	if (!exec_it && !thread && strncmp(request, "fork ", 5) != 0) {
		reply("error unknown request\n");
		return;
	}
	count = strtol(request + (thread ? 7 : 5), NULL, 10);
	if (count < 1) {
		reply("error bad count\n");
		return;
	}
	t0 = now_ns();
	for (long i = 0; i < count && failed == NULL; i++)
		failed = thread ? one_thread() : one_child(exec_it ? program : NULL);
	t1 = now_ns();
	if (failed != NULL)
		snprintf(line, sizeof line, "error %s\n", failed);
	else
		snprintf(line, sizeof line, "ok %lld\n", (long long)(t1 - t0));
	reply(line);
}

int main(int argc, char **argv)
{
	char request[64];
	size_t have = 0;
	pid_t parent = getppid();

	if (argc != 2) {
		static const char usage[] = "usage: loadd-fork-server PROGRAM (run by loadd's "
					    "spawn probe)\n";

		(void)!write(STDERR_FILENO, usage, sizeof usage - 1);
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		return 1; /* the probe ended before the line above */
	for (;;) {
		ssize_t n = read(STDIN_FILENO, request + have, sizeof request - 1 - have);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		have += (size_t)n;
		request[have] = '\0';
		while ((nl = strchr(request, '\n')) != NULL) {
			*nl = '\0';
			serve(request, argv[1]);
			have -= (size_t)(nl + 1 - request);
			memmove(request, nl + 1, have + 1);
		}
		if (have == sizeof request - 1)
			return 1; /* a request that long is not the probe's */
	}
}
