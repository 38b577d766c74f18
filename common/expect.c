// SPDX-License-Identifier: GPL-2.0-or-later
#include "expect.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* How each metric is spelled and shown. */
static const struct {
	const char *name;
	enum { UNIT_PCT, UNIT_BYTES, UNIT_PLAIN } unit;
} metrics[EXP_METRIC_COUNT] = {
	[EXP_BUSY] = { "busy", UNIT_PCT },
	[EXP_PSI_CPU] = { "psi_cpu", UNIT_PCT },
	[EXP_PSI_MEMORY] = { "psi_memory", UNIT_PCT },
	[EXP_PSI_IO] = { "psi_io", UNIT_PCT },
	[EXP_AVAILABLE] = { "available", UNIT_BYTES },
	[EXP_MIB_S] = { "mib_s", UNIT_PLAIN },
	[EXP_OPS_S] = { "ops_s", UNIT_PLAIN },
	[EXP_CYCLES] = { "cycles", UNIT_PLAIN },
};

const char *expect_metric_name(enum expect_metric m)
{
	return m < EXP_METRIC_COUNT ? metrics[m].name : "?";
}

/* The value of a term, in the metric's unit, from [p, end). */
static int term_value(enum expect_metric m, const char *p, const char *end, double *out,
		      const char **err)
{
	char buf[64];
	size_t n = (size_t)(end - p);
	char *stop;

	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n == 0 || n >= sizeof buf) {
		*err = "a term needs a value, e.g. busy >= 90%";
		return -1;
	}
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (metrics[m].unit == UNIT_BYTES) {
		struct size_spec spec;

		if (parse_size(buf, &spec, err) < 0 || spec.kind != SIZE_BYTES) {
			*err = "available takes a size, e.g. 1G";
			return -1;
		}
		*out = (double)spec.bytes;
		return 0;
	}
	*out = strtod(buf, &stop);
	if (stop == buf || (*stop == '%' && metrics[m].unit != UNIT_PCT) ||
	    (*stop != '\0' && strcmp(stop, "%") != 0) || !isfinite(*out)) {
		*err = metrics[m].unit == UNIT_PCT ? "expected a percentage, e.g. 90%"
						   : "expected a number";
		return -1;
	}
	return 0;
}

/* "metric op value" from [p, end). */
static int parse_term(const char *p, const char *end, struct expect_term *t, const char **err)
{
	size_t len;
	int m;

	p = skip_blanks(p);
	for (len = 0; p + len < end && (isalnum((unsigned char)p[len]) || p[len] == '_'); len++)
		;
	for (m = 0; m < EXP_METRIC_COUNT; m++) {
		if (strlen(metrics[m].name) == len && strncmp(p, metrics[m].name, len) == 0)
			break;
	}
	if (m == EXP_METRIC_COUNT) {
		*err = "unknown figure (use busy, psi_cpu, psi_memory, psi_io, available, mib_s, "
		       "ops_s or cycles)";
		return -1;
	}
	t->metric = (enum expect_metric)m;
	p = skip_blanks(p + len);
	if (p < end && (*p == '>' || *p == '<')) {
		t->op[0] = *p++;
		t->op[1] = p < end && *p == '=' ? *p++ : '\0';
		t->op[2] = '\0';
	} else {
		*err = "expected >=, >, <= or < after the figure";
		return -1;
	}
	return term_value(t->metric, skip_blanks(p), end, &t->value, err);
}

int expect_parse(const char *text, struct expectation *out, const char **err)
{
	const char *p = skip_blanks(text);

	*out = (struct expectation){ 0 };
	if (strcmp(p, "none") == 0)
		return 0;
	for (;;) {
		const char *bar = strchr(p, '|');
		const char *end = bar != NULL ? bar : p + strlen(p);

		if (out->nterms == EXPECT_MAX_TERMS) {
			*err = "at most 4 terms";
			return -1;
		}
		if (parse_term(p, end, &out->terms[out->nterms], err) < 0)
			return -1;
		out->nterms++;
		if (bar == NULL)
			return 0;
		p = bar + 1;
	}
}

static bool holds(const struct expect_term *t, double v)
{
	if (strcmp(t->op, ">=") == 0)
		return v >= t->value;
	if (strcmp(t->op, ">") == 0)
		return v > t->value;
	if (strcmp(t->op, "<=") == 0)
		return v <= t->value;
	return v < t->value;
}

static void show(enum expect_metric m, double v, char *buf, size_t len)
{
	if (metrics[m].unit == UNIT_BYTES)
		format_bytes(v > 0 ? (uint64_t)v : 0, buf, len);
	else if (metrics[m].unit == UNIT_PCT)
		snprintf(buf, len, "%.1f%%", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

bool expect_met(const struct expectation *e, const struct achieved *a, char *why, size_t len)
{
	size_t used = 0;

	if (len > 0)
		why[0] = '\0';
	for (int i = 0; i < e->nterms; i++) {
		double v = a->value[e->terms[i].metric];

		if (isnan(v) || holds(&e->terms[i], v))
			return true;
	}
	for (int i = 0; i < e->nterms && used < len; i++) {
		const struct expect_term *t = &e->terms[i];
		char got[32], want[32];
		int n;

		show(t->metric, a->value[t->metric], got, sizeof got);
		show(t->metric, t->value, want, sizeof want);
		n = snprintf(why + used, len - used, "%s%s %s (expected %s %s)", i ? "; " : "",
			     metrics[t->metric].name, got, t->op, want);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return e->nterms == 0;
}
