// SPDX-License-Identifier: GPL-2.0-or-later
/* lmbench lat_ctx's ring of pipes, shared by the cpu loader (which keeps it
 * busy) and the ctxswitch probe (which times it): every member reads a token
 * from the pipe before it, passes over its working set and writes the token
 * to the pipe after it, so every pass is one context switch. Members are
 * processes or threads; this file holds what both kinds of member do, the
 * callers decide who they are, where they run and what they count. */
#ifndef LOADD_TOKEN_RING_H
#define LOADD_TOKEN_RING_H

#include <stdbool.h>
#include <stddef.h>

/* One member's two ends: it reads `in`, writes `out`; -1 when closed. */
struct ring_ends {
	int in, out;
};

/* Pipes (close-on-exec) for a ring of n members: ends[k].out feeds
 * ends[(k + 1) % n].in. 0, or -1 with errno and every pipe closed. */
int token_ring_pipes(struct ring_ends *ends, long n);
/* Closes every end still open and marks it -1. */
void token_ring_close(struct ring_ends *ends, long n);
/* In member k's own process: closes every end but its two, so that its
 * death reaches its neighbours as EOF and EPIPE and the ring comes down. */
void token_ring_keep_only(struct ring_ends *ends, long n, long k);

/* Reads one byte in every 64 of ws, so the whole set passes through the
 * cache (lat_ctx -s); kept from being optimised away. */
void working_set_touch(const unsigned char *ws, size_t bytes);

/* Called with each token a member takes, before its working set pass: false
 * makes the member leave the ring without passing the token on. */
typedef bool (*token_take_fn)(void *arg, char token);

enum member_end {
	MEMBER_LEFT,   /* on_take said so */
	MEMBER_BROKEN, /* a neighbour is gone: EOF before it, EPIPE after it */
	MEMBER_FAILED, /* read or write failed otherwise (errno) */
};

/* A member's life: take a token from in, on_take (may be NULL), pass over
 * ws, write the token to out; until it ends as enum member_end says, with
 * *what naming the step ("read", "the member before it is gone"). EINTR is
 * retried. Uses only read, write and memory, so it is safe in a forked child
 * of a threaded process when on_take is. */
enum member_end token_member_loop(int in, int out, const unsigned char *ws, size_t ws_bytes,
				  token_take_fn on_take, void *arg, const char **what);

/* The CPUs this process may run on (its affinity, which a cpuset or taskset
 * narrows), into cpus[]; their count, at least 1. */
long ring_allowed_cpus(int *cpus, long max);
/* Pins the calling thread to cpu (no-op for -1): 0, or -1 with errno. */
int ring_pin_self(int cpu);

#endif
