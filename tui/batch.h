// SPDX-License-Identifier: GPL-2.0-or-later
/* loadtop -b: snapshots as plain text, for scripts and tests. */
#ifndef LOADTOP_BATCH_H
#define LOADTOP_BATCH_H

#include <stdio.h>

#include "view.h"

/* Columns a batch line may take: wide enough that nothing is cut. */
#define BATCH_WIDTH 200

/* One snapshot, every panel in full, after a line that says which one. */
void batch_print(FILE *fp, const struct snapshot *s, long index, long total);

#endif
