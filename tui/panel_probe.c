// SPDX-License-Identifier: GPL-2.0-or-later
/* The probe: the job's response times in the current phase. */
#include <math.h>
#include <stdio.h>

#include "view.h"

static void probe_update(const struct snapshot *s, struct text *t)
{
	const struct phase_view *ph = snapshot_phase(s);
	char last[32], median[32], p95[32], cpu[32];

	text_line(t);
	text_add(t, TC_TITLE, "Probe");
	if (ph == NULL) {
		text_line(t);
		text_add(t, TC_DIM, "no phase started yet");
		return;
	}
	text_addf(t, TC_NORMAL, "  phase %s, round %ld", ph->name, ph->round);

	fmt_ms(last, sizeof last, ph->last_ms);
	fmt_ms(median, sizeof median, ph->median);
	fmt_ms(p95, sizeof p95, ph->p95);
	fmt_num(cpu, sizeof cpu, ph->cpu_pct, 1);
	text_line(t);
	text_add(t, TC_HEAD, "last ");
	text_add(t, TC_VALUE, last);
	text_add(t, TC_HEAD, "  median ");
	text_add(t, TC_VALUE, median);
	text_add(t, TC_HEAD, "  p95 ");
	text_add(t, TC_VALUE, p95);
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
}

const struct panel_ops panel_probe_ops = {
	.name = "probe",
	.update = probe_update,
	.draw = text_draw_titled,
};
