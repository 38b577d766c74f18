// SPDX-License-Identifier: GPL-2.0-or-later
/* The cpu loader: lmbench lat_ctx's dual-pipe ring. procs members, processes
 * or threads, each read a token from the pipe before it and write it to the
 * pipe after it, so every token pass is one context switch. tokens of them
 * travel at once; size bytes of working set are read by each member between
 * taking a token and passing it on, as lat_ctx -s does, and work
 * microseconds of arithmetic are done. With pin (the default) the members
 * form one ring per CPU, pinned there (see cpu_layout.h for why). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu_layout.h"
#include "fd_limit.h"
#include "loader.h"
#include "parse.h"
#include "timeutil.h"
#include "token_ring.h"
#include "xalloc.h"

enum cpu_mode { CPU_PROCESS, CPU_THREAD };

struct cpu_config {
	long procs;  /* 0: auto */
	long tokens; /* 0: auto */
	struct size_spec size;
	int mode;
	long nice;
	bool pin;
	long work_us;
};

/* "auto" is 0; a number must lie in [min, CPU_MAX_PROCS]. */
static int parse_auto_count(const char *value, long min, long *out, const char **err)
{
	if (strcmp(value, "auto") == 0) {
		*out = 0;
		return 0;
	}
	if (parse_long(value, out, err) < 0) {
		*err = "expected a number or auto";
		return -1;
	}
	if (*out < min || *out > CPU_MAX_PROCS) {
		*err = min == 2 ? "out of range (2..4096, or auto)"
				: "out of range (1..4095, or auto)";
		return -1;
	}
	return 0;
}

static int parse_procs(const char *value, void *dst, const char **err)
{
	return parse_auto_count(value, 2, dst, err);
}

static int parse_tokens(const char *value, void *dst, const char **err)
{
	if (parse_auto_count(value, 1, dst, err) < 0)
		return -1;
	if (*(long *)dst == CPU_MAX_PROCS) {
		*err = "out of range (1..4095, or auto)";
		return -1;
	}
	return 0;
}

static const char *const cpu_modes[] = { "process", "thread", NULL };

/* clang-format off */
static const struct option_def cpu_options[] = {
	{ .key = "procs", .type = OPT_CUSTOM, .offset = offsetof(struct cpu_config, procs),
	  .def = "auto", .parse = parse_procs,
	  .help = "members in all, each a process or a thread, 2..4096; auto: 8 per CPU the "
		  "load may run on" },
	{ .key = "tokens", .type = OPT_CUSTOM, .offset = offsetof(struct cpu_config, tokens),
	  .def = "auto", .parse = parse_tokens,
	  .help = "tokens travelling at once, fewer than procs so members wait, 1..4095; auto: "
		  "half the members; 1: one ring, lat_ctx's measuring mode" },
	{ .key = "pin", .type = OPT_BOOL, .offset = offsetof(struct cpu_config, pin),
	  .def = "yes",
	  .help = "one ring per CPU, its members pinned there, so that every pass is a "
		  "same-CPU wake-up; no: one ring whose members run where the scheduler puts them" },
	{ .key = "work", .type = OPT_INT, .offset = offsetof(struct cpu_config, work_us),
	  .def = "10", .min = 0, .max = 1000000,
	  .help = "microseconds of arithmetic each member does per pass, after taking a token; "
		  "0: pure token passing (lat_ctx)" },
	{ .key = "size", .type = OPT_SIZE, .offset = offsetof(struct cpu_config, size),
	  .def = "0", .min = 0, .max = 64LL << 20,
	  .help = "working set each member reads between taking a token and passing it on "
		  "(lmbench lat_ctx -s), e.g. 64K" },
	{ .key = "mode", .type = OPT_ENUM, .offset = offsetof(struct cpu_config, mode),
	  .def = "process", .choices = cpu_modes,
	  .help = "process: a ring of processes (lat_ctx); thread: threads of one process "
		  "(lat_thread_ctx)" },
	{ .key = "nice", .type = OPT_INT, .offset = offsetof(struct cpu_config, nice),
	  .def = "0", .min = -20, .max = 19,
	  .help = "nice value of every member; below 0 needs root" },
	{ .key = NULL },
};
/* clang-format on */

/* Counts are added to shared memory in batches, so that the counting does
 * not slow the ring it measures: every FLUSH_PASSES passes, or sooner when
 * FLUSH_NS have gone by (a slow ring still shows progress every few ms). */
#define FLUSH_PASSES 64
#define FLUSH_NS (4 * NSEC_PER_MSEC)
/* Threads only wait in read() and write(). */
#define MEMBER_STACK (256 * 1024)
/* Beyond the ring's own pipes: stdio, the event pipe, a few spare. */
#define SPARE_FDS 16

struct ring;

struct member {
	struct ring *ring;
	int index;
	int in, out;       /* read end of the pipe before it, write end of the one after */
	int cpu;           /* pinned to it; -1: not pinned */
	bool counts_trips; /* the first member of its ring counts every token's trip */
	pid_t pid;         /* process mode; 0 when not running */
	pthread_t thread;
	bool started; /* thread mode */
};

struct ring {
	const struct loader_ctx *ctx;
	long procs;
	struct cpu_layout layout;
	size_t ws_bytes;
	int64_t work_ns;
	struct member *members;
	struct ring_ends *ends; /* thread mode: every member's pipe ends */
	atomic_int stop;        /* thread mode: members leave at their next read */
	atomic_int failed;      /* thread mode: a member hit an error */
};

/* The layout on the CPUs this process may use now. */
static int plan_here(const struct cpu_config *cfg, struct cpu_layout *layout, char *err,
		     size_t errlen)
{
	int cpus[CPU_SETSIZE];
	long ncpus = ring_allowed_cpus(cpus, CPU_SETSIZE);

	return cpu_layout_plan(cfg->procs, cfg->tokens, cfg->pin, cpus, ncpus, layout, err, errlen);
}

static int cpu_check(const void *config, const struct load_def *def, const char *file, FILE *errs)
{
	const struct cpu_config *cfg = config;
	struct cpu_layout layout;
	char err[200];
	int problems = 0;

	if (plan_here(cfg, &layout, err, sizeof err) < 0) {
		fprintf(errs, "%s:%d: %s\n", file, load_key_line(def, "tokens"), err);
		problems++;
	} else {
		cpu_layout_free(&layout);
	}
	if (cfg->size.kind != SIZE_BYTES) {
		fprintf(errs,
			"%s:%d: size: give each member's working set in bytes (\"64K\"), not "
			"as a share of the machine's memory\n",
			file, load_key_line(def, "size"));
		problems++;
	}
	if (cfg->nice < 0 && geteuid() != 0) {
		struct rlimit rl;

		/* RLIMIT_NICE lets an unprivileged user go down to 20 - rlim_cur. */
		if (getrlimit(RLIMIT_NICE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
		    20 - (long)rl.rlim_cur > cfg->nice) {
			fprintf(errs, "%s:%d: nice = %ld needs root (or a higher RLIMIT_NICE)\n",
				file, load_key_line(def, "nice"), cfg->nice);
			problems++;
		}
	}
	return problems;
}

static void cpu_describe(const void *config, char *buf, size_t len)
{
	const struct cpu_config *cfg = config;
	char ws[64] = "", nice[24] = "", work[48] = "", rings[64] = " in a ring";
	struct cpu_layout layout;
	char err[200];

	if (plan_here(cfg, &layout, err, sizeof err) < 0) {
		snprintf(buf, len, "%s", err);
		return;
	}
	if (layout.nrings > 1)
		snprintf(rings, sizeof rings, " in %ld rings, one pinned to each CPU",
			 layout.nrings);
	if (cfg->size.bytes > 0) {
		char bytes[32];

		format_bytes(cfg->size.bytes, bytes, sizeof bytes);
		snprintf(ws, sizeof ws, ", %s working set each", bytes);
	}
	if (cfg->work_us > 0)
		snprintf(work, sizeof work, ", %ld us of work per pass", cfg->work_us);
	if (cfg->nice != 0)
		snprintf(nice, sizeof nice, ", nice %ld", cfg->nice);
	snprintf(buf, len, "%ld %s%s, %ld token%s%s%s%s", layout.procs,
		 cfg->mode == CPU_THREAD ? "threads" : "processes", rings, layout.tokens,
		 layout.tokens == 1 ? "" : "s", ws, work, nice);
	cpu_layout_free(&layout);
}

static int64_t coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* The working set: faulted in with non-zero bytes, so it is real memory and
 * not the shared zero page. NULL with errno when it cannot be had. */
static unsigned char *working_set_new(size_t bytes)
{
	unsigned char *ws;

	ws = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ws == MAP_FAILED)
		return NULL;
	memset(ws, 0x5a, bytes);
	return ws;
}

/* Arithmetic for about ns nanoseconds, so that a member's pass costs CPU
 * time and not only a wake-up: the clock is read every few hundred steps. */
static void work_for(int64_t ns)
{
	int64_t end = mono_ns() + ns;
	uint64_t x = 88172645463325252ULL;

	do {
		for (int i = 0; i < 256; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		__asm__ __volatile__("" : "+r"(x));
	} while (mono_ns() < end);
}

/* A member's count of what it did, added to shared memory in batches. */
struct member_tally {
	const struct member *m;
	uint64_t passes, cycles;
	int64_t flushed;
};

/* The cpu loader's part of each pass, when a member has taken a token: leave
 * if stopped, else work and count the pass. */
static bool loader_take(void *arg, char token)
{
	struct member_tally *t = arg;
	const struct ring *ring = t->m->ring;

	(void)token;
	if (atomic_load_explicit(&ring->stop, memory_order_acquire)) {
		loader_progress(ring->ctx->shm, t->cycles, 0, t->passes);
		return false;
	}
	if (ring->work_ns > 0)
		work_for(ring->work_ns);
	t->passes++;
	if (t->m->counts_trips)
		t->cycles++;
	if (t->passes >= FLUSH_PASSES || coarse_ns() - t->flushed >= FLUSH_NS) {
		loader_progress(ring->ctx->shm, t->cycles, 0, t->passes);
		t->passes = t->cycles = 0;
		t->flushed = coarse_ns();
	}
	return true;
}

/* What every member does until its ring breaks or it is stopped: in process
 * mode by SIGTERM (the default action), in thread mode by the stop flag,
 * seen at the next read. The first member of a ring counts a cycle for
 * every token it takes, as each token passes it once a trip. */
static enum member_end member_loop(const struct member *m, const unsigned char *ws,
				   const char **what)
{
	struct member_tally tally = { .m = m, .flushed = coarse_ns() };

	return token_member_loop(m->in, m->out, ws, m->ring->ws_bytes, loader_take, &tally, what);
}

/* ---- process mode ---- */

/* Exit statuses of a member process, which the top explains. */
#define MEMBER_EXIT_BROKEN 3
#define MEMBER_EXIT_FAILED 4
#define MEMBER_EXIT_NOMEM 5
#define MEMBER_EXIT_PIN 6

static void member_process(const struct member *m)
{
	const struct ring *ring = m->ring;
	unsigned char *ws = NULL;
	const char *what = "";

	/* A neighbour that died shows as EPIPE, not as a death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (ring_pin_self(m->cpu) < 0)
		_exit(MEMBER_EXIT_PIN);
	if (ring->ws_bytes > 0 && (ws = working_set_new(ring->ws_bytes)) == NULL)
		_exit(MEMBER_EXIT_NOMEM);
	if (member_loop(m, ws, &what) == MEMBER_BROKEN)
		_exit(MEMBER_EXIT_BROKEN);
	loader_event(ring->ctx, "error", "ring member %d: %s: %s", m->index, what, strerror(errno));
	_exit(MEMBER_EXIT_FAILED);
}

static void describe_member_death(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status)) {
		snprintf(buf, len, "was killed by signal %s",
			 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
		return;
	}
	switch (WEXITSTATUS(status)) {
	case MEMBER_EXIT_BROKEN: snprintf(buf, len, "left because a neighbour had gone"); break;
	case MEMBER_EXIT_NOMEM: snprintf(buf, len, "could not get its working set"); break;
	case MEMBER_EXIT_PIN: snprintf(buf, len, "could not be pinned to its CPU"); break;
	default: snprintf(buf, len, "exited with status %d", WEXITSTATUS(status)); break;
	}
}

static struct member *member_by_pid(struct ring *ring, pid_t pid)
{
	for (long i = 0; i < ring->procs; i++) {
		if (ring->members[i].pid == pid)
			return &ring->members[i];
	}
	return NULL;
}

/* Ends every member still running with sig and reaps it. */
static void members_end(struct ring *ring, int sig)
{
	for (long i = 0; i < ring->procs; i++) {
		if (ring->members[i].pid > 0)
			kill(ring->members[i].pid, sig);
	}
	for (long i = 0; i < ring->procs; i++) {
		struct member *m = &ring->members[i];

		while (m->pid > 0 && waitpid(m->pid, NULL, 0) < 0 && errno == EINTR)
			;
		m->pid = 0;
	}
}

static void report_fork_failure(const struct ring *ring, long index, int err)
{
	struct rlimit rl;
	char limit[64] = "";

	if (err == EAGAIN && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(limit, sizeof limit, " (RLIMIT_NPROC is %llu)",
			 (unsigned long long)rl.rlim_cur);
	loader_event(ring->ctx, "error", "cannot start ring member %ld of %ld: fork: %s%s", index,
		     ring->procs, strerror(err), limit);
}

/* Forks one ring's members one by one, each with the read end of the pipe
 * the one before it writes. The top holds at most four ring fds at any
 * moment, and every member holds only its own two, so a member's death
 * reaches its neighbours as EOF and EPIPE and the ring comes down. */
static int ring_start_one(struct ring *ring, const struct cpu_ring_spec *spec)
{
	int last[2], next[2], in;
	long end = spec->first + spec->members;

	if (pipe2(last, O_CLOEXEC) < 0) {
		loader_event(ring->ctx, "error", "pipe: %s", strerror(errno));
		return -1;
	}
	in = last[0];
	for (long i = spec->first; i < end && !loader_stopping(); i++) {
		struct member *m = &ring->members[i];
		bool is_last = i == end - 1;
		pid_t pid;

		if (is_last) {
			next[0] = -1;
			next[1] = last[1];
		} else if (pipe2(next, O_CLOEXEC) < 0) {
			int err = errno;

			loader_event(ring->ctx, "error", "pipe for ring member %ld of %ld: %s", i,
				     ring->procs, strerror(err));
			close(in);
			close(last[1]);
			return -1;
		}
		m->in = in;
		m->out = next[1];
		m->cpu = spec->cpu;
		m->counts_trips = i == spec->first;
		pid = loader_fork();
		if (pid == 0) {
			if (next[0] >= 0)
				close(next[0]);
			if (!is_last)
				close(last[1]);
			member_process(m);
		}
		if (pid < 0) {
			report_fork_failure(ring, i, errno);
			close(in);
			close(next[1]);
			if (next[0] >= 0)
				close(next[0]);
			if (!is_last)
				close(last[1]);
			return -1;
		}
		m->pid = pid;
		/* The tokens start in the first member's output, so a trip is
		 * complete when the first member takes a token back. */
		for (long t = 0; i == spec->first && t < spec->tokens; t++) {
			while (write(next[1], "t", 1) < 0 && errno == EINTR)
				;
		}
		close(in);
		close(next[1]);
		in = next[0];
	}
	if (loader_stopping()) {
		/* Stopped while building: close what the loop still held. */
		if (in >= 0)
			close(in);
		if (ring->members[end - 1].pid == 0)
			close(last[1]);
	}
	return 0;
}

static int ring_start_processes(struct ring *ring)
{
	for (long r = 0; r < ring->layout.nrings && !loader_stopping(); r++) {
		if (ring_start_one(ring, &ring->layout.rings[r]) < 0)
			return -1;
	}
	return 0;
}

/* A member that left because a neighbour had gone is not the news. */
static bool death_is_cause(int status)
{
	return !WIFEXITED(status) || WEXITSTATUS(status) != MEMBER_EXIT_BROKEN;
}

/* Reports why the ring broke, given the first death seen. A killed member
 * closes its pipes before it becomes a zombie, so a neighbour's exit can be
 * seen first: the others that died meanwhile are looked at, for a short
 * while, to name the one that caused it. */
static void report_ring_broken(struct ring *ring, int index, pid_t pid, int status)
{
	int64_t deadline = mono_ns() + 200 * NSEC_PER_MSEC;
	const struct timespec pause = { .tv_nsec = 5 * NSEC_PER_MSEC };
	char why[96];

	while (!death_is_cause(status) && mono_ns() < deadline) {
		int st;
		pid_t r = waitpid(-1, &st, WNOHANG);
		struct member *m;

		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0) {
			nanosleep(&pause, NULL);
			continue;
		}
		if ((m = member_by_pid(ring, r)) == NULL)
			continue;
		m->pid = 0;
		if (death_is_cause(st)) {
			index = m->index;
			pid = r;
			status = st;
		}
	}
	describe_member_death(status, why, sizeof why);
	loader_event(ring->ctx, "error", "ring broken: member %d (pid %d) %s", index, (int)pid,
		     why);
}

static int ring_run_processes(struct ring *ring)
{
	int status, rc = 0;
	pid_t pid;

	if (ring_start_processes(ring) < 0) {
		members_end(ring, SIGKILL);
		return 1;
	}
	while (!loader_stopping()) {
		struct member *m;

		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((m = member_by_pid(ring, pid)) == NULL)
			continue;
		m->pid = 0;
		if (loader_stopping())
			break;
		report_ring_broken(ring, m->index, pid, status);
		rc = 1;
		break;
	}
	/* On a stop the group's SIGTERM has usually reached every member
	 * already; a member forked after it has not. */
	members_end(ring, rc == 0 ? SIGTERM : SIGKILL);
	return rc;
}

/* ---- thread mode ---- */

static void *member_thread(void *arg)
{
	struct member *m = arg;
	struct ring *ring = m->ring;
	unsigned char *ws = NULL;
	const char *what = "";
	int err;

	if (ring_pin_self(m->cpu) < 0) {
		err = errno;
		loader_event(ring->ctx, "error", "ring member %d: cannot be pinned to CPU %d: %s",
			     m->index, m->cpu, strerror(err));
	} else if (ring->ws_bytes > 0 && (ws = working_set_new(ring->ws_bytes)) == NULL) {
		err = errno;
		loader_event(ring->ctx, "error",
			     "ring member %d: no memory for its working set: %s", m->index,
			     strerror(err));
	} else {
		enum member_end end = member_loop(m, ws, &what);

		err = errno;
		if (ws != NULL)
			munmap(ws, ring->ws_bytes);
		if (end == MEMBER_LEFT)
			return NULL;
		loader_event(ring->ctx, "error", "ring member %d: %s: %s", m->index, what,
			     strerror(err));
	}
	/* Wake the main thread, the only one that takes SIGTERM. */
	atomic_store(&ring->failed, 1);
	kill(getpid(), SIGTERM);
	return NULL;
}

/* A thread ring keeps both ends of every pipe in one process. */
/* Two pipe ends per thread, and a few to spare. */
static int ring_fd_limit(const struct ring *ring)
{
	rlim_t need = (rlim_t)ring->procs * 2 + SPARE_FDS, hard;

	if (raise_fd_limit(need, &hard) == 0)
		return 0;
	if (hard < need)
		loader_event(ring->ctx, "error",
			     "a ring of %ld threads needs %llu open files; the "
			     "limit is %llu (raise it with ulimit -n or LimitNOFILE=, or use mode "
			     "= process)",
			     ring->procs, (unsigned long long)need, (unsigned long long)hard);
	else
		loader_event(ring->ctx, "error", "raising the open file limit to %llu: %s",
			     (unsigned long long)need, strerror(errno));
	return -1;
}

/* Every ring's pipes (ring->ends, one pair per member); the tokens start in
 * the first member's output. */
static int ring_pipes(struct ring *ring)
{
	for (long r = 0; r < ring->layout.nrings; r++) {
		const struct cpu_ring_spec *spec = &ring->layout.rings[r];
		struct ring_ends *ends = &ring->ends[spec->first];

		if (token_ring_pipes(ends, spec->members) < 0) {
			loader_event(ring->ctx, "error", "pipes for ring %ld of %ld: %s", r,
				     ring->layout.nrings, strerror(errno));
			return -1;
		}
		for (long k = 0; k < spec->members; k++) {
			struct member *m = &ring->members[spec->first + k];

			m->in = ends[k].in;
			m->out = ends[k].out;
			m->cpu = spec->cpu;
			m->counts_trips = k == 0;
		}
		for (long t = 0; t < spec->tokens; t++) {
			while (write(ends[0].out, "t", 1) < 0 && errno == EINTR)
				;
		}
	}
	return 0;
}

static int ring_run_threads(struct ring *ring)
{
	sigset_t stop_signals, old;
	pthread_attr_t attr;
	int rc = 0, err;

	ring->ends = xcalloc((size_t)ring->procs, sizeof *ring->ends);
	for (long i = 0; i < ring->procs; i++)
		ring->ends[i].in = ring->ends[i].out = -1;
	if (ring_fd_limit(ring) < 0 || ring_pipes(ring) < 0) {
		token_ring_close(ring->ends, ring->procs);
		free(ring->ends);
		return 1;
	}
	/* Members block SIGTERM (they inherit the mask), so it reaches this
	 * thread, which waits for it in sigsuspend(). */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop_signals, &old);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, MEMBER_STACK);
	for (long i = 0; i < ring->procs && !loader_stopping(); i++) {
		struct member *m = &ring->members[i];

		err = pthread_create(&m->thread, &attr, member_thread, m);
		if (err != 0) {
			loader_event(ring->ctx, "error",
				     "cannot start ring member %ld of %ld: "
				     "pthread_create: %s",
				     i, ring->procs, strerror(err));
			rc = 1;
			break;
		}
		m->started = true;
	}
	pthread_attr_destroy(&attr);
	while (rc == 0 && !loader_stopping() && !atomic_load(&ring->failed))
		sigsuspend(&old);
	if (atomic_load(&ring->failed))
		rc = 1;
	/* One byte more in every pipe wakes every member to see the flag; the
	 * pipes have room, as fewer than procs tokens travel. */
	atomic_store_explicit(&ring->stop, 1, memory_order_release);
	for (long i = 0; i < ring->procs; i++) {
		while (write(ring->members[i].out, "s", 1) < 0 && errno == EINTR)
			;
	}
	for (long i = 0; i < ring->procs; i++) {
		if (ring->members[i].started)
			pthread_join(ring->members[i].thread, NULL);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	token_ring_close(ring->ends, ring->procs);
	free(ring->ends);
	return rc;
}

static int cpu_run(const struct loader_ctx *ctx)
{
	const struct cpu_config *cfg = ctx->config;
	struct ring ring = {
		.ctx = ctx,
		.ws_bytes = (size_t)size_resolve(&cfg->size, 0, 0),
		.work_ns = cfg->work_us * 1000,
	};
	char err[200];
	int rc;

	if (plan_here(cfg, &ring.layout, err, sizeof err) < 0) {
		loader_event(ctx, "error", "%s", err);
		return 1;
	}
	ring.procs = ring.layout.procs;
	/* Set before the members start, so every one of them inherits it. */
	if (cfg->nice != 0 && setpriority(PRIO_PROCESS, 0, (int)cfg->nice) < 0) {
		loader_event(ctx, "error", "nice %ld: %s", cfg->nice, strerror(errno));
		return 1;
	}
	ring.members = xcalloc((size_t)ring.procs, sizeof *ring.members);
	for (long i = 0; i < ring.procs; i++) {
		ring.members[i].ring = &ring;
		ring.members[i].index = (int)i;
		ring.members[i].in = ring.members[i].out = -1;
		ring.members[i].cpu = -1;
	}
	if (cfg->mode == CPU_THREAD)
		rc = ring_run_threads(&ring);
	else
		rc = ring_run_processes(&ring);
	free(ring.members);
	cpu_layout_free(&ring.layout);
	return rc;
}

const struct loader_ops loader_cpu_ops = {
	.version = LOADER_OPS_VERSION,
	.name = "cpu",
	.summary = "rings of processes or threads passing tokens through pipes (lmbench lat_ctx), "
		   "one per CPU",
	.options = cpu_options,
	.config_size = sizeof(struct cpu_config),
	.cycle_unit = "trips",
	.ops_unit = "passes",
	.reports_bytes = false,
	.expect = "busy >= 90%",
	.check = cpu_check,
	.run = cpu_run,
	.describe = cpu_describe,
};
