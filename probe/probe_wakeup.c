// SPDX-License-Identifier: GPL-2.0-or-later
/* The wakeup probe: cyclictest's measurement. A thread sleeps until an
 * absolute CLOCK_MONOTONIC instant every interval and records how late it
 * woke. That lateness is what a desktop application feels as stutter: a
 * frame drawn late, a key echoed late. Stored as one log-linear histogram per
 * second (and per thread), never a row per wake-up. */
#include "probe.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"
#include "timeutil.h"
#include "xalloc.h"

enum wakeup_policy { POLICY_OTHER, POLICY_FIFO };

struct wakeup_config {
	int64_t interval_ms;
	int policy;    /* enum wakeup_policy */
	long priority; /* SCHED_FIFO priority */
	long threads;  /* 0: one per CPU */
	long slack_ns; /* the measuring threads' timer slack */
};

static int threads_parse(const char *value, void *dst, const char **err)
{
	long *out = dst;
	char *end;
	long n;

	if (strcmp(value, "cpus") == 0) {
		*out = 0;
		return 0;
	}
	errno = 0;
	n = strtol(value, &end, 10);
	if (errno != 0 || end == value || *end != '\0' || n < 1 || n > 256) {
		*err = "expected 1..256 or 'cpus' (one per CPU)";
		return -1;
	}
	*out = n;
	return 0;
}

/* A timer slack: a whole number of ns, us or ms, from 1 ns (0 would ask
 * the kernel for the thread's default again) to 100 ms. */
static int slack_parse(const char *value, void *dst, const char **err)
{
	static const struct {
		const char *unit;
		long ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 } };
	long *out = dst;
	char *end;
	long n;

	errno = 0;
	n = strtol(value, &end, 10);
	if (errno == 0 && end != value && n >= 1)
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strcmp(end, units[i].unit) == 0 && n <= 100000000 / units[i].ns) {
				*out = n * units[i].ns;
				return 0;
			}
	*err = "expected a whole number of ns, us or ms, from 1ns to 100ms";
	return -1;
}

static const char *const policy_choices[] = { "other", "fifo", NULL };

/* clang-format off */
static const struct option_def wakeup_options[] = {
	{ "interval", OPT_DURATION, offsetof(struct wakeup_config, interval_ms), "1ms", 1, 1000,
	  NULL, NULL, "the thread sleeps until the next multiple of this, as cyclictest -i" },
	{ "policy", OPT_ENUM, offsetof(struct wakeup_config, policy), "other", 0, 0,
	  policy_choices, NULL,
	  "other: what desktop applications get (SCHED_OTHER); fifo: SCHED_FIFO at priority "
	  "(needs root)" },
	{ "priority", OPT_INT, offsetof(struct wakeup_config, priority), "80", 1, 99, NULL, NULL,
	  "the SCHED_FIFO priority with policy = fifo" },
	{ "threads", OPT_CUSTOM, offsetof(struct wakeup_config, threads), "1", 0, 0, NULL,
	  threads_parse, "measuring threads: a number, or cpus (one pinned to each CPU)" },
	{ "slack", OPT_CUSTOM, offsetof(struct wakeup_config, slack_ns), "50us", 0, 0, NULL,
	  slack_parse,
	  "the measuring threads' timer slack (PR_SET_TIMERSLACK): 50us is Linux's default, what "
	  "desktop applications and cyclictest's SCHED_OTHER thread get; 1ns leaves the "
	  "scheduler's delay alone (SCHED_FIFO threads get no slack whatever this says)" },
	{ NULL },
};
/* clang-format on */

static int wakeup_check(const void *config, const char *file, int line, FILE *errs)
{
	const struct wakeup_config *cfg = config;

	if (cfg->policy == POLICY_FIFO && geteuid() != 0) {
		fprintf(errs, "%s:%d: policy = fifo needs root (SCHED_FIFO)\n", file, line);
		return 1;
	}
	return 0;
}

struct wakeup_state {
	struct wakeup_config cfg;
	long nthreads;
};

static void *wakeup_open(const void *config, const struct probe_env *env, char **err)
{
	struct wakeup_state *st = xcalloc(1, sizeof *st);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	st->cfg = *(const struct wakeup_config *)config;
	st->nthreads = st->cfg.threads > 0 ? st->cfg.threads : (cpus > 0 ? cpus : 1);
	return st;
}

static void wakeup_close(void *state)
{
	free(state);
}

/* The whole machine's steal time since the last call, as a % of the CPU
 * time that passed: a VM's lost time shows as late wake-ups the guest
 * cannot help. NaN when /proc/stat has no steal column. */
struct steal_meter {
	uint64_t steal, total;
	bool have;
};

static double steal_take(struct steal_meter *m)
{
	char buf[512];
	unsigned long long f[8] = { 0 };
	uint64_t total = 0;
	double pct = NAN;

	if (read_small_file("/proc/stat", buf, sizeof buf) < 0 ||
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
		   &f[4], &f[5], &f[6], &f[7]) != 8)
		return NAN;
	for (int i = 0; i < 8; i++)
		total += f[i];
	if (m->have && total > m->total)
		pct = (double)(f[7] - m->steal) * 100.0 / (double)(total - m->total);
	m->steal = f[7];
	m->total = total;
	m->have = true;
	return pct;
}

struct measurer {
	struct wakeup_state *st;
	struct probe_ctx *c;
	const struct probe_window *w;
	int variant;
	bool pin;
	pthread_t thread;
};

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static struct timespec to_timespec(int64_t ns)
{
	return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };
}

/* The thread's timer slack (how much later than asked the kernel may fire
 * its timers, to batch wake-ups) is added to every wake-up it measures. */
long probe_wakeup_set_slack(long ns)
{
	int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);

	if (prctl(PR_SET_TIMERSLACK, (unsigned long)ns, 0, 0, 0) != 0)
		return -1;
	return old;
}

/* One measuring thread over the window. */
static void *measure(void *arg)
{
	struct measurer *m = arg;
	const struct probe_window *w = m->w;
	int64_t interval = m->st->cfg.interval_ms * NSEC_PER_MSEC;
	struct steal_meter steal = { 0 };
	struct sched_param sp = { 0 };
	cpu_set_t old_set;
	struct hist *h = xcalloc(1, sizeof *h);
	int64_t next, second_start, second_end;
	long old_slack;
	bool fifo = m->st->cfg.policy == POLICY_FIFO;

	pthread_getaffinity_np(pthread_self(), sizeof old_set, &old_set);
	if (m->pin)
		pin_to(m->variant);
	old_slack = probe_wakeup_set_slack(m->st->cfg.slack_ns);
	if (old_slack < 0)
		probe_complain(m->c, xasprintf("cannot set the timer slack to %ld ns: %s",
					       m->st->cfg.slack_ns, strerror(errno)));
	if (fifo) {
		sp.sched_priority = (int)m->st->cfg.priority;
		if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
			probe_complain(m->c, xstrdup("cannot switch to SCHED_FIFO; measuring "
						     "with SCHED_OTHER"));
	}
	if (m->variant == 0)
		steal_take(&steal);
	/* The first wake-up is due one interval after the setup above, which
	 * may itself have waited: computing it earlier records the setup as
	 * one huge wake-up latency. */
	second_start = mono_ns();
	second_end = second_start + NSEC_PER_SEC;
	next = second_start + interval;
	while (next < w->end_ns && !probe_interrupted(m->c)) {
		struct timespec ts = to_timespec(next);
		int64_t now;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		now = mono_ns();
		hist_add(h, (uint64_t)(now > next ? now - next : 0));
		if (now >= second_end) {
			double t = wall_now() - (double)(now - second_start) / NSEC_PER_SEC;

			probe_emit_hist(m->c, w->phase_id, m->variant, t,
					m->variant == 0 ? steal_take(&steal) : NAN, h);
			h = xcalloc(1, sizeof *h);
			second_start = second_end;
			while (second_end <= now)
				second_end += NSEC_PER_SEC;
			/* Handing the second over may have waited (a full pipe):
			 * that is the probe's own time, not a late wake-up. */
			now = mono_ns();
		}
		/* A wake-up later than an interval skips the periods it slept
		 * through rather than bursting to catch up (as cyclictest). */
		next += interval;
		while (next <= now)
			next += interval;
	}
	if (h->count > 0 && !probe_interrupted(m->c)) {
		double t = wall_now() - (double)(mono_ns() - second_start) / NSEC_PER_SEC;

		probe_emit_hist(m->c, w->phase_id, m->variant, t,
				m->variant == 0 ? steal_take(&steal) : NAN, h);
	} else {
		free(h);
	}
	if (fifo) {
		sp.sched_priority = 0;
		pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	}
	if (old_slack > 0)
		probe_wakeup_set_slack(old_slack);
	if (m->pin)
		pthread_setaffinity_np(pthread_self(), sizeof old_set, &old_set);
	return NULL;
}

static void wakeup_run(void *state, struct probe_ctx *c, const struct probe_window *w)
{
	struct wakeup_state *st = state;
	struct measurer *ms;
	bool pin = st->cfg.threads == 0;

	if (probe_wait_until(c, w->start_ns) < 0)
		return;
	ms = xcalloc((size_t)st->nthreads, sizeof *ms);
	for (long i = 0; i < st->nthreads; i++) {
		ms[i] = (struct measurer){
			.st = st, .c = c, .w = w, .variant = (int)i, .pin = pin
		};
		if (i > 0 && pthread_create(&ms[i].thread, NULL, measure, &ms[i]) != 0) {
			probe_complain(c, xasprintf("cannot start measuring thread %ld", i));
			ms[i].st = NULL;
		}
	}
	measure(&ms[0]);
	for (long i = 1; i < st->nthreads; i++)
		if (ms[i].st != NULL)
			pthread_join(ms[i].thread, NULL);
	free(ms);
}

static void wakeup_describe(const void *config, char *buf, size_t len)
{
	const struct wakeup_config *cfg = config;
	char threads[32];

	if (cfg->threads == 0)
		snprintf(threads, sizeof threads, "one thread per CPU");
	else
		snprintf(threads, sizeof threads, "%ld thread%s", cfg->threads,
			 cfg->threads == 1 ? "" : "s");
	snprintf(buf, len, "%s, every %lld ms, %s, timer slack %ld ns", threads,
		 (long long)cfg->interval_ms,
		 cfg->policy == POLICY_FIFO ? "SCHED_FIFO" : "SCHED_OTHER", cfg->slack_ns);
}

const struct probe_ops probe_wakeup_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "wakeup",
	.summary = "how late a sleeping thread wakes (cyclictest's measurement), as a "
		   "histogram per second: p50, p99, p99.9, max, and counts over 1 ms, "
		   "16.7 ms (a frame at 60 Hz) and 100 ms",
	.options = wakeup_options,
	.config_size = sizeof(struct wakeup_config),
	.units = "us",
	.histogram = true,
	.check = wakeup_check,
	.open = wakeup_open,
	.run = wakeup_run,
	.close = wakeup_close,
	.describe = wakeup_describe,
};
