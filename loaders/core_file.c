// SPDX-License-Identifier: GPL-2.0-or-later
#include "core_file.h"

#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"
#include "timeutil.h"

int fs_free_bytes(const char *path, uint64_t *free_bytes)
{
	struct statvfs sv;

	if (statvfs(path, &sv) < 0)
		return -1;
	*free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	return 0;
}

uint64_t file_fit(uint64_t want, uint64_t free_bytes, uint64_t own, uint64_t reserve,
		  uint64_t block)
{
	uint64_t room;

	if (__builtin_add_overflow(free_bytes, own, &room))
		room = UINT64_MAX;
	room = room > reserve ? room - reserve : 0;
	if (want > room)
		want = room;
	return want - want % block;
}

uint64_t file_plan_size(const struct loader_ctx *ctx, const char *dir, const struct size_spec *spec,
			uint64_t block, uint64_t reserve, uint64_t own)
{
	uint64_t want, free_bytes, size;
	struct meminfo mi = { 0 };
	bool told = false;
	char a[32], b[32], c[32], d[32];

	if (spec->kind != SIZE_BYTES && procfs_read_meminfo(&mi) < 0)
		loader_event(ctx, "error", "cannot read /proc/meminfo: %s", strerror(errno));
	want = size_resolve_now(spec, mi.mem_total, mi.swap_total, mi.mem_available);
	want -= want % block;
	if (want < block)
		want = block;
	for (;;) {
		if (fs_free_bytes(dir, &free_bytes) < 0) {
			loader_event(ctx, "error", "statvfs %s: %s", dir, strerror(errno));
			free_bytes = UINT64_MAX;
		}
		size = file_fit(want, free_bytes, own, reserve, block);
		if (size >= block || loader_stopping())
			break;
		if (!told) {
			format_bytes(free_bytes, a, sizeof a);
			format_bytes(reserve, b, sizeof b);
			loader_event(ctx, "enospc",
				     "no room on the filesystem of %s: %s free, %s to "
				     "leave free; waiting for space",
				     dir, a, b);
			told = true;
		}
		loader_nap(1000);
	}
	if (size > 0 && size < want) {
		format_bytes(want, a, sizeof a);
		format_bytes(free_bytes, b, sizeof b);
		format_bytes(reserve, c, sizeof c);
		format_bytes(size, d, sizeof d);
		loader_event(ctx, "info",
			     "a %s file does not fit on the filesystem of %s (%s free, "
			     "%s to leave free): making %s files instead",
			     a, dir, b, c, d);
	}
	return loader_stopping() ? 0 : size;
}

uint64_t file_shrink(uint64_t size, uint64_t block)
{
	uint64_t half = size / 2;

	half -= half % block;
	return half < block ? block : half;
}

/* One whole block from src_fd (a pipe or device may return less). */
static ssize_t read_block(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static enum fill_result fill_failed(struct file_fill *f, const char *call)
{
	if (errno == ENOSPC || errno == EDQUOT)
		return FILL_ENOSPC;
	f->failed_call = call;
	f->error = errno;
	return FILL_FAILED;
}

enum fill_result file_fill_run(struct file_fill *f)
{
	f->failed_call = NULL;
	f->error = 0;
	while (f->written < f->size) {
		size_t len = f->size - f->written < f->block ? (size_t)(f->size - f->written)
							     : f->block;
		size_t done = 0;

		if (loader_stopping())
			return FILL_STOPPED;
		if (f->src_fd >= 0 && read_block(f->src_fd, f->buf, len) < 0)
			return fill_failed(f, "read /dev/zero");
		while (done < len) {
			ssize_t n = write(f->fd, f->buf + done, len - done);

			if (n < 0 && errno == EINTR) {
				if (loader_stopping())
					return FILL_STOPPED;
				continue;
			}
			if (n < 0)
				return fill_failed(f, "write");
			/* A short write means the disk just filled up; the
			 * next write says so with ENOSPC. */
			done += (size_t)n;
			f->written += (uint64_t)n;
			if (f->count_bytes)
				loader_progress(f->shm, 0, (uint64_t)n, 0);
			else
				loader_mark_progress(f->shm);
		}
	}
	/* Delayed allocation may report a full disk only here. */
	if (f->sync && fdatasync(f->fd) < 0)
		return fill_failed(f, "fdatasync");
	return FILL_DONE;
}

void loader_mark_progress(struct loader_shm *shm)
{
	atomic_store_explicit(&shm->last_progress_ns, mono_ns(), memory_order_relaxed);
}

void loader_nap(int ms)
{
	struct timespec step = { 0, 50 * 1000000L };

	for (int slept = 0; slept < ms && !loader_stopping(); slept += 50)
		nanosleep(&step, NULL);
}

int check_plain_size(const struct size_spec *spec, const struct load_def *def, const char *key,
		     const char *file, FILE *errs)
{
	char text[64];

	if (spec->kind == SIZE_BYTES)
		return 0;
	size_format(spec, text, sizeof text);
	fprintf(errs,
		"%s:%d: %s: give a plain size in bytes (\"1M\"), not %s, which depends on "
		"the machine's memory\n",
		file, load_key_line(def, key), key, text);
	return 1;
}
