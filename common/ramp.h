// SPDX-License-Identifier: GPL-2.0-or-later
/* The knee search: a phase that ramps one key of one of its loads over a list
 * or a series of values, one step each, and stops at the first step where a
 * condition on the job's times holds. "ramp = cpu.procs 2..1024 x2" (a
 * geometric series), "fs.clients 1..16 +3" (arithmetic), "net.clients
 * 1,2,4,8" (a list); "until = ratio > 2 | p95 > 150ms". */
#ifndef LOADD_RAMP_H
#define LOADD_RAMP_H

#include <stdbool.h>
#include <stddef.h>

#define RAMP_MAX_STEPS 64

struct ramp {
	char *load;    /* the [load NAME] ramped */
	char *key;     /* its key */
	char **values; /* each step's value, as a profile would write it */
	size_t nsteps;
};

enum until_figure { UNTIL_RATIO, UNTIL_MEDIAN, UNTIL_P95 };

struct until {
	struct {
		enum until_figure figure;
		double value; /* ratio, or ms */
	} terms[4];
	int nterms; /* 0: run every step */
};

/* 0, or -1 with *err a static message. ramp_free() frees a parsed ramp. */
int ramp_parse(const char *text, struct ramp *out, const char **err);
void ramp_free(struct ramp *r);
int until_parse(const char *text, struct until *out, const char **err);
/* A step's figures hold the condition (any term; a figure that is NaN never does). */
bool until_met(const struct until *u, double median_ms, double p95_ms, double ratio);
/* "ratio > 2 | p95 > 150ms" back as text, for the report. */
void until_format(const struct until *u, char *buf, size_t len);

#endif
