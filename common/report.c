// SPDX-License-Identifier: GPL-2.0-or-later
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "hist.h"
#include "ipc_limits.h"
#include "json_build.h"
#include "log.h"
#include "parse.h"
#include "profile.h"
#include "report_latency.h"
#include "report_study.h"
#include "table.h"
#include "term_escape.h"
#include "timeutil.h"
#include "xalloc.h"

/* loadd snapshots every load just before it stamps a window's start, so a
 * window's first row may be a few milliseconds early. Rows are a second
 * apart: this slack can only ever take that snapshot. */
#define WINDOW_SLACK_S 0.25

/* ---- building ---- */

/* Growing array of doubles. */
struct dvec {
	double *v;
	size_t n, cap;
};

static void dvec_push(struct dvec *d, double x)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->v = xreallocarray(d->v, d->cap, sizeof *d->v);
	}
	d->v[d->n++] = x;
}

/* Mean of the finite values, NaN when there are none. */
struct mean {
	double sum;
	size_t n;
};

static void mean_add(struct mean *m, double x)
{
	if (isfinite(x)) {
		m->sum += x;
		m->n++;
	}
}

static double mean_get(const struct mean *m)
{
	return m->n ? m->sum / (double)m->n : NAN;
}

static uint64_t counter_delta(uint64_t first, uint64_t last)
{
	return last > first ? last - first : 0;
}

/* What one probe of a phase gathers over its valid rounds. */
struct probe_acc {
	struct dvec values;
	struct hist *hist;
	struct mean steal;
};

/* What building one phase name needs besides the result. */
struct phase_acc {
	struct probe_acc *probes;
	struct dvec walls;
	struct mean cpu_pct;
	struct mean load_cycles;
	struct mean lcpu_pct;
	struct mean psi_cpu, psi_mem, psi_io;
};

const struct report_load *report_phase_load(const struct report_phase *p, const char *name)
{
	for (size_t i = 0; i < p->nload; i++)
		if (strcmp(p->load[i].name, name) == 0)
			return &p->load[i];
	return NULL;
}

/* The load NAME of p, added when it has none. */
static struct report_load *find_load(struct report_phase *p, const char *name)
{
	const struct report_load *l = report_phase_load(p, name);

	if (l != NULL)
		return &p->load[l - p->load];
	p->load = xreallocarray(p->load, p->nload + 1, sizeof *p->load);
	memset(&p->load[p->nload], 0, sizeof *p->load);
	p->load[p->nload].name = xstrdup(name);
	return &p->load[p->nload++];
}

/* The loads' counters over one round's probe window. */
static int add_load_window(struct db *db, const struct phase_row *ph, struct report_phase *p,
			   struct phase_acc *acc)
{
	struct loader_sample *rows;
	size_t n, i, j;
	double end = ph->ended_at > 0 ? ph->ended_at + WINDOW_SLACK_S : INFINITY;
	double start = ph->probe_start - WINDOW_SLACK_S;
	double round_cycles = 0, round_lcpu = 0;
	bool any = false;

	if (ph->probe_start <= 0 || p->nload == 0)
		return 0;
	if (db_loader_samples_list(db, ph->id, &rows, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const struct loader_sample *first = NULL, *last = NULL;
		struct report_load *l;
		double span;

		/* Each load once, at its first row. */
		for (j = 0; j < i; j++)
			if (strcmp(rows[j].load, rows[i].load) == 0)
				break;
		if (j < i)
			continue;
		for (j = i; j < n; j++) {
			if (strcmp(rows[j].load, rows[i].load) != 0)
				continue;
			if (first == NULL && rows[j].t >= start && rows[j].t <= end)
				first = &rows[j];
			if (rows[j].t <= end)
				last = &rows[j];
		}
		if (first == NULL || last == NULL || last->t <= first->t)
			continue;
		span = last->t - first->t;
		l = find_load(p, rows[i].load);
		l->windows++;
		l->seconds += span;
		l->round_rates = xreallocarray(l->round_rates, l->windows, sizeof *l->round_rates);
		l->round_rates[l->windows - 1] = (double)counter_delta(first->cycles,
								       last->cycles) /
						 span;
		l->cycles += counter_delta(first->cycles, last->cycles);
		l->bytes += counter_delta(first->bytes, last->bytes);
		l->ops += counter_delta(first->ops, last->ops);
		l->errors += counter_delta(first->errors, last->errors);
		if (last->restarts > first->restarts)
			l->restarts += last->restarts - first->restarts;
		/* Counters are cumulative over the run: one that is still 0 at
		 * the window's end is one this loader does not keep. */
		l->counts_bytes |= last->bytes > 0;
		l->counts_ops |= last->ops > 0;
		if (isfinite(first->cpu_ms) && isfinite(last->cpu_ms) &&
		    last->cpu_ms >= first->cpu_ms) {
			l->cpu_ms += last->cpu_ms - first->cpu_ms;
			round_lcpu += (last->cpu_ms - first->cpu_ms) / span / 10;
		}
		round_cycles += (double)counter_delta(first->cycles, last->cycles);
		any = true;
	}
	db_loader_samples_free(rows, n);
	if (any) {
		mean_add(&acc->load_cycles, round_cycles);
		mean_add(&acc->lcpu_pct, round_lcpu);
	}
	return 0;
}

static int add_pressure(struct db *db, const struct phase_row *ph, struct phase_acc *acc)
{
	struct sys_sample *rows;
	double end = ph->ended_at > 0 ? ph->ended_at : INFINITY;
	size_t n, i;

	if (ph->probe_start <= 0)
		return 0;
	if (db_sys_samples_list(db, ph->id, &rows, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (rows[i].t < ph->probe_start || rows[i].t > end)
			continue;
		mean_add(&acc->psi_cpu, rows[i].psi_cpu_some);
		mean_add(&acc->psi_mem, rows[i].psi_mem_some);
		mean_add(&acc->psi_io, rows[i].psi_io_some);
	}
	free(rows);
	return 0;
}

static int add_hist_second(void *arg, const struct hist_record *h)
{
	struct probe_acc *pa = arg;

	hist_merge(pa->hist, h->hist);
	mean_add(&pa->steal, h->steal_pct);
	return 0;
}

static void probe_round_push(struct report_probe *rp, double v)
{
	rp->round_values = xreallocarray(rp->round_values, rp->nround_values + 1,
					 sizeof *rp->round_values);
	rp->round_values[rp->nround_values++] = v;
	rp->round_len[rp->nround_len - 1]++;
}

static void probe_round_start(struct report_probe *rp)
{
	rp->round_len = xreallocarray(rp->round_len, rp->nround_len + 1, sizeof *rp->round_len);
	rp->round_len[rp->nround_len++] = 0;
}

struct hist_round {
	struct probe_acc *pa;
	struct report_probe *rp;
};

/* A second's histogram into the phase's, and its p99 into the round's
 * values for compare. */
static int add_hist_round_second(void *arg, const struct hist_record *h)
{
	struct hist_round *hr = arg;
	double p99 = hist_percentile(h->hist, 99);

	if (!isnan(p99))
		probe_round_push(hr->rp, p99 / 1e6);
	return add_hist_second(hr->pa, h);
}

/* Every probe's figures of one valid round. */
static int add_probes(struct db *db, const struct phase_row *ph, struct report_phase *p,
		      struct phase_acc *acc, const struct probe_info *probes)
{
	for (size_t k = 0; k < p->nprobe; k++) {
		struct report_probe *rp = &p->probe[k];
		struct probe_acc *pa = &acc->probes[k];
		struct sample *s;
		size_t n;

		probe_round_start(rp);
		if (rp->histogram) {
			uint64_t before = pa->hist->count;
			struct hist_round hr = { pa, rp };

			if (db_hists_foreach(db, 0, ph->id, probes[k].id, add_hist_round_second,
					     &hr) < 0)
				return -1;
			rp->ran |= pa->hist->count > before;
			continue;
		}
		if (db_probe_samples_list(db, ph->id, probes[k].id, &s, &n) < 0)
			return -1;
		rp->ran |= n > 0;
		for (size_t i = 0; i < n; i++) {
			rp->missed += s[i].missed;
			if (s[i].over_limit > 0) {
				rp->over_limit_n++;
				rp->over_limit = s[i].over_limit;
			} else if (s[i].failed)
				rp->failed++;
			else if (!isnan(sample_figure(&s[i]))) {
				dvec_push(&pa->values, sample_figure(&s[i]));
				probe_round_push(rp, sample_figure(&s[i]));
			}
		}
		free(s);
		if (probes[k].id > 0 &&
		    db_hists_foreach(db, 0, ph->id, probes[k].id, add_hist_second, pa) < 0)
			return -1;
	}
	return 0;
}

static void finish_probe(struct report_probe *rp, struct probe_acc *pa)
{
	summarize(pa->values.v, pa->values.n, &rp->time);
	free(pa->values.v);
	pa->values = (struct dvec){ 0 };
	rp->p50 = rp->p99 = rp->p999 = rp->max = rp->mean = rp->steal_pct = NAN;
	if (pa->hist == NULL)
		return;
	rp->count = pa->hist->count;
	if (rp->count > 0) {
		rp->p50 = hist_percentile(pa->hist, 50) / 1e6;
		rp->p99 = hist_percentile(pa->hist, 99) / 1e6;
		rp->p999 = hist_percentile(pa->hist, 99.9) / 1e6;
		rp->max = (double)pa->hist->max_ns / 1e6;
		rp->mean = (double)pa->hist->sum_ns / (double)rp->count / 1e6;
	}
	rp->over_1ms = hist_count_above(pa->hist, 1000000);
	rp->over_16ms = hist_count_above(pa->hist, 16700000);
	rp->over_100ms = hist_count_above(pa->hist, 100000000);
	rp->steal_pct = mean_get(&pa->steal);
	free(pa->hist);
	pa->hist = NULL;
}

static int add_round(struct db *db, const struct phase_row *ph, struct report_phase *p,
		     struct phase_acc *acc, const struct probe_info *probes)
{
	struct report_round *r;
	struct sample *s;
	size_t n, i;

	p->rounds = xreallocarray(p->rounds, p->nrounds + 1, sizeof *p->rounds);
	r = &p->rounds[p->nrounds++];
	r->round = ph->round;
	r->phase_id = ph->id;
	r->valid = ph->valid;
	r->finished = ph->ended_at > 0;
	r->reason = xstrdup(ph->valid ? "" : ph->invalid_reason);
	r->weak = xstrdup(ph->weak ? ph->weak : "");
	if (db_samples_list(db, ph->id, &s, &n) < 0)
		return -1;
	r->samples = n;
	if (!ph->valid) {
		free(s);
		return 0;
	}
	p->valid_rounds++;
	for (i = 0; i < n; i++) {
		p->missed += s[i].missed;
		if (s[i].failed) {
			p->failed++;
			continue;
		}
		if (!isnan(s[i].wall_ms))
			dvec_push(&acc->walls, s[i].wall_ms);
		mean_add(&acc->cpu_pct, s[i].cpu_pct);
	}
	free(s);
	if (add_load_window(db, ph, p, acc) < 0 || add_pressure(db, ph, acc) < 0 ||
	    add_probes(db, ph, p, acc, probes) < 0)
		return -1;
	return 0;
}

/* "INVALID: why" when every round failed for one reason (or there is one
 * round), else "INVALID: round 2: why; rounds 3, 4: other". */
static void invalid_note(struct report_phase *p)
{
	size_t i, j, ninvalid = 0;
	char *note = NULL;

	for (i = 0; i < p->nrounds; i++)
		ninvalid += !p->rounds[i].valid;
	if (ninvalid == 0)
		return;
	for (i = 0; i < p->nrounds; i++) {
		const struct report_round *r = &p->rounds[i];
		char *rounds = NULL;
		size_t same = 0;

		if (r->valid)
			continue;
		/* each reason once, at its first round */
		for (j = 0; j < i; j++)
			if (!p->rounds[j].valid && strcmp(p->rounds[j].reason, r->reason) == 0)
				break;
		if (j < i)
			continue;
		for (j = i; j < p->nrounds; j++) {
			if (p->rounds[j].valid || strcmp(p->rounds[j].reason, r->reason) != 0)
				continue;
			str_append(&rounds, ", ", "%ld", p->rounds[j].round);
			same++;
		}
		if (same == p->nrounds)
			str_append(&note, "; ", "%s", r->reason);
		else
			str_append(&note, "; ", "round%s %s: %s", same > 1 ? "s" : "", rounds,
				   r->reason);
		free(rounds);
	}
	p->note = xasprintf("INVALID: %s", note);
	free(note);
}

/* p->weak: what each round whose load fell short reached, "round 2: ..." when
 * only some rounds did or they differ. */
static void weak_summary(struct report_phase *p)
{
	char *text = NULL;
	size_t nweak = 0, i;
	bool same = true;

	for (i = 0; i < p->nrounds; i++) {
		if (p->rounds[i].weak[0] == '\0')
			continue;
		if (nweak > 0 && strcmp(p->rounds[i].weak, p->rounds[0].weak) != 0)
			same = false;
		nweak++;
	}
	if (nweak == p->nrounds && same && nweak > 0) {
		p->weak = xstrdup(p->rounds[0].weak);
		return;
	}
	for (i = 0; i < p->nrounds; i++) {
		if (p->rounds[i].weak[0] != '\0')
			str_append(&text, "; ", "round %ld: %s", p->rounds[i].round,
				   p->rounds[i].weak);
	}
	p->weak = text != NULL ? text : xstrdup("");
}

static void finish_phase(struct report_phase *p, struct phase_acc *acc)
{
	size_t i;
	bool unfinished = false;

	summarize(acc->walls.v, acc->walls.n, &p->time);
	free(acc->walls.v);
	for (i = 0; i < p->nprobe; i++)
		finish_probe(&p->probe[i], &acc->probes[i]);
	free(acc->probes);
	p->cpu_pct = mean_get(&acc->cpu_pct);
	p->load_cycles = p->nload ? mean_get(&acc->load_cycles) : NAN;
	p->lcpu_pct = p->nload ? mean_get(&acc->lcpu_pct) : NAN;
	p->psi_cpu = mean_get(&acc->psi_cpu);
	p->psi_mem = mean_get(&acc->psi_mem);
	p->psi_io = mean_get(&acc->psi_io);
	for (i = 0; i < p->nload; i++) {
		struct report_load *l = &p->load[i];
		bool have = l->seconds > 0;
		/* A loader's own word on what it counts, else what moved. */
		bool known = l->cycle_unit != NULL;
		bool bytes = known ? l->reports_bytes : l->counts_bytes;
		bool ops = known ? l->ops_unit != NULL : l->counts_ops;

		l->cycles_per_s = have ? (double)l->cycles / l->seconds : NAN;
		l->mib_per_s = have && bytes ? (double)l->bytes / 1048576.0 / l->seconds : NAN;
		l->ops_per_s = have && ops ? (double)l->ops / l->seconds : NAN;
		l->lcpu_pct = have ? l->cpu_ms / l->seconds / 10 : NAN;
	}

	p->note = NULL;
	for (i = 0; i < p->nrounds; i++)
		if (!p->rounds[i].finished)
			unfinished = true;
	invalid_note(p);
	weak_summary(p);
	if (p->weak[0] != '\0')
		str_append(&p->note, "; ", "WEAK: %s", p->weak);
	if (unfinished)
		str_append(&p->note, "; ", "unfinished");
	if (p->note == NULL)
		p->note = xstrdup("");
}

/* The loads of a phase, from its "a b c" string, in that order. */
static void init_loads(struct report_phase *p)
{
	char *copy = xstrdup(p->loads), *save = NULL, *tok;

	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		find_load(p, tok);
	free(copy);
}

/* Gives every load the type and units the run recorded for it. */
static int attach_units(struct db *db, struct run_report *rep)
{
	struct load_info *info;
	size_t n, i, j, k;

	if (db_loads_list(db, rep->run.id, &info, &n) < 0)
		return -1;
	for (i = 0; i < rep->nphases; i++) {
		struct report_phase *p = &rep->phases[i];

		for (j = 0; j < p->nload; j++) {
			struct report_load *l = &p->load[j];

			for (k = 0; k < n && strcmp(info[k].name, l->name) != 0; k++)
				;
			if (k == n)
				continue;
			l->type = xstrdup(info[k].type);
			l->cycle_unit = xstrdup(info[k].cycle_unit);
			l->ops_unit = info[k].ops_unit ? xstrdup(info[k].ops_unit) : NULL;
			l->reports_bytes = info[k].reports_bytes;
		}
	}
	db_loads_free(info, n);
	return 0;
}

static const char *report_phase_name(const struct run_report *rep, const char *name)
{
	for (size_t j = 0; j < rep->nphases; j++)
		if (strcmp(rep->phases[j].name, name) == 0)
			return rep->phases[j].name;
	return NULL;
}

/* The phase Ratio divides by: the profile's [run] baseline, read back from
 * the profile stored with the run, else the first phase that ran without
 * loads. */
static const char *find_baseline(const struct run_report *rep, const struct phase_row *ph,
				 size_t nph)
{
	const char *name = NULL;
	struct profile prof;

	if (profile_parse_text(rep->run.profile_path, rep->run.profile_text, &prof, NULL, NULL) ==
	    0) {
		const struct phase_def *base = profile_baseline(&prof);
		if (base != NULL)
			name = report_phase_name(rep, base->name);
		profile_free(&prof);
	}
	for (size_t i = 0; i < nph && name == NULL; i++)
		if (ph[i].loads[0] == '\0')
			name = report_phase_name(rep, ph[i].name);
	return name;
}

/* The sysctl that caps the messages of an IPC probe, from its `via` as
 * written in its options; NULL for any other probe. */
static const char *limit_sysctl_of(const struct probe_info *pi)
{
	const char *line = pi->options;

	while (line != NULL && *line != '\0') {
		char key[16], value[32];

		if (sscanf(line, " %15[a-z] = %31s", key, value) == 2 && strcmp(key, "via") == 0)
			return ipc_limit_sysctl(value);
		line = strchr(line, '\n');
		line = line != NULL ? line + 1 : NULL;
	}
	return NULL;
}

/* A phase gets a row per probe of the run, in the run's order. */
static void init_probes(struct report_phase *p, struct phase_acc *acc,
			const struct probe_info *probes, size_t nprobes)
{
	p->nprobe = nprobes;
	p->probe = xcalloc(nprobes ? nprobes : 1, sizeof *p->probe);
	acc->probes = xcalloc(nprobes ? nprobes : 1, sizeof *acc->probes);
	for (size_t k = 0; k < nprobes; k++) {
		p->probe[k].name = xstrdup(probes[k].name);
		p->probe[k].type = xstrdup(probes[k].type);
		/* histograms are printed in ms whatever they store */
		p->probe[k].units = xstrdup(
			probes[k].histogram || probes[k].units == NULL ? "ms" : probes[k].units);
		p->probe[k].histogram = probes[k].histogram;
		p->probe[k].limit_sysctl = limit_sysctl_of(&probes[k]);
		/* a sample probe may store latencies beside its samples (chat) */
		acc->probes[k].hist = xcalloc(1, sizeof *acc->probes[k].hist);
	}
}

/* Each probe's Ratio: its median (a histogram's p99) over the baseline's. */
static void probe_ratios(struct run_report *rep)
{
	const struct report_phase *base = NULL;

	for (size_t j = 0; rep->baseline && j < rep->nphases; j++)
		if (rep->phases[j].name == rep->baseline)
			base = &rep->phases[j];
	for (size_t j = 0; j < rep->nphases; j++) {
		for (size_t k = 0; k < rep->phases[j].nprobe; k++) {
			struct report_probe *rp = &rep->phases[j].probe[k];
			const struct report_probe *bp = base ? &base->probe[k] : NULL;
			double b = NAN, v = rp->histogram ? rp->p99 : rp->time.median;

			if (bp != NULL)
				b = bp->histogram ? bp->p99 : bp->time.median;
			rp->ratio = b > 0 ? v / b : NAN;
		}
	}
}

static void acc_free(struct phase_acc *acc, size_t n)
{
	for (size_t j = 0; acc != NULL && j < n; j++) {
		free(acc[j].walls.v);
		free(acc[j].probes);
	}
	free(acc);
}

int report_build(struct db *db, int64_t run_id, struct run_report *rep)
{
	struct phase_row *ph = NULL;
	struct phase_acc *acc = NULL;
	struct probe_info *probes = NULL;
	size_t nph = 0, nprobes = 0, i, j;
	int rc;

	memset(rep, 0, sizeof *rep);
	rc = db_run_get(db, run_id, &rep->run);
	if (rc != 0)
		return rc;
	if (db_phases_list(db, run_id, &ph, &nph) < 0 ||
	    db_probes_list(db, run_id, &probes, &nprobes) < 0)
		goto fail;
	rep->nprobes = nprobes;
	/* One entry per phase name, in the order the names first ran. */
	rep->phases = xcalloc(nph ? nph : 1, sizeof *rep->phases);
	acc = xcalloc(nph ? nph : 1, sizeof *acc);
	for (i = 0; i < nph; i++) {
		struct report_phase *p = NULL;

		for (j = 0; j < rep->nphases; j++)
			if (strcmp(rep->phases[j].name, ph[i].name) == 0)
				p = &rep->phases[j];
		if (p == NULL) {
			p = &rep->phases[rep->nphases++];
			p->name = xstrdup(ph[i].name);
			p->loads = xstrdup(ph[i].loads);
			p->cache = xstrdup(ph[i].cache);
			init_loads(p);
			init_probes(p, &acc[p - rep->phases], probes, nprobes);
		}
		if (add_round(db, &ph[i], p, &acc[p - rep->phases], probes) < 0)
			goto fail;
	}
	if (attach_units(db, rep) < 0)
		goto fail;
	for (j = 0; j < rep->nphases; j++)
		finish_phase(&rep->phases[j], &acc[j]);
	free(acc);
	acc = NULL;

	rep->baseline = find_baseline(rep, ph, nph);
	for (j = 0; j < rep->nphases; j++) {
		struct report_phase *p = &rep->phases[j];
		double base = NAN;
		size_t k;

		for (k = 0; rep->baseline && k < rep->nphases; k++)
			if (rep->phases[k].name == rep->baseline)
				base = rep->phases[k].time.median;
		p->ratio = base > 0 ? p->time.median / base : NAN;
	}
	probe_ratios(rep);
	db_phase_rows_free(ph, nph);
	db_probes_free(probes, nprobes);
	return 0;
fail:
	if (acc != NULL) {
		for (j = 0; j < rep->nphases; j++)
			for (size_t k = 0; k < rep->phases[j].nprobe; k++) {
				free(acc[j].probes[k].values.v);
				free(acc[j].probes[k].hist);
			}
		acc_free(acc, rep->nphases);
	}
	db_phase_rows_free(ph, nph);
	db_probes_free(probes, nprobes);
	report_free(rep);
	return -1;
}

void report_free(struct run_report *rep)
{
	size_t i, j;

	for (i = 0; i < rep->nphases; i++) {
		struct report_phase *p = &rep->phases[i];

		for (j = 0; j < p->nload; j++) {
			free(p->load[j].name);
			free(p->load[j].type);
			free(p->load[j].cycle_unit);
			free(p->load[j].ops_unit);
			free(p->load[j].round_rates);
		}
		for (j = 0; j < p->nrounds; j++) {
			free(p->rounds[j].reason);
			free(p->rounds[j].weak);
		}
		free(p->weak);
		for (j = 0; j < p->nprobe; j++) {
			free(p->probe[j].name);
			free(p->probe[j].type);
			free(p->probe[j].units);
			free(p->probe[j].round_values);
			free(p->probe[j].round_len);
		}
		free(p->probe);
		free(p->load);
		free(p->rounds);
		free(p->name);
		free(p->loads);
		free(p->cache);
		free(p->note);
	}
	free(rep->phases);
	db_run_row_free(&rep->run);
	memset(rep, 0, sizeof *rep);
}

/* ---- text ---- */

static char *fmt_psi(double v)
{
	return isfinite(v) ? xasprintf("%.2f", v) : xstrdup("n/a");
}

static void format_start(double t, char *buf, size_t len)
{
	time_t secs = (time_t)t;
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S %z", &tm);
}

/* The header's strings came from a database that may have been copied from
 * anywhere: escaped (term_escape.h) before they reach a terminal. */
static void print_run_header(const struct run_row *r, FILE *out)
{
	char start[64], dur[32], ram[32], swap[32];
	char *status = term_escape(r->status), *name = term_escape(r->profile_name);
	char *path = term_escape(r->profile_path), *host = term_escape(r->host);
	char *kernel = term_escape(r->kernel), *cpu = term_escape(r->cpu_model);
	char *tree = term_escape(r->tree_fingerprint), *version = term_escape(r->version);

	format_start(r->started_at, start, sizeof start);
	format_bytes(r->ram_bytes, ram, sizeof ram);
	format_bytes(r->swap_bytes, swap, sizeof swap);
	if (r->ended_at > 0) {
		format_ms((int64_t)llround((r->ended_at - r->started_at) * 1000), dur, sizeof dur);
	} else {
		format_ms((int64_t)llround((wall_now() - r->started_at) * 1000), dur, sizeof dur);
		snprintf(dur + strlen(dur), sizeof dur - strlen(dur), " so far");
	}
	fprintf(out, "Run       %lld (%s)\n", (long long)r->id, status);
	if (r->profile_path[0] != '\0')
		fprintf(out, "Profile   %s (%s)\n", name, path);
	else
		fprintf(out, "Profile   %s\n", name);
	fprintf(out, "Host      %s\n", host);
	fprintf(out, "Kernel    %s\n", kernel);
	fprintf(out, "CPU       %s, %d core%s\n", cpu[0] ? cpu : "unknown", r->cores,
		r->cores == 1 ? "" : "s");
	fprintf(out, "RAM       %s, swap %s\n", ram, swap);
	fprintf(out, "Started   %s\n", start);
	fprintf(out, "Duration  %s, %ld round%s\n", dur, r->rounds, r->rounds == 1 ? "" : "s");
	fprintf(out, "Tree      %s\n", tree[0] ? tree : "-");
	if (version[0] != '\0')
		fprintf(out, "loadd     %s\n", version);
	free(status), free(name), free(path), free(host);
	free(kernel), free(cpu), free(tree), free(version);
}

static void print_phase_table(const struct run_report *rep, FILE *out)
{
	static const char *const head[] = {
		"Phase", "Time", "CPU%", "Loads", "LCPU%",  "Ratio",  "n",      "median",
		"p95",   "p99",  "max",  "sd",    "95% CI", "missed", "failed", "",
	};
	enum { NCOLS = sizeof head / sizeof head[0] };
	static const char align[] = "lrrrrrrrrrrrrrrl";
	_Static_assert(sizeof align - 1 == NCOLS, "one alignment per column");
	struct table t;
	size_t i;

	table_init(&t, head, align);
	for (i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];
		const struct summary *s = &p->time;
		char *c[NCOLS];
		char *lo = fmt_ms(s->ci_low), *hi = fmt_ms(s->ci_high);

		c[0] = xstrdup(p->name);
		c[1] = fmt_ms(s->median);
		c[2] = fmt_fixed(p->cpu_pct, 1);
		c[3] = fmt_count(p->load_cycles);
		c[4] = fmt_fixed(p->lcpu_pct, 1);
		c[5] = fmt_fixed(p->ratio, 2);
		c[6] = xasprintf("%zu", s->n);
		c[7] = fmt_ms(s->median);
		c[8] = fmt_ms(s->p95);
		c[9] = fmt_ms(s->p99);
		c[10] = fmt_ms(s->max);
		c[11] = fmt_ms(s->sd);
		c[12] = s->n ? xasprintf("%s..%s", lo, hi) : xstrdup("-");
		c[13] = xasprintf("%lld", (long long)p->missed);
		c[14] = xasprintf("%lld", (long long)p->failed);
		c[15] = xstrdup(p->note);
		free(lo);
		free(hi);
		table_row(&t, c);
	}
	table_print(&t, out);
	table_free(&t);
}

char *report_rate(double per_s, int width, const char *unit)
{
	char *num = fmt_count(per_s), *text;

	if (strcmp(num, "-") == 0 || unit == NULL)
		text = xasprintf("%*s", width, num);
	else
		text = xasprintf("%*s %s/s", width, num, unit);
	free(num);
	return text;
}

/* Under the table, when a phase is weak: what its Ratio does not say. */
static void print_weak_legend(const struct run_report *rep, FILE *out)
{
	for (size_t i = 0; i < rep->nphases; i++) {
		if (rep->phases[i].weak[0] != '\0') {
			fprintf(out,
				"WEAK: a load fell short of what it is expected to achieve "
				"(its expect =); that phase's Ratio does not\nsay how the system "
				"fares under that load.\n");
			return;
		}
	}
}

static void print_load_table(const struct run_report *rep, FILE *out)
{
	static const char *const head[] = {
		"Phase", "Load",  "Type",   "Cycles",   "Ops",
		"MiB/s", "LCPU%", "errors", "restarts", "",
	};
	enum { NCOLS = sizeof head / sizeof head[0] };
	static const char align[] = "lllllrrrrl";
	_Static_assert(sizeof align - 1 == NCOLS, "one alignment per column");
	struct table t;
	size_t i, j, n = 0, row;
	int cycles_width = 0, ops_width = 0;
	char **cycles, **ops;

	for (i = 0; i < rep->nphases; i++)
		n += rep->phases[i].nload;
	if (n == 0)
		return;
	/* The numbers first, for the widths their columns need. */
	cycles = xcalloc(n, sizeof *cycles);
	ops = xcalloc(n, sizeof *ops);
	for (i = 0, row = 0; i < rep->nphases; i++) {
		for (j = 0; j < rep->phases[i].nload; j++, row++) {
			const struct report_load *l = &rep->phases[i].load[j];

			cycles[row] = fmt_count(l->cycles_per_s);
			ops[row] = fmt_count(l->ops_per_s);
			if ((int)strlen(cycles[row]) > cycles_width)
				cycles_width = (int)strlen(cycles[row]);
			if ((int)strlen(ops[row]) > ops_width)
				ops_width = (int)strlen(ops[row]);
		}
	}
	fprintf(out, "\nLoads over the probe window (valid rounds)\n");
	table_init(&t, head, align);
	for (i = 0, row = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];

		for (j = 0; j < p->nload; j++, row++) {
			const struct report_load *l = &p->load[j];
			bool known = l->cycle_unit != NULL;
			const char *cycle_unit = known ? l->cycle_unit : "cycles";
			const char *ops_unit = known ? l->ops_unit : "ops";
			char *c[NCOLS];

			c[0] = xstrdup(j == 0 ? p->name : "");
			c[1] = xstrdup(l->name);
			c[2] = xstrdup(known ? l->type : "-");
			c[3] = report_rate(l->cycles_per_s, cycles_width, cycle_unit);
			c[4] = report_rate(l->ops_per_s, ops_width, ops_unit);
			c[5] = fmt_fixed(l->mib_per_s, 1);
			c[6] = fmt_fixed(l->lcpu_pct, 1);
			c[7] = l->windows ? xasprintf("%llu", (unsigned long long)l->errors)
					  : xstrdup("-");
			c[8] = l->windows ? xasprintf("%d", l->restarts) : xstrdup("-");
			if (l->windows)
				c[9] = xstrdup("");
			else if (p->valid_rounds)
				c[9] = xstrdup("no counters in the probe window");
			else
				c[9] = xstrdup("no valid round");
			free(cycles[row]);
			free(ops[row]);
			table_row(&t, c);
		}
	}
	free(cycles);
	free(ops);
	table_print(&t, out);
	table_free(&t);
}

static char *fmt_over(const struct report_probe *rp, uint64_t n)
{
	return rp->histogram ? xasprintf("%llu", (unsigned long long)n) : xstrdup("-");
}

/* "mq (ipcbw): 12 samples not measured, over the limit 8192
 * (fs.mqueue.msgsize_max)": once per probe, its samples of every phase. */
static void print_over_limit(const struct run_report *rep, FILE *out)
{
	size_t nprobe = rep->nphases > 0 ? rep->phases[0].nprobe : 0;

	for (size_t k = 0; k < nprobe; k++) {
		const struct report_probe *rp = &rep->phases[0].probe[k];
		int64_t n = 0, limit = 0;

		for (size_t i = 0; i < rep->nphases; i++)
			if (k < rep->phases[i].nprobe && rep->phases[i].probe[k].over_limit_n > 0) {
				n += rep->phases[i].probe[k].over_limit_n;
				limit = rep->phases[i].probe[k].over_limit;
			}
		if (n > 0)
			fprintf(out,
				"%s (%s): %lld samples not measured, over the limit %lld (%s)\n",
				rp->name, rp->type, (long long)n, (long long)limit,
				rp->limit_sysctl != NULL ? rp->limit_sysctl : "a system limit");
	}
}

/* One row per phase and probe that ran there; shown when the run has more
 * than its job probe (the phase table above is the job's). */
static void print_probes(const struct run_report *rep, FILE *out)
{
	static const char *const head[] = {
		"Phase", "Probe", "Type", "Unit",    "n",      "median", "p95",    "p99",
		"p99.9", "max",   ">1ms", ">16.7ms", ">100ms", "Ratio",  "missed", "failed",
	};
	enum { NCOLS = sizeof head / sizeof head[0] };
	static const char align[] = "llllrrrrrrrrrrrr";
	_Static_assert(sizeof align - 1 == NCOLS, "one alignment per column");
	struct table t;

	if (rep->nprobes < 2 && (rep->nprobes == 0 || rep->nphases == 0 ||
				 strcmp(rep->phases[0].probe[0].type, "job") == 0))
		return;
	fprintf(out, "\nProbes (valid rounds; each in its Unit; a histogram probe's median is "
		     "its p50)\n");
	table_init(&t, head, align);
	for (size_t i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];
		bool first = true;

		for (size_t k = 0; k < p->nprobe; k++) {
			const struct report_probe *rp = &p->probe[k];
			const struct summary *s = &rp->time;
			char *c[NCOLS];

			if (!rp->ran)
				continue;
			c[0] = xstrdup(first ? p->name : "");
			c[1] = xstrdup(rp->name);
			c[2] = xstrdup(rp->type);
			c[3] = xstrdup(rp->units);
			if (rp->histogram) {
				c[4] = xasprintf("%llu", (unsigned long long)rp->count);
				c[5] = fmt_ms(rp->p50);
				c[6] = xstrdup("-");
				c[7] = fmt_ms(rp->p99);
				c[8] = fmt_ms(rp->p999);
				c[9] = fmt_ms(rp->max);
			} else {
				c[4] = xasprintf("%zu", s->n);
				c[5] = fmt_ms(s->median);
				c[6] = fmt_ms(s->p95);
				c[7] = fmt_ms(s->p99);
				c[8] = xstrdup("-");
				c[9] = fmt_ms(s->max);
			}
			c[10] = fmt_over(rp, rp->over_1ms);
			c[11] = fmt_over(rp, rp->over_16ms);
			c[12] = fmt_over(rp, rp->over_100ms);
			c[13] = fmt_fixed(rp->ratio, 2);
			c[14] = rp->histogram ? xstrdup("-")
					      : xasprintf("%lld", (long long)rp->missed);
			c[15] = rp->histogram ? xstrdup("-")
					      : xasprintf("%lld", (long long)rp->failed);
			table_row(&t, c);
			first = false;
		}
	}
	table_print(&t, out);
	table_free(&t);
	if (rep->baseline != NULL)
		fprintf(out,
			"Ratio = median / %s's median of the same probe (histogram probes: "
			"p99 / p99); >1ms, >16.7ms, >100ms: wake-ups later than that.\n",
			rep->baseline);
	print_over_limit(rep, out);
}

static const struct report_phase *phase_named(const struct run_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->nphases; i++)
		if (strcmp(rep->phases[i].name, name) == 0)
			return &rep->phases[i];
	return NULL;
}

/* The steps of a knee search that ran, in order (their phase rows); how many. */
static size_t ramp_steps(const struct run_report *rep, const struct phase_def *ph,
			 const struct report_phase **steps)
{
	size_t nrun = 0;

	for (size_t s = 0; s < ph->ramp.nsteps; s++) {
		char *name = xasprintf("%s@%s", ph->name, ph->ramp.values[s]);
		const struct report_phase *p = phase_named(rep, name);

		free(name);
		if (p == NULL)
			break;
		steps[nrun++] = p;
	}
	return nrun;
}

/* The first step at which until holds (nrun when none did): the knee is the
 * step before it. */
static size_t ramp_first_bad(const struct phase_def *ph, const struct report_phase *const *steps,
			     size_t nrun)
{
	for (size_t i = 0; i < nrun; i++)
		if (until_met(&ph->until, steps[i]->time.median, steps[i]->time.p95,
			      steps[i]->ratio))
			return i;
	return nrun;
}

/* The throughput of a step's loads, cycles per second (NaN with no load). */
static double ramp_step_rate(const struct report_phase *p)
{
	double rate = 0;

	for (size_t l = 0; l < p->nload; l++)
		rate += isnan(p->load[l].cycles_per_s) ? 0 : p->load[l].cycles_per_s;
	return p->nload ? rate : NAN;
}

/* The knee: the last step before the first at which until holds. */
static void print_knee(const struct phase_def *ph, const struct report_phase *const *steps,
		       size_t nrun, FILE *out)
{
	char cond[128];
	size_t first_bad;

	until_format(&ph->until, cond, sizeof cond);
	if (ph->until.nterms == 0) {
		fprintf(out, "Knee: not judged (no until =); %zu of %zu steps ran.\n", nrun,
			ph->ramp.nsteps);
		return;
	}
	first_bad = ramp_first_bad(ph, steps, nrun);
	if (first_bad == 0)
		fprintf(out, "Knee: none: the first step (%s = %s) already has %s.\n", ph->ramp.key,
			ph->ramp.values[0], cond);
	else if (first_bad == nrun)
		fprintf(out, "Knee: beyond the last step run (%s = %s): no step had %s.\n",
			ph->ramp.key, ph->ramp.values[nrun - 1], cond);
	else
		fprintf(out,
			"Knee: step %zu, %s = %s, the last acceptable step (step %zu, %s = %s, "
			"has %s).\n",
			first_bad, ph->ramp.key, ph->ramp.values[first_bad - 1], first_bad + 1,
			ph->ramp.key, ph->ramp.values[first_bad], cond);
}

/* Each knee search of the profile: its steps in order, then its knee. */
static void print_ramps(const struct run_report *rep, FILE *out)
{
	static const char *const head[] = { "Step",  "Value",    "median", "p95",
					    "Ratio", "Cycles/s", "LCPU%",  "PSI cpu" };
	struct profile prof;

	if (profile_parse_text(rep->run.profile_path, rep->run.profile_text, &prof, NULL, NULL) !=
	    0)
		return;
	for (size_t i = 0; i < prof.nphases; i++) {
		const struct phase_def *ph = &prof.phases[i];
		const struct report_phase *steps[RAMP_MAX_STEPS];
		size_t nrun;
		struct table t;

		if (ph->ramp.nsteps == 0)
			continue;
		nrun = ramp_steps(rep, ph, steps);
		fprintf(out, "\nKnee search %s: %s.%s over %zu steps (times in ms)\n", ph->name,
			ph->ramp.load, ph->ramp.key, ph->ramp.nsteps);
		table_init(&t, head, "rlrrrrrr");
		for (size_t s = 0; s < nrun; s++) {
			const struct report_phase *p = steps[s];
			char *c[8];

			c[0] = xasprintf("%zu", s + 1);
			c[1] = xstrdup(ph->ramp.values[s]);
			c[2] = fmt_ms(p->time.median);
			c[3] = fmt_ms(p->time.p95);
			c[4] = fmt_fixed(p->ratio, 2);
			c[5] = fmt_count(ramp_step_rate(p));
			c[6] = fmt_fixed(p->lcpu_pct, 1);
			c[7] = fmt_fixed(p->psi_cpu, 1);
			table_row(&t, c);
		}
		table_print(&t, out);
		table_free(&t);
		print_knee(ph, steps, nrun, out);
	}
	profile_free(&prof);
}

static void print_pressure(const struct run_report *rep, FILE *out)
{
	static const char *const head[] = { "Phase", "cpu", "memory", "io" };
	enum { NCOLS = sizeof head / sizeof head[0] };
	static const char align[] = "lrrr";
	_Static_assert(sizeof align - 1 == NCOLS, "one alignment per column");
	struct table t;
	size_t i;

	fprintf(out, "\nPressure stall (PSI some, %% of the time, mean over the probe window)\n");
	table_init(&t, head, align);
	for (i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];
		char *c[NCOLS];

		c[0] = xstrdup(p->name);
		c[1] = fmt_psi(p->psi_cpu);
		c[2] = fmt_psi(p->psi_mem);
		c[3] = fmt_psi(p->psi_io);
		table_row(&t, c);
	}
	table_print(&t, out);
	table_free(&t);
}

int report_print(struct db *db, int64_t run_id, FILE *out)
{
	struct run_report rep;
	int rc = report_build(db, run_id, &rep);

	if (rc != 0)
		return rc;
	print_run_header(&rep.run, out);
	fputc('\n', out);
	if (rep.nphases == 0) {
		fprintf(out, "No phase has started yet.\n");
	} else {
		print_phase_table(&rep, out);
		if (rep.baseline == NULL)
			fprintf(out, "(no phase without loads: no Ratio)\n");
		else
			fprintf(out,
				"Times: the job's wall time in ms (Time = median); Ratio = median "
				"/ %s's median;\nLoads: load cycles in the probe window; LCPU%%: the "
				"loads' CPU time / the window's time.\n",
				rep.baseline);
		print_weak_legend(&rep, out);
		print_ramps(&rep, out);
		print_probes(&rep, out);
		report_latency_print(&rep, out);
		report_study_print(db, &rep, out);
		print_load_table(&rep, out);
		print_pressure(&rep, out);
	}
	report_free(&rep);
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}

/* ---- JSON ---- */

/* A figure that does not exist is null, never 0. */
static json_t *jstr_or_null(const char *s)
{
	return s && *s ? json_text(s) : json_null();
}

static json_t *jint(int64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *json_summary(const struct summary *s)
{
	json_t *o = json_object();

	json_set(o, "n", jint((int64_t)s->n));
	json_set(o, "mean", json_real_or_null(s->mean));
	json_set(o, "sd", json_real_or_null(s->sd));
	json_set(o, "min", json_real_or_null(s->min));
	json_set(o, "median", json_real_or_null(s->median));
	json_set(o, "p95", json_real_or_null(s->p95));
	json_set(o, "p99", json_real_or_null(s->p99));
	json_set(o, "max", json_real_or_null(s->max));
	json_set(o, "ci_low", json_real_or_null(s->ci_low));
	json_set(o, "ci_high", json_real_or_null(s->ci_high));
	return o;
}

static json_t *json_load(const struct report_load *l)
{
	json_t *o = json_object();

	json_set(o, "name", json_text(l->name));
	json_set(o, "type", jstr_or_null(l->type));
	json_set(o, "cycle_unit", jstr_or_null(l->cycle_unit));
	json_set(o, "ops_unit", jstr_or_null(l->ops_unit));
	json_set(o, "windows", jint((int64_t)l->windows));
	json_set(o, "seconds", json_real_or_null(l->seconds));
	json_set(o, "cycles", jint((int64_t)l->cycles));
	json_set(o, "bytes", jint((int64_t)l->bytes));
	json_set(o, "ops", jint((int64_t)l->ops));
	json_set(o, "errors", jint((int64_t)l->errors));
	json_set(o, "cpu_ms", json_real_or_null(l->cpu_ms));
	json_set(o, "restarts", jint(l->restarts));
	json_set(o, "cycles_per_s", json_real_or_null(l->cycles_per_s));
	json_set(o, "mib_per_s", json_real_or_null(l->mib_per_s));
	json_set(o, "ops_per_s", json_real_or_null(l->ops_per_s));
	json_set(o, "lcpu_pct", json_real_or_null(l->lcpu_pct));
	return o;
}

static json_t *json_round(const struct report_round *r)
{
	json_t *o = json_object();

	json_set(o, "round", jint(r->round));
	json_set(o, "phase_id", jint(r->phase_id));
	json_set(o, "valid", json_boolean(r->valid));
	json_set(o, "finished", json_boolean(r->finished));
	json_set(o, "invalid_reason", jstr_or_null(r->reason));
	json_set(o, "weak", jstr_or_null(r->weak));
	json_set(o, "samples", jint((int64_t)r->samples));
	return o;
}

static json_t *json_probe(const struct report_probe *rp)
{
	json_t *o = json_object();

	json_set(o, "name", json_string(rp->name));
	json_set(o, "type", json_string(rp->type));
	json_set(o, "histogram", json_boolean(rp->histogram));
	json_set(o, "ran", json_boolean(rp->ran));
	json_set(o, "ratio", json_real_or_null(rp->ratio));
	if (!rp->histogram) {
		json_set(o, "time_ms", json_summary(&rp->time));
		json_set(o, "missed", jint(rp->missed));
		json_set(o, "failed", jint(rp->failed));
		json_set(o, "over_limit_samples", jint(rp->over_limit_n));
		json_set(o, "over_limit",
			 rp->over_limit_n > 0 ? jint(rp->over_limit) : json_null());
		json_set(o, "limit_sysctl",
			 rp->over_limit_n > 0 && rp->limit_sysctl != NULL
				 ? json_string(rp->limit_sysctl)
				 : json_null());
		if (rp->count > 0)
			json_set(o, "latency", report_latency_json(rp));
		return o;
	}
	json_set(o, "count", jint((int64_t)rp->count));
	json_set(o, "p50_ms", json_real_or_null(rp->p50));
	json_set(o, "p99_ms", json_real_or_null(rp->p99));
	json_set(o, "p999_ms", json_real_or_null(rp->p999));
	json_set(o, "max_ms", json_real_or_null(rp->max));
	json_set(o, "mean_ms", json_real_or_null(rp->mean));
	json_set(o, "over_1ms", jint((int64_t)rp->over_1ms));
	json_set(o, "over_16_7ms", jint((int64_t)rp->over_16ms));
	json_set(o, "over_100ms", jint((int64_t)rp->over_100ms));
	json_set(o, "steal_pct", json_real_or_null(rp->steal_pct));
	return o;
}

static json_t *json_phase(const struct report_phase *p)
{
	json_t *o = json_object(), *psi = json_object(), *loads = json_array();
	json_t *rounds = json_array(), *probes = json_array();
	size_t i;

	for (i = 0; i < p->nprobe; i++)
		json_array_append_new(probes, json_probe(&p->probe[i]));
	for (i = 0; i < p->nload; i++)
		json_array_append_new(loads, json_load(&p->load[i]));
	for (i = 0; i < p->nrounds; i++)
		json_array_append_new(rounds, json_round(&p->rounds[i]));
	json_set(psi, "cpu", json_real_or_null(p->psi_cpu));
	json_set(psi, "memory", json_real_or_null(p->psi_mem));
	json_set(psi, "io", json_real_or_null(p->psi_io));

	json_set(o, "name", json_text(p->name));
	json_set(o, "loads", json_text(p->loads));
	json_set(o, "cache", json_text(p->cache));
	json_set(o, "valid", json_boolean(p->valid_rounds == p->nrounds));
	json_set(o, "note", jstr_or_null(p->note));
	json_set(o, "weak", jstr_or_null(p->weak));
	json_set(o, "valid_rounds", jint((int64_t)p->valid_rounds));
	json_set(o, "time_ms", json_summary(&p->time));
	json_set(o, "cpu_pct", json_real_or_null(p->cpu_pct));
	json_set(o, "load_cycles", json_real_or_null(p->load_cycles));
	json_set(o, "lcpu_pct", json_real_or_null(p->lcpu_pct));
	json_set(o, "ratio", json_real_or_null(p->ratio));
	json_set(o, "missed", jint(p->missed));
	json_set(o, "failed", jint(p->failed));
	json_set(o, "psi_some", psi);
	json_set(o, "load_stats", loads);
	json_set(o, "probes", probes);
	json_set(o, "rounds", rounds);
	return o;
}

/* One knee search: its steps with the ramp table's figures, its condition
 * and its knee (the last acceptable step; null when none was, or when not
 * judged), with "knee_found" saying which. */
static json_t *json_ramp(const struct run_report *rep, const struct phase_def *ph)
{
	const struct report_phase *steps[RAMP_MAX_STEPS];
	size_t nrun = ramp_steps(rep, ph, steps), first_bad;
	json_t *o = json_object(), *a = json_array();
	char cond[128];

	for (size_t s = 0; s < nrun; s++) {
		json_t *st = json_object();

		json_set(st, "step", jint((int64_t)s + 1));
		json_set(st, "value", json_text(ph->ramp.values[s]));
		json_set(st, "phase", json_text(steps[s]->name));
		json_set(st, "median_ms", json_real_or_null(steps[s]->time.median));
		json_set(st, "p95_ms", json_real_or_null(steps[s]->time.p95));
		json_set(st, "ratio", json_real_or_null(steps[s]->ratio));
		json_set(st, "cycles_per_s", json_real_or_null(ramp_step_rate(steps[s])));
		json_set(st, "lcpu_pct", json_real_or_null(steps[s]->lcpu_pct));
		json_set(st, "psi_cpu", json_real_or_null(steps[s]->psi_cpu));
		json_set(st, "weak", jstr_or_null(steps[s]->weak));
		json_array_append_new(a, st);
	}
	until_format(&ph->until, cond, sizeof cond);
	json_set(o, "phase", json_text(ph->name));
	json_set(o, "load", json_text(ph->ramp.load));
	json_set(o, "key", json_text(ph->ramp.key));
	json_set(o, "planned_steps", jint((int64_t)ph->ramp.nsteps));
	json_set(o, "until", jstr_or_null(cond));
	json_set(o, "steps", a);
	/* "found", "none" (the first step already failed), "beyond" (no step
	 * did), "not judged" (no until) */
	first_bad = ramp_first_bad(ph, steps, nrun);
	if (ph->until.nterms == 0 || nrun == 0) {
		json_set(o, "knee_found", json_text("not judged"));
		json_set(o, "knee", json_null());
	} else if (first_bad == 0) {
		json_set(o, "knee_found", json_text("none"));
		json_set(o, "knee", json_null());
	} else {
		json_t *k = json_object();

		json_set(o, "knee_found", json_text(first_bad == nrun ? "beyond" : "found"));
		json_set(k, "step", jint((int64_t)first_bad));
		json_set(k, "value", json_text(ph->ramp.values[first_bad - 1]));
		json_set(o, "knee", k);
	}
	return o;
}

/* Every knee search of the run's profile (as it was stored with the run). */
static json_t *json_ramps(const struct run_report *rep)
{
	json_t *a = json_array();
	struct profile prof;

	if (profile_parse_text(rep->run.profile_path, rep->run.profile_text, &prof, NULL, NULL) !=
	    0)
		return a;
	for (size_t i = 0; i < prof.nphases; i++)
		if (prof.phases[i].ramp.nsteps > 0)
			json_array_append_new(a, json_ramp(rep, &prof.phases[i]));
	profile_free(&prof);
	return a;
}

static json_t *json_run_row(const struct run_row *r)
{
	json_t *o = json_object();
	bool ended = r->ended_at > 0;

	json_set(o, "id", jint(r->id));
	json_set(o, "status", json_text(r->status));
	json_set(o, "profile", json_text(r->profile_name));
	json_set(o, "profile_path", jstr_or_null(r->profile_path));
	json_set(o, "host", json_text(r->host));
	json_set(o, "kernel", json_text(r->kernel));
	json_set(o, "cpu_model", json_text(r->cpu_model));
	json_set(o, "cores", jint(r->cores));
	json_set(o, "ram_bytes", jint((int64_t)r->ram_bytes));
	json_set(o, "swap_bytes", jint((int64_t)r->swap_bytes));
	json_set(o, "tree_fingerprint", jstr_or_null(r->tree_fingerprint));
	json_set(o, "version", jstr_or_null(r->version));
	json_set(o, "rounds", jint(r->rounds));
	json_set(o, "planned_ms", jint(r->planned_ms));
	json_set(o, "started_at", json_real_or_null(r->started_at));
	json_set(o, "ended_at", ended ? json_real(r->ended_at) : json_null());
	json_set(o, "duration_s", ended ? json_real(r->ended_at - r->started_at) : json_null());
	return o;
}

int report_json(struct db *db, int64_t run_id, FILE *out)
{
	struct run_report rep;
	json_t *root, *phases;
	size_t i;
	int rc = report_build(db, run_id, &rep);

	if (rc != 0)
		return rc;
	phases = json_array();
	for (i = 0; i < rep.nphases; i++)
		json_array_append_new(phases, json_phase(&rep.phases[i]));
	root = json_object();
	json_set(root, "run", json_run_row(&rep.run));
	json_set(root, "baseline", jstr_or_null(rep.baseline));
	json_set(root, "phases", phases);
	json_set(root, "studies", report_study_json(db, &rep));
	json_set(root, "ramps", json_ramps(&rep));
	report_free(&rep);
	rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	json_decref(root);
	if (rc == 0)
		fputc('\n', out);
	return rc != 0 || fflush(out) != 0 || ferror(out) ? -1 : 0;
}

/* ---- samples ---- */

int report_phase_round_walls(struct db *db, const struct report_phase *p, double **out,
			     size_t **len, size_t *nrounds)
{
	struct dvec walls = { 0 };
	size_t i, j;

	*len = xcalloc(p->nrounds + 1, sizeof **len);
	*nrounds = 0;
	for (i = 0; i < p->nrounds; i++) {
		struct sample *s;
		size_t ns, before = walls.n;

		if (!p->rounds[i].valid)
			continue;
		if (db_samples_list(db, p->rounds[i].phase_id, &s, &ns) < 0) {
			free(walls.v);
			free(*len);
			*len = NULL;
			return -1;
		}
		/* the rule add_round applies to p->time */
		for (j = 0; j < ns; j++)
			if (!s[j].failed && !isnan(s[j].wall_ms))
				dvec_push(&walls, s[j].wall_ms);
		free(s);
		(*len)[(*nrounds)++] = walls.n - before;
	}
	*out = walls.v;
	return 0;
}

int report_phase_walls(struct db *db, const struct report_phase *p, double **out, size_t *n)
{
	struct dvec walls = { 0 };
	size_t i, j;

	for (i = 0; i < p->nrounds; i++) {
		struct sample *s;
		size_t ns;

		if (!p->rounds[i].valid)
			continue;
		if (db_samples_list(db, p->rounds[i].phase_id, &s, &ns) < 0) {
			free(walls.v);
			return -1;
		}
		/* the rule add_round applies to p->time */
		for (j = 0; j < ns; j++)
			if (!s[j].failed && !isnan(s[j].wall_ms))
				dvec_push(&walls, s[j].wall_ms);
		free(s);
	}
	*out = walls.v;
	*n = walls.n;
	return 0;
}
