// SPDX-License-Identifier: GPL-2.0-or-later
/* The ipcbw probe's `sizes` option: ranges of powers of two, lists, the
 * bounds and the order, and the labels written back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ipcbw_sizes.h"

static void test_parses_ranges_and_lists(void **state)
{
	static const struct {
		const char *text;
		const char *want; /* written back */
	} cases[] = {
		{ "1K-64K", "1K, 2K, 4K, 8K, 16K, 32K, 64K" },
		{ "1K - 1M", "1K, 2K, 4K, 8K, 16K, 32K, 64K, 128K, 256K, 512K, 1M" },
		{ "4K-4K", "4K" },
		{ "3K-20K", "3K, 6K, 12K" }, /* doubling while not past the end */
		{ "1K, 4K,64K", "1K, 4K, 64K" },
		{ "100 1000", "100, 1000" },
		{ "1", "1" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ipcbw_sizes s;
		const char *err = NULL;
		char buf[160];

		assert_int_equal(ipcbw_sizes_parse(cases[i].text, &s, &err), 0);
		ipcbw_sizes_format(&s, buf, sizeof buf);
		assert_string_equal(buf, cases[i].want);
	}
}

static void test_refuses_bad_lists(void **state)
{
	static const char *const bad[] = {
		"",       "0",    "2M",  "1K-2M", "64K-1K", "4K, 1K",
		"1K, 1K", "1K-0", "50%", "ram",   "1K,,x",  "1-65536", /* 17 sizes */
	};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ipcbw_sizes s = { .n = 99 };
		const char *err = NULL;

		assert_int_equal(ipcbw_sizes_parse(bad[i], &s, &err), -1);
		assert_non_null(err);
		assert_int_equal(s.n, 99); /* untouched */
	}
}

static void test_largest_and_labels(void **state)
{
	struct ipcbw_sizes s;
	const char *err;
	char label[24];

	(void)state;
	assert_int_equal(ipcbw_sizes_parse("1K-64K", &s, &err), 0);
	assert_int_equal(s.n, 7);
	assert_int_equal(ipcbw_sizes_max(&s), 65536);
	ipcbw_size_label(1536, label, sizeof label);
	assert_string_equal(label, "1536");
	ipcbw_size_label(1048576, label, sizeof label);
	assert_string_equal(label, "1M");
	ipcbw_size_label(1000, label, sizeof label);
	assert_string_equal(label, "1000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parses_ranges_and_lists),
		cmocka_unit_test(test_refuses_bad_lists),
		cmocka_unit_test(test_largest_and_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
