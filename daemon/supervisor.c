// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor: every load is a child process tree in its own process
 * group, with the parent-death signal and oom_score_adj = 1000. Once a second
 * it reads each load's counters (shared memory) and CPU time (/proc), records
 * them, flags stalls, and restarts dead loads with back-off; stopping is
 * SIGTERM to the group, a grace period, SIGKILL, everything reaped. */
#include "remove_tree.h"
#include "supervisor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "loader.h"
#include "log.h"
#include "procfs.h"
#include "timeutil.h"
#include "workdir.h"
#include "xalloc.h"

#define STOP_GRACE_MS LOADER_STOP_GRACE_MS /* SIGTERM to SIGKILL */
#define KILL_WAIT_MS 3000                  /* after SIGKILL, for a process stuck in the kernel */
#define BACKOFF_FIRST_MS 1000
#define BACKOFF_MAX_MS 60000
#define BACKOFF_RESET_MS 30000 /* a load that ran this long starts its back-off afresh */

struct load {
	struct supervisor *sv;
	char *name;
	char *dir;       /* <workdir>/load-<name>, emptied at every start */
	char *cache_dir; /* <workdir>/cache-<name>, kept until the run ends */
	bool dirs_made;  /* both made by loadd: only then removed */
	const struct load_def *def;
	const struct loader_ops *ops;
	struct loader_shm *shm; /* one per load per run: counters survive restarts */
	int event_pipe[2];
	struct event *event_ev;
	struct event *restart_timer;
	char line[PIPE_BUF]; /* an event line still being received */
	size_t line_len;

	bool active;   /* a load of the current phase */
	bool stopping; /* its death was asked for */
	pid_t pid;     /* the top process; 0 when not running */
	pid_t pgid;    /* its group, kept after the top is reaped */
	int64_t started_ns;
	int restarts;
	int64_t backoff_ms;

	uint64_t dead_cpu_ns; /* reaped tops, with all they reaped */
	uint64_t live_cpu_ns;
	double cpu_ms; /* as recorded: never goes down */
	int nprocs;

	int64_t watch_from_ns; /* the stall clock starts no earlier than the phase */
	bool stalled;

	uint64_t win_cycles, win_bytes, win_ops; /* at supervisor_mark_window() */
};

struct supervisor {
	struct event_base *base;
	struct db *db;
	int64_t run_id;
	int64_t phase_id;
	char *workdir;
	uid_t uid; /* the loads' user, owner of their dirs */
	gid_t gid;
	struct load **loads;
	size_t nloads;
	struct event *tick;
	/* /proc/vmstat oom_kill one tick ago: a kill since then is recent
	 * enough to explain a death seen now. */
	uint64_t oom_before;
	uint64_t oom_last;
};

/* ---- events ---- */

static void record(struct load *l, const char *kind, const char *message, bool from_loader)
{
	struct event e = {
		.phase_id = l->sv->phase_id,
		.t = wall_now(),
		.load = l->name,
		.kind = kind,
		.message = message,
	};
	bool bad = strcmp(kind, "error") == 0 || strcmp(kind, "exit") == 0 ||
		   strcmp(kind, "signal") == 0 || strcmp(kind, "oom-kill") == 0 ||
		   strcmp(kind, "stall") == 0;

	if (from_loader)
		log_msg(bad ? LOG_WARN : LOG_INFO, "load %s: %s: %s", l->name, kind, message);
	else
		log_msg(bad ? LOG_WARN : LOG_INFO, "load %s: %s", l->name, message);
	db_event_insert(l->sv->db, l->sv->run_id, &e);
}

static void recordf(struct load *l, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void recordf(struct load *l, const char *kind, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		fatalx("out of memory formatting an event");
	va_end(ap);
	record(l, kind, msg, false);
	free(msg);
}

/* "KIND message": a kind is one short word; anything else is kept whole. */
static void event_line(struct load *l, char *text)
{
	char *space = strchr(text, ' ');
	size_t klen = space ? (size_t)(space - text) : strlen(text);
	bool kind_ok = klen > 0 && klen <= 24;

	for (size_t i = 0; kind_ok && i < klen; i++) {
		char c = text[i];

		kind_ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
	}
	if (!kind_ok) {
		record(l, "message", text, true);
		return;
	}
	if (space != NULL)
		*space = '\0';
	record(l, text, space ? space + 1 : "", true);
}

static void drain_events(struct load *l)
{
	for (;;) {
		ssize_t n = read(l->event_pipe[0], l->line + l->line_len,
				 sizeof l->line - l->line_len);
		char *start, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		l->line_len += (size_t)n;
		start = l->line;
		while ((nl = memchr(start, '\n', l->line_len - (size_t)(start - l->line))) !=
		       NULL) {
			*nl = '\0';
			event_line(l, start);
			start = nl + 1;
		}
		l->line_len -= (size_t)(start - l->line);
		memmove(l->line, start, l->line_len);
		/* Loaders write whole lines below PIPE_BUF; a longer one is cut. */
		if (l->line_len == sizeof l->line) {
			l->line[sizeof l->line - 1] = '\0';
			event_line(l, l->line);
			l->line_len = 0;
		}
	}
}

static void on_event_pipe(evutil_socket_t fd, short what, void *arg)
{
	drain_events(arg);
}

/* ---- OOM kills ---- */

/* The kernel's count of OOM kills (/proc/vmstat oom_kill, Linux 4.13+). It
 * counts kills by the global and by memory-cgroup OOM killers alike, needs no
 * cgroup of our own, and works without root. */
static bool read_oom_kills(uint64_t *out)
{
	char buf[16384];
	const char *p;

	if (read_small_file("/proc/vmstat", buf, sizeof buf) < 0)
		return false;
	p = strstr(buf, "\noom_kill ");
	if (p == NULL)
		return false;
	*out = strtoull(p + 10, NULL, 10);
	return true;
}

/* OOM kills since one tick before now. */
static uint64_t recent_oom_kills(struct supervisor *sv)
{
	uint64_t now;

	if (!read_oom_kills(&now) || now < sv->oom_before)
		return 0;
	return now - sv->oom_before;
}

/* ---- starting ---- */

static int make_load_dir(struct load *l, const char *path, bool empty)
{
	char *err = NULL;

	if (workdir_make(l->sv->workdir, path + strlen(l->sv->workdir) + 1, l->sv->uid, l->sv->gid,
			 empty, &err) < 0) {
		recordf(l, "error", "cannot make its dir: %s", err);
		free(err);
		return -1;
	}
	return 0;
}

static int load_start(struct load *l)
{
	char *err = NULL;
	struct loader_ctx ctx;
	pid_t pid;

	/* A restarted loader gets an empty dir too, whatever its last run left;
	 * both dirs are recorded as loadd's before they are made, and belong to
	 * the user the loads run as. */
	if (make_load_dir(l, l->dir, true) < 0 || make_load_dir(l, l->cache_dir, false) < 0)
		return -1;
	/* The tree load keeps its trees for later runs beside the probe's. */
	if (strcmp(l->ops->name, "tree") == 0 &&
	    workdir_make(l->sv->workdir, TREE_LOAD_DIR, l->sv->uid, l->sv->gid, false, &err) < 0) {
		recordf(l, "error", "cannot make its dir: %s", err);
		free(err);
		return -1;
	}
	l->dirs_made = true;
	/* A restarted load ramps up afresh; set before the fork, so that a
	 * settle that ends at once still sees it ramping. */
	atomic_store_explicit(&l->shm->reach,
			      l->ops->ramps != NULL && l->ops->ramps(l->def->config)
				      ? LOADER_RAMPING
				      : LOADER_STEADY,
			      memory_order_relaxed);
	ctx = (struct loader_ctx){
		.name = l->name,
		.config = l->def->config,
		.dir = l->dir,
		.cache_dir = l->cache_dir,
		.shm = l->shm,
		.event_fd = l->event_pipe[1],
	};
	pid = loader_spawn(l->ops, &ctx);
	if (pid < 0) {
		recordf(l, "error", "cannot start: fork: %s", strerror(errno));
		return -1;
	}
	l->pid = pid;
	l->pgid = pid;
	l->stopping = false;
	l->started_ns = mono_ns();
	return 0;
}

static void schedule_restart(struct load *l, int64_t delay_ms)
{
	struct timeval tv = { .tv_sec = delay_ms / 1000, .tv_usec = delay_ms % 1000 * 1000 };

	evtimer_add(l->restart_timer, &tv);
}

/* The next back-off delay: 1 s, 2 s, 4 s ... 60 s. */
static int64_t next_backoff(struct load *l)
{
	int64_t delay = l->backoff_ms;

	l->backoff_ms = delay * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : delay * 2;
	return delay;
}

static void on_restart(evutil_socket_t fd, short what, void *arg)
{
	struct load *l = arg;
	int64_t delay;

	if (!l->active)
		return;
	if (l->pid != 0) {
		/* Its last processes are still on their way out. */
		schedule_restart(l, next_backoff(l));
		return;
	}
	l->restarts++;
	if (load_start(l) == 0) {
		recordf(l, "restart", "restarted (restart %d, pid %d)", l->restarts, (int)l->pid);
		return;
	}
	delay = next_backoff(l);
	recordf(l, "error", "restart %d failed; next try in %llds", l->restarts,
		(long long)(delay / 1000));
	schedule_restart(l, delay);
}

/* ---- deaths ---- */

static uint64_t timeval_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * NSEC_PER_SEC + (uint64_t)tv.tv_usec * 1000;
}

/* What killed it, as an event kind and a sentence. */
static const char *describe_death(int status, uint64_t oom_kills, char *buf, size_t len)
{
	if (status == -1) {
		snprintf(buf, len, "vanished (reaped by another part of loadd)");
		return "exit";
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *abbrev = sigabbrev_np(sig);

		if (sig == SIGKILL && oom_kills > 0) {
			snprintf(buf, len, "killed by the OOM killer");
			return "oom-kill";
		}
		snprintf(buf, len, "killed by signal %s%s (%d)%s", abbrev ? "SIG" : "",
			 abbrev ? abbrev : "?", sig, WCOREDUMP(status) ? ", core dumped" : "");
		return "signal";
	}
	if (oom_kills > 0) {
		/* Its top went on its own after the OOM killer took a member. */
		snprintf(buf, len,
			 "exited with status %d after the OOM killer killed %llu "
			 "process%s",
			 WEXITSTATUS(status), (unsigned long long)oom_kills,
			 oom_kills == 1 ? "" : "es");
		return "oom-kill";
	}
	snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	return "exit";
}

static void load_died(struct load *l, int status, const struct rusage *ru)
{
	int64_t ran_ms = (mono_ns() - l->started_ns) / NSEC_PER_MSEC;
	char what[160], ran[32], delay_text[32];
	const char *kind;
	int64_t delay;

	l->dead_cpu_ns += timeval_ns(ru->ru_utime) + timeval_ns(ru->ru_stime);
	l->live_cpu_ns = 0;
	l->pid = 0;
	/* Its last words come before the news of its death. */
	drain_events(l);
	if (l->stopping || !l->active)
		return;
	kind = describe_death(status, recent_oom_kills(l->sv), what, sizeof what);
	if (ran_ms >= BACKOFF_RESET_MS)
		l->backoff_ms = BACKOFF_FIRST_MS;
	delay = next_backoff(l);
	format_ms(ran_ms, ran, sizeof ran);
	format_ms(delay, delay_text, sizeof delay_text);
	recordf(l, kind, "%s after %s; restart in %s", what, ran, delay_text);
	schedule_restart(l, delay);
}

/* Waits for the tops only, each by its pid: the probe thread reaps its own
 * jobs, so waitpid(-1) would steal them. */
void supervisor_reap(struct supervisor *sv)
{
	for (size_t i = 0; i < sv->nloads; i++) {
		struct load *l = sv->loads[i];
		struct rusage ru;
		int status;
		pid_t r;

		if (l->pid <= 0)
			continue;
		r = wait4(l->pid, &status, WNOHANG, &ru);
		if (r == l->pid) {
			load_died(l, status, &ru);
		} else if (r < 0 && errno == ECHILD) {
			/* Reaped by someone else: its status is lost, not its death. */
			memset(&ru, 0, sizeof ru);
			load_died(l, -1, &ru);
		}
	}
}

/* ---- watching ---- */

static void check_stall(struct load *l, int64_t now)
{
	int64_t last = atomic_load_explicit(&l->shm->last_progress_ns, memory_order_relaxed);
	int64_t since = last > l->watch_from_ns ? last : l->watch_from_ns;
	char quiet[32];

	if (now - since >= l->def->stall_ms * NSEC_PER_MSEC) {
		if (!l->stalled) {
			l->stalled = true;
			format_ms((now - since) / NSEC_PER_MSEC, quiet, sizeof quiet);
			recordf(l, "stall", "no progress for %s", quiet);
		}
	} else if (l->stalled) {
		l->stalled = false;
		recordf(l, "progress", "making progress again");
	}
}

/* Reads every active load's counters and CPU time, checks stalls, and
 * stores one loader_stats row per load. */
static void sample_all(struct supervisor *sv)
{
	pid_t *pgids = xcalloc(sv->nloads, sizeof *pgids);
	uint64_t *cpu = xcalloc(sv->nloads, sizeof *cpu);
	int *nprocs = xcalloc(sv->nloads, sizeof *nprocs);
	int n = 0, at;
	int64_t now = mono_ns();
	double t = wall_now();

	for (size_t i = 0; i < sv->nloads; i++) {
		if (sv->loads[i]->active && sv->loads[i]->pid > 0)
			pgids[n++] = sv->loads[i]->pgid;
	}
	if (n > 0 && procfs_group_usage(pgids, n, cpu, nprocs) < 0)
		n = 0;
	at = 0;
	for (size_t i = 0; i < sv->nloads; i++) {
		struct load *l = sv->loads[i];
		struct loader_sample s;
		double cpu_ms;

		if (!l->active)
			continue;
		l->nprocs = 0;
		if (l->pid > 0 && at < n) {
			l->live_cpu_ns = cpu[at];
			l->nprocs = nprocs[at];
			at++;
		}
		cpu_ms = (double)(l->dead_cpu_ns + l->live_cpu_ns) / NSEC_PER_MSEC;
		if (cpu_ms > l->cpu_ms)
			l->cpu_ms = cpu_ms;
		check_stall(l, now);
		s = (struct loader_sample){
			.phase_id = sv->phase_id,
			.load = l->name,
			.t = t,
			.cycles = atomic_load_explicit(&l->shm->cycles, memory_order_relaxed),
			.bytes = atomic_load_explicit(&l->shm->bytes, memory_order_relaxed),
			.ops = atomic_load_explicit(&l->shm->ops, memory_order_relaxed),
			.errors = atomic_load_explicit(&l->shm->errors, memory_order_relaxed),
			.cpu_ms = l->cpu_ms,
			.procs = l->nprocs,
			.restarts = l->restarts,
			.running = l->pid > 0,
			.stalled = l->stalled,
		};
		db_loader_sample_insert(sv->db, sv->run_id, &s);
	}
	free(pgids);
	free(cpu);
	free(nprocs);
}

void supervisor_snapshot(struct supervisor *sv)
{
	supervisor_reap(sv);
	sample_all(sv);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct supervisor *sv = arg;
	uint64_t oom;

	supervisor_snapshot(sv);
	if (read_oom_kills(&oom)) {
		sv->oom_before = sv->oom_last;
		sv->oom_last = oom;
	}
}

void supervisor_mark_window(struct supervisor *sv)
{
	for (size_t i = 0; i < sv->nloads; i++) {
		struct load *l = sv->loads[i];

		l->win_cycles = atomic_load_explicit(&l->shm->cycles, memory_order_relaxed);
		l->win_bytes = atomic_load_explicit(&l->shm->bytes, memory_order_relaxed);
		l->win_ops = atomic_load_explicit(&l->shm->ops, memory_order_relaxed);
	}
}

/* Adds a load's name to a space-separated list (NULL: empty). */
static void names_add(char **names, const char *name)
{
	char *joined = *names ? xasprintf("%s %s", *names, name) : xstrdup(name);

	free(*names);
	*names = joined;
}

char *supervisor_window_stalled(struct supervisor *sv)
{
	char *names = NULL;

	for (size_t i = 0; i < sv->nloads; i++) {
		struct load *l = sv->loads[i];
		if (!l->active ||
		    atomic_load_explicit(&l->shm->cycles, memory_order_relaxed) != l->win_cycles ||
		    atomic_load_explicit(&l->shm->bytes, memory_order_relaxed) != l->win_bytes ||
		    atomic_load_explicit(&l->shm->ops, memory_order_relaxed) != l->win_ops)
			continue;
		names_add(&names, l->name);
	}
	return names;
}

char *supervisor_ramping(struct supervisor *sv)
{
	char *names = NULL;

	for (size_t i = 0; i < sv->nloads; i++) {
		struct load *l = sv->loads[i];

		/* Its event lines first: the hold it announced is recorded
		 * before the probe window it lets open. */
		if (l->active)
			on_event_pipe(l->event_pipe[0], EV_READ, l);
		if (!l->active ||
		    atomic_load_explicit(&l->shm->reach, memory_order_relaxed) != LOADER_RAMPING)
			continue;
		names_add(&names, l->name);
	}
	return names;
}

size_t supervisor_status(struct supervisor *sv, struct load_status *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sv->nloads && n < max; i++) {
		struct load *l = sv->loads[i];

		if (!l->active)
			continue;
		out[n++] = (struct load_status){
			.name = l->name,
			.type = l->ops->name,
			.pgid = l->pid > 0 ? l->pgid : 0,
			.procs = l->nprocs,
			.restarts = l->restarts,
			.stalled = l->stalled,
			.ramping = atomic_load_explicit(&l->shm->reach, memory_order_relaxed) ==
				   LOADER_RAMPING,
			.cycles = atomic_load_explicit(&l->shm->cycles, memory_order_relaxed),
			.bytes = atomic_load_explicit(&l->shm->bytes, memory_order_relaxed),
			.ops = atomic_load_explicit(&l->shm->ops, memory_order_relaxed),
			.errors = atomic_load_explicit(&l->shm->errors, memory_order_relaxed),
			.cpu_ms = l->cpu_ms,
		};
	}
	return n;
}

/* ---- the supervisor's life ---- */

struct supervisor *supervisor_new(struct event_base *base, struct db *db, int64_t run_id,
				  const char *workdir)
{
	struct supervisor *sv = xcalloc(1, sizeof *sv);
	struct timeval one_second = { 1, 0 };

	sv->base = base;
	sv->db = db;
	sv->run_id = run_id;
	sv->workdir = xstrdup(workdir);
	sv->uid = geteuid();
	sv->gid = getegid();
	if (read_oom_kills(&sv->oom_last))
		sv->oom_before = sv->oom_last;
	sv->tick = event_new(base, -1, EV_PERSIST, on_tick, sv);
	if (sv->tick == NULL)
		fatalx("cannot create the supervisor's timer");
	event_add(sv->tick, &one_second);
	return sv;
}

static struct load *load_new(struct supervisor *sv, const struct load_def *def)
{
	struct load *l = xcalloc(1, sizeof *l);

	l->sv = sv;
	l->name = xstrdup(def->name);
	l->dir = xasprintf("%s/load-%s", sv->workdir, def->name);
	l->cache_dir = xasprintf("%s/cache-%s", sv->workdir, def->name);
	l->shm = mmap(NULL, sizeof *l->shm, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		      0);
	if (l->shm == MAP_FAILED)
		fatal("mmap of load %s's counters", def->name);
	/* Non-blocking both ways: loadd never waits on a loader, nor a loader
	 * on loadd (an event is lost instead). */
	if (pipe2(l->event_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		fatal("pipe for load %s's events", def->name);
	l->event_ev = event_new(sv->base, l->event_pipe[0], EV_READ | EV_PERSIST, on_event_pipe, l);
	l->restart_timer = evtimer_new(sv->base, on_restart, l);
	if (l->event_ev == NULL || l->restart_timer == NULL)
		fatalx("cannot create the events of load %s", def->name);
	event_add(l->event_ev, NULL);
	sv->loads = xreallocarray(sv->loads, sv->nloads + 1, sizeof *sv->loads);
	sv->loads[sv->nloads++] = l;
	return l;
}

static struct load *load_get(struct supervisor *sv, const struct load_def *def)
{
	for (size_t i = 0; i < sv->nloads; i++) {
		if (strcmp(sv->loads[i]->name, def->name) == 0)
			return sv->loads[i];
	}
	return load_new(sv, def);
}

int supervisor_start_phase(struct supervisor *sv, int64_t phase_id,
			   const struct load_def *const *loads, size_t n)
{
	int64_t now = mono_ns();
	int rc = 0;

	sv->phase_id = phase_id;
	for (size_t i = 0; i < n; i++) {
		struct load *l;
		char what[256] = "";

		if (loads[i] == NULL || loads[i]->loader == NULL)
			fatalx("supervisor: load %s was never validated",
			       loads[i] ? loads[i]->name : "(none)");
		l = load_get(sv, loads[i]);
		if (l->active)
			continue; /* listed twice in the phase */
		l->def = loads[i];
		l->ops = loads[i]->loader;
		l->active = true;
		l->stalled = false;
		l->watch_from_ns = now;
		l->backoff_ms = BACKOFF_FIRST_MS;
		if (l->pid > 0) {
			recordf(l, "error",
				"cannot start: its last processes (group %d) have not "
				"exited yet",
				(int)l->pgid);
			rc = -1;
			schedule_restart(l, next_backoff(l));
			continue;
		}
		if (load_start(l) < 0) {
			rc = -1;
			schedule_restart(l, next_backoff(l));
			continue;
		}
		if (l->ops->describe != NULL)
			l->ops->describe(l->def->config, what, sizeof what);
		recordf(l, "start", "started %s (pid %d)%s%s", l->ops->name, (int)l->pid,
			*what ? ": " : "", what);
	}
	return rc;
}

static bool group_exists(pid_t pgid)
{
	return pgid > 0 && (kill(-pgid, 0) == 0 || errno != ESRCH);
}

/* Reaps the tops being stopped; true when every one is reaped and every
 * group is gone (or, with groups_too false, every top is reaped). */
static bool stop_progress(struct supervisor *sv, bool groups_too)
{
	bool done = true;

	supervisor_reap(sv);
	for (size_t i = 0; i < sv->nloads; i++) {
		struct load *l = sv->loads[i];

		if (!l->stopping)
			continue;
		if (l->pid > 0 || (groups_too && group_exists(l->pgid)))
			done = false;
	}
	return done;
}

static void wait_stopped(struct supervisor *sv, int ms, bool groups_too)
{
	const struct timespec tick = { .tv_nsec = 10 * NSEC_PER_MSEC };
	int64_t deadline = mono_ns() + (int64_t)ms * NSEC_PER_MSEC;

	while (!stop_progress(sv, groups_too) && mono_ns() < deadline)
		nanosleep(&tick, NULL);
}

void supervisor_stop_all(struct supervisor *sv)
{
	bool any = false;

	for (size_t i = 0; i < sv->nloads; i++) {
		struct load *l = sv->loads[i];

		evtimer_del(l->restart_timer);
		if (l->pid > 0) {
			l->stopping = true;
			any = true;
			/* SIGCONT lets a stopped group see its SIGTERM. */
			kill(-l->pgid, SIGTERM);
			kill(-l->pgid, SIGCONT);
		}
	}
	if (any) {
		wait_stopped(sv, STOP_GRACE_MS, true);
		for (size_t i = 0; i < sv->nloads; i++) {
			struct load *l = sv->loads[i];

			if (l->stopping && (l->pid > 0 || group_exists(l->pgid))) {
				log_warn("load %s: still running %d s after SIGTERM; killing it",
					 l->name, STOP_GRACE_MS / 1000);
				kill(-l->pgid, SIGKILL);
			}
		}
		wait_stopped(sv, KILL_WAIT_MS, false);
	}
	for (size_t i = 0; i < sv->nloads; i++) {
		struct load *l = sv->loads[i];

		/* Done with the group: its number may belong to another one
		 * soon. A top stuck past SIGKILL stays "stopping", so that its
		 * death, when it comes, is not taken for a crash. */
		if (l->pid > 0) {
			log_warn("load %s: process %d survived SIGKILL (stuck in the kernel?)",
				 l->name, (int)l->pid);
		} else {
			l->stopping = false;
			l->pgid = 0;
		}
		if (l->active && l->dirs_made && remove_tree(l->dir) < 0)
			log_warn("load %s: cannot remove %s: %s", l->name, l->dir, strerror(errno));
		drain_events(l);
		l->active = false;
		l->stalled = false;
	}
}

void supervisor_free(struct supervisor *sv)
{
	if (sv == NULL)
		return;
	supervisor_stop_all(sv);
	for (size_t i = 0; i < sv->nloads; i++) {
		struct load *l = sv->loads[i];

		/* The run is over: what a loader kept for later rounds goes. */
		if (l->dirs_made && remove_tree(l->cache_dir) < 0)
			log_warn("load %s: cannot remove %s: %s", l->name, l->cache_dir,
				 strerror(errno));
		event_free(l->event_ev);
		event_free(l->restart_timer);
		close(l->event_pipe[0]);
		close(l->event_pipe[1]);
		munmap(l->shm, sizeof *l->shm);
		free(l->name);
		free(l->dir);
		free(l->cache_dir);
		free(l);
	}
	free(sv->loads);
	event_free(sv->tick);
	free(sv->workdir);
	free(sv);
}

void supervisor_set_owner(struct supervisor *sv, uid_t uid, gid_t gid)
{
	sv->uid = uid;
	sv->gid = gid;
}
