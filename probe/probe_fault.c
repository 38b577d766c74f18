// SPDX-License-Identifier: GPL-2.0-or-later
/* The fault probe: an application touching fresh memory (opening a tab,
 * loading an image). Every slot it maps size bytes of new anonymous memory,
 * writes one byte per page and unmaps it, and times the whole: under memory
 * pressure each fault waits for reclaim or compaction. */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "parse.h"
#include "timeutil.h"
#include "xalloc.h"

struct fault_config {
	int64_t every_ms;
	struct size_spec size;
};

/* clang-format off */
static const struct option_def fault_options[] = {
	{ "every", OPT_DURATION, offsetof(struct fault_config, every_ms), "1s", 10, 3600000, NULL,
	  NULL, "one map + touch + unmap per slot of this length; missed slots are counted" },
	{ "size", OPT_SIZE, offsetof(struct fault_config, size), "64M", 4096, 4LL << 30, NULL,
	  NULL, "fresh anonymous memory touched each time, one write per page" },
	{ NULL },
};
/* clang-format on */

struct fault_state {
	size_t size;
	size_t page;
	int64_t every_ms;
};

static void *fault_open(const void *config, const struct probe_env *env, char **err)
{
	const struct fault_config *cfg = config;
	struct fault_state *st = xcalloc(1, sizeof *st);
	long page = sysconf(_SC_PAGESIZE);

	st->size = (size_t)size_resolve(&cfg->size, 0, 0);
	st->page = page > 0 ? (size_t)page : 4096;
	st->every_ms = cfg->every_ms;
	return st;
}

static int fault_measure(void *state, const struct probe_window *w, int stop_fd, struct sample *s,
			 char **err)
{
	struct fault_state *st = state;
	volatile char *mem;
	int64_t t0, t1;

	s->started_at = wall_now();
	t0 = mono_ns();
	mem = mmap(NULL, st->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		s->failed = true;
		s->exit_code = errno;
		*err = xasprintf("mmap of %zu bytes: %s", st->size, strerror(errno));
		return -1;
	}
	for (size_t off = 0; off < st->size; off += st->page)
		mem[off] = 1;
	munmap((void *)mem, st->size);
	t1 = mono_ns();
	s->wall_ms = (double)(t1 - t0) / NSEC_PER_MSEC;
	s->exit_code = 0;
	s->failed = false;
	return 0;
}

static void fault_run(void *state, struct probe_ctx *c, const struct probe_window *w)
{
	struct fault_state *st = state;

	probe_run_slots(c, w, st->every_ms, fault_measure, st);
}

static void fault_close(void *state)
{
	free(state);
}

static void fault_describe(const void *config, char *buf, size_t len)
{
	const struct fault_config *cfg = config;
	char size[32], every[32];

	size_format(&cfg->size, size, sizeof size);
	format_ms(cfg->every_ms, every, sizeof every);
	snprintf(buf, len, "map + touch + unmap %s every %s", size, every);
}

const struct probe_ops probe_fault_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "fault",
	.summary = "fresh memory: mmap size bytes of new anonymous memory, touch every page, "
		   "munmap; timed per run (feels reclaim and compaction)",
	.options = fault_options,
	.config_size = sizeof(struct fault_config),
	.units = "ms",
	.open = fault_open,
	.run = fault_run,
	.close = fault_close,
	.describe = fault_describe,
};
