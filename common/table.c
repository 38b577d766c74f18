// SPDX-License-Identifier: GPL-2.0-or-later
#include "table.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "term_escape.h"
#include "xalloc.h"

void table_init(struct table *t, const char *const *heading, const char *align)
{
	char **row;

	*t = (struct table){ .align = align, .ncols = strlen(align) };
	row = xcalloc(t->ncols, sizeof *row);
	for (size_t i = 0; i < t->ncols; i++)
		row[i] = xstrdup(heading[i]);
	table_row(t, row);
	free(row);
}

void table_row(struct table *t, char **cells)
{
	t->cells = xreallocarray(t->cells, (t->nrows + 1) * t->ncols, sizeof *t->cells);
	memcpy(&t->cells[t->nrows * t->ncols], cells, t->ncols * sizeof *cells);
	/* A cell may hold a name from a database: never a raw escape sequence. */
	for (size_t i = 0; i < t->ncols; i++) {
		char **cell = &t->cells[t->nrows * t->ncols + i];

		if (!term_is_safe(*cell)) {
			char *safe = term_escape(*cell);
			free(*cell);
			*cell = safe;
		}
	}
	t->nrows++;
}

void table_print(const struct table *t, FILE *out)
{
	size_t *width = xcalloc(t->ncols, sizeof *width);
	size_t linecap = 2, r, c;
	char *line;

	for (r = 0; r < t->nrows * t->ncols; r++) {
		size_t len = strlen(t->cells[r]);
		if (len > width[r % t->ncols])
			width[r % t->ncols] = len;
	}
	for (c = 0; c < t->ncols; c++)
		linecap += width[c] + 2;
	line = xmalloc(linecap);
	for (r = 0; r < t->nrows; r++) {
		size_t len = 0;

		for (c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];
			size_t cell_len = strlen(cell), pad = width[c] - cell_len;
			bool last = c + 1 == t->ncols;

			if (t->align[c] == 'r') {
				memset(line + len, ' ', pad);
				len += pad;
			}
			memcpy(line + len, cell, cell_len);
			len += cell_len;
			if (t->align[c] != 'r' && !last) {
				memset(line + len, ' ', pad);
				len += pad;
			}
			if (!last) {
				memcpy(line + len, "  ", 2);
				len += 2;
			}
		}
		while (len > 0 && line[len - 1] == ' ')
			len--;
		line[len] = '\0';
		fprintf(out, "%s%s\n", t->indent ? t->indent : "", line);
	}
	free(line);
	free(width);
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	*t = (struct table){ 0 };
}

char *fmt_ms(double ms)
{
	if (!isfinite(ms))
		return xstrdup("-");
	return xasprintf(fabs(ms) >= 100 ? "%.1f" : fabs(ms) >= 1 ? "%.2f" : "%.3f", ms);
}

char *fmt_fixed(double v, int decimals)
{
	return isfinite(v) ? xasprintf("%.*f", decimals, v) : xstrdup("-");
}

char *fmt_count(double v)
{
	if (!isfinite(v))
		return xstrdup("-");
	return xasprintf(fabs(v) >= 100 ? "%.0f" : "%.1f", v);
}
