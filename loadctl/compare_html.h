// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl compare --html: the comparison as one self-contained HTML page.
 * It renders the comparison's JSON (the same object --json prints), so the
 * page shows whatever figures and verdicts the comparison has, and draws
 * each run's job times per phase side by side. */
#ifndef LOADCTL_COMPARE_HTML_H
#define LOADCTL_COMPARE_HTML_H

#include <jansson.h>

/* Writes the page to path ("-": stdout). The runs are found by the "db" and
 * "id" of the JSON's "a" and "b" objects, or of each object of its "runs"
 * array. 0, or -1 after a message. */
int compare_html(const char *path, json_t *comparison);

#endif
