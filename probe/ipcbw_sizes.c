// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsing and writing an ipcbw probe's message sizes (see ipcbw_sizes.h). */
#include "ipcbw_sizes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* One size: bytes with an optional K or M suffix, 1 byte to 1M. */
static int one_size(char *text, long *out, const char **err)
{
	struct size_spec spec;
	size_t n;

	while (*text == ' ')
		text++;
	for (n = strlen(text); n > 0 && text[n - 1] == ' ';)
		text[--n] = '\0';
	if (parse_size(text, &spec, err) < 0)
		return -1;
	if (spec.kind != SIZE_BYTES || spec.bytes < 1 || spec.bytes > IPCBW_SIZE_LARGEST) {
		*err = "a message size is 1 byte to 1M";
		return -1;
	}
	*out = (long)spec.bytes;
	return 0;
}

static int add_size(struct ipcbw_sizes *s, long bytes, const char **err)
{
	if (s->n == IPCBW_SIZES_MAX) {
		*err = "at most 16 message sizes";
		return -1;
	}
	if (s->n > 0 && bytes <= s->bytes[s->n - 1]) {
		*err = "message sizes go from the smallest to the largest, each once";
		return -1;
	}
	s->bytes[s->n++] = bytes;
	return 0;
}

/* "1K-64K": 1K, 2K, 4K ... while not past 64K. */
static int parse_range(char *from, char *to, struct ipcbw_sizes *s, const char **err)
{
	long lo, hi;

	if (one_size(from, &lo, err) < 0 || one_size(to, &hi, err) < 0)
		return -1;
	if (hi < lo) {
		*err = "a range of sizes goes from the smaller to the larger";
		return -1;
	}
	for (long b = lo; b <= hi; b *= 2)
		if (add_size(s, b, err) < 0)
			return -1;
	return 0;
}

int ipcbw_sizes_parse(const char *value, void *dst, const char **err)
{
	struct ipcbw_sizes s = { 0 };
	char *copy = strdup(value), *save = NULL, *dash;
	int rc = 0;

	if (copy == NULL) {
		*err = "out of memory";
		return -1;
	}
	dash = strchr(copy, '-');
	if (dash != NULL) {
		*dash = '\0';
		rc = parse_range(copy, dash + 1, &s, err);
	} else {
		for (char *tok = strtok_r(copy, ", ", &save); tok != NULL && rc == 0;
		     tok = strtok_r(NULL, ", ", &save)) {
			long b;

			rc = one_size(tok, &b, err);
			if (rc == 0)
				rc = add_size(&s, b, err);
		}
	}
	free(copy);
	if (rc == 0 && s.n == 0) {
		*err = "no message size";
		rc = -1;
	}
	if (rc == 0)
		*(struct ipcbw_sizes *)dst = s;
	return rc;
}

long ipcbw_sizes_max(const struct ipcbw_sizes *s)
{
	return s->n > 0 ? s->bytes[s->n - 1] : 0;
}

void ipcbw_size_label(long bytes, char *buf, size_t len)
{
	if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
		snprintf(buf, len, "%ldM", bytes / (1024 * 1024));
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, len, "%ldK", bytes / 1024);
	else
		snprintf(buf, len, "%ld", bytes);
}

void ipcbw_sizes_format(const struct ipcbw_sizes *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < s->n && used < len; i++) {
		char label[24];
		int n;

		ipcbw_size_label(s->bytes[i], label, sizeof label);
		n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", label);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}
