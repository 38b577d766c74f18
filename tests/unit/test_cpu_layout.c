// SPDX-License-Identifier: GPL-2.0-or-later
/* How the cpu load splits its members and tokens into rings: auto sizes
 * follow the CPU count, one ring per CPU pinned there, a single ring (tokens
 * = 1, pin = no) left unpinned as lat_ctx's, every ring keeping a member
 * waiting, and tokens that leave none waiting refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cpu_layout.h"

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))
#define MAXRINGS 4

static void test_plans(void **state)
{
	static const int cpus[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const int sparse[] = { 3, 5 };
	static const struct {
		long procs, tokens;
		bool pin;
		const int *cpus;
		long ncpus;
		long want_procs, want_tokens, want_rings;
		/* the first rings: members, tokens, cpu */
		long ring[MAXRINGS][3];
	} cases[] = {
		/* auto on 2 CPUs: 16 members, 8 tokens, two rings of 8 with 4 each */
		{ 0, 0, true, cpus, 2, 16, 8, 2, { { 8, 4, 0 }, { 8, 4, 1 } } },
		/* auto on 16 CPUs: 128 members in 16 rings */
		{ 0, 0, true, cpus, 16, 128, 64, 16, { { 8, 4, 0 }, { 8, 4, 1 }, { 8, 4, 2 } } },
		/* auto on 1 CPU: one ring, left unpinned */
		{ 0, 0, true, cpus, 1, 8, 4, 1, { { 8, 4, -1 } } },
		/* the CPUs the process may use, not 0..n-1 */
		{ 0, 0, true, sparse, 2, 16, 8, 2, { { 8, 4, 3 }, { 8, 4, 5 } } },
		/* tokens = 1: lat_ctx's single unpinned ring */
		{ 8, 1, true, cpus, 2, 8, 1, 1, { { 8, 1, -1 } } },
		/* pin = no: one ring however many CPUs */
		{ 0, 0, false, cpus, 4, 32, 16, 1, { { 32, 16, -1 } } },
		/* uneven: 9 members, 3 tokens on 2 CPUs */
		{ 9, 3, true, cpus, 2, 9, 3, 2, { { 5, 2, 0 }, { 4, 1, 1 } } },
		/* more CPUs than member pairs: 2 rings of 2 on 8 CPUs */
		{ 4, 3, true, cpus, 8, 4, 2, 2, { { 2, 1, 0 }, { 2, 1, 1 } } },
		/* tokens auto with few members */
		{ 2, 0, true, cpus, 2, 2, 1, 1, { { 2, 1, -1 } } },
		/* auto capped at the maximum */
		{ 0, 0, true, cpus, 1024, 4096, 2048, 1024, { { 4, 2, 0 } } },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct cpu_layout layout;
		char err[200] = "";
		long members = 0;

		if (cases[i].ncpus > (long)NCASES(cpus) && cases[i].ncpus != 1024)
			continue;
		if (cases[i].ncpus == 1024) {
			static int many[1024];

			for (int c = 0; c < 1024; c++)
				many[c] = c;
			assert_int_equal(cpu_layout_plan(cases[i].procs, cases[i].tokens,
							 cases[i].pin, many, 1024, &layout, err,
							 sizeof err),
					 0);
		} else {
			assert_int_equal(cpu_layout_plan(cases[i].procs, cases[i].tokens,
							 cases[i].pin, cases[i].cpus,
							 cases[i].ncpus, &layout, err, sizeof err),
					 0);
		}
		if (layout.procs != cases[i].want_procs || layout.tokens != cases[i].want_tokens ||
		    layout.nrings != cases[i].want_rings)
			fail_msg("case %zu: %ld procs, %ld tokens, %ld rings", i, layout.procs,
				 layout.tokens, layout.nrings);
		for (long r = 0; r < layout.nrings; r++) {
			const struct cpu_ring_spec *ring = &layout.rings[r];

			/* contiguous, every ring with a member waiting */
			assert_int_equal(ring->first, members);
			assert_true(ring->tokens >= 1 && ring->tokens < ring->members);
			members += ring->members;
			if (r < MAXRINGS && cases[i].ring[r][0] != 0 &&
			    (ring->members != cases[i].ring[r][0] ||
			     ring->tokens != cases[i].ring[r][1] ||
			     ring->cpu != cases[i].ring[r][2]))
				fail_msg("case %zu ring %ld: %ld members, %ld tokens, cpu %d", i, r,
					 ring->members, ring->tokens, ring->cpu);
		}
		assert_int_equal(members, layout.procs);
		cpu_layout_free(&layout);
	}
}

static void test_refusals(void **state)
{
	static const int cpus[] = { 0, 1 };
	static const long cases[][2] = { { 4, 4 }, { 8, 9 }, { 0, 16 }, { 2, 2 } };

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct cpu_layout layout;
		char err[200] = "";

		assert_int_equal(cpu_layout_plan(cases[i][0], cases[i][1], true, cpus, 2, &layout,
						 err, sizeof err),
				 -1);
		assert_non_null(strstr(err, "needs more members"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plans),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
