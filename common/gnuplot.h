// SPDX-License-Identifier: GPL-2.0-or-later
/* Drawing figures with gnuplot: a script goes in, an SVG or PNG comes out.
 * The script holds its data inline (datablocks), so nothing is written to
 * disk; gnuplot's output for the same script is the same bytes. */
#ifndef LOADD_GNUPLOT_H
#define LOADD_GNUPLOT_H

#include <stddef.h>

enum plot_format { PLOT_SVG, PLOT_PNG };

/* Runs gnuplot (GNUPLOT in the environment, else "gnuplot" on PATH) on
 * script, after a terminal line for format at width x height pixels. 0 and
 * the output in *out (xmalloc'd, *len bytes), or -1 and an xmalloc'd
 * message in *err (gnuplot missing, or what it said on stderr). */
int gnuplot_render(const char *script, size_t script_len, enum plot_format format, int width,
		   int height, char **out, size_t *len, char **err);

/* s made safe for a single-quoted gnuplot string in a noenhanced label:
 * bytes outside a plain set (letters, digits, space, - _ . , : + / = @ ( )) become
 * '_'. xmalloc'd. Labels are the only place text reaches a plot. */
char *gnuplot_label(const char *s);

#endif
