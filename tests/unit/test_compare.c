// SPDX-License-Identifier: GPL-2.0-or-later
/* The verdict loadctl compare gives: the Mann-Whitney U test against values
 * worked out by hand (what R's wilcox.test(a, b, exact = FALSE) prints). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stats.h"

#define EPS 1e-6
#define MAXN 16

#define assert_near(got, want, eps)                                                                \
	do {                                                                                       \
		double got_ = (got), want_ = (want);                                               \
		if (!(fabs(got_ - want_) <= (eps)))                                                \
			fail_msg("%s = %.9g, want %.9g", #got, got_, want_);                       \
	} while (0)

struct mw_case {
	const char *what;
	double a[MAXN];
	size_t na;
	double b[MAXN];
	size_t nb;
	double u, z, p;
	int shift; /* +1 B slower, -1 B faster, 0 no significant change */
};

static const struct mw_case cases[] = {
	/* By hand. Pooled and ranked, ties sharing their mean rank:
	 *   2 2 | 3 | 4 | 5 5 | 6 6 | 7 | 8 | 9 | 10
	 *   1.5 1.5 (A A), 3 (A), 4 (A), 5.5 5.5 (A B), 7.5 7.5 (A B), 9 10 11 12 (B)
	 * B's rank sum 5.5 + 7.5 + 9 + 10 + 11 + 12 = 55, so U = 55 - 6*7/2 = 34
	 * (and A's U = 36 - 34 = 2). Mean of U 6*6/2 = 18. Three pairs of ties
	 * take 3 * (2^3 - 2) = 18 off: var = 36/12 * (13 - 18/(12*11)) = 38.5909,
	 * sd 6.21216; z = (34 - 18 - 0.5) / 6.21216 = 2.49511, two-sided
	 * p = erfc(2.49511 / sqrt 2) = 0.012592: B is slower. */
	{ "textbook, with ties",
	  { 3, 4, 2, 6, 2, 5 },
	  6,
	  { 9, 7, 5, 10, 6, 8 },
	  6,
	  34,
	  2.49510711,
	  0.01259191,
	  1 },
	{ "the same, the other way round",
	  { 9, 7, 5, 10, 6, 8 },
	  6,
	  { 3, 4, 2, 6, 2, 5 },
	  6,
	  2,
	  -2.49510711,
	  0.01259191,
	  -1 },
	/* U = 64 of 64 pairs; var = 64/12 * 17, z = 31.5 / 9.5219 */
	{ "clearly apart",
	  { 1, 2, 3, 4, 5, 6, 7, 8 },
	  8,
	  { 11, 12, 13, 14, 15, 16, 17, 18 },
	  8,
	  64,
	  3.30816170,
	  0.00093911,
	  1 },
	{ "identical sets", { 1, 2, 3, 4, 5 }, 5, { 1, 2, 3, 4, 5 }, 5, 12.5, 0, 1, 0 },
	/* every value tied: the variance is 0 and nothing differs */
	{ "constant", { 5, 5, 5 }, 3, { 5, 5 }, 2, 3, 0, 1, 0 },
	/* B's mean is 35 times A's, its typical job the same: no change. */
	{ "one huge outlier",
	  { 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 },
	  10,
	  { 10, 11, 12, 13, 14, 15, 16, 17, 18, 5000 },
	  10,
	  50.5,
	  0,
	  1,
	  0 },
	/* Completely apart, yet two jobs each cannot show it (exact p = 1/3):
	 * var = 4/12 * 5, z = 1.5 / 1.29099 */
	{ "two jobs each", { 1, 2 }, 2, { 3, 4 }, 2, 4, 1.16189500, 0.24527812, 0 },
	/* four each, apart: the smallest sets that can (exact p = 2/70) */
	{ "four jobs each", { 1, 2, 3, 4 }, 4, { 5, 6, 7, 8 }, 4, 16, 2.16506351, 0.03038282, 1 },
	{ "one against many",
	  { 100 },
	  1,
	  { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
	  12,
	  0,
	  -1.46993683,
	  0.14157886,
	  0 },
};

static void test_mann_whitney(void **state)
{
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct mw_case *c = &cases[i];
		double a[MAXN], b[MAXN];
		struct rank_test r;

		print_message("case: %s\n", c->what);
		memcpy(a, c->a, sizeof a);
		memcpy(b, c->b, sizeof b);
		assert_int_equal(mann_whitney(a, c->na, b, c->nb, &r), 0);
		assert_int_equal(r.na, c->na);
		assert_int_equal(r.nb, c->nb);
		assert_near(r.u, c->u, EPS);
		assert_near(r.z, c->z, EPS);
		assert_near(r.p, c->p, EPS);
		assert_int_equal(r.shift, c->shift);
		/* the caller's arrays are left as they were */
		assert_memory_equal(a, c->a, sizeof a);
		assert_memory_equal(b, c->b, sizeof b);
	}
}

/* Swapping the sets mirrors U and z and keeps p. */
static void test_mann_whitney_symmetry(void **state)
{
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct mw_case *c = &cases[i];
		struct rank_test ab, ba;

		print_message("case: %s\n", c->what);
		mann_whitney(c->a, c->na, c->b, c->nb, &ab);
		mann_whitney(c->b, c->nb, c->a, c->na, &ba);
		assert_near(ba.u, (double)(c->na * c->nb) - ab.u, EPS);
		assert_near(ba.z, -ab.z, EPS);
		assert_near(ba.p, ab.p, EPS);
		assert_int_equal(ba.shift, -ab.shift);
	}
}

static void test_mann_whitney_empty(void **state)
{
	const double some[] = { 1, 2, 3 };
	struct rank_test r;

	assert_int_equal(mann_whitney(some, 3, NULL, 0, &r), -1);
	assert_true(isnan(r.u) && isnan(r.z) && isnan(r.p));
	assert_int_equal(r.shift, 0);
	assert_int_equal(mann_whitney(NULL, 0, some, 3, &r), -1);
	assert_int_equal(r.shift, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mann_whitney),
		cmocka_unit_test(test_mann_whitney_symmetry),
		cmocka_unit_test(test_mann_whitney_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
