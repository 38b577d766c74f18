// SPDX-License-Identifier: GPL-2.0-or-later
/* The switchcost probe: the plain cost of switching, as the counting study
 * measured it. Count to `count` with one thread (`mode = one`), with two
 * threads that strictly alternate, each increment handed to the other thread
 * through a futex (`alternate`: every increment is a sleep and a wake-up),
 * or with `threads` threads incrementing under one mutex (`locked`). The
 * figure is ns per increment; the worker threads' own context-switch
 * counters (RUSAGE_THREAD) are stored beside it, so a result explains itself:
 * one thread << locked < alternating. */
#include "probe.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "timeutil.h"
#include "xalloc.h"

#define SWITCH_MAX_THREADS 64

enum switch_mode { SWITCH_ONE, SWITCH_ALTERNATE, SWITCH_LOCKED };

static const char *const switch_modes[] = { "one", "alternate", "locked", NULL };

struct switch_config {
	struct probe_every every;
	int mode;
	long count;
	long threads;
};

/* clang-format off */
static const struct option_def switch_options[] = {
	PROBE_EVERY_OPTION(struct switch_config, "count"),
	{ "mode", OPT_ENUM, offsetof(struct switch_config, mode), "alternate", 0, 0,
	  switch_modes, NULL,
	  "one: a single thread counts; alternate: two threads hand every increment to each "
	  "other through a futex; locked: `threads` threads increment under one mutex" },
	{ "count", OPT_INT, offsetof(struct switch_config, count), "0", 0, 1000000000, NULL,
	  NULL,
	  "increments per sample; 0 picks one that takes well under a second: 20000000 "
	  "(one), 20000 (alternate), 1000000 (locked)" },
	{ "threads", OPT_INT, offsetof(struct switch_config, threads), "4", 2,
	  SWITCH_MAX_THREADS, NULL, NULL, "threads contending for the mutex in mode locked" },
	{ NULL },
};
/* clang-format on */

/* What the counting threads share. */
struct switch_run {
	long target;
	volatile long counter; /* mode one and locked */
	_Atomic int turn;      /* alternate: whose increment is next (0 or 1) */
	long alternate_count;
	pthread_mutex_t counter_lock; /* mode locked: the contended mutex */
	pthread_mutex_t lock;         /* guards the switch counters below */
	long nvcsw, nivcsw;           /* summed over the workers, under lock */
};

struct switch_worker {
	struct switch_run *run;
	int index;
};

static long futex_wait(_Atomic int *addr, int val)
{
	return syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static long futex_wake(_Atomic int *addr)
{
	return syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void add_own_switches(struct switch_run *r, const struct rusage *before)
{
	struct rusage after;

	getrusage(RUSAGE_THREAD, &after);
	pthread_mutex_lock(&r->lock);
	r->nvcsw += after.ru_nvcsw - before->ru_nvcsw;
	r->nivcsw += after.ru_nivcsw - before->ru_nivcsw;
	pthread_mutex_unlock(&r->lock);
}

/* Takes its turn, increments, passes the turn on and sleeps until it comes
 * back: each increment costs a wake-up of the other thread. */
static void *alternate_worker(void *arg)
{
	struct switch_worker *wk = arg;
	struct switch_run *r = wk->run;
	struct rusage before;
	int me = wk->index, other = 1 - wk->index;

	getrusage(RUSAGE_THREAD, &before);
	for (;;) {
		int turn;

		while ((turn = atomic_load(&r->turn)) != me) {
			if (turn < 0)
				goto out;
			futex_wait(&r->turn, turn);
		}
		if (r->alternate_count >= r->target) {
			atomic_store(&r->turn, -1);
			futex_wake(&r->turn);
			break;
		}
		r->alternate_count++;
		atomic_store(&r->turn, other);
		futex_wake(&r->turn);
	}
out:
	add_own_switches(r, &before);
	return NULL;
}

static void *locked_worker(void *arg)
{
	struct switch_worker *wk = arg;
	struct switch_run *r = wk->run;
	struct rusage before;

	getrusage(RUSAGE_THREAD, &before);
	for (;;) {
		bool done;

		pthread_mutex_lock(&r->counter_lock);
		done = r->counter >= r->target;
		if (!done)
			r->counter++;
		pthread_mutex_unlock(&r->counter_lock);
		if (done)
			break;
	}
	add_own_switches(r, &before);
	return NULL;
}

static void *one_worker(void *arg)
{
	struct switch_worker *wk = arg;
	struct switch_run *r = wk->run;
	struct rusage before;

	getrusage(RUSAGE_THREAD, &before);
	while (r->counter < r->target)
		r->counter++;
	add_own_switches(r, &before);
	return NULL;
}

static long switchcost_default_count(int mode)
{
	switch (mode) {
	case SWITCH_ONE: return 20000000;
	case SWITCH_ALTERNATE: return 20000;
	default: return 1000000;
	}
}

/* The counted total each mode must reach; a different one is a broken
 * count, never a fast one. */
static long switch_counted(const struct switch_run *r, int mode)
{
	return mode == SWITCH_ALTERNATE ? r->alternate_count : r->counter;
}

static int switch_measure(const void *config, void *state, const struct probe_window *w,
			  int stop_fd, struct sample *s, struct hist *h, char **err)
{
	const struct switch_config *st = config;
	long count = st->count > 0 ? st->count : switchcost_default_count(st->mode);
	struct switch_run *r = xcalloc(1, sizeof *r);
	struct switch_worker wk[SWITCH_MAX_THREADS];
	pthread_t tid[SWITCH_MAX_THREADS];
	void *(*worker)(void *) = st->mode == SWITCH_ONE         ? one_worker
				  : st->mode == SWITCH_ALTERNATE ? alternate_worker
								 : locked_worker;
	long n = st->mode == SWITCH_ONE ? 1 : st->mode == SWITCH_ALTERNATE ? 2 : st->threads;
	long started = 0;
	int64_t t0, t1;
	int rc = 0;

	r->target = count;
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->counter_lock, NULL);
	t0 = mono_ns();
	for (; started < n; started++) {
		wk[started] = (struct switch_worker){ .run = r, .index = (int)started };
		rc = pthread_create(&tid[started], NULL, worker, &wk[started]);
		if (rc != 0)
			break;
	}
	if (rc != 0 && st->mode == SWITCH_ALTERNATE) {
		atomic_store(&r->turn, -1); /* the lone thread must not wait for its partner */
		futex_wake(&r->turn);
	}
	for (long i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	t1 = mono_ns();
	s->wall_ms = (double)(t1 - t0) / NSEC_PER_MSEC;
	s->nvcsw = r->nvcsw;
	s->nivcsw = r->nivcsw;
	if (rc != 0 || switch_counted(r, st->mode) != count) {
		s->failed = true;
		s->exit_code = rc;
		*err = rc != 0 ? xasprintf("cannot start a counting thread: %s", strerror(rc))
			       : xasprintf("counted %ld, not %ld: the count is broken",
					   switch_counted(r, st->mode), count);
		rc = -1;
	} else {
		s->value = (double)(t1 - t0) / (double)count;
	}
	pthread_mutex_destroy(&r->counter_lock);
	pthread_mutex_destroy(&r->lock);
	free(r);
	return rc;
}

static void switch_describe(const void *config, char *buf, size_t len)
{
	const struct switch_config *cfg = config;
	long count = cfg->count > 0 ? cfg->count : switchcost_default_count(cfg->mode);
	char every[32];

	format_ms(cfg->every.every_ms, every, sizeof every);
	if (cfg->mode == SWITCH_LOCKED)
		snprintf(buf, len, "count to %ld with %ld threads under one mutex, every %s", count,
			 cfg->threads, every);
	else
		snprintf(buf, len, "count to %ld %s, every %s", count,
			 cfg->mode == SWITCH_ONE ? "with one thread"
						 : "with two threads alternating",
			 every);
}

/* The counting study's table: the cost per increment and the switches that
 * explain it, a row per mode. */
static const struct study_place switch_study[] = {
	{ .table = "Switch cost: counting alone, alternating and locked (switchcost)",
	  .rows = "mode",
	  .row = "{mode}",
	  .column = "ns/incr",
	  .unit = "ns" },
	{ .table = "Switch cost: counting alone, alternating and locked (switchcost)",
	  .rows = "mode",
	  .row = "{mode}",
	  .column = "switches/incr",
	  .unit = "",
	  .figure = STUDY_SWITCHES_PER_OP },
	{ 0 },
};

const struct probe_ops probe_switchcost_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "switchcost",
	.summary = "the cost of switching: count to N with one thread, two strictly "
		   "alternating threads, or N threads under one mutex; ns per increment",
	.options = switch_options,
	.config_size = sizeof(struct switch_config),
	.units = "ns",
	.describe = switch_describe,
	.study = switch_study,
	.measure = switch_measure,
};
