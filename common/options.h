// SPDX-License-Identifier: GPL-2.0-or-later
/* Options as data (the fio way): one table per profile section or loader
 * gives each key's type, where it is stored, its default, range and help. The
 * same table validates a profile section and documents it (--list-loaders,
 * README's profile reference). */
#ifndef LOADD_OPTIONS_H
#define LOADD_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_INT,      /* long, within [min, max] */
	OPT_BOOL,     /* bool */
	OPT_DURATION, /* int64_t milliseconds, within [min, max] ms */
	OPT_SIZE,     /* struct size_spec; min/max bound SIZE_BYTES values */
	OPT_STRING,   /* char *, xstrdup'd */
	OPT_ENUM,     /* int: index into choices */
	OPT_CUSTOM,   /* parsed by the parse callback */
};

struct option_def {
	const char *key;
	enum opt_type type;
	size_t offset;              /* offsetof(config struct, field) */
	const char *def;            /* default, written as in a profile; NULL: none */
	long long min;              /* ranges for OPT_INT, OPT_DURATION (ms) and OPT_SIZE */
	long long max;              /* (bytes); min == max == 0 means unbounded */
	const char *const *choices; /* OPT_ENUM: NULL-terminated */
	int (*parse)(const char *value, void *dst, const char **err); /* OPT_CUSTOM */
	const char *help;
};

/* A key = value line of a profile, with where it came from. */
struct kv {
	char *key;
	char *value;
	int line;
};

/* Fills cfg with every default, then applies kvs. Each problem is printed to
 * errs as "file:line: message". Returns the number of problems (0 = valid).
 * A key without a default keeps what cfg holds (a string becomes NULL).
 * section is written without brackets, as in "phase warm". */
int options_apply(const struct option_def *table, void *cfg, const struct kv *kvs, size_t nkv,
		  const char *file, const char *section, FILE *errs);
/* Frees the OPT_STRING fields of cfg. */
void options_free(const struct option_def *table, void *cfg);
const struct option_def *options_find(const struct option_def *table, const char *key);
/* "integer 1..1024", "duration", "size", "one of: process, thread" */
void options_describe_type(const struct option_def *opt, char *buf, size_t len);
/* One line per key: "  key = default    help (type)", for --list-loaders. */
void options_print(const struct option_def *table, FILE *fp);

#endif
