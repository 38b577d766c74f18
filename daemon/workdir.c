#include "workdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "xalloc.h"

/* Directories whose contents belong to the system: loadd never works in
 * them directly (a directory below them, like /var/tmp/loadd, is fine). */
static bool is_system_dir(const char *path)
{
	static const char *const system_dirs[] = {
		"/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64",
		"/libx32", "/media", "/mnt", "/opt", "/proc", "/root", "/run", "/sbin",
		"/srv", "/sys", "/tmp", "/usr", "/var", "/var/tmp", "/var/lib", "/var/log",
		"/var/cache", "/usr/local", "/usr/lib", "/usr/bin", "/usr/share", NULL
	};

	for (const char *const *d = system_dirs; *d != NULL; d++)
		if (strcmp(path, *d) == 0)
			return true;
	return strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/sys/", 5) == 0 ||
	       strncmp(path, "/dev/", 5) == 0;
}

/* Reads the pid a lock holder wrote, for the message; 0 when unknown. */
static long lock_holder(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

int workdir_open(const char *dir, char **resolved, char **err)
{
	char real[PATH_MAX];
	struct stat st;
	int fd;

	if (make_dirs(dir, geteuid() == 0 ? 0755 : 0700) < 0) {
		*err = xasprintf("cannot create work dir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (realpath(dir, real) == NULL) {
		*err = xasprintf("work dir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (is_system_dir(real)) {
		*err = xasprintf("refusing to use %s as work dir: it is a system directory; "
				 "give a directory of its own, e.g. --workdir %s/loadd",
				 real, strcmp(real, "/") == 0 ? "/var/tmp" : real);
		return -1;
	}
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		*err = xasprintf("work dir %s is not a directory", real);
		return -1;
	}
	fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*err = xasprintf("cannot open work dir %s: %s", real, strerror(errno));
		return -1;
	}
	int lockfd = openat(fd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	close(fd);
	if (lockfd < 0) {
		*err = xasprintf("cannot create lock file in work dir %s: %s", real, strerror(errno));
		return -1;
	}
	if (flock(lockfd, LOCK_EX | LOCK_NB) < 0) {
		long pid = lock_holder(lockfd);
		*err = pid > 0 ? xasprintf("work dir %s is in use by another loadd (pid %ld); "
					   "stop it first or give --workdir", real, pid)
			       : xasprintf("work dir %s is in use by another loadd; "
					   "stop it first or give --workdir", real);
		close(lockfd);
		return -1;
	}
	char pid[32];
	int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(lockfd, 0) < 0 || pwrite(lockfd, pid, len, 0) != len) {
		*err = xasprintf("cannot write lock file in work dir %s: %s", real, strerror(errno));
		close(lockfd);
		return -1;
	}
	*resolved = xstrdup(real);
	return lockfd;
}

/* flock() is independent of SQLite's own POSIX locks on the same file. */
int db_lock(const char *db_path, char **err)
{
	int fd = open(db_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*err = xasprintf("cannot open database %s: %s", db_path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		*err = xasprintf("database %s is in use by another loadd; "
				 "stop it first (loadctl stop) or give --db", db_path);
		close(fd);
		return -1;
	}
	return fd;
}
