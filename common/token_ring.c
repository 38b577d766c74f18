// SPDX-License-Identifier: GPL-2.0-or-later
#include "token_ring.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

int token_ring_pipes(struct ring_ends *ends, long n)
{
	int fds[2];

	for (long k = 0; k < n; k++)
		ends[k].in = ends[k].out = -1;
	for (long k = 0; k < n; k++) {
		if (pipe2(fds, O_CLOEXEC) < 0) {
			int err = errno;

			token_ring_close(ends, n);
			errno = err;
			return -1;
		}
		ends[k].out = fds[1];
		ends[(k + 1) % n].in = fds[0];
	}
	return 0;
}

static void close_end(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void token_ring_close(struct ring_ends *ends, long n)
{
	for (long k = 0; k < n; k++) {
		close_end(&ends[k].in);
		close_end(&ends[k].out);
	}
}

void token_ring_keep_only(struct ring_ends *ends, long n, long k)
{
	for (long j = 0; j < n; j++) {
		if (j != k) {
			close_end(&ends[j].in);
			close_end(&ends[j].out);
		}
	}
}

void working_set_touch(const unsigned char *ws, size_t bytes)
{
	unsigned long sum = 0;

	for (size_t i = 0; i < bytes; i += 64)
		sum += ws[i];
	/* the empty asm keeps loads whose sum nobody reads */
	__asm__ __volatile__("" : : "r"(sum));
}

enum member_end token_member_loop(int in, int out, const unsigned char *ws, size_t ws_bytes,
				  token_take_fn on_take, void *arg, const char **what)
{
	char token;
	ssize_t n;

	for (;;) {
		while ((n = read(in, &token, 1)) < 0 && errno == EINTR)
			;
		if (n == 0) {
			*what = "the member before it is gone";
			return MEMBER_BROKEN;
		}
		if (n < 0) {
			*what = "read";
			return MEMBER_FAILED;
		}
		if (on_take != NULL && !on_take(arg, token))
			return MEMBER_LEFT;
		if (ws != NULL)
			working_set_touch(ws, ws_bytes);
		while ((n = write(out, &token, 1)) < 0 && errno == EINTR)
			;
		if (n < 0 && errno == EPIPE) {
			*what = "the member after it is gone";
			return MEMBER_BROKEN;
		}
		if (n < 0) {
			*what = "write";
			return MEMBER_FAILED;
		}
	}
}

long ring_allowed_cpus(int *cpus, long max)
{
	cpu_set_t set;
	long n = 0;

	if (sched_getaffinity(0, sizeof set, &set) < 0) {
		cpus[0] = 0;
		return 1;
	}
	for (int c = 0; c < CPU_SETSIZE && n < max; c++) {
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	}
	if (n == 0)
		cpus[n++] = 0;
	return n;
}

int ring_pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof set, &set);
}
