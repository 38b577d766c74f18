// SPDX-License-Identifier: GPL-2.0-or-later
/* Study tables: the report prints the primitive probes as the studies that
 * measured them printed their figures (creation us per mode, switch us by
 * members x size, IPC latency by mechanism ...), each phase's table side by
 * side. A probe kind says where its figures go with a study_place array in
 * its probe_ops; the report reads a run's probes with their stored options,
 * makes each one's row and column labels from them, and groups the probes of
 * the run by table. The declarations are plain data, so the report (in
 * common/) gets them from the outside: see report_study.h. */
#ifndef LOADD_STUDY_H
#define LOADD_STUDY_H

#include <stddef.h>

#include "options.h"
#include "records.h"

/* Which figure of a probe's records a place shows. */
enum study_figure {
	STUDY_VALUE, /* the figure in its units (a histogram probe's: the value of each op) */
	/* Voluntary + involuntary context switches per operation, operations
	 * being wall time / value (a probe whose value is time per operation). */
	STUDY_SWITCHES_PER_OP,
};

/* Where a probe's figures go. Labels are templates over the probe's options
 * as the profile wrote them (a key it did not write reads as its default):
 * "{mode}", "{members}", "{size} bytes"; "{variant}" is the record's variant
 * (variant_label names it when set). Rows and columns sort by the values of
 * their keys (numbers and sizes by value, choices in their table's order,
 * variants by number), then by the run's probe order. */
struct study_place {
	const char *table;  /* its title, which also names it: "Creation (spawn)" */
	const char *rows;   /* what the rows are, above their labels: "mode" */
	const char *row;    /* the row label's template */
	const char *column; /* the column label's template; NULL: the probe's name */
	const char *unit;   /* of its cells ("us", "ns", "MB/s"); times convert */
	enum study_figure figure;
	/* Optional: the label of {variant} (a size a probe cycles through). */
	void (*variant_label)(const char *options_text, int variant, char *buf, size_t len);
	/* Optional: what a sample with no figure says, shown in a cell that has
	 * no figure ("over the limit 8192"); leaves buf "" when it says nothing. */
	void (*note)(const struct sample *s, char *buf, size_t len);
};

/* A probe kind with study tables, as the report needs it. */
struct study_kind {
	const char *type;                 /* the kind, as a run's probes row names it */
	const struct option_def *options; /* its keys' types and defaults */
	const struct study_place *places; /* ended by a NULL table */
};

/* A key's value in a probe's stored options ("key = value" lines), else its
 * default in options, else "": for variant_label. xmalloc'd. */
char *study_option(const struct option_def *options, const char *options_text, const char *key);

#endif
