// SPDX-License-Identifier: GPL-2.0-or-later
/* The loads of the current phase: state, size, throughput, CPU. */
#include <stdio.h>

#include "view.h"

/* Column starts: the whole table fits 80 columns. */
enum {
	COL_TYPE = 12,
	COL_STATE = 20,
	COL_PROCS = 29,
	COL_RATE = 35,
	COL_CPU = 52,
	COL_RESTARTS = 59,
	COL_ERRORS = 68,
	COL_STALL = 75
};

static enum tclass state_class(enum load_state st)
{
	switch (st) {
	case LOAD_RUNNING: return TC_GOOD;
	case LOAD_STALLED: return TC_BAD;
	case LOAD_STOPPED: return TC_DIM;
	default: return TC_NORMAL;
	}
}

static void loads_update(const struct snapshot *s, struct text *t)
{
	const struct phase_view *ph = snapshot_phase(s);
	char num[32];

	text_line(t);
	text_add(t, TC_TITLE, "Loads");
	if (ph != NULL)
		text_addf(t, TC_NORMAL, "  phase %s", ph->name);
	if (s->nloads == 0) {
		text_line(t);
		text_add(t, TC_DIM, ph ? "no loads in this phase" : "no phase started yet");
		return;
	}
	text_line(t);
	text_add(t, TC_HEAD, "load");
	text_pad(t, COL_TYPE);
	text_add(t, TC_HEAD, "type");
	text_pad(t, COL_STATE);
	text_add(t, TC_HEAD, "state");
	text_pad(t, COL_PROCS);
	text_add(t, TC_HEAD, "procs");
	text_pad(t, COL_RATE);
	text_add(t, TC_HEAD, "throughput");
	text_pad(t, COL_CPU);
	text_add(t, TC_HEAD, "cpu%");
	text_pad(t, COL_RESTARTS);
	text_add(t, TC_HEAD, "restarts");
	text_pad(t, COL_ERRORS);
	text_add(t, TC_HEAD, "errors");
	text_pad(t, COL_STALL);
	text_add(t, TC_HEAD, "stall");
	for (size_t i = 0; i < s->nloads; i++) {
		const struct load_view *l = &s->loads[i];

		text_line(t);
		text_addf(t, TC_VALUE, "%.11s", l->name);
		text_pad(t, COL_TYPE);
		text_addf(t, TC_NORMAL, "%.7s", l->type);
		text_pad(t, COL_STATE);
		text_add(t, state_class(l->state), load_state_name(l->state));
		text_pad(t, COL_PROCS);
		text_addf(t, TC_NORMAL, "%d", l->procs);
		text_pad(t, COL_RATE);
		fmt_num(num, sizeof num, l->rate, 1);
		text_addf(t, TC_VALUE, "%s %s", num, l->unit);
		text_pad(t, COL_CPU);
		fmt_num(num, sizeof num, l->cpu_pct, 1);
		text_add(t, TC_NORMAL, num);
		text_pad(t, COL_RESTARTS);
		text_addf(t, l->restarts ? TC_WARN : TC_NORMAL, "%d", l->restarts);
		text_pad(t, COL_ERRORS);
		text_addf(t, l->errors ? TC_WARN : TC_NORMAL, "%llu",
			  (unsigned long long)l->errors);
		text_pad(t, COL_STALL);
		text_add(t, l->stalled ? TC_BAD : TC_DIM, l->stalled ? "yes" : "-");
	}
}

const struct panel_ops panel_loads_ops = {
	.name = "loads",
	.update = loads_update,
	.draw = text_draw_titled,
};
