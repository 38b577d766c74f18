// SPDX-License-Identifier: GPL-2.0-or-later
/* Text tables for the report and loadctl: every column as wide as its widest
 * cell, two blanks apart, and the cell formatters they share so that the same
 * figure reads the same everywhere. */
#ifndef LOADD_TABLE_H
#define LOADD_TABLE_H

#include <stddef.h>
#include <stdio.h>

struct table {
	const char *align; /* a letter per column: 'l' words, 'r' numbers */
	size_t ncols;
	size_t nrows;
	char **cells;       /* row-major, row 0 the heading */
	const char *indent; /* before every line (NULL: none) */
};

void table_init(struct table *t, const char *const *heading, const char *align);
/* Takes ownership of the row's ncols xmalloc'd strings (not of the array);
 * a cell a terminal would act on is stored escaped (term_escape.h). */
void table_row(struct table *t, char **cells);
/* A last 'l' column (a note) is not padded; no line ends in blanks. */
void table_print(const struct table *t, FILE *out);
void table_free(struct table *t);

/* xmalloc'd cells; "-" for NaN or infinity. */
char *fmt_ms(double ms); /* about four significant digits: 123.4, 12.34, 1.234 */
char *fmt_fixed(double v, int decimals);
char *fmt_count(double v); /* whole numbers once they reach 100 */

#endif
