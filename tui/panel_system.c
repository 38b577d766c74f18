// SPDX-License-Identifier: GPL-2.0-or-later
/* The system: CPU, context switches, memory and pressure, last second. Every
 * figure of the system record that has a loadtop label (records.c), on its
 * line, in table order. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "view.h"

static enum tclass figure_color(const struct figure_view *fv, double v, enum tclass plain)
{
	if (fv->bad_at > 0 && v >= fv->bad_at)
		return TC_BAD;
	if (fv->warn_at > 0 && v >= fv->warn_at)
		return TC_WARN;
	return plain;
}

static void add_figure(struct text *t, const struct column *c, const struct sys_sample *y)
{
	const struct figure_view *fv = c->view;
	double v = column_number(c, y);
	char buf[32];

	if (c->type == COL_U64 && strcmp(c->unit, "bytes") == 0)
		format_bytes((uint64_t)column_integer(c, y), buf, sizeof buf);
	else
		fmt_num(buf, sizeof buf, v, fv->decimals);
	text_add(t, fv->panel[0] == '/' ? TC_NORMAL : TC_HEAD, fv->panel);
	text_addf(t, figure_color(fv, v, TC_VALUE), "%s%s", buf, fv->suffix ? fv->suffix : "");
}

static void system_update(const struct snapshot *s, struct text *t)
{
	const struct record_type *rt = &record_types[REC_SYS_SAMPLE];
	int line = 0;

	text_line(t);
	text_add(t, TC_TITLE, "System");
	if (!s->have_sys) {
		text_line(t);
		text_add(t, TC_DIM, "no system figures yet");
		return;
	}
	for (size_t i = 0; i < rt->ncolumns; i++) {
		const struct column *c = &rt->columns[i];

		if (c->view == NULL || c->view->panel == NULL)
			continue;
		for (; line < c->view->panel_line; line++)
			text_line(t);
		add_figure(t, c, &s->sys);
	}
}

const struct panel_ops panel_system_ops = {
	.name = "system",
	.update = system_update,
	.draw = text_draw_titled,
};
