/* The memory loader (the paper's and interbench's memory load): allocate
 * 1 MiB chunks up to `size`, fill each with memset so that it is really
 * resident, then memcpy one half onto the other, over and over (a pass
 * each way in turn). With the
 * paper's size, ram+swap-64M, the OOM killer is expected to take it; the
 * supervisor restarts it after a back-off. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "loader.h"
#include "loader_file.h"
#include "parse.h"
#include "procfs.h"

#define CHUNK (1ULL << 20)
/* The most one memcpy call copies (see memory_run). */
#define COPY_SPAN (512ULL << 20)

struct memory_config {
	struct size_spec size;
};

static const struct option_def memory_options[] = {
	{ .key = "size", .type = OPT_SIZE, .offset = offsetof(struct memory_config, size),
	  .def = "50%", .min = 2 * CHUNK, .max = LLONG_MAX,
	  .help = "memory to fill and copy: 2G, 60% of RAM, or a formula of ram and swap; "
		  "ram+swap-64M is the paper's (expect OOM kills)" },
	{ .key = NULL },
};

/* Whole chunks, an even number of them: two halves copied onto each other. */
static uint64_t memory_chunks(uint64_t bytes)
{
	uint64_t n = bytes / CHUNK;

	return n - n % 2;
}

static int memory_check(const void *config, const struct load_def *def, const char *file,
			FILE *errs)
{
	const struct memory_config *cfg = config;
	struct meminfo mi;
	char spec[64], bytes[32], ram[32], swap[32];

	if (cfg->size.kind == SIZE_BYTES || procfs_read_meminfo(&mi) < 0)
		return 0;
	if (memory_chunks(size_resolve(&cfg->size, mi.mem_total, mi.swap_total)) >= 2)
		return 0;
	size_format(&cfg->size, spec, sizeof spec);
	format_bytes(size_resolve(&cfg->size, mi.mem_total, mi.swap_total), bytes, sizeof bytes);
	format_bytes(mi.mem_total, ram, sizeof ram);
	format_bytes(mi.swap_total, swap, sizeof swap);
	fprintf(errs, "%s:%d: size: %s comes to %s on this machine (RAM %s, swap %s); a memory "
		"load needs at least 2 MiB\n", file, load_key_line(def, "size"), spec, bytes, ram,
		swap);
	return 1;
}

static void memory_describe(const void *config, char *buf, size_t len)
{
	const struct memory_config *cfg = config;
	struct meminfo mi;
	char spec[64], bytes[32];

	size_format(&cfg->size, spec, sizeof spec);
	if (cfg->size.kind == SIZE_BYTES || procfs_read_meminfo(&mi) < 0) {
		snprintf(buf, len, "%s in 1 MiB chunks, copied half to half", spec);
		return;
	}
	format_bytes(size_resolve(&cfg->size, mi.mem_total, mi.swap_total), bytes, sizeof bytes);
	snprintf(buf, len, "%s (%s here) in 1 MiB chunks, copied half to half", spec, bytes);
}

/* The limit of the memory cgroup this process is in (cgroup v1 or v2), when
 * it has one below RAM: inside it, that is what the OOM killer goes by. */
static bool memory_cgroup_limit(uint64_t ram, uint64_t *limit)
{
	char groups[4096], path[PATH_MAX + 64], value[64];
	char *line, *save = NULL;
	bool found = false;

	if (read_small_file("/proc/self/cgroup", groups, sizeof groups) < 0)
		return false;
	for (line = strtok_r(groups, "\n", &save); line != NULL && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		/* "N:memory:/path" (v1) or "0::/path" (v2) */
		char *ctrl = strchr(line, ':'), *where;
		int n = -1;

		if (ctrl == NULL || (where = strchr(ctrl + 1, ':')) == NULL)
			continue;
		*where++ = '\0';
		if (strcmp(ctrl + 1, "memory") == 0)
			n = snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes",
				     where);
		else if (strcmp(ctrl + 1, "") == 0 && strncmp(line, "0:", 2) == 0)
			n = snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", where);
		if (n < 0 || (size_t)n >= sizeof path || read_small_file(path, value, sizeof value) < 0)
			continue;
		/* v2's "max", or v1's huge number: no limit. */
		*limit = strtoull(value, NULL, 10);
		found = *limit > 0 && *limit < ram;
	}
	return found;
}

/* Says what is about to be taken and how it compares with what the machine
 * (or the memory cgroup) has free, so that an OOM kill is no surprise. */
static void memory_announce(const struct loader_ctx *ctx, const struct memory_config *cfg,
			    const struct meminfo *mi, uint64_t bytes)
{
	char spec[64], size[32], ram[32], avail[32], swap_free[32], swap_total[32];
	char cgroup[96] = "", limit_text[32];
	uint64_t room = mi->mem_available + mi->swap_free, limit;
	const char *verdict = "";

	size_format(&cfg->size, spec, sizeof spec);
	format_bytes(bytes, size, sizeof size);
	format_bytes(mi->mem_total, ram, sizeof ram);
	format_bytes(mi->mem_available, avail, sizeof avail);
	format_bytes(mi->swap_free, swap_free, sizeof swap_free);
	format_bytes(mi->swap_total, swap_total, sizeof swap_total);
	if (memory_cgroup_limit(mi->mem_total, &limit)) {
		format_bytes(limit, limit_text, sizeof limit_text);
		snprintf(cgroup, sizeof cgroup, "; its memory cgroup's limit is %s", limit_text);
		if (bytes > limit)
			verdict = "; more than the cgroup's limit: expect the OOM killer to take "
				  "this load";
	}
	if (bytes > room)
		verdict = "; more than MemAvailable plus free swap: expect the OOM killer to take "
			  "this load";
	loader_event(ctx, "info", "filling %s (size %s, RAM %s): %.1f%% of MemAvailable %s; "
		     "swap %s free of %s%s%s", size, spec, ram,
		     mi->mem_available ? 100.0 * (double)bytes / (double)mi->mem_available : 0.0,
		     avail, swap_free, swap_total, cgroup, verdict);
}

/* Maps and fills chunk k of each half, so that the halves stay the same
 * size whenever the kernel refuses more memory. false when it refused. */
static bool memory_fill_pair(char *const half[2], uint64_t k)
{
	for (int h = 0; h < 2; h++) {
		char *c = mmap(half[h] + k * CHUNK, CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

		if (c == MAP_FAILED)
			return false;
		memset(c, (int)((2 * k + (uint64_t)h) % 255) + 1, CHUNK);
	}
	return true;
}

static int memory_run(const struct loader_ctx *ctx)
{
	const struct memory_config *cfg = ctx->config;
	struct meminfo mi;
	uint64_t pairs, filled = 0, bytes;
	char *half[2];
	int dir = 0;

	if (procfs_read_meminfo(&mi) < 0) {
		loader_event(ctx, "error", "cannot read /proc/meminfo: %s", strerror(errno));
		return 1;
	}
	pairs = memory_chunks(size_resolve(&cfg->size, mi.mem_total, mi.swap_total)) / 2;
	memory_announce(ctx, cfg, &mi, 2 * pairs * CHUNK);
	if (pairs == 0) {
		loader_event(ctx, "error", "size comes to less than 2 MiB on this machine");
		return 1;
	}
	/* Each half is a range of address space reserved up front, without
	 * memory behind it (PROT_NONE is not committed); its 1 MiB chunks are
	 * then mapped and filled one by one, so memory is taken and made
	 * resident a chunk at a time, as the paper's malloc of 1 MiB blocks
	 * did, yet each half ends up in one piece for the copy. */
	for (int h = 0; h < 2; h++) {
		half[h] = mmap(NULL, pairs * CHUNK, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (half[h] == MAP_FAILED) {
			loader_event(ctx, "error", "cannot reserve address space for %llu MiB: %s",
				     (unsigned long long)pairs, strerror(errno));
			if (h == 1)
				munmap(half[0], pairs * CHUNK);
			return 1;
		}
	}
	/* Filling is progress too: under the paper's size it may be all the
	 * load ever does before the OOM kill. */
	for (; filled < pairs && !loader_stopping(); filled++) {
		if (!memory_fill_pair(half, filled)) {
			char got[32];

			format_bytes(2 * filled * CHUNK, got, sizeof got);
			loader_event(ctx, "info", "allocation refused after %s (%s): copying that much",
				     got, strerror(errno));
			break;
		}
		loader_progress(ctx->shm, 0, 0, 2);
	}
	/* glibc's memcpy moves a long block with non-temporal stores, several
	 * streams at once; 1 MiB at a time it goes through the caches and
	 * copies about half as fast. So each call covers up to COPY_SPAN: long
	 * enough for the fast path, short enough to see a stop within a
	 * fraction of a second. */
	bytes = filled * CHUNK;
	while (bytes > 0 && !loader_stopping()) {
		const char *from = half[dir];
		char *to = half[dir ^ 1];
		uint64_t off = 0;

		while (off < bytes && !loader_stopping()) {
			uint64_t n = bytes - off < COPY_SPAN ? bytes - off : COPY_SPAN;

			memcpy(to + off, from + off, n);
			off += n;
			loader_progress(ctx->shm, 0, n, 0);
		}
		if (off < bytes)
			break;
		loader_progress(ctx->shm, 1, 0, 0);
		dir ^= 1;
	}
	munmap(half[0], pairs * CHUNK);
	munmap(half[1], pairs * CHUNK);
	return 0;
}

const struct loader_ops loader_memory_ops = {
	.version = LOADER_OPS_VERSION,
	.name = "memory",
	.summary = "fill `size` of memory in 1 MiB chunks, then memcpy half to half, over and over",
	.options = memory_options,
	.config_size = sizeof(struct memory_config),
	.cycle_unit = "passes",
	.ops_unit = "MiB filled",
	.reports_bytes = true,
	.check = memory_check,
	.run = memory_run,
	.describe = memory_describe,
};
