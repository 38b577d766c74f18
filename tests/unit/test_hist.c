// SPDX-License-Identifier: GPL-2.0-or-later
/* The log-linear histogram: bucket bounds, the 1% error promise from 1 us to
 * 10 s, percentiles and counts against exact figures, merging, and the
 * compact form (round trip, and refusal of malformed buffers). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "hist.h"

static struct hist *hist_new(void)
{
	struct hist *h = calloc(1, sizeof *h);

	assert_non_null(h);
	return h;
}

/* Every value from 1 us to 10 s (on a geometric walk) lands in a bucket
 * whose midpoint is within 1% of it, and buckets tile without gaps. */
static void test_bucket_error(void **state)
{
	for (double v = 1000; v <= 10e9; v *= 1.0007) {
		uint64_t ns = (uint64_t)v;
		size_t b = hist_bucket_of(ns);
		double mid = ((double)hist_bucket_lo(b) + (double)hist_bucket_hi(b)) / 2;

		assert_true(hist_bucket_lo(b) <= ns && ns <= hist_bucket_hi(b));
		if (fabs(mid - (double)ns) / (double)ns > 0.01)
			fail_msg("%llu ns: bucket midpoint %.0f is off by more than 1%%",
				 (unsigned long long)ns, mid);
	}
	for (size_t b = 0; b + 1 < HIST_BUCKETS; b++)
		assert_true(hist_bucket_hi(b) + 1 == hist_bucket_lo(b + 1));
	/* exact below HIST_SUB; clamped at the top */
	assert_int_equal(hist_bucket_of(5), 5);
	assert_int_equal(hist_bucket_of(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_percentiles(void **state)
{
	struct hist *h = hist_new();

	assert_true(isnan(hist_percentile(h, 50)));
	/* 1..1000 us: p50 = 500 us, p99 = 990 us, max exact */
	for (uint64_t us = 1; us <= 1000; us++)
		hist_add(h, us * 1000);
	assert_int_equal(h->count, 1000);
	assert_true(fabs(hist_percentile(h, 50) - 500e3) / 500e3 < 0.01);
	assert_true(fabs(hist_percentile(h, 99) - 990e3) / 990e3 < 0.01);
	assert_true(fabs(hist_percentile(h, 99.9) - 999e3) / 999e3 < 0.01);
	assert_true(hist_percentile(h, 100) == 1000e3);
	assert_int_equal(h->max_ns, 1000000);
	/* over 900 us: 100 values, give or take the bucket holding 900 us */
	uint64_t above = hist_count_above(h, 900000);
	assert_true(above >= 95 && above <= 100);
	assert_int_equal(hist_count_above(h, 2000000), 0);
	free(h);
}

static void test_merge(void **state)
{
	struct hist *a = hist_new(), *b = hist_new();

	hist_add(a, 1000);
	hist_add(b, 1000);
	hist_add(b, 5000000);
	hist_merge(a, b);
	assert_int_equal(a->count, 3);
	assert_int_equal(a->max_ns, 5000000);
	assert_int_equal(a->bucket[hist_bucket_of(1000)], 2);
	assert_int_equal(hist_count_above(a, 1000000), 1);
	free(a);
	free(b);
}

static void test_encode_round_trip(void **state)
{
	struct hist *h = hist_new(), *back = hist_new();
	unsigned char *buf;
	size_t len;

	/* empty: an empty buffer */
	buf = hist_encode(h, &len);
	assert_int_equal(len, 0);
	assert_int_equal(hist_decode(buf, len, back), 0);
	assert_int_equal(back->count, 0);
	free(buf);

	for (uint64_t i = 0; i < 100000; i++)
		hist_add(h, 20000 + (i * 7919) % 3000000);
	hist_add(h, 0);
	hist_add(h, 9000000000ULL);
	buf = hist_encode(h, &len);
	assert_true(len > 0 && len <= hist_encoded_max());
	assert_int_equal(hist_decode(buf, len, back), 0);
	assert_int_equal(back->count, h->count);
	for (size_t b = 0; b < HIST_BUCKETS; b++)
		assert_int_equal(back->bucket[b], h->bucket[b]);
	free(buf);
	free(h);
	free(back);
}

static void test_decode_refuses(void **state)
{
	static const struct {
		const char *what;
		unsigned char buf[16];
		size_t len;
	} cases[] = {
		{ "cut varint", { 0x80 }, 1 },
		{ "gap without count", { 0x01 }, 1 },
		{ "zero count", { 0x01, 0x00 }, 2 },
		{ "bucket twice", { 0x01, 0x01, 0x00, 0x01 }, 4 },
		{ "past the last bucket", { 0xff, 0x7f, 0x01 }, 3 },
		{ "count over 32 bits", { 0x01, 0x80, 0x80, 0x80, 0x80, 0x10 }, 6 },
		{ "endless varint",
		  { 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
		  12 },
	};
	struct hist *h = hist_new();

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		print_message("case: %s\n", cases[i].what);
		assert_int_equal(hist_decode(cases[i].buf, cases[i].len, h), -1);
		assert_int_equal(h->count, 0);
	}
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_error),   cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_merge),          cmocka_unit_test(test_encode_round_trip),
		cmocka_unit_test(test_decode_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
