// SPDX-License-Identifier: GPL-2.0-or-later
/* The knee search's ramp and until: series and lists of values, every
 * refusal, and the stop condition on a step's figures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ramp.h"

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))

static void test_ramps(void **state)
{
	static const struct {
		const char *text;
		const char *load, *key;
		size_t nsteps;
		const char *first, *last;
	} cases[] = {
		{ "cpu.procs 2..1024 x2", "cpu", "procs", 10, "2", "1024" },
		{ "cpu.procs 2..1000 x2", "cpu", "procs", 9, "2", "512" },
		{ "fs.clients 1..16 +3", "fs", "clients", 6, "1", "16" },
		{ "net.clients 1,2,4,8", "net", "clients", 4, "1", "8" },
		{ "  mem.pressure 5%, 10% 20%", "mem", "pressure", 3, "5%", "20%" },
		{ "cpu.procs 4..4 x2", "cpu", "procs", 1, "4", "4" },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct ramp r;
		const char *err = NULL;

		if (ramp_parse(cases[i].text, &r, &err) < 0)
			fail_msg("'%s': %s", cases[i].text, err);
		assert_string_equal(r.load, cases[i].load);
		assert_string_equal(r.key, cases[i].key);
		assert_int_equal(r.nsteps, cases[i].nsteps);
		assert_string_equal(r.values[0], cases[i].first);
		assert_string_equal(r.values[r.nsteps - 1], cases[i].last);
		ramp_free(&r);
	}
}

static void test_ramp_refusals(void **state)
{
	static const char *const bad[] = {
		"cpu 2..8 x2",
		"cpu.procs",
		".procs 1,2",
		"cpu. 1,2",
		"cpu.procs 8..2 x2",
		"cpu.procs 2..8 x1",
		"cpu.procs 0..8 x2",
		"cpu.procs 2..8 +0",
		"cpu.procs 2..8",
		"cpu.procs 1..100 +1",
		"cpu.procs 2..8 x2 more",
	};

	for (size_t i = 0; i < NCASES(bad); i++) {
		struct ramp r;
		const char *err = NULL;

		if (ramp_parse(bad[i], &r, &err) == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(err);
	}
}

static void test_until(void **state)
{
	struct until u;
	const char *err = NULL;
	char text[128];

	assert_int_equal(until_parse("ratio > 2 | p95 > 150ms", &u, &err), 0);
	assert_int_equal(u.nterms, 2);
	until_format(&u, text, sizeof text);
	assert_string_equal(text, "ratio > 2 | p95 > 150ms");
	assert_false(until_met(&u, 10, 100, 1.9));
	assert_true(until_met(&u, 10, 100, 2.1));
	assert_true(until_met(&u, 10, 151, 1.0));
	/* an unknown Ratio (no baseline) never stops the search on its own */
	assert_false(until_met(&u, 10, 100, NAN));
	assert_int_equal(until_parse("median > 80ms", &u, &err), 0);
	assert_true(until_met(&u, 81, 0, 0));
	assert_false(until_met(&u, 80, 1000, 99));

	static const char *const bad[] = {
		"",
		"ratio",
		"ratio < 2",
		"p95 > 150",
		"median > 3s",
		"speed > 1",
		"ratio > 1 | ratio > 2 | ratio > 3 | ratio > 4 | ratio > 5"
	};
	for (size_t i = 0; i < NCASES(bad); i++)
		if (until_parse(bad[i], &u, &err) == 0)
			fail_msg("'%s' accepted", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ramps),
		cmocka_unit_test(test_ramp_refusals),
		cmocka_unit_test(test_until),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
