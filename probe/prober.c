// SPDX-License-Identifier: GPL-2.0-or-later
/* The prober: one thread per probe of a run. It waits for a window, runs the
 * probe's kind over it, and closes it with a DONE record; the fixed-schedule
 * loop that most kinds share lives here too. */
#include "probe.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"
#include "xalloc.h"

/* Records travel whole through the notify pipe only below PIPE_BUF. */
_Static_assert(sizeof(struct probe_msg) <= PIPE_BUF, "a record must fit one atomic pipe write");

struct prober {
	pthread_t thread;
	const struct probe_ops *ops;
	const void *config;
	struct probe_env env;
	int index;
	int notify_fd;
	int wake_fd;      /* eventfd: readable once prober_stop was called */
	char *last_error; /* the last problem logged, so repeats stay quiet */
	int64_t done_missed;

	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC */
	bool stopping;
	bool have_next;
	atomic_bool interrupted; /* stopping || have_next, read without the lock */
	struct probe_window next;
};

/* The context kinds see is the prober itself. */
struct probe_ctx {
	struct prober p;
};

static struct prober *ctx_prober(struct probe_ctx *c)
{
	return &c->p;
}

/* Writes one record whole. Waits for room with poll first, so a main loop
 * that stopped reading cannot hold prober_stop forever. */
static void prober_emit(struct prober *p, struct probe_msg *m)
{
	struct pollfd pfd[2] = { { .fd = p->notify_fd, .events = POLLOUT },
				 { .fd = p->wake_fd, .events = POLLIN } };
	ssize_t n = -1;

	m->probe = p->index;
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			goto lost;
		n = write(p->notify_fd, m, sizeof *m);
		if (n == (ssize_t)sizeof *m)
			return;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		break;
	}
	log_error("probe %s: cannot deliver a record: %s", p->env.name,
		  n < 0 ? strerror(errno) : "short write to the notify pipe");
lost:
	free(m->hist);
}

void probe_emit_sample(struct probe_ctx *c, const struct sample *s)
{
	struct probe_msg m = { .kind = PROBE_MSG_SAMPLE, .variant = s->variant, .s = *s };

	prober_emit(ctx_prober(c), &m);
}

void probe_emit_hist(struct probe_ctx *c, int64_t phase_id, int variant, double t, double steal_pct,
		     struct hist *h)
{
	struct probe_msg m = {
		.kind = PROBE_MSG_HIST,
		.variant = variant,
		.t = t,
		.steal_pct = steal_pct,
		.s = { .phase_id = phase_id },
		.hist = h,
	};

	prober_emit(ctx_prober(c), &m);
}

void probe_complain(struct probe_ctx *c, char *msg)
{
	struct prober *p = ctx_prober(c);

	if (p->last_error == NULL || strcmp(p->last_error, msg) != 0) {
		log_warn("probe %s: %s", p->env.name, msg);
		free(p->last_error);
		p->last_error = msg;
	} else {
		free(msg);
	}
}

bool probe_interrupted(struct probe_ctx *c)
{
	return atomic_load_explicit(&ctx_prober(c)->interrupted, memory_order_relaxed);
}

int probe_stop_fd(struct probe_ctx *c)
{
	return ctx_prober(c)->wake_fd;
}

void probe_set_done_missed(struct probe_ctx *c, int64_t missed)
{
	ctx_prober(c)->done_missed = missed;
}

static struct timespec ns_to_timespec(int64_t ns)
{
	return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };
}

int probe_wait_until(struct probe_ctx *c, int64_t ns)
{
	struct prober *p = ctx_prober(c);
	struct timespec ts = ns_to_timespec(ns);
	int rc;

	pthread_mutex_lock(&p->lock);
	while (!p->stopping && !p->have_next && mono_ns() < ns)
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

/* One slot's operation, behind either interface below. */
typedef int (*slot_fn)(void *arg, const struct probe_window *w, int stop_fd, struct sample *s,
		       struct hist *h, char **err);

/* Runs slot on the fixed schedule (probe.h), stamps and times each call and
 * hands over its record: the sample, or for a histogram kind the histogram
 * (when it counted anything). */
static void slot_loop(struct probe_ctx *c, const struct probe_window *w, int64_t every_ms,
		      bool histogram, slot_fn slot, void *arg)
{
	int64_t every_ns = (every_ms > 0 ? every_ms : 1) * NSEC_PER_MSEC;
	int64_t k = 0, missed = 0, nslots = 0;

	if (w->end_ns > w->start_ns)
		nslots = (w->end_ns - w->start_ns + every_ns - 1) / every_ns;

	for (;;) {
		int64_t now, next;
		struct sample s = {
			.phase_id = w->phase_id, .seq = k, .missed = missed, .value = NAN
		};
		struct hist *h = NULL;
		char *err = NULL;
		int rc;

		if (k >= nslots)
			break;
		if (probe_wait_until(c, w->start_ns + k * every_ns) < 0)
			return;
		if (histogram)
			h = xcalloc(1, sizeof *h);
		s.started_at = wall_now();
		s.wall_ms = NAN;
		now = mono_ns();
		rc = slot(arg, w, probe_stop_fd(c), &s, h, &err);
		if (rc > 0) {
			free(h);
			return;
		}
		if (isnan(s.wall_ms))
			s.wall_ms = (double)(mono_ns() - now) / NSEC_PER_MSEC;
		if (rc < 0)
			probe_complain(c, err);
		if (isnan(s.value))
			s.value = s.wall_ms; /* a timing probe's figure is its time */
		if (h != NULL && h->count > 0)
			probe_emit_hist(c, w->phase_id, 0, s.started_at, NAN, h);
		else if (h != NULL)
			free(h);
		else
			probe_emit_sample(c, &s);

		now = mono_ns();
		next = k + 1;
		if (now > w->start_ns + next * every_ns)
			next = (now - w->start_ns + every_ns - 1) / every_ns;
		/* Slots the window still held when the last operation overran it
		 * are reported on the DONE record; slots past the window are not
		 * missed: the phase is over. */
		if (next >= nslots)
			probe_set_done_missed(c, nslots - k - 1);
		missed = next - k - 1;
		k = next;
	}
}

struct measure_call {
	probe_measure_fn measure;
	void *state;
};

static int measure_slot(void *arg, const struct probe_window *w, int stop_fd, struct sample *s,
			struct hist *h, char **err)
{
	const struct measure_call *mc = arg;

	return mc->measure(mc->state, w, stop_fd, s, err);
}

void probe_run_slots(struct probe_ctx *c, const struct probe_window *w, int64_t every_ms,
		     probe_measure_fn measure, void *state)
{
	struct measure_call mc = { measure, state };

	slot_loop(c, w, every_ms, false, measure_slot, &mc);
}

/* A kind's own measure (probe_ops.measure) with its config and state. */
struct kind_call {
	const struct probe_ops *ops;
	const void *config;
	void *state;
};

static int kind_slot(void *arg, const struct probe_window *w, int stop_fd, struct sample *s,
		     struct hist *h, char **err)
{
	const struct kind_call *kc = arg;

	return kc->ops->measure(kc->config, kc->state, w, stop_fd, s, h, err);
}

static void prober_run_window(struct prober *p, bool can_run, void *state,
			      const struct probe_window *w)
{
	struct probe_msg done = { .kind = PROBE_MSG_DONE,
				  .s = { .phase_id = w->phase_id, .seq = PROBE_PHASE_DONE } };
	const struct probe_every *every = p->config;
	struct kind_call kc = { p->ops, p->config, state };

	p->done_missed = 0;
	if (can_run && p->ops->measure != NULL)
		slot_loop((struct probe_ctx *)p, w, every->every_ms, p->ops->histogram, kind_slot,
			  &kc);
	else if (can_run)
		p->ops->run(state, (struct probe_ctx *)p, w);
	if (prober_stopping(p))
		return;
	/* replaced or over: close this window for the main loop */
	done.s.missed = p->done_missed;
	prober_emit(p, &done);
}

static void *prober_main(void *arg)
{
	struct prober *p = arg;
	char *err = NULL;
	void *state = p->ops->open ? p->ops->open(p->config, &p->env, &err) : NULL;
	bool can_run = p->ops->open == NULL || state != NULL;

	if (!can_run) {
		log_warn("probe %s: cannot run: %s", p->env.name, err ? err : "?");
		free(err);
	}
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct probe_window w;

		while (!p->stopping && !p->have_next)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->stopping)
			break;
		w = p->next;
		p->have_next = false;
		atomic_store(&p->interrupted, false);
		pthread_mutex_unlock(&p->lock);
		prober_run_window(p, can_run, state, &w);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	if (state != NULL && p->ops->close != NULL)
		p->ops->close(state);
	return NULL;
}

static void prober_free(struct prober *p)
{
	free(p->last_error);
	free((char *)p->env.name);
	free((char *)p->env.workdir);
	free((char *)p->env.tree_path);
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static char *strdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct prober *prober_start(const struct probe_ops *ops, const void *config,
			    const struct probe_env *env, int index, int notify_fd)
{
	struct probe_ctx *c = xcalloc(1, sizeof *c);
	struct prober *p = &c->p;
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	p->ops = ops;
	p->config = config;
	p->env = (struct probe_env){
		.workdir = strdup_or_null(env->workdir),
		.tree_path = strdup_or_null(env->tree_path),
		.name = xstrdup(env->name ? env->name : ops->name),
	};
	p->index = index;
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

void prober_begin_phase(struct prober *p, const struct probe_window *w)
{
	pthread_mutex_lock(&p->lock);
	p->next = *w;
	p->have_next = true;
	atomic_store(&p->interrupted, true);
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
	atomic_store(&p->interrupted, true);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	/* Wakes a job wait: the thread kills its own job and reaps it. */
	if (write(p->wake_fd, &one, sizeof one) < 0)
		log_warn("probe %s: cannot wake the probe thread: %s", p->env.name,
			 strerror(errno));
	pthread_join(p->thread, NULL);
	prober_free(p);
}
