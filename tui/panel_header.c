// SPDX-License-Identifier: GPL-2.0-or-later
/* The header: which run, where, how far it got. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "timeutil.h"
#include "view.h"

/* No new row for this long while the run says running: loadd may be gone. */
#define STALE_AFTER_S 5.0

static enum tclass status_class(const char *status)
{
	if (strcmp(status, "running") == 0)
		return TC_GOOD;
	if (strcmp(status, "complete") == 0)
		return TC_VALUE;
	if (strcmp(status, "aborted") == 0)
		return TC_WARN;
	return TC_BAD;
}

static const char *phase_state(const struct snapshot *s, const struct phase_view *ph)
{
	if (!snapshot_running(s))
		return "run over";
	if (ph->done)
		return "between phases";
	return ph->probe_start > 0 ? "probing" : "settling";
}

static void header_update(const struct snapshot *s, struct text *t)
{
	const struct phase_view *ph = snapshot_phase(s);
	bool running = snapshot_running(s);
	char elapsed[32], planned[32], remaining[32], when[32];
	double elapsed_s = fmax(s->now - s->run.started_at, 0);
	int64_t left_ms = s->run.planned_ms - (int64_t)(elapsed_s * 1000);

	text_line(t);
	text_add(t, TC_TITLE, "loadtop");
	text_addf(t, TC_NORMAL, "  run %lld  ", (long long)s->run.id);
	text_add(t, status_class(s->run.status), s->run.status);
	text_add(t, TC_HEAD, "  profile ");
	text_add(t, TC_VALUE, s->run.profile_name);
	text_add(t, TC_HEAD, "  host ");
	text_add(t, TC_NORMAL, s->run.host);
	text_add(t, TC_HEAD, "  kernel ");
	text_add(t, TC_NORMAL, s->run.kernel);

	text_line(t);
	if (ph != NULL) {
		text_add(t, TC_HEAD, "round ");
		text_addf(t, TC_VALUE, "%ld/%ld", ph->round, s->run.rounds);
		text_add(t, TC_HEAD, "  phase ");
		if (s->phases_per_round > 0)
			text_addf(t, TC_VALUE, "%ld/%zu ", ph->seq + 1, s->phases_per_round);
		text_add(t, TC_VALUE, ph->name);
		text_addf(t, TC_NORMAL, " (%s)", phase_state(s, ph));
	} else {
		text_add(t, TC_DIM, "no phase started yet");
	}
	format_ms((int64_t)(elapsed_s * 1000), elapsed, sizeof elapsed);
	format_ms(s->run.planned_ms, planned, sizeof planned);
	if (running) {
		format_ms(left_ms > 0 ? left_ms : 0, remaining, sizeof remaining);
		text_add(t, TC_HEAD, "  elapsed ");
		text_add(t, TC_NORMAL, elapsed);
		text_add(t, TC_HEAD, "  remaining ");
		text_addf(t, TC_NORMAL, "%s of %s", remaining, planned);
		if (s->now - s->last_data > STALE_AFTER_S)
			text_addf(t, TC_WARN, "  no new data for %.0f s", s->now - s->last_data);
	} else {
		format_wall(s->now, when, sizeof when);
		text_add(t, TC_HEAD, "  took ");
		text_addf(t, TC_NORMAL, "%s (planned %s)", elapsed, planned);
		text_add(t, TC_HEAD, "  ended ");
		text_add(t, TC_NORMAL, when);
	}
}

const struct panel_ops panel_header_ops = {
	.name = "header",
	.update = header_update,
	.draw = text_draw,
};
