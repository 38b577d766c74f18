// SPDX-License-Identifier: GPL-2.0-or-later
#include "run.h"
#include "run_user.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "loader.h"
#include "log.h"
#include "parse.h"
#include "probe.h"
#include "procfs.h"
#include "stats.h"
#include "supervisor.h"
#include "timeutil.h"
#include "xalloc.h"

/* What one probe gave in the current phase, for its progress line. */
struct probe_phase {
	bool active;    /* runs in this phase */
	bool done;      /* its DONE record came */
	double *values; /* successful operations (ms) */
	size_t nvalues, cap;
	size_t nfailed;
	struct hist *hist; /* histogram probes: the phase so far */
};

struct run {
	const struct run_options *ro;
	const struct profile *profile;
	struct event_base *base;
	struct supervisor *sv;
	struct prober **probers; /* one per probe of the profile */
	int64_t *probe_ids;      /* their probes rows */
	struct probe_phase *pp;
	size_t nprobes;
	int job;        /* index of the job probe, -1: none */
	size_t pending; /* probes whose window is still open */
	struct api *api;
	int sample_pipe[2];
	struct sys_sampler sys;

	long round; /* from 1 */
	size_t phase_index;
	int64_t phase_id; /* 0 between phases */
	/* The knee search: the step of a ramped phase, its load with the
	 * step's value, whether its until held, and the round's baseline. */
	size_t ramp_step;
	struct load_def *step_load;
	bool ramp_stop;
	double baseline_median;

	enum run_result result;
	int signo;

	/* The settle: when it began, whether it is waiting past its fixed
	 * time for a ramping load, and what fell short when settle_max ran out. */
	int64_t settle_start_ns;
	bool settle_waiting;
	char *settle_short;

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
		.phase_id = r->phase_id,
		.t = wall_now(),
		.kind = kind,
		.message = message,
	};

	db_event_insert(r->ro->db, r->ro->run_id, &ev);
}

static void finish(struct run *r, enum run_result result)
{
	r->result = result;
	event_base_loopbreak(r->base);
}

static void probe_summary_line(struct run *r, const struct phase_def *ph, size_t i,
			       const char *verdict)
{
	const struct probe_inst_def *pi = &r->profile->probes[i];
	struct probe_phase *pp = &r->pp[i];
	struct summary s;

	if (pi->ops->histogram) {
		if (pp->hist->count == 0) {
			log_info("round %ld/%ld phase %s probe %s: nothing measured%s", r->round,
				 r->profile->run.rounds, ph->name, pi->name, verdict);
			return;
		}
		log_info("round %ld/%ld phase %s probe %s: n=%llu p50 %.0f us p99 %.0f us max "
			 "%.0f us%s",
			 r->round, r->profile->run.rounds, ph->name, pi->name,
			 (unsigned long long)pp->hist->count, hist_percentile(pp->hist, 50) / 1e3,
			 hist_percentile(pp->hist, 99) / 1e3, (double)pp->hist->max_ns / 1e3,
			 verdict);
		return;
	}
	summarize(pp->values, pp->nvalues, &s);
	if (s.n == 0)
		log_info("round %ld/%ld phase %s%s%s: no successful %s (%zu failed)%s", r->round,
			 r->profile->run.rounds, ph->name, (int)i == r->job ? "" : " probe ",
			 (int)i == r->job ? "" : pi->name, (int)i == r->job ? "job" : "operation",
			 pp->nfailed, verdict);
	else
		log_info("round %ld/%ld phase %s%s%s: n=%zu median %.1f ms p95 %.1f ms%s%s",
			 r->round, r->profile->run.rounds, ph->name,
			 (int)i == r->job ? "" : " probe ", (int)i == r->job ? "" : pi->name, s.n,
			 s.median, s.p95,
			 pp->nfailed
				 ? (((int)i == r->job) ? " (some jobs failed)" : " (some failed)")
				 : "",
			 verdict);
}

static void phase_summary_line(struct run *r, const struct phase_def *ph, bool valid,
			       const char *why)
{
	char *verdict = valid ? xstrdup("") : xasprintf("; INVALID: %s", why);

	for (size_t i = 0; i < r->nprobes; i++)
		if (r->pp[i].active)
			probe_summary_line(r, ph, i, verdict);
	free(verdict);
}

/* Every probe of the phase failed every operation it tried. */
static bool phase_all_failed(struct run *r, size_t *nfailed)
{
	bool any = false;

	*nfailed = 0;
	for (size_t i = 0; i < r->nprobes; i++) {
		struct probe_phase *pp = &r->pp[i];

		if (!pp->active)
			continue;
		any = true;
		*nfailed += pp->nfailed;
		if (pp->nvalues > 0 || (pp->hist != NULL && pp->hist->count > 0))
			return false;
	}
	return any;
}

/* Each load of the phase against its expectation over the probe window: the
 * phase is marked weak, with what each load that fell short reached, so a
 * load that did not load never reads as "no slowdown". */
static void judge_loads(struct run *r, const struct phase_def *ph)
{
	char *weak = r->settle_short;

	r->settle_short = NULL;
	for (size_t i = 0; i < ph->nloads; i++) {
		const struct load_def *ld = profile_load_by_name(r->profile, ph->loads[i]);
		struct achieved got;
		char why[512];
		char *joined;

		if (ld == NULL || db_phase_achieved(r->ro->db, r->phase_id, ld->name, &got) < 0 ||
		    expect_met(&ld->expect, &got, why, sizeof why))
			continue;
		joined = xasprintf("%s%s%s: %s", weak ? weak : "", weak ? "; " : "", ld->name, why);
		free(weak);
		weak = joined;
	}
	if (weak == NULL)
		return;
	db_phase_set_weak(r->ro->db, r->phase_id, weak);
	log_warn("round %ld phase %s: WEAK load: %s", r->round, ph->name, weak);
	record_event(r, "weak", weak);
	free(weak);
}

/* The ramped load of a knee-search step: its section with the step's value
 * for the ramped key, validated as the profile's own loads are. NULL (and a
 * message on stderr) when the loader refuses the value. */
static struct load_def *step_load_new(const struct load_def *base, const struct ramp *ramp,
				      size_t step)
{
	struct load_def *d = xcalloc(1, sizeof *d);
	size_t n = 0;

	d->name = xstrdup(base->name);
	d->type = xstrdup(base->type);
	d->line = base->line;
	d->kvs = xcalloc(base->nkv + 1, sizeof *d->kvs);
	for (size_t i = 0; i < base->nkv; i++) {
		if (strcmp(base->kvs[i].key, ramp->key) != 0)
			d->kvs[n++] = base->kvs[i];
	}
	d->kvs[n++] = (struct kv){ .key = ramp->key,
				   .value = ramp->values[step],
				   .line = base->line };
	d->nkv = n;
	if (loader_validate(d, "ramp", stderr) != 0) {
		free(d->kvs);
		free(d->name);
		free(d->type);
		free(d);
		return NULL;
	}
	return d;
}

static void step_load_free(struct load_def *d)
{
	if (d == NULL)
		return;
	options_free(d->options, d->config);
	free(d->config);
	free(d->kvs);
	free(d->name);
	free(d->type);
	free(d);
}

/* After a phase: the round's baseline median, or whether a ramp's until
 * held at this step (its job median and p95, Ratio to the baseline). */
static void ramp_judge(struct run *r, const struct phase_def *ph)
{
	struct probe_phase *pp = r->job >= 0 ? &r->pp[r->job] : NULL;
	struct summary s;
	double ratio;

	if (pp == NULL)
		return;
	summarize(pp->values, pp->nvalues, &s);
	if (ph == profile_baseline(r->profile))
		r->baseline_median = s.n ? s.median : NAN;
	if (ph->ramp.nsteps == 0 || ph->until.nterms == 0)
		return;
	ratio = r->baseline_median > 0 ? s.median / r->baseline_median : NAN;
	if (s.n > 0 && until_met(&ph->until, s.median, s.p95, ratio)) {
		char *why = xasprintf("step %zu (%s.%s = %s): median %.1f ms, p95 %.1f ms, Ratio "
				      "%.2f: the until condition holds; the knee search stops",
				      r->ramp_step + 1, ph->ramp.load, ph->ramp.key,
				      ph->ramp.values[r->ramp_step], s.median, s.p95, ratio);

		log_info("round %ld phase %s: %s", r->round, ph->name, why);
		record_event(r, "ramp-stop", why);
		free(why);
		r->ramp_stop = true;
	}
}

/* Ends the current phase: loads stopped, validity decided, row closed. */
static void phase_end(struct run *r, bool aborted)
{
	const struct phase_def *ph = &r->profile->phases[r->phase_index];
	char *stalled = NULL;
	char *why = NULL;
	size_t nfailed;

	supervisor_snapshot(r->sv);
	if (aborted)
		why = xstrdup("the run was stopped during this phase");
	else if ((stalled = supervisor_window_stalled(r->sv)) != NULL)
		why = xasprintf("no progress during the probe window from load(s): %s", stalled);
	else if (phase_all_failed(r, &nfailed))
		why = xasprintf("every probe job failed (%zu)", nfailed);
	if (why == NULL)
		judge_loads(r, ph);
	supervisor_stop_all(r->sv);
	db_phase_end(r->ro->db, r->phase_id, wall_now(), why == NULL, why);
	if (!aborted)
		phase_summary_line(r, ph, why == NULL, why);
	if (!aborted && why == NULL)
		ramp_judge(r, ph);
	if (why != NULL)
		record_event(r, aborted ? "abort" : "invalid", why);
	free(stalled);
	free(why);
	free(r->settle_short);
	r->settle_short = NULL;
	step_load_free(r->step_load);
	r->step_load = NULL;
	r->phase_id = 0;
	api_phase_end(r->api);
}

static void phase_advance(struct run *r)
{
	const struct phase_def *ph = &r->profile->phases[r->phase_index];

	if (ph->ramp.nsteps > 0 && !r->ramp_stop && r->ramp_step + 1 < ph->ramp.nsteps) {
		r->ramp_step++;
		phase_start(r);
		return;
	}
	r->ramp_step = 0;
	r->ramp_stop = false;
	if (++r->phase_index == r->profile->nphases) {
		r->phase_index = 0;
		if (++r->round > r->profile->run.rounds) {
			finish(r, RUN_COMPLETE);
			return;
		}
	}
	phase_start(r);
}

static void probe_begin(struct run *r)
{
	const struct phase_def *ph = &r->profile->phases[r->phase_index];
	int64_t now;

	supervisor_mark_window(r->sv);
	supervisor_snapshot(r->sv);
	db_phase_probe_start(r->ro->db, r->phase_id, wall_now());
	api_probe_begin(r->api);
	/* After the bookkeeping, so the first slot does not start late. */
	now = mono_ns();
	struct probe_window w = {
		.phase_id = r->phase_id,
		.start_ns = now,
		.end_ns = now + ph->duration_ms * NSEC_PER_MSEC,
		.cold = ph->cache == CACHE_COLD,
	};
	r->pending = 0;
	for (size_t i = 0; i < r->nprobes; i++) {
		if (!r->pp[i].active)
			continue;
		r->pending++;
		prober_begin_phase(r->probers[i], &w);
	}
	if (r->pending == 0) {
		/* a phase without probes is one the profile checker refuses */
		phase_end(r, false);
		phase_advance(r);
	}
}

/* The settle's fixed time is over. The probe starts, unless a load still
 * ramps up to the target it will hold (the memory load filling): then the
 * settle waits for it, twice a second, up to the phase's settle_max; a load
 * not there by then leaves the phase weak, since it was timed under less
 * load than asked for. */
static void settle_check(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	const struct phase_def *ph = &r->profile->phases[r->phase_index];
	const struct timeval half_second = { 0, 500000 };
	char *ramping = supervisor_ramping(r->sv);
	double settled_s = (double)(mono_ns() - r->settle_start_ns) / 1e9;
	char *msg;

	if (ramping == NULL) {
		if (r->settle_waiting) {
			msg = xasprintf("settle: the loads reached their targets after %.1f s",
					settled_s);
			log_info("round %ld phase %s: %s", r->round, ph->name, msg);
			record_event(r, "settle", msg);
			free(msg);
		}
		probe_begin(r);
		return;
	}
	if (settled_s * 1000 < (double)ph->settle_max_ms) {
		if (!r->settle_waiting) {
			msg = xasprintf("settle: waiting for %s to reach its target, up to "
					"settle_max %.0f s in all",
					ramping, (double)ph->settle_max_ms / 1000);
			log_info("round %ld phase %s: %s", r->round, ph->name, msg);
			record_event(r, "settle", msg);
			free(msg);
		}
		r->settle_waiting = true;
		evtimer_add(r->settle_timer, &half_second);
		free(ramping);
		return;
	}
	r->settle_short = xasprintf("%s: still ramping up to its target when settle_max (%.0f s) "
				    "ran out",
				    ramping, (double)ph->settle_max_ms / 1000);
	log_warn("round %ld phase %s: %s; the phase will be marked weak", r->round, ph->name,
		 r->settle_short);
	free(ramping);
	probe_begin(r);
}

static void probe_phase_reset(struct run *r, const struct phase_def *ph)
{
	for (size_t i = 0; i < r->nprobes; i++) {
		struct probe_phase *pp = &r->pp[i];

		pp->active = profile_phase_runs_probe(r->profile, ph, i);
		pp->done = false;
		pp->nvalues = 0;
		pp->nfailed = 0;
		if (pp->hist != NULL)
			hist_reset(pp->hist);
	}
}

static void phase_start(struct run *r)
{
	const struct phase_def *ph = &r->profile->phases[r->phase_index];
	const struct load_def **loads = xcalloc(ph->nloads + 1, sizeof *loads);
	int64_t settle = ph->settle_ms >= 0 ? ph->settle_ms : r->profile->run.settle_ms;
	char *loads_text = phase_loads_text(ph);
	/* Each step of a knee search is a phase row of its own, "knee@16". */
	char *name = ph->ramp.nsteps > 0
			     ? xasprintf("%s@%s", ph->name, ph->ramp.values[r->ramp_step])
			     : xstrdup(ph->name);

	probe_phase_reset(r, ph);
	r->phase_id = db_phase_begin(r->ro->db, r->ro->run_id, r->round, (long)r->phase_index, name,
				     ph->cache == CACHE_COLD ? "cold" : "warm", loads_text,
				     wall_now());
	free(loads_text);
	free(name);
	if (r->phase_id <= 0) {
		free(loads);
		finish(r, RUN_FAILED);
		return;
	}
	api_phase_begin(r->api, r->round, r->phase_index, r->phase_id);
	size_t nloads = 0;

	for (size_t i = 0; i < ph->nloads; i++) {
		loads[nloads] = profile_load_by_name(r->profile, ph->loads[i]);
		if (ph->ramp.nsteps > 0 && strcmp(ph->loads[i], ph->ramp.load) == 0) {
			r->step_load = step_load_new(loads[nloads], &ph->ramp, r->ramp_step);
			loads[nloads] = r->step_load;
			/* A value its loader refuses: the load does not run, and
			 * the window without its progress makes the step invalid. */
			if (r->step_load == NULL) {
				record_event(r, "error",
					     "ramp: the loader refuses this step's value");
				continue;
			}
		}
		nloads++;
	}
	log_debug("round %ld phase %s: starting %zu load(s), settle %lld ms", r->round, ph->name,
		  nloads, (long long)settle);
	if (supervisor_start_phase(r->sv, r->phase_id, loads, nloads) < 0)
		log_warn("phase %s: a load could not be started; the phase will be marked invalid",
			 ph->name);
	free(loads);
	r->settle_start_ns = mono_ns();
	r->settle_waiting = false;
	struct timeval tv = { .tv_sec = settle / 1000, .tv_usec = settle % 1000 * 1000 };
	evtimer_add(r->settle_timer, &tv);
}

/* A record from a probe of the current phase; -1 when the run must end. */
static int take_record(struct run *r, struct probe_msg *m)
{
	struct probe_phase *pp = &r->pp[m->probe];

	if (m->kind == PROBE_MSG_HIST) {
		struct hist_record h = {
			.phase_id = m->s.phase_id,
			.probe_id = r->probe_ids[m->probe],
			.variant = m->variant,
			.t = m->t,
			.steal_pct = m->steal_pct,
			.hist = m->hist,
		};

		/* a sample probe's histogram (chat's latencies) is stored beside
		 * its samples; the live view keeps to the samples */
		if (pp->hist != NULL) {
			hist_merge(pp->hist, m->hist);
			api_probe_hist(r->api, (size_t)m->probe, m->s.phase_id, m->hist);
		}
		return db_hist_insert(r->ro->db, r->ro->run_id, &h);
	}
	m->s.probe_id = r->probe_ids[m->probe];
	m->s.variant = m->variant;
	if (db_sample_insert(r->ro->db, r->ro->run_id, &m->s) < 0)
		return -1;
	if (m->s.over_limit > 0)
		return 0; /* not measured: neither a figure nor a failure */
	if (m->probe == r->job)
		api_sample(r->api, &m->s);
	api_probe_sample(r->api, (size_t)m->probe, &m->s);
	if (m->s.failed) {
		pp->nfailed++;
		return 0;
	}
	if (pp->nvalues == pp->cap) {
		pp->cap = pp->cap ? pp->cap * 2 : 256;
		pp->values = xreallocarray(pp->values, pp->cap, sizeof *pp->values);
	}
	pp->values[pp->nvalues++] = m->s.wall_ms;
	return 0;
}

static void on_sample(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	struct probe_msg m;
	ssize_t n;

	/* Records are written whole (smaller than PIPE_BUF), so reads are too. */
	while ((n = read(fd, &m, sizeof m)) == sizeof m) {
		int rc = 0;

		if (m.probe < 0 || (size_t)m.probe >= r->nprobes || m.s.phase_id != r->phase_id ||
		    r->phase_id == 0) {
			free(m.hist);
			continue;
		}
		if (m.kind == PROBE_MSG_DONE) {
			if (r->pp[m.probe].done)
				continue;
			r->pp[m.probe].done = true;
			if (--r->pending > 0)
				continue;
			phase_end(r, false);
			phase_advance(r);
			return;
		}
		rc = take_record(r, &m);
		free(m.hist);
		if (rc < 0) {
			finish(r, RUN_FAILED);
			return;
		}
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

/* One thread per probe, each with its probes row. */
static int probes_start(struct run *r)
{
	const struct profile *p = r->profile;

	r->nprobes = p->nprobes;
	r->probers = xcalloc(p->nprobes, sizeof *r->probers);
	r->probe_ids = xcalloc(p->nprobes, sizeof *r->probe_ids);
	r->pp = xcalloc(p->nprobes, sizeof *r->pp);
	r->job = -1;
	for (size_t i = 0; i < p->nprobes; i++) {
		const struct probe_inst_def *pi = &p->probes[i];
		struct probe_info info = {
			.name = pi->name,
			.type = pi->ops->name,
			.units = pi->ops->units,
			.histogram = pi->ops->histogram,
			.options = pi->options_text,
		};
		struct probe_env env = { .workdir = r->ro->workdir,
					 .tree_path = r->ro->tree_path,
					 .name = pi->name };
		char what[256] = "";

		r->probe_ids[i] = db_probe_insert(r->ro->db, r->ro->run_id, &info);
		if (r->probe_ids[i] < 0)
			return -1;
		if (pi->config == &p->probe)
			r->job = (int)i;
		if (pi->ops->histogram)
			r->pp[i].hist = xcalloc(1, sizeof *r->pp[i].hist);
		if (pi->ops->describe != NULL)
			pi->ops->describe(pi->config, what, sizeof what);
		log_debug("probe %s (%s): %s", pi->name, pi->ops->name, what);
		r->probers[i] = prober_start(pi->ops, pi->config, &env, (int)i, r->sample_pipe[1]);
	}
	return 0;
}

static void probes_free(struct run *r)
{
	for (size_t i = 0; i < r->nprobes; i++) {
		free(r->pp[i].values);
		free(r->pp[i].hist);
	}
	free(r->pp);
	free(r->probers);
	free(r->probe_ids);
}

/* Records nobody will take: their histograms are freed. */
static void drain_records(int fd)
{
	struct probe_msg m;

	while (read(fd, &m, sizeof m) == sizeof m)
		free(m.hist);
}

enum run_result run_execute(const struct run_options *ro, int *signo)
{
	struct run r = { .ro = ro, .profile = ro->profile, .round = 1, .result = RUN_FAILED };
	struct timeval one_second = { 1, 0 };

	r.base = event_base_new();
	if (r.base == NULL)
		fatalx("cannot create the event loop");
	if (pipe2(r.sample_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		fatal("pipe");
	/* The probe thread blocks on a full pipe rather than losing a sample. */
	fcntl(r.sample_pipe[1], F_SETFL, 0);

	r.sv = supervisor_new(r.base, ro->db, ro->run_id, ro->workdir);
	supervisor_set_owner(r.sv, run_user_get()->uid, run_user_get()->gid);
	if (ro->api != NULL)
		r.api = api_new(&(struct api_config){
			.base = r.base,
			.listen = ro->api,
			.db = ro->db,
			.profile = ro->profile,
			.run_id = ro->run_id,
			.started_at = wall_now(),
			.sv = r.sv,
			.stop = on_api_stop,
			.stop_arg = &r,
		});

	r.settle_timer = evtimer_new(r.base, settle_check, &r);
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
	if (probes_start(&r) < 0)
		goto out;
	phase_start(&r);
	if (r.result == RUN_FAILED && r.phase_id == 0)
		goto out;
	event_base_dispatch(r.base);

out:
	/* Stop the probes first: a running job dies and no new one starts. */
	for (size_t i = 0; i < r.nprobes; i++)
		if (r.probers[i] != NULL)
			prober_stop(r.probers[i]);
	drain_records(r.sample_pipe[0]);
	/* A full disk: give back the space kept for this, so the phase's end
	 * and the run's are still written. */
	if (db_disk_full(ro->db) && ro->reserve_path != NULL && unlink(ro->reserve_path) == 0)
		log_warn("the disk under the database is full: released the space kept back to "
			 "record the run's end");
	if (r.phase_id != 0)
		phase_end(&r, true);
	supervisor_stop_all(r.sv);
	api_free(r.api);
	supervisor_free(r.sv);
	free(r.settle_short);
	event_free(r.settle_timer);
	event_free(r.sys_timer);
	event_free(r.sample_ev);
	for (size_t i = 0; i < 4; i++)
		event_free(r.sig_stop[i]);
	event_free(r.sig_chld);
	event_base_free(r.base);
	close(r.sample_pipe[0]);
	close(r.sample_pipe[1]);
	probes_free(&r);
	*signo = r.signo;
	return r.result;
}
