// SPDX-License-Identifier: GPL-2.0-or-later
/* The memory load's pressure mode: how big its resident set should be next,
 * given PSI memory and how much memory is left. It fills quickly to a margin
 * above the floor, then steps finely until PSI memory some reaches the
 * target, holds there, and gives memory back whenever what is left falls
 * below the floor (the machine changed: something else wants memory). In a
 * cgroup of its own it also keeps a headroom below that cgroup's limit, as
 * measured (its page tables and the rest of the process count there too),
 * so that the limit, which is the OOM killer's line, is never reached. A pure
 * function, so that recorded sequences can drive it in tests. */
#ifndef LOADD_MEMORY_PRESSURE_H
#define LOADD_MEMORY_PRESSURE_H

#include <stdint.h>

struct pressure_goal {
	double psi_pct;    /* PSI memory some to reach, % of the time */
	uint64_t floor;    /* what is left (MemAvailable) never below this */
	uint64_t margin;   /* a quick fill stops this far above the floor */
	uint64_t step;     /* a fine step, up or down */
	uint64_t cap;      /* never more resident than this (its cgroup's top); 0: none */
	uint64_t headroom; /* kept free below its own cgroup's limit */
	uint64_t unit;     /* memory is taken and given in whole units; 0: bytes */
};

struct pressure_reading {
	double psi_some_pct; /* PSI memory some over the last interval, % */
	uint64_t available;  /* MemAvailable, or the enclosing cgroup's room when less */
	uint64_t own_used;   /* what its own cgroup is charged now */
	uint64_t own_max;    /* that cgroup's limit; 0: not in one of its own */
};

enum pressure_move {
	PRESSURE_FILL,   /* a quick fill towards floor + margin */
	PRESSURE_STEP,   /* one fine step up */
	PRESSURE_HOLD,   /* the target reached, at the cap, or nothing left above the floor */
	PRESSURE_SHRINK, /* below the floor, or inside the headroom: memory given back */
};

/* The resident size to have next, from resident bytes now. */
uint64_t pressure_next(const struct pressure_goal *goal, uint64_t resident,
		       const struct pressure_reading *now, enum pressure_move *move);
const char *pressure_move_name(enum pressure_move move);

#endif
