// SPDX-License-Identifier: GPL-2.0-or-later
#include "workdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "paths.h"
#include "remove_tree.h"
#include "run_user.h"
#include "trust.h"
#include "xalloc.h"

/* Directories whose contents belong to the system: loadd never works in
 * them directly (a directory below them, like /var/lib/loadd/work, is fine). */
static bool is_system_dir(const char *path)
{
	static const char *const system_dirs[] = {
		"/",        "/bin",       "/boot",      "/dev",     "/etc",     "/home",
		"/lib",     "/lib32",     "/lib64",     "/libx32",  "/media",   "/mnt",
		"/opt",     "/proc",      "/root",      "/run",     "/sbin",    "/srv",
		"/sys",     "/tmp",       "/usr",       "/var",     "/var/tmp", "/var/lib",
		"/var/log", "/var/cache", "/usr/local", "/usr/lib", "/usr/bin", "/usr/share",
		NULL
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

/* "user alice (uid 1000)", or "uid 1234" when it has no name; xmalloc'd. */
static char *owner_name(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	return pw ? xasprintf("user %s (uid %u)", pw->pw_name, (unsigned)uid)
		  : xasprintf("uid %u", (unsigned)uid);
}

/* A directory above the work dir: owned by root or by us, and writable by
 * nobody else unless it is sticky (as /tmp is: nobody can rename what is
 * ours in it). */
static int check_parent(int fd, const char *path, char **err)
{
	struct stat st;
	uid_t me = geteuid();

	if (fstat(fd, &st) < 0) {
		*err = xasprintf("cannot check %s: %s", path, strerror(errno));
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != me) {
		char *who = owner_name(st.st_uid);
		*err = xasprintf("refusing the work dir below %s: that directory belongs to %s, "
				 "who could swap what is inside it; choose a work dir below "
				 "directories owned by root or by you",
				 path, who);
		free(who);
		return -1;
	}
	if (run_user_get()->drop && (st.st_mode & S_IXOTH) == 0 &&
	    !(st.st_gid == run_user_get()->gid && (st.st_mode & S_IXGRP))) {
		*err = xasprintf("refusing the work dir below %s (mode %04o): the loads run as "
				 "%s and cannot reach it; choose a work dir they can reach (the "
				 "default is /var/lib/loadd/work), chmod o+x %s, or set [run] user",
				 path, (unsigned)(st.st_mode & 07777), run_user_get()->name, path);
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
		*err = xasprintf("refusing the work dir below %s: that directory is writable by "
				 "%s (mode %04o) without the sticky bit, so others could swap "
				 "what is inside it; fix it (chmod go-w %s) or choose another "
				 "work dir",
				 path, (st.st_mode & S_IWOTH) ? "others" : "its group",
				 (unsigned)(st.st_mode & 07777), path);
		return -1;
	}
	return 0;
}

/* Opens each directory of the absolute, symlink-free path from / down
 * without following links, checking each. Returns the last one's fd. */
static int open_checked_parents(const char *path, char **err)
{
	char *copy = xstrdup(path), *save = NULL, *comp;
	char *sofar = xstrdup("/");
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || check_parent(fd, "/", err) < 0)
		goto fail;
	for (comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		char *longer = xasprintf("%s%s%s", sofar, strcmp(sofar, "/") ? "/" : "", comp);

		free(sofar);
		sofar = longer;
		close(fd);
		fd = next;
		if (fd < 0) {
			*err = xasprintf("cannot open %s: %s", sofar, strerror(errno));
			goto fail;
		}
		if (check_parent(fd, sofar, err) < 0)
			goto fail;
	}
	free(copy);
	free(sofar);
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	free(copy);
	free(sofar);
	return -1;
}

/* The work dir itself: ours, a directory, writable by nobody else. */
static int check_workdir(int fd, const char *path, char **err)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		*err = xasprintf("cannot check work dir %s: %s", path, strerror(errno));
		return -1;
	}
	if (st.st_uid != geteuid()) {
		char *who = owner_name(st.st_uid), *me = owner_name(geteuid());
		*err = xasprintf("refusing work dir %s: it belongs to %s, not to %s that loadd "
				 "runs as; remove it (loadd makes a new one) or give another "
				 "--workdir",
				 path, who, me);
		free(who);
		free(me);
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		*err = xasprintf("refusing work dir %s: it is writable by %s (mode %04o); "
				 "chmod go-w %s, or give another --workdir",
				 path, (st.st_mode & S_IWOTH) ? "others" : "its group",
				 (unsigned)(st.st_mode & 07777), path);
		return -1;
	}
	return 0;
}

static bool dir_is_empty(int fd)
{
	int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;
	bool empty = true;

	if (d == NULL) {
		if (dup_fd >= 0)
			close(dup_fd);
		return false;
	}
	while (empty && (de = readdir(d)) != NULL)
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	return empty;
}

/* A work dir is loadd's when it carries the stamp; an empty one gets it. */
static int claim_workdir(int fd, const char *path, char **err)
{
	static const char text[] = "This directory is a loadd work dir: loadd deletes what it "
				   "made here (listed in " WORKDIR_MANIFEST ").\n";
	struct stat st;
	int sfd;

	if (fstatat(fd, WORKDIR_STAMP, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
		return 0;
	if (!dir_is_empty(fd)) {
		*err = xasprintf("refusing work dir %s: it is not empty and has no %s stamp, so "
				 "loadd did not make it (or an older loadd did); give an empty "
				 "or new directory, or empty this one",
				 path, WORKDIR_STAMP);
		return -1;
	}
	sfd = openat(fd, WORKDIR_STAMP, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (sfd < 0 || write(sfd, text, sizeof text - 1) != (ssize_t)(sizeof text - 1)) {
		*err = xasprintf("cannot stamp work dir %s: %s", path, strerror(errno));
		if (sfd >= 0)
			close(sfd);
		return -1;
	}
	close(sfd);
	return 0;
}

/* The loads run as another user: they may pass through the work dir to
 * their own dirs (0711), never list or write it. */
static int let_loads_in(int fd, const char *path, char **err)
{
	struct stat st;

	if (!run_user_get()->drop || fstat(fd, &st) < 0 || (st.st_mode & S_IXOTH) != 0)
		return 0;
	if (fchmod(fd, (st.st_mode & 07777) | S_IXGRP | S_IXOTH) < 0) {
		*err = xasprintf("cannot let the loads through work dir %s (chmod o+x): %s", path,
				 strerror(errno));
		return -1;
	}
	return 0;
}

/* Splits the absolute path into its resolved parent and its last name. */
static int split_workdir(const char *dir, char **parent, char **name, char **err)
{
	char *abs = absolute_path(dir), *slash, real[PATH_MAX];
	size_t len = strlen(abs);

	while (len > 1 && abs[len - 1] == '/')
		abs[--len] = '\0';
	slash = strrchr(abs, '/');
	if (strcmp(abs, "/") == 0 || strcmp(slash + 1, ".") == 0 || strcmp(slash + 1, "..") == 0) {
		*err = xasprintf("refusing to use %s as work dir: it is a system directory; give "
				 "a directory of its own, e.g. --workdir /var/lib/loadd/work",
				 dir);
		free(abs);
		return -1;
	}
	*slash = '\0';
	if (make_dirs(abs[0] ? abs : "/", 0755) < 0 || realpath(abs[0] ? abs : "/", real) == NULL) {
		*err = xasprintf("cannot create the directories above work dir %s: %s", dir,
				 strerror(errno));
		free(abs);
		return -1;
	}
	*parent = xstrdup(real);
	*name = xstrdup(slash + 1);
	free(abs);
	return 0;
}

/* Opens (creating when missing) and checks the work dir; its fd, or -1. */
static int open_workdir(const char *dir, char **resolved, char **err)
{
	char *parent = NULL, *name = NULL, *real = NULL;
	int pfd = -1, fd = -1;

	if (split_workdir(dir, &parent, &name, err) < 0)
		return -1;
	real = xasprintf("%s/%s", strcmp(parent, "/") ? parent : "", name);
	if (is_system_dir(real)) {
		*err = xasprintf("refusing to use %s as work dir: it is a system directory; "
				 "give a directory of its own, e.g. --workdir %s/loadd",
				 real, real);
		goto out;
	}
	if ((pfd = open_checked_parents(parent, err)) < 0)
		goto out;
	if (mkdirat(pfd, name, geteuid() == 0 ? 0711 : 0700) < 0 && errno != EEXIST) {
		*err = xasprintf("cannot create work dir %s: %s", real, strerror(errno));
		goto out;
	}
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		struct stat st;
		bool link = fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode);
		*err = link ? xasprintf("refusing work dir %s: it is a symbolic link, which "
					"whoever made it could point anywhere; remove it (loadd "
					"makes a real directory) or give another --workdir",
					real)
			    : xasprintf("cannot open work dir %s: %s", real, strerror(errno));
		goto out;
	}
	if (check_workdir(fd, real, err) < 0 || claim_workdir(fd, real, err) < 0 ||
	    let_loads_in(fd, real, err) < 0) {
		close(fd);
		fd = -1;
		goto out;
	}
	*resolved = real;
	real = NULL;
out:
	if (pfd >= 0)
		close(pfd);
	free(parent);
	free(name);
	free(real);
	return fd;
}

int workdir_open(const char *dir, char **resolved, char **err)
{
	char *real = NULL;
	int fd = open_workdir(dir, &real, err);

	if (fd < 0)
		return -1;
	int lockfd = openat(fd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	close(fd);
	if (lockfd < 0) {
		*err = xasprintf("cannot create lock file in work dir %s: %s", real,
				 strerror(errno));
		free(real);
		return -1;
	}
	if (flock(lockfd, LOCK_EX | LOCK_NB) < 0) {
		long pid = lock_holder(lockfd);
		*err = pid > 0 ? xasprintf("work dir %s is in use by another loadd (pid %ld); "
					   "stop it first or give --workdir",
					   real, pid)
			       : xasprintf("work dir %s is in use by another loadd; "
					   "stop it first or give --workdir",
					   real);
		close(lockfd);
		free(real);
		return -1;
	}
	char pid[32];
	int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(lockfd, 0) < 0 || pwrite(lockfd, pid, len, 0) != len) {
		*err = xasprintf("cannot write lock file in work dir %s: %s", real,
				 strerror(errno));
		close(lockfd);
		free(real);
		return -1;
	}
	*resolved = real;
	return lockfd;
}

/* ---- the manifest of what loadd made ---- */

/* The manifest's text (xmalloc'd, "" when there is none yet), or NULL. */
static char *manifest_read(int wfd)
{
	int fd = openat(wfd, WORKDIR_MANIFEST, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT ? xstrdup("") : NULL;
	buf = xmalloc(cap);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static bool manifest_has(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, name, n) == 0 && p[n] == '\n')
			return true;
	return false;
}

static int manifest_add(int wfd, const char *name)
{
	int fd = openat(wfd, WORKDIR_MANIFEST,
			O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	char *line = xasprintf("%s\n", name);
	ssize_t len = (ssize_t)strlen(line);
	int rc = fd >= 0 && write(fd, line, (size_t)len) == len && fsync(fd) == 0 ? 0 : -1;

	if (fd >= 0)
		close(fd);
	free(line);
	return rc;
}

/* Replaces the manifest by text, atomically. */
static int manifest_write(int wfd, const char *text)
{
	static const char tmp[] = WORKDIR_MANIFEST ".new";
	size_t len = strlen(text);
	int fd, rc;

	unlinkat(wfd, tmp, 0);
	fd = openat(wfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	rc = write(fd, text, len) == (ssize_t)len && fsync(fd) == 0 ? 0 : -1;
	close(fd);
	if (rc == 0)
		rc = renameat(wfd, tmp, wfd, WORKDIR_MANIFEST);
	return rc;
}

static bool safe_entry_name(const char *name)
{
	return name[0] != '\0' && name[0] != '.' && strchr(name, '/') == NULL &&
	       strchr(name, '\n') == NULL;
}

int workdir_make(const char *workdir, const char *name, uid_t uid, gid_t gid, bool empty,
		 char **err)
{
	int wfd = open(workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd = -1;
	char *manifest = NULL;
	struct stat st;
	int rc = -1;

	if (wfd < 0) {
		*err = xasprintf("cannot open work dir %s: %s", workdir, strerror(errno));
		return -1;
	}
	if (!safe_entry_name(name)) {
		*err = xasprintf("'%s' cannot be a directory of the work dir", name);
		goto out;
	}
	if ((manifest = manifest_read(wfd)) == NULL) {
		*err = xasprintf("cannot read %s/%s: %s", workdir, WORKDIR_MANIFEST,
				 strerror(errno));
		goto out;
	}
	if (fstatat(wfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!manifest_has(manifest, name)) {
			*err = xasprintf("%s/%s is in the work dir but loadd did not make it; move "
					 "it away (loadd deletes what it makes there)",
					 workdir, name);
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			*err = xasprintf("%s/%s is not a directory", workdir, name);
			goto out;
		}
		/* Emptied by removing it (relative to the work dir's descriptor);
		 * it is made again below. */
		if (empty && remove_tree_at(wfd, name) < 0) {
			*err = xasprintf("cannot empty %s/%s: %s", workdir, name, strerror(errno));
			goto out;
		}
	} else if (errno != ENOENT) {
		*err = xasprintf("cannot check %s/%s: %s", workdir, name, strerror(errno));
		goto out;
	} else if (!manifest_has(manifest, name) && manifest_add(wfd, name) < 0) {
		*err = xasprintf("cannot record %s in %s/%s: %s", name, workdir, WORKDIR_MANIFEST,
				 strerror(errno));
		goto out;
	}
	if (mkdirat(wfd, name, 0700) < 0 && errno != EEXIST) {
		*err = xasprintf("cannot create %s/%s: %s", workdir, name, strerror(errno));
		goto out;
	}
	fd = openat(wfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || (geteuid() == 0 && fchown(fd, uid, gid) < 0)) {
		*err = xasprintf("cannot give %s/%s to uid %u: %s", workdir, name, (unsigned)uid,
				 strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	close(wfd);
	free(manifest);
	return rc;
}

static bool is_scratch(const char *name)
{
	return strncmp(name, "load-", 5) == 0 || strncmp(name, "cache-", 6) == 0;
}

/* Entries named like loadd's scratch dirs that loadd did not make. */
static void warn_unrecorded(int wfd, const char *workdir, const char *manifest)
{
	int dfd = openat(wfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;

	if (d == NULL) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (is_scratch(de->d_name) && !manifest_has(manifest, de->d_name))
			log_warn("left %s/%s alone: loadd did not make it", workdir, de->d_name);
	closedir(d);
}

void workdir_sweep(const char *workdir)
{
	int wfd = open(workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char *manifest, *kept, *save = NULL;
	size_t kept_len = 0;

	if (wfd < 0)
		return;
	if ((manifest = manifest_read(wfd)) == NULL) {
		log_warn("cannot read %s/%s: %s", workdir, WORKDIR_MANIFEST, strerror(errno));
		close(wfd);
		return;
	}
	warn_unrecorded(wfd, workdir, manifest);
	kept = xcalloc(1, strlen(manifest) + 2);
	for (char *name = strtok_r(manifest, "\n", &save); name;
	     name = strtok_r(NULL, "\n", &save)) {
		struct stat st;
		char *path;

		if (!safe_entry_name(name))
			continue;
		if (fstatat(wfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			continue; /* gone: forget it */
		if (is_scratch(name)) {
			path = xasprintf("%s/%s", workdir, name);
			if (remove_tree_at(wfd, name) == 0) {
				log_info("removed %s, left by an earlier run", path);
				free(path);
				continue;
			}
			log_warn("cannot remove %s, left by an earlier run: %s", path,
				 strerror(errno));
			free(path);
		}
		kept_len += (size_t)sprintf(kept + kept_len, "%s\n", name);
	}
	if (manifest_write(wfd, kept) < 0)
		log_warn("cannot rewrite %s/%s: %s", workdir, WORKDIR_MANIFEST, strerror(errno));
	free(kept);
	free(manifest);
	close(wfd);
}

/* A lock file of its own beside the database: a second descriptor on the
 * SQLite file itself would, once closed, drop SQLite's own POSIX locks on
 * it. Taken before the database is opened, so a second loadd never
 * migrates or writes a database another one uses. */
int db_lock(const char *db_path, char **err)
{
	char *path = xasprintf("%s.lock", db_path);
	int fd;

	if (trust_make_parent_dirs(db_path, 0755, "database", err) < 0) {
		free(path);
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		*err = xasprintf("cannot open the database's lock file %s: %s", path,
				 strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		*err = xasprintf("database %s is in use by another loadd; "
				 "stop it first (loadctl stop) or give --db",
				 db_path);
		close(fd);
		return -1;
	}
	return fd;
}
