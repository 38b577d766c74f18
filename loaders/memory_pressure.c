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

/* What its own cgroup can still be charged before its limit. */
static uint64_t own_room(const struct pressure_reading *now)
{
	return now->own_max > now->own_used ? now->own_max - now->own_used : 0;
}

/* How far below the floor, or inside the headroom under its own cgroup's
 * limit, the load is now: 0 when neither. */
static uint64_t shortfall(const struct pressure_goal *goal, const struct pressure_reading *now)
{
	uint64_t below = now->available < goal->floor ? goal->floor - now->available : 0;
	uint64_t own = own_room(now);

	if (now->own_max != 0 && own < goal->headroom && goal->headroom - own > below)
		return goal->headroom - own;
	return below;
}

/* What may still be taken: above the floor, and below the headroom. */
static uint64_t room_left(const struct pressure_goal *goal, const struct pressure_reading *now)
{
	uint64_t room = now->available - goal->floor, own;

	if (now->own_max == 0)
		return room;
	own = own_room(now) - goal->headroom;
	return own < room ? own : room;
}

uint64_t pressure_next(const struct pressure_goal *goal, uint64_t resident,
		       const struct pressure_reading *now, enum pressure_move *move)
{
	uint64_t room, give, short_by = shortfall(goal, now);

	if (short_by > 0) {
		give = short_by + goal->step;
		*move = PRESSURE_SHRINK;
		return give >= resident ? 0 : whole_units(goal, resident - give);
	}
	room = room_left(goal, now);
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
