// SPDX-License-Identifier: GPL-2.0-or-later
/* HTML pages and gnuplot labels: escaping of hostile strings, the prefixing
 * of an inlined SVG's ids, and the characters a plot label keeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gnuplot.h"
#include "html.h"

/* What f wrote into a memory stream, malloc'd. */
#define CAPTURE(buf, call)                                                                         \
	do {                                                                                       \
		size_t len_ = 0;                                                                   \
		FILE *fp = open_memstream(&(buf), &len_);                                          \
		assert_non_null(fp);                                                               \
		call;                                                                              \
		fclose(fp);                                                                        \
	} while (0)

static void test_text_escapes(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain host", "plain host" },
		{ "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;" },
		{ "a & b", "a &amp; b" },
		{ "\"><img src=x onerror='x'>", "&quot;&gt;&lt;img src=x onerror=&#39;x&#39;&gt;" },
		{ "&amp;", "&amp;amp;" },
		{ "", "" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *buf = NULL;

		CAPTURE(buf, html_text(fp, cases[i].in));
		assert_string_equal(buf, cases[i].out);
		free(buf);
	}
	/* NULL is nothing, not a crash */
	{
		char *buf = NULL;

		CAPTURE(buf, html_text(fp, NULL));
		assert_string_equal(buf, "");
		free(buf);
	}
}

static void test_svg_ids_prefixed(void **state)
{
	const char svg[] = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg viewBox=\"0 0 1 1\">"
			   "<g id=\"gnuplot_canvas\"><path id='gpPt1'/>"
			   "<use xlink:href='#gpPt1'/><use href=\"#gpPt1\"/>"
			   "<rect clip-path=\"url(#gpClip)\"/></g></svg>";
	char *buf = NULL;

	(void)state;
	CAPTURE(buf, html_inline_svg(fp, svg, strlen(svg), "f1-"));
	assert_string_equal(buf, "<svg viewBox=\"0 0 1 1\"><g id=\"f1-gnuplot_canvas\">"
				 "<path id='f1-gpPt1'/><use xlink:href='#f1-gpPt1'/>"
				 "<use href=\"#f1-gpPt1\"/><rect clip-path=\"url(#f1-gpClip)\"/>"
				 "</g></svg>\n");
	free(buf);
	/* no <svg at all: nothing is written */
	CAPTURE(buf, html_inline_svg(fp, "gnuplot: error", 14, "f1-"));
	assert_string_equal(buf, "");
	free(buf);
}

static void test_page_policy(void **state)
{
	char *buf = NULL;

	(void)state;
	CAPTURE(buf, (html_page_begin(fp, "<b>t</b>"), html_page_end(fp)));
	assert_non_null(strstr(buf, "default-src 'none'"));
	assert_non_null(strstr(buf, "<title>&lt;b&gt;t&lt;/b&gt;</title>"));
	assert_null(strstr(buf, "<script"));
	free(buf);
}

static void test_gnuplot_label(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "cpu r2", "cpu r2" },
		{ "it's", "it_s" },
		{ "a\\b", "a_b" },
		{ "<b>&\"", "_b___" },
		{ "x'; system('id'); '", "x__ system(_id_)_ _" },
		{ "mem-1.5G:io/x=y,z+", "mem-1.5G:io/x=y,z+" },
		{ "\xc3\xa9", "__" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *s = gnuplot_label(cases[i].in);

		assert_string_equal(s, cases[i].out);
		free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_escapes),
		cmocka_unit_test(test_svg_ids_prefixed),
		cmocka_unit_test(test_page_policy),
		cmocka_unit_test(test_gnuplot_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
