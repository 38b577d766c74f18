// SPDX-License-Identifier: GPL-2.0-or-later
/* The memory loader (the paper's and interbench's memory load): allocate
 * 1 MiB chunks up to `size`, fill each with memset so that it is really
 * resident, then memcpy one half onto the other, over and over (a pass
 * each way in turn). With the
 * paper's size, ram+swap-64M, the OOM killer is expected to take it; the
 * supervisor restarts it after a back-off. In pressure mode (pressure > 0)
 * the resident set follows memory_pressure.c's controller instead of a
 * fixed size, inside a memory cgroup of its own (memory_cgroup.c). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "core_file.h"
#include "memory_cgroup.h"
#include "memory_pressure.h"
#include "parse.h"
#include "procfs.h"
#include "timeutil.h"

#define CHUNK (1ULL << 20)
/* The most one memcpy call copies (see memory_run). */
#define COPY_SPAN (512ULL << 20)

/* How often pressure mode reads PSI and MemAvailable and adjusts: twice a
 * second, so that the fine steps end within a phase's settle. */
#define PRESSURE_TICK_NS (500 * 1000 * 1000LL)

/* Fine steps kept free below its own cgroup's limit (see pressure_enter_cgroup). */
#define PRESSURE_HEADROOM_STEPS 4

struct memory_config {
	struct size_spec size;
	double pressure; /* PSI memory some to reach, %; 0: off */
	struct size_spec floor;
	struct size_spec step;
	bool cgroup;
};

/* "10%" (of the time); "off" or "0" is 0. */
static int parse_pressure(const char *value, void *dst, const char **err)
{
	double *pct = dst;
	char *end;

	if (strcmp(value, "off") == 0) {
		*pct = 0;
		return 0;
	}
	*pct = strtod(value, &end);
	if (end == value || (*end != '%' && *end != '\0') || (*end == '%' && end[1] != '\0')) {
		*err = "expected a percentage such as 10%, or off";
		return -1;
	}
	if (!(*pct >= 0 && *pct <= 100)) {
		*err = "out of range (0%..100%)";
		return -1;
	}
	return 0;
}

/* clang-format off */
static const struct option_def memory_options[] = {
	{ .key = "size", .type = OPT_SIZE, .offset = offsetof(struct memory_config, size),
	  .def = "50%", .min = 2 * CHUNK, .max = LLONG_MAX,
	  .help = "memory to fill and copy: 2G, 60% of RAM, or a formula of ram, swap and "
		  "available (MemAvailable at start): available-512M; ram+swap-64M is the "
		  "paper's (expect OOM kills). Not used in pressure mode" },
	{ .key = "pressure", .type = OPT_CUSTOM, .offset = offsetof(struct memory_config, pressure),
	  .def = "off", .parse = parse_pressure,
	  .help = "pressure mode: grow the resident set until PSI memory some reaches this share "
		  "of the time (e.g. 10%) or MemAvailable falls to floor, then hold there" },
	{ .key = "floor", .type = OPT_SIZE, .offset = offsetof(struct memory_config, floor),
	  .def = "256M",
	  .help = "pressure mode: MemAvailable (or the cgroup's room) never taken below this" },
	{ .key = "step", .type = OPT_SIZE, .offset = offsetof(struct memory_config, step),
	  .def = "32M", .min = 2 * CHUNK, .max = LLONG_MAX,
	  .help = "pressure mode: the fine step up or down, twice a second, after a quick fill to "
		  "a margin of 4 steps above the floor" },
	{ .key = "cgroup", .type = OPT_BOOL, .offset = offsetof(struct memory_config, cgroup),
	  .def = "yes",
	  .help = "pressure mode: run in a memory cgroup of its own whose limit keeps the floor "
		  "(needs write access to the cgroup loadd runs in)" },
	{ .key = NULL },
};
/* clang-format on */

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

	if (cfg->pressure > 0) {
		for (size_t i = 0; i < def->nkv; i++) {
			if (strcmp(def->kvs[i].key, "size") == 0) {
				fprintf(errs,
					"%s:%d: size: not used with pressure = %g%%: the "
					"pressure sets the size\n",
					file, def->kvs[i].line, cfg->pressure);
				return 1;
			}
		}
		return 0;
	}
	if (cfg->size.kind == SIZE_BYTES || procfs_read_meminfo(&mi) < 0)
		return 0;
	if (memory_chunks(size_resolve_now(&cfg->size, mi.mem_total, mi.swap_total,
					   mi.mem_available)) >= 2)
		return 0;
	size_format(&cfg->size, spec, sizeof spec);
	format_bytes(size_resolve_now(&cfg->size, mi.mem_total, mi.swap_total, mi.mem_available),
		     bytes, sizeof bytes);
	format_bytes(mi.mem_total, ram, sizeof ram);
	format_bytes(mi.swap_total, swap, sizeof swap);
	fprintf(errs,
		"%s:%d: size: %s comes to %s on this machine (RAM %s, swap %s); a memory "
		"load needs at least 2 MiB\n",
		file, load_key_line(def, "size"), spec, bytes, ram, swap);
	return 1;
}

static void memory_describe(const void *config, char *buf, size_t len)
{
	const struct memory_config *cfg = config;
	struct meminfo mi;
	char spec[64], bytes[32];

	if (cfg->pressure > 0) {
		size_format(&cfg->floor, bytes, sizeof bytes);
		snprintf(buf, len,
			 "pressure mode: grows until PSI memory some reaches %g%% or "
			 "MemAvailable falls to %s, copied half to half",
			 cfg->pressure, bytes);
		return;
	}
	size_format(&cfg->size, spec, sizeof spec);
	if (cfg->size.kind == SIZE_BYTES || procfs_read_meminfo(&mi) < 0) {
		snprintf(buf, len, "%s in 1 MiB chunks, copied half to half", spec);
		return;
	}
	format_bytes(size_resolve_now(&cfg->size, mi.mem_total, mi.swap_total, mi.mem_available),
		     bytes, sizeof bytes);
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
			n = snprintf(path, sizeof path,
				     "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", where);
		else if (strcmp(ctrl + 1, "") == 0 && strncmp(line, "0:", 2) == 0)
			n = snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", where);
		if (n < 0 || (size_t)n >= sizeof path ||
		    read_small_file(path, value, sizeof value) < 0)
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
	loader_event(ctx, "info",
		     "filling %s (size %s, RAM %s): %.1f%% of MemAvailable %s; "
		     "swap %s free of %s%s%s",
		     size, spec, ram,
		     mi->mem_available ? 100.0 * (double)bytes / (double)mi->mem_available : 0.0,
		     avail, swap_free, swap_total, cgroup, verdict);
}

/* Maps and fills chunk k of each half, so that the halves stay the same
 * size whenever the kernel refuses more memory. false when it refused. */
static bool memory_fill_pair(char *const half[2], uint64_t k)
{
	for (int h = 0; h < 2; h++) {
		/* MAP_POPULATE faults the chunk in with one call rather than 256
		 * page faults: about a third less CPU time per MiB on the test VM,
		 * where the fill is what a pressure-mode settle waits for. */
		char *c = mmap(half[h] + k * CHUNK, CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE, -1, 0);

		if (c == MAP_FAILED)
			return false;
		memset(c, (int)((2 * k + (uint64_t)h) % 255) + 1, CHUNK);
	}
	return true;
}

/* ---- pressure mode ---- */

struct pressure_run {
	const struct loader_ctx *ctx;
	struct pressure_goal goal;
	struct memory_cgroup cg;
	bool in_cgroup;
	char *half[2];
	uint64_t max_pairs;  /* address space reserved per half, in chunks */
	uint64_t pairs;      /* chunks resident per half */
	uint64_t want_pairs; /* what the controller asked for last */
	struct psi_totals psi;
	int64_t psi_ns;
	enum pressure_move last_move;
};

/* MemAvailable, or the room the enclosing cgroup leaves when that is less. */
static uint64_t available_now(const struct pressure_run *pr, const struct meminfo *mi)
{
	uint64_t room;

	if (pr->cg.version != 0 && memory_cgroup_room(&pr->cg, &room) && room < mi->mem_available)
		return room;
	return mi->mem_available;
}

/* PSI memory some over the time since the last reading, in %. */
static double psi_since(struct pressure_run *pr)
{
	struct psi_totals now;
	int64_t t = mono_ns();
	double pct = 0;

	if (procfs_read_psi("memory", &now) < 0)
		return 0;
	if (pr->psi_ns > 0 && t > pr->psi_ns)
		pct = 100.0 * (double)(now.some_us - pr->psi.some_us) * 1000.0 /
		      (double)(t - pr->psi_ns);
	pr->psi = now;
	pr->psi_ns = t;
	return pct;
}

/* Fills or gives back pairs of chunks towards pairs * 2 chunks resident. A
 * fill stops at the deadline (the next reading), so that a long one follows
 * a machine that changes meanwhile; the caller comes back to go on. */
static void pressure_resize(struct pressure_run *pr, uint64_t want_pairs, int64_t deadline_ns)
{
	if (want_pairs > pr->max_pairs)
		want_pairs = pr->max_pairs;
	pr->want_pairs = want_pairs;
	/* One thread: loadd forks the loader while its own threads run, and
	 * threads started in it hung a sanitizer build now and then. */
	while (pr->pairs < want_pairs && !loader_stopping() && mono_ns() < deadline_ns) {
		if (!memory_fill_pair(pr->half, pr->pairs)) {
			pr->want_pairs = pr->pairs; /* refused: no busy retry */
			break;
		}
		pr->pairs++;
		loader_progress(pr->ctx->shm, 0, 0, 2);
	}
	while (pr->pairs > want_pairs) {
		pr->pairs--;
		/* A failure only leaves those pages mapped; the load goes on. */
		for (int h = 0; h < 2; h++)
			(void)mmap(pr->half[h] + pr->pairs * CHUNK, CHUNK, PROT_NONE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	}
}

/* One reading and one move of the controller; an event when the move
 * changes. The first hold (or give-back at the floor) tells loadd the load
 * has reached its target: the phase's settle may end. */
static void pressure_tick(struct pressure_run *pr)
{
	struct pressure_reading now = { .psi_some_pct = psi_since(pr) };
	struct meminfo mi;
	enum pressure_move move;
	uint64_t want, resident = 2 * pr->pairs * CHUNK;

	if (procfs_read_meminfo(&mi) < 0)
		return;
	now.available = available_now(pr, &mi);
	if (pr->in_cgroup && !memory_cgroup_usage(&pr->cg, &now.own_used, &now.own_max))
		now.own_max = 0; /* unreadable: the cap alone keeps the headroom */
	want = pressure_next(&pr->goal, resident, &now, &move);
	pressure_resize(pr, want / CHUNK / 2, mono_ns() + PRESSURE_TICK_NS);
	if (move != pr->last_move) {
		char res[32], avail[32];

		format_bytes(2 * pr->want_pairs * CHUNK, res, sizeof res);
		format_bytes(now.available, avail, sizeof avail);
		loader_event(pr->ctx, "info",
			     "pressure: %s to %s resident; PSI memory some %.1f%%, "
			     "available %s",
			     pressure_move_name(move), res, now.psi_some_pct, avail);
		pr->last_move = move;
	}
	/* after the event, so that loadd has it when it sees the hold */
	if (move == PRESSURE_HOLD || move == PRESSURE_SHRINK)
		loader_set_reach(pr->ctx->shm, LOADER_HELD);
}

/* Leaves the floor to the rest of the machine even if the controller erred:
 * the cgroup's max is what is above the floor now. The controller keeps a
 * headroom below it, measured against what the cgroup is charged (page
 * tables and the process's own memory count there), so that it never steps
 * into the OOM killer's line; its cap is max less the headroom. Between the
 * two, v2's memory.high makes the kernel reclaim and throttle the load (PSI
 * memory rises, and the controller holds) before max is reached; v1 has no
 * such knob, and its soft limit at the cap only makes the load the first
 * reclaimed when the whole machine is short. */
static void pressure_enter_cgroup(struct pressure_run *pr, const struct memory_config *cfg,
				  uint64_t avail)
{
	char why[PATH_MAX + 128], name[32];
	uint64_t max = avail - pr->goal.floor, high;

	pr->goal.headroom = PRESSURE_HEADROOM_STEPS * pr->goal.step;
	if (pr->goal.headroom > max / 2)
		pr->goal.headroom = max / 2;
	/* whole pairs of chunks, so that a load at its cap holds */
	pr->goal.cap = (max - pr->goal.headroom) / (2 * CHUNK) * (2 * CHUNK);
	if (!cfg->cgroup)
		return;
	if (!memory_cgroup_find(&pr->cg)) {
		loader_event(pr->ctx, "info",
			     "pressure: no memory cgroup controller; the floor is "
			     "kept by the controller alone, and oom_score_adj 1000 makes this load "
			     "the OOM killer's first choice");
		return;
	}
	snprintf(name, sizeof name, "%d", (int)getpid());
	high = pr->cg.version == 2 ? max - pr->goal.headroom / 2 : pr->goal.cap;
	if (memory_cgroup_enter(&pr->cg, name, high, max, why, sizeof why) < 0) {
		loader_event(pr->ctx, "info",
			     "pressure: no cgroup of its own (%s); the floor is "
			     "kept by the controller alone, and oom_score_adj 1000 makes this load "
			     "the OOM killer's first choice",
			     why);
		return;
	}
	pr->in_cgroup = true;
	{
		char h[32], m[32], room[32];

		format_bytes(high, h, sizeof h);
		format_bytes(max, m, sizeof m);
		format_bytes(pr->goal.headroom, room, sizeof room);
		loader_event(pr->ctx, "info",
			     "pressure: in cgroup v%d %s, %s %s, %s %s, headroom %s",
			     pr->cg.version, pr->cg.dir,
			     pr->cg.version == 2 ? "memory.high" : "soft limit", h,
			     pr->cg.version == 2 ? "memory.max" : "limit", m, room);
	}
}

/* Copies the resident halves onto each other, span by span, with a tick of
 * the controller once a second; a resize starts the pass over. */
static void pressure_copy(struct pressure_run *pr)
{
	int64_t next_tick = mono_ns() + PRESSURE_TICK_NS;
	int dir = 0;

	while (!loader_stopping()) {
		uint64_t bytes = pr->pairs * CHUNK, off = 0, before = pr->pairs;

		/* Still filling: readings and fills only, no copy, until there. */
		if (pr->pairs < pr->want_pairs) {
			pressure_tick(pr);
			next_tick = mono_ns() + PRESSURE_TICK_NS;
			continue;
		}
		while (off < bytes && !loader_stopping() && pr->pairs == before) {
			uint64_t n = bytes - off < COPY_SPAN / 8 ? bytes - off : COPY_SPAN / 8;

			memcpy(pr->half[dir ^ 1] + off, pr->half[dir] + off, n);
			off += n;
			loader_progress(pr->ctx->shm, 0, n, 0);
			if (mono_ns() >= next_tick) {
				pressure_tick(pr);
				next_tick = mono_ns() + PRESSURE_TICK_NS;
			}
		}
		if (bytes == 0) {
			const struct timespec pause = { .tv_nsec = 100 * 1000 * 1000 };

			nanosleep(&pause, NULL);
			if (mono_ns() >= next_tick) {
				pressure_tick(pr);
				next_tick = mono_ns() + PRESSURE_TICK_NS;
			}
			continue;
		}
		if (off >= bytes) {
			loader_progress(pr->ctx->shm, 1, 0, 0);
			dir ^= 1;
		}
	}
}

static int memory_run_pressure(const struct loader_ctx *ctx, const struct meminfo *mi)
{
	const struct memory_config *cfg = ctx->config;
	struct pressure_run pr = { .ctx = ctx, .last_move = (enum pressure_move) - 1 };
	uint64_t avail;

	pr.goal.psi_pct = cfg->pressure;
	pr.goal.floor = size_resolve_now(&cfg->floor, mi->mem_total, mi->swap_total,
					 mi->mem_available);
	pr.goal.step = size_resolve_now(&cfg->step, mi->mem_total, mi->swap_total,
					mi->mem_available);
	pr.goal.margin = 4 * pr.goal.step;
	pr.goal.unit = 2 * CHUNK;
	memory_cgroup_find(&pr.cg);
	avail = available_now(&pr, mi);
	if (avail <= pr.goal.floor + 2 * pr.goal.step) {
		char a[32], f[32];

		format_bytes(avail, a, sizeof a);
		format_bytes(pr.goal.floor, f, sizeof f);
		loader_event(ctx, "error",
			     "pressure: only %s available, nothing to take above the "
			     "floor of %s",
			     a, f);
		return 1;
	}
	pressure_enter_cgroup(&pr, cfg, avail);
	/* Address space for all of RAM, so the set can follow a machine that
	 * frees memory later; PROT_NONE and MAP_NORESERVE commit nothing. */
	pr.max_pairs = memory_chunks(mi->mem_total) / 2;
	for (int h = 0; h < 2; h++) {
		pr.half[h] = mmap(NULL, pr.max_pairs * CHUNK, PROT_NONE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (pr.half[h] == MAP_FAILED) {
			loader_event(ctx, "error", "cannot reserve address space: %s",
				     strerror(errno));
			if (h == 1)
				munmap(pr.half[0], pr.max_pairs * CHUNK);
			memory_cgroup_leave(&pr.cg);
			return 1;
		}
	}
	psi_since(&pr);
	pressure_tick(&pr);
	pressure_copy(&pr);
	/* Out of the cgroup first: a stop's grace period may end before a
	 * large unmap does, and an empty cgroup can be removed at once. */
	if (pr.in_cgroup)
		memory_cgroup_leave(&pr.cg);
	munmap(pr.half[0], pr.max_pairs * CHUNK);
	munmap(pr.half[1], pr.max_pairs * CHUNK);
	return 0;
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
	if (cfg->pressure > 0)
		return memory_run_pressure(ctx, &mi);
	pairs = memory_chunks(size_resolve_now(&cfg->size, mi.mem_total, mi.swap_total,
					       mi.mem_available)) /
		2;
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
			loader_event(ctx, "info",
				     "allocation refused after %s (%s): copying that much", got,
				     strerror(errno));
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

/* Making a cgroup and moving into it is root's. */
static bool memory_needs_root(const void *config)
{
	const struct memory_config *cfg = config;

	return cfg->cgroup;
}

/* Pressure mode fills for a while before it holds: a settle waits for it. */
static bool memory_ramps(const void *config)
{
	const struct memory_config *cfg = config;

	return cfg->pressure > 0;
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
	.expect = "psi_memory > 0% | available <= 1G",
	.check = memory_check,
	.run = memory_run,
	.describe = memory_describe,
	.needs_root = memory_needs_root,
	.ramps = memory_ramps,
};
