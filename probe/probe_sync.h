// SPDX-License-Identifier: GPL-2.0-or-later
/* The sync probe's pieces that tests reach. */
#ifndef LOADD_PROBE_SYNC_H
#define LOADD_PROBE_SYNC_H

#include <stdint.h>

#include "records.h"

/* Judges one sample: `workers` threads or processes each incremented the
 * shared counter `count` times under the lock in elapsed_ns. A counter at
 * workers × count gives s->value, us per lock + unlock pair (the elapsed
 * time over every pair, as Stevens' appendix reckons it); any other total
 * is lost (or extra) updates: s->failed, -1 and *err saying so, never a
 * figure. */
int sync_judge(long counter, long workers, long count, int64_t elapsed_ns, struct sample *s,
	       char **err);

/* What to tell the user when making an object or a worker failed with
 * errno e: the limit it hit, naming its sysctl or rlimit ("" when none). */
const char *sync_limit_hint(int e, const char *what);

#endif
