// SPDX-License-Identifier: GPL-2.0-or-later
/* What a load is expected to achieve, so that a load that did not load is
 * reported weak instead of as "no slowdown". An expectation is one or more
 * terms joined by '|', any of which suffices: "busy >= 90%",
 * "psi_memory > 0% | available <= 1G". Each loader has a default (its
 * loader_ops.expect); a [load] section's `expect =` replaces it, and
 * `expect = none` turns the check off. */
#ifndef LOADD_EXPECT_H
#define LOADD_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

enum expect_metric {
	EXP_BUSY,    /* mean CPU busy %, all CPUs, over the probe window */
	EXP_PSI_CPU, /* mean PSI some, % */
	EXP_PSI_MEMORY,
	EXP_PSI_IO,
	EXP_AVAILABLE, /* lowest MemAvailable, bytes */
	EXP_MIB_S,     /* the load's MiB/s over the window */
	EXP_OPS_S,     /* the load's ops/s (its own unit: passes, transfers) */
	EXP_CYCLES,    /* the load's cycles during the window */
	EXP_METRIC_COUNT
};

/* What the window saw: NaN where unknown (no PSI, no samples). */
struct achieved {
	double value[EXP_METRIC_COUNT];
};

#define EXPECT_MAX_TERMS 4

struct expect_term {
	enum expect_metric metric;
	char op[3]; /* ">=", ">", "<=", "<" */
	double value;
};

struct expectation {
	struct expect_term terms[EXPECT_MAX_TERMS];
	int nterms; /* 0: none, never weak */
};

/* 0, or -1 with *err a static message completing "expect: ...". */
int expect_parse(const char *text, struct expectation *out, const char **err);
/* true when a term holds (or there is none, or a figure is unknown: an
 * expectation that cannot be judged is not a weak load). Else writes what
 * was reached against what was expected to why: "busy 41.2% (expected >=
 * 90%)", the terms joined by "; ". */
bool expect_met(const struct expectation *e, const struct achieved *a, char *why, size_t len);
/* A metric's name as expectations spell it. */
const char *expect_metric_name(enum expect_metric m);

#endif
