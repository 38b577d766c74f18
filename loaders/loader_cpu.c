/* The cpu loader: lmbench lat_ctx's dual-pipe ring. procs members, processes
 * or threads, each read a token from the pipe before it and write it to the
 * pipe after it, so every token pass is one context switch. tokens of them
 * travel at once; size bytes of working set are read by each member between
 * taking a token and passing it on, as lat_ctx -s does. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "parse.h"
#include "timeutil.h"
#include "xalloc.h"

enum cpu_mode { CPU_PROCESS, CPU_THREAD };

struct cpu_config {
	long procs;
	long tokens;
	struct size_spec size;
	int mode;
	long nice;
};

static const char *const cpu_modes[] = { "process", "thread", NULL };

static const struct option_def cpu_options[] = {
	{ .key = "procs", .type = OPT_INT, .offset = offsetof(struct cpu_config, procs),
	  .def = "8", .min = 2, .max = 4096,
	  .help = "members of the ring, each a process or a thread" },
	{ .key = "tokens", .type = OPT_INT, .offset = offsetof(struct cpu_config, tokens),
	  .def = "1", .min = 1, .max = 4095,
	  .help = "tokens travelling the ring at once; fewer than procs, so members wait" },
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
	int in, out;   /* read end of the pipe before it, write end of the one after */
	pid_t pid;     /* process mode; 0 when not running */
	pthread_t thread;
	bool started;  /* thread mode */
};

struct ring {
	const struct loader_ctx *ctx;
	long procs;
	long tokens;
	size_t ws_bytes;
	struct member *members;
	atomic_int stop;   /* thread mode: members leave at their next read */
	atomic_int failed; /* thread mode: a member hit an error */
};

static int key_line(const struct load_def *def, const char *key)
{
	for (size_t i = 0; i < def->nkv; i++) {
		if (strcmp(def->kvs[i].key, key) == 0)
			return def->kvs[i].line;
	}
	return def->line;
}

static int cpu_check(const void *config, const struct load_def *def, const char *file, FILE *errs)
{
	const struct cpu_config *cfg = config;
	int problems = 0;

	if (cfg->tokens >= cfg->procs) {
		fprintf(errs, "%s:%d: tokens = %ld needs more members than that (procs = %ld): with "
			"a token at every member none of them waits\n", file,
			key_line(def, "tokens"), cfg->tokens, cfg->procs);
		problems++;
	}
	if (cfg->size.kind != SIZE_BYTES) {
		fprintf(errs, "%s:%d: size: give each member's working set in bytes (\"64K\"), not "
			"as a share of the machine's memory\n", file, key_line(def, "size"));
		problems++;
	}
	if (cfg->nice < 0 && geteuid() != 0) {
		struct rlimit rl;

		/* RLIMIT_NICE lets an unprivileged user go down to 20 - rlim_cur. */
		if (getrlimit(RLIMIT_NICE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
		    20 - (long)rl.rlim_cur > cfg->nice) {
			fprintf(errs, "%s:%d: nice = %ld needs root (or a higher RLIMIT_NICE)\n",
				file, key_line(def, "nice"), cfg->nice);
			problems++;
		}
	}
	return problems;
}

static void cpu_describe(const void *config, char *buf, size_t len)
{
	const struct cpu_config *cfg = config;
	char ws[64] = "", nice[24] = "";

	if (cfg->size.bytes > 0) {
		char bytes[32];

		format_bytes(cfg->size.bytes, bytes, sizeof bytes);
		snprintf(ws, sizeof ws, ", %s working set each", bytes);
	}
	if (cfg->nice != 0)
		snprintf(nice, sizeof nice, ", nice %ld", cfg->nice);
	snprintf(buf, len, "%ld %s in a ring, %ld token%s%s%s", cfg->procs,
		 cfg->mode == CPU_THREAD ? "threads" : "processes", cfg->tokens,
		 cfg->tokens == 1 ? "" : "s", ws, nice);
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

/* One load per cache line brings the whole set through the cache; the empty
 * asm keeps the compiler from dropping loads whose sum nobody reads. */
static void working_set_touch(const unsigned char *ws, size_t bytes)
{
	unsigned long sum = 0;

	for (size_t i = 0; i < bytes; i += 64)
		sum += ws[i];
	__asm__ __volatile__("" : : "r"(sum));
}

enum member_end { MEMBER_STOPPED, MEMBER_BROKEN, MEMBER_FAILED };

/* What every member does until its ring breaks or it is stopped: in process
 * mode by SIGTERM (the default action), in thread mode by the stop flag,
 * seen at the next read. Member 0 counts a cycle for every token it takes,
 * as each token passes it once a trip. */
static enum member_end member_loop(const struct member *m, const unsigned char *ws,
				   const char **what)
{
	struct loader_shm *shm = m->ring->ctx->shm;
	size_t ws_bytes = m->ring->ws_bytes;
	uint64_t passes = 0, cycles = 0;
	int64_t flushed = coarse_ns();
	char token;
	ssize_t n;

	for (;;) {
		n = read(m->in, &token, 1);
		if (n == 0) {
			*what = "the member before it is gone";
			return MEMBER_BROKEN;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*what = "read";
			return MEMBER_FAILED;
		}
		if (atomic_load_explicit(&m->ring->stop, memory_order_acquire)) {
			loader_progress(shm, cycles, 0, passes);
			return MEMBER_STOPPED;
		}
		if (ws != NULL)
			working_set_touch(ws, ws_bytes);
		while ((n = write(m->out, &token, 1)) < 0 && errno == EINTR)
			;
		if (n < 0 && errno == EPIPE) {
			*what = "the member after it is gone";
			return MEMBER_BROKEN;
		}
		if (n < 0) {
			*what = "write";
			return MEMBER_FAILED;
		}
		passes++;
		if (m->index == 0)
			cycles++;
		if (passes >= FLUSH_PASSES || coarse_ns() - flushed >= FLUSH_NS) {
			loader_progress(shm, cycles, 0, passes);
			passes = cycles = 0;
			flushed = coarse_ns();
		}
	}
}

/* ---- process mode ---- */

/* Exit statuses of a member process, which the top explains. */
#define MEMBER_EXIT_BROKEN 3
#define MEMBER_EXIT_FAILED 4
#define MEMBER_EXIT_NOMEM 5

static void member_process(const struct member *m)
{
	const struct ring *ring = m->ring;
	unsigned char *ws = NULL;
	const char *what = "";

	/* A neighbour that died shows as EPIPE, not as a death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
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
		snprintf(buf, len, "was killed by signal %s", sigabbrev_np(WTERMSIG(status)) ?
			 sigabbrev_np(WTERMSIG(status)) : "?");
		return;
	}
	switch (WEXITSTATUS(status)) {
	case MEMBER_EXIT_BROKEN:
		snprintf(buf, len, "left because a neighbour had gone");
		break;
	case MEMBER_EXIT_NOMEM:
		snprintf(buf, len, "could not get its working set");
		break;
	default:
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
		break;
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

/* Forks the members one by one, each with the read end of the pipe the one
 * before it writes. The top holds at most four ring fds at any moment, and
 * every member holds only its own two, so a member's death reaches its
 * neighbours as EOF and EPIPE and the ring comes down. */
static int ring_start_processes(struct ring *ring)
{
	int last[2], next[2], in;

	if (pipe2(last, O_CLOEXEC) < 0) {
		loader_event(ring->ctx, "error", "pipe: %s", strerror(errno));
		return -1;
	}
	in = last[0];
	for (long i = 0; i < ring->procs && !loader_stopping(); i++) {
		struct member *m = &ring->members[i];
		bool is_last = i == ring->procs - 1;
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
		/* The tokens start in member 0's output, so a trip is complete
		 * when member 0 takes a token back. */
		for (long t = 0; i == 0 && t < ring->tokens; t++) {
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
		if (ring->members[ring->procs - 1].pid == 0)
			close(last[1]);
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
	loader_event(ring->ctx, "error", "ring broken: member %d (pid %d) %s", index, (int)pid, why);
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

	if (ring->ws_bytes > 0 && (ws = working_set_new(ring->ws_bytes)) == NULL) {
		err = errno;
		loader_event(ring->ctx, "error", "ring member %d: no memory for its working set: %s",
			     m->index, strerror(err));
	} else {
		enum member_end end = member_loop(m, ws, &what);

		err = errno;
		if (ws != NULL)
			munmap(ws, ring->ws_bytes);
		if (end == MEMBER_STOPPED)
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
static int raise_fd_limit(const struct ring *ring)
{
	rlim_t need = (rlim_t)ring->procs * 2 + SPARE_FDS;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max < need) {
		struct rlimit raised = { need, need };

		/* Root may raise the hard limit too (up to fs.nr_open). */
		if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
			return 0;
		loader_event(ring->ctx, "error", "a ring of %ld threads needs %llu open files; the "
			     "limit is %llu (raise it with ulimit -n or LimitNOFILE=, or use mode "
			     "= process)", ring->procs, (unsigned long long)need,
			     (unsigned long long)rl.rlim_max);
		return -1;
	}
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		loader_event(ring->ctx, "error", "raising the open file limit to %llu: %s",
			     (unsigned long long)need, strerror(errno));
		return -1;
	}
	return 0;
}

/* Every member's pipe: member i writes pipe i, member 0 reads the last. */
static int ring_pipes(struct ring *ring)
{
	int fds[2];

	for (long i = 0; i < ring->procs; i++) {
		if (pipe2(fds, O_CLOEXEC) < 0) {
			loader_event(ring->ctx, "error", "pipe for ring member %ld of %ld: %s", i,
				     ring->procs, strerror(errno));
			return -1;
		}
		ring->members[i].out = fds[1];
		ring->members[(i + 1) % ring->procs].in = fds[0];
	}
	for (long t = 0; t < ring->tokens; t++) {
		while (write(ring->members[0].out, "t", 1) < 0 && errno == EINTR)
			;
	}
	return 0;
}

static void ring_close_pipes(struct ring *ring)
{
	for (long i = 0; i < ring->procs; i++) {
		struct member *m = &ring->members[i];

		if (m->in >= 0)
			close(m->in);
		if (m->out >= 0)
			close(m->out);
		m->in = m->out = -1;
	}
}

static int ring_run_threads(struct ring *ring)
{
	sigset_t stop_signals, old;
	pthread_attr_t attr;
	int rc = 0, err;

	if (raise_fd_limit(ring) < 0 || ring_pipes(ring) < 0) {
		ring_close_pipes(ring);
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
			loader_event(ring->ctx, "error", "cannot start ring member %ld of %ld: "
				     "pthread_create: %s", i, ring->procs, strerror(err));
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
	ring_close_pipes(ring);
	return rc;
}

static int cpu_run(const struct loader_ctx *ctx)
{
	const struct cpu_config *cfg = ctx->config;
	struct ring ring = {
		.ctx = ctx,
		.procs = cfg->procs,
		.tokens = cfg->tokens,
		.ws_bytes = (size_t)size_resolve(&cfg->size, 0, 0),
	};
	int rc;

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
	}
	if (cfg->mode == CPU_THREAD)
		rc = ring_run_threads(&ring);
	else
		rc = ring_run_processes(&ring);
	free(ring.members);
	return rc;
}

const struct loader_ops loader_cpu_ops = {
	.version = LOADER_OPS_VERSION,
	.name = "cpu",
	.summary = "a ring of processes or threads passing tokens through pipes (lmbench lat_ctx)",
	.options = cpu_options,
	.config_size = sizeof(struct cpu_config),
	.cycle_unit = "trips",
	.ops_unit = "passes",
	.reports_bytes = false,
	.check = cpu_check,
	.run = cpu_run,
	.describe = cpu_describe,
};
