// SPDX-License-Identifier: GPL-2.0-or-later
/* wakeup-floor: the least a program can do to measure wake-up latency, so
 * that the wakeup probe's and cyclictest's CPU cost have a floor beside
 * them: one thread sleeps until an absolute CLOCK_MONOTONIC instant every
 * interval, reads the clock and counts the lateness in a 1-us histogram.
 * Nothing else runs: no second thread, no output until the end.
 *
 *	wakeup-floor [-t SECONDS] [-i INTERVAL_US] [-s SLACK_NS] [-m] [-c CPU] [-l]
 *
 * The switches make it do one thing more of what cyclictest does, for an
 * A/B of each: -s sets the thread's timer slack (prctl), -m locks memory
 * (mlockall), -c pins the thread to a CPU, -l holds /dev/cpu_dma_latency at
 * 0 (keeps every CPU out of idle states slower to leave than 0 us, as
 * cyclictest does unless --laptop). It prints one line:
 *
 *	p50_us=... p99_us=... max_us=... wakeups=... cpu_ms_per_s=...
 *
 * cpu_ms_per_s is the process's CPU time over the measuring loop only
 * (CLOCK_PROCESS_CPUTIME_ID), per second of it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC 1000000000LL
#define BUCKETS 100000 /* 1 us each, to 100 ms; beyond counts in the last */

static int64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: wakeup-floor [-t SECONDS] [-i INTERVAL_US] [-s SLACK_NS] [-m] [-c CPU] "
		"[-l]\n"
		"  -t  measuring time (default 10)\n"
		"  -i  interval, microseconds (default 1000)\n"
		"  -s  the thread's timer slack, ns (default: as inherited)\n"
		"  -m  mlockall(MCL_CURRENT | MCL_FUTURE)\n"
		"  -c  pin the thread to this CPU\n"
		"  -l  hold /dev/cpu_dma_latency at 0 while measuring\n");
	exit(2);
}

static long number_arg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0)
		usage();
	return v;
}

static double percentile_us(const uint32_t *hist, uint64_t count, double p)
{
	uint64_t rank = (uint64_t)(p / 100.0 * (double)count + 0.999999), seen = 0;

	if (rank == 0)
		rank = 1;
	for (long b = 0; b < BUCKETS; b++) {
		seen += hist[b];
		if (seen >= rank)
			return (double)b + 0.5; /* the bucket [b, b + 1) us */
	}
	return BUCKETS;
}

int main(int argc, char **argv)
{
	static uint32_t hist[BUCKETS];
	long seconds = 10, interval_us = 1000, slack = -1, cpu = -1;
	int lock = 0, dma = 0, dma_fd = -1, opt;
	int64_t interval, next, end, cpu0, wall0, max = 0;
	uint64_t count = 0;

	while ((opt = getopt(argc, argv, "t:i:s:mc:l")) != -1) {
		switch (opt) {
		case 't': seconds = number_arg(optarg); break;
		case 'i': interval_us = number_arg(optarg); break;
		case 's': slack = number_arg(optarg); break;
		case 'm': lock = 1; break;
		case 'c': cpu = number_arg(optarg); break;
		case 'l': dma = 1; break;
		default: usage();
		}
	}
	if (optind != argc || seconds < 1 || interval_us < 1)
		usage();
	if (slack >= 0 && prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0) != 0)
		perror("wakeup-floor: prctl(PR_SET_TIMERSLACK)");
	if (lock && mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
		perror("wakeup-floor: mlockall");
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)cpu, &set);
		if (sched_setaffinity(0, sizeof set, &set) != 0)
			perror("wakeup-floor: sched_setaffinity");
	}
	if (dma) {
		int32_t zero = 0;

		dma_fd = open("/dev/cpu_dma_latency", O_RDWR);
		if (dma_fd < 0 || write(dma_fd, &zero, sizeof zero) != (ssize_t)sizeof zero)
			perror("wakeup-floor: /dev/cpu_dma_latency");
	}
	memset(hist, 0, sizeof hist); /* touched before the loop, not in it */

	interval = interval_us * 1000;
	wall0 = now_ns(CLOCK_MONOTONIC);
	cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	end = wall0 + seconds * NSEC_PER_SEC;
	for (next = wall0 + interval; next < end; next += interval) {
		struct timespec ts = { .tv_sec = next / NSEC_PER_SEC,
				       .tv_nsec = next % NSEC_PER_SEC };
		int64_t late, now;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		now = now_ns(CLOCK_MONOTONIC);
		late = now > next ? now - next : 0;
		hist[late / 1000 < BUCKETS ? late / 1000 : BUCKETS - 1]++;
		if (late > max)
			max = late;
		count++;
		while (next + interval <= now) /* skip the periods slept through */
			next += interval;
	}
	printf("p50_us=%.1f p99_us=%.1f max_us=%.1f wakeups=%llu cpu_ms_per_s=%.3f\n",
	       percentile_us(hist, count, 50), percentile_us(hist, count, 99), (double)max / 1000,
	       (unsigned long long)count,
	       (double)(now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / 1e6 /
		       ((double)(now_ns(CLOCK_MONOTONIC) - wall0) / 1e9));
	if (dma_fd >= 0)
		close(dma_fd);
	return 0;
}
