// SPDX-License-Identifier: GPL-2.0-or-later
/* Number formats and the sparkline the panels share. */
#include <math.h>
#include <stdio.h>

#include "view.h"

void fmt_num(char *buf, size_t len, double v, int decimals)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.*f", decimals, v);
}

void sparkline(struct text *t, const struct snapshot *s, int cols)
{
	sparkline_values(t, s->recent, s->recent_failed, s->nrecent, cols);
}

void sparkline_values(struct text *t, const double *v, const bool *failed, size_t n, int cols)
{
	static const char *const blocks[8] = { "\u2581", "\u2582", "\u2583", "\u2584",
					       "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[8] = { '_', '.', ',', '-', '=', '+', '*', '#' };
	size_t first = cols > 0 && n > (size_t)cols ? n - (size_t)cols : 0;
	double max = 0;

	for (size_t i = first; i < n; i++)
		if (!failed[i] && v[i] > max)
			max = v[i];
	for (size_t i = first; i < n; i++) {
		if (failed[i] || isnan(v[i])) {
			text_add(t, TC_BAD, "!");
			continue;
		}
		/* Heights are proportional to the time: zero is the floor. */
		int level = max > 0 ? (int)ceil(v[i] / max * 8) - 1 : 0;
		if (level < 0)
			level = 0;
		if (level > 7)
			level = 7;
		if (view_utf8) {
			text_add(t, TC_SPARK, blocks[level]);
		} else {
			char c[2] = { ascii[level], '\0' };
			text_add(t, TC_SPARK, c);
		}
	}
}
