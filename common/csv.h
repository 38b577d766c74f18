/* RFC 4180 output: fields separated by commas, records by CRLF, a field
 * quoted when it holds a comma, quote, CR or LF, with quotes doubled. */
#ifndef LOADD_CSV_H
#define LOADD_CSV_H

#include <stdio.h>

struct csv {
	FILE *fp;
	int field; /* fields written in the current record */
};

void csv_init(struct csv *c, FILE *fp);
void csv_str(struct csv *c, const char *s);  /* NULL writes an empty field */
void csv_int(struct csv *c, long long v);
void csv_double(struct csv *c, double v);   /* NaN writes an empty field */
void csv_end_record(struct csv *c);

#endif
