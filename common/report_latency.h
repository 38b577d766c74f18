// SPDX-License-Identifier: GPL-2.0-or-later
/* The latencies a sample probe stores beside its samples (chat: each
 * message's delivery), in the report: a table after the probes' and a
 * "latency" object in the JSON. Histogram probes have theirs in the probes'
 * table already. */
#ifndef LOADD_REPORT_LATENCY_H
#define LOADD_REPORT_LATENCY_H

#include <stdio.h>

#include <jansson.h>

#include "report.h"

/* Nothing when no sample probe of the run stored latencies. */
void report_latency_print(const struct run_report *rep, FILE *out);
/* {count, p50_ms, p99_ms, p999_ms, max_ms, mean_ms} of rp's latencies. */
json_t *report_latency_json(const struct report_probe *rp);

#endif
