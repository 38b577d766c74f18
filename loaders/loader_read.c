// SPDX-License-Identifier: GPL-2.0-or-later
/* The read loader (the paper's read load): read a file of `size` to
 * /dev/null, over and over. The file is made once and kept for every phase
 * and round of the run (in the load's cache dir, which loadd removes at the
 * end of the run). With cache = drop its pages are evicted before each pass
 * and behind the reader, so every pass reaches the disk and the load does
 * not push the rest of the page cache out; with keep, the page cache serves
 * what it holds, as in the paper. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader.h"
#include "core_file.h"
#include "parse.h"
#include "timeutil.h"
#include "xalloc.h"

enum read_cache { READ_KEEP, READ_DROP };

struct read_config {
	struct size_spec size;
	struct size_spec block;
	int cache;
	struct size_spec reserve;
};

static const char *const read_cache_modes[] = { "keep", "drop", NULL };

/* clang-format off */
static const struct option_def read_options[] = {
	{ .key = "size", .type = OPT_SIZE, .offset = offsetof(struct read_config, size),
	  .def = "ram", .min = 4096, .max = LLONG_MAX,
	  .help = "size of the file: 4G, 50% of RAM, or a formula of ram and swap; the paper's "
		  "is ram, the size of physical memory" },
	{ .key = "block", .type = OPT_SIZE, .offset = offsetof(struct read_config, block),
	  .def = "1M", .min = 4096, .max = 64LL << 20,
	  .help = "bytes read at once" },
	{ .key = "cache", .type = OPT_ENUM, .offset = offsetof(struct read_config, cache),
	  .def = "drop", .choices = read_cache_modes,
	  .help = "drop: evict the file's pages before each pass and behind the reader "
		  "(posix_fadvise DONTNEED), so reads reach the disk; keep: as the paper, the page "
		  "cache serves what it holds" },
	{ .key = "reserve", .type = OPT_SIZE, .offset = offsetof(struct read_config, reserve),
	  .def = "1G",
	  .help = "free space to leave on the filesystem; a larger size is clamped to fit" },
	{ .key = NULL },
};
/* clang-format on */

/* With cache = drop, pages already read are evicted every DROP_BEHIND bytes. */
#define DROP_BEHIND (8ULL << 20)

static int read_check(const void *config, const struct load_def *def, const char *file, FILE *errs)
{
	const struct read_config *cfg = config;

	return check_plain_size(&cfg->block, def, "block", file, errs) +
	       check_plain_size(&cfg->reserve, def, "reserve", file, errs);
}

static void read_describe(const void *config, char *buf, size_t len)
{
	const struct read_config *cfg = config;
	char size[64], block[32], reserve[32];

	size_format(&cfg->size, size, sizeof size);
	size_format(&cfg->block, block, sizeof block);
	size_format(&cfg->reserve, reserve, sizeof reserve);
	snprintf(buf, len, "a %s file read in %s blocks, cache %s, %s left free", size, block,
		 read_cache_modes[cfg->cache], reserve);
}

struct reader {
	const struct loader_ctx *ctx;
	const struct read_config *cfg;
	const char *dir; /* where the file lives */
	char *path;      /* the finished file */
	char *part;      /* the file while it is being made */
	char *buf;
	size_t block;
};

/* Random bytes, so that a compressing filesystem stores every block whole. */
static void fill_random(char *buf, size_t len)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL ^ (uint64_t)mono_ns();

	for (size_t i = 0; i + sizeof x <= len; i += sizeof x) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, sizeof x);
	}
}

/* Opens the file being made and finds how much of it an earlier start,
 * stopped with the phase, already wrote (whole blocks), so that a file
 * larger than a phase is lets is still made in the end. */
static int read_open_part(struct reader *rd, uint64_t *have)
{
	struct stat st;
	int fd = open(rd->part, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	*have = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && st.st_size > 0)
		/* block >= 4K (its range) */
		/* NOLINTNEXTLINE(clang-analyzer-core.DivideZero) */
		*have = (uint64_t)st.st_size - (uint64_t)st.st_size % rd->block;
	return fd;
}

/* Makes the file under a temporary name until it is whole and on the disk,
 * so that a file cut short is never read as made. Returns 0, or -1 when
 * stopped or after an error other than ENOSPC. */
static int read_make_file(struct reader *rd)
{
	int64_t t0 = mono_ns();
	char what[32], where[32];
	uint64_t size, have;
	int fd;

	fd = read_open_part(rd, &have);
	size = file_plan_size(rd->ctx, rd->dir, &rd->cfg->size, rd->block, rd->cfg->reserve.bytes,
			      have);
	fill_random(rd->buf, rd->block);
	while (size > 0 && !loader_stopping()) {
		struct file_fill f = {
			.fd = fd,
			.size = size,
			.buf = rd->buf,
			.block = rd->block,
			.src_fd = -1,
			.sync = true,
			.shm = rd->ctx->shm,
		};
		enum fill_result r;

		if (have > size)
			have = 0;
		format_bytes(size, what, sizeof what);
		format_bytes(have, where, sizeof where);
		loader_event(rd->ctx, "info",
			     "making its %s file %s%s%s; reads start when it is "
			     "complete",
			     what, rd->path, have ? ", resuming after " : "", have ? where : "");
		if (fd < 0 || ftruncate(fd, (off_t)have) < 0 ||
		    lseek(fd, (off_t)have, SEEK_SET) < 0) {
			r = errno == ENOSPC || errno == EDQUOT ? FILL_ENOSPC : FILL_FAILED;
			f.failed_call = fd < 0 ? "create" : "truncate";
			f.error = errno;
		} else {
			f.written = have;
			r = file_fill_run(&f);
		}
		if (fd >= 0 && close(fd) < 0 && r == FILL_DONE) {
			f.failed_call = "close";
			f.error = errno;
			r = errno == ENOSPC || errno == EDQUOT ? FILL_ENOSPC : FILL_FAILED;
		}
		fd = -1;
		if (r == FILL_DONE && rename(rd->part, rd->path) < 0) {
			f.failed_call = "rename";
			f.error = errno;
			r = FILL_FAILED;
		}
		switch (r) {
		case FILL_DONE:
			loader_event(rd->ctx, "info", "file made in %.1f s",
				     (double)(mono_ns() - t0) / NSEC_PER_SEC);
			return 0;
		case FILL_STOPPED:
			/* Kept: the next start goes on from here. */
			return -1;
		case FILL_ENOSPC: {
			uint64_t next = file_shrink(size, rd->block);

			loader_error(rd->ctx->shm);
			unlink(rd->part);
			format_bytes(f.written, where, sizeof where);
			format_bytes(next, what, sizeof what);
			loader_event(rd->ctx, "enospc",
				     "no space left on the filesystem of %s after "
				     "%s of its file: removed it; making a %s one",
				     rd->dir, where, what);
			if (f.written < rd->block)
				loader_nap(1000);
			size = next;
			fd = read_open_part(rd, &have);
			break;
		}
		case FILL_FAILED:
			loader_error(rd->ctx->shm);
			loader_event(rd->ctx, "error", "%s %s: %s", f.failed_call, rd->part,
				     strerror(f.error));
			unlink(rd->part);
			return -1;
		}
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* One whole pass over the file. Returns 1 when complete, 0 when stopped,
 * -1 on an error (told as an event). */
static int read_pass(struct reader *rd, int fd, int devnull, uint64_t size)
{
	bool drop = rd->cfg->cache == READ_DROP;
	uint64_t done = 0, dropped = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		goto fail;
	if (drop)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	while (done < size) {
		ssize_t n = read(fd, rd->buf, rd->block);

		if (loader_stopping())
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0) {
			loader_event(rd->ctx, "error",
				     "%s ended after %llu bytes of %llu; making it "
				     "again",
				     rd->path, (unsigned long long)done, (unsigned long long)size);
			return -1;
		}
		/* As the paper's cat FILE > /dev/null. */
		if (write(devnull, rd->buf, (size_t)n) < 0 && errno != EINTR)
			goto fail;
		done += (uint64_t)n;
		loader_progress(rd->ctx->shm, 0, (uint64_t)n, 0);
		if (drop && done - dropped >= DROP_BEHIND) {
			posix_fadvise(fd, (off_t)dropped, (off_t)(done - dropped),
				      POSIX_FADV_DONTNEED);
			dropped = done;
		}
	}
	loader_progress(rd->ctx->shm, 1, 0, 0);
	return 1;
fail:
	loader_event(rd->ctx, "error", "reading %s: %s; opening it again", rd->path,
		     strerror(errno));
	return -1;
}

static int read_run(const struct loader_ctx *ctx)
{
	const struct read_config *cfg = ctx->config;
	struct reader rd = { .ctx = ctx, .cfg = cfg, .block = (size_t)cfg->block.bytes };
	int devnull, status = 0;

	rd.dir = ctx->cache_dir != NULL ? ctx->cache_dir : ctx->dir;
	if (mkdir(rd.dir, 0700) < 0 && errno != EEXIST) {
		loader_event(ctx, "error", "cannot create %s: %s", rd.dir, strerror(errno));
		return 1;
	}
	rd.path = xasprintf("%s/read.dat", rd.dir);
	rd.part = xasprintf("%s/read.part", rd.dir);
	rd.buf = xmalloc(rd.block);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0) {
		loader_event(ctx, "error", "cannot open /dev/null: %s", strerror(errno));
		status = 1;
		goto out;
	}
	while (!loader_stopping()) {
		struct stat st;
		int fd, r = 1;

		fd = open(rd.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 && errno == ENOENT) {
			if (read_make_file(&rd) < 0) {
				loader_nap(1000);
				continue;
			}
			fd = open(rd.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		}
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
			loader_error(ctx->shm);
			loader_event(ctx, "error", "cannot open %s: %s; making it again", rd.path,
				     fd < 0 ? strerror(errno) : "empty file");
			if (fd >= 0)
				close(fd);
			unlink(rd.path);
			loader_nap(1000);
			continue;
		}
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
		while (r == 1)
			r = read_pass(&rd, fd, devnull, (uint64_t)st.st_size);
		close(fd);
		if (r < 0) {
			loader_error(ctx->shm);
			unlink(rd.path);
			loader_nap(1000);
		}
	}
	close(devnull);
out:
	free(rd.buf);
	free(rd.part);
	free(rd.path);
	return status;
}

const struct loader_ops loader_read_ops = {
	.version = LOADER_OPS_VERSION,
	.name = "read",
	.summary =
		"read a file of `size` to /dev/null, over and over (the file is made once a run)",
	.options = read_options,
	.config_size = sizeof(struct read_config),
	.cycle_unit = "passes",
	.ops_unit = NULL,
	.reports_bytes = true,
	.expect = "psi_io >= 1% | mib_s >= 10",
	.check = read_check,
	.run = read_run,
	.describe = read_describe,
};
