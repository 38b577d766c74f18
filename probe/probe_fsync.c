// SPDX-License-Identifier: GPL-2.0-or-later
/* The fsync probe: an application saving its state. Every slot it writes
 * size bytes to a small file in the work dir and fdatasync()s it, and times
 * write + sync: under heavy writeback this is the multi-second stall of an
 * editor or a browser saving. The file (1 MiB, or one write when size is
 * larger) is laid out and synced before the first slot, as fio lays out its
 * file: each timed write then overwrites data already on disk, so a sync
 * never has to write a grown file's size and extents too. Writes go forward
 * through the file and wrap, so each sync has new data. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "paths.h"
#include "timeutil.h"
#include "xalloc.h"

#define FSYNC_FILE_BYTES (1 << 20) /* the state file, laid out at open */

struct fsync_config {
	struct probe_every every;
	struct size_spec size;
};

/* clang-format off */
static const struct option_def fsync_options[] = {
	PROBE_EVERY_OPTION(struct fsync_config, "write + fdatasync"),
	{ "size", OPT_SIZE, offsetof(struct fsync_config, size), "4K", 1, 64 << 20, NULL, NULL,
	  "bytes written before each fdatasync" },
	{ NULL },
};
/* clang-format on */

struct fsync_state {
	char *dir;
	char *path;
	int fd;
	char *buf;
	size_t size;
	uint64_t writes;
	uint64_t wrap; /* writes before the offset wraps to 0 */
};

static void fsync_close(void *state)
{
	struct fsync_state *st = state;

	if (st->fd >= 0)
		close(st->fd);
	unlink(st->path);
	rmdir(st->dir);
	free(st->path);
	free(st->dir);
	free(st->buf);
	free(st);
}

/* Writes the whole file once and syncs it, untimed. -1 with errno. */
static int fsync_lay_out(struct fsync_state *st)
{
	for (uint64_t i = 0; i < st->wrap; i++) {
		ssize_t n = pwrite(st->fd, st->buf, st->size, (off_t)(i * st->size));

		if (n < 0)
			return -1;
		if (n != (ssize_t)st->size) {
			errno = ENOSPC;
			return -1;
		}
	}
	return fdatasync(st->fd);
}

static void *fsync_open(const void *config, const struct probe_env *env, char **err)
{
	const struct fsync_config *cfg = config;
	struct fsync_state *st = xcalloc(1, sizeof *st);

	st->size = (size_t)size_resolve(&cfg->size, 0, 0);
	st->buf = xmalloc(st->size);
	memset(st->buf, 'x', st->size);
	st->dir = xasprintf("%s/probe-%s", env->workdir ? env->workdir : ".", env->name);
	st->path = xasprintf("%s/state", st->dir);
	if (mkdir(st->dir, 0700) < 0 && errno != EEXIST) {
		*err = xasprintf("cannot make %s: %s", st->dir, strerror(errno));
		st->fd = -1;
		fsync_close(st);
		return NULL;
	}
	st->fd = open(st->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (st->fd < 0) {
		*err = xasprintf("cannot create %s: %s", st->path, strerror(errno));
		fsync_close(st);
		return NULL;
	}
	st->wrap = st->size < FSYNC_FILE_BYTES ? FSYNC_FILE_BYTES / st->size : 1;
	if (fsync_lay_out(st) < 0) {
		*err = xasprintf("cannot lay out %s: %s", st->path, strerror(errno));
		fsync_close(st);
		return NULL;
	}
	return st;
}

static int fsync_measure(const void *config, void *state, const struct probe_window *w, int stop_fd,
			 struct sample *s, struct hist *h, char **err)
{
	struct fsync_state *st = state;
	off_t at = (off_t)(st->writes++ % st->wrap) * (off_t)st->size;
	ssize_t n;

	n = pwrite(st->fd, st->buf, st->size, at);
	if (n == (ssize_t)st->size && fdatasync(st->fd) < 0)
		n = -1;
	s->failed = n != (ssize_t)st->size;
	s->exit_code = s->failed ? errno : 0;
	if (s->failed) {
		*err = xasprintf("write + fdatasync of %s: %s", st->path,
				 n < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

static void fsync_describe(const void *config, char *buf, size_t len)
{
	const struct fsync_config *cfg = config;
	char size[32], every[32];

	size_format(&cfg->size, size, sizeof size);
	format_ms(cfg->every.every_ms, every, sizeof every);
	snprintf(buf, len, "write %s + fdatasync every %s", size, every);
}

const struct probe_ops probe_fsync_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "fsync",
	.summary = "an application saving its state: write size bytes to a small file in the "
		   "work dir and fdatasync() it, timed per operation",
	.options = fsync_options,
	.config_size = sizeof(struct fsync_config),
	.units = "ms",
	.open = fsync_open,
	.close = fsync_close,
	.describe = fsync_describe,
	.measure = fsync_measure,
};
