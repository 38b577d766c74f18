// SPDX-License-Identifier: GPL-2.0-or-later
#include "run.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "log.h"
#include "parse.h"
#include "probe.h"
#include "procfs.h"
#include "stats.h"
#include "supervisor.h"
#include "timeutil.h"
#include "xalloc.h"

struct run {
	const struct run_options *ro;
	const struct profile *profile;
	struct event_base *base;
	struct supervisor *sv;
	struct prober *prober;
	struct api *api;
	int sample_pipe[2];
	struct sys_sampler sys;

	long round;           /* from 1 */
	size_t phase_index;
	int64_t phase_id;     /* 0 between phases */

	/* The current phase's samples, for its progress line. */
	double *walls;
	size_t nwalls, cap_walls;
	size_t nfailed;

	enum run_result result;
	int signo;

	struct event *settle_timer;
	struct event *sys_timer;
	struct event *sample_ev;
	struct event *sig_stop[4], *sig_chld;
};

/* Each ends the run as aborted, recorded, with 128 + N as loadd's exit. */
static const int stop_signals[4] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void phase_start(struct run *r);

static char *phase_loads_text(const struct phase_def *ph)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < ph->nloads; i++)
		len += strlen(ph->loads[i]) + 1;
	s = xcalloc(1, len);
	for (size_t i = 0; i < ph->nloads; i++) {
		if (i > 0)
			strcat(s, " ");
		strcat(s, ph->loads[i]);
	}
	return s;
}

static void record_event(struct run *r, const char *kind, const char *message)
{
	struct event ev = {
		.phase_id = r->phase_id, .t = wall_now(), .kind = kind, .message = message,
	};

	db_event_insert(r->ro->db, r->ro->run_id, &ev);
}

static void finish(struct run *r, enum run_result result)
{
	r->result = result;
	event_base_loopbreak(r->base);
}

static void phase_summary_line(struct run *r, const struct phase_def *ph, bool valid,
			       const char *why)
{
	struct summary s;

	summarize(r->walls, r->nwalls, &s);
	if (s.n == 0)
		log_info("round %ld/%ld phase %s: no successful job (%zu failed)%s%s", r->round,
			 r->profile->run.rounds, ph->name, r->nfailed, valid ? "" : "; INVALID: ",
			 valid ? "" : why);
	else
		log_info("round %ld/%ld phase %s: n=%zu median %.1f ms p95 %.1f ms%s%s%s",
			 r->round, r->profile->run.rounds, ph->name, s.n, s.median, s.p95,
			 r->nfailed ? " (some jobs failed)" : "", valid ? "" : "; INVALID: ",
			 valid ? "" : why);
}

/* Ends the current phase: loads stopped, validity decided, row closed. */
static void phase_end(struct run *r, bool aborted)
{
	const struct phase_def *ph = &r->profile->phases[r->phase_index];
	char *stalled = NULL;
	char *why = NULL;

	supervisor_snapshot(r->sv);
	if (aborted)
		why = xstrdup("the run was stopped during this phase");
	else if ((stalled = supervisor_window_stalled(r->sv)) != NULL)
		why = xasprintf("no progress during the probe window from load(s): %s", stalled);
	else if (r->nwalls == 0)
		why = xasprintf("every probe job failed (%zu)", r->nfailed);
	supervisor_stop_all(r->sv);
	db_phase_end(r->ro->db, r->phase_id, wall_now(), why == NULL, why);
	if (!aborted)
		phase_summary_line(r, ph, why == NULL, why);
	if (why != NULL)
		record_event(r, aborted ? "abort" : "invalid", why);
	free(stalled);
	free(why);
	r->phase_id = 0;
	api_phase_end(r->api);
}

static void phase_advance(struct run *r)
{
	if (++r->phase_index == r->profile->nphases) {
		r->phase_index = 0;
		if (++r->round > r->profile->run.rounds) {
			finish(r, RUN_COMPLETE);
			return;
		}
	}
	phase_start(r);
}

static void probe_begin(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	const struct phase_def *ph = &r->profile->phases[r->phase_index];
	int64_t now;

	supervisor_mark_window(r->sv);
	supervisor_snapshot(r->sv);
	db_phase_probe_start(r->ro->db, r->phase_id, wall_now());
	api_probe_begin(r->api);
	/* After the bookkeeping, so the first slot does not start late. */
	now = mono_ns();
	prober_begin_phase(r->prober, r->phase_id, now, now + ph->duration_ms * NSEC_PER_MSEC,
			   r->profile->probe.every_ms, ph->cache == CACHE_COLD);
}

static void phase_start(struct run *r)
{
	const struct phase_def *ph = &r->profile->phases[r->phase_index];
	const struct load_def **loads = xcalloc(ph->nloads + 1, sizeof *loads);
	int64_t settle = ph->settle_ms >= 0 ? ph->settle_ms : r->profile->run.settle_ms;
	char *loads_text = phase_loads_text(ph);

	r->nwalls = 0;
	r->nfailed = 0;
	r->phase_id = db_phase_begin(r->ro->db, r->ro->run_id, r->round, (long)r->phase_index,
				     ph->name, ph->cache == CACHE_COLD ? "cold" : "warm",
				     loads_text, wall_now());
	free(loads_text);
	if (r->phase_id <= 0) {
		free(loads);
		finish(r, RUN_FAILED);
		return;
	}
	api_phase_begin(r->api, r->round, r->phase_index, r->phase_id);
	for (size_t i = 0; i < ph->nloads; i++)
		loads[i] = profile_load_by_name(r->profile, ph->loads[i]);
	log_debug("round %ld phase %s: starting %zu load(s), settle %lld ms", r->round, ph->name,
		  ph->nloads, (long long)settle);
	if (supervisor_start_phase(r->sv, r->phase_id, loads, ph->nloads) < 0)
		log_warn("phase %s: a load could not be started; the phase will be marked invalid",
			 ph->name);
	free(loads);
	struct timeval tv = { .tv_sec = settle / 1000, .tv_usec = settle % 1000 * 1000 };
	evtimer_add(r->settle_timer, &tv);
}

static void on_sample(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	struct sample s;
	ssize_t n;

	/* Records are written whole (smaller than PIPE_BUF), so reads are too. */
	while ((n = read(fd, &s, sizeof s)) == sizeof s) {
		if (s.phase_id != r->phase_id)
			continue;
		if (s.seq == PROBE_PHASE_DONE) {
			phase_end(r, false);
			phase_advance(r);
			return;
		}
		if (db_sample_insert(r->ro->db, r->ro->run_id, &s) < 0) {
			finish(r, RUN_FAILED);
			return;
		}
		api_sample(r->api, &s);
		if (s.failed) {
			r->nfailed++;
			continue;
		}
		if (r->nwalls == r->cap_walls) {
			r->cap_walls = r->cap_walls ? r->cap_walls * 2 : 256;
			r->walls = xreallocarray(r->walls, r->cap_walls, sizeof *r->walls);
		}
		r->walls[r->nwalls++] = s.wall_ms;
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		log_error("reading probe samples: %s", strerror(errno));
		finish(r, RUN_FAILED);
	}
}

static void on_sys_tick(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	struct sys_sample s;

	if (sys_sampler_take(&r->sys, &s) < 0)
		return;
	s.phase_id = r->phase_id;
	/* A full disk ends the run (recorded as such); other failures are
	 * logged and the run goes on. */
	if (db_sys_sample_insert(r->ro->db, r->ro->run_id, &s) < 0 && db_disk_full(r->ro->db)) {
		finish(r, RUN_FAILED);
		return;
	}
	api_sys_sample(r->api, &s);
}

static void on_stop_signal(evutil_socket_t signo, short what, void *arg)
{
	struct run *r = arg;

	log_info("%s: stopping the run", strsignal(signo));
	r->signo = signo;
	finish(r, RUN_ABORTED);
}

/* POST /v1/stop, once its reply is sent: the run ends as aborted, with no
 * signal to report (loadd exits 0). */
static void on_api_stop(void *arg)
{
	struct run *r = arg;

	finish(r, RUN_ABORTED);
}

static void on_sigchld(evutil_socket_t signo, short what, void *arg)
{
	struct run *r = arg;

	supervisor_reap(r->sv);
}

/* Replaces {tree} in every word of the job with the tree's path. */
static char **job_argv(const struct probe_def *probe, const char *tree)
{
	size_t n = 0;
	char **argv;

	while (probe->argv[n] != NULL)
		n++;
	argv = xcalloc(n + 1, sizeof *argv);
	for (size_t i = 0; i < n; i++) {
		const char *w = probe->argv[i];
		const char *at = strstr(w, "{tree}");
		argv[i] = at == NULL ? xstrdup(w)
				     : xasprintf("%.*s%s%s", (int)(at - w), w, tree, at + 6);
	}
	return argv;
}

enum run_result run_execute(const struct run_options *ro, int *signo)
{
	struct run r = { .ro = ro, .profile = ro->profile, .round = 1, .result = RUN_FAILED };
	struct timeval one_second = { 1, 0 };
	char **argv;

	r.base = event_base_new();
	if (r.base == NULL)
		fatalx("cannot create the event loop");
	if (pipe2(r.sample_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		fatal("pipe");
	/* The probe thread blocks on a full pipe rather than losing a sample. */
	fcntl(r.sample_pipe[1], F_SETFL, 0);

	r.sv = supervisor_new(r.base, ro->db, ro->run_id, ro->workdir);
	if (ro->api != NULL)
		r.api = api_new(&(struct api_config){
			.base = r.base, .listen = ro->api, .db = ro->db, .profile = ro->profile,
			.run_id = ro->run_id, .started_at = wall_now(), .sv = r.sv,
			.stop = on_api_stop, .stop_arg = &r,
		});
	argv = job_argv(&ro->profile->probe, ro->tree_path);
	r.prober = prober_start(argv, ro->profile->probe.timeout_ms, r.sample_pipe[1]);
	argv_free(argv);

	r.settle_timer = evtimer_new(r.base, probe_begin, &r);
	r.sys_timer = event_new(r.base, -1, EV_PERSIST, on_sys_tick, &r);
	r.sample_ev = event_new(r.base, r.sample_pipe[0], EV_READ | EV_PERSIST, on_sample, &r);
	for (size_t i = 0; i < 4; i++) {
		r.sig_stop[i] = evsignal_new(r.base, stop_signals[i], on_stop_signal, &r);
		event_add(r.sig_stop[i], NULL);
	}
	r.sig_chld = evsignal_new(r.base, SIGCHLD, on_sigchld, &r);
	event_add(r.sample_ev, NULL);
	event_add(r.sig_chld, NULL);
	sys_sampler_init(&r.sys);
	sys_sampler_take(&r.sys, &(struct sys_sample){ 0 });
	event_add(r.sys_timer, &one_second);

	/* A signal that came before the loop's own handlers were in place. */
	if (ro->pending_signal != NULL && *ro->pending_signal != 0) {
		r.signo = *ro->pending_signal;
		log_info("%s: stopping the run", strsignal(r.signo));
		r.result = RUN_ABORTED;
		goto out;
	}
	phase_start(&r);
	if (r.result == RUN_FAILED && r.phase_id == 0)
		goto out;
	event_base_dispatch(r.base);

out:
	/* Stop the probe first: its running job dies and no new one starts. */
	prober_stop(r.prober);
	if (r.phase_id != 0)
		phase_end(&r, true);
	supervisor_stop_all(r.sv);
	api_free(r.api);
	supervisor_free(r.sv);
	event_free(r.settle_timer);
	event_free(r.sys_timer);
	event_free(r.sample_ev);
	for (size_t i = 0; i < 4; i++)
		event_free(r.sig_stop[i]);
	event_free(r.sig_chld);
	event_base_free(r.base);
	close(r.sample_pipe[0]);
	close(r.sample_pipe[1]);
	free(r.walls);
	*signo = r.signo;
	return r.result;
}
