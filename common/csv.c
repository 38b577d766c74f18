// SPDX-License-Identifier: GPL-2.0-or-later
#include "csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void csv_init(struct csv *c, FILE *fp)
{
	c->fp = fp;
	c->field = 0;
}

static void csv_sep(struct csv *c)
{
	if (c->field++ > 0)
		putc(',', c->fp);
}

void csv_str(struct csv *c, const char *s)
{
	csv_sep(c);
	if (s == NULL)
		return;
	/* An empty string is quoted so that it reads back apart from NULL (as
	 * PostgreSQL's COPY ... CSV does). */
	if (*s != '\0' && strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, c->fp);
		return;
	}
	putc('"', c->fp);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', c->fp);
		putc(*s, c->fp);
	}
	putc('"', c->fp);
}

void csv_int(struct csv *c, long long v)
{
	csv_sep(c);
	fprintf(c->fp, "%lld", v);
}

int csv_format_double(char *buf, size_t len, double v)
{
	int n;

	if (!isfinite(v))
		return snprintf(buf, len, "%s", isnan(v) ? "" : v > 0 ? "inf" : "-inf");
	/* 15 significant digits read back exactly for nearly every double and
	 * keep 0.1 as "0.1"; the rest need 17. */
	n = snprintf(buf, len, "%.15g", v);
	if ((size_t)n < len && strtod(buf, NULL) == v)
		return n;
	return snprintf(buf, len, "%.17g", v);
}

void csv_double(struct csv *c, double v)
{
	char buf[40];

	csv_sep(c);
	if (isnan(v))
		return;
	csv_format_double(buf, sizeof buf, v);
	fputs(buf, c->fp);
}

void csv_end_record(struct csv *c)
{
	fputs("\r\n", c->fp);
	c->field = 0;
}
