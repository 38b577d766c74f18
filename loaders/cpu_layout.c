// SPDX-License-Identifier: GPL-2.0-or-later
#include "cpu_layout.h"

#include <stdio.h>
#include <stdlib.h>

#include "xalloc.h"

static long min_long(long a, long b)
{
	return a < b ? a : b;
}

int cpu_layout_plan(long procs, long tokens, bool pin, const int *cpus, long ncpus,
		    struct cpu_layout *out, char *err, size_t errlen)
{
	long nrings, placed = 0, first = 0;

	if (ncpus < 1)
		ncpus = 1;
	if (procs <= 0)
		procs = min_long(CPU_AUTO_PROCS_PER_CPU * ncpus, CPU_MAX_PROCS);
	if (tokens <= 0)
		tokens = procs / 2;
	if (tokens >= procs) {
		snprintf(err, errlen,
			 "tokens = %ld needs more members than that (procs = %ld): "
			 "with a token at every member none of them waits",
			 tokens, procs);
		return -1;
	}
	nrings = pin ? min_long(min_long(ncpus, tokens), procs / 2) : 1;
	if (nrings < 1)
		nrings = 1;
	*out = (struct cpu_layout){ .procs = procs, .nrings = nrings };
	out->rings = xcalloc((size_t)nrings, sizeof *out->rings);
	for (long r = 0; r < nrings; r++) {
		struct cpu_ring_spec *ring = &out->rings[r];

		ring->first = first;
		ring->members = procs / nrings + (r < procs % nrings);
		ring->tokens = min_long(tokens / nrings + (r < tokens % nrings), ring->members - 1);
		ring->cpu = nrings > 1 && cpus != NULL ? cpus[r % ncpus] : -1;
		first += ring->members;
		placed += ring->tokens;
	}
	out->tokens = placed;
	return 0;
}

void cpu_layout_free(struct cpu_layout *layout)
{
	free(layout->rings);
	layout->rings = NULL;
	layout->nrings = 0;
}
