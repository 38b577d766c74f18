// SPDX-License-Identifier: GPL-2.0-or-later
/* CSV output: the exact bytes for each kind of field, then a whole record
 * read back with an RFC 4180 reader. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csv.h"

enum kind { STR, INT, DBL };

struct field {
	enum kind kind;
	const char *s;
	long long i;
	double d;
};

/* Writes one record and returns what was written (malloc'd). */
static char *write_record(const struct field *f, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct csv c;
	size_t i;

	assert_non_null(fp);
	csv_init(&c, fp);
	for (i = 0; i < n; i++) {
		switch (f[i].kind) {
		case STR: csv_str(&c, f[i].s); break;
		case INT: csv_int(&c, f[i].i); break;
		case DBL: csv_double(&c, f[i].d); break;
		}
	}
	csv_end_record(&c);
	fclose(fp);
	return buf;
}

static void test_field_bytes(void **state)
{
	static const struct {
		struct field f;
		const char *want;
	} cases[] = {
		{ { STR, .s = "plain" }, "plain\r\n" },
		{ { STR, .s = "a,b" }, "\"a,b\"\r\n" },
		{ { STR, .s = "say \"hi\"" }, "\"say \"\"hi\"\"\"\r\n" },
		{ { STR, .s = "\"" }, "\"\"\"\"\r\n" },
		{ { STR, .s = "line\nbreak" }, "\"line\nbreak\"\r\n" },
		{ { STR, .s = "cr\rhere" }, "\"cr\rhere\"\r\n" },
		{ { STR, .s = "crlf\r\n" }, "\"crlf\r\n\"\r\n" },
		{ { STR, .s = "" }, "\"\"\r\n" },
		{ { STR, .s = NULL }, "\r\n" },
		{ { STR, .s = " spaces kept " }, " spaces kept \r\n" },
		{ { INT, .i = 0 }, "0\r\n" },
		{ { INT, .i = -42 }, "-42\r\n" },
		{ { INT, .i = LLONG_MIN }, "-9223372036854775808\r\n" },
		{ { DBL, .d = 0.1 }, "0.1\r\n" },
		{ { DBL, .d = 12.5 }, "12.5\r\n" },
		{ { DBL, .d = 0 }, "0\r\n" },
		{ { DBL, .d = 1e300 }, "1e+300\r\n" },
		{ { DBL, .d = NAN }, "\r\n" },
		{ { DBL, .d = INFINITY }, "inf\r\n" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = write_record(&cases[i].f, 1);

		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

/* An RFC 4180 reader: splits one record into fields, telling a quoted
 * empty field from an unquoted one (NULL). Returns the count. */
static size_t read_record(const char *p, char **out, size_t max)
{
	size_t n = 0;

	for (;;) {
		char *field = calloc(strlen(p) + 1, 1);
		size_t len = 0;
		int quoted = 0;

		assert_non_null(field);
		if (*p == '"') {
			quoted = 1;
			for (p++;; p++) {
				assert_true(*p != '\0'); /* unterminated quote */
				if (*p == '"' && p[1] == '"')
					field[len++] = *p++;
				else if (*p == '"')
					break;
				else
					field[len++] = *p;
			}
			p++;
		} else {
			while (*p != ',' && *p != '\r' && *p != '\0') {
				assert_true(*p != '\n' && *p != '"');
				field[len++] = *p++;
			}
		}
		assert_true(n < max);
		if (!quoted && len == 0) {
			free(field);
			out[n++] = NULL;
		} else {
			out[n++] = field;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		assert_true(p[0] == '\r' && p[1] == '\n' && p[2] == '\0');
		return n;
	}
}

static void test_read_back(void **state)
{
	const double third = 1.0 / 3, big = 123456789.123456789, tiny = 5e-324;
	const struct field rec[] = {
		{ STR, .s = "ls -R, then \"wc\"" },
		{ STR, .s = "multi\r\nline\nfield\r" },
		{ STR, .s = "" },
		{ STR, .s = NULL },
		{ DBL, .d = NAN },
		{ INT, .i = 1234567890123LL },
		{ DBL, .d = third },
		{ DBL, .d = big },
		{ DBL, .d = tiny },
		{ DBL, .d = -0.25 },
		{ STR, .s = "end" },
	};
	const size_t n = sizeof rec / sizeof rec[0];
	char *fields[16];
	char *text = write_record(rec, n);
	size_t i, got = read_record(text, fields, 16);

	assert_int_equal(got, n);
	assert_string_equal(fields[0], rec[0].s);
	assert_string_equal(fields[1], rec[1].s);
	assert_string_equal(fields[2], "");
	assert_null(fields[3]);
	assert_null(fields[4]);
	assert_string_equal(fields[5], "1234567890123");
	/* doubles read back bit for bit */
	assert_true(strtod(fields[6], NULL) == third);
	assert_true(strtod(fields[7], NULL) == big);
	assert_true(strtod(fields[8], NULL) == tiny);
	assert_string_equal(fields[9], "-0.25");
	assert_string_equal(fields[10], "end");
	for (i = 0; i < got; i++)
		free(fields[i]);
	free(text);
}

static void test_records(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct csv c;

	csv_init(&c, fp);
	csv_str(&c, "a");
	csv_int(&c, 1);
	csv_end_record(&c);
	/* the field count restarts: no leading comma on the next record */
	csv_str(&c, "b");
	csv_double(&c, 2.5);
	csv_end_record(&c);
	fclose(fp);
	assert_string_equal(buf, "a,1\r\nb,2.5\r\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_bytes),
		cmocka_unit_test(test_read_back),
		cmocka_unit_test(test_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
