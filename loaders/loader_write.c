// SPDX-License-Identifier: GPL-2.0-or-later
/* The write loader (the paper's write load): read /dev/zero and write a
 * file of `size` in the load's scratch dir, then start over. Before it
 * starts it makes sure the file fits with `reserve` to spare; when the disk
 * fills up anyway (another process may fill it), it records the event,
 * removes its file and goes on with files half the size. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader.h"
#include "core_file.h"
#include "parse.h"
#include "xalloc.h"

struct write_config {
	struct size_spec size;
	struct size_spec block;
	bool fsync;
	struct size_spec reserve;
};

/* clang-format off */
static const struct option_def write_options[] = {
	{ .key = "size", .type = OPT_SIZE, .offset = offsetof(struct write_config, size),
	  .def = "ram", .min = 4096, .max = LLONG_MAX,
	  .help = "size of each file: 4G, 50% of RAM, or a formula of ram and swap; the paper's "
		  "is ram, the size of physical memory" },
	{ .key = "block", .type = OPT_SIZE, .offset = offsetof(struct write_config, block),
	  .def = "1M", .min = 4096, .max = 64LL << 20,
	  .help = "bytes read from /dev/zero and written at once" },
	{ .key = "fsync", .type = OPT_BOOL, .offset = offsetof(struct write_config, fsync),
	  .def = "no",
	  .help = "yes: fdatasync each file once it is written, so a cycle ends on the disk; no: "
		  "as the paper, the kernel writes back on its own" },
	{ .key = "reserve", .type = OPT_SIZE, .offset = offsetof(struct write_config, reserve),
	  .def = "1G",
	  .help = "free space to leave on the filesystem; a larger size is clamped to fit" },
	{ .key = NULL },
};
/* clang-format on */

static int write_check(const void *config, const struct load_def *def, const char *file, FILE *errs)
{
	const struct write_config *cfg = config;

	return check_plain_size(&cfg->block, def, "block", file, errs) +
	       check_plain_size(&cfg->reserve, def, "reserve", file, errs);
}

static void write_describe(const void *config, char *buf, size_t len)
{
	const struct write_config *cfg = config;
	char size[64], block[32], reserve[32];

	size_format(&cfg->size, size, sizeof size);
	size_format(&cfg->block, block, sizeof block);
	size_format(&cfg->reserve, reserve, sizeof reserve);
	snprintf(buf, len, "%s files from /dev/zero in %s blocks, fsync %s, %s left free", size,
		 block, cfg->fsync ? "yes" : "no", reserve);
}

/* After ENOSPC: the event, the file gone, a smaller size. Says so once
 * when the size cannot shrink further, then waits a second between tries. */
static uint64_t write_enospc(const struct loader_ctx *ctx, const char *path, uint64_t size,
			     uint64_t block, uint64_t written, bool *told_full)
{
	uint64_t next = file_shrink(size, block);
	char done[32], was[32], now[32];

	loader_error(ctx->shm);
	unlink(path);
	format_bytes(written, done, sizeof done);
	format_bytes(size, was, sizeof was);
	format_bytes(next, now, sizeof now);
	if (next < size)
		loader_event(ctx, "enospc",
			     "no space left on the filesystem of %s after %s of a %s "
			     "file: removed it; going on with %s files",
			     ctx->dir, done, was, now);
	else if (!*told_full)
		loader_event(ctx, "enospc",
			     "no space left on the filesystem of %s after %s of a %s "
			     "file: removed it; trying again every second",
			     ctx->dir, done, was);
	*told_full = next == size;
	if (written < block)
		loader_nap(1000);
	return next;
}

static int write_run(const struct loader_ctx *ctx)
{
	const struct write_config *cfg = ctx->config;
	size_t block = (size_t)cfg->block.bytes;
	char *path = xasprintf("%s/write.dat", ctx->dir);
	char *buf = xmalloc(block);
	bool told_full = false, told_error = false;
	uint64_t size;
	int zero;

	zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (zero < 0) {
		loader_event(ctx, "error", "cannot open /dev/zero: %s", strerror(errno));
		free(buf);
		free(path);
		return 1;
	}
	size = file_plan_size(ctx, ctx->dir, &cfg->size, block, cfg->reserve.bytes, 0);
	while (size > 0 && !loader_stopping()) {
		struct file_fill f = {
			.size = size,
			.buf = buf,
			.block = block,
			.src_fd = zero,
			.sync = cfg->fsync,
			.shm = ctx->shm,
			.count_bytes = true,
		};
		enum fill_result r;

		f.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (f.fd < 0) {
			r = errno == ENOSPC || errno == EDQUOT ? FILL_ENOSPC : FILL_FAILED;
			f.failed_call = "create";
			f.error = errno;
		} else {
			r = file_fill_run(&f);
			if (close(f.fd) < 0 && r == FILL_DONE) {
				f.failed_call = "close";
				f.error = errno;
				r = errno == ENOSPC || errno == EDQUOT ? FILL_ENOSPC : FILL_FAILED;
			}
		}
		switch (r) {
		case FILL_DONE:
			loader_progress(ctx->shm, 1, 0, 0);
			told_full = told_error = false;
			break;
		case FILL_STOPPED: break;
		case FILL_ENOSPC:
			size = write_enospc(ctx, path, size, block, f.written, &told_full);
			break;
		case FILL_FAILED:
			/* Said once until a file gets written again; retried
			 * every second, as the cause may go away. */
			loader_error(ctx->shm);
			if (!told_error)
				loader_event(ctx, "error", "%s %s: %s; trying again every second",
					     f.failed_call, path, strerror(f.error));
			told_error = true;
			unlink(path);
			loader_nap(1000);
			break;
		}
	}
	unlink(path);
	close(zero);
	free(buf);
	free(path);
	return 0;
}

const struct loader_ops loader_write_ops = {
	.version = LOADER_OPS_VERSION,
	.name = "write",
	.summary = "read /dev/zero and write a file of `size` in the work dir, then start over",
	.options = write_options,
	.config_size = sizeof(struct write_config),
	.cycle_unit = "files",
	.ops_unit = NULL,
	.reports_bytes = true,
	.expect = "psi_io >= 1% | mib_s >= 10",
	.check = write_check,
	.run = write_run,
	.describe = write_describe,
};
