// SPDX-License-Identifier: GPL-2.0-or-later
/* The probe: the job's response times in the current phase. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "view.h"

/* Wake-ups are tens of microseconds: below 1 ms in us. */
static void fmt_time(char *buf, size_t len, double ms)
{
	if (isnan(ms))
		snprintf(buf, len, "-");
	else if (ms < 1)
		snprintf(buf, len, "%.0f us", ms * 1000);
	else
		snprintf(buf, len, "%.1f ms", ms);
}

/* A figure in a probe's own units (us, ns: the primitive probes). */
static void fmt_figure(char *buf, size_t len, double v, const char *units)
{
	if (strcmp(units, "ms") == 0)
		fmt_time(buf, len, v);
	else if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f %s", v < 100 ? 2 : 1, v, units);
}

/* Another probe: its figures over the phase, then its history (each
 * operation's figure, or each second's p99 for a histogram probe). */
static void probe_line(struct text *t, const struct probe_line *pl)
{
	char last[32], p50[32], p99[32], max[32];

	fmt_figure(last, sizeof last, pl->last_ms, pl->units);
	fmt_figure(p50, sizeof p50, pl->p50, pl->units);
	fmt_figure(p99, sizeof p99, pl->p99, pl->units);
	fmt_figure(max, sizeof max, pl->max, pl->units);
	text_line(t);
	text_addf(t, TC_TITLE, "%s", pl->name);
	if (strcmp(pl->name, pl->type) != 0)
		text_addf(t, TC_DIM, " (%s)", pl->type);
	if (!pl->histogram) {
		text_add(t, TC_HEAD, "  last ");
		text_add(t, TC_VALUE, last);
	}
	text_add(t, TC_HEAD, pl->histogram ? "  p50 " : "  median ");
	text_add(t, TC_VALUE, p50);
	text_add(t, TC_HEAD, "  p99 ");
	text_add(t, TC_VALUE, p99);
	text_add(t, TC_HEAD, "  max ");
	text_add(t, TC_NORMAL, max);
	text_add(t, TC_HEAD, pl->histogram ? "  wake-ups " : "  n ");
	text_addf(t, TC_NORMAL, "%zu", pl->n);
	if (!pl->histogram) {
		text_add(t, TC_HEAD, "  failed ");
		text_addf(t, pl->failed ? TC_BAD : TC_NORMAL, "%zu", pl->failed);
	}
	text_line(t);
	text_add(t, TC_HEAD, pl->histogram ? "p99/s   " : "history ");
	if (pl->nrecent == 0)
		text_add(t, TC_DIM, "nothing yet");
	else
		sparkline_values(t, pl->recent, pl->recent_failed, pl->nrecent, t->width - 8);
}

static void probe_update(const struct snapshot *s, struct text *t)
{
	const struct phase_view *ph = snapshot_phase(s);
	char *last, *median, *p95, cpu[32];

	text_line(t);
	text_add(t, TC_TITLE, "Probe");
	if (ph == NULL) {
		text_line(t);
		text_add(t, TC_DIM, "no phase started yet");
		return;
	}
	text_addf(t, TC_NORMAL, "  phase %s, round %ld", ph->name, ph->round);

	last = fmt_fixed(ph->last_ms, 1);
	median = fmt_fixed(ph->median, 1);
	p95 = fmt_fixed(ph->p95, 1);
	fmt_num(cpu, sizeof cpu, ph->cpu_pct, 1);
	text_line(t);
	text_add(t, TC_HEAD, "last ");
	text_addf(t, TC_VALUE, "%s ms", last);
	text_add(t, TC_HEAD, "  median ");
	text_addf(t, TC_VALUE, "%s ms", median);
	text_add(t, TC_HEAD, "  p95 ");
	text_addf(t, TC_VALUE, "%s ms", p95);
	free(last);
	free(median);
	free(p95);
	text_add(t, TC_HEAD, "  cpu% ");
	text_add(t, TC_NORMAL, cpu);
	text_add(t, TC_HEAD, "  jobs ");
	text_addf(t, TC_NORMAL, "%zu", ph->n);
	text_add(t, TC_HEAD, "  missed ");
	text_addf(t, ph->missed ? TC_WARN : TC_NORMAL, "%lld", (long long)ph->missed);
	text_add(t, TC_HEAD, "  failed ");
	text_addf(t, ph->failed ? TC_BAD : TC_NORMAL, "%zu", ph->failed);

	text_line(t);
	text_add(t, TC_HEAD, "history ");
	if (s->nrecent == 0)
		text_add(t, TC_DIM, ph->probe_start > 0 ? "waiting for the first job" : "settling");
	else
		sparkline(t, s, t->width - 8);
	for (size_t i = 0; i < s->nprobes; i++)
		probe_line(t, &s->probes[i]);
}

const struct panel_ops panel_probe_ops = {
	.name = "probe",
	.update = probe_update,
	.draw = text_draw_titled,
};
