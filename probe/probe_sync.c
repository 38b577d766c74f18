// SPDX-License-Identifier: GPL-2.0-or-later
/* The sync probe: the speed of synchronisation, as Stevens' appendix on IPC
 * measures it. `threads` threads or processes each increment one shared
 * counter `count` times, each increment under the lock: a mutex, a
 * write-locked rwlock (both process-shared in shared memory when mode =
 * process), an fcntl record lock, a POSIX semaphore (memory-based or
 * named), a System V semaphore (with or without SEM_UNDO). The figure is us
 * per lock + unlock pair: the time from the first worker's first lock to
 * the last worker's last unlock, over threads × count pairs. A counter that
 * ends anywhere but at threads × count is a failed sample, never a fast
 * one. Everything a sample makes is gone when it ends; the named semaphore
 * and the System V set are in the probe's register (ipc_objects.h) before
 * they are used, so a kill -9 leaves nothing the next start does not
 * sweep. */
#include "probe_sync.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc_objects.h"
#include "probe.h"
#include "timeutil.h"
#include "xalloc.h"

enum sync_lock {
	LOCK_MUTEX,
	LOCK_RWLOCK,
	LOCK_FCNTL,
	LOCK_POSIX_SEM,
	LOCK_POSIX_NAMED_SEM,
	LOCK_SYSV_SEM,
	LOCK_SYSV_SEM_UNDO,
	LOCK_NONE,
};

static const char *const sync_locks[] = {
	"mutex",    "rwlock",        "fcntl", "posix-sem", "posix-named-sem",
	"sysv-sem", "sysv-sem-undo", "none",  NULL
};

enum sync_mode { MODE_THREAD, MODE_PROCESS };

static const char *const sync_modes[] = { "thread", "process", NULL };

struct sync_config {
	int64_t every_ms;
	int lock;
	int mode;
	long threads;
	long count;
};

/* clang-format off */
static const struct option_def sync_options[] = {
	{ "every", OPT_DURATION, offsetof(struct sync_config, every_ms), "1s", 10, 3600000,
	  NULL, NULL, "one sample per slot of this length; missed slots are counted" },
	{ "lock", OPT_ENUM, offsetof(struct sync_config, lock), "mutex", 0, 0, sync_locks, NULL,
	  "what guards the counter: mutex, rwlock (write-locked), fcntl (F_SETLKW; "
	  "F_OFD_SETLKW between threads), posix-sem (sem_init), posix-named-sem (sem_open), "
	  "sysv-sem, sysv-sem-undo (semop, SEM_UNDO); none: no lock and a yield inside "
	  "each increment, so updates are lost and the sample fails (to see the check work)" },
	{ "mode", OPT_ENUM, offsetof(struct sync_config, mode), "thread", 0, 0, sync_modes, NULL,
	  "thread: threads of one process; process: forked processes, the counter and the "
	  "lock in shared memory" },
	{ "threads", OPT_INT, offsetof(struct sync_config, threads), "2", 1, 64, NULL, NULL,
	  "threads or processes incrementing the counter" },
	{ "count", OPT_INT, offsetof(struct sync_config, count), "10000", 1, 10000000, NULL,
	  NULL, "increments by each thread or process per sample" },
	{ NULL },
};
/* clang-format on */

/* What the workers share: a MAP_SHARED anonymous mapping, so that forked
 * processes see the same counter and locks (no name to leave behind). */
struct sync_shared {
	long counter; /* plain: the lock alone keeps it right */
	pthread_mutex_t mutex;
	pthread_rwlock_t rwlock;
	sem_t sem;
	_Atomic int64_t first_ns; /* the first worker's start */
	_Atomic int64_t last_ns;  /* the last worker's end */
	_Atomic int errors;       /* workers whose lock or unlock failed */
	_Atomic int first_errno;
};

struct sync_state {
	struct sync_config cfg;
	struct ipc_objects *reg;
	const char *dir; /* where the fcntl lock file is made (unnamed) */
};

/* One sample's objects. */
struct sync_run {
	const struct sync_config *cfg;
	struct sync_shared *sh;
	sem_t *named;    /* posix-named-sem */
	int semid;       /* sysv */
	int lock_fd;     /* fcntl: the file; process mode locks through it */
	int *fds;        /* fcntl, thread mode: one open file description each */
	int gate[2];     /* a byte per worker starts them together */
	pid_t *pids;     /* process mode */
	pthread_t *tids; /* thread mode */
	long started;
};

const char *sync_limit_hint(int e, const char *what)
{
	if (strcmp(what, "semget") == 0 && e == ENOSPC)
		return " (the system's limit of semaphore sets, SEMMNI, the 4th field of the "
		       "sysctl kernel.sem, or of semaphores, SEMMNS, its 2nd, is reached)";
	if (e == EMFILE)
		return " (the open-file limit of the process: ulimit -n, RLIMIT_NOFILE)";
	if (e == ENFILE)
		return " (the system's open-file limit: the sysctl fs.file-max)";
	if ((strcmp(what, "fork") == 0 || strcmp(what, "pthread_create") == 0) && e == EAGAIN)
		return " (the limit of processes or threads: ulimit -u, RLIMIT_NPROC, or the "
		       "sysctls kernel.threads-max and kernel.pid_max)";
	if (strcmp(what, "sem_open") == 0 && (e == ENOSPC || e == ENOMEM))
		return " (/dev/shm is full)";
	return "";
}

static char *limit_error(const char *what, int e)
{
	return xasprintf("%s: %s%s", what, strerror(e), sync_limit_hint(e, what));
}

int sync_judge(long counter, long workers, long count, int64_t elapsed_ns, struct sample *s,
	       char **err)
{
	long want = workers * count;

	s->wall_ms = (double)elapsed_ns / NSEC_PER_MSEC;
	if (counter != want) {
		s->failed = true;
		s->exit_code = 1;
		*err = xasprintf("the counter ended at %ld, not at %ld (%ld × %ld): updates were "
				 "lost, so the lock did not exclude; the sample failed",
				 counter, want, workers, count);
		return -1;
	}
	s->failed = false;
	s->exit_code = 0;
	s->value = (double)elapsed_ns / NSEC_PER_USEC / (double)want;
	return 0;
}

/* ---- one lock + unlock ---- */

static int fcntl_lock(const struct sync_run *r, int fd, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	bool ofd = r->cfg->mode == MODE_THREAD; /* classic locks do not exclude threads */
	int cmd = type == F_UNLCK ? (ofd ? F_OFD_SETLK : F_SETLK) : (ofd ? F_OFD_SETLKW : F_SETLKW);

	return fcntl(fd, cmd, &fl);
}

static int semop_one(const struct sync_run *r, short op)
{
	struct sembuf sb = { .sem_num = 0,
			     .sem_op = op,
			     .sem_flg = r->cfg->lock == LOCK_SYSV_SEM_UNDO ? SEM_UNDO : 0 };

	return semop(r->semid, &sb, 1);
}

/* 0, or -1 with errno; EINTR is retried. */
static int sync_acquire(const struct sync_run *r, int fd)
{
	int rc;

	do {
		switch (r->cfg->lock) {
		case LOCK_MUTEX:
			errno = pthread_mutex_lock(&r->sh->mutex);
			rc = errno ? -1 : 0;
			break;
		case LOCK_RWLOCK:
			errno = pthread_rwlock_wrlock(&r->sh->rwlock);
			rc = errno ? -1 : 0;
			break;
		case LOCK_FCNTL: rc = fcntl_lock(r, fd, F_WRLCK); break;
		case LOCK_POSIX_SEM: rc = sem_wait(&r->sh->sem); break;
		case LOCK_POSIX_NAMED_SEM: rc = sem_wait(r->named); break;
		case LOCK_SYSV_SEM:
		case LOCK_SYSV_SEM_UNDO: rc = semop_one(r, -1); break;
		default: rc = 0;
		}
	} while (rc < 0 && errno == EINTR);
	return rc;
}

static int sync_release(const struct sync_run *r, int fd)
{
	switch (r->cfg->lock) {
	case LOCK_MUTEX: errno = pthread_mutex_unlock(&r->sh->mutex); return errno ? -1 : 0;
	case LOCK_RWLOCK: errno = pthread_rwlock_unlock(&r->sh->rwlock); return errno ? -1 : 0;
	case LOCK_FCNTL: return fcntl_lock(r, fd, F_UNLCK);
	case LOCK_POSIX_SEM: return sem_post(&r->sh->sem);
	case LOCK_POSIX_NAMED_SEM: return sem_post(r->named);
	case LOCK_SYSV_SEM:
	case LOCK_SYSV_SEM_UNDO: return semop_one(r, 1);
	default: return 0;
	}
}

/* ---- a worker: thread or process ---- */

static void note_time(_Atomic int64_t *slot, int64_t t, bool earliest)
{
	int64_t cur = atomic_load(slot);

	while ((cur == 0 || (earliest ? t < cur : t > cur)) &&
	       !atomic_compare_exchange_weak(slot, &cur, t))
		;
}

/* Waits at the gate, then counts; only system calls and atomics, so it is
 * safe in a child forked from the threaded daemon. */
static void sync_work(const struct sync_run *r, int fd)
{
	struct sync_shared *sh = r->sh;
	char go;
	int64_t t;

	while (read(r->gate[0], &go, 1) < 0 && errno == EINTR)
		;
	t = mono_ns();
	note_time(&sh->first_ns, t, true);
	for (long i = 0; i < r->cfg->count; i++) {
		if (sync_acquire(r, fd) < 0)
			goto fail;
		if (r->cfg->lock == LOCK_NONE) {
			long v = sh->counter;

			sched_yield(); /* lets another worker in between the read and the write */
			sh->counter = v + 1;
		} else {
			sh->counter++;
		}
		if (sync_release(r, fd) < 0)
			goto fail;
	}
	note_time(&sh->last_ns, mono_ns(), false);
	return;
fail:
	atomic_fetch_add(&sh->errors, 1);
	atomic_store(&sh->first_errno, errno);
	note_time(&sh->last_ns, mono_ns(), false);
}

struct sync_thread_arg {
	const struct sync_run *r;
	int fd;
};

static void *sync_thread(void *arg)
{
	struct sync_thread_arg *a = arg;

	sync_work(a->r, a->fd);
	return NULL;
}

/* ---- a sample's objects ---- */

static int shared_init(struct sync_run *r, char **err)
{
	bool pshared = r->cfg->mode == MODE_PROCESS;
	pthread_mutexattr_t ma;
	pthread_rwlockattr_t ra;
	void *p = mmap(NULL, sizeof *r->sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		       0);

	if (p == MAP_FAILED) {
		*err = xasprintf("mmap of the shared counter: %s", strerror(errno));
		return -1;
	}
	r->sh = p;
	memset(r->sh, 0, sizeof *r->sh);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma,
				     pshared ? PTHREAD_PROCESS_SHARED : PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_init(&r->sh->mutex, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setpshared(&ra,
				      pshared ? PTHREAD_PROCESS_SHARED : PTHREAD_PROCESS_PRIVATE);
	pthread_rwlock_init(&r->sh->rwlock, &ra);
	pthread_rwlockattr_destroy(&ra);
	if (sem_init(&r->sh->sem, pshared, 1) < 0) {
		*err = xasprintf("sem_init: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int named_sem_open(struct sync_run *r, struct sync_state *st, char **err)
{
	char name[128];

	if (ipc_objects_posix_name(st->reg, IPC_POSIX_SEM, "s", name, sizeof name, err) < 0)
		return -1;
	r->named = sem_open(name, O_CREAT | O_EXCL, 0600, 1);
	if (r->named == SEM_FAILED) {
		r->named = NULL;
		*err = limit_error("sem_open", errno);
		return -1;
	}
	sem_unlink(name); /* the mapping lives on, inherited by the workers */
	return 0;
}

static int sysv_sem_open(struct sync_run *r, struct sync_state *st, char **err)
{
	union {
		int val;
		struct semid_ds *buf;
	} one = { .val = 1 };

	r->semid = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	if (r->semid < 0) {
		*err = limit_error("semget", errno);
		return -1;
	}
	/* recorded once set: SETVAL changes the ctime the sweep checks */
	if (semctl(r->semid, 0, SETVAL, one) < 0) {
		*err = xasprintf("semctl SETVAL: %s", strerror(errno));
		return -1;
	}
	return ipc_objects_sysv(st->reg, IPC_SYSV_SEM, r->semid, err);
}

/* An unnamed file (O_TMPFILE): nothing to leave behind; each thread gets an
 * open file description of its own, through /proc/self/fd. */
static int fcntl_file_open(struct sync_run *r, struct sync_state *st, char **err)
{
	r->lock_fd = open(st->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (r->lock_fd < 0) {
		*err = xasprintf("cannot make the lock file in %s: %s%s", st->dir, strerror(errno),
				 sync_limit_hint(errno, "open"));
		return -1;
	}
	if (r->cfg->mode == MODE_PROCESS)
		return 0;
	r->fds = xcalloc((size_t)r->cfg->threads, sizeof *r->fds);
	for (long i = 0; i < r->cfg->threads; i++)
		r->fds[i] = -1;
	for (long i = 0; i < r->cfg->threads; i++) {
		char path[64];

		snprintf(path, sizeof path, "/proc/self/fd/%d", r->lock_fd);
		r->fds[i] = open(path, O_RDWR | O_CLOEXEC);
		if (r->fds[i] < 0) {
			*err = limit_error("open of the lock file", errno);
			return -1;
		}
	}
	return 0;
}

static void run_close(struct sync_run *r, struct sync_state *st)
{
	if (r->fds != NULL)
		for (long i = 0; i < r->cfg->threads; i++)
			if (r->fds[i] >= 0)
				close(r->fds[i]);
	free(r->fds);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	if (r->named != NULL)
		sem_close(r->named);
	if (r->semid >= 0)
		semctl(r->semid, 0, IPC_RMID);
	for (int i = 0; i < 2; i++)
		if (r->gate[i] >= 0)
			close(r->gate[i]);
	if (r->sh != NULL) {
		sem_destroy(&r->sh->sem);
		pthread_rwlock_destroy(&r->sh->rwlock);
		pthread_mutex_destroy(&r->sh->mutex);
		munmap(r->sh, sizeof *r->sh);
	}
	free(r->pids);
	free(r->tids);
	ipc_objects_clear(st->reg);
}

static int run_open(struct sync_run *r, struct sync_state *st, char **err)
{
	*r = (struct sync_run){ .cfg = &st->cfg, .semid = -1, .lock_fd = -1, .gate = { -1, -1 } };
	if (pipe2(r->gate, O_CLOEXEC) < 0) {
		*err = limit_error("pipe", errno);
		return -1;
	}
	if (shared_init(r, err) < 0)
		return -1;
	switch (st->cfg.lock) {
	case LOCK_POSIX_NAMED_SEM: return named_sem_open(r, st, err);
	case LOCK_SYSV_SEM:
	case LOCK_SYSV_SEM_UNDO: return sysv_sem_open(r, st, err);
	case LOCK_FCNTL: return fcntl_file_open(r, st, err);
	default: return 0;
	}
}

/* ---- starting and ending the workers ---- */

static int start_workers(struct sync_run *r, struct sync_thread_arg *args, char **err)
{
	long n = r->cfg->threads;

	if (r->cfg->mode == MODE_PROCESS)
		r->pids = xcalloc((size_t)n, sizeof *r->pids);
	else
		r->tids = xcalloc((size_t)n, sizeof *r->tids);
	for (r->started = 0; r->started < n; r->started++) {
		long i = r->started;

		args[i] = (struct sync_thread_arg){ .r = r, .fd = r->fds ? r->fds[i] : r->lock_fd };
		if (r->cfg->mode == MODE_THREAD) {
			int rc = pthread_create(&r->tids[i], NULL, sync_thread, &args[i]);

			if (rc != 0) {
				*err = limit_error("pthread_create", rc);
				return -1;
			}
			continue;
		}
		r->pids[i] = fork();
		if (r->pids[i] < 0) {
			*err = limit_error("fork", errno);
			return -1;
		}
		if (r->pids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			sync_work(r, args[i].fd);
			_exit(0);
		}
	}
	return 0;
}

/* Opens the gate for every worker started and waits for them all. */
static void finish_workers(struct sync_run *r)
{
	char go[64];

	memset(go, 'g', sizeof go);
	if (r->started > 0 && write(r->gate[1], go, (size_t)r->started) != (ssize_t)r->started) {
		/* a worker that never passes the gate would wait for ever */
		for (long i = 0; r->pids != NULL && i < r->started; i++)
			kill(r->pids[i], SIGKILL);
	}
	for (long i = 0; i < r->started; i++) {
		int status;

		if (r->tids != NULL)
			pthread_join(r->tids[i], NULL);
		else if (r->pids != NULL)
			while (waitpid(r->pids[i], &status, 0) < 0 && errno == EINTR)
				;
	}
}

static int sync_measure(void *state, const struct probe_window *w, int stop_fd, struct sample *s,
			char **err)
{
	struct sync_state *st = state;
	struct sync_thread_arg args[64];
	struct sync_run r;
	int rc;

	(void)w;
	(void)stop_fd;
	s->started_at = wall_now();
	rc = run_open(&r, st, err);
	if (rc == 0)
		rc = start_workers(&r, args, err);
	finish_workers(&r);
	if (rc == 0 && atomic_load(&r.sh->errors) > 0) {
		*err = xasprintf("%s: a lock or unlock failed: %s", sync_locks[st->cfg.lock],
				 strerror(atomic_load(&r.sh->first_errno)));
		rc = -1;
	}
	if (rc == 0)
		rc = sync_judge(r.sh->counter, st->cfg.threads, st->cfg.count,
				atomic_load(&r.sh->last_ns) - atomic_load(&r.sh->first_ns), s, err);
	else
		s->failed = true, s->exit_code = 1;
	run_close(&r, st);
	return rc;
}

static void sync_run(void *state, struct probe_ctx *c, const struct probe_window *w)
{
	struct sync_state *st = state;

	probe_run_slots(c, w, st->cfg.every_ms, sync_measure, st);
}

static void sync_close(void *state)
{
	struct sync_state *st = state;

	ipc_objects_close(st->reg);
	free(st);
}

static void *sync_open(const void *config, const struct probe_env *env, char **err)
{
	struct sync_state *st = xcalloc(1, sizeof *st);

	st->cfg = *(const struct sync_config *)config;
	st->dir = env->workdir ? env->workdir : "/tmp";
	if ((st->reg = ipc_objects_open(env->workdir, env->name, err)) == NULL) {
		free(st);
		return NULL;
	}
	return st;
}

static void sync_describe(const void *config, char *buf, size_t len)
{
	const struct sync_config *cfg = config;
	char every[32];

	format_ms(cfg->every_ms, every, sizeof every);
	snprintf(buf, len, "%ld %s each incrementing a counter %ld times under %s, every %s",
		 cfg->threads,
		 cfg->mode == MODE_THREAD ? (cfg->threads == 1 ? "thread" : "threads")
					  : (cfg->threads == 1 ? "process" : "processes"),
		 cfg->count, sync_locks[cfg->lock], every);
}

/* The appendix's synchronisation table: a row per lock (and mode), a column
 * per count of threads or processes. */
static const struct study_place sync_study[] = {
	{ .table = "Synchronisation: us per lock + unlock by lock x threads (sync)",
	  .rows = "lock",
	  .row = "{lock} {mode}",
	  .column = "{threads}",
	  .unit = "us" },
	{ 0 },
};

const struct probe_ops probe_sync_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "sync",
	.summary = "synchronisation speed: threads or processes incrementing a shared counter "
		   "under a mutex, rwlock, fcntl lock, POSIX or System V semaphore; us per lock + "
		   "unlock, the final counter checked",
	.options = sync_options,
	.config_size = sizeof(struct sync_config),
	.units = "us",
	.open = sync_open,
	.run = sync_run,
	.close = sync_close,
	.describe = sync_describe,
	.study = sync_study,
};
