// SPDX-License-Identifier: GPL-2.0-or-later
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xalloc.h"

/* A decimal number as written: whole part and up to 9 digits of fraction,
 * kept as integers so that "1.5G" is exact. */
struct decimal {
	uint64_t whole;
	uint64_t frac;     /* the fraction's digits as an integer */
	uint64_t frac_div; /* 10^(digits kept), 1 when there is no fraction */
};

/* Reads [0-9]+(.[0-9]+)? at *sp and advances past it. Returns 0, or -1 with
 * *err set. */
static int read_decimal(const char **sp, struct decimal *d, const char **err)
{
	const char *s = *sp;

	if (!isdigit((unsigned char)*s)) {
		*err = "expected a number";
		return -1;
	}
	d->whole = 0;
	for (; isdigit((unsigned char)*s); s++) {
		if (__builtin_mul_overflow(d->whole, 10, &d->whole) ||
		    __builtin_add_overflow(d->whole, (uint64_t)(*s - '0'), &d->whole)) {
			*err = "too large";
			return -1;
		}
	}
	d->frac = 0;
	d->frac_div = 1;
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s)) {
			*err = "expected digits after the decimal point";
			return -1;
		}
		/* Digits past the ninth cannot matter at millisecond or byte scale. */
		for (; isdigit((unsigned char)*s); s++) {
			if (d->frac_div < 1000000000) {
				d->frac = d->frac * 10 + (uint64_t)(*s - '0');
				d->frac_div *= 10;
			}
		}
	}
	*sp = s;
	return 0;
}

/* d * unit, rounded to the nearest integer; -1 on overflow of limit. */
static int decimal_scale(const struct decimal *d, uint64_t unit, uint64_t limit, uint64_t *out)
{
	uint64_t v, f;

	if (__builtin_mul_overflow(d->whole, unit, &v))
		return -1;
	/* frac < 10^9 times a unit up to 2^40 can pass 2^64: use 128 bits. */
	f = (uint64_t)(((unsigned __int128)d->frac * unit + d->frac_div / 2) / d->frac_div);
	if (__builtin_add_overflow(v, f, &v) || v > limit)
		return -1;
	*out = v;
	return 0;
}

int parse_duration_ms(const char *s, int64_t *ms, const char **err)
{
	static const struct {
		const char *name;
		uint64_t ms;
	} units[] = {
		{ "h", 3600000 },
		{ "m", 60000 },
		{ "s", 1000 },
		{ "ms", 1 },
	};
	const size_t nunits = sizeof units / sizeof units[0];
	size_t next_unit = 0; /* units must come largest first, each once */
	uint64_t total = 0;
	const char *p = s;

	if (*s == '\0') {
		*err = "empty";
		return -1;
	}
	while (*p != '\0') {
		const char *term = p;
		struct decimal d;
		const char *u;
		size_t ulen, i;
		uint64_t part;

		if (term != s && !isdigit((unsigned char)*p)) {
			*err = "unexpected character after a unit";
			return -1;
		}
		if (read_decimal(&p, &d, err) < 0)
			return -1;
		for (u = p; isalpha((unsigned char)*p); p++)
			;
		ulen = (size_t)(p - u);
		if (ulen == 0) {
			if (*p != '\0') {
				*err = "unexpected character after the number";
				return -1;
			}
			/* A bare number means seconds, but only on its own. */
			if (term != s) {
				*err = "a number without a unit (use ms, s, m or h)";
				return -1;
			}
			i = 2;
		} else {
			for (i = 0; i < nunits; i++)
				if (strlen(units[i].name) == ulen &&
				    strncmp(u, units[i].name, ulen) == 0)
					break;
			if (i == nunits) {
				*err = "unknown unit (use ms, s, m or h)";
				return -1;
			}
			if (i < next_unit) {
				*err = "units must go from largest to smallest, each once (as in 1m30s)";
				return -1;
			}
		}
		next_unit = i + 1;
		if (decimal_scale(&d, units[i].ms, INT64_MAX, &part) < 0 ||
		    __builtin_add_overflow(total, part, &total) || total > INT64_MAX) {
			*err = "too large";
			return -1;
		}
	}
	*ms = (int64_t)total;
	return 0;
}

/* Reads a byte count with an optional K/M/G/T suffix (each optionally
 * followed by "i" and then "B"), advancing *sp past it. */
static int read_bytes(const char **sp, uint64_t *out, const char **err)
{
	struct decimal d;
	uint64_t unit = 1;
	const char *p = *sp;

	if (read_decimal(&p, &d, err) < 0)
		return -1;
	switch (*p) {
	case 'K':
	case 'k':
		unit = 1ULL << 10;
		p++;
		break;
	case 'M':
	case 'm':
		unit = 1ULL << 20;
		p++;
		break;
	case 'G':
	case 'g':
		unit = 1ULL << 30;
		p++;
		break;
	case 'T':
	case 't':
		unit = 1ULL << 40;
		p++;
		break;
	}
	if (unit > 1 && *p == 'i')
		p++;
	if (*p == 'B')
		p++;
	if (unit == 1 && d.frac_div > 1) {
		*err = "a size in bytes must be a whole number";
		return -1;
	}
	if (decimal_scale(&d, unit, INT64_MAX, out) < 0) {
		*err = "too large";
		return -1;
	}
	*sp = p;
	return 0;
}

static bool word_at(const char *p, const char *word, const char **end)
{
	size_t n = strlen(word);

	if (strncmp(p, word, n) != 0 || isalnum((unsigned char)p[n]))
		return false;
	*end = p + n;
	return true;
}

const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* term (('+' | '-') term)*, a term being ram, swap, available or a byte size; the first
 * term may carry a sign too, so that every formula can be written back. */
static int parse_formula(const char *s, struct size_spec *out, const char **err)
{
	int64_t ram = 0, swap = 0, avail = 0, offset = 0;
	bool names_machine = false;
	const char *p = skip_blanks(s);

	for (;;) {
		int sign = 1;
		const char *end;
		uint64_t bytes;

		if (*p == '+' || *p == '-') {
			sign = *p == '-' ? -1 : 1;
			p = skip_blanks(p + 1);
		}
		if (word_at(p, "ram", &end)) {
			ram += sign;
			names_machine = true;
		} else if (word_at(p, "swap", &end)) {
			swap += sign;
			names_machine = true;
		} else if (word_at(p, "available", &end)) {
			avail += sign;
			names_machine = true;
		} else if (isdigit((unsigned char)*p)) {
			end = p;
			if (read_bytes(&end, &bytes, err) < 0)
				return -1;
			if (*end == '%') {
				*err = "a percentage cannot be part of a formula";
				return -1;
			}
			if (__builtin_add_overflow(offset, sign * (int64_t)bytes, &offset)) {
				*err = "too large";
				return -1;
			}
		} else if (*p == '\0') {
			*err = "expected a term after + or -";
			return -1;
		} else {
			*err = "unknown term (use ram, swap, available or a size like 64M)";
			return -1;
		}
		if (ram > 1000 || ram < -1000 || swap > 1000 || swap < -1000 || avail > 1000 ||
		    avail < -1000) {
			*err = "too many terms";
			return -1;
		}
		p = skip_blanks(end);
		if (*p == '\0')
			break;
		if (*p != '+' && *p != '-') {
			*err = "expected + or - between terms";
			return -1;
		}
	}
	if (!names_machine) {
		if (offset < 0) {
			*err = "negative size";
			return -1;
		}
		*out = (struct size_spec){ .kind = SIZE_BYTES, .bytes = (uint64_t)offset };
		return 0;
	}
	*out = (struct size_spec){ .kind = SIZE_FORMULA,
				   .ram_coef = (int)ram,
				   .swap_coef = (int)swap,
				   .avail_coef = (int)avail,
				   .offset = offset };
	return 0;
}

int parse_size(const char *s, struct size_spec *out, const char **err)
{
	const char *p = s;
	uint64_t bytes;

	if (*s == '\0') {
		*err = "empty";
		return -1;
	}
	if (isdigit((unsigned char)*s)) {
		struct decimal d;

		/* A plain size or a percentage: anything else is a formula. */
		if (read_decimal(&p, &d, err) < 0)
			return -1;
		if (p[0] == '%' && p[1] == '\0') {
			double pct = (double)d.whole + (double)d.frac / (double)d.frac_div;

			if (pct <= 0 || pct > 1000) {
				*err = "a percentage must be above 0 and at most 1000";
				return -1;
			}
			*out = (struct size_spec){ .kind = SIZE_PERCENT, .percent = pct };
			return 0;
		}
		p = s;
		if (read_bytes(&p, &bytes, err) < 0)
			return -1;
		if (*p == '\0') {
			*out = (struct size_spec){ .kind = SIZE_BYTES, .bytes = bytes };
			return 0;
		}
		if (*skip_blanks(p) != '+' && *skip_blanks(p) != '-') {
			*err = "unknown suffix (use K, M, G or T, or a formula like ram-1G)";
			return -1;
		}
	}
	return parse_formula(s, out, err);
}

uint64_t size_resolve(const struct size_spec *spec, uint64_t ram_bytes, uint64_t swap_bytes)
{
	return size_resolve_now(spec, ram_bytes, swap_bytes, 0);
}

uint64_t size_resolve_now(const struct size_spec *spec, uint64_t ram_bytes, uint64_t swap_bytes,
			  uint64_t available_bytes)
{
	__int128 v;
	long double pct;

	switch (spec->kind) {
	case SIZE_BYTES: return spec->bytes;
	case SIZE_PERCENT:
		pct = (long double)ram_bytes * spec->percent / 100.0L;
		return pct >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)pct;
	case SIZE_FORMULA:
		v = (__int128)ram_bytes * spec->ram_coef + (__int128)swap_bytes * spec->swap_coef +
		    (__int128)available_bytes * spec->avail_coef + spec->offset;
		if (v < 0)
			return 0;
		return v > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)v;
	}
	return 0;
}

/* Bytes with the largest suffix that divides them exactly: "64M", "1536K". */
static void format_exact(uint64_t bytes, char *buf, size_t len)
{
	static const char suffix[] = "KMGT";
	int i;

	for (i = 3; i >= 0; i--) {
		uint64_t unit = 1ULL << (10 * (i + 1));

		if (bytes != 0 && bytes % unit == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(bytes / unit), suffix[i]);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
}

/* Appends sign and term to buf; the first term only shows a minus sign. */
static void append_term(char *buf, size_t len, bool first, int sign, const char *term)
{
	size_t used = strlen(buf);

	if (used >= len)
		return;
	snprintf(buf + used, len - used, "%s%s", sign < 0 ? "-" : first ? "" : "+", term);
}

void size_format(const struct size_spec *spec, char *buf, size_t len)
{
	char num[32];
	bool first = true;
	int pass, i;

	if (len == 0)
		return;
	buf[0] = '\0';
	switch (spec->kind) {
	case SIZE_BYTES: format_exact(spec->bytes, buf, len); return;
	case SIZE_PERCENT: snprintf(buf, len, "%.10g%%", spec->percent); return;
	case SIZE_FORMULA: break;
	}
	/* Positive terms first, so "ram+swap-64M" comes back as written. */
	for (pass = 0; pass < 2; pass++) {
		int want = pass == 0 ? 1 : -1;

		for (i = 0; i < spec->ram_coef * want; i++, first = false)
			append_term(buf, len, first, want, "ram");
		for (i = 0; i < spec->swap_coef * want; i++, first = false)
			append_term(buf, len, first, want, "swap");
		for (i = 0; i < spec->avail_coef * want; i++, first = false)
			append_term(buf, len, first, want, "available");
		if (spec->offset != 0 && (spec->offset > 0) == (want > 0)) {
			format_exact(spec->offset > 0 ? (uint64_t)spec->offset
						      : (uint64_t)0 - (uint64_t)spec->offset,
				     num, sizeof num);
			append_term(buf, len, first, want, num);
			first = false;
		}
	}
	if (first)
		snprintf(buf, len, "0");
}

void format_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int i = -1;

	while (v >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	if (i < 0) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	} else if (v < 99.95) {
		/* One decimal where it says something: 23.5 GiB, 1.5 KiB, 2 GiB. */
		char num[16], *dot;

		snprintf(num, sizeof num, "%.1f", v);
		dot = strchr(num, '.');
		if (dot != NULL && strcmp(dot, ".0") == 0)
			*dot = '\0';
		snprintf(buf, len, "%s %s", num, units[i]);
	} else {
		snprintf(buf, len, "%.0f %s", v, units[i]);
	}
}

int parse_long(const char *s, long *out, const char **err)
{
	char *end;
	long v;

	if (*s == '\0') {
		*err = "empty";
		return -1;
	}
	if (isspace((unsigned char)*s)) {
		*err = "not a whole number";
		return -1;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0') {
		*err = "not a whole number";
		return -1;
	}
	if (errno == ERANGE) {
		*err = "too large";
		return -1;
	}
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out, const char **err)
{
	char *end;
	double v;

	if (*s == '\0') {
		*err = "empty";
		return -1;
	}
	if (isspace((unsigned char)*s)) {
		*err = "not a number";
		return -1;
	}
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || isnan(v)) {
		*err = "not a number";
		return -1;
	}
	if (errno == ERANGE && isinf(v)) {
		*err = "too large";
		return -1;
	}
	if (isinf(v)) {
		*err = "not a finite number";
		return -1;
	}
	*out = v;
	return 0;
}

int parse_bool(const char *s, bool *out, const char **err)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	*err = *s == '\0' ? "empty" : "expected yes/no, true/false, on/off or 1/0";
	return -1;
}

char **argv_split(const char *s, const char **err)
{
	size_t n = 0, cap = 4, len = strlen(s);
	char **argv = xmalloc(cap * sizeof *argv);
	char *word = xmalloc(len + 1);
	const char *p = s;

	while (*p != '\0') {
		size_t wlen = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		/* A word runs to the next blank outside quotes; quoted parts
		 * join the text around them, as in the shell. */
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n') {
			if (*p == '\'' || *p == '"') {
				const char *close = strchr(p + 1, *p);

				if (close == NULL) {
					*err = *p == '\'' ? "unterminated ' quote"
							  : "unterminated \" quote";
					free(word);
					argv[n] = NULL;
					argv_free(argv);
					return NULL;
				}
				memcpy(word + wlen, p + 1, (size_t)(close - p - 1));
				wlen += (size_t)(close - p - 1);
				p = close + 1;
			} else {
				word[wlen++] = *p++;
			}
		}
		if (n + 2 > cap) {
			cap *= 2;
			argv = xreallocarray(argv, cap, sizeof *argv);
		}
		argv[n++] = xstrndup(word, wlen);
	}
	free(word);
	argv[n] = NULL;
	if (n == 0) {
		*err = "empty command";
		argv_free(argv);
		return NULL;
	}
	return argv;
}

void argv_free(char **argv)
{
	char **a;

	if (argv == NULL)
		return;
	for (a = argv; *a != NULL; a++)
		free(*a);
	free(argv);
}
