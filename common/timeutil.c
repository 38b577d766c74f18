// SPDX-License-Identifier: GPL-2.0-or-later
#include "timeutil.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void sleep_until_ns(int64_t when)
{
	struct timespec ts = { .tv_sec = when / NSEC_PER_SEC, .tv_nsec = when % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void format_ms(int64_t ms, char *buf, size_t len)
{
	int64_t s = ms / 1000;

	if (ms < 1000)
		snprintf(buf, len, "%lldms", (long long)ms);
	else if (s < 60)
		snprintf(buf, len, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
	else
		snprintf(buf, len, "%lldh%02lldm", (long long)(s / 3600), (long long)(s / 60 % 60));
}

void format_wall(double t, char *buf, size_t len)
{
	time_t secs = (time_t)t;
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}
