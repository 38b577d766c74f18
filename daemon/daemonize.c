// SPDX-License-Identifier: GPL-2.0-or-later
#include "daemonize.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "paths.h"
#include "trust.h"
#include "xalloc.h"

/* The daemon's end of the pipe the waiting process reads. */
static int ready_fd = -1;

/* Whatever the starting process left open (a pipe to a waiting shell, a
 * file of a caller's) must not live on in a daemon: nothing of loadd's own
 * is open yet. */
static void close_inherited_fds(void)
{
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
	for (int fd = 3; fd < 65536; fd++)
		close(fd);
}

void daemon_start(void)
{
	int pipefd[2];
	pid_t pid;

	close_inherited_fds();
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		fatal("pipe");
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		fatal("fork");
	if (pid > 0) {
		char c;
		ssize_t n;

		close(pipefd[1]);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		while ((n = read(pipefd[0], &c, 1)) < 0 && errno == EINTR)
			;
		/* No byte: the daemon died and said why on our stderr. */
		_exit(n == 1 ? 0 : 1);
	}
	close(pipefd[0]);
	if (setsid() < 0)
		fatal("setsid");
	/* Not a session leader: it can never acquire a controlling terminal. */
	pid = fork();
	if (pid < 0)
		fatal("fork");
	if (pid > 0)
		_exit(0);
	ready_fd = pipefd[1];
}

void daemon_ready(FILE *log)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		fatal("/dev/null");
	fflush(stdout);
	fflush(stderr);
	if (dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
	    dup2(log != NULL ? fileno(log) : null, STDERR_FILENO) < 0)
		fatal("dup2");
	close(null);
	if (chdir("/") < 0)
		fatal("chdir /");
	if (ready_fd >= 0) {
		if (write(ready_fd, "1", 1) != 1)
			log_warn("could not tell the starting process that loadd runs");
		close(ready_fd);
		ready_fd = -1;
	}
}

static char *in_workdir(const char *workdir, const char *name)
{
	char *dir = absolute_path(workdir);
	char *path = xasprintf("%s/%s", dir, name);

	free(dir);
	return path;
}

char *daemon_default_pidfile(const char *workdir)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");

	if (geteuid() == 0)
		return xstrdup("/run/loadd/loadd.pid");
	if (runtime != NULL && runtime[0] == '/')
		return xasprintf("%s/loadd.pid", runtime);
	return in_workdir(workdir, "loadd.pid");
}

char *daemon_default_log(const char *workdir)
{
	if (geteuid() == 0)
		return xstrdup("/var/log/loadd.log");
	return in_workdir(workdir, "loadd.log");
}

/* Held open and locked while loadd runs: a second loadd given the same pid
 * file finds it locked rather than overwriting it. */
static int pidfile_fd = -1;

int pidfile_write(const char *path, char **err)
{
	char buf[32];
	int len = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	struct stat st;
	int fd;

	if (trust_make_parent_dirs(path, geteuid() == 0 ? 0755 : 0700, "pid file", err) < 0)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || fstat(fd, &st) < 0) {
		*err = xasprintf("cannot write pid file %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		*err = xasprintf("pid file %s is not a plain file of loadd's own; remove it", path);
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ssize_t n = read(fd, buf, sizeof buf - 1);

		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		*err = xasprintf("pid file %s is locked by another loadd (pid %s)", path,
				 buf[0] ? buf : "unknown");
		close(fd);
		return -1;
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, len, 0) != len) {
		*err = xasprintf("cannot write pid file %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	pidfile_fd = fd;
	return 0;
}

void pidfile_remove(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (strtol(buf, NULL, 10) == (long)getpid())
		unlink(path);
	/* The lock goes only after the file: no second loadd finds it free first. */
	if (pidfile_fd >= 0) {
		close(pidfile_fd);
		pidfile_fd = -1;
	}
}

/* Appended to, never followed: a link planted at the log's path must not
 * make root write elsewhere, and the file must be loadd's user's alone. */
FILE *log_file_open(const char *path, char **err)
{
	struct stat st;
	FILE *fp;
	int fd;

	if (trust_make_parent_dirs(path, geteuid() == 0 ? 0755 : 0700, "log file", err) < 0)
		return NULL;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0640);
	if (fd < 0 || fstat(fd, &st) < 0) {
		*err = xasprintf("cannot open log file %s: %s%s", path, strerror(errno),
				 errno == ELOOP ? " (it is a symbolic link; remove it)" : "");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1 ||
	    (st.st_mode & 0022) != 0) {
		*err = xasprintf("log file %s is not a plain file of loadd's user's that only it "
				 "can write; remove it or give another --log",
				 path);
		close(fd);
		return NULL;
	}
	if ((fp = fdopen(fd, "a")) == NULL) {
		*err = xasprintf("cannot open log file %s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	setvbuf(fp, NULL, _IOLBF, 0);
	return fp;
}
