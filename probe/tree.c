// SPDX-License-Identifier: GPL-2.0-or-later
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "parse.h"
#include "remove_tree.h"
#include "write_all.h"
#include "xalloc.h"

#define TREE_STAMP ".loadd-tree-complete"

/* Builder state: the path below the root (for messages and file contents)
 * and one buffer for file contents. */
struct builder {
	const struct tree_spec *spec;
	char rel[128];
	size_t rel_len;
	unsigned char *content;
	char failed_at[160];
};

static size_t rel_push(struct builder *b, const char *name)
{
	size_t old = b->rel_len;

	b->rel_len += (size_t)snprintf(b->rel + old, sizeof b->rel - old, "%s%s", old ? "/" : "",
				       name);
	return old;
}

/* Contents depend only on the file's path below the root: splitmix64
 * seeded with the path's hash. */
static void fill_content(struct builder *b)
{
	uint64_t x = tree_hash(b->rel, b->rel_len);
	size_t n = (size_t)b->spec->file_size;

	for (size_t i = 0; i < n; i += 8) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		for (size_t j = 0; j < 8 && i + j < n; j++)
			b->content[i + j] = (unsigned char)(z >> (8 * j));
	}
}

static int build_file(struct builder *b, int dfd, const char *name)
{
	int fd, saved;

	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (b->spec->file_size > 0) {
		fill_content(b);
		if (write_all(fd, b->content, (size_t)b->spec->file_size) < 0) {
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
	}
	return close(fd);
}

static volatile sig_atomic_t *cancel_flag;

void tree_set_cancel(volatile sig_atomic_t *flag)
{
	cancel_flag = flag;
}

static int build_dir(struct builder *b, int dfd, long level)
{
	char name[24];

	/* A stop signal during a long build ends it here (the incomplete
	 * tree is removed). */
	if (cancel_flag != NULL && *cancel_flag != 0) {
		errno = EINTR;
		return -1;
	}

	for (long i = 0; i < b->spec->files; i++) {
		size_t old;
		snprintf(name, sizeof name, "f%03ld", i);
		old = rel_push(b, name);
		if (build_file(b, dfd, name) < 0)
			return -1;
		b->rel_len = old;
		b->rel[old] = '\0';
	}
	if (level >= b->spec->depth)
		return 0;
	for (long i = 0; i < b->spec->fanout; i++) {
		size_t old;
		int sub, rc, saved;

		snprintf(name, sizeof name, "d%02ld", i);
		old = rel_push(b, name);
		if (mkdirat(dfd, name, 0755) < 0)
			return -1;
		sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			return -1;
		rc = build_dir(b, sub, level + 1);
		saved = errno;
		close(sub);
		if (rc < 0) {
			errno = saved;
			return -1;
		}
		b->rel_len = old;
		b->rel[old] = '\0';
	}
	return 0;
}

/* True when the tree below dfd carries a stamp with this fingerprint. */
static bool stamp_matches(int wfd, const char *name, const char *fp)
{
	char path[64], buf[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "%s/%s", name, TREE_STAMP);
	fd = openat(wfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < TREE_FINGERPRINT_LEN + 1)
		return false;
	return memcmp(buf, fp, TREE_FINGERPRINT_LEN) == 0 && buf[TREE_FINGERPRINT_LEN] == '\n';
}

static int write_stamp(int tfd, const struct tree_spec *spec, const char *fp)
{
	char canon[160], text[200];
	int fd, n, saved;

	tree_spec_canonical(spec, canon, sizeof canon);
	n = snprintf(text, sizeof text, "%s\n%s\n", fp, canon);
	fd = openat(tfd, TREE_STAMP, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (write_all(fd, text, (size_t)n) < 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

/* Builds the tree as wfd/name, which does not exist. */
static int build_tree(int wfd, const char *name, const struct tree_spec *spec, const char *fp,
		      char **err, const char *path)
{
	struct builder b = { .spec = spec };
	int tfd, rc;

	if (mkdirat(wfd, name, 0755) < 0) {
		*err = xasprintf("cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	tfd = openat(wfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0) {
		*err = xasprintf("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	b.content = xmalloc(spec->file_size > 0 ? (size_t)spec->file_size : 1);
	rc = build_dir(&b, tfd, 0);
	if (rc < 0)
		*err = xasprintf("cannot create %s/%s: %s", path, b.rel, strerror(errno));
	else if ((rc = write_stamp(tfd, spec, fp)) < 0)
		*err = xasprintf("cannot write %s/%s: %s", path, TREE_STAMP, strerror(errno));
	free(b.content);
	close(tfd);
	if (rc < 0 && remove_tree_at(wfd, name) < 0)
		log_warn("cannot remove the incomplete tree %s: %s", path, strerror(errno));
	return rc;
}

char *tree_ensure(const char *workdir, const struct tree_spec *spec, char **err)
{
	char fp[TREE_FINGERPRINT_LEN + 1], name[TREE_FINGERPRINT_LEN + 8];
	const char *why;
	uint64_t entries;
	struct stat st;
	char *path;
	int wfd;

	if (tree_spec_check(spec, &why) < 0) {
		*err = xasprintf("invalid tree: %s", why);
		return NULL;
	}
	tree_fingerprint(spec, fp);
	snprintf(name, sizeof name, "tree-%s", fp);
	path = xasprintf("%s/%s", workdir, name);

	wfd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (wfd < 0) {
		*err = xasprintf("cannot open the work dir %s: %s", workdir, strerror(errno));
		goto fail;
	}
	if (fstatat(wfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			*err = xasprintf("refusing to use %s: it is a symbolic link", path);
			goto fail;
		}
		if (!S_ISDIR(st.st_mode)) {
			*err = xasprintf("refusing to use %s: it exists and is not a directory",
					 path);
			goto fail;
		}
		if (stamp_matches(wfd, name, fp)) {
			log_debug("reusing the tree %s", path);
			close(wfd);
			return path;
		}
		log_info("removing the incomplete tree %s", path);
		if (remove_tree_at(wfd, name) < 0) {
			*err = xasprintf("cannot remove the incomplete tree %s: %s", path,
					 strerror(errno));
			goto fail;
		}
	} else if (errno != ENOENT) {
		*err = xasprintf("cannot use %s: %s", path, strerror(errno));
		goto fail;
	}

	entries = tree_entries(spec);
	log_info("building the tree %s (%" PRIu64 " %s)", path, entries,
		 entries == 1 ? "entry" : "entries");
	if (build_tree(wfd, name, spec, fp, err, path) < 0)
		goto fail;
	close(wfd);
	return path;

fail:
	if (wfd >= 0)
		close(wfd);
	free(path);
	return NULL;
}
