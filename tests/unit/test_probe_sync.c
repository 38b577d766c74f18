// SPDX-License-Identifier: GPL-2.0-or-later
/* The sync probe's counter check: the right total gives us per lock +
 * unlock pair, any other total is a failed sample with no figure; and the
 * limits a sample can hit are named with their sysctl or rlimit. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probe.h"
#include "probe_sync.h"

static void test_right_total_gives_us_per_pair(void **state)
{
	struct sample s = { .value = NAN };
	char *err = NULL;

	(void)state;
	/* 4 workers × 1000 pairs in 2 ms: 0.5 us per pair */
	assert_int_equal(sync_judge(4000, 4, 1000, 2000000, &s, &err), 0);
	assert_null(err);
	assert_false(s.failed);
	assert_float_equal(s.value, 0.5, 1e-9);
	assert_float_equal(s.wall_ms, 2.0, 1e-9);
}

static void test_wrong_total_fails(void **state)
{
	/* lost updates, and more than asked for (a broken lock or a bug) */
	static const long counters[] = { 3999, 0, 4001, 2000 };

	(void)state;
	for (size_t i = 0; i < sizeof counters / sizeof *counters; i++) {
		struct sample s = { .value = NAN };
		char *err = NULL;

		assert_int_equal(sync_judge(counters[i], 4, 1000, 1000, &s, &err), -1);
		assert_true(s.failed);
		assert_true(isnan(s.value)); /* never a (fast) figure */
		assert_non_null(err);
		assert_non_null(strstr(err, "not at 4000"));
		free(err);
	}
}

static void test_limits_are_named(void **state)
{
	(void)state;
	assert_non_null(strstr(sync_limit_hint(ENOSPC, "semget"), "kernel.sem"));
	assert_non_null(strstr(sync_limit_hint(ENOSPC, "semget"), "SEMMNI"));
	assert_non_null(strstr(sync_limit_hint(EMFILE, "sem_open"), "ulimit -n"));
	assert_non_null(strstr(sync_limit_hint(ENFILE, "open"), "fs.file-max"));
	assert_non_null(strstr(sync_limit_hint(EAGAIN, "fork"), "kernel.threads-max"));
	assert_string_equal(sync_limit_hint(EINVAL, "semget"), "");
}

static void test_listed(void **state)
{
	(void)state;
	assert_non_null(probe_find("sync"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_right_total_gives_us_per_pair),
		cmocka_unit_test(test_wrong_total_fails),
		cmocka_unit_test(test_limits_are_named),
		cmocka_unit_test(test_listed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
