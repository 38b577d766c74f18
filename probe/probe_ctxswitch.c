// SPDX-License-Identifier: GPL-2.0-or-later
/* The ctxswitch probe: lmbench's lat_ctx (mode = process) and the threads
 * study's lat_thread_ctx (mode = thread). `members` processes or threads
 * form a ring of pipes and pass one token around it; each member passes over
 * `size` bytes of its own memory before passing the token on, as a real
 * program would touch its working set after being switched in. The prober's
 * thread is member 0 and times `passes` trips around the ring.
 *
 * A hop costs a context switch plus a pipe write + read and a pass over the
 * memory. As lat_ctx does, the probe times those two in one thread with no
 * switch (the same number of hops through one pipe, each over the same
 * member's memory, which stays in the cache) and subtracts them: the figure
 * is us per switch, net, and keeps what a switch costs in cache misses when
 * the members' memory does not all fit. The members are made before the
 * clock starts and ended after it stops.
 *
 * Where the members run decides what a switch costs: on one CPU a hop is a
 * switch; on two, a cross-CPU wake-up (an IPI, and an idle CPU waking up).
 * `cpus` pins them: all on one CPU (what lat_ctx measures when its members
 * share a CPU), spread over the allowed CPUs, or wherever the scheduler
 * puts them. The ring itself is the cpu loader's (token_ring.h). */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctx_overhead.h"
#include "parse.h"
#include "timeutil.h"
#include "token_ring.h"
#include "xalloc.h"

#define CTX_MAX_MEMBERS 1024
#define CTX_MAX_MEMORY (256LL << 20) /* members x size, all told */

static const char *const ctx_modes[] = { "process", "thread", NULL };

enum ctx_cpus { CTX_CPUS_ANY, CTX_CPUS_SAME, CTX_CPUS_SPREAD };
static const char *const ctx_cpus_choices[] = { "any", "same", "spread", NULL };
static const char *const ctx_cpus_said[] = { "on any CPU", "all on one CPU",
					     "spread over the CPUs" };

struct ctx_config {
	int64_t every_ms;
	int mode; /* 0 process, 1 thread */
	long members;
	struct size_spec size;
	long passes;
	int cpus;
};

/* clang-format off */
static const struct option_def ctx_options[] = {
	{ "every", OPT_DURATION, offsetof(struct ctx_config, every_ms), "1s", 10, 3600000, NULL,
	  NULL, "one sample per slot of this length; missed slots are counted" },
	{ "mode", OPT_ENUM, offsetof(struct ctx_config, mode), "process", 0, 0, ctx_modes, NULL,
	  "process: lmbench's lat_ctx; thread: lat_thread_ctx, the same ring of threads" },
	{ "members", OPT_INT, offsetof(struct ctx_config, members), "2", 2, CTX_MAX_MEMBERS,
	  NULL, NULL, "processes or threads in the ring (the prober's thread is one of them)" },
	{ "size", OPT_SIZE, offsetof(struct ctx_config, size), "0", 0, 64LL << 20, NULL, NULL,
	  "bytes of its own memory each member passes over between switches" },
	{ "passes", OPT_INT, offsetof(struct ctx_config, passes), "200", 1, 1000000, NULL, NULL,
	  "trips of the token around the ring per sample" },
	{ "cpus", OPT_ENUM, offsetof(struct ctx_config, cpus), "any", 0, 0, ctx_cpus_choices,
	  NULL,
	  "any: members run where the scheduler puts them; same: all pinned to the first CPU "
	  "the probe may use (every hop a same-CPU switch, as lat_ctx on one CPU); spread: "
	  "member k pinned to allowed CPU k mod their count (every hop a cross-CPU wake-up on "
	  "2 CPUs)" },
	{ NULL },
};
/* clang-format on */

struct ctx_state {
	int mode;
	long members;
	size_t size;
	long passes;
	int64_t every_ms;
	int cpus_mode;
	char **memory; /* one buffer per member, made before any fork */
	int *cpu;      /* member k's CPU, -1: not pinned */
};

struct ctx_member {
	int in, out; /* read the token from in, write it to out */
	char *memory;
	size_t size;
	int cpu; /* -1: not pinned */
};

#define CTX_TOKEN 't'
#define CTX_QUIT 'q' /* passed on once, then the member ends */

/* A thread blocked in read() is not woken by another thread's close(), so
 * the ring ends with a quit token, passed on once. */
static bool ctx_take(void *arg, char token)
{
	const struct ctx_member *m = arg;

	if (token != CTX_QUIT)
		return true;
	(void)!write(m->out, &token, 1);
	return false;
}

/* A member's life, in a thread or a forked child of this threaded process
 * (only read, write and memory). */
static void ctx_member_run(const struct ctx_member *m)
{
	const char *what;

	token_member_loop(m->in, m->out, (const unsigned char *)m->memory, m->size, ctx_take,
			  (void *)m, &what);
}

static void *ctx_member_thread(void *arg)
{
	ctx_member_run(arg);
	return NULL;
}

struct ctx_ring {
	long n;
	struct ring_ends *ends;
	pid_t *pids;
	pthread_t *tids;
	struct ctx_member *members;
	long started;
};

/* The quit token goes round once and ends every member that started (the
 * last one's copy stays unread in a pipe); then they are reaped and the
 * pipes closed. */
static void ring_end(struct ctx_ring *r, int mode)
{
	char quit = CTX_QUIT;

	if (r->started > 1)
		(void)!write(r->members[0].out, &quit, 1);
	for (long i = 1; i < r->started; i++) {
		if (mode == 0) {
			while (waitpid(r->pids[i], NULL, 0) < 0 && errno == EINTR)
				;
		} else {
			pthread_join(r->tids[i], NULL);
		}
	}
	token_ring_close(r->ends, r->n);
	free(r->ends);
	free(r->pids);
	free(r->tids);
	free(r->members);
}

/* A thread member, pinned from its start when it has a CPU (a thread
 * that failed to pin itself could not break the ring: its ends are shared). */
static int ctx_thread_start(pthread_t *tid, struct ctx_member *m)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int rc = pthread_attr_init(&attr);

	if (rc != 0)
		return rc;
	if (m->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(m->cpu, &set);
		rc = pthread_attr_setaffinity_np(&attr, sizeof set, &set);
	}
	if (rc == 0)
		rc = pthread_create(tid, &attr, ctx_member_thread, m);
	pthread_attr_destroy(&attr);
	return rc;
}

static int ring_start(struct ctx_ring *r, const struct ctx_state *st, char **err)
{
	long n = st->members;

	*r = (struct ctx_ring){ .n = n, .started = 1 };
	r->ends = xcalloc((size_t)n, sizeof *r->ends);
	r->pids = xcalloc((size_t)n, sizeof *r->pids);
	r->tids = xcalloc((size_t)n, sizeof *r->tids);
	r->members = xcalloc((size_t)n, sizeof *r->members);
	if (token_ring_pipes(r->ends, n) < 0) {
		*err = xasprintf("cannot make the ring's pipes: %s", strerror(errno));
		return -1;
	}
	for (long i = 0; i < n; i++)
		r->members[i] = (struct ctx_member){ .in = r->ends[i].in,
						     .out = r->ends[i].out,
						     .memory = st->memory[i],
						     .size = st->size,
						     .cpu = st->cpu[i] };
	for (long i = 1; i < n; i++, r->started++) {
		if (st->mode == 0) {
			pid_t pid = fork();

			if (pid < 0) {
				*err = xasprintf("fork of ring member %ld: %s", i, strerror(errno));
				return -1;
			}
			if (pid == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				token_ring_keep_only(r->ends, n, i);
				/* unpinned, it leaves: its ends close, the sample fails */
				if (ring_pin_self(r->members[i].cpu) == 0)
					ctx_member_run(&r->members[i]);
				_exit(0);
			}
			r->pids[i] = pid;
		} else {
			int rc = ctx_thread_start(&r->tids[i], &r->members[i]);

			if (rc != 0) {
				*err = xasprintf("cannot start ring member %ld: %s", i,
						 strerror(rc));
				return -1;
			}
		}
	}
	return 0;
}

/* Member 0's part: `passes` trips of the token. -1 if the ring broke. */
static int ring_passes(const struct ctx_ring *r, long passes)
{
	const struct ctx_member *m = &r->members[0];
	char token = CTX_TOKEN;

	for (long p = 0; p < passes; p++) {
		working_set_touch((const unsigned char *)m->memory, m->size);
		if (write(m->out, &token, 1) != 1 || read(m->in, &token, 1) != 1)
			return -1;
	}
	return 0;
}

/* The same hops' pipe transfers and memory passes, in this thread alone,
 * over one member's memory: lat_ctx's overhead, cache-hot. */
static int64_t overhead_ns(const struct ctx_state *st, long hops)
{
	int p[2];
	char token = CTX_TOKEN;
	int64_t t0, t1;

	if (pipe2(p, O_CLOEXEC) < 0)
		return 0;
	t0 = mono_ns();
	for (long h = 0; h < hops; h++) {
		working_set_touch((const unsigned char *)st->memory[0], st->size);
		if (write(p[1], &token, 1) != 1 || read(p[0], &token, 1) != 1)
			break;
	}
	t1 = mono_ns();
	close(p[0]);
	close(p[1]);
	return t1 - t0;
}

static int ctx_measure(void *state, const struct probe_window *w, int stop_fd, struct sample *s,
		       char **err)
{
	struct ctx_state *st = state;
	struct ctx_ring ring = { 0 };
	long hops = st->passes * st->members;
	int64_t t0 = 0, t1 = 0, over;
	cpu_set_t mine;
	bool pinned = false;
	int rc = 0;

	s->started_at = wall_now();
	/* The prober's thread is member 0: pinned for the sample (its
	 * overhead timing too), then given back its own affinity. */
	if (st->cpu[0] >= 0) {
		if (sched_getaffinity(0, sizeof mine, &mine) < 0 || ring_pin_self(st->cpu[0]) < 0) {
			*err = xasprintf("cannot pin to CPU %d: %s", st->cpu[0], strerror(errno));
			rc = -1;
		}
		pinned = rc == 0;
	}
	if (rc == 0)
		rc = ring_start(&ring, st, err);
	if (rc == 0)
		rc = ring_passes(&ring, 1); /* warm: every member has run once */
	if (rc == 0) {
		t0 = mono_ns();
		rc = ring_passes(&ring, st->passes);
		t1 = mono_ns();
		if (rc < 0)
			*err = xasprintf("the ring broke: a member died");
	}
	if (ring.n > 0)
		ring_end(&ring, st->mode);
	over = rc == 0 ? overhead_ns(st, hops) : 0;
	if (pinned)
		sched_setaffinity(0, sizeof mine, &mine);
	if (rc < 0) {
		s->failed = true;
		s->exit_code = 1;
		return -1;
	}
	s->wall_ms = (double)(t1 - t0) / NSEC_PER_MSEC;
	s->value = ctx_switch_us((double)(t1 - t0), (double)over, hops);
	return 0;
}

/* Member k's CPU, or -1 for each when not pinned. */
static int *ctx_plan_cpus(int mode, long members)
{
	int allowed[CPU_SETSIZE];
	long n = ring_allowed_cpus(allowed, CPU_SETSIZE);
	int *cpu = xcalloc((size_t)members, sizeof *cpu);

	for (long k = 0; k < members; k++)
		cpu[k] = mode == CTX_CPUS_SAME     ? allowed[0]
			 : mode == CTX_CPUS_SPREAD ? allowed[k % n]
						   : -1;
	return cpu;
}

static void ctx_close(void *state)
{
	struct ctx_state *st = state;

	for (long i = 0; st->memory != NULL && i < st->members; i++)
		free(st->memory[i]);
	free(st->memory);
	free(st->cpu);
	free(st);
}

static void *ctx_open(const void *config, const struct probe_env *env, char **err)
{
	const struct ctx_config *cfg = config;
	struct ctx_state *st = xcalloc(1, sizeof *st);

	st->mode = cfg->mode;
	st->members = cfg->members;
	st->size = (size_t)size_resolve(&cfg->size, 0, 0);
	st->passes = cfg->passes;
	st->every_ms = cfg->every_ms;
	if ((long long)st->size * st->members > CTX_MAX_MEMORY) {
		*err = xasprintf("members x size is over %lld MiB: a ring that large measures "
				 "memory, not switches",
				 CTX_MAX_MEMORY >> 20);
		free(st);
		return NULL;
	}
	st->cpu = ctx_plan_cpus(cfg->cpus, st->members);
	st->memory = xcalloc((size_t)st->members, sizeof *st->memory);
	for (long i = 0; i < st->members; i++) {
		st->memory[i] = xmalloc(st->size + 1);
		memset(st->memory[i], (int)i, st->size + 1);
	}
	return st;
}

static void ctx_run(void *state, struct probe_ctx *c, const struct probe_window *w)
{
	struct ctx_state *st = state;

	probe_run_slots(c, w, st->every_ms, ctx_measure, st);
}

static void ctx_describe(const void *config, char *buf, size_t len)
{
	const struct ctx_config *cfg = config;
	char size[32], every[32];

	size_format(&cfg->size, size, sizeof size);
	format_ms(cfg->every_ms, every, sizeof every);
	snprintf(buf, len,
		 "a ring of %ld %ss passing a token %ld times around, %s of memory each, %s, "
		 "every %s; pipe and memory overhead subtracted",
		 cfg->members, ctx_modes[cfg->mode], cfg->passes, size, ctx_cpus_said[cfg->cpus],
		 every);
}

/* lat_ctx's table: a row per ring, a column per size of memory
 * touched. */
static const struct study_place ctx_study[] = {
	{ .table = "Context switch: us per switch by members x size, overhead subtracted "
		   "(ctxswitch)",
	  .rows = "members",
	  .row = "{members} {mode}",
	  .column = "{size}",
	  .unit = "us" },
	{ 0 },
};

const struct probe_ops probe_ctxswitch_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "ctxswitch",
	.summary = "lmbench's lat_ctx: a ring of processes or threads passing a token through "
		   "pipes, each touching its memory; us per switch, overhead subtracted",
	.options = ctx_options,
	.config_size = sizeof(struct ctx_config),
	.units = "us",
	.open = ctx_open,
	.run = ctx_run,
	.close = ctx_close,
	.describe = ctx_describe,
	.study = ctx_study,
};
