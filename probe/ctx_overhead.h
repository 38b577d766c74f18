// SPDX-License-Identifier: GPL-2.0-or-later
/* The arithmetic of the ctxswitch probe, apart so that it can be tested. */
#ifndef LOADD_CTX_OVERHEAD_H
#define LOADD_CTX_OVERHEAD_H

/* lmbench's lat_ctx subtraction: a hop of the ring is a context switch plus
 * one pipe write + read and one pass over the member's memory; the latter
 * two, timed in one thread with no switch, are the overhead. Returns the
 * switch cost in us, never below 0 (noise can make the overhead the larger).
 * ring_ns: time of `hops` hops around the ring; overhead_ns: time of the same
 * number of hops' pipe transfers and memory passes in one thread. */
double ctx_switch_us(double ring_ns, double overhead_ns, long hops);

#endif
