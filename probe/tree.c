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
#include "xalloc.h"

/* Bump when the names or contents the builder makes change: old trees then
 * get new fingerprints and are never compared with new ones. */
#define TREE_GENERATOR_VERSION 1
#define TREE_STAMP ".loadd-tree-complete"
#define TREE_MAX_ENTRIES 2000000ULL
#define TREE_MAX_FILE_SIZE (1024 * 1024)

static const struct {
	const char *key;
	size_t offset;
	long min, max;
} tree_keys[] = {
	{ "depth", offsetof(struct tree_spec, depth), 0, 8 },
	{ "fanout", offsetof(struct tree_spec, fanout), 1, 64 },
	{ "files", offsetof(struct tree_spec, files), 0, 1000 },
	{ "size", offsetof(struct tree_spec, file_size), 0, TREE_MAX_FILE_SIZE },
};
#define NKEYS (sizeof tree_keys / sizeof tree_keys[0])

/* Messages naming the offending key live here until the caller prints
 * them (err is a static message by the parsers' convention). */
static _Thread_local char tree_errbuf[160];

static int spec_error(const char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int spec_error(const char **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tree_errbuf, sizeof tree_errbuf, fmt, ap);
	va_end(ap);
	*err = tree_errbuf;
	return -1;
}

static int parse_value(size_t k, const char *value, long *out, const char **err)
{
	const char *why;

	if (tree_keys[k].offset == offsetof(struct tree_spec, file_size)) {
		struct size_spec size;
		if (parse_size(value, &size, &why) < 0)
			return spec_error(err, "size: %s", why);
		if (size.kind != SIZE_BYTES)
			return spec_error(err, "size must be a number of bytes like 512 or 4K, not '%s'",
					  value);
		if (size.bytes > TREE_MAX_FILE_SIZE)
			return spec_error(err, "size must be at most 1M, not '%s'", value);
		*out = (long)size.bytes;
		return 0;
	}
	if (parse_long(value, out, &why) < 0)
		return spec_error(err, "%s: %s", tree_keys[k].key, why);
	return 0;
}

/* Ranges and the size of the whole tree. */
static int spec_check(const struct tree_spec *spec, const char **err)
{
	uint64_t entries;

	for (size_t k = 0; k < NKEYS; k++) {
		long v = *(const long *)((const char *)spec + tree_keys[k].offset);
		if (v < tree_keys[k].min || v > tree_keys[k].max)
			return spec_error(err, "%s must be %ld..%ld, not %ld", tree_keys[k].key,
					  tree_keys[k].min, tree_keys[k].max, v);
	}
	entries = tree_entries(spec);
	if (entries > TREE_MAX_ENTRIES)
		return spec_error(err,
				  "depth=%ld fanout=%ld files=%ld makes %" PRIu64
				  " entries, more than the %llu allowed",
				  spec->depth, spec->fanout, spec->files, entries, TREE_MAX_ENTRIES);
	return 0;
}

int tree_spec_parse(const char *s, void *dst, const char **err)
{
	struct tree_spec spec = *(struct tree_spec *)dst;
	bool seen[NKEYS] = { false };
	const char *p = s;
	int nwords = 0;

	for (;;) {
		char word[128], *eq;
		size_t len, k;

		p += strspn(p, " \t,");
		if (*p == '\0')
			break;
		len = strcspn(p, " \t,");
		if (len >= sizeof word)
			return spec_error(err, "'%.20s...' is too long", p);
		memcpy(word, p, len);
		word[len] = '\0';
		p += len;
		nwords++;

		eq = strchr(word, '=');
		if (eq == NULL)
			return spec_error(err, "'%s' is not key=value (keys: depth, fanout, files, size)",
					  word);
		*eq = '\0';
		for (k = 0; k < NKEYS; k++)
			if (strcmp(word, tree_keys[k].key) == 0)
				break;
		if (k == NKEYS)
			return spec_error(err, "unknown key '%s' (keys: depth, fanout, files, size)",
					  word);
		if (seen[k])
			return spec_error(err, "%s is given twice", word);
		seen[k] = true;
		if (parse_value(k, eq + 1, (long *)((char *)&spec + tree_keys[k].offset), err) < 0)
			return -1;
	}
	if (nwords == 0)
		return spec_error(err, "empty (expected e.g. depth=4 fanout=8 files=10 size=0)");
	if (spec_check(&spec, err) < 0)
		return -1;
	*(struct tree_spec *)dst = spec;
	return 0;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL

static void spec_canonical(const struct tree_spec *spec, char *buf, size_t len)
{
	snprintf(buf, len, "loadd-tree/%d depth=%ld fanout=%ld files=%ld size=%ld",
		 TREE_GENERATOR_VERSION, spec->depth, spec->fanout, spec->files, spec->file_size);
}

void tree_fingerprint(const struct tree_spec *spec, char out[TREE_FINGERPRINT_LEN + 1])
{
	char canon[160];

	spec_canonical(spec, canon, sizeof canon);
	snprintf(out, TREE_FINGERPRINT_LEN + 1, "%016" PRIx64,
		 fnv1a(FNV_OFFSET, canon, strlen(canon)));
}

/* Saturates instead of wrapping, so an absurd spec reads as too big. */
static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t tree_entries(const struct tree_spec *spec)
{
	uint64_t dirs = 0, level = 1;
	uint64_t fanout = spec->fanout > 0 ? (uint64_t)spec->fanout : 0;
	uint64_t files = spec->files > 0 ? (uint64_t)spec->files : 0;

	for (long d = 0; d <= spec->depth; d++) {
		dirs = sat_add(dirs, level);
		level = sat_mul(level, fanout);
	}
	return sat_add(dirs, sat_mul(dirs, files));
}

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

	b->rel_len += (size_t)snprintf(b->rel + old, sizeof b->rel - old, "%s%s",
				       old ? "/" : "", name);
	return old;
}

/* Contents depend only on the file's path below the root: splitmix64
 * seeded with the path's hash. */
static void fill_content(struct builder *b)
{
	uint64_t x = fnv1a(FNV_OFFSET, b->rel, b->rel_len);
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

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
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

/* Removes name (below dfd) and everything in it without following a
 * symbolic link anywhere: each level is opened with O_NOFOLLOW. */
static int remove_at(int dfd, const char *name)
{
	struct dirent *de;
	DIR *dir;
	int fd, rc = 0, saved = 0;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP)
			return unlinkat(dfd, name, 0);
		return errno == ENOENT ? 0 : -1;
	}
	dir = fdopendir(fd);
	if (dir == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) {
			if (remove_at(fd, de->d_name) < 0 && rc == 0) {
				rc = -1;
				saved = errno;
			}
		} else if (unlinkat(fd, de->d_name, 0) < 0 && errno != ENOENT && rc == 0) {
			rc = -1;
			saved = errno;
		}
	}
	closedir(dir);
	if (rc < 0) {
		errno = saved;
		return -1;
	}
	return unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT ? -1 : 0;
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

	spec_canonical(spec, canon, sizeof canon);
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
	if (rc < 0 && remove_at(wfd, name) < 0)
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

	if (spec_check(spec, &why) < 0) {
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
			*err = xasprintf("refusing to use %s: it exists and is not a directory", path);
			goto fail;
		}
		if (stamp_matches(wfd, name, fp)) {
			log_debug("reusing the tree %s", path);
			close(wfd);
			return path;
		}
		log_info("removing the incomplete tree %s", path);
		if (remove_at(wfd, name) < 0) {
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
