// SPDX-License-Identifier: GPL-2.0-or-later
/* The phases so far: each one's median and its ratio to the no-load phase,
 * the way the report will show them. */
#include <stdio.h>

#include "view.h"

enum {
	COL_PHASE = 6,
	COL_N = 22,
	COL_MEDIAN = 28,
	COL_P95 = 39,
	COL_RATIO = 50,
	COL_MISSED = 57,
	COL_FAILED = 64,
	COL_NOTE = 71
};

static void phases_update(const struct snapshot *s, struct text *t)
{
	char num[32];

	text_line(t);
	text_add(t, TC_TITLE, "Phases so far");
	text_line(t);
	text_add(t, TC_HEAD, "round");
	text_pad(t, COL_PHASE);
	text_add(t, TC_HEAD, "phase");
	text_pad(t, COL_N);
	text_add(t, TC_HEAD, "n");
	text_pad(t, COL_MEDIAN);
	text_add(t, TC_HEAD, "median ms");
	text_pad(t, COL_P95);
	text_add(t, TC_HEAD, "p95 ms");
	text_pad(t, COL_RATIO);
	text_add(t, TC_HEAD, "ratio");
	text_pad(t, COL_MISSED);
	text_add(t, TC_HEAD, "missed");
	text_pad(t, COL_FAILED);
	text_add(t, TC_HEAD, "failed");
	t->sticky = 2;
	if (s->nphases == 0) {
		text_line(t);
		text_add(t, TC_DIM, "none yet");
		return;
	}
	for (size_t i = 0; i < s->nphases; i++) {
		const struct phase_view *p = &s->phases[i];
		bool open = !p->done;

		text_line(t);
		text_addf(t, TC_NORMAL, "%ld", p->round);
		text_pad(t, COL_PHASE);
		text_addf(t, p->valid ? TC_VALUE : TC_BAD, "%.15s", p->name);
		text_pad(t, COL_N);
		text_addf(t, TC_NORMAL, "%zu", p->n);
		text_pad(t, COL_MEDIAN);
		fmt_num(num, sizeof num, p->median, 1);
		text_add(t, TC_VALUE, p->n ? num : "-");
		text_pad(t, COL_P95);
		fmt_num(num, sizeof num, p->p95, 1);
		text_add(t, TC_NORMAL, p->n ? num : "-");
		text_pad(t, COL_RATIO);
		fmt_num(num, sizeof num, p->ratio, 2);
		text_add(t, p->ratio >= 2 ? TC_WARN : TC_VALUE, num);
		text_pad(t, COL_MISSED);
		text_addf(t, p->missed ? TC_WARN : TC_NORMAL, "%lld", (long long)p->missed);
		text_pad(t, COL_FAILED);
		text_addf(t, p->failed ? TC_BAD : TC_NORMAL, "%zu", p->failed);
		text_pad(t, COL_NOTE);
		if (!p->valid)
			text_addf(t, TC_BAD, "INVALID: %s", p->invalid_reason);
		else if (p->weak[0] != '\0')
			text_addf(t, TC_WARN, "WEAK: %s", p->weak);
		else if (open)
			text_add(t, TC_GOOD, p->probe_start > 0 ? "probing" : "settling");
		else if (p->ended_at == 0)
			text_add(t, TC_WARN, "cut short");
	}
}

const struct panel_ops panel_phases_ops = {
	.name = "phases",
	.scrolls = true,
	.tail = true,
	.update = phases_update,
	.draw = text_draw_titled,
};
