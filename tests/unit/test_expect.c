// SPDX-License-Identifier: GPL-2.0-or-later
/* Expectations of a load: parsing (terms, '|', units, none, every refusal)
 * and judging what a window achieved, with the figure it reached. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))

static void test_parse(void **state)
{
	static const struct {
		const char *text;
		int nterms;
		enum expect_metric metric; /* of the first term */
		const char *op;
		double value;
	} cases[] = {
		{ "busy >= 90%", 1, EXP_BUSY, ">=", 90 },
		{ "busy>=90", 1, EXP_BUSY, ">=", 90 },
		{ "  psi_memory > 0% | available <= 1G ", 2, EXP_PSI_MEMORY, ">", 0 },
		{ "available <= 512M", 1, EXP_AVAILABLE, "<=", 512.0 * 1024 * 1024 },
		{ "mib_s >= 10.5", 1, EXP_MIB_S, ">=", 10.5 },
		{ "ops_s < 3", 1, EXP_OPS_S, "<", 3 },
		{ "cycles >= 1 | mib_s > 0 | psi_io > 1% | psi_cpu > 2%", 4, EXP_CYCLES, ">=", 1 },
		{ "none", 0, EXP_BUSY, "", 0 },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct expectation e;
		const char *err = NULL;

		if (expect_parse(cases[i].text, &e, &err) < 0)
			fail_msg("'%s' refused: %s", cases[i].text, err);
		assert_int_equal(e.nterms, cases[i].nterms);
		if (e.nterms == 0)
			continue;
		assert_int_equal(e.terms[0].metric, cases[i].metric);
		assert_string_equal(e.terms[0].op, cases[i].op);
		assert_true(fabs(e.terms[0].value - cases[i].value) < 1e-9);
	}
}

static void test_refused(void **state)
{
	static const struct {
		const char *text;
		const char *says;
	} cases[] = {
		{ "", "unknown figure" },
		{ "speed > 3", "unknown figure" },
		{ "busy 90%", "expected >=" },
		{ "busy >=", "needs a value" },
		{ "busy >= lots", "percentage" },
		{ "mib_s >= 10%", "expected a number" },
		{ "available <= 10%", "takes a size" },
		{ "busy >= 90% |", "unknown figure" },
		{ "cycles > 1 | cycles > 2 | cycles > 3 | cycles > 4 | cycles > 5", "at most 4" },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct expectation e;
		const char *err = "";

		if (expect_parse(cases[i].text, &e, &err) == 0)
			fail_msg("'%s' accepted", cases[i].text);
		if (strstr(err, cases[i].says) == NULL)
			fail_msg("'%s': \"%s\", want \"%s\"", cases[i].text, err, cases[i].says);
	}
}

static struct achieved unknown(void)
{
	struct achieved a;

	for (int i = 0; i < EXP_METRIC_COUNT; i++)
		a.value[i] = NAN;
	return a;
}

static void test_judged(void **state)
{
	struct expectation e;
	struct achieved a = unknown();
	const char *err;
	char why[256];

	/* the paper's ring on 2 CPUs: 41% busy is weak, and says so */
	assert_int_equal(expect_parse("busy >= 90%", &e, &err), 0);
	a.value[EXP_BUSY] = 41.2;
	assert_false(expect_met(&e, &a, why, sizeof why));
	assert_string_equal(why, "busy 41.2% (expected >= 90.0%)");
	a.value[EXP_BUSY] = 97;
	assert_true(expect_met(&e, &a, why, sizeof why));
	assert_string_equal(why, "");
	/* unknown figures (no PSI, no samples) are not judged weak */
	a.value[EXP_BUSY] = NAN;
	assert_true(expect_met(&e, &a, why, sizeof why));

	/* any term suffices; a miss names every term */
	assert_int_equal(expect_parse("psi_memory > 0% | available <= 1G", &e, &err), 0);
	a = unknown();
	a.value[EXP_PSI_MEMORY] = 0;
	a.value[EXP_AVAILABLE] = 22.0 * 1024 * 1024 * 1024;
	assert_false(expect_met(&e, &a, why, sizeof why));
	assert_string_equal(why, "psi_memory 0.0% (expected > 0.0%); available 22 GiB "
				 "(expected <= 1 GiB)");
	a.value[EXP_AVAILABLE] = 300.0 * 1024 * 1024;
	assert_true(expect_met(&e, &a, why, sizeof why));
	a.value[EXP_AVAILABLE] = 22.0 * 1024 * 1024 * 1024;
	a.value[EXP_PSI_MEMORY] = 0.4;
	assert_true(expect_met(&e, &a, why, sizeof why));

	/* counts and rates */
	assert_int_equal(expect_parse("cycles >= 1", &e, &err), 0);
	a = unknown();
	a.value[EXP_CYCLES] = 0;
	assert_false(expect_met(&e, &a, why, sizeof why));
	assert_string_equal(why, "cycles 0 (expected >= 1)");
	assert_int_equal(expect_parse("ops_s >= 2000", &e, &err), 0);
	a.value[EXP_OPS_S] = 1500;
	assert_false(expect_met(&e, &a, why, sizeof why));
	assert_string_equal(why, "ops_s 1500 (expected >= 2000)");

	/* none: never weak */
	assert_int_equal(expect_parse("none", &e, &err), 0);
	assert_true(expect_met(&e, &a, why, sizeof why));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_judged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
