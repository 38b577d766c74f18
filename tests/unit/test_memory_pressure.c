// SPDX-License-Identifier: GPL-2.0-or-later
/* The memory load's pressure controller: a quick fill to a margin above the
 * floor, fine steps, a hold at the PSI target, at the cap or at the floor,
 * memory given back below the floor; and a sequence of readings recorded on
 * a real machine (tests/data/pressure/cgroup-1g.csv) replayed tick by tick,
 * each giving the move the controller made then. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "memory_pressure.h"

#define MiB (1024ULL * 1024)
#define GiB (1024 * MiB)
#define NCASES(a) (sizeof(a) / sizeof((a)[0]))

static void test_moves(void **state)
{
	static const struct pressure_goal goal = {
		.psi_pct = 10,
		.floor = 256 * MiB,
		.margin = 128 * MiB,
		.step = 32 * MiB,
	};
	static const struct {
		uint64_t resident;
		double psi;
		uint64_t available;
		enum pressure_move move;
		uint64_t next;
	} cases[] = {
		/* empty, 20 GiB free: fill to 128M above the 256M floor at once */
		{ 0, 0, 20 * GiB, PRESSURE_FILL, 20 * GiB - 384 * MiB },
		/* at the margin: one fine step */
		{ 10 * GiB, 0, 384 * MiB, PRESSURE_STEP, 10 * GiB + 32 * MiB },
		/* less than a step above the floor: up to the floor, no further */
		{ 10 * GiB, 0, 266 * MiB, PRESSURE_STEP, 10 * GiB + 10 * MiB },
		/* at the floor: hold */
		{ 10 * GiB, 0, 256 * MiB, PRESSURE_HOLD, 10 * GiB },
		/* the target reached: hold, though room is left */
		{ 10 * GiB, 10, 2 * GiB, PRESSURE_HOLD, 10 * GiB },
		{ 10 * GiB, 55.5, 300 * MiB, PRESSURE_HOLD, 10 * GiB },
		/* below the floor (the machine changed): give back the gap and a step */
		{ 10 * GiB, 0, 200 * MiB, PRESSURE_SHRINK, 10 * GiB - 88 * MiB },
		{ 10 * GiB, 30, 100 * MiB, PRESSURE_SHRINK, 10 * GiB - 188 * MiB },
		/* never below nothing */
		{ 64 * MiB, 0, 0, PRESSURE_SHRINK, 0 },
		/* memory freed elsewhere: a quick fill again */
		{ 10 * GiB, 0, 4 * GiB, PRESSURE_FILL, 14 * GiB - 384 * MiB },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct pressure_reading now = { .psi_some_pct = cases[i].psi,
						.available = cases[i].available };
		enum pressure_move move;
		uint64_t next = pressure_next(&goal, cases[i].resident, &now, &move);

		if (move != cases[i].move || next != cases[i].next)
			fail_msg("case %zu: %s to %llu MiB, want %s to %llu MiB", i,
				 pressure_move_name(move), (unsigned long long)(next / MiB),
				 pressure_move_name(cases[i].move),
				 (unsigned long long)(cases[i].next / MiB));
	}
}

static void test_cap(void **state)
{
	struct pressure_goal goal = { .psi_pct = 10,
				      .floor = 128 * MiB,
				      .margin = 64 * MiB,
				      .step = 16 * MiB,
				      .cap = 900 * MiB };
	struct pressure_reading now = { .psi_some_pct = 0, .available = 4 * GiB };
	enum pressure_move move;

	/* a fill stops at the cap */
	assert_int_equal(pressure_next(&goal, 0, &now, &move), 900 * MiB);
	assert_int_equal(move, PRESSURE_FILL);
	/* at the cap, more room is a hold */
	assert_int_equal(pressure_next(&goal, 900 * MiB, &now, &move), 900 * MiB);
	assert_int_equal(move, PRESSURE_HOLD);
	/* a step that would pass the cap ends on it */
	now.available = 200 * MiB;
	assert_int_equal(pressure_next(&goal, 890 * MiB, &now, &move), 900 * MiB);
	assert_int_equal(move, PRESSURE_STEP);
	/* below the floor the cap does not matter */
	now.available = 100 * MiB;
	assert_int_equal(pressure_next(&goal, 900 * MiB, &now, &move), 856 * MiB);
	assert_int_equal(move, PRESSURE_SHRINK);
}

/* In a cgroup of its own, the load keeps a headroom below that cgroup's
 * limit as charged (its page tables count there), whatever MemAvailable says:
 * the case that OOM-killed it inside its own cgroup on a 24 GiB machine. */
static void test_headroom(void **state)
{
	const struct pressure_goal goal = { .psi_pct = 10,
					    .floor = 256 * MiB,
					    .margin = 128 * MiB,
					    .step = 32 * MiB,
					    .headroom = 128 * MiB,
					    .unit = 2 * MiB };
	static const struct {
		uint64_t resident, available, used, max;
		enum pressure_move move;
		uint64_t next;
	} cases[] = {
		/* the whole machine free, the cgroup's limit near: the fill
		 * stops a margin and the headroom below the limit */
		{ 0, 23 * GiB, 0, 22 * GiB, PRESSURE_FILL, 22 * GiB - 256 * MiB },
		/* charged well beyond the resident set (page tables and the
		 * rest): 72 MiB left below the limit, inside the headroom by 56
		 * MiB, so that and a step go back, though MemAvailable has room */
		{ 22 * GiB + 512 * MiB, 600 * MiB, 22 * GiB + 850 * MiB, 22 * GiB + 922 * MiB,
		  PRESSURE_SHRINK, 22 * GiB + 424 * MiB },
		/* just at the headroom: hold, though MemAvailable has room */
		{ 20 * GiB, 2 * GiB, 21 * GiB, 21 * GiB + 128 * MiB, PRESSURE_HOLD, 20 * GiB },
		/* a step above the headroom: one step, not into it */
		{ 20 * GiB, 2 * GiB, 21 * GiB, 21 * GiB + 144 * MiB, PRESSURE_STEP,
		  20 * GiB + 16 * MiB },
		/* the floor is the nearer line: it decides */
		{ 20 * GiB, 200 * MiB, 20 * GiB, 30 * GiB, PRESSURE_SHRINK, 20 * GiB - 88 * MiB },
		/* no cgroup of its own (max 0): MemAvailable alone */
		{ 20 * GiB, 384 * MiB, 50 * GiB, 0, PRESSURE_STEP, 20 * GiB + 32 * MiB },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct pressure_reading now = { .available = cases[i].available,
						.own_used = cases[i].used,
						.own_max = cases[i].max };
		enum pressure_move move;
		uint64_t next = pressure_next(&goal, cases[i].resident, &now, &move);

		if (move != cases[i].move || next != cases[i].next)
			fail_msg("case %zu: %s to %llu MiB, want %s to %llu MiB", i,
				 pressure_move_name(move), (unsigned long long)(next / MiB),
				 pressure_move_name(cases[i].move),
				 (unsigned long long)(cases[i].next / MiB));
	}
}

static enum pressure_move move_named(const char *name)
{
	static const enum pressure_move all[] = { PRESSURE_FILL, PRESSURE_STEP, PRESSURE_HOLD,
						  PRESSURE_SHRINK };

	for (size_t i = 0; i < NCASES(all); i++) {
		if (strcmp(pressure_move_name(all[i]), name) == 0)
			return all[i];
	}
	fail_msg("unknown move '%s'", name);
	return PRESSURE_HOLD;
}

/* The recorded run: the goal it had, each tick's reading and move. */
static void test_recorded_run(void **state)
{
	/* floor 128M, step 16M (margin 4 steps), cap at the load's cgroup
	 * high rounded to whole chunk pairs, as on the recorded run */
	const struct pressure_goal goal = { .psi_pct = 10,
					    .floor = 128 * MiB,
					    .margin = 64 * MiB,
					    .step = 16 * MiB,
					    .cap = 870 * MiB,
					    .unit = 2 * MiB };
	FILE *fp = fopen(TEST_DATA_DIR "/pressure/cgroup-1g.csv", "r");
	char line[256], name[16];
	int rows = 0, moves[4] = { 0 };

	assert_non_null(fp);
	while (fgets(line, sizeof line, fp) != NULL) {
		unsigned long long resident, available;
		struct pressure_reading now;
		enum pressure_move move;
		double psi;

		if (line[0] == '#')
			continue;
		assert_int_equal(
			sscanf(line, "%llu,%llu,%lf,%15s", &resident, &available, &psi, name), 4);
		now = (struct pressure_reading){ .psi_some_pct = psi, .available = available };
		pressure_next(&goal, resident, &now, &move);
		if (move != move_named(name))
			fail_msg("row %d: %s, recorded %s", rows + 1, pressure_move_name(move),
				 name);
		moves[move]++;
		rows++;
	}
	fclose(fp);
	assert_true(rows >= 20);
	/* the recording holds every kind of move */
	for (int m = 0; m < 4; m++)
		assert_true(moves[m] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_moves),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_headroom),
		cmocka_unit_test(test_recorded_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
