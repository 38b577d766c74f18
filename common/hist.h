// SPDX-License-Identifier: GPL-2.0-or-later
/* A log-linear latency histogram (the HdrHistogram / fio way): values in
 * nanoseconds fall into buckets that are exact below HIST_SUB and, above it,
 * HIST_SUB buckets per power of two, so a bucket is never wider than 1/64 of
 * its lower edge and its midpoint is within 0.8% of any value in it, from
 * 1 ns to beyond 10 s, in fixed memory. Counts add, so per-second histograms
 * merge into a phase's. The compact form (for the database) is a varint list
 * of (bucket gap, count) pairs of the non-empty buckets only. */
#ifndef LOADD_HIST_H
#define LOADD_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1 << HIST_SUB_BITS) /* buckets per power of two */
#define HIST_MAX_NS (1ULL << 36)      /* ~68.7 s: larger values are clamped */
#define HIST_BUCKETS (HIST_SUB + (36 - HIST_SUB_BITS) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t max_ns; /* the largest value exactly, before clamping */
	uint64_t sum_ns; /* for a mean */
	uint32_t bucket[HIST_BUCKETS];
};

void hist_reset(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
/* Adds every count of from into into. */
void hist_merge(struct hist *into, const struct hist *from);
/* Bucket of a value, and the range a bucket holds: [lo, hi]. */
size_t hist_bucket_of(uint64_t ns);
uint64_t hist_bucket_lo(size_t b);
uint64_t hist_bucket_hi(size_t b);
/* The value at percentile p (0..100): the midpoint of the bucket holding
 * the ceil(p/100 * count)-th value (p 100 gives max_ns exactly). NaN when
 * empty. In nanoseconds. */
double hist_percentile(const struct hist *h, double p);
/* Values strictly above ns (counting whole buckets above the one holding
 * ns; thresholds fall on bucket edges for round figures in microseconds
 * within the 0.8% error). */
uint64_t hist_count_above(const struct hist *h, uint64_t ns);

/* Compact form: an xmalloc'd buffer, its length in *len (at most
 * hist_encoded_max()). */
unsigned char *hist_encode(const struct hist *h, size_t *len);
size_t hist_encoded_max(void);
/* Parses what hist_encode wrote into h (count and buckets; max_ns and sum_ns
 * are stored apart and kept as they are). -1 on a malformed or hostile
 * buffer (h is then reset). */
int hist_decode(const unsigned char *buf, size_t len, struct hist *h);

#endif
