// SPDX-License-Identifier: GPL-2.0-or-later
/* Writing HTML pages that are safe to open: every string from a database or
 * a profile goes through html_text(), and a page allows no script and no
 * network fetch (its Content-Security-Policy says so). */
#ifndef LOADD_HTML_H
#define LOADD_HTML_H

#include <stddef.h>
#include <stdio.h>

/* s with &, <, >, " and ' as entities, fit for text and quoted attributes. */
void html_text(FILE *out, const char *s);
/* printf, then nothing escaped: for markup and figures the caller made. */
void html_raw(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* <!doctype html> ... <body>, with the page's style sheet; title escaped. */
void html_page_begin(FILE *out, const char *title);
void html_page_end(FILE *out);
/* An SVG document inlined: everything before <svg is dropped, and its ids
 * (and the references to them) get prefix, so that figures sharing a page
 * do not borrow each other's markers and clip paths. */
void html_inline_svg(FILE *out, const char *svg, size_t len, const char *prefix);

#endif
