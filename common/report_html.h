// SPDX-License-Identifier: GPL-2.0-or-later
/* The report of a run as one self-contained HTML page: the text report's
 * header and tables, and its figures drawn by gnuplot as inline SVG. */
#ifndef LOADD_REPORT_HTML_H
#define LOADD_REPORT_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "db.h"

/* 0 done, 1 no such run, -1 database error or out not writable. A figure
 * gnuplot could not draw is a note in the page and a warning on stderr. */
int report_html(struct db *db, int64_t run_id, FILE *out);

/* One <figure>: the script drawn as inline SVG with its ids prefixed, and
 * the caption; a note instead when gnuplot fails. 0, or -1 when it failed. */
int html_figure(FILE *out, const char *script, size_t len, int width, int height,
		const char *prefix, const char *caption);

#endif
