// SPDX-License-Identifier: GPL-2.0-or-later
#include "trust.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "xalloc.h"

bool trust_owner(uid_t uid)
{
	static uid_t exe_owner = (uid_t)-1;
	static bool looked;
	struct stat st;

	if (uid == 0 || uid == geteuid())
		return true;
	if (!looked) {
		looked = true;
		if (stat("/proc/self/exe", &st) == 0)
			exe_owner = st.st_uid;
	}
	return uid == exe_owner;
}

/* Writable by a user we do not trust: other-writable, or group-writable by
 * a group other than root's or loadd's own (a user's private group). */
static bool writable_by_others(const struct stat *st)
{
	return (st->st_mode & S_IWOTH) != 0 ||
	       ((st->st_mode & S_IWGRP) != 0 && st->st_gid != 0 && st->st_gid != getegid());
}

static int check_dir(const char *dir, char **err)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		*err = xasprintf("%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		*err = xasprintf("%s is not a directory", dir);
		return -1;
	}
	if (!trust_owner(st.st_uid)) {
		*err = xasprintf("directory %s belongs to uid %u, not to root or the user running "
				 "loadd; use a directory of your own",
				 dir, (unsigned)st.st_uid);
		return -1;
	}
	/* Sticky: others may add names but not replace or remove ours. */
	if (writable_by_others(&st) && (st.st_mode & S_ISVTX) == 0) {
		*err = xasprintf(
			"directory %s is writable by other users (mode %04o), who could "
			"swap what loadd puts there; chmod go-w it or use another directory",
			dir, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int trust_dir_chain(const char *dir, char **err)
{
	char resolved[PATH_MAX];
	char *p;

	*err = NULL;
	if (realpath(dir, resolved) == NULL) {
		*err = xasprintf("%s: %s", dir, strerror(errno));
		return -1;
	}
	/* From the directory up to the root: each must be as safe as the last. */
	for (;;) {
		if (check_dir(resolved[0] != '\0' ? resolved : "/", err) < 0)
			return -1;
		p = strrchr(resolved, '/');
		if (p == NULL || resolved[0] == '\0')
			return 0;
		*p = '\0';
	}
}

int trust_file(const char *path, const char *what, char **err)
{
	char resolved[PATH_MAX];
	struct stat st;
	char *dir;
	int rc;

	*err = NULL;
	if (realpath(path, resolved) == NULL || stat(resolved, &st) < 0) {
		*err = xasprintf("%s %s: %s", what, path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("%s %s is not a regular file", what, path);
		return -1;
	}
	if (!trust_owner(st.st_uid)) {
		*err = xasprintf("%s %s belongs to uid %u, not to root or the user running loadd, "
				 "so loadd will not follow it; chown it or use one of your own",
				 what, path, (unsigned)st.st_uid);
		return -1;
	}
	if (writable_by_others(&st)) {
		*err = xasprintf("%s %s is writable by other users (mode %04o); chmod go-w it",
				 what, path, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	dir = xstrndup(resolved, (size_t)(strrchr(resolved, '/') - resolved));
	rc = trust_dir_chain(dir[0] != '\0' ? dir : "/", err);
	if (rc < 0) {
		char *msg = xasprintf("%s %s: %s", what, path, *err);

		free(*err);
		*err = msg;
	}
	free(dir);
	return rc;
}

int trust_make_parent_dirs(const char *path, mode_t mode, const char *what, char **err)
{
	const char *slash = strrchr(path, '/');
	char *dir, *existing, *cut;
	struct stat st;
	int rc = -1;

	*err = NULL;
	if (slash == NULL)
		return trust_dir_chain(".", err);
	dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	/* Check what exists before making anything below it. */
	existing = xstrdup(dir);
	while (stat(existing, &st) < 0 && (cut = strrchr(existing, '/')) != NULL) {
		if (cut == existing) {
			cut[1] = '\0';
			break;
		}
		*cut = '\0';
	}
	if (stat(existing, &st) < 0) {
		free(existing);
		existing = xstrdup(".");
	}
	if (trust_dir_chain(existing[0] != '\0' ? existing : ".", err) == 0) {
		if (make_dirs(dir, mode) < 0)
			*err = xasprintf("cannot create %s: %s", dir, strerror(errno));
		else
			rc = trust_dir_chain(dir, err);
	}
	if (rc < 0) {
		char *msg = xasprintf("%s %s: %s", what, path, *err);

		free(*err);
		*err = msg;
	}
	free(existing);
	free(dir);
	return rc;
}

void trust_safe_path(void)
{
	if (geteuid() == 0)
		setenv("PATH", TRUST_SAFE_PATH, 1);
}
