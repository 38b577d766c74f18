// SPDX-License-Identifier: GPL-2.0-or-later
/* Did a figure change between two runs? The change is the ratio of the two
 * runs' medians with a confidence interval from a hierarchical bootstrap
 * (resample rounds, then the values within each drawn round), and the
 * verdict compares that interval with a band of practical equivalence.
 *
 * The round, not the single job, is the unit of replication: jobs of one
 * round share its cache state, writeback and neighbours, so they are
 * correlated, and rounds differ from one another by an offset no test inside
 * one round can see. Resampling at both levels carries both kinds of
 * variation into the interval (Kalibera & Jones, "Rigorous Benchmarking in
 * Reasonable Time", ISMM 2013; Davison & Hinkley, "Bootstrap Methods and
 * their Application", 1997, section 3.8). */
#ifndef LOADD_CHANGE_H
#define LOADD_CHANGE_H

#include <stddef.h>
#include <stdint.h>

/* The values of one run, grouped by round: round r holds
 * v[start_r .. start_r + len[r]) with start_r the sum of the lengths
 * before it. */
struct rounds {
	const double *v;
	const size_t *len;
	size_t nrounds;
};

struct change_opts {
	double threshold;   /* half-width of the equivalence band: 0.05 is +-5% */
	unsigned resamples; /* bootstrap replicates */
	uint64_t seed;      /* the same seed and data give the same interval */
};

#define CHANGE_THRESHOLD 0.05
#define CHANGE_RESAMPLES 2000u
#define CHANGE_SEED 0x6c6f616464u
#define CHANGE_MIN_ROUNDS 2u
#define CHANGE_MAX_ROUNDS_NEEDED 1000u

enum change_verdict {
	CHANGE_UNTESTABLE,   /* a side without values, or a median of 0 */
	CHANGE_EQUIVALENT,   /* the interval lies inside the band */
	CHANGE_LOWER,        /* ... wholly below it: B's median is lower */
	CHANGE_HIGHER,       /* ... wholly above it */
	CHANGE_INCONCLUSIVE, /* it straddles an edge of the band */
};

struct change {
	double median_a, median_b;
	double ratio;           /* median_b / median_a */
	double ci_low, ci_high; /* the ratio's 95% confidence interval */
	enum change_verdict verdict;
	/* When inconclusive: about how many rounds a side would bring the
	 * interval clear of the band's edge (capped at
	 * CHANGE_MAX_ROUNDS_NEEDED); 0 otherwise. */
	size_t rounds_needed;
};

/* The defaults above. */
void change_opts_default(struct change_opts *o);
/* Compares b with a. Rounds without values are skipped; a side with fewer
 * than CHANGE_MIN_ROUNDS rounds cannot show how much rounds differ, so its
 * verdict is never more than inconclusive. Returns 0, or -1 when the
 * comparison is untestable (verdict CHANGE_UNTESTABLE, figures NaN where
 * they do not exist). */
int change_estimate(const struct rounds *a, const struct rounds *b, const struct change_opts *o,
		    struct change *out);

/* The verdict from an interval alone (exposed for the tests). */
enum change_verdict change_verdict_of(double ci_low, double ci_high, double threshold);

/* A small, fast, seedable generator (splitmix64 seeding xoshiro256**), so
 * the intervals and the calibration test are reproducible. */
struct change_rng {
	uint64_t s[4];
};

void change_rng_seed(struct change_rng *r, uint64_t seed);
uint64_t change_rng_next(struct change_rng *r);
/* Uniform in [0, 1). */
double change_rng_uniform(struct change_rng *r);
/* Uniform in [0, n), n > 0. */
size_t change_rng_below(struct change_rng *r, size_t n);
/* Standard normal (Box-Muller). */
double change_rng_normal(struct change_rng *r);

#endif
