// SPDX-License-Identifier: GPL-2.0-or-later
/* Statistics against values worked out by hand (and checked with R's
 * quantile(type = 7), sd() and qt(0.975, df)). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats.h"

#define EPS 1e-6

/* cmocka's assert_float_equal compares floats; these figures need doubles. */
#define assert_near(got, want, eps)                                                                \
	do {                                                                                       \
		double got_ = (got), want_ = (want);                                               \
		if (!(fabs(got_ - want_) <= (eps)))                                                \
			fail_msg("%s = %.9g, want %.9g", #got, got_, want_);                       \
	} while (0)

struct summary_case {
	const char *what;
	double v[10];
	size_t n;
	double mean, sd, min, median, p95, p99, max, ci_low, ci_high;
};

static const struct summary_case summary_cases[] = {
	/* sd = sqrt(5/3); CI: 2.5 -+ t(3) 1.2909944 / 2 */
	{ "four in order",
	  { 1, 2, 3, 4 },
	  4,
	  2.5,
	  1.29099445,
	  1,
	  2.5,
	  3.85,
	  3.97,
	  4,
	  0.44573994,
	  4.55426006 },
	/* t(1) = 12.706205: the interval is wide, as it should be */
	{ "two", { 10, 20 }, 2, 15, 7.07106781, 10, 15, 19.5, 19.9, 20, -48.531025, 78.531025 },
	{ "five unsorted",
	  { 5, 1, 4, 2, 3 },
	  5,
	  3,
	  1.58113883,
	  1,
	  3,
	  4.8,
	  4.96,
	  5,
	  1.03675691,
	  4.96324309 },
	{ "ten with ties",
	  { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3 },
	  10,
	  3.9,
	  2.46981781,
	  1,
	  3.5,
	  7.65,
	  8.73,
	  9,
	  2.1331989,
	  5.6668011 },
	/* One value: no spread, the interval collapses to the mean */
	{ "one", { 7 }, 1, 7, 0, 7, 7, 7, 7, 7, 7, 7 },
	{ "constant", { 2, 2, 2 }, 3, 2, 0, 2, 2, 2, 2, 2, 2, 2 },
};

static void test_summarize(void **state)
{
	size_t i, j;

	for (i = 0; i < sizeof summary_cases / sizeof summary_cases[0]; i++) {
		const struct summary_case *c = &summary_cases[i];
		double v[10];
		struct summary s;

		for (j = 0; j < c->n; j++)
			v[j] = c->v[j];
		summarize(v, c->n, &s);
		print_message("case: %s\n", c->what);
		assert_int_equal(s.n, c->n);
		assert_near(s.mean, c->mean, EPS);
		assert_near(s.sd, c->sd, EPS);
		assert_near(s.min, c->min, EPS);
		assert_near(s.median, c->median, EPS);
		assert_near(s.p95, c->p95, EPS);
		assert_near(s.p99, c->p99, EPS);
		assert_near(s.max, c->max, EPS);
		assert_near(s.ci_low, c->ci_low, EPS);
		assert_near(s.ci_high, c->ci_high, EPS);
		/* sorted in place */
		for (j = 1; j < c->n; j++)
			assert_true(v[j - 1] <= v[j]);
	}
}

static void test_summarize_empty(void **state)
{
	struct summary s;

	summarize(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean));
	assert_true(isnan(s.sd));
	assert_true(isnan(s.min));
	assert_true(isnan(s.median));
	assert_true(isnan(s.p95));
	assert_true(isnan(s.p99));
	assert_true(isnan(s.max));
	assert_true(isnan(s.ci_low));
	assert_true(isnan(s.ci_high));
}

static void test_percentile(void **state)
{
	static const struct {
		double p, want;
	} cases[] = {
		{ 0, 10 },  { 100, 50 },  { 50, 30 }, { 25, 20 },  { 10, 14 },
		{ 90, 46 }, { 99, 49.6 }, { -5, 10 }, { 150, 50 },
	};
	const double sorted[] = { 10, 20, 30, 40, 50 };
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_near(percentile_sorted(sorted, 5, cases[i].p), cases[i].want, EPS);
	assert_true(isnan(percentile_sorted(sorted, 0, 50)));
	assert_near(percentile_sorted(sorted, 1, 99), 10, EPS);
}

static void test_t_quantile(void **state)
{
	static const struct {
		size_t df;
		double want;
	} cases[] = {
		{ 1, 12.706205 },
		{ 2, 4.302653 },
		{ 5, 2.570582 },
		{ 10, 2.228139 },
		{ 29, 2.045230 },
		{ 30, 2.042272 },
		/* beyond the table: the expansion must agree with qt() */
		{ 31, 2.039513 },
		{ 40, 2.021075 },
		{ 60, 2.000298 },
		{ 120, 1.979930 },
		{ 1000, 1.962339 },
		{ 100000, 1.959988 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_near(t_quantile_975(cases[i].df), cases[i].want, 2e-6);
	assert_true(isnan(t_quantile_975(0)));
	/* decreasing in df all the way */
	for (i = 1; i < 200; i++)
		assert_true(t_quantile_975(i + 1) < t_quantile_975(i));
}

static void test_welford(void **state)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct welford w = { 0 };
	size_t i;

	assert_near(welford_sd(&w), 0, EPS);
	welford_add(&w, v[0]);
	assert_near(welford_sd(&w), 0, EPS);
	for (i = 1; i < 8; i++)
		welford_add(&w, v[i]);
	assert_int_equal(w.n, 8);
	assert_near(w.mean, 5, EPS);
	assert_near(welford_sd(&w), sqrt(32.0 / 7), EPS);

	/* A large offset must not eat the variance (the naive formula would). */
	struct welford big = { 0 };
	for (i = 0; i < 8; i++)
		welford_add(&big, 1e9 + v[i]);
	assert_near(welford_sd(&big), sqrt(32.0 / 7), 1e-6);
}

static struct summary mk(size_t n, double mean, double sd)
{
	struct summary s = { .n = n, .mean = mean, .sd = sd };
	return s;
}

static void test_welch(void **state)
{
	static const struct {
		const char *what;
		size_t na;
		double ma, sa;
		size_t nb;
		double mb, sb;
		bool significant;
		double t;
	} cases[] = {
		/* t = -5 / sqrt(2.5 + 2.5) = -2.236, df 18: t(18) = 2.1009 */
		{ "clear difference", 10, 100, 5, 10, 105, 5, true, -2.2360680 },
		{ "within noise", 10, 100, 5, 10, 103, 5, false, -1.3416408 },
		/* unequal sizes and spreads: df = 20.45, taken as 20 */
		{ "unequal", 5, 10, 1, 20, 11, 3, false, -1.2403473 },
		{ "reversed", 10, 105, 5, 10, 100, 5, true, 2.2360680 },
		/* df 2: t(2) = 4.30, so |t| = 4 is not enough (the normal 1.96 would be) */
		{ "tiny samples", 2, 0, 1, 2, 4, 1, false, -4 },
		{ "tiny samples, larger gap", 2, 0, 1, 2, 5, 1, true, -5 },
		{ "equal", 30, 50, 2, 30, 50, 2, false, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct summary a = mk(cases[i].na, cases[i].ma, cases[i].sa);
		struct summary b = mk(cases[i].nb, cases[i].mb, cases[i].sb);
		double t;

		print_message("case: %s\n", cases[i].what);
		assert_int_equal(welch_significant(&a, &b, &t), cases[i].significant);
		assert_near(t, cases[i].t, EPS);
	}
}

static void test_welch_degenerate(void **state)
{
	struct summary one = mk(1, 5, 0), many = mk(10, 9, 1);
	struct summary flat_a = mk(5, 3, 0), flat_b = mk(5, 4, 0);
	double t;

	/* n < 2: nothing can be said */
	assert_false(welch_significant(&one, &many, &t));
	assert_true(isnan(t));
	assert_false(welch_significant(&many, &one, NULL));
	/* no spread on either side: any difference is real, none is not */
	assert_true(welch_significant(&flat_a, &flat_b, &t));
	assert_true(isinf(t) && t < 0);
	assert_false(welch_significant(&flat_a, &flat_a, &t));
	assert_near(t, 0, EPS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summarize),        cmocka_unit_test(test_summarize_empty),
		cmocka_unit_test(test_percentile),       cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_welford),          cmocka_unit_test(test_welch),
		cmocka_unit_test(test_welch_degenerate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
