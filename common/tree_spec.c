// SPDX-License-Identifier: GPL-2.0-or-later
/* The probe tree's spec ("depth=4 fanout=8 files=10 size=512"): parsed with
 * the profile, fingerprinted for the run record; the probe builds the tree
 * from it (probe/tree.c). */
#include "tree_spec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"

/* Bump when the names or contents the builder makes change: old trees then
 * get new fingerprints and are never compared with new ones. */
#define TREE_GENERATOR_VERSION 1
#define TREE_MAX_ENTRIES 2000000ULL
#define TREE_MAX_FILE_SIZE (1024 * 1024)

static const struct {
	const char *key;
	size_t offset;
	long min, max;
} tree_keys[] = {
	{ "depth", offsetof(struct tree_spec, depth), 0, 8 },
	{ "fanout", offsetof(struct tree_spec, fanout), 1, 64 },
	{ "files", offsetof(struct tree_spec, files), 0, 1000 },
	{ "size", offsetof(struct tree_spec, file_size), 0, TREE_MAX_FILE_SIZE },
};
#define NKEYS (sizeof tree_keys / sizeof tree_keys[0])

/* Messages naming the offending key live here until the caller prints
 * them (err is a static message by the parsers' convention). */
static _Thread_local char tree_errbuf[160];

static int spec_error(const char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int spec_error(const char **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tree_errbuf, sizeof tree_errbuf, fmt, ap);
	va_end(ap);
	*err = tree_errbuf;
	return -1;
}

static int spec_value(size_t k, const char *value, long *out, const char **err)
{
	const char *why;

	if (tree_keys[k].offset == offsetof(struct tree_spec, file_size)) {
		struct size_spec size;
		if (parse_size(value, &size, &why) < 0)
			return spec_error(err, "size: %s", why);
		if (size.kind != SIZE_BYTES)
			return spec_error(err,
					  "size must be a number of bytes like 512 or 4K, not '%s'",
					  value);
		if (size.bytes > TREE_MAX_FILE_SIZE)
			return spec_error(err, "size must be at most 1M, not '%s'", value);
		*out = (long)size.bytes;
		return 0;
	}
	if (parse_long(value, out, &why) < 0)
		return spec_error(err, "%s: %s", tree_keys[k].key, why);
	return 0;
}

/* Ranges and the size of the whole tree. */
int tree_spec_check(const struct tree_spec *spec, const char **err)
{
	uint64_t entries;

	for (size_t k = 0; k < NKEYS; k++) {
		long v = *(const long *)((const char *)spec + tree_keys[k].offset);
		if (v < tree_keys[k].min || v > tree_keys[k].max)
			return spec_error(err, "%s must be %ld..%ld, not %ld", tree_keys[k].key,
					  tree_keys[k].min, tree_keys[k].max, v);
	}
	entries = tree_entries(spec);
	if (entries > TREE_MAX_ENTRIES)
		return spec_error(err,
				  "depth=%ld fanout=%ld files=%ld makes %" PRIu64
				  " entries, more than the %llu allowed",
				  spec->depth, spec->fanout, spec->files, entries,
				  TREE_MAX_ENTRIES);
	return 0;
}

int tree_spec_parse(const char *s, void *dst, const char **err)
{
	struct tree_spec spec = *(struct tree_spec *)dst;
	bool seen[NKEYS] = { false };
	const char *p = s;
	int nwords = 0;

	for (;;) {
		char word[128], *eq;
		size_t len, k;

		p += strspn(p, " \t,");
		if (*p == '\0')
			break;
		len = strcspn(p, " \t,");
		if (len >= sizeof word)
			return spec_error(err, "'%.20s...' is too long", p);
		memcpy(word, p, len);
		word[len] = '\0';
		p += len;
		nwords++;

		eq = strchr(word, '=');
		if (eq == NULL)
			return spec_error(
				err, "'%s' is not key=value (keys: depth, fanout, files, size)",
				word);
		*eq = '\0';
		for (k = 0; k < NKEYS; k++)
			if (strcmp(word, tree_keys[k].key) == 0)
				break;
		if (k == NKEYS)
			return spec_error(
				err, "unknown key '%s' (keys: depth, fanout, files, size)", word);
		if (seen[k])
			return spec_error(err, "%s is given twice", word);
		seen[k] = true;
		if (spec_value(k, eq + 1, (long *)((char *)&spec + tree_keys[k].offset), err) < 0)
			return -1;
	}
	if (nwords == 0)
		return spec_error(err, "empty (expected e.g. depth=4 fanout=8 files=10 size=0)");
	if (tree_spec_check(&spec, err) < 0)
		return -1;
	*(struct tree_spec *)dst = spec;
	return 0;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL

uint64_t tree_hash(const char *s, size_t len)
{
	return fnv1a(FNV_OFFSET, s, len);
}

void tree_spec_canonical(const struct tree_spec *spec, char *buf, size_t len)
{
	snprintf(buf, len, "loadd-tree/%d depth=%ld fanout=%ld files=%ld size=%ld",
		 TREE_GENERATOR_VERSION, spec->depth, spec->fanout, spec->files, spec->file_size);
}

void tree_fingerprint(const struct tree_spec *spec, char out[TREE_FINGERPRINT_LEN + 1])
{
	char canon[160];

	tree_spec_canonical(spec, canon, sizeof canon);
	snprintf(out, TREE_FINGERPRINT_LEN + 1, "%016" PRIx64,
		 fnv1a(FNV_OFFSET, canon, strlen(canon)));
}

/* Saturates instead of wrapping, so an absurd spec reads as too big. */
static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t tree_entries(const struct tree_spec *spec)
{
	uint64_t dirs = 0, level = 1;
	uint64_t fanout = spec->fanout > 0 ? (uint64_t)spec->fanout : 0;
	uint64_t files = spec->files > 0 ? (uint64_t)spec->files : 0;

	for (long d = 0; d <= spec->depth; d++) {
		dirs = sat_add(dirs, level);
		level = sat_mul(level, fanout);
	}
	return sat_add(dirs, sat_mul(dirs, files));
}
