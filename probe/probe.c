// SPDX-License-Identifier: GPL-2.0-or-later
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"
#include "xalloc.h"

extern char **environ;

/* The job's output is read as a terminal would take it, in large gulps. */
#define DRAIN_BUF_LEN (64 * 1024)

/* Records travel whole through the notify pipe only below PIPE_BUF. */
_Static_assert(sizeof(struct sample) <= PIPE_BUF, "a sample must fit one atomic pipe write");

enum job_end {
	JOB_EXITED,   /* ran to its end (any status) */
	JOB_TIMEOUT,  /* killed at its deadline */
	JOB_STOPPED,  /* killed because the prober is stopping */
};

int drop_page_cache(void)
{
	ssize_t n;
	int fd, saved;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, "3", 1);
	saved = errno;
	close(fd);
	if (n != 1) {
		errno = n < 0 ? saved : EIO;
		return -1;
	}
	return 0;
}

static double tv_ms(struct timeval tv)
{
	return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

/* Milliseconds poll() may sleep before the deadline (0: none, -1 forever). */
static int poll_wait_ms(int64_t deadline)
{
	int64_t left;

	if (deadline == 0)
		return -1;
	left = deadline - mono_ns();
	if (left <= 0)
		return 0;
	left = (left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
	return left > INT_MAX ? INT_MAX : (int)left;
}

/* Reads the job's output until EOF, its deadline or a stop request. The
 * pipe is read dry before sleeping in poll(): on a VM a poll() that sleeps
 * costs several times the read, and a job like ls -R writes hundreds of
 * 4 KiB blocks, so polling only when nothing is there keeps the probe's own
 * CPU use (which competes with the job) down. */
static enum job_end drain(int fd, int64_t deadline, int stop_fd)
{
	struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN }, { .fd = stop_fd, .events = POLLIN } };
	nfds_t nfds = stop_fd >= 0 ? 2 : 1;
	char buf[DRAIN_BUF_LEN];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		int wait;

		if (n == 0)
			return JOB_EXITED; /* EOF: every writer has closed its end */
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return JOB_EXITED; /* cannot happen; wait4 still collects the job */
		wait = poll_wait_ms(deadline);
		if (wait == 0)
			return JOB_TIMEOUT;
		if (n > 0)
			continue;
		if (poll(pfd, nfds, wait) < 0 && errno != EINTR)
			return JOB_EXITED;
		if (nfds == 2 && pfd[1].revents)
			return JOB_STOPPED;
	}
}

/* After EOF a job may still run (it closed its output): wait for its exit
 * within the deadline, watching for a stop request. Without either, the
 * caller's blocking wait4 does the waiting. */
static enum job_end wait_exit(pid_t pid, int64_t deadline, int stop_fd)
{
	struct pollfd pfd[2] = { { .events = POLLIN }, { .fd = stop_fd, .events = POLLIN } };
	nfds_t nfds = stop_fd >= 0 ? 2 : 1;
	enum job_end end = JOB_EXITED;

	if (deadline == 0 && stop_fd < 0)
		return JOB_EXITED;
	pfd[0].fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd[0].fd < 0)
		return JOB_EXITED; /* kernel before 5.3: wait4 blocks */
	for (;;) {
		int wait = poll_wait_ms(deadline), n;

		if (wait == 0) {
			end = JOB_TIMEOUT;
			break;
		}
		n = poll(pfd, nfds, wait);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0 && nfds == 2 && pfd[1].revents)
			end = JOB_STOPPED;
		if (n != 0)
			break;
	}
	close(pfd[0].fd);
	return end;
}

static void sample_from_status(struct sample *s, int status, const struct rusage *ru,
			       int64_t t0, int64_t t1)
{
	s->wall_ms = (double)(t1 - t0) / NSEC_PER_MSEC;
	s->user_ms = tv_ms(ru->ru_utime);
	s->sys_ms = tv_ms(ru->ru_stime);
	s->cpu_pct = s->wall_ms > 0 ? (s->user_ms + s->sys_ms) / s->wall_ms * 100.0 : 0;
	s->nvcsw = ru->ru_nvcsw;
	s->nivcsw = ru->ru_nivcsw;
	if (WIFEXITED(status))
		s->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		s->exit_code = 128 + WTERMSIG(status);
	else
		s->exit_code = -1;
	s->failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

static void sample_not_run(struct sample *s)
{
	s->wall_ms = s->user_ms = s->sys_ms = s->cpu_pct = 0;
	s->nvcsw = s->nivcsw = 0;
	s->exit_code = -1;
	s->failed = true;
}

/* Starts the job: stdin from /dev/null, stdout and stderr into out_fd,
 * nothing else of ours; default signal handling and an empty mask (the
 * calling thread blocks everything); its own process group so a timeout
 * kills every process it started; and killed if loadd dies (posix_spawn
 * cannot ask for that). The vfork child makes only system calls until it
 * execs. Returns 0, or an errno value. */
static int job_spawn(char *const argv[], int out_fd, pid_t *pidp)
{
	pid_t parent = getpid(), pid;
	volatile int child_errno = 0;

	pid = vfork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigset_t none;
		int null;

		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				sigaction(sig, &dfl, NULL);
		if (setpgid(0, 0) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
		    getppid() != parent)
			goto fail;
		null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
			goto fail;
		if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
			for (int fd = 3; fd < 1024; fd++)
				close(fd);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvp(argv[0], argv);
fail:
		child_errno = errno != 0 ? errno : ECHILD;
		_exit(127);
	}
	if (child_errno != 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return child_errno;
	}
	*pidp = pid;
	return 0;
}

/* Runs one job; stop_fd (or -1) readable means "kill it and give up".
 * Returns 0 with s filled, -1 when the job could not run (s->failed, *err),
 * or 1 when stopped (s is not meaningful). */
static int job_run(char *const argv[], bool drop_cache, int64_t timeout_ms, int stop_fd,
		   struct sample *s, char **err)
{
	enum job_end end;
	struct rusage ru;
	int64_t t0, t1, deadline;
	int pipefd[2], status = 0, rc;
	pid_t pid;

	s->started_at = wall_now();
	sample_not_run(s);
	if (drop_cache && drop_page_cache() < 0) {
		*err = xasprintf("cannot drop the page cache for a cold-cache job: %s "
				 "(cache = cold needs root)",
				 strerror(errno));
		return -1;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		*err = xasprintf("cannot make a pipe for the job: %s", strerror(errno));
		return -1;
	}
	/* Our end only: the job's writes must block on a full pipe, as on a
	 * terminal. */
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);

	s->started_at = wall_now();
	t0 = mono_ns();
	rc = job_spawn(argv, pipefd[1], &pid);
	if (rc != 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		*err = xasprintf("cannot run '%s': %s", argv[0], strerror(rc));
		return -1;
	}
	close(pipefd[1]);
	deadline = timeout_ms > 0 ? t0 + timeout_ms * NSEC_PER_MSEC : 0;
	end = drain(pipefd[0], deadline, stop_fd);
	if (end == JOB_EXITED)
		end = wait_exit(pid, deadline, stop_fd);
	if (end != JOB_EXITED)
		kill(-pid, SIGKILL);
	while ((rc = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
		;
	t1 = mono_ns();

	close(pipefd[0]);
	if (end == JOB_STOPPED)
		return 1;
	if (rc < 0) {
		/* Someone else reaped it (SIGCHLD ignored, or a waitpid(-1)). */
		*err = xasprintf("cannot collect '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	sample_from_status(s, status, &ru, t0, t1);
	if (end == JOB_TIMEOUT)
		s->failed = true;
	return 0;
}

int probe_job_run(char *const argv[], bool drop_cache, int64_t timeout_ms, struct sample *s,
		  char **err)
{
	int rc = job_run(argv, drop_cache, timeout_ms, -1, s, err);

	return rc < 0 ? -1 : 0;
}

/* The prober thread and what the main loop shares with it. */
struct phase_plan {
	int64_t id;
	int64_t start_ns;
	int64_t end_ns;
	int64_t every_ns;
	bool cold;
};

struct prober {
	pthread_t thread;
	char **argv;
	int64_t timeout_ms;
	int notify_fd;
	int wake_fd;        /* eventfd: readable once prober_stop was called */
	char *last_error;   /* the last problem logged, so repeats stay quiet */

	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC */
	bool stopping;
	bool have_next;
	struct phase_plan next;
};

/* Writes one record whole. Waits for room with poll first, so a main loop
 * that stopped reading cannot hold prober_stop forever. */
static void prober_emit(struct prober *p, const struct sample *s)
{
	struct pollfd pfd[2] = { { .fd = p->notify_fd, .events = POLLOUT },
				 { .fd = p->wake_fd, .events = POLLIN } };
	ssize_t n = -1;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			return;
		n = write(p->notify_fd, s, sizeof *s);
		if (n == (ssize_t)sizeof *s)
			return;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		break;
	}
	log_error("probe: cannot deliver a sample: %s",
		  n < 0 ? strerror(errno) : "short write to the notify pipe");
}

/* Logs a problem the first time it shows up, not on every slot. */
static void prober_complain(struct prober *p, char *msg)
{
	if (p->last_error == NULL || strcmp(p->last_error, msg) != 0) {
		log_warn("probe: %s", msg);
		free(p->last_error);
		p->last_error = msg;
	} else {
		free(msg);
	}
}

static struct timespec ns_to_timespec(int64_t ns)
{
	return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };
}

/* Sleeps until the slot. -1 when stopping or when a new phase replaced
 * this one. */
static int prober_wait_slot(struct prober *p, int64_t slot_ns)
{
	struct timespec ts = ns_to_timespec(slot_ns);
	int rc;

	pthread_mutex_lock(&p->lock);
	while (!p->stopping && !p->have_next && mono_ns() < slot_ns)
		pthread_cond_timedwait(&p->cond, &p->lock, &ts);
	rc = p->stopping || p->have_next ? -1 : 0;
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static bool prober_stopping(struct prober *p)
{
	bool stopping;

	pthread_mutex_lock(&p->lock);
	stopping = p->stopping;
	pthread_mutex_unlock(&p->lock);
	return stopping;
}

/* Slots k = 0, 1, ... start at start + k * every; a job that overruns
 * makes the next one start at the first slot after it ended, and the
 * skipped slots are reported as missed. */
static void prober_run_phase(struct prober *p, const struct phase_plan *ph)
{
	struct sample done = { .phase_id = ph->id, .seq = PROBE_PHASE_DONE };
	int64_t k = 0, missed = 0, nslots = 0;

	if (ph->end_ns > ph->start_ns)
		nslots = (ph->end_ns - ph->start_ns + ph->every_ns - 1) / ph->every_ns;

	for (;;) {
		int64_t now, next;
		struct sample s = { .phase_id = ph->id, .seq = k, .missed = missed };
		char *err = NULL;
		int rc;

		if (k >= nslots)
			break;
		if (prober_wait_slot(p, ph->start_ns + k * ph->every_ns) < 0) {
			if (prober_stopping(p))
				return;
			break; /* replaced: close this phase for the main loop */
		}
		rc = job_run(p->argv, ph->cold, p->timeout_ms, p->wake_fd, &s, &err);
		if (rc > 0)
			return;
		if (rc < 0)
			prober_complain(p, err);
		prober_emit(p, &s);

		now = mono_ns();
		next = k + 1;
		if (now > ph->start_ns + next * ph->every_ns)
			next = (now - ph->start_ns + ph->every_ns - 1) / ph->every_ns;
		/* Slots the window still held when the last job overran it are
		 * reported on the DONE record; slots past the window are not
		 * missed: the phase is over. */
		if (next >= nslots)
			done.missed = nslots - k - 1;
		missed = next - k - 1;
		k = next;
	}
	prober_emit(p, &done);
}

static void *prober_main(void *arg)
{
	struct prober *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct phase_plan ph;

		while (!p->stopping && !p->have_next)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->stopping)
			break;
		ph = p->next;
		p->have_next = false;
		pthread_mutex_unlock(&p->lock);
		prober_run_phase(p, &ph);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void prober_free(struct prober *p)
{
	for (char **a = p->argv; *a; a++)
		free(*a);
	free(p->argv);
	free(p->last_error);
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct prober *prober_start(char *const argv[], int64_t timeout_ms, int notify_fd)
{
	struct prober *p = xcalloc(1, sizeof *p);
	pthread_condattr_t ca;
	sigset_t all, old;
	size_t n = 0;
	int rc;

	while (argv[n])
		n++;
	p->argv = xcalloc(n + 1, sizeof *p->argv);
	for (size_t i = 0; i < n; i++)
		p->argv[i] = xstrdup(argv[i]);
	p->timeout_ms = timeout_ms;
	p->notify_fd = notify_fd;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);

	/* Both fail only when the process is out of descriptors or threads,
	 * right at start-up: nothing could be measured then. */
	p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->wake_fd < 0)
		fatal("cannot start the probe: eventfd");

	/* Signals belong to the main loop: the thread starts with all blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&p->thread, NULL, prober_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		fatalx("cannot start the probe thread: %s", strerror(rc));
	return p;
}

void prober_begin_phase(struct prober *p, int64_t phase_id, int64_t start_ns, int64_t end_ns,
			int64_t every_ms, bool cold_cache)
{
	pthread_mutex_lock(&p->lock);
	p->next = (struct phase_plan){
		.id = phase_id,
		.start_ns = start_ns,
		.end_ns = end_ns,
		.every_ns = (every_ms > 0 ? every_ms : 1) * NSEC_PER_MSEC,
		.cold = cold_cache,
	};
	p->have_next = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void prober_stop(struct prober *p)
{
	uint64_t one = 1;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	/* Wakes a job wait: the thread kills its own job and reaps it. */
	if (write(p->wake_fd, &one, sizeof one) < 0)
		log_warn("probe: cannot wake the probe thread: %s", strerror(errno));
	pthread_join(p->thread, NULL);
	prober_free(p);
}
