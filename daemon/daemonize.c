#include "daemonize.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "paths.h"
#include "xalloc.h"

/* The daemon's end of the pipe the waiting process reads. */
static int ready_fd = -1;

void daemon_start(void)
{
	int pipefd[2];
	pid_t pid;

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

int pidfile_write(const char *path, char **err)
{
	char buf[32];
	int len = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0) {
		*err = xasprintf("cannot write pid file %s: %s", path, strerror(errno));
		return -1;
	}
	if (write(fd, buf, len) != len) {
		*err = xasprintf("cannot write pid file %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
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
}

FILE *log_file_open(const char *path, char **err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
	FILE *fp;

	if (fd < 0 || (fp = fdopen(fd, "a")) == NULL) {
		*err = xasprintf("cannot open log file %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	setvbuf(fp, NULL, _IOLBF, 0);
	return fp;
}
