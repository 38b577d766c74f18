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
	struct probe_every every;
	struct size_spec size;
};

/* clang-format off */
static const struct option_def fault_options[] = {
	PROBE_EVERY_OPTION(struct fault_config, "map + touch + unmap"),
	{ "size", OPT_SIZE, offsetof(struct fault_config, size), "64M", 4096, 4LL << 30, NULL,
	  NULL, "fresh anonymous memory touched each time, one write per page" },
	{ NULL },
};
/* clang-format on */

static int fault_measure(const void *config, void *state, const struct probe_window *w, int stop_fd,
			 struct sample *s, struct hist *h, char **err)
{
	const struct fault_config *cfg = config;
	size_t size = (size_t)size_resolve(&cfg->size, 0, 0);
	long page = sysconf(_SC_PAGESIZE);
	size_t step = page > 0 ? (size_t)page : 4096;
	volatile char *mem;

	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		s->failed = true;
		s->exit_code = errno;
		*err = xasprintf("mmap of %zu bytes: %s", size, strerror(errno));
		return -1;
	}
	for (size_t off = 0; off < size; off += step)
		mem[off] = 1;
	munmap((void *)mem, size);
	return 0;
}

static void fault_describe(const void *config, char *buf, size_t len)
{
	const struct fault_config *cfg = config;
	char size[32], every[32];

	size_format(&cfg->size, size, sizeof size);
	format_ms(cfg->every.every_ms, every, sizeof every);
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
	.measure = fault_measure,
	.describe = fault_describe,
};
