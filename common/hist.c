// SPDX-License-Identifier: GPL-2.0-or-later
#include "hist.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "xalloc.h"

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof *h);
}

static unsigned msb64(uint64_t v)
{
	return 63u - (unsigned)__builtin_clzll(v);
}

size_t hist_bucket_of(uint64_t ns)
{
	unsigned shift;

	if (ns >= HIST_MAX_NS)
		ns = HIST_MAX_NS - 1;
	if (ns < HIST_SUB)
		return (size_t)ns;
	/* v in [2^k, 2^(k+1)), k >= HIST_SUB_BITS: HIST_SUB buckets of
	 * width 2^(k - HIST_SUB_BITS) */
	shift = msb64(ns) - HIST_SUB_BITS;
	return HIST_SUB + (size_t)shift * HIST_SUB + (size_t)((ns >> shift) - HIST_SUB);
}

uint64_t hist_bucket_lo(size_t b)
{
	size_t shift, off;

	if (b < HIST_SUB)
		return b;
	shift = (b - HIST_SUB) / HIST_SUB;
	off = (b - HIST_SUB) % HIST_SUB;
	return (uint64_t)(HIST_SUB + off) << shift;
}

uint64_t hist_bucket_hi(size_t b)
{
	size_t shift;

	if (b < HIST_SUB)
		return b;
	shift = (b - HIST_SUB) / HIST_SUB;
	return hist_bucket_lo(b) + ((uint64_t)1 << shift) - 1;
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->bucket[hist_bucket_of(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void hist_merge(struct hist *into, const struct hist *from)
{
	for (size_t b = 0; b < HIST_BUCKETS; b++)
		into->bucket[b] += from->bucket[b];
	into->count += from->count;
	into->sum_ns += from->sum_ns;
	if (from->max_ns > into->max_ns)
		into->max_ns = from->max_ns;
}

double hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return NAN;
	if (p >= 100)
		return (double)h->max_ns;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank == 0)
		rank = 1;
	for (size_t b = 0; b < HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			double mid = ((double)hist_bucket_lo(b) + (double)hist_bucket_hi(b)) / 2;

			/* never beyond what was seen */
			return h->max_ns > 0 && mid > (double)h->max_ns ? (double)h->max_ns : mid;
		}
	}
	return (double)h->max_ns;
}

uint64_t hist_count_above(const struct hist *h, uint64_t ns)
{
	uint64_t n = 0;

	for (size_t b = hist_bucket_of(ns) + 1; b < HIST_BUCKETS; b++)
		n += h->bucket[b];
	return n;
}

/* ---- compact form: LEB128 varints, (gap to the previous non-empty
 * bucket, count) per non-empty bucket ---- */

static size_t put_varint(unsigned char *out, uint64_t v)
{
	size_t n = 0;

	do {
		unsigned char byte = v & 0x7f;

		v >>= 7;
		out[n++] = byte | (v ? 0x80 : 0);
	} while (v);
	return n;
}

static int get_varint(const unsigned char *buf, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		unsigned char byte;

		if (*pos >= len)
			return -1;
		byte = buf[(*pos)++];
		x |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

size_t hist_encoded_max(void)
{
	/* a gap fits 2 bytes, a 32-bit count 5 */
	return (size_t)HIST_BUCKETS * 7;
}

unsigned char *hist_encode(const struct hist *h, size_t *len)
{
	unsigned char *out = xmalloc(hist_encoded_max());
	size_t n = 0, prev = 0;

	for (size_t b = 0; b < HIST_BUCKETS; b++) {
		if (h->bucket[b] == 0)
			continue;
		n += put_varint(out + n, b - prev);
		n += put_varint(out + n, h->bucket[b]);
		prev = b;
	}
	*len = n;
	return out;
}

int hist_decode(const unsigned char *buf, size_t len, struct hist *h)
{
	uint64_t max = h->max_ns, sum = h->sum_ns;
	size_t pos = 0, b = 0;
	bool first = true;

	hist_reset(h);
	while (pos < len) {
		uint64_t gap, count;

		if (get_varint(buf, len, &pos, &gap) < 0 || get_varint(buf, len, &pos, &count) < 0)
			goto bad;
		/* gaps after the first are > 0: each bucket appears once */
		if ((!first && gap == 0) || gap >= HIST_BUCKETS || b + gap >= HIST_BUCKETS ||
		    count == 0 || count > UINT32_MAX)
			goto bad;
		b += gap;
		first = false;
		h->bucket[b] = (uint32_t)count;
		h->count += count;
	}
	h->max_ns = max;
	h->sum_ns = sum;
	return 0;
bad:
	hist_reset(h);
	return -1;
}
