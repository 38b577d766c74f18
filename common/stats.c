// SPDX-License-Identifier: GPL-2.0-or-later
#include "stats.h"

#include <math.h>
#include <stdlib.h>

#include "xalloc.h"

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double percentile_sorted(const double *sorted, size_t n, double p)
{
	double h, frac;
	size_t lo;

	if (n == 0)
		return NAN;
	if (p <= 0)
		return sorted[0];
	if (p >= 100)
		return sorted[n - 1];
	/* Type 7: rank h = (n - 1) p, interpolate between floor(h) and the next. */
	h = (double)(n - 1) * p / 100.0;
	lo = (size_t)h;
	frac = h - (double)lo;
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

/* Two-sided 95% points of Student's t, df 1..30 (to 6 places). */
static const double t975_table[30] = {
	12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
	2.262157,  2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
	2.109816,  2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
	2.059539,  2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
};

double t_quantile_975(size_t df)
{
	/* The normal quantile of 0.975. */
	const double z = 1.959963984540054;
	double n, z2;

	if (df == 0)
		return NAN;
	if (df <= 30)
		return t975_table[df - 1];
	/* Cornish-Fisher expansion in 1/df: within 3e-8 of the exact value
	 * from df 31 on, and closer as df grows. */
	n = (double)df;
	z2 = z * z;
	return z + z * (z2 + 1) / (4 * n) + z * ((5 * z2 + 16) * z2 + 3) / (96 * n * n) +
	       z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / (384 * n * n * n) +
	       z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) /
		       (92160 * n * n * n * n);
}

void summarize(double *v, size_t n, struct summary *s)
{
	double sum = 0, ss = 0, half;
	size_t i;

	s->n = n;
	if (n == 0) {
		s->mean = s->sd = s->min = s->median = s->p95 = s->p99 = s->max = NAN;
		s->ci_low = s->ci_high = NAN;
		return;
	}
	qsort(v, n, sizeof *v, cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	/* Two passes: the sum of squared deviations loses nothing to
	 * cancellation the way sum(x^2) - n mean^2 does. */
	for (i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	s->min = v[0];
	s->max = v[n - 1];
	s->median = percentile_sorted(v, n, 50);
	s->p95 = percentile_sorted(v, n, 95);
	s->p99 = percentile_sorted(v, n, 99);
	if (n < 2) {
		s->ci_low = s->ci_high = s->mean;
		return;
	}
	half = t_quantile_975(n - 1) * s->sd / sqrt((double)n);
	s->ci_low = s->mean - half;
	s->ci_high = s->mean + half;
}

void welford_add(struct welford *w, double x)
{
	double delta = x - w->mean;

	w->n++;
	w->mean += delta / (double)w->n;
	w->m2 += delta * (x - w->mean);
}

double welford_sd(const struct welford *w)
{
	if (w->n < 2)
		return 0;
	return sqrt(w->m2 / (double)(w->n - 1));
}

bool welch_significant(const struct summary *a, const struct summary *b, double *t)
{
	double va, vb, se2, df, stat;

	if (a->n < 2 || b->n < 2) {
		if (t)
			*t = NAN;
		return false;
	}
	va = a->sd * a->sd / (double)a->n;
	vb = b->sd * b->sd / (double)b->n;
	se2 = va + vb;
	if (se2 == 0) {
		/* No spread at all: any difference of the means is real. */
		stat = a->mean == b->mean ? 0 : copysign(INFINITY, a->mean - b->mean);
		if (t)
			*t = stat;
		return a->mean != b->mean;
	}
	stat = (a->mean - b->mean) / sqrt(se2);
	if (t)
		*t = stat;
	/* Welch-Satterthwaite degrees of freedom, rounded down: the quantile
	 * of fewer df is larger, so the test errs on the cautious side. */
	df = se2 * se2 / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	if (df < 1)
		df = 1;
	return fabs(stat) > t_quantile_975((size_t)df);
}

/* A value of the pooled sample, and which set it came from. */
struct pooled {
	double v;
	bool in_b;
};

static int cmp_pooled(const void *x, const void *y)
{
	return cmp_double(&((const struct pooled *)x)->v, &((const struct pooled *)y)->v);
}

int mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct rank_test *r)
{
	size_t n = na + nb, i, j, k;
	struct pooled *all;
	double rank_sum_b = 0, ties = 0, var, d;

	r->na = na;
	r->nb = nb;
	r->shift = 0;
	if (na == 0 || nb == 0) {
		r->u = r->z = r->p = NAN;
		return -1;
	}
	all = xreallocarray(NULL, n, sizeof *all);
	for (i = 0; i < na; i++)
		all[i] = (struct pooled){ a[i], false };
	for (i = 0; i < nb; i++)
		all[na + i] = (struct pooled){ b[i], true };
	qsort(all, n, sizeof *all, cmp_pooled);
	/* Ranks 1..n; a run of equal values all get the mean of their ranks,
	 * and each run of t ties shrinks the variance by t^3 - t. */
	for (i = 0; i < n; i = j) {
		double t, mid_rank;

		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		t = (double)(j - i);
		mid_rank = (double)(i + 1 + j) / 2;
		for (k = i; k < j; k++)
			if (all[k].in_b)
				rank_sum_b += mid_rank;
		ties += t * t * t - t;
	}
	free(all);

	r->u = rank_sum_b - (double)nb * (double)(nb + 1) / 2;
	var = (double)na * (double)nb / 12 *
	      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (var <= 0) {
		/* Every value equal: nothing tells the sets apart. */
		r->z = 0;
		r->p = 1;
		return 0;
	}
	/* U moves in steps of 1/2 at least: take half a step towards the mean
	 * before using the continuous normal curve. */
	d = r->u - (double)na * (double)nb / 2;
	if (d > 0)
		d -= 0.5;
	else if (d < 0)
		d += 0.5;
	r->z = d / sqrt(var);
	r->p = fmin(1, erfc(fabs(r->z) / M_SQRT2));
	if (r->p < 0.05)
		r->shift = r->z > 0 ? 1 : -1;
	return 0;
}
