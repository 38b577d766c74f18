// SPDX-License-Identifier: GPL-2.0-or-later
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

int make_dirs(const char *dir, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(dir);

	if (len >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, dir, len + 1);
	for (char *p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int make_parent_dirs(const char *path, mode_t mode)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int rc;

	if (slash == NULL || slash == path)
		return 0;
	dir = xstrndup(path, (size_t)(slash - path));
	rc = make_dirs(dir, mode);
	free(dir);
	return rc;
}

char *absolute_path(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

char *workdir_default(void)
{
	const char *cache = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (geteuid() == 0)
		return xstrdup("/var/lib/loadd/work");
	if (cache != NULL && cache[0] == '/')
		return xasprintf("%s/loadd", cache);
	return xasprintf("%s/.cache/loadd", home != NULL ? home : "/tmp");
}
