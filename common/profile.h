// SPDX-License-Identifier: GPL-2.0-or-later
/* Profiles: INI files that say which loads to run, in which phases, and how
 * the probe times its job. A profile is validated whole before anything
 * starts; problems are reported as "file:line: message". */
#ifndef LOADD_PROFILE_H
#define LOADD_PROFILE_H

#include "expect.h"
#include "ramp.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"

enum cache_mode { CACHE_WARM, CACHE_COLD };

struct run_def {
	long rounds;       /* the whole phase list, this many times */
	int64_t settle_ms; /* load ramp-up before the job is timed */
	char *baseline;    /* phase whose median is Ratio's denominator; NULL: first phase without
			      loads */
	char *user;        /* who loads and the job run as (as root); NULL: run_user.h's default */
};

struct tree_spec {
	long depth;     /* levels of directories below the root */
	long fanout;    /* directories per directory */
	long files;     /* files per directory */
	long file_size; /* bytes per file */
};

struct probe_def {
	char *job;          /* the command, as written: "ls -R {tree}" */
	char **argv;        /* the command split into words, {tree} not yet replaced */
	int64_t every_ms;   /* one job per slot of this length */
	int64_t timeout_ms; /* a job running longer is killed and recorded as failed */
	struct tree_spec tree;
};

struct phase_def {
	char *name;
	int line;
	int64_t duration_ms;   /* probing time, after settle */
	int64_t settle_ms;     /* -1: the [run] settle */
	int64_t settle_max_ms; /* the settle waits up to this long for a ramping load */
	int cache;             /* enum cache_mode */
	char **loads;          /* names of [load NAME] sections, NULL-terminated */
	size_t nloads;
	char **probes;      /* names of the probes it runs, NULL-terminated; NULL: every one */
	char *ramp_text;    /* ramp = ..., NULL: not a knee search */
	char *until_text;   /* until = ... */
	struct ramp ramp;   /* parsed; nsteps 0 when not ramped */
	struct until until; /* nterms 0: every step runs */
};

struct probe_ops; /* probe/probe.h: common/ knows no probe kind */

/* A [probe NAME] section (or the old [probe], which is the job probe named
 * job; a profile without any runs that job probe with its defaults). */
struct probe_inst_def {
	char *name;
	int line;                         /* 0: implied */
	char *type;                       /* the kind, e.g. "wakeup" */
	const struct probe_ops *ops;      /* NULL when probe kinds were not checked */
	const struct option_def *options; /* the table config was parsed with, or NULL */
	void *config;       /* the kind's parsed options; the job's is &profile->probe */
	char *options_text; /* its keys as written, "key = value" per line, for the record */
};

struct load_def {
	char *name;
	int line;
	char *type;     /* loader name, e.g. "cpu" */
	struct kv *kvs; /* every key but type, in file order */
	size_t nkv;
	/* Set by the validate callback: */
	const void *loader;               /* the loader's struct loader_ops */
	void *config;                     /* the loader's parsed options (xmalloc'd) */
	const struct option_def *options; /* the table config was parsed with, so
					    profile_free can free its strings */
	int64_t stall_ms;                 /* no progress this long flags the load as stalled */
	struct expectation expect;        /* what it must achieve, else its phase is weak */
};

struct profile {
	char *path;
	char *name; /* file name without .conf */
	char *text; /* the whole file, stored with each run */
	struct run_def run;
	struct probe_def probe;
	struct phase_def *phases;
	size_t nphases;
	struct probe_inst_def *probes; /* in file order */
	size_t nprobes;
	struct load_def *loads;
	size_t nloads;
};

/* Checks one [load NAME] section against its loader's options and fills
 * def->loader and def->config. Prints problems as "file:line: ..." to errs
 * and returns their number. */
typedef int (*load_validate_fn)(struct load_def *def, const char *file, FILE *errs);

/* A probe kind as the parser needs it. */
struct probe_kind {
	const char *name;                 /* the kind's own name */
	const struct option_def *options; /* the keys of its [probe NAME] sections */
	size_t config_size;               /* what the options fill */
	const struct probe_ops *ops;      /* kept in probe_inst_def.ops */
};

/* What a profile is checked against beyond its own syntax, supplied by the
 * program that links the loaders and the probe kinds (loadd). */
struct profile_checks {
	load_validate_fn load; /* NULL: loads unchecked */
	/* Fills *k with the kind NAME, false when there is none. NULL: a [probe
	 * NAME] section keeps its type and keys as written, unchecked (enough to
	 * read a stored profile's phases). */
	bool (*probe_kind)(const char *name, struct probe_kind *k);
	void (*probe_names)(char *buf, size_t len); /* "job, wakeup, ...", for messages */
};

/* Parses and validates the whole file. Returns the number of problems
 * printed to errs (0: *p is valid and must be freed with profile_free). An
 * unreadable file is one problem. checks may be NULL (nothing checked). */
int profile_load(const char *path, struct profile *p, const struct profile_checks *checks,
		 FILE *errs);
/* The same for a profile held in memory, such as the text stored with a run;
 * path only names it in messages. errs may be NULL: problems are counted, not
 * printed. */
int profile_parse_text(const char *path, const char *text, struct profile *p,
		       const struct profile_checks *checks, FILE *errs);
void profile_free(struct profile *p);

/* NAME (no slash, no .conf) is looked up as NAME.conf in ./config (not as
 * root), in /etc/loadd, in the installed profile directory and, for a loadd
 * run from its build tree, in its source's config/; anything else is a path.
 * Returns an xmalloc'd path or NULL with the places searched in *searched. */
char *profile_find(const char *name_or_path, char **searched);

/* Index of the probe NAME in p->probes, -1 when none. */
int profile_probe_index(const struct profile *p, const char *name);
/* Does the phase run probe i (its probes = list, or every probe)? */
bool profile_phase_runs_probe(const struct profile *p, const struct phase_def *ph, size_t i);
/* The job probe, or NULL when the profile has none. */
const struct probe_inst_def *profile_job_probe(const struct profile *p);

const struct load_def *profile_load_by_name(const struct profile *p, const char *name);
/* The phase Ratio divides by, or NULL when none runs without loads. */
const struct phase_def *profile_baseline(const struct profile *p);
/* Time the whole plan takes: rounds x sum(settle + duration). */
int64_t profile_total_ms(const struct profile *p);

extern const struct option_def run_options[];
extern const struct option_def probe_options[];
extern const struct option_def phase_options[];

#endif
