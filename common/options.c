// SPDX-License-Identifier: GPL-2.0-or-later
#include "options.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "parse.h"
#include "xalloc.h"

/* What a value of each type is called in "invalid <type> 'v'" messages. */
static const char *type_noun(enum opt_type type)
{
	switch (type) {
	case OPT_INT: return "integer";
	case OPT_BOOL: return "boolean";
	case OPT_DURATION: return "duration";
	case OPT_SIZE: return "size";
	case OPT_STRING: return "string";
	case OPT_ENUM: return "value";
	case OPT_CUSTOM: return "value";
	}
	return "value";
}

static bool has_range(const struct option_def *opt)
{
	return opt->min != 0 || opt->max != 0;
}

/* Milliseconds as a profile spells them: "10ms", "1m30s", "1h". */
static void format_duration(long long ms, char *buf, size_t len)
{
	static const struct {
		const char *name;
		long long ms;
	} units[] = { { "h", 3600000 }, { "m", 60000 }, { "s", 1000 }, { "ms", 1 } };
	size_t used = 0, i;

	buf[0] = '\0';
	if (ms <= 0) {
		snprintf(buf, len, "%lld", ms);
		return;
	}
	for (i = 0; i < sizeof units / sizeof units[0] && used < len; i++) {
		if (ms >= units[i].ms) {
			int n = snprintf(buf + used, len - used, "%lld%s", ms / units[i].ms,
					 units[i].name);
			if (n < 0)
				return;
			used += (size_t)n;
			ms %= units[i].ms;
		}
	}
}

/* A range bound written in the option's own units. */
static void format_bound(const struct option_def *opt, long long v, char *buf, size_t len)
{
	struct size_spec spec = { .kind = SIZE_BYTES };

	switch (opt->type) {
	case OPT_DURATION: format_duration(v, buf, len); break;
	case OPT_SIZE:
		spec.bytes = v < 0 ? 0 : (uint64_t)v;
		size_format(&spec, buf, len);
		break;
	default: snprintf(buf, len, "%lld", v); break;
	}
}

/* "1..1000", "at least 1", "10ms..1h". */
static void format_range(const struct option_def *opt, char *buf, size_t len)
{
	char lo[32], hi[32];

	format_bound(opt, opt->min, lo, sizeof lo);
	format_bound(opt, opt->max, hi, sizeof hi);
	if (opt->max == LLONG_MAX)
		snprintf(buf, len, "at least %s", lo);
	else
		snprintf(buf, len, "%s..%s", lo, hi);
}

/* Parses value into the field; returns 0, or -1 with *err. Sets *number to
 * the value to range-check, *ranged to whether there is one. */
static int parse_value(const struct option_def *opt, const char *value, void *field,
		       long long *number, bool *ranged, const char **err)
{
	const char *const *c;
	struct size_spec size;
	int64_t ms;
	long l;
	bool b;

	*ranged = false;
	switch (opt->type) {
	case OPT_INT:
		if (parse_long(value, &l, err) < 0)
			return -1;
		*(long *)field = l;
		*number = l;
		*ranged = true;
		return 0;
	case OPT_BOOL:
		if (parse_bool(value, &b, err) < 0)
			return -1;
		*(bool *)field = b;
		return 0;
	case OPT_DURATION:
		if (parse_duration_ms(value, &ms, err) < 0)
			return -1;
		*(int64_t *)field = ms;
		*number = ms;
		*ranged = true;
		return 0;
	case OPT_SIZE:
		if (parse_size(value, &size, err) < 0)
			return -1;
		*(struct size_spec *)field = size;
		/* Only a plain size can be checked before the machine is known. */
		*number = (long long)size.bytes;
		*ranged = size.kind == SIZE_BYTES;
		return 0;
	case OPT_STRING:
		free(*(char **)field);
		*(char **)field = xstrdup(value);
		return 0;
	case OPT_ENUM:
		for (c = opt->choices; *c != NULL; c++) {
			if (strcmp(*c, value) == 0) {
				*(int *)field = (int)(c - opt->choices);
				return 0;
			}
		}
		*err = "not one of the choices";
		return -1;
	case OPT_CUSTOM: return opt->parse(value, field, err);
	}
	*err = "unknown option type";
	return -1;
}

static bool in_range(const struct option_def *opt, long long v)
{
	return !has_range(opt) || (v >= opt->min && v <= opt->max);
}

/* Why a value of an enum is wrong: the choices themselves. */
static void print_choices(const struct option_def *opt, FILE *errs)
{
	const char *const *c;

	for (c = opt->choices; *c != NULL; c++)
		fprintf(errs, "%s%s", c == opt->choices ? "" : c[1] == NULL ? " or " : ", ", *c);
}

/* A table's own default that does not parse is a bug in the program, not in
 * the user's profile. */
static void apply_default(const struct option_def *opt, void *cfg)
{
	void *field = (char *)cfg + opt->offset;
	const char *err = NULL;
	long long number = 0;
	bool ranged;

	if ((opt->type == OPT_ENUM && opt->choices == NULL) ||
	    (opt->type == OPT_CUSTOM && opt->parse == NULL))
		fatalx("option table: %s: %s without its %s", opt->key,
		       opt->type == OPT_ENUM ? "enum" : "custom option",
		       opt->type == OPT_ENUM ? "choices" : "parser");
	if (opt->type == OPT_STRING)
		*(char **)field = NULL;
	if (opt->def == NULL)
		return;
	if (parse_value(opt, opt->def, field, &number, &ranged, &err) < 0)
		fatalx("option table: %s: bad default '%s': %s", opt->key, opt->def, err);
	if (ranged && !in_range(opt, number))
		fatalx("option table: %s: default '%s' is out of its own range", opt->key,
		       opt->def);
}

/* Optimal string alignment distance: edits, with a swap of two neighbours
 * counting as one (the commonest typo). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t *d, r;

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	d = xcalloc((la + 1) * (lb + 1), sizeof *d);
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (i = 0; i <= la; i++)
		D(i, 0) = i;
	for (j = 0; j <= lb; j++)
		D(0, j) = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = D(i - 1, j) + 1;

			if (D(i, j - 1) + 1 < best)
				best = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < best)
				best = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    D(i - 2, j - 2) + 1 < best)
				best = D(i - 2, j - 2) + 1;
			D(i, j) = best;
		}
	}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}

/* The table's key closest to an unknown one, if it is close enough to be a
 * typo (at most 2 edits, and fewer edits than the key has letters). */
static const char *suggest_key(const struct option_def *table, const char *key)
{
	const struct option_def *opt;
	const char *best = NULL;
	size_t best_d = 3;

	for (opt = table; opt->key != NULL; opt++) {
		size_t d = edit_distance(key, opt->key);

		if (d < best_d && d < strlen(key)) {
			best = opt->key;
			best_d = d;
		}
	}
	return best;
}

static int apply_kv(const struct option_def *table, void *cfg, const struct kv *kvs, size_t i,
		    const char *file, const char *section, FILE *errs)
{
	const struct kv *kv = &kvs[i];
	const struct option_def *opt = options_find(table, kv->key);
	const char *err = NULL, *hint;
	long long number = 0;
	bool ranged;
	size_t j;

	if (opt == NULL) {
		fprintf(errs, "%s:%d: unknown key '%s' in [%s]", file, kv->line, kv->key, section);
		hint = suggest_key(table, kv->key);
		if (hint != NULL)
			fprintf(errs, "; did you mean '%s'?", hint);
		fputc('\n', errs);
		return 1;
	}
	for (j = 0; j < i; j++) {
		if (strcmp(kvs[j].key, kv->key) == 0) {
			fprintf(errs, "%s:%d: duplicate key '%s' in [%s] (first set at line %d)\n",
				file, kv->line, kv->key, section, kvs[j].line);
			return 1;
		}
	}
	if (kv->value[0] == '\0') {
		fprintf(errs, "%s:%d: %s has no value\n", file, kv->line, kv->key);
		return 1;
	}
	if (parse_value(opt, kv->value, (char *)cfg + opt->offset, &number, &ranged, &err) < 0) {
		fprintf(errs, "%s:%d: %s: invalid %s '%s': ", file, kv->line, kv->key,
			type_noun(opt->type), kv->value);
		if (opt->type == OPT_ENUM) {
			fputs("expected ", errs);
			print_choices(opt, errs);
		} else {
			fputs(err, errs);
		}
		fputc('\n', errs);
		return 1;
	}
	if (ranged && !in_range(opt, number)) {
		char range[80];

		format_range(opt, range, sizeof range);
		fprintf(errs, "%s:%d: %s = %s is out of range (%s)\n", file, kv->line, kv->key,
			kv->value, range);
		return 1;
	}
	return 0;
}

int options_apply(const struct option_def *table, void *cfg, const struct kv *kvs, size_t nkv,
		  const char *file, const char *section, FILE *errs)
{
	const struct option_def *opt;
	int problems = 0;
	size_t i;

	for (opt = table; opt->key != NULL; opt++)
		apply_default(opt, cfg);
	for (i = 0; i < nkv; i++)
		problems += apply_kv(table, cfg, kvs, i, file, section, errs);
	return problems;
}

void options_free(const struct option_def *table, void *cfg)
{
	const struct option_def *opt;

	for (opt = table; opt->key != NULL; opt++) {
		if (opt->type == OPT_STRING) {
			char **field = (char **)((char *)cfg + opt->offset);

			free(*field);
			*field = NULL;
		}
	}
}

const struct option_def *options_find(const struct option_def *table, const char *key)
{
	const struct option_def *opt;

	for (opt = table; opt->key != NULL; opt++)
		if (strcmp(opt->key, key) == 0)
			return opt;
	return NULL;
}

void options_describe_type(const struct option_def *opt, char *buf, size_t len)
{
	const char *const *c;
	char range[80];
	size_t used;

	switch (opt->type) {
	case OPT_INT:
	case OPT_DURATION:
	case OPT_SIZE:
		if (!has_range(opt)) {
			snprintf(buf, len, "%s", type_noun(opt->type));
			return;
		}
		format_range(opt, range, sizeof range);
		snprintf(buf, len, "%s %s", type_noun(opt->type), range);
		return;
	case OPT_BOOL: snprintf(buf, len, "yes/no"); return;
	case OPT_STRING: snprintf(buf, len, "text"); return;
	case OPT_ENUM:
		snprintf(buf, len, "one of:");
		for (c = opt->choices; *c != NULL; c++) {
			used = strlen(buf);
			if (used < len)
				snprintf(buf + used, len - used, "%s %s",
					 c == opt->choices ? "" : ",", *c);
		}
		return;
	case OPT_CUSTOM: snprintf(buf, len, "spec"); return;
	}
	snprintf(buf, len, "value");
}

void options_print(const struct option_def *table, FILE *fp)
{
	const struct option_def *opt;
	int width = 0;

	/* One column for "key = default", wide enough for the longest. */
	for (opt = table; opt->key != NULL; opt++) {
		int w = (int)strlen(opt->key) + (opt->def ? 3 + (int)strlen(opt->def) : 0);

		if (w > width)
			width = w;
	}
	for (opt = table; opt->key != NULL; opt++) {
		char left[256], type[160];

		if (opt->def != NULL)
			snprintf(left, sizeof left, "%s = %s", opt->key, opt->def);
		else
			snprintf(left, sizeof left, "%s", opt->key);
		options_describe_type(opt, type, sizeof type);
		fprintf(fp, "  %-*s  %s (%s)\n", width, left, opt->help ? opt->help : "", type);
	}
}
