// SPDX-License-Identifier: GPL-2.0-or-later
/* The change statistics: the verdict's rules, figures worked out by hand,
 * reproducibility, and the calibration of the whole method on simulated runs
 * shaped like real ones (an offset per round, AR(1)-correlated jobs within a
 * round, lognormal times with a long right tail). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "change.h"

#define assert_near(got, want, eps)                                                                \
	do {                                                                                       \
		double got_ = (got), want_ = (want);                                               \
		if (!(fabs(got_ - want_) <= (eps)))                                                \
			fail_msg("%s = %.9g, want %.9g", #got, got_, want_);                       \
	} while (0)

static void test_verdict_rules(void **state)
{
	static const struct {
		double lo, hi;
		enum change_verdict want;
	} cases[] = {
		{ 0.97, 1.03, CHANGE_EQUIVALENT },
		{ 0.95, 1.05, CHANGE_EQUIVALENT }, /* the edges belong to the band */
		{ 0.80, 0.94, CHANGE_LOWER },
		{ 1.06, 1.30, CHANGE_HIGHER },
		{ 0.90, 1.01, CHANGE_INCONCLUSIVE }, /* straddles -5% */
		{ 1.02, 1.08, CHANGE_INCONCLUSIVE }, /* straddles +5% */
		{ 0.80, 1.20, CHANGE_INCONCLUSIVE }, /* wider than the band */
		{ NAN, 1.0, CHANGE_UNTESTABLE },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_int_equal(change_verdict_of(cases[i].lo, cases[i].hi, 0.05), cases[i].want);
	assert_int_equal(change_verdict_of(0.92, 0.99, 0.10), CHANGE_EQUIVALENT);
	assert_int_equal(change_verdict_of(0.92, 0.99, 0.05), CHANGE_INCONCLUSIVE);
	assert_int_equal(change_verdict_of(0.92, 0.94, 0.05), CHANGE_LOWER);
}

static struct change_opts opts(void)
{
	struct change_opts o;

	change_opts_default(&o);
	return o;
}

/* Every round of both sides alike: every replicate gives the same medians,
 * so the interval is the point. */
static void test_constant_rounds(void **state)
{
	const double a[] = { 1, 2, 3, 1, 2, 3, 1, 2, 3 }, b[] = { 2, 4, 6, 2, 4, 6, 2, 4, 6 };
	const size_t len[] = { 3, 3, 3 };
	struct rounds ra = { a, len, 3 }, rb = { b, len, 3 };
	struct change_opts o = opts();
	struct change c;

	/* A round of {1, 2, 3} resampled has other medians: only the point
	 * is exact here; the case below is exact throughout. */
	assert_int_equal(change_estimate(&ra, &rb, &o, &c), 0);
	assert_near(c.median_a, 2, 1e-12);
	assert_near(c.median_b, 4, 1e-12);
	assert_near(c.ratio, 2, 1e-12);
	assert_true(c.ci_low <= 2 && c.ci_high >= 2);

	{
		const double x[] = { 5, 5, 5, 5, 5, 5 }, y[] = { 4, 4, 4, 4, 4, 4 };
		const size_t l2[] = { 2, 2, 2 };
		struct rounds rx = { x, l2, 3 }, ry = { y, l2, 3 };

		assert_int_equal(change_estimate(&rx, &ry, &o, &c), 0);
		assert_near(c.ratio, 0.8, 1e-12);
		assert_near(c.ci_low, 0.8, 1e-12);
		assert_near(c.ci_high, 0.8, 1e-12);
		assert_int_equal(c.verdict, CHANGE_LOWER);
		assert_int_equal(change_estimate(&rx, &rx, &o, &c), 0);
		assert_int_equal(c.verdict, CHANGE_EQUIVALENT);
	}
}

/* Worked by hand: one value per round, two rounds a side, a = b =
 * {10, 12}. A replicate's median is 10, 11 or 12 with chances 1/4, 1/2, 1/4,
 * so 1/16 of the replicate ratios are 10/12, 1/16 are 12/10, and those are
 * the 2.5% and 97.5% points. Two rounds a side give t(2 df) = 4.302653, a
 * stretch of 4.302653 / 1.959964 = 2.195271 on log(12/10) = 0.182322:
 * the interval is exp(-+0.400245) = [0.670156, 1.492191]. To clear the
 * band, that half must shrink below log 1.05 = 0.048790:
 * 2 (0.400245 / 0.048790)^2 = 134.6, so 135 rounds. */
static void test_hand_interval(void **state)
{
	const double v[] = { 10, 12 };
	const size_t len[] = { 1, 1 };
	struct rounds r = { v, len, 2 };
	struct change_opts o = opts();
	struct change c;

	assert_int_equal(change_estimate(&r, &r, &o, &c), 0);
	assert_near(c.ratio, 1, 1e-12);
	assert_near(c.ci_low, 0.670156, 1e-6);
	assert_near(c.ci_high, 1.492191, 1e-6);
	assert_int_equal(c.verdict, CHANGE_INCONCLUSIVE);
	assert_int_equal(c.rounds_needed, 135);
}

static void test_untestable_and_one_round(void **state)
{
	const double v[] = { 10, 11, 12, 13 }, slow[] = { 20, 22, 24, 26 }, zero[] = { 0, 0 };
	const size_t one[] = { 4 }, none[] = { 0, 0 }, two[] = { 1, 1 };
	struct rounds r1 = { v, one, 1 }, s1 = { slow, one, 1 }, empty = { v, none, 2 };
	struct rounds z = { zero, two, 2 };
	struct change_opts o = opts();
	struct change c;

	assert_int_equal(change_estimate(&empty, &r1, &o, &c), -1);
	assert_int_equal(c.verdict, CHANGE_UNTESTABLE);
	assert_true(isnan(c.ratio));
	assert_int_equal(change_estimate(&z, &r1, &o, &c), -1);
	assert_int_equal(c.verdict, CHANGE_UNTESTABLE);
	/* Twice as slow, but within one round: not to be trusted. */
	assert_int_equal(change_estimate(&r1, &s1, &o, &c), 0);
	assert_near(c.ratio, 23.0 / 11.5, 1e-12);
	assert_int_equal(c.verdict, CHANGE_INCONCLUSIVE);
	assert_true(c.rounds_needed >= CHANGE_MIN_ROUNDS + 1);
}

static void test_reproducible(void **state)
{
	double a[60], b[60];
	const size_t len[] = { 20, 20, 20 };
	struct rounds ra = { a, len, 3 }, rb = { b, len, 3 };
	struct change_opts o = opts();
	struct change c1, c2, c3;
	struct change_rng rng;
	size_t i;

	change_rng_seed(&rng, 7);
	for (i = 0; i < 60; i++) {
		a[i] = 10 * exp(0.3 * change_rng_normal(&rng));
		b[i] = 11 * exp(0.3 * change_rng_normal(&rng));
	}
	change_estimate(&ra, &rb, &o, &c1);
	change_estimate(&ra, &rb, &o, &c2);
	assert_true(c1.ci_low == c2.ci_low && c1.ci_high == c2.ci_high);
	o.seed++;
	change_estimate(&ra, &rb, &o, &c3);
	assert_true(c1.ci_low != c3.ci_low || c1.ci_high != c3.ci_high);
	assert_near(c3.ci_low, c1.ci_low, 0.05);
}

/* ---- calibration ---- */

/* How the simulated runs vary, in logs of the job time. */
struct shape {
	double round_sd;         /* the offset each round draws */
	double job_sd;           /* each job's own noise (the AR(1) process' marginal sd) */
	double phi;              /* correlation of successive jobs */
	double tail_p;           /* chance a job lands in the tail */
	double tail_mu, tail_sd; /* ... and by how much it is slower, lognormally */
};

/* A run of rounds x jobs of a job taking base ms, times 1 + shift. */
static void simulate(struct change_rng *rng, const struct shape *sh, size_t rounds, size_t jobs,
		     double shift, double *v)
{
	double innov = sh->job_sd * sqrt(1 - sh->phi * sh->phi);
	size_t r, j;

	for (r = 0; r < rounds; r++) {
		double offset = sh->round_sd * change_rng_normal(rng);
		double e = sh->job_sd * change_rng_normal(rng);

		for (j = 0; j < jobs; j++) {
			double x;

			e = sh->phi * e + innov * change_rng_normal(rng);
			x = 40.0 * (1 + shift) * exp(offset + e);
			if (change_rng_uniform(rng) < sh->tail_p)
				x *= exp(sh->tail_mu + sh->tail_sd * change_rng_normal(rng));
			v[r * jobs + j] = x;
		}
	}
}

#define ROUNDS 3
#define JOBS 30

struct tally {
	size_t pairs, lower, higher, equivalent, inconclusive;
};

static void run_pairs(const struct shape *sh, double shift, size_t pairs, uint64_t seed,
		      const struct change_opts *o, struct tally *t)
{
	static double a[ROUNDS * JOBS], b[ROUNDS * JOBS];
	const size_t len[ROUNDS] = { JOBS, JOBS, JOBS };
	struct rounds ra = { a, len, ROUNDS }, rb = { b, len, ROUNDS };
	struct change_rng rng;
	struct change_opts each = *o;
	size_t i;

	memset(t, 0, sizeof *t);
	change_rng_seed(&rng, seed);
	for (i = 0; i < pairs; i++) {
		struct change c;

		simulate(&rng, sh, ROUNDS, JOBS, 0, a);
		simulate(&rng, sh, ROUNDS, JOBS, shift, b);
		each.seed = o->seed + i;
		change_estimate(&ra, &rb, &each, &c);
		t->pairs++;
		t->lower += c.verdict == CHANGE_LOWER;
		t->higher += c.verdict == CHANGE_HIGHER;
		t->equivalent += c.verdict == CHANGE_EQUIVALENT;
		t->inconclusive += c.verdict == CHANGE_INCONCLUSIVE;
	}
	print_message("shape round %.2f job %.2f phi %.2f tail %.2f, shift %+.0f%%: %zu pairs, "
		      "lower %zu, higher %zu, same %zu, inconclusive %zu\n",
		      sh->round_sd, sh->job_sd, sh->phi, sh->tail_p, shift * 100, t->pairs,
		      t->lower, t->higher, t->equivalent, t->inconclusive);
}

/* The default profile's shape, 3 rounds x 30 jobs: rounds 3% apart (sd of
 * the log), jobs 10% apart with a correlation of 0.5 from one to the next,
 * and one job in 20 about 2.5 times slower (lognormal, sd 0.4). */
static const struct shape typical = { 0.03, 0.10, 0.5, 0.05, 0.9, 0.4 };
/* A noisier machine: rounds 10% apart, jobs more correlated. */
static const struct shape noisy = { 0.10, 0.35, 0.8, 0.10, 1.2, 0.6 };

#define AA_PAIRS 1000
#define SHIFT_PAIRS 250

static void test_calibration_aa(void **state)
{
	struct change_opts o = opts();
	struct tally t;

	run_pairs(&typical, 0, AA_PAIRS, 1, &o, &t);
	assert_true(t.lower + t.higher <= AA_PAIRS / 20);
	run_pairs(&noisy, 0, AA_PAIRS, 2, &o, &t);
	assert_true(t.lower + t.higher <= AA_PAIRS / 20);
}

static void test_calibration_shift(void **state)
{
	struct change_opts o = opts();
	struct tally t;

	run_pairs(&typical, 0.20, SHIFT_PAIRS, 3, &o, &t);
	assert_true(t.higher * 5 >= SHIFT_PAIRS * 4);
	assert_true(t.lower == 0);
	run_pairs(&typical, -0.20, SHIFT_PAIRS, 4, &o, &t);
	assert_true(t.lower * 5 >= SHIFT_PAIRS * 4);
	assert_true(t.higher == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_rules),
		cmocka_unit_test(test_constant_rounds),
		cmocka_unit_test(test_hand_interval),
		cmocka_unit_test(test_untestable_and_one_round),
		cmocka_unit_test(test_reproducible),
		cmocka_unit_test(test_calibration_aa),
		cmocka_unit_test(test_calibration_shift),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
