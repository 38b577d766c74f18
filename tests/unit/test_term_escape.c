// SPDX-License-Identifier: GPL-2.0-or-later
/* Terminal escaping: the exact output for each kind of hostile input, that
 * nothing a terminal acts on survives, and that a short buffer never cuts an
 * escape in half. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "term_escape.h"

struct escape_case {
	const char *in;
	size_t len; /* 0: strlen(in) */
	unsigned flags;
	const char *out;
};

static const struct escape_case cases[] = {
	{ "plain host-1.example", 0, 0, "plain host-1.example" },
	{ "evil\x1b]0;pwned\x07\x1b[2J", 0, 0, "evil\\x1b]0;pwned\\x07\\x1b[2J" },
	{ "a\nb\tc\r", 0, 0, "a\\nb\\tc\\x0d" },
	{ "a\nb\tc\r", 0, TERM_ESCAPE_KEEP_LINES, "a\nb\tc\\x0d" },
	{ "back\\slash", 0, 0, "back\\\\slash" },
	{ "del\x7f", 0, 0, "del\\x7f" },
	{ "nul\0after", 9, 0, "nul\\x00after" },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, 0,
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
	{ "bad\xff\xfe", 0, 0, "bad\\xff\\xfe" },
	{ "cut\xe2\x82", 0, 0, "cut\\xe2\\x82" },
	{ "overlong\xc0\xaf", 0, 0, "overlong\\xc0\\xaf" },
	{ "overlong3\xe0\x80\xaf", 0, 0, "overlong3\\xe0\\x80\\xaf" },
	{ "surrogate\xed\xa0\x80", 0, 0, "surrogate\\xed\\xa0\\x80" },
	{ "c1csi\xc2\x9b"
	  "2J",
	  0, 0, "c1csi\\u{9b}2J" },
	{ "raw8bit\x9b"
	  "2J",
	  0, 0, "raw8bit\\x9b2J" },
	{ "rlo\xe2\x80\xaetxt", 0, 0, "rlo\\u{202e}txt" },
	{ "isolate\xe2\x81\xa6x", 0, 0, "isolate\\u{2066}x" },
	{ "", 0, 0, "" },
};

static void test_cases(void **state)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct escape_case *c = &cases[i];
		size_t len = c->len ? c->len : strlen(c->in);
		char *out = term_escape_n(c->in, len, c->flags);

		if (strcmp(out, c->out) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, out, c->out);
		free(out);
	}
}

/* Every byte value, alone and after a lead byte: no control byte and no
 * ESC survives, and the result is valid for printing. */
static void test_no_control_survives(void **state)
{
	for (int lead = 0; lead < 256; lead++) {
		for (int b = 0; b < 256; b++) {
			char in[3] = { (char)lead, (char)b, 'x' };
			char *out = term_escape_n(in, sizeof in, 0);

			for (const unsigned char *p = (const unsigned char *)out; *p; p++) {
				if (*p < 0x20 || *p == 0x7f)
					fail_msg("byte 0x%02x survived from %02x %02x", *p, lead,
						 b);
			}
			free(out);
		}
	}
}

static void test_short_buffer(void **state)
{
	const char *in = "ab\x1b"
			 "cd";
	char buf[6];
	size_t n;

	/* "ab" fits, "\x1b" (4 bytes) does not: it is left out whole. */
	n = term_escape_buf(buf, sizeof buf, in, strlen(in), 0);
	assert_int_equal(n, 2);
	assert_string_equal(buf, "ab");
	n = term_escape_buf(buf, 1, in, strlen(in), 0);
	assert_int_equal(n, 0);
	assert_string_equal(buf, "");
	assert_int_equal(term_escape_buf(buf, 0, in, strlen(in), 0), 0);
}

static void test_null_and_safe(void **state)
{
	char *out = term_escape(NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_string_equal(out, "");
	free(out);
	assert_true(term_is_safe("ordinary text 123 \xc3\xa9"));
	assert_false(term_is_safe("esc\x1b[2J"));
	assert_false(term_is_safe("a\\b"));
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	term_escape_fputs("x\x1b]0;t\x07\ny", TERM_ESCAPE_KEEP_LINES, f);
	fclose(f);
	assert_string_equal(buf, "x\\x1b]0;t\\x07\ny");
	free(buf);
}

/* A 1 MiB hostile string escapes in one piece. */
static void test_large(void **state)
{
	size_t n = 1 << 20;
	char *in = malloc(n);
	char *out;

	assert_non_null(in);
	memset(in, 0x1b, n);
	out = term_escape_n(in, n, 0);
	assert_int_equal(strlen(out), n * 4);
	free(out);
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),        cmocka_unit_test(test_no_control_survives),
		cmocka_unit_test(test_short_buffer), cmocka_unit_test(test_null_and_safe),
		cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
