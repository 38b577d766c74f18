// SPDX-License-Identifier: GPL-2.0-or-later
/* RFC 4180 output: fields separated by commas, records by CRLF, a field
 * quoted when it holds a comma, quote, CR or LF, with quotes doubled.
 * Doubles are written with the fewest digits (15, else 17) that read back as
 * the same double, so nothing measured is lost and 0.1 stays "0.1". */
#ifndef LOADD_CSV_H
#define LOADD_CSV_H

#include <stdio.h>

struct csv {
	FILE *fp;
	int field; /* fields written in the current record */
};

void csv_init(struct csv *c, FILE *fp);
void csv_str(struct csv *c, const char *s); /* NULL writes an empty field, "" a quoted one */
void csv_int(struct csv *c, long long v);
void csv_double(struct csv *c, double v); /* NaN writes an empty field */
void csv_end_record(struct csv *c);
/* The number as csv_double writes it ("" for NaN, "inf"/"-inf"); returns
 * what snprintf returns. len of 32 always suffices. */
int csv_format_double(char *buf, size_t len, double v);

#endif
