// SPDX-License-Identifier: GPL-2.0-or-later
/* How the cpu load's members and tokens are split into rings. A pure token
 * ring is wake-up bound: every pass wakes the next member, and a wake-up on
 * another CPU costs ~10x one on the same CPU, so a ring spread over the CPUs
 * spends most of its time waiting for wake-ups to arrive. One ring per CPU,
 * its members pinned there, makes every pass a same-CPU wake-up and keeps
 * that CPU busy as long as one token is in its ring. */
#ifndef LOADD_CPU_LAYOUT_H
#define LOADD_CPU_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/* procs = auto: members per CPU the load may run on; tokens = auto: half of
 * the members, so half of each ring is runnable at any moment. */
#define CPU_AUTO_PROCS_PER_CPU 8
#define CPU_MAX_PROCS 4096

struct cpu_ring_spec {
	long first; /* index of its first member among all members */
	long members;
	long tokens;
	int cpu; /* the CPU its members are pinned to; -1: not pinned */
};

struct cpu_layout {
	long procs;  /* members in all, auto resolved */
	long tokens; /* tokens in all, after each ring's share was capped */
	long nrings;
	struct cpu_ring_spec *rings; /* xmalloc'd; cpu_layout_free() */
};

/* Splits procs members (0: auto) and tokens (0: auto) over the ncpus CPUs of
 * cpus[]. With pin, one ring per CPU (fewer when there are fewer tokens or
 * member pairs than CPUs); a single ring is never pinned: it is lat_ctx's
 * measuring mode (tokens = 1), whose members go where the scheduler puts
 * them. Returns 0, or -1 with err set when tokens leave no member waiting. */
int cpu_layout_plan(long procs, long tokens, bool pin, const int *cpus, long ncpus,
		    struct cpu_layout *out, char *err, size_t errlen);
void cpu_layout_free(struct cpu_layout *layout);

#endif
