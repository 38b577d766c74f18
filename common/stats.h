// SPDX-License-Identifier: GPL-2.0-or-later
/* Statistics for the report: order statistics of a sample set, and a
 * running mean/variance (Welford) for live views. */
#ifndef LOADD_STATS_H
#define LOADD_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct summary {
	size_t n;
	double mean;
	double sd; /* sample standard deviation (n - 1); 0 when n < 2 */
	double min;
	double median;
	double p95;
	double p99;
	double max;
	double ci_low;  /* 95% confidence interval of the mean (Student's t) */
	double ci_high; /* equal to the mean when n < 2 */
};

/* Sorts v in place and fills s. n == 0 gives all-NaN figures and n = 0. */
void summarize(double *v, size_t n, struct summary *s);
/* Percentile p (0..100) of sorted data, interpolated linearly between ranks
 * (Hyndman & Fan type 7, as R and NumPy do by default). */
double percentile_sorted(const double *sorted, size_t n, double p);
/* Two-sided 97.5% quantile of Student's t with df degrees of freedom. */
double t_quantile_975(size_t df);

struct welford {
	size_t n;
	double mean;
	double m2;
};

void welford_add(struct welford *w, double x);
double welford_sd(const struct welford *w);

/* Welch's t-test of two summaries: true when the means differ at the 5%
 * level; *t gets the statistic. */
bool welch_significant(const struct summary *a, const struct summary *b, double *t);

/* Mann-Whitney U (Wilcoxon rank-sum) test of two sample sets: does a value
 * of b tend to be larger or smaller than a value of a? Ranks make it robust
 * to the long tails response times have, where a few outliers move a mean
 * (and Welch's t) far more than they move a typical job. */
struct rank_test {
	size_t na, nb;
	double u;  /* U of b: pairs (a_i, b_j) with b_j > a_i, a tie counting 1/2 */
	double z;  /* normal approximation, tie- and continuity-corrected; > 0: b larger */
	double p;  /* two-sided p-value */
	int shift; /* +1 b larger, -1 b smaller at the 5% level, 0 no significant difference */
};

/* Fills r as R's wilcox.test(a, b, exact = FALSE, correct = TRUE) does;
 * a and b are left as they are. Returns -1 (figures NaN, shift 0) when
 * either set is empty. */
int mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct rank_test *r);

/* qsort order of doubles, ascending. */
int cmp_double(const void *a, const void *b);

#endif
