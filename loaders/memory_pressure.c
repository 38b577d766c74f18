// SPDX-License-Identifier: GPL-2.0-or-later
#include "memory_pressure.h"

static uint64_t whole_units(const struct pressure_goal *goal, uint64_t bytes)
{
	return goal->unit > 0 ? bytes - bytes % goal->unit : bytes;
}

/* A move up, held to the cap, in whole units: one that gains nothing is a hold. */
static uint64_t capped(const struct pressure_goal *goal, uint64_t resident, uint64_t want,
		       enum pressure_move *move)
{
	if (goal->cap > 0 && want > goal->cap)
		want = goal->cap;
	want = whole_units(goal, want);
	if (want <= resident) {
		*move = PRESSURE_HOLD;
		return resident;
	}
	return want;
}

uint64_t pressure_next(const struct pressure_goal *goal, uint64_t resident,
		       const struct pressure_reading *now, enum pressure_move *move)
{
	uint64_t room, give;

	if (now->available < goal->floor) {
		give = goal->floor - now->available + goal->step;
		*move = PRESSURE_SHRINK;
		return give >= resident ? 0 : whole_units(goal, resident - give);
	}
	room = now->available - goal->floor;
	if (now->psi_some_pct >= goal->psi_pct || room == 0) {
		*move = PRESSURE_HOLD;
		return resident;
	}
	if (room > goal->margin + goal->step) {
		*move = PRESSURE_FILL;
		return capped(goal, resident, resident + (room - goal->margin), move);
	}
	*move = PRESSURE_STEP;
	return capped(goal, resident, resident + (room < goal->step ? room : goal->step), move);
}

const char *pressure_move_name(enum pressure_move move)
{
	switch (move) {
	case PRESSURE_FILL: return "fill";
	case PRESSURE_STEP: return "step";
	case PRESSURE_HOLD: return "hold";
	case PRESSURE_SHRINK: return "shrink";
	}
	return "?";
}
