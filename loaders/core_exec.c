// SPDX-License-Identifier: GPL-2.0-or-later
#include "core_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"
#include "term_escape.h"
#include "xalloc.h"

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *program_find(const char *name)
{
	const char *path, *p;

	if (name == NULL || *name == '\0')
		return NULL;
	if (strchr(name, '/') != NULL)
		return is_executable_file(name) ? xstrdup(name) : NULL;
	path = getenv("PATH");
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p++) {
		const char *end = strchrnul(p, ':');
		char *candidate = end == p ? xasprintf("./%s", name)
					   : xasprintf("%.*s/%s", (int)(end - p), p, name);

		if (is_executable_file(candidate))
			return candidate;
		free(candidate);
		if (*end == '\0')
			return NULL;
		p = end;
	}
}

/* Nothing of the loader's (the event pipe, sockets) goes on into the program. */
static void cloexec_from(int first)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)first, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);

	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = first; fd < max; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int exec_start(char *const argv[], struct exec_child *c, char **err)
{
	int out[2], report[2], child_errno;
	ssize_t n;
	pid_t pid;

	c->pid = -1;
	c->out_fd = -1;
	c->last_line[0] = '\0';
	if (pipe2(out, O_CLOEXEC) < 0) {
		*err = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	/* The child writes its errno here when exec fails; a clean exec just
	 * closes it (O_CLOEXEC), so the parent reads 0 bytes. */
	if (pipe2(report, O_CLOEXEC) < 0) {
		*err = xasprintf("pipe: %s", strerror(errno));
		close(out[0]);
		close(out[1]);
		return -1;
	}
	pid = loader_fork();
	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		close(out[0]);
		close(out[1]);
		close(report[0]);
		close(report[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
		    dup2(out[1], STDERR_FILENO) < 0) {
			child_errno = errno;
		} else {
			cloexec_from(STDERR_FILENO + 1);
			/* loadd ignores SIGPIPE; exec keeps an ignored signal ignored. */
			signal(SIGPIPE, SIG_DFL);
			execv(argv[0], argv);
			child_errno = errno;
		}
		while (write(report[1], &child_errno, sizeof child_errno) < 0 && errno == EINTR)
			;
		_exit(127);
	}
	close(out[1]);
	close(report[1]);
	while ((n = read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (n == sizeof child_errno) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(out[0]);
		*err = xasprintf("cannot run %s: %s", argv[0], strerror(child_errno));
		return -1;
	}
	c->pid = pid;
	c->out_fd = out[0];
	return 0;
}

static void stop_child(struct exec_child *c)
{
	loader_stop_child(c->pid, EXEC_GRACE_MS);
	c->pid = -1;
	close(c->out_fd);
	c->out_fd = -1;
}

static void take_line(struct exec_child *c, char *line, exec_line_fn fn, void *arg)
{
	size_t len = strlen(line);

	if (len > 0 && line[len - 1] == '\r')
		line[--len] = '\0';
	if (len == 0)
		return;
	if (fn != NULL && fn(arg, line))
		return;
	/* It goes into events and the log: no terminal control of the child's. */
	term_escape_buf(c->last_line, sizeof c->last_line, line, len, 0);
}

int exec_finish(struct exec_child *c, exec_line_fn fn, void *arg)
{
	char buf[4096];
	size_t used = 0;
	int status;
	pid_t r;

	for (;;) {
		ssize_t n;
		char *start, *nl;

		if (loader_stopping()) {
			stop_child(c);
			return -1;
		}
		n = read(c->out_fd, buf + used, sizeof buf - 1 - used);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		buf[used] = '\0';
		start = buf;
		while ((nl = memchr(start, '\n', used - (size_t)(start - buf))) != NULL) {
			*nl = '\0';
			take_line(c, start, fn, arg);
			start = nl + 1;
		}
		used -= (size_t)(start - buf);
		memmove(buf, start, used);
		/* A line longer than the buffer is taken in pieces. */
		if (used == sizeof buf - 1) {
			buf[used] = '\0';
			take_line(c, buf, fn, arg);
			used = 0;
		}
	}
	if (used > 0) {
		buf[used] = '\0';
		take_line(c, buf, fn, arg);
	}
	close(c->out_fd);
	c->out_fd = -1;
	/* The output is closed; the program is exiting (or closed its output
	 * and goes on, which a stop request still ends). */
	while ((r = waitpid(c->pid, &status, 0)) < 0 && errno == EINTR) {
		if (loader_stopping()) {
			loader_stop_child(c->pid, EXEC_GRACE_MS);
			c->pid = -1;
			return -1;
		}
	}
	c->pid = -1;
	/* A program that died of the stop signal the whole group got was
	 * stopped, not failed. */
	if (r < 0 || loader_stopping())
		return -1;
	return status;
}

void exec_status_text(int status, char *buf, size_t len)
{
	if (WIFEXITED(status)) {
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		const char *name = sigabbrev_np(WTERMSIG(status));

		snprintf(buf, len, "killed by SIG%s", name != NULL ? name : "?");
	} else {
		snprintf(buf, len, "wait status %#x", status);
	}
}
