// SPDX-License-Identifier: GPL-2.0-or-later
/* Clocks: CLOCK_MONOTONIC for every interval, wall time only for stamps. */
#ifndef LOADD_TIMEUTIL_H
#define LOADD_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_USEC 1000LL
#define NSEC_PER_MSEC 1000000LL
#define NSEC_PER_SEC 1000000000LL

int64_t mono_ns(void);
/* Seconds since the epoch, with sub-second precision. */
double wall_now(void);
/* Sleeps until the CLOCK_MONOTONIC instant, restarting after signals. */
void sleep_until_ns(int64_t when);
/* "1h02m", "3m05s", "42s", "750ms": for plans and progress lines. */
void format_ms(int64_t ms, char *buf, size_t len);
/* "2026-11-22 01:02:03" in local time. */
void format_wall(double t, char *buf, size_t len);

#endif
