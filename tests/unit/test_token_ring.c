// SPDX-License-Identifier: GPL-2.0-or-later
/* The token ring the cpu loader and the ctxswitch probe share: its pipes go
 * round in order, a member in its own process keeps only its two ends, a
 * member passes tokens until told to leave or a neighbour goes, and pinning
 * lands where it was asked. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "token_ring.h"

#define N 4

static void test_pipes_go_round_in_order(void **state)
{
	struct ring_ends ends[N];
	char c;

	(void)state;
	assert_int_equal(token_ring_pipes(ends, N), 0);
	for (int k = 0; k < N; k++) {
		char sent = (char)('a' + k);

		assert_int_equal(write(ends[k].out, &sent, 1), 1);
		assert_int_equal(read(ends[(k + 1) % N].in, &c, 1), 1);
		assert_int_equal(c, sent);
		assert_true(fcntl(ends[k].in, F_GETFD) & FD_CLOEXEC);
	}
	token_ring_close(ends, N);
	for (int k = 0; k < N; k++) {
		assert_int_equal(ends[k].in, -1);
		assert_int_equal(ends[k].out, -1);
	}
}

static void test_keep_only_closes_the_others(void **state)
{
	struct ring_ends ends[N];
	int in, out;

	(void)state;
	assert_int_equal(token_ring_pipes(ends, N), 0);
	in = ends[2].in;
	out = ends[2].out;
	token_ring_keep_only(ends, N, 2);
	for (int k = 0; k < N; k++) {
		if (k == 2)
			continue;
		assert_int_equal(ends[k].in, -1);
		assert_int_equal(ends[k].out, -1);
	}
	assert_int_equal(ends[2].in, in);
	assert_int_equal(ends[2].out, out);
	assert_true(fcntl(in, F_GETFD) >= 0 && fcntl(out, F_GETFD) >= 0);
	token_ring_close(ends, N);
}

struct member_arg {
	struct ring_ends ends;
	unsigned char ws[4096];
	int takes;
	enum member_end end;
};

/* Leaves at the quit token 'q', passing it on first. */
static bool count_take(void *arg, char token)
{
	struct member_arg *m = arg;

	if (token == 'q') {
		(void)!write(m->ends.out, &token, 1);
		return false;
	}
	m->takes++;
	return true;
}

static void *member(void *arg)
{
	struct member_arg *m = arg;
	const char *what;

	m->end = token_member_loop(m->ends.in, m->ends.out, m->ws, sizeof m->ws, count_take, m,
				   &what);
	return NULL;
}

/* Member 0 is the test: it sends 100 tokens round and then the quit token;
 * every other member took each one and left at the quit. */
static void test_members_pass_tokens_and_leave(void **state)
{
	struct ring_ends ends[N];
	static struct member_arg args[N];
	pthread_t tid[N];
	char c = 't';

	(void)state;
	assert_int_equal(token_ring_pipes(ends, N), 0);
	for (int k = 1; k < N; k++) {
		args[k] = (struct member_arg){ .ends = ends[k] };
		assert_int_equal(pthread_create(&tid[k], NULL, member, &args[k]), 0);
	}
	for (int trip = 0; trip < 100; trip++) {
		assert_int_equal(write(ends[0].out, &c, 1), 1);
		assert_int_equal(read(ends[0].in, &c, 1), 1);
		assert_int_equal(c, 't');
	}
	c = 'q';
	assert_int_equal(write(ends[0].out, &c, 1), 1);
	for (int k = 1; k < N; k++) {
		pthread_join(tid[k], NULL);
		assert_int_equal(args[k].takes, 100);
		assert_int_equal(args[k].end, MEMBER_LEFT);
	}
	token_ring_close(ends, N);
}

/* The member before it closes its end: the member sees EOF, not an error. */
static void test_a_gone_neighbour_breaks_the_ring(void **state)
{
	struct ring_ends ends[2];
	const char *what = NULL;

	(void)state;
	assert_int_equal(token_ring_pipes(ends, 2), 0);
	close(ends[0].out);
	ends[0].out = -1;
	assert_int_equal(token_member_loop(ends[1].in, ends[1].out, NULL, 0, NULL, NULL, &what),
			 MEMBER_BROKEN);
	assert_non_null(what);
	token_ring_close(ends, 2);
}

static void test_pins_where_asked(void **state)
{
	int cpus[CPU_SETSIZE];
	long n = ring_allowed_cpus(cpus, CPU_SETSIZE);
	cpu_set_t mine, now;

	(void)state;
	assert_true(n >= 1);
	assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
	assert_int_equal(ring_pin_self(-1), 0); /* not pinned: unchanged */
	assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
	assert_true(CPU_EQUAL(&mine, &now));
	assert_int_equal(ring_pin_self(cpus[n - 1]), 0);
	assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
	assert_int_equal(CPU_COUNT(&now), 1);
	assert_true(CPU_ISSET(cpus[n - 1], &now));
	assert_int_equal(sched_getcpu(), cpus[n - 1]);
	sched_setaffinity(0, sizeof mine, &mine);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipes_go_round_in_order),
		cmocka_unit_test(test_keep_only_closes_the_others),
		cmocka_unit_test(test_members_pass_tokens_and_leave),
		cmocka_unit_test(test_a_gone_neighbour_breaks_the_ring),
		cmocka_unit_test(test_pins_where_asked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
