// SPDX-License-Identifier: GPL-2.0-or-later
#include "ctx_overhead.h"

double ctx_switch_us(double ring_ns, double overhead_ns, long hops)
{
	double per_hop;

	if (hops <= 0)
		return 0.0;
	per_hop = (ring_ns - overhead_ns) / (double)hops;
	return per_hop > 0.0 ? per_hop / 1000.0 : 0.0;
}
