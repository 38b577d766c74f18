/* Statistics for the report: order statistics of a sample set, and a
 * running mean/variance (Welford) for live views. */
#ifndef LOADD_STATS_H
#define LOADD_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct summary {
	size_t n;
	double mean;
	double sd;      /* sample standard deviation (n - 1); 0 when n < 2 */
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

#endif
