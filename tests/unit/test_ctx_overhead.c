// SPDX-License-Identifier: GPL-2.0-or-later
/* The ctxswitch probe's lat_ctx subtraction, on made-up timings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ctx_overhead.h"

static void test_subtracts_the_overhead_per_hop(void **state)
{
	static const struct {
		double ring_ns, overhead_ns;
		long hops;
		double want_us;
	} cases[] = {
		{ 10000000.0, 4000000.0, 1000, 6.0 }, /* 10 us a hop, 4 of them overhead */
		{ 2500000.0, 0.0, 1000, 2.5 },        /* size 0 and free pipes: all switch */
		{ 800000.0, 200000.0, 200, 3.0 },
		{ 1000.0, 5000.0, 10, 0.0 }, /* noise: never below zero */
		{ 1000.0, 0.0, 0, 0.0 },     /* no hops: nothing to divide */
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_float_equal(
			ctx_switch_us(cases[i].ring_ns, cases[i].overhead_ns, cases[i].hops),
			cases[i].want_us, 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subtracts_the_overhead_per_hop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
