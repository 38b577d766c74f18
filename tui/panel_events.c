// SPDX-License-Identifier: GPL-2.0-or-later
/* The latest events: restarts, OOM kills, stalls, errors; newest first. */
#include <string.h>
#include <time.h>

#include "view.h"

static enum tclass event_class(const char *kind)
{
	static const char *const bad[] = { "oom-kill", "error",  "invalid",
					   "stall",    "enospc", "signal" };
	static const char *const warn[] = { "restart", "exit", "abort" };

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (strcmp(kind, bad[i]) == 0)
			return TC_BAD;
	for (size_t i = 0; i < sizeof warn / sizeof warn[0]; i++)
		if (strcmp(kind, warn[i]) == 0)
			return TC_WARN;
	return TC_NORMAL;
}

static void events_update(const struct snapshot *s, struct text *t)
{
	text_line(t);
	text_add(t, TC_TITLE, "Events");
	text_addf(t, TC_NORMAL, "  latest %zu, newest first", s->nevents);
	t->sticky = 1;
	if (s->nevents == 0) {
		text_line(t);
		text_add(t, TC_DIM, "none");
		return;
	}
	for (size_t i = 0; i < s->nevents; i++) {
		const struct event *e = &s->events[i];
		time_t secs = (time_t)e->t;
		struct tm tm;
		char when[16];

		localtime_r(&secs, &tm);
		strftime(when, sizeof when, "%H:%M:%S", &tm);
		text_line(t);
		text_add(t, TC_DIM, when);
		text_add(t, TC_NORMAL, "  ");
		text_add(t, event_class(e->kind), e->kind);
		if (e->load != NULL && e->load[0] != '\0') {
			text_add(t, TC_NORMAL, " ");
			text_add(t, TC_VALUE, e->load);
		}
		if (e->message != NULL && e->message[0] != '\0') {
			text_add(t, TC_NORMAL, ": ");
			text_add(t, TC_NORMAL, e->message);
		}
	}
}

const struct panel_ops panel_events_ops = {
	.name = "events",
	.scrolls = true,
	.update = events_update,
	.draw = text_draw_titled,
};
