// SPDX-License-Identifier: GPL-2.0-or-later
/* The strict tree remover (see remove_tree.h). */
#include "remove_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

static int remove_entry(int parent_fd, const char *name, dev_t dev);

/* Removes what the directory `fd` holds; returns the first error's errno, 0
 * for none. */
static int remove_contents(int fd, dev_t dev)
{
	int dup_fd = dup(fd), first_err = 0;
	struct dirent *de;
	DIR *dir;

	if (dup_fd < 0)
		return errno;
	dir = fdopendir(dup_fd);
	if (dir == NULL) {
		first_err = errno;
		close(dup_fd);
		return first_err;
	}
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (remove_entry(fd, de->d_name, dev) < 0 && first_err == 0)
			first_err = errno;
	}
	closedir(dir);
	return first_err;
}

/* Opens name as a directory without following a link; the device is
 * checked on what was opened, not on a name that may have changed since. */
static int open_dir_here(int parent_fd, const char *name, dev_t dev)
{
	int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_dev != dev) {
		int saved = errno;

		if (st.st_dev != dev)
			saved = EXDEV;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

static int remove_entry(int parent_fd, const char *name, dev_t dev)
{
	int first_err = 0;

	/* Another pass catches entries a listing may skip while the directory
	 * is being emptied under it. */
	for (int pass = 0; pass < 3; pass++) {
		int fd = open_dir_here(parent_fd, name, dev);

		if (fd < 0) {
			if (errno == ENOENT)
				return 0;
			if (errno != ENOTDIR && errno != ELOOP)
				return -1;
			/* not a directory, or a link: the name goes, nothing behind it */
			return unlinkat(parent_fd, name, 0) < 0 && errno != ENOENT ? -1 : 0;
		}
		first_err = remove_contents(fd, dev);
		close(fd);
		if (unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return 0;
		if (errno != ENOTEMPTY && errno != EEXIST)
			return -1;
		/* What held the directory up is the error worth telling. */
		if (first_err != 0) {
			errno = first_err;
			return -1;
		}
	}
	return -1;
}

int remove_tree_at(int dir_fd, const char *name)
{
	struct stat st;

	/* Never the directory itself, its parent or the root. */
	if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strchr(name, '/') != NULL) {
		errno = EINVAL;
		return -1;
	}
	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	return remove_entry(dir_fd, name, st.st_dev);
}

int remove_tree(const char *path)
{
	char *copy = xstrdup(path), *slash;
	const char *name = copy;
	int dir_fd = AT_FDCWD, rc, saved;

	/* "a/b/" names b */
	for (size_t n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
		copy[n - 1] = '\0';
	slash = strrchr(copy, '/');
	if (slash != NULL) {
		*slash = '\0';
		dir_fd = open(slash == copy ? "/" : copy, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dir_fd < 0) {
			saved = errno;
			free(copy);
			errno = saved;
			return saved == ENOENT ? 0 : -1;
		}
		name = slash + 1;
	}
	rc = remove_tree_at(dir_fd, name);
	saved = errno;
	if (dir_fd != AT_FDCWD)
		close(dir_fd);
	free(copy);
	errno = saved;
	return rc;
}
