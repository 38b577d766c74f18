// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsing of the value types a profile uses: durations, sizes, numbers. Each
 * parser returns 0 on success, or -1 with *err set to a static message that
 * completes "invalid X: ..." (no file:line; the caller adds it). */
#ifndef LOADD_PARSE_H
#define LOADD_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "500ms", "30s", "5m", "1h", "1m30s"; a bare number means seconds. */
int parse_duration_ms(const char *s, int64_t *ms, const char **err);

/* A size as written in a profile, resolved against the machine only when a
 * load starts, so a profile means the same thing on every machine. */
enum size_kind {
	SIZE_BYTES,   /* "64M", "2G", "4096" (bytes), "1.5G" */
	SIZE_PERCENT, /* "60%": a share of physical RAM */
	SIZE_FORMULA, /* "ram+swap-64M", "available-512M": terms of ram, swap, available, sizes */
};

struct size_spec {
	enum size_kind kind;
	uint64_t bytes; /* SIZE_BYTES */
	double percent; /* SIZE_PERCENT */
	int ram_coef;   /* SIZE_FORMULA: ram*coef + swap*coef + offset */
	int swap_coef;
	int avail_coef; /* MemAvailable when the load starts */
	int64_t offset;
};

/* Suffixes K, M, G, T (powers of 1024), optionally followed by "i" and/or "B". */
int parse_size(const char *s, struct size_spec *out, const char **err);
/* Bytes for this machine; a negative result clamps to 0. size_resolve()
 * counts available as 0: use size_resolve_now() where MemAvailable is known. */
uint64_t size_resolve(const struct size_spec *spec, uint64_t ram_bytes, uint64_t swap_bytes);
uint64_t size_resolve_now(const struct size_spec *spec, uint64_t ram_bytes, uint64_t swap_bytes,
			  uint64_t available_bytes);
/* Writes the spec back as a profile would spell it ("2G", "60%", "ram+swap-64M"). */
void size_format(const struct size_spec *spec, char *buf, size_t len);
/* "1.5 GiB", "23.5 GiB", "640 MiB", "12.3 KiB", "17 B": one decimal below 100 of a
 * unit unless it is .0. The one byte formatter of every program. */
void format_bytes(uint64_t bytes, char *buf, size_t len);

int parse_long(const char *s, long *out, const char **err);
int parse_double(const char *s, double *out, const char **err);
/* yes/no, true/false, on/off, 1/0 */
int parse_bool(const char *s, bool *out, const char **err);

/* p past its spaces and tabs. */
const char *skip_blanks(const char *p);
/* Splits a command line into argv on blanks, honouring '...' and "..." quoting
 * (no other shell syntax). Returns a NULL-terminated xmalloc'd array of
 * xmalloc'd strings, or NULL with *err set (unterminated quote, empty). */
char **argv_split(const char *s, const char **err);
void argv_free(char **argv);

#endif
