// SPDX-License-Identifier: GPL-2.0-or-later
#include "ramp.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "xalloc.h"

static void push(struct ramp *r, char *value)
{
	r->values = xreallocarray(r->values, r->nsteps + 1, sizeof *r->values);
	r->values[r->nsteps++] = value;
}

/* "A..B xF" or "A..B +S": integers from A up to B. */
static int parse_series(const char *spec, struct ramp *r, const char **err)
{
	long from, to, by;
	char kind;
	int used = 0;

	if (sscanf(spec, "%ld..%ld %c%ld%n", &from, &to, &kind, &by, &used) != 4 ||
	    spec[used + strspn(spec + used, " \t")] != '\0' || (kind != 'x' && kind != '+')) {
		*err = "a series is FROM..TO xFACTOR or FROM..TO +STEP, e.g. 2..1024 x2";
		return -1;
	}
	if (from < 0 || to < from || (kind == 'x' && (by < 2 || from == 0)) ||
	    (kind == '+' && by < 1)) {
		*err = "a series needs 0 <= FROM <= TO, a factor of 2 or more (and FROM > 0), or a step of 1 or more";
		return -1;
	}
	for (long v = from; v <= to; v = kind == 'x' ? v * by : v + by) {
		if (r->nsteps == RAMP_MAX_STEPS) {
			*err = "more than 64 steps";
			return -1;
		}
		push(r, xasprintf("%ld", v));
	}
	return 0;
}

static int parse_list(const char *spec, struct ramp *r, const char **err)
{
	char *copy = xstrdup(spec), *save = NULL;

	for (char *v = strtok_r(copy, ", \t", &save); v != NULL;
	     v = strtok_r(NULL, ", \t", &save)) {
		if (r->nsteps == RAMP_MAX_STEPS) {
			free(copy);
			*err = "more than 64 steps";
			return -1;
		}
		push(r, xstrdup(v));
	}
	free(copy);
	if (r->nsteps == 0) {
		*err = "no values";
		return -1;
	}
	return 0;
}

int ramp_parse(const char *text, struct ramp *out, const char **err)
{
	const char *p = text + strspn(text, " \t"), *dot, *end;
	int rc;

	*out = (struct ramp){ 0 };
	end = p + strcspn(p, " \t");
	dot = memchr(p, '.', (size_t)(end - p));
	if (dot == NULL || dot == p || dot + 1 == end || *end == '\0') {
		*err = "expected LOAD.KEY and the values, e.g. cpu.procs 2..1024 x2";
		return -1;
	}
	out->load = xstrndup(p, (size_t)(dot - p));
	out->key = xstrndup(dot + 1, (size_t)(end - dot - 1));
	p = end + strspn(end, " \t");
	rc = strstr(p, "..") != NULL ? parse_series(p, out, err) : parse_list(p, out, err);
	if (rc < 0)
		ramp_free(out);
	return rc;
}

void ramp_free(struct ramp *r)
{
	for (size_t i = 0; i < r->nsteps; i++)
		free(r->values[i]);
	free(r->values);
	free(r->load);
	free(r->key);
	*r = (struct ramp){ 0 };
}

int until_parse(const char *text, struct until *out, const char **err)
{
	char *copy = xstrdup(text), *save = NULL;
	int rc = 0;

	*out = (struct until){ 0 };
	for (char *t = strtok_r(copy, "|", &save); t != NULL; t = strtok_r(NULL, "|", &save)) {
		char name[16], unit[8] = "";
		double v;
		int n = sscanf(t, " %15[a-z0-9] > %lf%7s", name, &v, unit);

		if (out->nterms == 4) {
			*err = "at most 4 terms";
			rc = -1;
			break;
		}
		if (n < 2) {
			*err = "a term is ratio > N, median > Nms or p95 > Nms";
			rc = -1;
			break;
		}
		if (strcmp(name, "ratio") == 0 && unit[0] == '\0')
			out->terms[out->nterms].figure = UNTIL_RATIO;
		else if (strcmp(name, "median") == 0 && strcmp(unit, "ms") == 0)
			out->terms[out->nterms].figure = UNTIL_MEDIAN;
		else if (strcmp(name, "p95") == 0 && strcmp(unit, "ms") == 0)
			out->terms[out->nterms].figure = UNTIL_P95;
		else {
			*err = "a term is ratio > N, median > Nms or p95 > Nms";
			rc = -1;
			break;
		}
		out->terms[out->nterms++].value = v;
	}
	if (rc == 0 && out->nterms == 0) {
		*err = "a term is ratio > N, median > Nms or p95 > Nms";
		rc = -1;
	}
	free(copy);
	return rc;
}

bool until_met(const struct until *u, double median_ms, double p95_ms, double ratio)
{
	for (int i = 0; i < u->nterms; i++) {
		double v = u->terms[i].figure == UNTIL_RATIO    ? ratio
			   : u->terms[i].figure == UNTIL_MEDIAN ? median_ms
								: p95_ms;

		if (!isnan(v) && v > u->terms[i].value)
			return true;
	}
	return false;
}

void until_format(const struct until *u, char *buf, size_t len)
{
	static const char *const names[] = { "ratio", "median", "p95" };
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < u->nterms && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s > %g%s", i ? " | " : "",
				 names[u->terms[i].figure], u->terms[i].value,
				 u->terms[i].figure == UNTIL_RATIO ? "" : "ms");
		if (n < 0)
			break;
		used += (size_t)n;
	}
}
